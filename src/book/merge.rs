//! Books into one book: `qipu book merge` and, with one input, `qipu book convert`. Works on
//! [`Contents`] (records with their positions) and hands the result to the format's writer.
//!
//! **Folding.** Each input's records are first put in the target's orientation: into a
//! mirror-merged target a position and its mirror image are one entry (the smaller key's
//! orientation; a symmetric position of a book of positions as reached gives each move to the
//! move and to its mirror image, as the builder does); into a target of positions as reached
//! a mirror-merged input's record stands for the position and for its mirror image. Records of
//! one input that fold onto the same (position, move) add up (weights, games, wins, draws,
//! losses), so a mirrored entry is never counted twice. A record no line from the start
//! reaches keeps its stored key; when another input reaches a position under that key (a
//! `BOOK.DAT` keys a position by its lock1 alone), the record is that position's and merges
//! with its entries.
//!
//! **The weight rule.** For a position, let input *i* (factor *fᵢ*: `--weight IN=W`,
//! default 1) hold the weights *wᵢ(m)* with total *Tᵢ* (weights below 0 count 0). The merged weight of
//! a move is `round(share(m) × S)` with `share(m) = Σ fᵢ·wᵢ(m)/Tᵢ / Σ fᵢ` and
//! `S = Σ fᵢ·Tᵢ / Σ fᵢ`, the sums over the inputs that hold the position: each input's weights
//! normalised per position, mixed by the factors, scaled back to the inputs' (weighted) mean
//! total. A position only one input holds keeps that input's weights exactly; a book merged
//! with itself keeps its weights. Games, wins, draws and losses add up. Entries of weight below
//! `min_weight` are left out; the target's range is enforced (weight at least 1, and at most
//! 65,535 in `BOOK.DAT`), and counted.
//!
//! ```
//! use qipu::book::{build, merge, qipu::{write, QipuKeys}, Book, BookGame, BookOptions, Contents, Format};
//! use qipu::rules::{AnyPosition, Move, Outcome, Variant};
//! let game = BookGame {
//!     start: AnyPosition::new(Variant::Xiangqi),
//!     moves: vec!["h2e2".parse::<Move>()?],
//!     result: Some(Outcome::Draw),
//! };
//! let built = build::<QipuKeys>([Ok(game)].into_iter(), &BookOptions::everything(Format::Qipu))?;
//! let mut bytes = Vec::new();
//! write(&built, &mut bytes)?;
//! let c = Contents::read(&Book::from_bytes(&bytes)?, &[])?;
//! let inputs = [merge::Input { contents: &c, factor: 1.0 }, merge::Input { contents: &c, factor: 1.0 }];
//! let merged = merge::merge::<QipuKeys>(&inputs, &merge::MergeOptions::new(Format::Qipu, &inputs))?;
//! let r = &merged.book.records[0];
//! assert_eq!((r.weight, r.stats.games, r.stats.draws), (1, 2, 2)); // weights kept, games doubled
//! # Ok::<_, Box<dyn std::error::Error>>(())
//! ```

use std::collections::HashMap;

use super::{
    contents::mirror_position, eleeye::EleeyeKeys, obk::ObkKeys, qipu::QipuKeys, BookError,
    BookOptions, BookRecord, BuiltBook, Contents, Counts, Format, KeyScheme, MirrorMode, MoveStats,
    RecordFlags, Weights,
};
use crate::rules::{Move, Variant};

/// One book to merge and its factor.
#[derive(Clone, Copy, Debug)]
pub struct Input<'a> {
    /// The book, read whole.
    pub contents: &'a Contents,
    /// Its weights' factor (`--weight IN=W`), > 0.
    pub factor: f64,
}

