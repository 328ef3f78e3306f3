//! The buckets blob of a busy position (`positions.buckets`): for every move (and for the
//! games that ended there) the sums of its games per bucket (month of play, rating band,
//! speed, mode; see `filter`), only the buckets that hold games. A filtered question about a
//! busy position is a sum over the buckets that pass, without reading a game. No SQL here.
//!
//! Frozen layout (format 1; any change is a new format number):
//!
//! ```text
//! buckets = varint 1 (format)
//!           varint n, then n × move, by move code
//! move    = varint move code (65535 = the game ended here), varint c, then c × cell,
//!           by bucket
//! cell    = varint (bucket − previous bucket of the move, the first from 0)
//!           varint length of the body in bytes (so that a cell that does not pass is skipped)
//!           body = varint games, first_wins, draws, second_wins, rating_sum, rating_count,
//!                  first day, last day (0–31, 0 = a date without a day)
//! ```
//!
//! The dates of a cell's games share its month, so the first and last dates are the month and
//! the smallest and greatest day (a date without a day sorts first, as its text does).
//!
//! The layout is simple to produce from rows sorted by (key, move, bucket): one cell per
//! distinct (move, bucket), its sums, its day range.

use super::{
    filter::{date_text, Matcher, PER_MONTH},
    game_facts::GameFacts,
    links::move_from_code,
    model::{GameCounts, MoveRow},
    varint::{self, Reader},
    StoreError,
};

const BUCKETS_FORMAT: u64 = 1;

/// The games of one move in one bucket.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Cell {
    pub bucket: u32,
    pub counts: GameCounts,
    pub first_day: u8,
    pub last_day: u8,
}

/// A busy position's sums per (move, bucket).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Buckets {
    /// By move code; each move's cells by bucket.
    pub moves: Vec<(u16, Vec<Cell>)>,
}

impl Buckets {
    /// Counts games, each with the move code it played here: sorted by (move, bucket) and
    /// merged with the cells in one pass (inserting them one by one would shift a busy
    /// position's tens of thousands of cells for every new one).
    pub(super) fn add(&mut self, games: &mut [(u16, GameFacts)]) {
        games.sort_unstable_by_key(|(mv, g)| (*mv, g.bucket));
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
            for (_, g) in group {
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
                            ..Cell::default()
                        });
                        cells.push(c);
                        let n = cells.len();
                        &mut cells[n - 1]
                    }
                };
                c.counts.add_game(g.result, g.ratings);
                c.first_day = c.first_day.min(g.day);
                c.last_day = c.last_day.max(g.day);
            }
            cells.extend(old);
            self.moves[i].1 = cells;
        }
    }

    /// The blob stored in `positions.buckets`.
    pub(super) fn encode(&self) -> Vec<u8> {
        let cells: usize = self.moves.iter().map(|m| m.1.len()).sum();
        let mut out = Vec::with_capacity(8 + self.moves.len() * 4 + cells * 12);
        let mut body = Vec::with_capacity(32);
        varint::put(&mut out, BUCKETS_FORMAT);
        varint::put(&mut out, self.moves.len() as u64);
        for (mv, cells) in &self.moves {
            varint::put(&mut out, u64::from(*mv));
            varint::put(&mut out, cells.len() as u64);
            let mut prev = 0;
            for c in cells {
                varint::put(&mut out, u64::from(c.bucket - prev));
                prev = c.bucket;
                body.clear();
                varint::put_counts(&mut body, &c.counts);
                varint::put(&mut body, u64::from(c.first_day));
                varint::put(&mut body, u64::from(c.last_day));
                varint::put(&mut out, body.len() as u64);
                out.extend_from_slice(&body);
            }
        }
        out
    }

    /// The inverse of [`Buckets::encode`].
    pub(super) fn decode(bytes: &[u8]) -> Result<Buckets, StoreError> {
        let mut moves: Vec<(u16, Vec<Cell>)> = Vec::new();
        walk(bytes, None, |item| {
            match item {
                Item::Move(mv, cells) => moves.push((mv, Vec::with_capacity(cells.min(1 << 16)))),
                Item::Cell(cell) => {
                    if let Some(m) = moves.last_mut() {
                        m.1.push(cell);
                    }
                }
            }
            Ok(())
        })?;
        Ok(Buckets { moves })
    }
}

