//! The buckets blob of a busy position (`positions.buckets`): for every move (and for the
//! games that ended there) the sums of its games per bucket (month of play, rating band, speed, mode; see `filter`), only the buckets that hold
//! games, and the same sums with the months collapsed (per *rest*: band × speed × mode) and
//! with the rests collapsed (per month). A filtered question about a busy position is a sum
//! over the buckets that pass, without reading a game: a filter without dates reads the
//! per-rest sums, one of dates alone the per-month sums, one of both the cells. The blob is
//! read in parts through a [`Source`] (the store reads only the parts a question needs).
//! No SQL here.
//!
//! Frozen layout (format 5; any change is a new format number; formats 2, 3 and 4 are still
//! decoded, for the migrations of schemas 9, 10 and 14, which re-encode them: see
//! `buckets/legacy.rs`):
//!
//! ```text
//! buckets   = varint 5 (format), varint d, directory (d bytes),
//!             the rests parts of every move, then their months parts, then their cells
//!             parts (each part in directory order)
//! directory = varint n, then n × (varint move code, varint byte length of its rests part,
//!             of its months part, of its cells part), by move code (65535 = the game ended
//!             here, 65534 = every game through the position: only in a position of more
//!             than 1,000 games, with a cells part only when the moves hold more than 3/2 as
//!             many cells). A rests or months part of length 0 is left out (written only when
//!             it holds at most half as many sums as the move has cells); its question then
//!             walks the cells (for 65534, the moves' parts).
//! rests     = varint c, then c × (varint rest − previous rest, the first from 0,
//!             varint length of the body, total body), by rest (rest = bucket % 165)
//! months    = varint m, then m × (varint month code − previous, the first from 0,
//!             sized body), by month
//! cells     = varint m, then m × month, by month
//! month     = varint (month code − previous month of the move, the first from 0),
//!             varint byte length of its cells (so that a month that does not pass is skipped),
//!             varint c, then c × cell, by rest
//! cell      = varint (rest − previous rest of the month, the first from 0), where
//!             bucket = month × 165 + rest, sized body
//! sized body = varint (length << 1 | 1), one-game body: the sums of one game
//!             | varint (length << 1), cell body
//! one-game body = varint (day << 2 | result) (day 0–31, result 0 unknown, 1 first won,
//!             2 draw, 3 second won), varint first rating + 1, varint second rating + 1
//!             (0 = unknown), varint game id, and for the move 65535 only: varint
//!             termination code (0 unknown) — written for every sum of exactly one game
//!             (its first and last day the same, what it holds one game's)
//! cell body = varint games, first_wins, draws, second_wins, rating_sum, rating_count,
//!             first_rating_sum, first_rating_count,
//!             first day, last day (0–31, 0 = a date without a day),
//!             the smallest id of the games on the first day,
//!             and for the move 65535 only: endings
//! total body = the eight counts as above,
//!             varint first month code (0 = no dated game), then if not 0: first day, the
//!             smallest id of the games that day; varint last month code (0 = none), then if
//!             not 0: last day; varint sum of the years of the dated games, varint dated games,
//!             and for the move 65535 only: endings
//! endings   = varint k, then k × (varint termination code (0 unknown), varint games), by
//!             code, the codes with games only
//! ```
//!
//! Format 4 was format 5 with the entry 65534 in every blob, its cells part too (the sums of
//! every game per bucket: nearly half of the bytes, each game counted a second time; at 1M
//! synthetic games 92 MiB of cells). Format 3 was format 4 with every sized body `varint
//! length, cell body` (no one-game bodies); format 2 was `varint 2, varint n, n × (varint
//! move code, varint length, cells)` with format 3's cells.
//!
//! The dates of a cell's games share its month, so the first and last dates are the month and
//! the smallest and greatest day (a date without a day sorts first, as its text does); the
//! first game of a move is that of its earliest (month, day, id). Every game through the
//! position is counted in exactly one move (the one it played on its last visit) or in
//! 65535, so the games through the position under a filter, and its history by month, are
//! sums over the moves' parts (the history from the parts the moves' rows are read from when
//! they are months or cells parts, else from their cells); the entry 65534 of a big position
//! answers them from its own parts when it holds the one the question needs.
//!
//! Where things are: this file holds the model ([`Buckets`], [`Cell`]), counting games into
//! it (`add`, `replace`) and what every part of the module shares ([`Source`], `Total`);
//! `encode.rs` writes a blob, `walk.rs` reads its directory and walks its parts (and decodes
//! a whole blob back into the model), `sum.rs` answers the questions of `read` from the
//! parts it picks, `legacy.rs` keeps what only the migrations of old formats need. None of
//! them knows SQL or any other blob kind.