/// What to write.
#[derive(Clone, Debug, PartialEq)]
pub struct MergeOptions {
    /// The target format.
    pub format: Format,
    /// The target's mirror handling.
    pub mirror: MirrorMode,
    /// Entries of a smaller merged weight are left out.
    pub min_weight: Option<i64>,
    /// The weight scheme and ratio a qipu book's header names (informative).
    pub weights: Weights,
    /// See `weights`.
    pub ratio: u32,
}

impl MergeOptions {
    /// The defaults for a target: `BOOK.DAT` mirror-merged always, `.obk` positions as
    /// reached, qipu mirror-merged unless every input keeps positions as reached; the header
    /// facts of the first qipu input (else games / 1).
    pub fn new(format: Format, inputs: &[Input<'_>]) -> MergeOptions {
        let mirror = match format {
            Format::Eleeye => MirrorMode::Merge,
            Format::Obk => MirrorMode::Keep,
            Format::Qipu if inputs.iter().any(|i| i.contents.mirror_merged) => MirrorMode::Merge,
            Format::Qipu => MirrorMode::Keep,
        };
        let (weights, ratio) = inputs
            .iter()
            .find_map(|i| i.contents.header)
            .unwrap_or((Weights::Games, 1));
        MergeOptions {
            format,
            mirror,
            min_weight: None,
            weights,
            ratio,
        }
    }
}

/// What became of one input's records.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InputSummary {
    /// Records the file holds.
    pub read: usize,
    /// Entries of the result that only this input has.
    pub kept: usize,
    /// Entries of the result this input shares with another.
    pub merged: usize,
    /// Entries left out: by `min_weight`, or records without a position that the target
    /// cannot key (and records this version cannot read).
    pub dropped: usize,
}

/// What the target could not keep, in entries of the result.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Lost {
    /// Wins, draws and losses (`BOOK.DAT` holds none).
    pub counts: usize,
    /// Game counts that differ from wins + draws + losses (`.obk` holds W/D/L only).
    pub games: usize,
    /// Engine marks (`BOOK.DAT` holds none).
    pub engine_marks: usize,
    /// Weights outside the target's range, clamped (below 1, or above 65,535 in `BOOK.DAT`).
    pub clamped: usize,
    /// Records of no known position under another format's key (kept only by qipu books).
    pub no_position: usize,
}

/// The merged book, ready for the format's writer.
#[derive(Clone, Debug)]
pub struct Merged<K> {
    /// The records, sorted by (key, move).
    pub book: BuiltBook<K>,
    /// Per input, in order.
    pub inputs: Vec<InputSummary>,
    /// What the target could not hold.
    pub lost: Lost,
    /// Distinct keys of the result.
    pub positions: usize,
}

/// A target's key of a record without a position, kept under the target's own scheme.
pub trait Target: KeyScheme {
    /// The format.
    const FORMAT: Format;
    /// The key of a record stored under `key` in this format's scheme.
    fn loose_key(key: u64) -> Self::Key;
    /// The part of a key the file stores (a `BOOK.DAT` keeps an ElephantEye lock1 only),
    /// which a record without a position shares with the positions it may belong to.
    fn stored_key(key: Self::Key) -> u64;
    /// The key a record without a position keeps when it is stored under another format's
    /// key (qipu books only: record flags), `None` where the target cannot hold it.
    fn foreign_key(key: u64) -> Option<Self::Key> {
        let _ = key;
        None
    }
}

impl Target for EleeyeKeys {
    const FORMAT: Format = Format::Eleeye;
    fn loose_key(key: u64) -> (u32, u32) {
        // the lock0 of an unknown position is unknown: 0 orders it first among its lock
        (u32::try_from(key).unwrap_or(u32::MAX), 0)
    }
    fn stored_key(key: (u32, u32)) -> u64 {
        u64::from(key.0)
    }
}

impl Target for ObkKeys {
    const FORMAT: Format = Format::Obk;
    fn loose_key(key: u64) -> u64 {
        key
    }
    fn stored_key(key: u64) -> u64 {
        key
    }
}

