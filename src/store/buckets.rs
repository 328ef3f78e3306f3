//! The buckets blob of a busy position (`positions.buckets`): for every move (for the games
//! that ended there, and for all the games through the position) the sums of its games per
//! bucket (month of play, rating band, speed, mode; see `filter`), only the buckets that hold
//! games. A filtered question about a busy position is a sum over the buckets that pass,
//! without reading a game. No SQL here.
//!
//! Frozen layout (format 2; any change is a new format number; format 1 is rebuilt by the
//! migration of schema 7):
//!
//! ```text
//! buckets = varint 2 (format)
//!           varint n, then n × move, by move code
//! move    = varint move code (65535 = the game ended here, 65534 = every game through the
//!           position), varint byte length of the rest of the move (so that a move is skipped
//!           unread), varint m, then m × month, by month
//! month   = varint (month code − previous month of the move, the first from 0),
//!           varint byte length of its cells (so that a month that does not pass is skipped),
//!           varint c, then c × cell, by rest
//! cell    = varint (rest − previous rest of the month, the first from 0), where
//!           rest = bucket % 165 (band × speed × mode) and bucket = month × 165 + rest
//!           varint length of the body in bytes (so that a cell that does not pass is skipped)
//!           body = varint games, first_wins, draws, second_wins, rating_sum, rating_count,
//!                  first_rating_sum, first_rating_count,
//!                  first day, last day (0–31, 0 = a date without a day),
//!                  the smallest id of the games on the first day,
//!                  and for the move 65535 only: varint k, then k × (varint termination code
//!                  (0 unknown), varint games), by code, the codes with games only
//! ```
//!
//! The dates of a cell's games share its month, so the first and last dates are the month and
//! the smallest and greatest day (a date without a day sorts first, as its text does); the
//! first game of a move is that of its earliest (month, day, id). The entry 65534 makes the
//! games through the position (and its history by month) one walk of its cells.

use super::{
    codec::END_OF_GAME,
    filter::{calendar_month, date_text, year_of, Matcher, PER_MONTH},
    game_facts::GameFacts,
    links::move_from_code,
    model::{GameCounts, MonthCounts, MoveRow, ENDINGS},
    varint::{self, Reader},
    StoreError,
};

const BUCKETS_FORMAT: u64 = 2;

/// The move code of the entry that counts every game through the position.
pub(super) const ALL_GAMES: u16 = 0xfffe;

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
    /// By move code; each move's cells by bucket.
    pub moves: Vec<(u16, Vec<Cell>)>,
}