use std::{borrow::Cow, ops::Range};

use super::{
    codec::END_OF_GAME,
    filter::{year_of, PER_MONTH},
    game_facts::GameFacts,
    model::{GameCounts, ENDINGS},
    StoreError,
};

mod encode;
#[cfg(test)]
mod fixtures;
mod legacy;
mod sum;
mod walk;

pub(super) use sum::{add_to_history, sum, total, Summed};

const BUCKETS_FORMAT: u64 = 5;

/// The move code of the entry that counts every game through the position (in format 5
/// only in a position of more than [`ALL_PARTS_FROM`] games; not in the model, [`Buckets`],
/// which holds the moves alone).
pub(super) const ALL_GAMES: u16 = 0xfffe;

/// Above this many games, a format-5 blob keeps the rests and months parts of the entry of
/// every game (a few kB that answer "games through the position" under a filter without a
/// walk of every move's parts), and its cells too when the moves hold more than 3/2 as many
/// cells (many games a bucket: a walk of the moves' cells would cost more); a position of
/// fewer games sums its moves'.
const ALL_PARTS_FROM: u64 = 1000;

/// The games of one move in one bucket.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Cell {
    pub bucket: u32,
    pub counts: GameCounts,
    pub first_day: u8,
    pub last_day: u8,
    /// Of the games on `first_day`, the smallest id.
    pub first_game: i64,
    /// The move 65535 only: its games by termination code (0 unknown).
    pub endings: [u64; ENDINGS],
}

/// A busy position's sums per (move, bucket).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Buckets {
    /// By move code (the moves and [`END_OF_GAME`], never [`ALL_GAMES`]: every game
    /// through the position is in exactly one of them); each move's cells by bucket.
    pub moves: Vec<(u16, Vec<Cell>)>,
}

/// Where a blob is read from: the whole blob in memory, or the store's row read in parts.
pub(super) trait Source {
    /// The blob's length in bytes.
    fn len(&self) -> usize;
    /// The bytes of `at` (within `0..len()`).
    fn read(&mut self, at: Range<usize>) -> Result<Cow<'_, [u8]>, StoreError>;
}

impl Source for &[u8] {
    fn len(&self) -> usize {
        <[u8]>::len(self)
    }

    fn read(&mut self, at: Range<usize>) -> Result<Cow<'_, [u8]>, StoreError> {
        self.get(at)
            .map(Cow::Borrowed)
            .ok_or_else(|| corrupt("truncated"))
    }
}

/// The sums of some games as the parts keep them: a cell's, a month's or a rest's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Total {
    counts: GameCounts,
    /// Of the dated games: the earliest (month code, day, smallest id that day).
    first: Option<(u32, u8, i64)>,
    /// Of the dated games: the latest (month code, day).
    last: Option<(u32, u8)>,
    /// The sum of the years of the dated games.
    year_sum: u64,
    /// The dated games.
    dated: u64,
    endings: [u64; ENDINGS],
}

