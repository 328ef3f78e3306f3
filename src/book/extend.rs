//! Growing a book where its lines run out (`qipu book extend`). [`extend`] walks a book's
//! [`Contents`] from the start positions, breadth first over the book's moves as
//! [`Contents::read`] does (a position and its mirror image are reached once: the first
//! reached stands for both). A position reached before ply `plies` that holds no book move,
//! neither as it stands nor as its mirror image, is a **line's end**: the caller's `best` is
//! asked for a move there, and the line goes on with it, one move per ply, until ply
//! `plies`, a position the walk has already reached (a repetition or a transposition), or a
//! position where `best` has no move. A line that transposes into a position the book holds
//! goes on with the book's moves.
//!
//! The moves added are marked as an engine's ([`ProbeMove::engine`]) and weigh
//! [`ENGINE_WEIGHT`]: the smallest weight every format holds, so that wherever a book move
//! and an engine move meet (after a merge) the book's move is preferred. They stand alone in
//! their positions (a line's end has no book move), so an engine reading the book plays them.
//!
//! Positions are asked in the walk's order, which depends on the book only: a `best` that
//! answers each position the same way gives the same result, whether its answers come from
//! an engine or from a cache. The module knows neither engines nor databases.
//!
//! ```
//! use qipu::book::{build, extend, qipu::{write, QipuKeys}, Book, BookGame, BookOptions, Contents, Format};
//! use qipu::rules::{AnyPosition, Move, Variant};
//! let game = BookGame {
//!     start: AnyPosition::new(Variant::Xiangqi),
//!     moves: vec!["h2e2".parse::<Move>()?],
//!     result: None,
//! };
//! let built = build::<QipuKeys>([Ok(game)].into_iter(), &BookOptions::everything(Format::Qipu))?;
//! let mut bytes = Vec::new();
//! write(&built, &mut bytes)?;
//! let book = Contents::read(&Book::from_bytes(&bytes)?, &[])?;
//! // an "engine" that always answers the first legal move, asked up to ply 3
//! let first = |pos: &AnyPosition| Ok::<_, ()>(pos.legal_moves().first().copied());
//! let grown = extend::extend(&book, 3, first).unwrap();
//! // the line h2e2 (or b2e2) ends at ply 1: engine moves at plies 1 and 2
//! assert_eq!((grown.line_ends, grown.extended, grown.plies_added, grown.to_target), (1, 1, 2, 1));
//! assert_eq!(grown.contents.nodes.len(), book.nodes.len() + 2);
//! assert!(grown.contents.nodes.last().unwrap().moves[0].engine);
//! # Ok::<_, Box<dyn std::error::Error>>(())
//! ```

use std::collections::{HashSet, VecDeque};

use super::{
    contents::{mirror_position, start_positions},
    Contents, Index, Node, ProbeMove,
};
use crate::rules::{AnyPosition, Move};

/// The weight of a move an engine added: 1, the smallest weight of every format.
pub const ENGINE_WEIGHT: i64 = 1;

/// A book grown by [`extend`].
#[derive(Clone, Debug)]
pub struct Extended {
    /// The book's contents with one node more per engine move (appended in the walk's
    /// order): what a format's writer takes, as for a convert.
    pub contents: Contents,
    /// Lines' ends reached before the target ply.
    pub line_ends: usize,
    /// Of them, those given at least one engine move.
    pub extended: usize,
    /// Lines whose engine moves reached the target ply (the others stopped earlier: at a
    /// position already reached, in the book's moves again, or where no move came).
    pub to_target: usize,
    /// Engine moves added.
    pub plies_added: usize,
    /// Positions `best` was asked about.
    pub asked: usize,
}

/// Why [`extend`] stopped.
#[derive(Debug)]
pub enum ExtendError<E> {
    /// `best` failed.
    Best(E),
    /// `best` answered a move that is not legal in the position (its FEN).
    Illegal {
        /// The position.
        fen: String,
        /// The move.
        mv: Move,
    },
}

