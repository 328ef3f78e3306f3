//! The whole of a book with its positions: none of the three formats stores a position, only
//! its key, so [`Contents::read`] walks the book's lines from the start positions (every
//! Janggi formation pair), looks up each position reached (as it stands and as its mirror
//! image) and gives every stored record the position it belongs to. Records no line reaches
//! keep their key as they are ([`Contents::loose`]). What `convert`, `merge`, `dump`,
//! `stats` and `extend` work from; it reads books through [`Book::raw_records`] only.
//!
//! ```
//! use qipu::book::{build, qipu::{write, QipuKeys}, Book, BookGame, BookOptions, Contents, Format};
//! use qipu::rules::{AnyPosition, Move, Variant};
//! let game = BookGame {
//!     start: AnyPosition::new(Variant::Xiangqi),
//!     moves: vec!["h2e2".parse::<Move>()?, "h9g7".parse()?],
//!     result: None,
//! };
//! let built = build::<QipuKeys>([Ok(game)].into_iter(), &BookOptions::everything(Format::Qipu))?;
//! let mut bytes = Vec::new();
//! write(&built, &mut bytes)?;
//! let contents = Contents::read(&Book::from_bytes(&bytes)?, &[])?;
//! // the start (h2e2 with its mirror b2e2) and the position after h2e2 or b2e2 (one, folded)
//! assert_eq!((contents.nodes.len(), contents.entries(), contents.loose.len()), (2, 3, 0));
//! # Ok::<_, Box<dyn std::error::Error>>(())
//! ```

use std::collections::{HashMap, HashSet, VecDeque};

use super::{build::FastHash, Book, BookError, Format, ProbeMove, RawRecord};
use crate::rules::{AnyPosition, Formations, JanggiRules, Variant};

/// One position of the book with the records stored for it.
#[derive(Clone, Debug)]
pub struct Node {
    /// The position, in the orientation its records are stored in.
    pub pos: AnyPosition,
    /// Plies from the start position of the walk that first reached it.
    pub depth: u32,
    /// Its records, moves in the orientation of `pos`, in stored order.
    pub moves: Vec<ProbeMove>,
}

/// A book read whole.
#[derive(Clone, Debug)]
pub struct Contents {
    /// The format read.
    pub format: Format,
    /// The game.
    pub variant: Variant,
    /// Whether the book folds positions with their mirror images (see [`Book::mirror_merged`];
    /// `.obk`: false).
    pub mirror_merged: bool,
    /// The positions reached, in the order of the walk (breadth first from the starts).
    pub nodes: Vec<Node>,
    /// Records of positions no line from a start reaches: key and move as stored.
    pub loose: Vec<RawRecord>,
    /// Records the file holds.
    pub records: usize,
    /// Records this version cannot read (a move off the board, an unknown code), left out.
    pub unreadable: usize,
    /// A qipu book's weight scheme and ratio (header).
    pub header: Option<(super::Weights, u32)>,
}

/// The mirror image of a position (`None` when it is not a legal position, e.g. a Janggi
/// formation whose mirror is not one — it always is, but the rules decide).
pub fn mirror_position(pos: &AnyPosition) -> Option<AnyPosition> {
    let setup = pos.board().to_setup().mirror();
    AnyPosition::from_setup(pos.variant(), &setup)
        .ok()
        .map(|p| p.with_janggi_rules(JanggiRules::SERVER))
}

/// The key of a position in a format's scheme, as its records store it (an ElephantEye lock
/// widened to `u64`).
pub fn format_key(format: Format, pos: &AnyPosition) -> u64 {
    match format {
        Format::Eleeye => u64::from(super::eleeye::lock(pos.board())),
        Format::Obk => super::obk::key(pos.board(), false),
        Format::Qipu => pos.key(),
    }
}