impl Total {
    fn of_cell(c: &Cell) -> Total {
        let month = c.bucket / PER_MONTH;
        let year = year_of(month);
        Total {
            counts: c.counts,
            first: year.map(|_| (month, c.first_day, c.first_game)),
            last: year.map(|_| (month, c.last_day)),
            year_sum: year.map_or(0, |y| u64::from(y).saturating_mul(c.counts.games)),
            dated: if year.is_some() { c.counts.games } else { 0 },
            endings: c.endings,
        }
    }

    fn merge(&mut self, o: &Total) {
        self.counts.merge(&o.counts);
        if let Some(f) = o.first {
            if self.first.is_none_or(|s| f < s) {
                self.first = Some(f);
            }
        }
        if let Some(l) = o.last {
            if self.last.is_none_or(|s| l > s) {
                self.last = Some(l);
            }
        }
        self.year_sum = self.year_sum.saturating_add(o.year_sum);
        self.dated += o.dated;
        for (a, b) in self.endings.iter_mut().zip(o.endings) {
            *a += b;
        }
    }
}

/// Merges a cell into the sums of its month (the same month, any rest).
fn merge_cell(into: &mut Cell, c: &Cell) {
    into.counts.merge(&c.counts);
    if (c.first_day, c.first_game) < (into.first_day, into.first_game) {
        (into.first_day, into.first_game) = (c.first_day, c.first_game);
    }
    into.last_day = into.last_day.max(c.last_day);
    for (a, b) in into.endings.iter_mut().zip(c.endings) {
        *a += b;
    }
}

fn corrupt(why: &str) -> StoreError {
    StoreError::Corrupt(format!("buckets blob: {why}"))
}

impl Buckets {
    /// Counts games, each with the move code it played here and its id: sorted by (move,
    /// bucket) and merged with the cells in one pass (inserting them one by one would shift
    /// a busy position's tens of thousands of cells for every new one).
    pub(super) fn add(&mut self, mut games: Vec<(u16, i64, GameFacts)>) {
        games.sort_unstable_by_key(|(mv, id, g)| (*mv, g.bucket, *id));
        for group in games.chunk_by(|a, b| a.0 == b.0) {
            let mv = group[0].0;
            let i = match self.moves.binary_search_by_key(&mv, |m| m.0) {
                Ok(i) => i,
                Err(i) => {
                    self.moves.insert(i, (mv, Vec::new()));
                    i
                }
            };
            let old = std::mem::take(&mut self.moves[i].1);
            let mut cells = Vec::with_capacity(old.len() + group.len());
            let mut old = old.into_iter().peekable();
            for &(_, id, g) in group {
                while let Some(c) = old.next_if(|c| c.bucket < g.bucket) {
                    cells.push(c);
                }
                let c = match cells.last_mut() {
                    Some(c) if c.bucket == g.bucket => c,
                    _ => {
                        let c = old.next_if(|c| c.bucket == g.bucket).unwrap_or(Cell {
                            bucket: g.bucket,
                            first_day: g.day,
                            last_day: g.day,
                            first_game: id,
                            ..Cell::default()
                        });
                        cells.push(c);
                        let n = cells.len();
                        &mut cells[n - 1]
                    }
                };
                c.counts.add_game(g.result, g.ratings);
                if (g.day, id) < (c.first_day, c.first_game) {
                    (c.first_day, c.first_game) = (g.day, id);
                }
                c.last_day = c.last_day.max(g.day);
                if mv == END_OF_GAME {
                    c.endings[g.termination.map_or(0, |t| usize::from(t.code()))] += 1;
                }
            }
            cells.extend(old);
            self.moves[i].1 = cells;
        }
    }
}

