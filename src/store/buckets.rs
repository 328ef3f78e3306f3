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
//! decoded, for the migrations of schemas 9, 10 and 14, which re-encode them):
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

use std::{borrow::Cow, ops::Range};

use super::{
    codec::{result_code, result_from_code, END_OF_GAME},
    filter::{calendar_month, date_text, year_of, Matcher, PER_MONTH},
    game_facts::GameFacts,
    links::move_from_code,
    model::{GameCounts, MonthCounts, MoveRow, ENDINGS},
    varint::{self, Reader},
    StoreError,
};

const BUCKETS_FORMAT: u64 = 5;
/// Format 4: format 5's layout with the entry of every game in full (its cells too;
/// re-encoded by schema 14).
const FORMAT_4: u64 = 4;
/// Format 3: format 4's layout with every cell body in full (re-encoded by schema 10).
const FORMAT_3: u64 = 3;
/// The format the migration of schema 9 re-encodes.
const OLD_FORMAT: u64 = 2;

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

/// Which sums of a move a part holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    /// Per rest, the months collapsed.
    Rests,
    /// Per month, the rests collapsed.
    Months,
    /// Per bucket.
    Cells,
}

/// One move of the directory: its code and where its parts are in the blob.
#[derive(Clone, Debug)]
struct Parts {
    code: u16,
    rests: Range<usize>,
    months: Range<usize>,
    cells: Range<usize>,
}

impl Parts {
    /// The part that answers `want`, or the cells when that part is left out.
    fn pick(&self, want: Part) -> (Part, Range<usize>) {
        match want {
            Part::Rests if !self.rests.is_empty() => (Part::Rests, self.rests.clone()),
            Part::Months if !self.months.is_empty() => (Part::Months, self.months.clone()),
            _ => (Part::Cells, self.cells.clone()),
        }
    }
}

/// Reads the next move code of a list kept by code: above `prev`, which it becomes.
fn next_move(r: &mut Reader<'_>, prev: &mut Option<u16>) -> Result<u16, StoreError> {
    let code: u16 = r.int()?;
    if prev.is_some_and(|p| p >= code) {
        return Err(corrupt("moves out of order"));
    }
    *prev = Some(code);
    Ok(code)
}

/// Bytes read first: the format and the directory's length.
const HEAD: usize = 24;

