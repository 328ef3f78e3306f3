//! The store's codes for a game's values, for files that carry games outside a database
//! (`qipu emit` writes them, `qipu load` reads them back): the same codes as the `games`
//! table.
//!
//! Codes only: it may use the store's codecs and facts, never SQL or a database.

use super::super::{
    filter::{calendar_month, year_of},
    model::GameRecord,
    summary::Facts,
};
use crate::rules::{Move, Outcome, Variant};

/// A variant's code (Xiangqi 0, Janggi 1).
pub fn variant_code(v: Variant) -> i64 {
    super::super::codec::variant_code(v)
}

/// The variant of a code.
pub fn variant_from_code(c: i64) -> Option<Variant> {
    super::super::codec::variant_from_code(c)
}

/// A result's code (0 unknown, 1 first won, 2 draw, 3 second won).
pub fn result_code(r: Option<Outcome>) -> i64 {
    super::super::codec::result_code(r)
}

/// The result of a code (anything else than 1–3 is unknown).
pub fn result_from_code(c: i64) -> Option<Outcome> {
    super::super::codec::result_from_code(c)
}

/// A main line as the `games.moves` blob.
pub fn pack_moves(moves: &[Move]) -> Vec<u8> {
    super::super::codec::pack_moves(moves)
}

/// The inverse of [`pack_moves`]; `None` if a code is not a move.
pub fn unpack_moves(blob: &[u8]) -> Option<Vec<Move>> {
    super::super::codec::unpack_moves(blob)
}

/// What the statistics of a busy position count of a game beyond its stored values
/// (its result, ratings, date and label), as the store derives it (`Facts`,
/// `GameFacts`): the job groups and sorts by these.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CountedFacts {
    /// The bucket (month × 165 + rating band, speed and mode).
    pub bucket: u32,
    /// The month code of the date (0 = none).
    pub month: u32,
    /// The day of the month (0 = none).
    pub day: u8,
    /// The year, when the date has one.
    pub year: Option<u32>,
    /// `month` when it is a calendar month (the history counts only those).
    pub history_month: Option<u32>,
    /// The best-games order, higher = better.
    pub top_score: u64,
    /// How the game ended (`Termination::code`, 0 = unknown).
    pub ending: u8,
}

/// The [`CountedFacts`] of a record.
///
/// ```
/// use qipu::{formats::{Game, Source}, rules::Variant, store::{wire, GameRecord}};
/// let mut g = Game::new(Variant::Xiangqi, Source { file: "a.pgn".into(), index: 0 });
/// g.tags.date = Some("2021-03-09".into());
/// let f = wire::counted_facts(&GameRecord::from_game(&g, 40).unwrap());
/// assert_eq!((f.year, f.day, f.history_month), (Some(2021), 9, Some(f.month)));
/// ```
pub fn counted_facts(r: &GameRecord) -> CountedFacts {
    let f = Facts::of(r.result, &r.tags, r.opening_label.as_deref());
    let g = f.game_facts();
    let month = g.month();
    CountedFacts {
        bucket: g.bucket,
        month,
        day: g.day,
        year: year_of(month),
        history_month: calendar_month(month).map(|_| month),
        top_score: f.top_score(),
        ending: f.termination.map_or(0, |t| t.code()),
    }
}
