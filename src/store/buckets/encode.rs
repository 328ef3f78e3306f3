//! Writing a buckets blob (see the layout in `buckets`): a move's cells, month and rest sums,
//! and the entry of every game, in format 5 (and, for the tests of the migrations, the
//! formats 3 and 4 the schemas before 14 wrote). It owns the byte layout on the writing
//! side only; reading is `walk.rs`'s. No SQL here, and nothing read back.

use std::borrow::Cow;

use super::{
    legacy::FORMAT_3, merge_cell, Buckets, Cell, Total, ALL_GAMES, ALL_PARTS_FROM, BUCKETS_FORMAT,
};
use crate::store::{
    codec::{result_code, result_from_code, END_OF_GAME},
    filter::PER_MONTH,
    model::{GameCounts, ENDINGS},
    varint,
};

fn put_endings(out: &mut Vec<u8>, endings: &[u64; ENDINGS]) {
    varint::put(out, endings.iter().filter(|n| **n > 0).count() as u64);
    for (code, n) in endings.iter().enumerate().filter(|e| *e.1 > 0) {
        varint::put(out, code as u64);
        varint::put(out, *n);
    }
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
pub(super) fn put_cells(out: &mut Vec<u8>, cells: &[Cell], ended: bool, compact: bool) {
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
    /// The blob stored in `positions.buckets` (format 5, see the module doc).
    pub(in crate::store) fn encode(&self) -> Vec<u8> {
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
    pub(super) fn encode_in(&self, format: u64) -> Vec<u8> {
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
}