/// Reads a format-3, 4 or 5 blob's directory; with whether its cell bodies may be compact
/// (formats 4 and 5).
fn directory(src: &mut impl Source) -> Result<(Vec<Parts>, bool), StoreError> {
    let len = src.len();
    let head = src.read(0..HEAD.min(len))?;
    let mut r = Reader::new(&head, "buckets");
    let format = r.u64()?;
    if ![BUCKETS_FORMAT, FORMAT_4, FORMAT_3].contains(&format) {
        return Err(corrupt(&format!("unknown format {format}")));
    }
    let d: usize = r.int()?;
    let start = r.offset();
    let end = start
        .checked_add(d)
        .filter(|e| *e <= len)
        .ok_or_else(|| corrupt("bad directory length"))?;
    drop(head);
    let dir = src.read(start..end)?;
    let mut r = Reader::new(&dir, "buckets directory");
    let n: usize = r.int()?;
    let mut lens = Vec::with_capacity(n.min(d));
    let mut prev: Option<u16> = None;
    for _ in 0..n {
        let code = next_move(&mut r, &mut prev)?;
        let (a, b, c): (usize, usize, usize) = (r.int()?, r.int()?, r.int()?);
        lens.push((code, a, b, c));
    }
    if !r.is_empty() {
        return Err(corrupt("bad directory length"));
    }
    let add = |x: usize, y: usize| x.checked_add(y).ok_or_else(|| corrupt("bad part length"));
    let mut at = end;
    let mut parts: Vec<Parts> = lens
        .iter()
        .map(|&(code, ..)| Parts {
            code,
            rests: 0..0,
            months: 0..0,
            cells: 0..0,
        })
        .collect();
    for (p, &(_, n, ..)) in parts.iter_mut().zip(&lens) {
        p.rests = at..add(at, n)?;
        at = p.rests.end;
    }
    for (p, &(_, _, n, _)) in parts.iter_mut().zip(&lens) {
        p.months = at..add(at, n)?;
        at = p.months.end;
    }
    for (p, &(.., n)) in parts.iter_mut().zip(&lens) {
        p.cells = at..add(at, n)?;
        at = p.cells.end;
    }
    if at != len {
        return Err(corrupt("length does not match its directory"));
    }
    Ok((parts, format != FORMAT_3))
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

fn put_endings(out: &mut Vec<u8>, endings: &[u64; ENDINGS]) {
    varint::put(out, endings.iter().filter(|n| **n > 0).count() as u64);
    for (code, n) in endings.iter().enumerate().filter(|e| *e.1 > 0) {
        varint::put(out, code as u64);
        varint::put(out, *n);
    }
}

fn read_endings(r: &mut Reader<'_>) -> Result<[u64; ENDINGS], StoreError> {
    let mut endings = [0; ENDINGS];
    let k: usize = r.int()?;
    if k > ENDINGS {
        return Err(corrupt("bad endings"));
    }
    for _ in 0..k {
        let code: usize = r.int()?;
        let slot = endings.get_mut(code).ok_or_else(|| corrupt("bad ending"))?;
        *slot = r.u64()?;
    }
    Ok(endings)
}

/// The one game a cell holds, when it holds one and its compact body says all of it: its
/// result code, its ratings and its ending (0 unknown).
fn single_game(c: &Cell, ended: bool) -> Option<(i64, [Option<u32>; 2], usize)> {
    let g = &c.counts;
    if g.games != 1 || c.first_day != c.last_day || g.rating_count > 2 {
        return None;
    }
    let first = match g.first_rating_count {
        0 => None,
        _ => Some(u32::try_from(g.first_rating_sum).ok()?),
    };
    let second = match g.rating_count.checked_sub(g.first_rating_count)? {
        0 => None,
        _ => Some(u32::try_from(g.rating_sum.checked_sub(g.first_rating_sum)?).ok()?),
    };
    let ratings = [first, second];
    let result = match (g.first_wins, g.draws, g.second_wins) {
        (0, 0, 0) => None,
        (1, 0, 0) => result_from_code(1),
        (0, 1, 0) => result_from_code(2),
        (0, 0, 1) => result_from_code(3),
        _ => return None,
    };
    let mut one = GameCounts::default();
    one.add_game(result, ratings);
    if one != *g {
        return None;
    }
    let ending = if ended {
        let e = c.endings.iter().position(|n| *n == 1)?;
        if c.endings.iter().sum::<u64>() != 1 {
            return None;
        }
        e
    } else {
        0
    };
    Some((result_code(result), ratings, ending))
}

/// Appends a cell body, length first: in format 4 (`compact`) `varint (length << 1 | 1)`
/// and the compact body of a cell of one game, else `varint (length << 1)` and the full
/// body (format 3: `varint length`, the full body).
fn put_cell_body(out: &mut Vec<u8>, body: &mut Vec<u8>, c: &Cell, ended: bool, compact: bool) {
    body.clear();
    if compact {
        if let Some((result, ratings, ending)) = single_game(c, ended) {
            varint::put(body, u64::from(c.first_day) << 2 | result as u64);
            for r in ratings {
                varint::put(body, r.map_or(0, |r| u64::from(r) + 1));
            }
            varint::put(body, c.first_game.unsigned_abs());
            if ended {
                varint::put(body, ending as u64);
            }
            varint::put(out, (body.len() as u64) << 1 | 1);
            out.extend_from_slice(body);
            return;
        }
    }
    varint::put_counts(body, &c.counts);
    varint::put(body, u64::from(c.first_day));
    varint::put(body, u64::from(c.last_day));
    varint::put(body, c.first_game.unsigned_abs());
    if ended {
        put_endings(body, &c.endings);
    }
    varint::put(out, (body.len() as u64) << u8::from(compact));
    out.extend_from_slice(body);
}

/// Appends a total body, length first.
fn put_total_body(out: &mut Vec<u8>, body: &mut Vec<u8>, t: &Total, ended: bool) {
    body.clear();
    varint::put_counts(body, &t.counts);
    match t.first {
        Some((m, d, g)) => {
            varint::put(body, u64::from(m));
            varint::put(body, u64::from(d));
            varint::put(body, g.unsigned_abs());
        }
        None => varint::put(body, 0),
    }
    match t.last {
        Some((m, d)) => {
            varint::put(body, u64::from(m));
            varint::put(body, u64::from(d));
        }
        None => varint::put(body, 0),
    }
    varint::put(body, t.year_sum);
    varint::put(body, t.dated);
    if ended {
        put_endings(body, &t.endings);
    }
    varint::put(out, body.len() as u64);
    out.extend_from_slice(body);
}

/// Appends a move's cells part (`compact`: format 4's cell bodies).
fn put_cells(out: &mut Vec<u8>, cells: &[Cell], ended: bool, compact: bool) {
    let (mut month_buf, mut body) = (Vec::new(), Vec::new());
    let months: Vec<&[Cell]> = cells
        .chunk_by(|a, b| a.bucket / PER_MONTH == b.bucket / PER_MONTH)
        .collect();
    varint::put(out, months.len() as u64);
    let mut prev_month = 0;
    for month in months {
        let m = month[0].bucket / PER_MONTH;
        varint::put(out, u64::from(m - prev_month));
        prev_month = m;
        month_buf.clear();
        varint::put(&mut month_buf, month.len() as u64);
        let mut prev_rest = 0;
        for c in month {
            let rest = c.bucket % PER_MONTH;
            varint::put(&mut month_buf, u64::from(rest - prev_rest));
            prev_rest = rest;
            put_cell_body(&mut month_buf, &mut body, c, ended, compact);
        }
        varint::put(out, month_buf.len() as u64);
        out.extend_from_slice(&month_buf);
    }
}

/// A move's sums per month (rests collapsed), as cells of rest 0.
fn month_sums(cells: &[Cell]) -> Vec<Cell> {
    cells
        .chunk_by(|a, b| a.bucket / PER_MONTH == b.bucket / PER_MONTH)
        .map(|month| {
            let mut m = Cell {
                bucket: month[0].bucket / PER_MONTH * PER_MONTH,
                ..month[0]
            };
            for c in &month[1..] {
                merge_cell(&mut m, c);
            }
            m
        })
        .collect()
}

/// Some cells' sums per rest (months collapsed), by rest.
fn rest_sums<'a>(cells: impl IntoIterator<Item = &'a Cell>) -> Vec<(u32, Total)> {
    let mut by_rest: Vec<Option<Total>> = vec![None; PER_MONTH as usize];
    for c in cells {
        let t = Total::of_cell(c);
        match &mut by_rest[(c.bucket % PER_MONTH) as usize] {
            Some(s) => s.merge(&t),
            slot => *slot = Some(t),
        }
    }
    by_rest
        .into_iter()
        .enumerate()
        .filter_map(|(rest, t)| t.map(|t| (rest as u32, t)))
        .collect()
}

/// The entry of every game as an encoding writes it.
enum Every {
    /// Its cells (formats 3 and 4).
    Cells(Vec<Cell>),
    /// Its sums per month and per rest (format 5).
    Sums(Vec<Cell>, Vec<(u32, Total)>),
}