/// The start positions of a game's books: the Xiangqi start, or the 16 Janggi formation
/// pairs.
pub fn start_positions(variant: Variant) -> Vec<AnyPosition> {
    match variant {
        Variant::Xiangqi => vec![AnyPosition::new(Variant::Xiangqi)],
        Variant::Janggi => Formations::all()
            .filter_map(|f| AnyPosition::from_setup(Variant::Janggi, &f.start_setup()).ok())
            .map(|p| p.with_janggi_rules(JanggiRules::SERVER))
            .collect(),
    }
}

/// The key of a position's mirror image in a format's scheme, without building it.
fn mirror_format_key(format: Format, pos: &AnyPosition) -> u64 {
    match format {
        Format::Eleeye => u64::from(super::eleeye::locks(pos.board(), true).0),
        Format::Obk => super::obk::key(pos.board(), true),
        Format::Qipu => pos.board().mirror_key(),
    }
}

/// The walk of [`Contents::read`]: the book's own records grouped by key, which of them a
/// position took, the positions seen and the nodes found.
struct Walk<'a> {
    format: Format,
    raw: &'a [RawRecord],
    /// Key → the range of `raw` stored under it.
    ranges: HashMap<u64, (usize, usize), FastHash>,
    taken: Vec<bool>,
    seen: HashSet<u64, FastHash>,
    nodes: Vec<Node>,
    /// Children to visit: (parent node, move).
    pending: VecDeque<(usize, crate::rules::Move)>,
}

impl<'a> Walk<'a> {
    /// `raw` sorted by key.
    fn new(format: Format, raw: &'a [RawRecord]) -> Walk<'a> {
        let mut ranges = HashMap::with_capacity_and_hasher(raw.len(), FastHash::default());
        let mut at = 0;
        while at < raw.len() {
            let key = raw[at].key;
            let end = at + raw[at..].partition_point(|r| r.key == key);
            ranges.insert(key, (at, end));
            at = end;
        }
        Walk {
            format,
            raw,
            ranges,
            taken: vec![false; raw.len()],
            // a child per record, and mirror images: sized once, not grown
            seen: HashSet::with_capacity_and_hasher(2 * raw.len() + 64, FastHash::default()),
            nodes: Vec::new(),
            pending: VecDeque::new(),
        }
    }

    /// Whether records stored under `key` are left to take.
    fn untaken(&self, key: u64) -> bool {
        self.ranges
            .get(&key)
            .is_some_and(|&(a, b)| self.taken[a..b].iter().any(|t| !t))
    }

    /// A position reached at `depth`: its records and its mirror image's (when another
    /// position) become nodes, their children queued.
    fn visit(&mut self, pos: AnyPosition, depth: u32) {
        let mirror_key = pos.board().mirror_key();
        let mirror = if mirror_key != pos.key() {
            self.seen.insert(mirror_key);
            let k = mirror_format_key(self.format, &pos);
            if self.untaken(k) {
                mirror_position(&pos)
            } else {
                None
            }
        } else {
            None
        };
        for p in std::iter::once(pos).chain(mirror) {
            self.take(p, depth);
        }
    }

    /// The untaken legal records of `p`'s key into a node, its children queued.
    fn take(&mut self, p: AnyPosition, depth: u32) {
        let key = format_key(self.format, &p);
        let Some(&(a, b)) = self.ranges.get(&key) else {
            return;
        };
        let mut moves = Vec::new();
        for i in a..b {
            let r = &self.raw[i];
            if !self.taken[i] && p.is_legal(r.entry.mv) {
                self.taken[i] = true;
                moves.push(r.entry);
            }
        }
        if moves.is_empty() {
            return;
        }
        let at = self.nodes.len();
        for m in &moves {
            let mut child = p.clone();
            child.play_unchecked(m.mv);
            if self.seen.insert(child.key()) {
                self.pending.push_back((at, m.mv));
            }
        }
        self.nodes.push(Node {
            pos: p,
            depth,
            moves,
        });
    }
}

impl Contents {
    /// Reads a whole book: walks its lines from `roots` (none: [`start_positions`]) and gives
    /// each record the position it is stored for.
    ///
    /// # Errors
    /// The book's read errors; [`BookError::Unsupported`] for a root of the other game.
    pub fn read(book: &Book, roots: &[AnyPosition]) -> Result<Contents, BookError> {
        let format = book.format();
        let variant = book.variant();
        if let Some(r) = roots.iter().find(|r| r.variant() != variant) {
            return Err(BookError::Unsupported(format!(
                "a {} start position for a book of {variant} positions",
                r.variant()
            )));
        }
        let (mut raw, unreadable) = book.raw_records()?;
        let records = raw.len() + unreadable;
        // by key, stored order kept within a key
        raw.sort_by_key(|r| (r.keyed != format, r.key));
        let own = raw.partition_point(|r| r.keyed == format);
        let roots = if roots.is_empty() {
            start_positions(variant)
        } else {
            roots
                .iter()
                .map(|r| r.clone().with_janggi_rules(JanggiRules::SERVER))
                .collect()
        };
        let mut walk = Walk::new(format, &raw[..own]);
        let mut starts = Vec::new();
        for r in roots {
            if walk.seen.insert(r.key()) {
                starts.push(r);
            }
        }
        for r in starts {
            walk.visit(r, 0);
        }
        // breadth first: a child is its parent node's position and a move, built when due
        while let Some((parent, mv)) = walk.pending.pop_front() {
            let node = &walk.nodes[parent];
            let (mut pos, depth) = (node.pos.clone(), node.depth + 1);
            pos.play_unchecked(mv);
            walk.visit(pos, depth);
        }
        let Walk { nodes, taken, .. } = walk;
        let loose = raw
            .iter()
            .enumerate()
            .filter(|&(i, _)| i >= own || !taken[i])
            .map(|(_, r)| *r)
            .collect();
        Ok(Contents {
            format,
            variant,
            mirror_merged: book.mirror_merged().unwrap_or(false),
            nodes,
            loose,
            records,
            unreadable,
            header: match book {
                Book::Qipu(q) => q.header().weights.map(|w| (w, q.header().ratio)),
                _ => None,
            },
        })
    }

