//! Answering from a buckets blob (see the layout in `buckets`): the moves' rows and the
//! history of the games through a busy position under a filter ([`sum`]), and their number
//! ([`total`]), each read from the smallest parts that answer (the walks are `walk.rs`'s).
//! Nothing is decoded whole and nothing written; no SQL here.

use std::ops::Range;

use super::{
    walk::{directory, walk_cells, walk_months, walk_rests, Body, Part, Parts},
    Cell, Source, Total, ALL_GAMES,
};
use crate::store::{
    filter::{calendar_month, date_text, Matcher, PER_MONTH},
    links::move_from_code,
    model::{GameCounts, MonthCounts, MoveRow},
    StoreError,
};

/// What [`sum`] counts of a blob: the moves' rows and the position's history.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(in crate::store) struct Summed {
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
pub(in crate::store) fn add_to_history(
    history: &mut Vec<MonthCounts>,
    month: u32,
    counts: &GameCounts,
) {
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
pub(in crate::store) fn sum(
    src: &mut impl Source,
    matcher: &Matcher,
) -> Result<Summed, StoreError> {
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
pub(in crate::store) fn total(src: &mut impl Source, matcher: &Matcher) -> Result<u64, StoreError> {
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

#[cfg(test)]
mod tests {
    use super::{
        super::{
            encode::put_cells,
            fixtures::{many_games, some_filters},
            legacy::FORMAT_3,
            Buckets, BUCKETS_FORMAT,
        },
        *,
    };
    use crate::{
        formats::facts::Termination,
        store::{varint, END_OF_GAME},
    };

    #[test]
    fn every_part_sums_like_the_cells() {
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
                let code = crate::store::links::move_code(row.mv);
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
}