/// Cells sorted by bucket with those of one bucket merged (the sums of every game), without
/// endings (the entry of every game keeps none).
fn merged_by_bucket(sorted: Vec<Cell>) -> Vec<Cell> {
    let mut out: Vec<Cell> = Vec::with_capacity(sorted.len());
    for c in sorted {
        match out.last_mut() {
            Some(m) if m.bucket == c.bucket => merge_cell(m, &c),
            _ => out.push(c),
        }
    }
    for c in &mut out {
        c.endings = [0; ENDINGS];
    }
    out
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

    /// The blob stored in `positions.buckets` (format 5, see the module doc).
    pub(super) fn encode(&self) -> Vec<u8> {
        self.encode_in(BUCKETS_FORMAT)
    }

    /// The games counted.
    fn games(&self) -> u64 {
        self.moves
            .iter()
            .flat_map(|m| &m.1)
            .map(|c| c.counts.games)
            .sum()
    }

    /// The cells of the entry of every game (what formats 2–4 stored): the moves' cells
    /// merged by bucket, without endings.
    fn every_game_cells(&self) -> Vec<Cell> {
        let mut all: Vec<Cell> = self
            .moves
            .iter()
            .flat_map(|m| m.1.iter().copied())
            .collect();
        all.sort_by_key(|c| c.bucket);
        merged_by_bucket(all)
    }

    /// The blob in format 5, or in format 4 or 3 (the entry of every game with its cells;
    /// format 3: every cell body in full), as the schemas before 14 (10) wrote it.
    fn encode_in(&self, format: u64) -> Vec<u8> {
        let compact = format != FORMAT_3;
        let n_cells: usize = self.moves.iter().map(|m| m.1.len()).sum();
        // The entry of every game: in formats 3 and 4 its cells; in format 5, of a position
        // of more than `ALL_PARTS_FROM` games, its rests and months parts, summed from the
        // moves' (no cells: their questions sum the moves).
        let every = if format != BUCKETS_FORMAT {
            Some(Every::Cells(self.every_game_cells()))
        } else if self.games() > ALL_PARTS_FROM {
            let all = self.every_game_cells();
            if n_cells * 2 > all.len() * 3 {
                // Many games a bucket: the moves hold many more cells than the entry of
                // every game, which keeps its cells for the walks of its history.
                Some(Every::Cells(all))
            } else {
                Some(Every::Sums(month_sums(&all), rest_sums(&all)))
            }
        } else {
            None
        };
        let (mut dir, mut rests, mut months, mut cells) = (
            Vec::with_capacity(8 + self.moves.len() * 8),
            Vec::new(),
            Vec::new(),
            Vec::with_capacity(n_cells * 16),
        );
        let mut body = Vec::new();
        let at = self.moves.partition_point(|m| m.0 < ALL_GAMES);
        let entries = self.moves[..at]
            .iter()
            .map(|(mv, c)| (*mv, c.as_slice(), None))
            .chain(every.as_ref().map(|e| match e {
                Every::Cells(c) => (ALL_GAMES, c.as_slice(), None),
                Every::Sums(m, r) => (ALL_GAMES, &[][..], Some((m, r))),
            }))
            .chain(
                self.moves[at..]
                    .iter()
                    .map(|(mv, c)| (*mv, c.as_slice(), None)),
            );
        let mut n = 0;
        for (mv, move_cells, sums) in entries {
            let ended = mv == END_OF_GAME;
            let (r0, m0, c0) = (rests.len(), months.len(), cells.len());
            let (by_month, by_rest, of) = match sums {
                Some((m, r)) => (
                    Cow::Borrowed(m.as_slice()),
                    Cow::Borrowed(r.as_slice()),
                    n_cells,
                ),
                None => {
                    put_cells(&mut cells, move_cells, ended, compact);
                    (
                        Cow::Owned(month_sums(move_cells)),
                        Cow::Owned(rest_sums(move_cells)),
                        move_cells.len(),
                    )
                }
            };
            if of > 0 && by_month.len() * 2 <= of {
                varint::put(&mut months, by_month.len() as u64);
                let mut prev = 0;
                for c in by_month.iter() {
                    let m = c.bucket / PER_MONTH;
                    varint::put(&mut months, u64::from(m - prev));
                    prev = m;
                    put_cell_body(&mut months, &mut body, c, ended, compact);
                }
            }
            if of > 0 && by_rest.len() * 2 <= of {
                varint::put(&mut rests, by_rest.len() as u64);
                let mut prev = 0;
                for (rest, t) in by_rest.iter() {
                    varint::put(&mut rests, u64::from(rest - prev));
                    prev = *rest;
                    put_total_body(&mut rests, &mut body, t, ended);
                }
            }
            let lens = [rests.len() - r0, months.len() - m0, cells.len() - c0];
            if sums.is_some() && lens == [0, 0, 0] {
                continue;
            }
            varint::put(&mut dir, u64::from(mv));
            for len in lens {
                varint::put(&mut dir, len as u64);
            }
            n += 1;
        }
        let mut head = Vec::with_capacity(dir.len() + 4);
        varint::put(&mut head, n as u64);
        head.extend_from_slice(&dir);
        let mut out =
            Vec::with_capacity(12 + head.len() + rests.len() + months.len() + cells.len());
        varint::put(&mut out, format);
        varint::put(&mut out, head.len() as u64);
        for part in [head, rests, months, cells] {
            out.extend_from_slice(&part);
        }
        out
    }

    /// The inverse of [`Buckets::encode`] (its cells parts; formats 2–4 are read too, their
    /// entry of every game left out).
    pub(super) fn decode(bytes: &[u8]) -> Result<Buckets, StoreError> {
        let mut moves: Vec<(u16, Vec<Cell>)> = Vec::new();
        let mut r = Reader::new(bytes, "buckets");
        if r.u64()? == OLD_FORMAT {
            let n: usize = r.int()?;
            let mut prev: Option<u16> = None;
            for _ in 0..n {
                let mv = next_move(&mut r, &mut prev)?;
                let len: usize = r.int()?;
                let start = r.offset();
                r.skip(len)?;
                let mut cells = Vec::new();
                walk_cells(
                    &bytes[start..start + len],
                    mv,
                    None,
                    Body::Full,
                    false,
                    |c| {
                        cells.push(c);
                    },
                )?;
                if mv != ALL_GAMES {
                    moves.push((mv, cells));
                }
            }
            if !r.is_empty() {
                return Err(corrupt("trailing bytes"));
            }
            return Ok(Buckets { moves });
        }
        let mut src = bytes;
        let (dir, compact) = directory(&mut src)?;
        for p in dir.into_iter().filter(|p| p.code != ALL_GAMES) {
            let mut cells = Vec::new();
            walk_cells(
                &bytes[p.cells.clone()],
                p.code,
                None,
                Body::Full,
                compact,
                |c| {
                    cells.push(c);
                },
            )?;
            moves.push((p.code, cells));
        }
        Ok(Buckets { moves })
    }
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

/// What [`sum`] counts of a blob: the moves' rows and the position's history.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Summed {
    /// One row per move that keeps games (and one for the games that ended here), by code.
    pub rows: Vec<MoveRow>,
    /// The games through the position per calendar month, by month.
    pub history: Vec<MonthCounts>,
}

