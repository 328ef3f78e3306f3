//! The answer to a book probe ([`Probed`], [`ProbeMove`], [`Counts`]) and the lookup every
//! format's reader shares: the position as it stands, else its mirror image, moves filtered by
//! legality (which also drops the moves of hash collisions). Knows no format: the readers in
//! `eleeye.rs`, `obk.rs` and `qipu.rs` call it, and `probe.rs` dispatches to them.

use super::BookError;
use crate::rules::{AnyPosition, Move};

/// Game counts stored with a move (`.obk` and qipu books), from the mover's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Counts {
    /// Games that played the move (`None` when the format does not store it).
    pub games: Option<u32>,
    /// Won by the mover.
    pub wins: u32,
    /// Drawn.
    pub draws: u32,
    /// Lost by the mover.
    pub losses: u32,
}

/// One book move of a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProbeMove {
    /// The move, in the orientation of the probed position.
    pub mv: Move,
    /// Its weight (`.obk` scores may be negative).
    pub weight: i64,
    /// Game counts, where the format stores them.
    pub counts: Option<Counts>,
    /// Whether an engine chose the move (`qipu book extend`) rather than games.
    pub engine: bool,
}

/// One stored record as the file holds it, before any position is known: the key in the
/// scheme of `keyed` (an ElephantEye lock widened to `u64`), the move in the stored
/// orientation. What [`super::Contents`] walks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawRecord {
    /// The format whose key scheme `key` is in.
    pub keyed: super::Format,
    /// The position key.
    pub key: u64,
    /// The move with its weight, counts and engine mark.
    pub entry: ProbeMove,
}

/// The answer to a probe.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Probed {
    /// Whether the moves were found under the mirror image of the position.
    pub mirrored: bool,
    /// Legal book moves, heaviest first (ties in stored order).
    pub moves: Vec<ProbeMove>,
}

/// Looks a position up as it stands (`lookup(false)`) and, if that yields no legal move, as its
/// mirror image (`lookup(true)`, whose moves are in the mirrored orientation and are mirrored
/// back here).
///
/// # Errors
/// Those of `lookup`.
pub(crate) fn lookup_with_mirror(
    pos: &AnyPosition,
    mut lookup: impl FnMut(bool) -> Result<Vec<ProbeMove>, BookError>,
) -> Result<Probed, BookError> {
    let mut legal = None;
    for mirrored in [false, true] {
        let found = lookup(mirrored)?;
        if found.is_empty() {
            continue;
        }
        let legal = legal.get_or_insert_with(|| pos.legal_moves());
        let mut moves: Vec<ProbeMove> = found
            .into_iter()
            .map(|m| ProbeMove {
                mv: if mirrored { m.mv.mirror() } else { m.mv },
                ..m
            })
            .filter(|m| legal.contains(m.mv))
            .collect();
        if !moves.is_empty() {
            moves.sort_by_key(|m| std::cmp::Reverse(m.weight));
            return Ok(Probed { mirrored, moves });
        }
    }
    Ok(Probed::default())
}