impl Target for QipuKeys {
    const FORMAT: Format = Format::Qipu;
    fn loose_key(key: u64) -> u64 {
        key
    }
    fn stored_key(key: u64) -> u64 {
        key
    }
    fn foreign_key(key: u64) -> Option<u64> {
        Some(key)
    }
}

/// One input's entry after folding.
#[derive(Clone, Copy, Debug)]
struct Folded<K> {
    /// `None`: the target's own scheme; else the format of a loose record kept as it is.
    foreign: Option<Format>,
    key: K,
    /// A record without a position (of [`Contents::loose`]).
    loose: bool,
    mv: Move,
    input: usize,
    weight: i64,
    counts: Option<Counts>,
    engine: bool,
}

fn add_counts(a: Option<Counts>, b: Option<Counts>) -> Option<Counts> {
    match (a, b) {
        (None, x) | (x, None) => x,
        (Some(a), Some(b)) => Some(Counts {
            games: match (a.games, b.games) {
                (None, None) => None,
                (x, y) => Some(x.unwrap_or(0).saturating_add(y.unwrap_or(0))),
            },
            wins: a.wins.saturating_add(b.wins),
            draws: a.draws.saturating_add(b.draws),
            losses: a.losses.saturating_add(b.losses),
        }),
    }
}

/// How a record of a node goes into the target: under `key`, its move mirrored when
/// `flip`, and only if the move is not its own mirror image when `asymmetric_only` (the
/// second count of a symmetric position's move, which a symmetric move already had).
#[derive(Clone, Copy)]
struct Emit<K> {
    key: K,
    flip: bool,
    asymmetric_only: bool,
}

/// The target entries a record of the node at `pos` counts under (see the module doc).
fn fold_node<S: Target>(
    pos: &crate::rules::AnyPosition,
    merged_input: bool,
    mirror: MirrorMode,
) -> ([Emit<S::Key>; 2], usize) {
    let one = |key, flip| Emit {
        key,
        flip,
        asymmetric_only: false,
    };
    match mirror {
        MirrorMode::Keep => {
            let own = one(S::key(pos), false);
            match mirror_position(pos).filter(|m| merged_input && m.key() != pos.key()) {
                Some(m) => ([own, one(S::key(&m), true)], 2),
                None => ([own; 2], 1),
            }
        }
        MirrorMode::Merge => {
            let (k, mk) = (S::key(pos), S::mirror_key(pos));
            match k.cmp(&mk) {
                std::cmp::Ordering::Less => ([one(k, false); 2], 1),
                std::cmp::Ordering::Greater => ([one(mk, true); 2], 1),
                std::cmp::Ordering::Equal if merged_input => ([one(k, false); 2], 1),
                // a symmetric position as reached: each move counts for its mirror image too
                std::cmp::Ordering::Equal => (
                    [
                        one(k, false),
                        Emit {
                            key: k,
                            flip: true,
                            asymmetric_only: true,
                        },
                    ],
                    2,
                ),
            }
        }
    }
}

/// Folds one input into the target's entries; returns the records that have no place there.
fn fold_input<S: Target>(
    input: usize,
    c: &Contents,
    mirror: MirrorMode,
    out: &mut Vec<Folded<S::Key>>,
) -> usize {
    for node in &c.nodes {
        let (emits, n) = fold_node::<S>(&node.pos, c.mirror_merged, mirror);
        for e in &emits[..n] {
            for m in &node.moves {
                let mv = if e.flip { m.mv.mirror() } else { m.mv };
                if e.asymmetric_only && mv == m.mv {
                    continue;
                }
                out.push(Folded {
                    foreign: None,
                    key: e.key,
                    loose: false,
                    mv,
                    input,
                    weight: m.weight,
                    counts: m.counts,
                    engine: m.engine,
                });
            }
        }
    }
    let mut no_position = 0;
    for r in &c.loose {
        let (foreign, key) = if r.keyed == S::FORMAT {
            (None, S::loose_key(r.key))
        } else if let Some(k) = S::foreign_key(r.key) {
            (Some(r.keyed), k)
        } else {
            no_position += 1;
            continue;
        };
        out.push(Folded {
            foreign,
            key,
            loose: true,
            mv: r.entry.mv,
            input,
            weight: r.entry.weight,
            counts: r.entry.counts,
            engine: r.entry.engine,
        });
    }
    no_position
}