/// The row a move's summed games make.
fn finish(mv: u16, t: &Total) -> Result<MoveRow, StoreError> {
    let mut row = MoveRow {
        mv: move_from_code(mv)?,
        counts: t.counts,
        year_sum: t.year_sum,
        dated: t.dated,
        endings: t.endings,
        ..MoveRow::default()
    };
    if let Some((m, d, g)) = t.first {
        row.first_date = date_text(m, d);
        row.first_game = Some(g);
    }
    if let Some((m, d)) = t.last {
        row.last_date = date_text(m, d);
    }
    Ok(row)
}

/// Adds a month's games (a cell, or a month's sums) to a history kept by month.
fn add_month(history: &mut Vec<MonthCounts>, c: &Cell) {
    add_to_history(history, c.bucket / PER_MONTH, &c.counts);
}

/// Adds games of month code `month` to a history kept by month (in any order: the cells of
/// one move come by month, those of several moves not); a month that is not a calendar
/// month is left out.
pub(super) fn add_to_history(history: &mut Vec<MonthCounts>, month: u32, counts: &GameCounts) {
    let Some((year, month)) = calendar_month(month) else {
        return;
    };
    if let Some(h) = history
        .last_mut()
        .filter(|h| (h.year, h.month) == (year, month))
    {
        h.add(counts);
        return;
    }
    let i = match history.binary_search_by_key(&(year, month), |h| (h.year, h.month)) {
        Ok(i) => i,
        Err(i) => {
            history.insert(
                i,
                MonthCounts {
                    year,
                    month,
                    ..MonthCounts::default()
                },
            );
            i
        }
    };
    history[i].add(counts);
}

/// The part that answers a question under `matcher`: the per-rest sums without dates, the
/// per-month sums with dates alone, the cells with both.
fn wanted(matcher: &Matcher) -> Part {
    if !matcher.has_dates() {
        Part::Rests
    } else if matcher.all_rests_pass() {
        Part::Months
    } else {
        Part::Cells
    }
}

/// Reads the parts `picked` (moves' indexes in `dir`, each with its part and byte range, in
/// blob order), the adjacent ones in one read, and gives each to `f`.
fn read_parts(
    src: &mut impl Source,
    picked: &[(usize, Part, Range<usize>)],
    mut f: impl FnMut(usize, Part, &[u8]) -> Result<(), StoreError>,
) -> Result<(), StoreError> {
    let mut i = 0;
    while i < picked.len() {
        let mut j = i + 1;
        while j < picked.len() && picked[j].2.start == picked[j - 1].2.end {
            j += 1;
        }
        let span = picked[i].2.start..picked[j - 1].2.end;
        let bytes = src.read(span.clone())?;
        for (k, part, r) in &picked[i..j] {
            f(*k, *part, &bytes[r.start - span.start..r.end - span.start])?;
        }
        i = j;
    }
    Ok(())
}

/// What a walk of one part does with the sums it reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    /// The move's row.
    Row,
    /// The history (of the moves' parts when no entry of every game answers it).
    History,
    /// Both (a months or cells part answers the history too).
    Both,
}

/// The entry of every game, if the blob has one holding `part` (a format-4 blob holds them
/// all, its cells too; a format-5 one at most its rests and months).
fn every_game(dir: &[Parts], part: Part) -> Option<Range<usize>> {
    let p = dir.iter().find(|p| p.code == ALL_GAMES)?;
    let r = match part {
        Part::Rests => &p.rests,
        Part::Months => &p.months,
        Part::Cells => &p.cells,
    };
    (!r.is_empty()).then(|| r.clone())
}