impl<E: std::fmt::Display> std::fmt::Display for ExtendError<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExtendError::Best(e) => write!(f, "{e}"),
            ExtendError::Illegal { fen, mv } => {
                write!(f, "the move {mv} chosen in `{fen}` is not legal there")
            }
        }
    }
}

impl<E: std::error::Error + 'static> std::error::Error for ExtendError<E> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ExtendError::Best(e) => Some(e),
            ExtendError::Illegal { .. } => None,
        }
    }
}

/// The walk's state: positions reached (with their mirror images) and the queue.
struct Walk {
    seen: HashSet<u64>,
    /// Position, ply, and the line's end it continues (an index into the lines' ends).
    queue: VecDeque<(AnyPosition, u32, Option<usize>)>,
}

impl Walk {
    /// Queues a position unless it (or its mirror image) was reached; whether it was queued.
    fn reach(&mut self, pos: AnyPosition, ply: u32, line: Option<usize>) -> bool {
        if !self.seen.insert(pos.key()) {
            return false;
        }
        self.seen.insert(pos.board().mirror_key());
        self.queue.push_back((pos, ply, line));
        true
    }
}

/// Grows the lines of `book` that end before ply `plies` with the moves `best` chooses (see
/// the module doc). `best` answers `Ok(None)` for a position without a move.
///
/// # Errors
/// [`ExtendError::Best`] as soon as `best` fails (nothing is returned of the walk), and
/// [`ExtendError::Illegal`] for a move that is not legal where it was chosen.
pub fn extend<E>(
    book: &Contents,
    plies: u32,
    mut best: impl FnMut(&AnyPosition) -> Result<Option<Move>, E>,
) -> Result<Extended, ExtendError<E>> {
    let index = Index::new(book);
    let mut walk = Walk {
        seen: HashSet::new(),
        queue: VecDeque::new(),
    };
    for start in start_positions(book.variant) {
        walk.reach(start, 0, None);
    }
    let mut added: Vec<Node> = Vec::new();
    // per line's end: whether it has an engine move yet
    let mut lines: Vec<bool> = Vec::new();
    let (mut to_target, mut asked) = (0, 0);
    while let Some((pos, ply, line)) = walk.queue.pop_front() {
        let mirror = mirror_position(&pos).filter(|m| m.key() != pos.key());
        let own = index.node(book, &pos).map(|n| (pos.clone(), n));
        let other = mirror.and_then(|m| index.node(book, &m).map(|n| (m, n)));
        if own.is_some() || other.is_some() {
            for (p, node) in own.into_iter().chain(other) {
                for m in &node.moves {
                    let mut child = p.clone();
                    child.play_unchecked(m.mv);
                    walk.reach(child, ply + 1, None);
                }
            }
            continue;
        }
        if ply >= plies {
            continue;
        }
        let line = line.unwrap_or_else(|| {
            lines.push(false);
            lines.len() - 1
        });
        asked += 1;
        let Some(mv) = best(&pos).map_err(ExtendError::Best)? else {
            continue;
        };
        if !pos.is_legal(mv) {
            return Err(ExtendError::Illegal { fen: pos.fen(), mv });
        }
        if let Some(l) = lines.get_mut(line) {
            *l = true;
        }
        let mut child = pos.clone();
        child.play_unchecked(mv);
        added.push(Node {
            pos,
            depth: ply,
            moves: vec![ProbeMove {
                mv,
                weight: ENGINE_WEIGHT,
                counts: None,
                engine: true,
            }],
        });
        walk.reach(child, ply + 1, Some(line));
        if ply + 1 >= plies {
            to_target += 1;
        }
    }
    let plies_added = added.len();
    let mut contents = book.clone();
    contents.nodes.extend(added);
    Ok(Extended {
        contents,
        line_ends: lines.len(),
        extended: lines.iter().filter(|&&e| e).count(),
        to_target,
        plies_added,
        asked,
    })
}