/// Gives a record without a position, stored under the target's own scheme, the key of a
/// position that another input reached under the same stored key (a `BOOK.DAT` keeps the
/// lock1 alone: its loose records are keyed `(lock1, 0)`), so that it merges with that
/// input's entries there as `BOOK.DAT` itself would. A stored key its own input reached is
/// left as it is (its records there are not legal in that position: another position's).
fn place_loose<S: Target>(all: &mut [Folded<S::Key>]) {
    let mut reached: HashMap<u64, S::Key> = HashMap::new();
    let mut own: std::collections::HashSet<(u64, usize)> = std::collections::HashSet::new();
    for f in all.iter().filter(|f| !f.loose) {
        let stored = S::stored_key(f.key);
        reached.entry(stored).or_insert(f.key);
        own.insert((stored, f.input));
    }
    for f in all.iter_mut().filter(|f| f.loose && f.foreign.is_none()) {
        let stored = S::stored_key(f.key);
        if own.contains(&(stored, f.input)) {
            continue;
        }
        if let Some(&key) = reached.get(&stored) {
            f.key = key;
        }
    }
}

fn scheme_rank(f: Option<Format>) -> u8 {
    match f {
        None => 0,
        Some(Format::Eleeye) => 1,
        Some(Format::Obk) => 2,
        Some(Format::Qipu) => 3,
    }
}