    /// Records given a position.
    pub fn entries(&self) -> usize {
        self.nodes.iter().map(|n| n.moves.len()).sum()
    }

    /// The deepest ply a node was first reached at.
    pub fn depth(&self) -> u32 {
        self.nodes.iter().map(|n| n.depth).max().unwrap_or(0)
    }
}

/// The nodes of a [`Contents`] by position, for walking its lines again.
#[derive(Clone, Debug, Default)]
pub struct Index {
    by_key: std::collections::HashMap<u64, usize>,
}

impl Index {
    /// Indexes the nodes by qipu key.
    pub fn new(c: &Contents) -> Index {
        Index {
            by_key: c
                .nodes
                .iter()
                .enumerate()
                .map(|(i, n)| (n.pos.key(), i))
                .collect(),
        }
    }

    /// The node of a position as it stands (not its mirror image's), if the book has one.
    pub fn node<'c>(&self, c: &'c Contents, pos: &AnyPosition) -> Option<&'c Node> {
        self.by_key.get(&pos.key()).and_then(|&i| c.nodes.get(i))
    }

    /// The book moves of a position, as a probe finds them: its own node's, else its mirror
    /// image's (moves mirrored back).
    pub fn moves(&self, c: &Contents, pos: &AnyPosition) -> Vec<ProbeMove> {
        if let Some(n) = self.node(c, pos) {
            return n.moves.clone();
        }
        mirror_position(pos)
            .and_then(|m| self.node(c, &m))
            .map(|n| {
                n.moves
                    .iter()
                    .map(|m| ProbeMove {
                        mv: m.mv.mirror(),
                        ..*m
                    })
                    .collect()
            })
            .unwrap_or_default()
    }
}