/// The sums of the cells that pass `matcher`: one row per move that keeps games (by move
/// code), and the history of the games through the position, each from the smallest part
/// of the blob that answers it. The history is the entry of every game's when it holds
/// the part (the months with dates alone), else summed over the moves: from the parts
/// their rows are read from (months or cells), or from their cells.
pub(super) fn sum(src: &mut impl Source, matcher: &Matcher) -> Result<Summed, StoreError> {
    let (dir, compact) = directory(src)?;
    let want = wanted(matcher);
    let history_part = if matcher.all_rests_pass() {
        Part::Months
    } else {
        Part::Cells
    };
    let every = every_game(&dir, history_part);
    let mut picked: Vec<(usize, Part, Range<usize>, Role)> = Vec::with_capacity(dir.len() + 1);
    for (i, p) in dir.iter().enumerate() {
        if p.code == ALL_GAMES {
            if let Some(r) = &every {
                picked.push((i, history_part, r.clone(), Role::History));
            }
            continue;
        }
        let (part, r) = p.pick(want);
        if every.is_some() {
            picked.push((i, part, r, Role::Row));
        } else if part != Part::Rests {
            picked.push((i, part, r, Role::Both));
        } else {
            picked.push((i, part, r, Role::Row));
            let (part, r) = p.pick(history_part);
            picked.push((i, part, r, Role::History));
        }
    }
    picked.sort_by_key(|p| p.2.start);
    let spans: Vec<(usize, Part, Range<usize>)> =
        picked.iter().map(|p| (p.0, p.1, p.2.clone())).collect();
    let mut totals: Vec<Option<Total>> = vec![None; dir.len()];
    let mut history = Vec::new();
    let mut k = 0;
    read_parts(src, &spans, |i, part, bytes| {
        let role = picked[k].3;
        k += 1;
        let code = dir[i].code;
        if role == Role::History {
            return match part {
                Part::Months => walk_months(bytes, code, matcher, Body::Results, compact, |c| {
                    add_month(&mut history, &c)
                }),
                _ => walk_cells(bytes, code, Some(matcher), Body::Results, compact, |c| {
                    add_month(&mut history, &c)
                }),
            };
        }
        let mut t: Option<Total> = None;
        let mut add = |x: Total| match &mut t {
            Some(t) => t.merge(&x),
            None => t = Some(x),
        };
        let both = role == Role::Both;
        match part {
            Part::Rests => walk_rests(bytes, code, matcher, Body::Full, |_, x| add(x))?,
            Part::Months => walk_months(bytes, code, matcher, Body::Full, compact, |c| {
                if both {
                    add_month(&mut history, &c);
                }
                add(Total::of_cell(&c))
            })?,
            Part::Cells => walk_cells(bytes, code, Some(matcher), Body::Full, compact, |c| {
                if both {
                    add_month(&mut history, &c);
                }
                add(Total::of_cell(&c))
            })?,
        }
        totals[i] = t;
        Ok(())
    })?;
    let mut rows = Vec::new();
    for (p, t) in dir.iter().zip(&totals) {
        if let Some(t) = t.as_ref().filter(|t| t.counts.games > 0) {
            rows.push(finish(p.code, t)?);
        }
    }
    Ok(Summed { rows, history })
}

/// The games through the position that pass `matcher`: the entry of every game's, from its
/// smallest part that answers, when it holds that part; else the sum of the moves' (each
/// game is in exactly one move, or in the games that ended here). Of each sum only its first
/// number (its games) is read.
pub(super) fn total(src: &mut impl Source, matcher: &Matcher) -> Result<u64, StoreError> {
    let (dir, compact) = directory(src)?;
    let want = wanted(matcher);
    let picked: Vec<(usize, Part, Range<usize>)> = match every_game(&dir, want) {
        Some(r) => dir
            .iter()
            .position(|p| p.code == ALL_GAMES)
            .map(|i| (i, want, r))
            .into_iter()
            .collect(),
        None => {
            let mut picked: Vec<(usize, Part, Range<usize>)> = dir
                .iter()
                .enumerate()
                .filter(|(_, p)| p.code != ALL_GAMES)
                .map(|(i, p)| {
                    let (part, r) = p.pick(want);
                    (i, part, r)
                })
                .collect();
            picked.sort_by_key(|p| p.2.start);
            picked
        }
    };
    let mut games: u64 = 0;
    read_parts(src, &picked, |i, part, bytes| {
        let code = dir[i].code;
        let mut add = |n: u64| games = games.saturating_add(n);
        match part {
            Part::Rests => walk_rests(bytes, code, matcher, Body::Games, |_, t| {
                add(t.counts.games)
            }),
            Part::Months => walk_months(bytes, code, matcher, Body::Games, compact, |c| {
                add(c.counts.games)
            }),
            Part::Cells => walk_cells(bytes, code, Some(matcher), Body::Games, compact, |c| {
                add(c.counts.games)
            }),
        }
    })?;
    Ok(games)
}

fn corrupt(why: &str) -> StoreError {
    StoreError::Corrupt(format!("buckets blob: {why}"))
}