impl Buckets {
    /// Counts games, each with the move code it played here and its id (and each once more
    /// in the entry of every game, [`ALL_GAMES`]): sorted by (move, bucket) and merged with
    /// the cells in one pass (inserting them one by one would shift a busy position's tens
    /// of thousands of cells for every new one).
    pub(super) fn add(&mut self, mut games: Vec<(u16, i64, GameFacts)>) {
        let every: Vec<(u16, i64, GameFacts)> =
            games.iter().map(|&(_, id, g)| (ALL_GAMES, id, g)).collect();
        games.extend(every);
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

    /// The blob stored in `positions.buckets`.
    pub(super) fn encode(&self) -> Vec<u8> {
        let cells: usize = self.moves.iter().map(|m| m.1.len()).sum();
        let mut out = Vec::with_capacity(8 + self.moves.len() * 8 + cells * 16);
        let (mut mv_buf, mut month_buf, mut body) = (Vec::new(), Vec::new(), Vec::new());
        varint::put(&mut out, BUCKETS_FORMAT);
        varint::put(&mut out, self.moves.len() as u64);
        for (mv, cells) in &self.moves {
            mv_buf.clear();
            let months: Vec<&[Cell]> = cells
                .chunk_by(|a, b| a.bucket / PER_MONTH == b.bucket / PER_MONTH)
                .collect();
            varint::put(&mut mv_buf, months.len() as u64);
            let mut prev_month = 0;
            for month in months {
                let m = month[0].bucket / PER_MONTH;
                varint::put(&mut mv_buf, u64::from(m - prev_month));
                prev_month = m;
                month_buf.clear();
                varint::put(&mut month_buf, month.len() as u64);
                let mut prev_rest = 0;
                for c in month {
                    let rest = c.bucket % PER_MONTH;
                    varint::put(&mut month_buf, u64::from(rest - prev_rest));
                    prev_rest = rest;
                    body.clear();
                    varint::put_counts(&mut body, &c.counts);
                    varint::put(&mut body, u64::from(c.first_day));
                    varint::put(&mut body, u64::from(c.last_day));
                    varint::put(&mut body, c.first_game.unsigned_abs());
                    if *mv == END_OF_GAME {
                        let kinds = c.endings.iter().filter(|n| **n > 0).count();
                        varint::put(&mut body, kinds as u64);
                        for (code, n) in c.endings.iter().enumerate().filter(|e| *e.1 > 0) {
                            varint::put(&mut body, code as u64);
                            varint::put(&mut body, *n);
                        }
                    }
                    varint::put(&mut month_buf, body.len() as u64);
                    month_buf.extend_from_slice(&body);
                }
                varint::put(&mut mv_buf, month_buf.len() as u64);
                mv_buf.extend_from_slice(&month_buf);
            }
            varint::put(&mut out, u64::from(*mv));
            varint::put(&mut out, mv_buf.len() as u64);
            out.extend_from_slice(&mv_buf);
        }
        out
    }

    /// The inverse of [`Buckets::encode`].
    pub(super) fn decode(bytes: &[u8]) -> Result<Buckets, StoreError> {
        let mut moves: Vec<(u16, Vec<Cell>)> = Vec::new();
        walk(
            bytes,
            None,
            |_| true,
            Body::Full,
            |item| {
                match item {
                    Item::Move(mv) => moves.push((mv, Vec::new())),
                    Item::Cell(cell) => {
                        if let Some(m) = moves.last_mut() {
                            m.1.push(cell);
                        }
                    }
                }
                Ok(())
            },
        )?;
        Ok(Buckets { moves })
    }
}

impl Buckets {
    /// Counts a game again with other facts: `old` taken off the cells of its move `mv`
    /// (and of [`ALL_GAMES`]) and `new` counted in its place, as if the game `id` had been
    /// counted with `new` from the start (the delta of a richer copy, `store::copies`).
    /// Returns `false` when the cells alone cannot tell the answer: the game held a cell's
    /// first (day, id) or its last day (above 0) and `new` goes to another bucket or does
    /// not put back a day as early (as late). The buckets must then be counted again from
    /// the games and these are not to be stored.
    pub(super) fn replace(&mut self, mv: u16, id: i64, old: &GameFacts, new: &GameFacts) -> bool {
        for code in [mv, ALL_GAMES] {
            let Ok(i) = self.moves.binary_search_by_key(&code, |m| m.0) else {
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
            if code == END_OF_GAME {
                let slot = &mut c.endings[old.termination.map_or(0, |t| usize::from(t.code()))];
                let Some(left) = slot.checked_sub(1) else {
                    return false;
                };
                *slot = left;
            }
            if c.counts.games == 0 {
                cells.remove(j);
                continue;
            }
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

/// What [`sum`] counts of a blob: the moves' rows and the position's history.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Summed {
    /// One row per move that keeps games (and one for the games that ended here), by code.
    pub rows: Vec<MoveRow>,
    /// The games through the position per calendar month, by month.
    pub history: Vec<MonthCounts>,
}

/// A move row being summed from cells: the row, and its earliest (month, day, game) and
/// latest (month, day).
struct Acc {
    row: MoveRow,
    first: Option<(u32, u8, i64)>,
    last: Option<(u32, u8)>,
}

impl Acc {
    fn add(&mut self, c: &Cell) {
        self.row.counts.merge(&c.counts);
        let month = c.bucket / PER_MONTH;
        if let Some(y) = year_of(month) {
            let first = (month, c.first_day, c.first_game);
            if self.first.is_none_or(|f| first < f) {
                self.first = Some(first);
            }
            let last = (month, c.last_day);
            if self.last.is_none_or(|l| last > l) {
                self.last = Some(last);
            }
            self.row.year_sum += u64::from(y) * c.counts.games;
            self.row.dated += c.counts.games;
        }
        for (a, b) in self.row.endings.iter_mut().zip(c.endings) {
            *a += b;
        }
    }

    fn finish(mut self) -> MoveRow {
        if let Some((m, d, g)) = self.first {
            self.row.first_date = date_text(m, d);
            self.row.first_game = Some(g);
        }
        if let Some((m, d)) = self.last {
            self.row.last_date = date_text(m, d);
        }
        self.row
    }
}

/// Adds a cell's games to a history kept by month.
fn add_month(history: &mut Vec<MonthCounts>, c: &Cell) {
    let Some((year, month)) = calendar_month(c.bucket / PER_MONTH) else {
        return;
    };
    match history.last_mut() {
        Some(h) if (h.year, h.month) == (year, month) => h.add(&c.counts),
        _ => {
            let mut h = MonthCounts {
                year,
                month,
                ..MonthCounts::default()
            };
            h.add(&c.counts);
            history.push(h);
        }
    }
}

/// The sums of the cells that pass `matcher`: one row per move that keeps games (by move
/// code), and the history of the games through the position, read straight from the blob.
pub(super) fn sum(bytes: &[u8], matcher: &Matcher) -> Result<Summed, StoreError> {
    let mut accs: Vec<Acc> = Vec::new();
    let mut history = Vec::new();
    let mut in_all = false;
    walk(
        bytes,
        Some(matcher),
        |_| true,
        Body::Full,
        |item| {
            match item {
                Item::Move(mv) => {
                    in_all = mv == ALL_GAMES;
                    if !in_all {
                        accs.push(Acc {
                            row: MoveRow {
                                mv: move_from_code(mv)?,
                                ..MoveRow::default()
                            },
                            first: None,
                            last: None,
                        });
                    }
                }
                Item::Cell(cell) if in_all => add_month(&mut history, &cell),
                Item::Cell(cell) => {
                    if let Some(a) = accs.last_mut() {
                        a.add(&cell);
                    }
                }
            }
            Ok(())
        },
    )?;
    Ok(Summed {
        rows: accs
            .into_iter()
            .filter(|a| a.row.counts.games > 0)
            .map(Acc::finish)
            .collect(),
        history,
    })
}

/// The games through the position that pass `matcher`: one walk of the cells of the entry
/// of every game, the other moves skipped unread, and of each passing cell only its first
/// number (its games) read.
pub(super) fn total(bytes: &[u8], matcher: &Matcher) -> Result<u64, StoreError> {
    let mut games: u64 = 0;
    walk(
        bytes,
        Some(matcher),
        |mv| mv == ALL_GAMES,
        Body::Games,
        |item| {
            if let Item::Cell(c) = item {
                games = games.saturating_add(c.counts.games);
            }
            Ok(())
        },
    )?;
    Ok(games)
}

/// How much of a cell's body [`walk`] reads.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Body {
    /// All of it.
    Full,
    /// Its games alone (the rest of the cell is skipped).
    Games,
}

/// What [`walk`] meets in a blob.
enum Item {
    /// A move code.
    Move(u16),
    /// One of the move's cells.
    Cell(Cell),
}

fn corrupt(why: &str) -> StoreError {
    StoreError::Corrupt(format!("buckets blob: {why}"))
}

/// Reads a buckets blob: each move that `wanted` lets through, then each of its cells that
/// passes `matcher` (every cell without one); the others are skipped unread.
fn walk(
    bytes: &[u8],
    matcher: Option<&Matcher>,
    wanted: impl Fn(u16) -> bool,
    body: Body,
    mut f: impl FnMut(Item) -> Result<(), StoreError>,
) -> Result<(), StoreError> {
    let mut r = Reader::new(bytes, "buckets");
    let format = r.u64()?;
    if format != BUCKETS_FORMAT {
        return Err(corrupt(&format!("unknown format {format}")));
    }
    let n: usize = r.int()?;
    let mut prev_mv = None;
    for _ in 0..n {
        let mv: u16 = r.int()?;
        if prev_mv.is_some_and(|p| p >= mv) {
            return Err(corrupt("moves out of order"));
        }
        prev_mv = Some(mv);
        let len: usize = r.int()?;
        if !wanted(mv) {
            r.skip(len)?;
            continue;
        }
        let end = r
            .offset()
            .checked_add(len)
            .ok_or_else(|| corrupt("bad move length"))?;
        f(Item::Move(mv))?;
        let months: usize = r.int()?;
        let mut month: u32 = 0;
        for i in 0..months {
            let delta: u32 = r.int()?;
            if i > 0 && delta == 0 {
                return Err(corrupt("repeated month"));
            }
            month = month
                .checked_add(delta)
                .filter(|m| m.checked_mul(PER_MONTH).is_some())
                .ok_or_else(|| corrupt("month overflow"))?;
            let len: usize = r.int()?;
            if matcher.is_some_and(|m| !m.month_passes(month)) {
                r.skip(len)?;
                continue;
            }
            let month_end = r
                .offset()
                .checked_add(len)
                .ok_or_else(|| corrupt("bad month length"))?;
            let c: usize = r.int()?;
            let mut rest: u32 = 0;
            for j in 0..c {
                let delta: u32 = r.int()?;
                if j > 0 && delta == 0 {
                    return Err(corrupt("repeated bucket"));
                }
                rest = rest
                    .checked_add(delta)
                    .filter(|r| *r < PER_MONTH)
                    .ok_or_else(|| corrupt("bucket out of range"))?;
                let len: usize = r.int()?;
                if matcher.is_some_and(|m| !m.rest_passes(rest)) {
                    r.skip(len)?;
                    continue;
                }
                let cell_end = r
                    .offset()
                    .checked_add(len)
                    .ok_or_else(|| corrupt("bad cell length"))?;
                if body == Body::Games {
                    let games = r.u64()?;
                    let read = r.offset() - (cell_end - len);
                    r.skip(
                        len.checked_sub(read)
                            .ok_or_else(|| corrupt("bad cell length"))?,
                    )?;
                    f(Item::Cell(Cell {
                        bucket: month * PER_MONTH + rest,
                        counts: GameCounts {
                            games,
                            ..GameCounts::default()
                        },
                        ..Cell::default()
                    }))?;
                    continue;
                }
                let counts = r.counts()?;
                let (first_day, last_day): (u8, u8) = (r.int()?, r.int()?);
                let first_game: i64 = r.int()?;
                let mut endings = [0; ENDINGS];
                if mv == END_OF_GAME {
                    let k: usize = r.int()?;
                    if k > ENDINGS {
                        return Err(corrupt("bad endings"));
                    }
                    for _ in 0..k {
                        let code: usize = r.int()?;
                        let slot = endings.get_mut(code).ok_or_else(|| corrupt("bad ending"))?;
                        *slot = r.u64()?;
                    }
                }
                if r.offset() != cell_end {
                    return Err(corrupt("bad cell length"));
                }
                f(Item::Cell(Cell {
                    bucket: month * PER_MONTH + rest,
                    counts,
                    first_day,
                    last_day,
                    first_game,
                    endings,
                }))?;
            }
            if r.offset() != month_end {
                return Err(corrupt("bad month length"));
            }
        }
        if r.offset() != end {
            return Err(corrupt("bad move length"));
        }
    }
    if !r.is_empty() {
        return Err(corrupt("trailing bytes"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        formats::facts::{Mode, Speed, Termination},
        rules::{Color, Move, Outcome},
        store::{filter::BucketFilter, model::Played, END_OF_GAME},
    };

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
        let filter = BucketFilter {
            since: Some("2020-06".parse().unwrap()),
            min_rating: Some(2000),
            speeds: vec![Speed::Blitz],
            ..BucketFilter::default()
        };
        let summed = sum(&blob, &filter.matcher()).unwrap();
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
        assert_eq!(total(&blob, &filter.matcher()).unwrap(), all);
        let mut bad = blob.clone();
        bad.push(0);
        assert!(sum(&bad, &filter.matcher()).is_err());
        assert!(Buckets::decode(&blob[..blob.len() - 1]).is_err());
    }
}