/// Merges the inputs into a book of the target scheme `S` (see the module doc).
///
/// # Errors
/// [`BookError::Unsupported`] for inputs of both games, or Janggi into `BOOK.DAT` or `.obk`.
pub fn merge<S: Target>(
    inputs: &[Input<'_>],
    opts: &MergeOptions,
) -> Result<Merged<S::Key>, BookError> {
    let variant = inputs
        .first()
        .map_or(Variant::Xiangqi, |i| i.contents.variant);
    if inputs.iter().any(|i| i.contents.variant != variant) {
        return Err(BookError::Unsupported(
            "books of both games cannot be merged".into(),
        ));
    }
    if !S::supports(variant) {
        return Err(BookError::Unsupported(format!(
            "{variant} positions in {}: only qipu books hold them",
            S::FORMAT
        )));
    }
    let mut summaries: Vec<InputSummary> = inputs
        .iter()
        .map(|i| InputSummary {
            read: i.contents.records,
            dropped: i.contents.unreadable,
            ..InputSummary::default()
        })
        .collect();
    let mut lost = Lost::default();
    let mut all = Vec::new();
    for (i, input) in inputs.iter().enumerate() {
        let unplaced = fold_input::<S>(i, input.contents, opts.mirror, &mut all);
        summaries[i].dropped += unplaced;
        lost.no_position += unplaced;
    }
    place_loose::<S>(&mut all);
    all.sort_unstable_by_key(|f| (scheme_rank(f.foreign), f.key, f.mv, f.input));
    // one input's entries that met: summed
    all.dedup_by(|b, a| {
        let same = (a.foreign, a.key, a.mv, a.input) == (b.foreign, b.key, b.mv, b.input);
        if same {
            a.weight = a.weight.saturating_add(b.weight);
            a.counts = add_counts(a.counts, b.counts);
            a.engine &= b.engine;
        }
        same
    });
    let factors: Vec<f64> = inputs.iter().map(|i| i.factor).collect();
    let mut records: Vec<BookRecord<S::Key>> = Vec::with_capacity(all.len());
    let mut positions = 0;
    let mut at = 0;
    let mut totals: HashMap<usize, i64> = HashMap::new();
    while at < all.len() {
        let group = (all[at].foreign, all[at].key);
        let end = at + all[at..].partition_point(|f| (f.foreign, f.key) == group);
        let entries = &all[at..end];
        at = end;
        totals.clear();
        for f in entries {
            *totals.entry(f.input).or_default() += f.weight.max(0);
        }
        let holders = totals.len();
        let fsum: f64 = totals.keys().map(|&i| factors[i]).sum();
        let scale: f64 = totals
            .iter()
            .map(|(&i, &t)| factors[i] * t as f64)
            .sum::<f64>()
            / fsum;
        let mut kept_any = false;
        let mut i = 0;
        while i < entries.len() {
            let mv = entries[i].mv;
            let j = i + entries[i..].partition_point(|f| f.mv == mv);
            let same = &entries[i..j];
            i = j;
            let weight = if holders == 1 {
                same[0].weight
            } else {
                let share: f64 = same
                    .iter()
                    .filter(|f| totals[&f.input] > 0)
                    .map(|f| factors[f.input] * f.weight.max(0) as f64 / totals[&f.input] as f64)
                    .sum::<f64>()
                    / fsum;
                (share * scale).round() as i64
            };
            let counts = same.iter().fold(None, |a, f| add_counts(a, f.counts));
            let engine = same.iter().all(|f| f.engine);
            let shared = same.len() > 1;
            if opts.min_weight.is_some_and(|m| weight < m) {
                for f in same {
                    summaries[f.input].dropped += 1;
                }
                continue;
            }
            for f in same {
                let s = &mut summaries[f.input];
                if shared {
                    s.merged += 1;
                } else {
                    s.kept += 1;
                }
            }
            let max = if S::FORMAT == Format::Eleeye {
                i64::from(u16::MAX)
            } else {
                i64::from(u32::MAX)
            };
            if !(1..=max).contains(&weight) {
                lost.clamped += 1;
            }
            let c = counts.unwrap_or(Counts {
                games: None,
                wins: 0,
                draws: 0,
                losses: 0,
            });
            let decided = c.wins.saturating_add(c.draws).saturating_add(c.losses);
            match S::FORMAT {
                Format::Eleeye => {
                    lost.counts += usize::from(counts.is_some());
                    lost.engine_marks += usize::from(engine);
                }
                Format::Obk => {
                    lost.games += usize::from(c.games.is_some_and(|g| g != decided));
                }
                Format::Qipu => {}
            }
            kept_any = true;
            records.push(BookRecord {
                key: group.1,
                mv,
                weight: u32::try_from(weight.clamp(1, max)).unwrap_or(1),
                stats: MoveStats {
                    plays: 0,
                    eleeye: 0,
                    games: c.games.unwrap_or(decided),
                    wins: c.wins,
                    draws: c.draws,
                    losses: c.losses,
                    eval: None,
                },
                flags: RecordFlags {
                    engine,
                    foreign: group.0,
                },
            });
        }
        positions += usize::from(kept_any);
    }
    // the writers want (key, move) strictly ascending: a foreign record that meets one of the
    // book's own (a 2^-32 chance per record) gives way
    records.sort_by_key(|r| (r.key, r.mv, r.flags.foreign.is_some()));
    let before = records.len();
    records.dedup_by(|b, a| (a.key, a.mv) == (b.key, b.mv));
    lost.no_position += before - records.len();
    let mut options = BookOptions::for_format(S::FORMAT);
    options.mirror = opts.mirror;
    options.weights = opts.weights;
    options.ratio = opts.ratio.max(1);
    Ok(Merged {
        book: BuiltBook {
            variant,
            options,
            games: 0,
            candidates: all.len(),
            records,
            dropped_by_eval: 0,
            unscored: 0,
        },
        inputs: summaries,
        lost,
        positions,
    })
}