/// Reads a length-prefixed list of `(varint key − previous key, varint body length, body)`,
/// keys increasing and below `limit`: calls `f(key, single, body reader)` for the keys
/// `passes` lets through (the others are skipped unread); `f` must read its body whole
/// unless `skip_rest` (then what it leaves is skipped). With `flagged` the length is
/// `varint (length << 1 | single)` (format 4's cell bodies: `single` = a compact body of
/// one game), else `single` is false.
fn walk_list(
    r: &mut Reader<'_>,
    limit: u32,
    passes: impl Fn(u32) -> bool,
    skip_rest: bool,
    flagged: bool,
    mut f: impl FnMut(u32, bool, &mut Reader<'_>) -> Result<(), StoreError>,
) -> Result<(), StoreError> {
    let n: usize = r.int()?;
    let mut key: u32 = 0;
    for i in 0..n {
        let delta: u32 = r.int()?;
        if i > 0 && delta == 0 {
            return Err(corrupt("repeated key"));
        }
        key = key
            .checked_add(delta)
            .filter(|k| *k < limit)
            .ok_or_else(|| corrupt("key out of range"))?;
        let mut len: usize = r.int()?;
        let single = flagged && len & 1 == 1;
        if flagged {
            len >>= 1;
        }
        if !passes(key) {
            r.skip(len)?;
            continue;
        }
        let end = r
            .offset()
            .checked_add(len)
            .ok_or_else(|| corrupt("bad length"))?;
        f(key, single, r)?;
        let left = end
            .checked_sub(r.offset())
            .ok_or_else(|| corrupt("bad length"))?;
        if left > 0 && !skip_rest {
            return Err(corrupt("bad length"));
        }
        r.skip(left)?;
    }
    Ok(())
}

/// Walks a whole part, a list of [`walk_list`] that nothing may follow.
fn walk_part(
    bytes: &[u8],
    limit: u32,
    passes: impl Fn(u32) -> bool,
    skip_rest: bool,
    flagged: bool,
    f: impl FnMut(u32, bool, &mut Reader<'_>) -> Result<(), StoreError>,
) -> Result<(), StoreError> {
    let mut r = Reader::new(bytes, "buckets");
    walk_list(&mut r, limit, passes, skip_rest, flagged, f)?;
    if !r.is_empty() {
        return Err(corrupt("trailing bytes"));
    }
    Ok(())
}

/// The highest month code a bucket can hold (so that `month × PER_MONTH` fits a `u32`).
const MONTH_LIMIT: u32 = u32::MAX / PER_MONTH;

/// Reads a cell body (of month `month`, rest `rest`).
fn read_cell(r: &mut Reader<'_>, bucket: u32, ended: bool) -> Result<Cell, StoreError> {
    let counts = r.counts()?;
    let (first_day, last_day): (u8, u8) = (r.int()?, r.int()?);
    let first_game: i64 = r.int()?;
    let endings = if ended {
        read_endings(r)?
    } else {
        [0; ENDINGS]
    };
    Ok(Cell {
        bucket,
        counts,
        first_day,
        last_day,
        first_game,
        endings,
    })
}

/// How much of a body a walk reads.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Body {
    /// All of it.
    Full,
    /// The games and their results (a history's numbers); the rest is skipped.
    Results,
    /// The games alone.
    Games,
}

/// Reads the compact body of a cell of one game (format 4) as far as `body` asks.
fn read_single(
    r: &mut Reader<'_>,
    bucket: u32,
    ended: bool,
    body: Body,
) -> Result<Cell, StoreError> {
    let x = r.u64()?;
    let day = u8::try_from(x >> 2).map_err(|_| corrupt("bad day"))?;
    let result = result_from_code((x & 3) as i64);
    let mut c = Cell {
        bucket,
        first_day: day,
        last_day: day,
        ..Cell::default()
    };
    if body == Body::Games {
        c.counts.games = 1;
        return Ok(c);
    }
    let mut ratings = [None; 2];
    if body == Body::Full {
        for slot in &mut ratings {
            *slot = match r.int::<u32>()? {
                0 => None,
                n => Some(n - 1),
            };
        }
        c.first_game = r.int()?;
        if ended {
            let e: usize = r.int()?;
            *c.endings.get_mut(e).ok_or_else(|| corrupt("bad ending"))? = 1;
        }
    }
    c.counts.add_game(result, ratings);
    Ok(c)
}

/// Reads a cell body as far as `body` asks (the caller skips what is left); `single`: the
/// compact body of a cell of one game.
fn read_body(
    r: &mut Reader<'_>,
    bucket: u32,
    ended: bool,
    body: Body,
    single: bool,
) -> Result<Cell, StoreError> {
    if single {
        return read_single(r, bucket, ended, body);
    }
    let counts = match body {
        Body::Full => return read_cell(r, bucket, ended),
        Body::Results => GameCounts {
            games: r.u64()?,
            first_wins: r.u64()?,
            draws: r.u64()?,
            second_wins: r.u64()?,
            ..GameCounts::default()
        },
        Body::Games => GameCounts {
            games: r.u64()?,
            ..GameCounts::default()
        },
    };
    Ok(Cell {
        bucket,
        counts,
        ..Cell::default()
    })
}

/// Walks a move's cells part: each cell that passes `matcher` (every cell without one), the
/// others skipped unread; of each, as much as `body` asks.
fn walk_cells(
    bytes: &[u8],
    mv: u16,
    matcher: Option<&Matcher>,
    body: Body,
    compact: bool,
    mut f: impl FnMut(Cell),
) -> Result<(), StoreError> {
    let ended = mv == END_OF_GAME;
    walk_part(
        bytes,
        MONTH_LIMIT,
        |m| matcher.is_none_or(|x| x.month_passes(m)),
        false,
        false,
        |month, _, r| {
            walk_list(
                r,
                PER_MONTH,
                |rest| matcher.is_none_or(|x| x.rest_passes(rest)),
                body != Body::Full,
                compact,
                |rest, single, r| {
                    f(read_body(r, month * PER_MONTH + rest, ended, body, single)?);
                    Ok(())
                },
            )
        },
    )
}

/// Walks a move's months part: each month that passes `matcher`'s dates, as a cell of rest 0
/// (of its body as much as `body` asks).
fn walk_months(
    bytes: &[u8],
    mv: u16,
    matcher: &Matcher,
    body: Body,
    compact: bool,
    mut f: impl FnMut(Cell),
) -> Result<(), StoreError> {
    let ended = mv == END_OF_GAME;
    walk_part(
        bytes,
        MONTH_LIMIT,
        |m| matcher.month_passes(m),
        body != Body::Full,
        compact,
        |month, single, r| {
            f(read_body(r, month * PER_MONTH, ended, body, single)?);
            Ok(())
        },
    )
}

/// Reads a total body.
fn read_total(r: &mut Reader<'_>, ended: bool) -> Result<Total, StoreError> {
    let counts = r.counts()?;
    let first = match r.int::<u32>()? {
        0 => None,
        m => Some((m, r.int()?, r.int()?)),
    };
    let last = match r.int::<u32>()? {
        0 => None,
        m => Some((m, r.int()?)),
    };
    Ok(Total {
        counts,
        first,
        last,
        year_sum: r.u64()?,
        dated: r.u64()?,
        endings: if ended {
            read_endings(r)?
        } else {
            [0; ENDINGS]
        },
    })
}

/// Walks a move's rests part: each rest that passes `matcher`, with its sums (with
/// [`Body::Games`] its games alone, the rest of each body skipped).
fn walk_rests(
    bytes: &[u8],
    mv: u16,
    matcher: &Matcher,
    body: Body,
    mut f: impl FnMut(u32, Total),
) -> Result<(), StoreError> {
    let ended = mv == END_OF_GAME;
    walk_part(
        bytes,
        PER_MONTH,
        |rest| matcher.rest_passes(rest),
        body == Body::Games,
        false,
        |rest, _, r| {
            let t = if body == Body::Games {
                Total {
                    counts: GameCounts {
                        games: r.u64()?,
                        ..GameCounts::default()
                    },
                    ..Total::default()
                }
            } else {
                read_total(r, ended)?
            };
            f(rest, t);
            Ok(())
        },
    )
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

    /// Many games (`n`) in few rests and months, so that every part is written.
    fn many_games(n: i64) -> Vec<(u16, i64, GameFacts)> {
        let moves = [
            "h2e2".parse::<Move>().unwrap().to_u16(),
            "c3c4".parse::<Move>().unwrap().to_u16(),
            END_OF_GAME,
        ];
        let dates = [
            None,
            Some("2001"),
            Some("2001-03"),
            Some("2001-03-09"),
            Some("2019-11-30"),
        ];
        let speeds = [None, Some(Speed::Blitz), Some(Speed::Classical)];
        let mut x: u64 = 12345;
        let mut next = |n: u64| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) % n
        };
        (0..n)
            .map(|i| {
                let result = match next(4) {
                    0 => None,
                    1 => Some(Outcome::Draw),
                    2 => Some(Outcome::Decisive {
                        winner: Color::First,
                    }),
                    _ => Some(Outcome::Decisive {
                        winner: Color::Second,
                    }),
                };
                let ratings = [
                    (next(3) > 0).then(|| 1500 + 400 * next(3) as u32),
                    (next(2) > 0).then_some(2100),
                ];
                let g = GameFacts::new(
                    result,
                    ratings,
                    dates[next(5) as usize],
                    speeds[next(3) as usize],
                    (next(2) == 0).then_some(Mode::Casual),
                    (next(3) == 0).then_some(Termination::Mate),
                );
                (moves[next(3) as usize], 5000 - i, g)
            })
            .collect()
    }

    /// Filters of every kind: none, dates, ratings, speed and mode, all.
    fn some_filters() -> [BucketFilter; 6] {
        let m = |s: &str| Some(s.parse().unwrap());
        [
            BucketFilter::default(),
            BucketFilter {
                since: m("2001-03"),
                ..BucketFilter::default()
            },
            BucketFilter {
                until: m("2001"),
                ..BucketFilter::default()
            },
            BucketFilter {
                min_rating: Some(1900),
                ..BucketFilter::default()
            },
            BucketFilter {
                speeds: vec![Speed::Blitz],
                modes: vec![Mode::Casual],
                ..BucketFilter::default()
            },
            BucketFilter {
                since: m("2001"),
                max_rating: Some(2000),
                speeds: vec![Speed::Classical],
                ..BucketFilter::default()
            },
        ]
    }

    #[test]
    fn every_part_sums_like_the_cells_and_format_2_still_decodes() {
        let games = many_games(600);
        let mut b = Buckets::default();
        b.add(games.clone());
        let blob = b.encode();
        let (dir, compact) = directory(&mut &blob[..]).unwrap();
        assert!(compact);
        assert!(dir
            .iter()
            .all(|p| !p.rests.is_empty() && !p.months.is_empty()));
        // 600 games: no entry of every game, its questions sum the moves.
        assert!(dir.iter().all(|p| p.code != ALL_GAMES));
        assert_eq!(Buckets::decode(&blob).unwrap(), b);
        // The same cells without their collapsed parts (as a position of few games writes
        // them): every question must get the same answer from the cells alone.
        let mut cells_only = Vec::new();
        let mut dir_bytes = Vec::new();
        varint::put(&mut dir_bytes, b.moves.len() as u64);
        let mut body = Vec::new();
        for (mv, cells) in &b.moves {
            let start = body.len();
            put_cells(&mut body, cells, *mv == END_OF_GAME, true);
            varint::put(&mut dir_bytes, u64::from(*mv));
            for n in [0, 0, body.len() - start] {
                varint::put(&mut dir_bytes, n as u64);
            }
        }
        varint::put(&mut cells_only, BUCKETS_FORMAT);
        varint::put(&mut cells_only, dir_bytes.len() as u64);
        cells_only.extend_from_slice(&dir_bytes);
        cells_only.extend_from_slice(&body);
        assert!(cells_only.len() < blob.len());
        assert_eq!(Buckets::decode(&cells_only).unwrap(), b);
        // Format 3 (every body in full) answers the same.
        let full = b.encode_in(FORMAT_3);
        assert_eq!(Buckets::decode(&full).unwrap(), b);
        let filters = some_filters();
        for f in &filters {
            let matcher = f.matcher();
            let got = sum(&mut &blob[..], &matcher).unwrap();
            assert_eq!(got, sum(&mut &cells_only[..], &matcher).unwrap(), "{f:?}");
            assert_eq!(got, sum(&mut &full[..], &matcher).unwrap(), "{f:?}");
            // Against the games themselves.
            let passing: Vec<_> = games
                .iter()
                .filter(|g| matcher.passes(g.2.bucket))
                .collect();
            assert!(!passing.is_empty(), "{f:?}");
            assert_eq!(
                got.rows.iter().map(|r| r.counts.games).sum::<u64>(),
                passing.len() as u64
            );
            let all = total(&mut &blob[..], &matcher).unwrap();
            assert_eq!(all, passing.len() as u64, "{f:?}");
            assert_eq!(all, total(&mut &cells_only[..], &matcher).unwrap());
            assert_eq!(all, total(&mut &full[..], &matcher).unwrap());
            let dated = got.history.iter().map(|h| h.games).sum::<u64>();
            let calendar = passing
                .iter()
                .filter(|g| calendar_month(g.2.month()).is_some())
                .count();
            assert_eq!(dated, calendar as u64, "{f:?}");
            for row in &got.rows {
                let code = super::super::links::move_code(row.mv);
                let mine: Vec<_> = passing.iter().filter(|g| g.0 == code).collect();
                assert_eq!(row.counts.games, mine.len() as u64);
                let first = mine
                    .iter()
                    .filter(|g| g.2.month() > 0)
                    .min_by_key(|g| (g.2.month(), g.2.day, g.1))
                    .unwrap();
                assert_eq!(row.first_game, Some(first.1), "{f:?}");
                let mates = mine
                    .iter()
                    .filter(|g| g.2.termination == Some(Termination::Mate))
                    .count() as u64;
                if code == END_OF_GAME {
                    assert_eq!(row.endings[Termination::Mate.code() as usize], mates);
                }
            }
        }
        // A format-2 blob (what schema 9 stored) decodes to the same model.
        let mut old = Vec::new();
        varint::put(&mut old, OLD_FORMAT);
        varint::put(&mut old, b.moves.len() as u64);
        for (mv, cells) in &b.moves {
            let mut part = Vec::new();
            put_cells(&mut part, cells, *mv == END_OF_GAME, false);
            varint::put(&mut old, u64::from(*mv));
            varint::put(&mut old, part.len() as u64);
            old.extend_from_slice(&part);
        }
        assert_eq!(Buckets::decode(&old).unwrap(), b);
        assert!(sum(&mut &old[..], &filters[1].matcher()).is_err());
        // Damage anywhere is an error, never a panic.
        for cut in [1, 5, blob.len() / 2, blob.len() - 1] {
            assert!(sum(&mut &blob[..cut], &filters[3].matcher()).is_err());
            assert!(total(&mut &blob[..cut], &filters[1].matcher()).is_err());
            assert!(Buckets::decode(&blob[..cut]).is_err());
        }
        let mut flipped = blob.clone();
        for i in (0..flipped.len()).step_by(7) {
            flipped[i] ^= 0x55;
            let _ = sum(&mut &flipped[..], &filters[5].matcher());
            let _ = total(&mut &flipped[..], &filters[4].matcher());
            let _ = Buckets::decode(&flipped);
            flipped[i] ^= 0x55;
        }
    }

    /// The history and the games of `games` that pass `matcher`, counted from the games.
    fn counted(games: &[(u16, i64, GameFacts)], matcher: &Matcher) -> (u64, Vec<MonthCounts>) {
        let mut history: Vec<MonthCounts> = Vec::new();
        let mut n = 0;
        for (_, _, g) in games.iter().filter(|g| matcher.passes(g.2.bucket)) {
            n += 1;
            let Some((year, month)) = calendar_month(g.month()) else {
                continue;
            };
            let mut c = GameCounts::default();
            c.add_game(g.result, g.ratings);
            match history
                .iter_mut()
                .find(|h| (h.year, h.month) == (year, month))
            {
                Some(h) => h.add(&c),
                None => {
                    let mut h = MonthCounts {
                        year,
                        month,
                        ..MonthCounts::default()
                    };
                    h.add(&c);
                    history.push(h);
                }
            }
        }
        history.sort_by_key(|h| (h.year, h.month));
        (n, history)
    }

    /// Format 5 keeps no cells for the entry of every game: its answers (the games through
    /// the position, the history) are the moves' sums, or of a position of more than
    /// `ALL_PARTS_FROM` games its own rests and months parts; they equal format 4's (the entry
    /// in full) and a count of the games, and format 4 decodes to the same moves.
    #[test]
    fn format_5_sums_the_moves_as_format_4_its_entry_of_every_game() {
        let filters = some_filters();
        for n in [40, 600, 1500] {
            let mut games = many_games(n);
            if n > ALL_PARTS_FROM as i64 {
                // Spread over 300 months from 2000: few games a bucket.
                for (i, g) in games.iter_mut().enumerate() {
                    let month = 1 + 2000 * 13 + (i as u32 % 300);
                    g.2.bucket = month * PER_MONTH + g.2.bucket % PER_MONTH;
                }
            }
            let mut b = Buckets::default();
            b.add(games.clone());
            assert!(b.moves.iter().all(|m| m.0 != ALL_GAMES));
            let five = b.encode();
            let four = b.encode_in(FORMAT_4);
            assert!(five.len() < four.len(), "{n}");
            assert_eq!(Buckets::decode(&five).unwrap(), b);
            assert_eq!(Buckets::decode(&four).unwrap(), b);
            let (dir, _) = directory(&mut &five[..]).unwrap();
            let every = dir.iter().find(|p| p.code == ALL_GAMES);
            if n > ALL_PARTS_FROM as i64 {
                // Few games a bucket here: no cells.
                let e = every.unwrap();
                assert!(e.cells.is_empty() && !e.rests.is_empty() && !e.months.is_empty());
            } else {
                assert!(every.is_none(), "{n}");
            }
            let (dir4, _) = directory(&mut &four[..]).unwrap();
            assert!(dir4
                .iter()
                .any(|p| p.code == ALL_GAMES && !p.cells.is_empty()));
            for f in &filters {
                let matcher = f.matcher();
                let (passing, history) = counted(&games, &matcher);
                let got = sum(&mut &five[..], &matcher).unwrap();
                assert_eq!(got, sum(&mut &four[..], &matcher).unwrap(), "{n} {f:?}");
                assert_eq!(got.history, history, "{n} {f:?}");
                assert_eq!(
                    got.rows.iter().map(|r| r.counts.games).sum::<u64>(),
                    passing
                );
                assert_eq!(total(&mut &five[..], &matcher).unwrap(), passing, "{f:?}");
                assert_eq!(total(&mut &four[..], &matcher).unwrap(), passing, "{f:?}");
            }
        }
        // Many games a bucket (the same day for all): the entry keeps its cells.
        let same: Vec<_> = many_games(3000)
            .into_iter()
            .map(|(mv, id, g)| (mv, id, GameFacts { day: 1, ..g }))
            .collect();
        let mut b = Buckets::default();
        b.add(same.clone());
        let five = b.encode();
        let (dir, _) = directory(&mut &five[..]).unwrap();
        assert!(dir
            .iter()
            .any(|p| p.code == ALL_GAMES && !p.cells.is_empty()));
        assert_eq!(Buckets::decode(&five).unwrap(), b);
        for f in &filters {
            let matcher = f.matcher();
            let (passing, history) = counted(&same, &matcher);
            let got = sum(&mut &five[..], &matcher).unwrap();
            assert_eq!(got.history, history, "{f:?}");
            assert_eq!(total(&mut &five[..], &matcher).unwrap(), passing, "{f:?}");
        }
    }
}