impl Buckets {
    /// Adds another position's cells, of other games than these (another segment's,
    /// `store::compact`): cells of one move and bucket are summed as one cell of both.
    pub(super) fn merge(&mut self, other: Buckets) {
        let mine = std::mem::take(&mut self.moves);
        let mut moves: Vec<(u16, Vec<Cell>)> = Vec::with_capacity(mine.len() + other.moves.len());
        let mut a = mine.into_iter().peekable();
        let mut b = other.moves.into_iter().peekable();
        loop {
            let next = match (a.peek(), b.peek()) {
                (Some(x), Some(y)) if x.0 == y.0 => a
                    .next()
                    .zip(b.next())
                    .map(|(x, y)| (x.0, merge_cells(x.1, y.1))),
                (Some(x), Some(y)) if x.0 < y.0 => a.next(),
                (Some(_), Some(_)) => b.next(),
                (Some(_), None) => a.next(),
                (None, _) => b.next(),
            };
            match next {
                Some(m) => moves.push(m),
                None => break,
            }
        }
        self.moves = moves;
    }
}

/// Two moves' cells by bucket as one list, a bucket in both summed.
fn merge_cells(a: Vec<Cell>, b: Vec<Cell>) -> Vec<Cell> {
    let mut out: Vec<Cell> = Vec::with_capacity(a.len() + b.len());
    let mut a = a.into_iter().peekable();
    let mut b = b.into_iter().peekable();
    while let Some(c) = match (a.peek(), b.peek()) {
        (Some(x), Some(y)) if x.bucket <= y.bucket => a.next(),
        (Some(_), Some(_)) | (None, _) => b.next(),
        (Some(_), None) => a.next(),
    } {
        match out.last_mut() {
            Some(o) if o.bucket == c.bucket => merge_cell(o, &c),
            _ => out.push(c),
        }
    }
    out
}

