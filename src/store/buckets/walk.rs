//! Reading a buckets blob (see the layout in `buckets`): its directory (where each move's
//! rests, months and cells parts are), the walks of each part that read only the sums a
//! filter lets through, and the decoding of a whole blob back into the model. It reads
//! formats 3, 4 and 5 (format 2 only through `legacy.rs`); what the sums answer is
//! `sum.rs`'s. No SQL here, and nothing written.

use std::ops::Range;

use super::{
    corrupt,
    legacy::{self, FORMAT_3, FORMAT_4, OLD_FORMAT},
    Buckets, Cell, Source, Total, ALL_GAMES, BUCKETS_FORMAT,
};
use crate::store::{
    codec::{result_from_code, END_OF_GAME},
    filter::{Matcher, PER_MONTH},
    model::{GameCounts, ENDINGS},
    varint::Reader,
    StoreError,
};

/// Which sums of a move a part holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Part {
    /// Per rest, the months collapsed.
    Rests,
    /// Per month, the rests collapsed.
    Months,
    /// Per bucket.
    Cells,
}

/// One move of the directory: its code and where its parts are in the blob.
#[derive(Clone, Debug)]
pub(super) struct Parts {
    pub code: u16,
    pub rests: Range<usize>,
    pub months: Range<usize>,
    pub cells: Range<usize>,
}

impl Parts {
    /// The part that answers `want`, or the cells when that part is left out.
    pub(super) fn pick(&self, want: Part) -> (Part, Range<usize>) {
        match want {
            Part::Rests if !self.rests.is_empty() => (Part::Rests, self.rests.clone()),
            Part::Months if !self.months.is_empty() => (Part::Months, self.months.clone()),
            _ => (Part::Cells, self.cells.clone()),
        }
    }
}

/// Reads the next move code of a list kept by code: above `prev`, which it becomes.
pub(super) fn next_move(r: &mut Reader<'_>, prev: &mut Option<u16>) -> Result<u16, StoreError> {
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
pub(super) fn directory(src: &mut impl Source) -> Result<(Vec<Parts>, bool), StoreError> {
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

impl Buckets {
    /// The inverse of [`Buckets::encode`] (its cells parts; formats 2–4 are read too, their
    /// entry of every game left out; format 2 by `legacy.rs`).
    pub(in crate::store) fn decode(bytes: &[u8]) -> Result<Buckets, StoreError> {
        let mut r = Reader::new(bytes, "buckets");
        if r.u64()? == OLD_FORMAT {
            return legacy::decode_format_2(bytes);
        }
        let mut src = bytes;
        let (dir, compact) = directory(&mut src)?;
        let mut moves: Vec<(u16, Vec<Cell>)> = Vec::new();
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
pub(super) enum Body {
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
pub(super) fn walk_cells(
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
pub(super) fn walk_months(
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
pub(super) fn walk_rests(
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