/// The sums of the cells that pass `matcher`, one row per move that keeps games (by move
/// code), read straight from the blob.
pub(super) fn sum(bytes: &[u8], matcher: &Matcher) -> Result<Vec<MoveRow>, StoreError> {
    let mut rows: Vec<MoveRow> = Vec::new();
    // Per row: the smallest and greatest (month, day) seen.
    let mut spans: Vec<(u64, u64)> = Vec::new();
    walk(bytes, Some(matcher), |item| {
        match item {
            Item::Move(mv, _) => {
                rows.push(MoveRow {
                    mv: move_from_code(mv)?,
                    ..MoveRow::default()
                });
                spans.push((u64::MAX, 0));
            }
            Item::Cell(cell) => {
                if let (Some(row), Some(span)) = (rows.last_mut(), spans.last_mut()) {
                    row.counts.merge(&cell.counts);
                    let month = u64::from(cell.bucket / PER_MONTH);
                    if month > 0 {
                        span.0 = span.0.min(month << 8 | u64::from(cell.first_day));
                        span.1 = span.1.max(month << 8 | u64::from(cell.last_day));
                    }
                }
            }
        }
        Ok(())
    })?;
    let text = |v: u64| date_text((v >> 8) as u32, v as u8);
    Ok(rows
        .into_iter()
        .zip(spans)
        .filter(|(r, _)| r.counts.games > 0)
        .map(|(mut r, (lo, hi))| {
            if lo != u64::MAX {
                r.first_date = text(lo);
                r.last_date = text(hi);
            }
            r
        })
        .collect())
}

/// What [`walk`] meets in a blob.
enum Item {
    /// A move code and how many cells it has.
    Move(u16, usize),
    /// One of the move's cells.
    Cell(Cell),
}

/// Reads a buckets blob: each move, then each of its cells that passes `matcher` (every cell
/// without one); the others are skipped unread.
fn walk(
    bytes: &[u8],
    matcher: Option<&Matcher>,
    mut f: impl FnMut(Item) -> Result<(), StoreError>,
) -> Result<(), StoreError> {
    let mut r = Reader::new(bytes, "buckets");
    let format = r.u64()?;
    if format != BUCKETS_FORMAT {
        return Err(StoreError::Corrupt(format!(
            "buckets blob: unknown format {format}"
        )));
    }
    let n: usize = r.int()?;
    let mut prev_mv = None;
    for _ in 0..n {
        let mv: u16 = r.int()?;
        if prev_mv.is_some_and(|p| p >= mv) {
            return Err(StoreError::Corrupt(
                "buckets blob: moves out of order".into(),
            ));
        }
        prev_mv = Some(mv);
        let c: usize = r.int()?;
        f(Item::Move(mv, c))?;
        let mut bucket: u32 = 0;
        for i in 0..c {
            let delta: u32 = r.int()?;
            if i > 0 && delta == 0 {
                return Err(StoreError::Corrupt("buckets blob: repeated bucket".into()));
            }
            bucket = bucket
                .checked_add(delta)
                .ok_or_else(|| StoreError::Corrupt("buckets blob: bucket overflow".into()))?;
            let len: usize = r.int()?;
            if matcher.is_some_and(|m| !m.passes(bucket)) {
                r.skip(len)?;
                continue;
            }
            let end = r.offset() + len;
            let counts = r.counts()?;
            let (first_day, last_day): (u8, u8) = (r.int()?, r.int()?);
            if r.offset() != end {
                return Err(StoreError::Corrupt("buckets blob: bad cell length".into()));
            }
            f(Item::Cell(Cell {
                bucket,
                counts,
                first_day,
                last_day,
            }))?;
        }
    }
    if !r.is_empty() {
        return Err(StoreError::Corrupt("buckets blob: trailing bytes".into()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        formats::facts::{Mode, Speed},
        rules::{Color, Move, Outcome},
        store::{filter::BucketFilter, END_OF_GAME},
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
                None,
            );
            let mv = if i == 7 { END_OF_GAME } else { h2e2 };
            games.push((mv, g, i % 4 != 0));
        }
        // Added in three lots, as three batches would, merging into the cells of the first.
        for lot in [0..20, 20..21, 21..50] {
            let mut lot: Vec<(u16, GameFacts)> =
                games[lot].iter().map(|(mv, g, _)| (*mv, *g)).collect();
            b.add(&mut lot);
        }
        let mut one_by_one = Buckets::default();
        for (mv, g, _) in games.iter().rev() {
            one_by_one.add(&mut [(*mv, *g)]);
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
        let rows = sum(&blob, &filter.matcher()).unwrap();
        // Counted by hand from the same games.
        let mut want = MoveRow {
            mv: Some("h2e2".parse().unwrap()),
            ..MoveRow::default()
        };
        let mut ended = MoveRow::default();
        for (mv, g, blitz) in &games {
            let date = g.date().unwrap();
            let n = date.len().min(7);
            let mean = match g.ratings {
                [Some(a), Some(b)] => (a + b) / 2,
                [Some(a), None] => a,
                _ => 0,
            };
            if date[..n] >= "2020-06"[..n] && mean >= 2000 && *blitz {
                let row = if *mv == h2e2 { &mut want } else { &mut ended };
                row.add_game(g.result, g.ratings, Some(&date));
            }
        }
        assert!(want.counts.games > 0 && ended.counts.games == 1);
        assert_eq!(rows, vec![want, ended]);
        let mut bad = blob.clone();
        bad.push(0);
        assert!(sum(&bad, &filter.matcher()).is_err());
        assert!(Buckets::decode(&blob[..blob.len() - 1]).is_err());
    }
}