impl Buckets {
    /// Counts a game again with other facts: `old` taken off the cells of its move `mv` and
    /// `new` counted in its place, as if the game `id` had been
    /// counted with `new` from the start (the delta of a richer copy, `store::copies`).
    /// Returns `false` when the cells alone cannot tell the answer: the game held a cell's
    /// first (day, id) or its last day (above 0) and `new` goes to another bucket or does
    /// not put back a day as early (as late). The buckets must then be counted again from
    /// the games and these are not to be stored.
    pub(super) fn replace(&mut self, mv: u16, id: i64, old: &GameFacts, new: &GameFacts) -> bool {
        let Ok(i) = self.moves.binary_search_by_key(&mv, |m| m.0) else {
            return false;
        };
        let cells = &mut self.moves[i].1;
        let Ok(j) = cells.binary_search_by_key(&old.bucket, |c| c.bucket) else {
            return false;
        };
        let c = &mut cells[j];
        if !c.counts.remove_game(old.result, old.ratings) {
            return false;
        }
        if mv == END_OF_GAME {
            let slot = &mut c.endings[old.termination.map_or(0, |t| usize::from(t.code()))];
            let Some(left) = slot.checked_sub(1) else {
                return false;
            };
            *slot = left;
        }
        if c.counts.games == 0 {
            cells.remove(j);
        } else {
            let same = new.bucket == old.bucket;
            if (old.day, id) == (c.first_day, c.first_game) {
                if !(same && new.day <= old.day) {
                    return false;
                }
                // Cleared: the game counted next is the first.
                (c.first_day, c.first_game) = (u8::MAX, i64::MAX);
            }
            // A last day of 0 is every game's of the cell: it stays.
            if old.day == c.last_day && old.day > 0 {
                if !(same && new.day >= old.day) {
                    return false;
                }
                c.last_day = 0;
            }
        }
        self.add(vec![(mv, id, *new)]);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::{legacy::FORMAT_3, *};
    use crate::{
        formats::facts::{Mode, Speed, Termination},
        rules::{Color, Move, Outcome},
        store::{
            filter::BucketFilter,
            model::{MonthCounts, MoveRow, Played},
            END_OF_GAME,
        },
    };

    #[test]
    fn merged_buckets_equal_the_buckets_of_all_their_games() {
        let games = super::fixtures::many_games(3000);
        let mut all = Buckets::default();
        all.add(games.clone());
        // Games in any split (ids interleaved, one side without a move the other has).
        let (odd, even): (Vec<_>, Vec<_>) = games.iter().partition(|g| g.1 % 3 == 0);
        let (mut a, mut b) = (Buckets::default(), Buckets::default());
        a.add(odd);
        b.add(
            even.into_iter()
                .filter(|g| g.0 != END_OF_GAME || g.1 % 2 == 0)
                .collect(),
        );
        let rest: Vec<_> = games
            .iter()
            .filter(|g| g.1 % 3 != 0 && g.0 == END_OF_GAME && g.1 % 2 != 0)
            .copied()
            .collect();
        let mut c = Buckets::default();
        c.add(rest);
        a.merge(b);
        a.merge(c);
        assert_eq!(a, all);
        assert_eq!(a.encode(), all.encode());
    }

    #[test]
    fn buckets_sum_like_the_games_and_round_trip() {
        let h2e2 = "h2e2".parse::<Move>().unwrap().to_u16();
        let mut b = Buckets::default();
        let dates = ["2019-05-02", "2020", "2020-06-30", "2020-06", "2021-01-01"];
        let mut games = Vec::new();
        for i in 0..50u32 {
            let g = GameFacts::new(
                Some(if i % 3 == 0 {
                    Outcome::Draw
                } else {
                    Outcome::Decisive {
                        winner: Color::First,
                    }
                }),
                [Some(1900 + 20 * i), (i % 2 == 0).then_some(2000)],
                Some(dates[i as usize % dates.len()]),
                (i % 4 != 0).then_some(Speed::Blitz),
                Some(Mode::Rated),
                (i % 5 == 2).then_some(Termination::Resignation),
            );
            let mv = if i % 10 == 7 { END_OF_GAME } else { h2e2 };
            // Ids not in date order, so that the first game is not merely the first added.
            games.push((mv, 1000 - i64::from(i), g, i % 4 != 0));
        }
        // Added in three lots, as three batches would, merging into the cells of the first.
        for lot in [0..20, 20..21, 21..50] {
            b.add(
                games[lot]
                    .iter()
                    .map(|(mv, id, g, _)| (*mv, *id, *g))
                    .collect(),
            );
        }
        let mut one_by_one = Buckets::default();
        for (mv, id, g, _) in games.iter().rev() {
            one_by_one.add(vec![(*mv, *id, *g)]);
        }
        assert_eq!(one_by_one, b);
        let blob = b.encode();
        assert_eq!(Buckets::decode(&blob).unwrap(), b);
        // Cells of one game are there, and their compact bodies make the blob smaller than
        // format 3's, which decodes and sums the same.
        assert!(b
            .moves
            .iter()
            .flat_map(|m| &m.1)
            .any(|c| c.counts.games == 1));
        let full = b.encode_in(FORMAT_3);
        assert!(blob.len() < full.len());
        assert_eq!(Buckets::decode(&full).unwrap(), b);
        let filter = BucketFilter {
            since: Some("2020-06".parse().unwrap()),
            min_rating: Some(2000),
            speeds: vec![Speed::Blitz],
            ..BucketFilter::default()
        };
        let summed = sum(&mut &blob[..], &filter.matcher()).unwrap();
        assert_eq!(sum(&mut &full[..], &filter.matcher()).unwrap(), summed);
        // Counted by hand from the same games.
        let mut want = MoveRow {
            mv: Some("h2e2".parse().unwrap()),
            ..MoveRow::default()
        };
        let mut ended = MoveRow::default();
        let mut history: Vec<MonthCounts> = Vec::new();
        for (mv, id, g, blitz) in &games {
            let date = g.date().unwrap();
            let n = date.len().min(7);
            let mean = match g.ratings {
                [Some(a), Some(b)] => (a + b) / 2,
                [Some(a), None] => a,
                _ => 0,
            };
            if date[..n] >= "2020-06"[..n] && mean >= 2000 && *blitz {
                let row = if *mv == h2e2 { &mut want } else { &mut ended };
                row.count(&Played {
                    id: *id,
                    result: g.result,
                    ratings: g.ratings,
                    date: Some(&date),
                    year: date[..4].parse().ok(),
                    termination: g.termination,
                });
                if date.len() >= 7 {
                    let (y, m) = (date[..4].parse().unwrap(), date[5..7].parse().unwrap());
                    let i = match history.iter().position(|h| (h.year, h.month) == (y, m)) {
                        Some(i) => i,
                        None => {
                            history.push(MonthCounts {
                                year: y,
                                month: m,
                                ..MonthCounts::default()
                            });
                            history.len() - 1
                        }
                    };
                    let mut c = GameCounts::default();
                    c.add_game(g.result, g.ratings);
                    history[i].add(&c);
                }
            }
        }
        history.sort_by_key(|h| (h.year, h.month));
        assert!(want.counts.games > 0 && ended.counts.games >= 2);
        assert!(ended.endings[Termination::Resignation.code() as usize] > 0);
        assert!(want.first_game.is_some() && want.dated == want.counts.games);
        assert_eq!(summed.rows, vec![want.clone(), ended.clone()]);
        assert_eq!(summed.history, history);
        let all = want.counts.games + ended.counts.games;
        assert_eq!(total(&mut &blob[..], &filter.matcher()).unwrap(), all);
        let mut bad = blob.clone();
        bad.push(0);
        assert!(sum(&mut &bad[..], &filter.matcher()).is_err());
        assert!(Buckets::decode(&blob[..blob.len() - 1]).is_err());
    }

    /// `Buckets::replace` of a game sharing its cell with the cell's first-day game: the
    /// delta must give the cells a count from scratch gives, or refuse (a recount).
    #[test]
    fn replace_recounts_a_first_day_it_cannot_tell() {
        let mv = "h2e2".parse::<Move>().unwrap().to_u16();
        let facts = |date: &str| {
            GameFacts::new(
                Some(Outcome::Draw),
                [Some(2000), Some(2100)],
                Some(date),
                None,
                None,
                None,
            )
        };
        // One cell (same month, rest): game 20 holds its first day, 10 a later one, 30 the
        // first day too with a greater id.
        let games = [
            (10, facts("2020-05-09")),
            (20, facts("2020-05-03")),
            (30, facts("2020-05-03")),
        ];
        let counted = |games: &[(i64, GameFacts)]| {
            let mut b = Buckets::default();
            b.add(games.iter().map(|(id, g)| (mv, *id, *g)).collect());
            b
        };
        let start = counted(&games);
        assert_eq!(start.moves[0].1.len(), 1);
        assert_eq!(
            (
                start.moves[0].1[0].first_day,
                start.moves[0].1[0].first_game
            ),
            (3, 20)
        );
        // (game replaced, its new date, whether the cells alone can tell)
        let cases = [
            // The first-day game moves later in its cell: who is first now is not in the
            // cell (here game 30, in general any): a recount.
            (20, "2020-05-20", false),
            // It stays on its day, or goes earlier: still the first.
            (20, "2020-05-03", true),
            (20, "2020-05-01", true),
            // A game of the first day that is not the first game, moved later: the first
            // stays game 20.
            (30, "2020-05-25", true),
            // The first-day game leaves the cell (another month): a recount.
            (20, "2021-05-03", false),
        ];
        for (id, date, tells) in cases {
            let old = games.iter().find(|g| g.0 == id).unwrap().1;
            let new = facts(date);
            let mut b = start.clone();
            assert_eq!(b.replace(mv, id, &old, &new), tells, "{id} {date}");
            if tells {
                let after: Vec<_> = games
                    .iter()
                    .map(|&(i, g)| (i, if i == id { new } else { g }))
                    .collect();
                assert_eq!(b, counted(&after), "{id} {date}");
            }
        }
    }
}
