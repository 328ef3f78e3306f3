//! The full game lists of a big busy position (`position_lists`, schema 11): every game
//! through a position of more than [`LISTS_FROM`] games, by filter cell, so that its best and
//! latest games under any filter are exact without reading its other games.
//!
//! A summary keeps a position's best 100 and latest 100 games; a filter that lets fewer than
//! the asked number of those pass (`--until 2000` at the start position: its latest 100 are
//! all recent) needs the others. The buckets tell how many games of each cell (month × rest,
//! see `filter`) pass; this blob lists the games of each cell, best first, with what the two
//! orders need (top score, day, move), and a directory of the cells with the best score of
//! each, so that an answer reads the directory, then only the cells that pass and can hold a
//! listed game. No SQL beyond this table's.
//!
//! Frozen layout (format 1):
//!
//! ```text
//! lists     = varint 1 (format), varint h (byte length of the head), head, bodies
//! head      = varint n, then n × varint move code (ascending; an entry's move is its index),
//!             varint m, then m × month, by month code ascending
//! month     = varint month code − previous (the first from 0), varint c, then c × cell, by rest
//! cell      = varint rest − previous rest of the month (the first from 0),
//!             varint byte length of its body, varint rank of its first (best) game
//! bodies    = every cell's body in head order: its games best first (top score descending,
//!             then id ascending), the first as (varint id, varint move index), the others
//!             as (varint id, varint move index, varint rank)
//! rank      = ((((rating × 32 + day) × 4 + names and result) × 2 + odd), and when odd
//!             varint date number: the top score (`store::top_score`) is
//!             names and result << 61 | rating × 10^8 + date number, the date number
//!             `YYYYMMDD` of the cell's month and the game's day unless odd
//! ```

use std::ops::Range;

use rusqlite::OptionalExtension;

use super::{
    buckets::Source,
    filter::{Matcher, PER_MONTH},
    game_facts::GameFacts,
    links::Link,
    read::{at_position, BlobRow, Through},
    summary::Facts,
    varint::{self, Reader},
    Store, StoreError,
};

/// The best and the latest games of a position, as [`Store::listed`] reads them.
pub(super) type Listed = (Vec<Item>, Vec<Item>);

/// Positions with more games than this keep their full lists (fewer are answered by reading
/// their games).
pub(super) const LISTS_FROM: usize = 1_000;

const FORMAT: u64 = 1;
const RATING_UNIT: u64 = 100_000_000;
const LOW_BITS: u64 = (1 << 61) - 1;

/// A big position's lists.
const LISTS_OF: &str = "SELECT lists FROM position_lists WHERE key = ?1";
/// Stores a big position's lists.
const REPLACE_LISTS: &str = "INSERT OR REPLACE INTO position_lists (key, lists) VALUES (?1, ?2)";
/// Drops a position's lists.
const DELETE_LISTS: &str = "DELETE FROM position_lists WHERE key = ?1";
/// Whether the table exists (the migrations before schema 11 write positions without it).
const HAS_LISTS: &str =
    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'position_lists'";

/// One game of a position as the lists keep it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Item {
    /// The game's id.
    pub id: i64,
    /// The move it played at the position (`links::move_code`).
    pub mv: u16,
    /// Its filter bucket.
    pub bucket: u32,
    /// Its day of the month (0 = none).
    pub day: u8,
    /// Its top score ([`super::top_score`]).
    pub score: u64,
}

impl Item {
    /// The item of a game that played `mv` here.
    pub(super) fn of(id: i64, mv: u16, facts: &Facts<'_>, g: &GameFacts) -> Item {
        Item {
            id,
            mv,
            bucket: g.bucket,
            day: g.day,
            score: facts.top_score(),
        }
    }

    /// The item of a game read from the store.
    pub(super) fn of_through(l: &Link, t: &Through) -> Item {
        let facts = t.facts();
        Item::of(l.game, l.mv, &facts, &facts.game_facts())
    }

    /// Best first: the higher score, then the smaller id.
    fn best_key(&self) -> (std::cmp::Reverse<u64>, i64) {
        (std::cmp::Reverse(self.score), self.id)
    }

    /// Latest first: the greater month code, day, then id.
    fn recent_key(&self) -> std::cmp::Reverse<(u32, u8, i64)> {
        std::cmp::Reverse((self.bucket / PER_MONTH, self.day, self.id))
    }
}

/// `YYYYMMDD` of a month code and a day, as `store::top_score` counts a stored date.
fn date_number(month: u32, day: u8) -> u64 {
    match month.checked_sub(1) {
        None => 0,
        Some(c) => u64::from(c / 13) * 10_000 + u64::from(c % 13) * 100 + u64::from(day),
    }
}

/// An item's rank as stored, and its date number when that is not its cell's.
fn rank_of(it: &Item) -> (u64, Option<u64>) {
    score_rank(it.score, it.bucket / PER_MONTH, it.day)
}

/// A top score as a rank (see the module doc) of a game of month code `month` and day `day`,
/// and its date number when that is not theirs.
fn score_rank(score: u64, month: u32, day: u8) -> (u64, Option<u64>) {
    let flags = score >> 61;
    let low = score & LOW_BITS;
    let (rating, dn) = (low / RATING_UNIT, low % RATING_UNIT);
    let odd = dn != date_number(month, day);
    let rank = (((rating << 5 | u64::from(day)) << 2 | flags) << 1) | u64::from(odd);
    (rank, odd.then_some(dn))
}

/// Appends a top score of a game of month code `month` as a rank (for a list that keeps no
/// day: the day its date number gives, else 0); [`read_rank`] reads it back.
pub(super) fn put_score(out: &mut Vec<u8>, score: u64, month: u32) {
    let day = ((score & LOW_BITS) % RATING_UNIT % 100) as u8;
    let (rank, dn) = score_rank(score, month, if day <= 31 { day } else { 0 });
    varint::put(out, rank);
    if let Some(dn) = dn {
        varint::put(out, dn);
    }
}

/// Reads a rank: the day and the top score.
pub(super) fn read_rank(r: &mut Reader<'_>, month: u32) -> Result<(u8, u64), StoreError> {
    let rank = r.u64()?;
    let odd = rank & 1 == 1;
    let flags = (rank >> 1) & 3;
    let day = ((rank >> 3) & 31) as u8;
    let rating = rank >> 8;
    let dn = if odd {
        r.u64()?
    } else {
        date_number(month, day)
    };
    let low = rating
        .checked_mul(RATING_UNIT)
        .and_then(|x| x.checked_add(dn))
        .filter(|&x| x <= LOW_BITS && dn < RATING_UNIT)
        .ok_or_else(|| StoreError::Corrupt("lists blob: bad rank".into()))?;
    Ok((day, flags << 61 | low))
}

/// The blob of some games (any order; a game once).
pub(super) fn encode(items: &mut [Item]) -> Vec<u8> {
    items.sort_by_key(|it| (it.bucket, it.best_key()));
    let mut moves: Vec<u16> = items.iter().map(|it| it.mv).collect();
    moves.sort_unstable();
    moves.dedup();
    let index = |mv: u16| moves.binary_search(&mv).unwrap_or(0) as u64;
    let mut head = Vec::new();
    varint::put(&mut head, moves.len() as u64);
    for &m in &moves {
        varint::put(&mut head, u64::from(m));
    }
    let mut bodies = Vec::new();
    let months: Vec<&[Item]> = items
        .chunk_by(|a, b| a.bucket / PER_MONTH == b.bucket / PER_MONTH)
        .collect();
    varint::put(&mut head, months.len() as u64);
    let mut prev_month = 0;
    for month in months {
        let code = month[0].bucket / PER_MONTH;
        varint::put(&mut head, u64::from(code - prev_month));
        prev_month = code;
        let cells: Vec<&[Item]> = month.chunk_by(|a, b| a.bucket == b.bucket).collect();
        varint::put(&mut head, cells.len() as u64);
        let mut prev_rest = 0;
        for cell in cells {
            let rest = cell[0].bucket % PER_MONTH;
            let start = bodies.len();
            for (i, it) in cell.iter().enumerate() {
                varint::put(&mut bodies, it.id as u64);
                varint::put(&mut bodies, index(it.mv));
                if i > 0 {
                    put_rank(&mut bodies, it);
                }
            }
            varint::put(&mut head, u64::from(rest - prev_rest));
            prev_rest = rest;
            varint::put(&mut head, (bodies.len() - start) as u64);
            put_rank(&mut head, &cell[0]);
        }
    }
    let mut out = Vec::with_capacity(head.len() + bodies.len() + 8);
    varint::put(&mut out, FORMAT);
    varint::put(&mut out, head.len() as u64);
    out.extend_from_slice(&head);
    out.extend_from_slice(&bodies);
    out
}

fn put_rank(out: &mut Vec<u8>, it: &Item) {
    let (rank, dn) = rank_of(it);
    varint::put(out, rank);
    if let Some(dn) = dn {
        varint::put(out, dn);
    }
}

/// A cell of the head: its bucket, its best game's day and score, its body's bytes in the blob.
struct Cell {
    bucket: u32,
    head_day: u8,
    head_score: u64,
    body: Range<usize>,
}

/// The head of a lists blob: the move codes and the cells that pass.
struct Head {
    moves: Vec<u16>,
    cells: Vec<Cell>,
}

fn corrupt(what: &str) -> StoreError {
    StoreError::Corrupt(format!("lists blob: {what}"))
}

/// Reads the head of a lists blob, keeping the cells whose bucket `keep` says.
fn read_head<S: Source>(src: &mut S, keep: impl Fn(u32) -> bool) -> Result<Head, StoreError> {
    let len = src.len();
    let (h, at) = {
        let first = src.read(0..len.min(20))?;
        let mut r = Reader::new(&first, "lists blob");
        if r.u64()? != FORMAT {
            return Err(corrupt("unknown format"));
        }
        let h: usize = r.int()?;
        (h, r.offset())
    };
    let end = at
        .checked_add(h)
        .filter(|&e| e <= len)
        .ok_or_else(|| corrupt("truncated"))?;
    let bytes = src.read(at..end)?;
    let mut r = Reader::new(&bytes, "lists blob");
    let n: usize = r.int()?;
    let mut moves = Vec::with_capacity(n.min(1 << 12));
    for _ in 0..n {
        moves.push(r.int()?);
    }
    let m: usize = r.int()?;
    let (mut month, mut offset) = (0u32, end);
    let mut cells = Vec::new();
    for _ in 0..m {
        month = month
            .checked_add(r.int()?)
            .ok_or_else(|| corrupt("bad month"))?;
        let c: usize = r.int()?;
        let mut rest = 0u32;
        for _ in 0..c {
            rest = rest
                .checked_add(r.int()?)
                .ok_or_else(|| corrupt("bad rest"))?;
            let body_len: usize = r.int()?;
            let (head_day, head_score) = read_rank(&mut r, month)?;
            let bucket = month
                .checked_mul(PER_MONTH)
                .and_then(|b| b.checked_add(rest))
                .filter(|_| rest < PER_MONTH)
                .ok_or_else(|| corrupt("bad cell"))?;
            let body = offset..offset + body_len;
            offset = body.end;
            if keep(bucket) {
                cells.push(Cell {
                    bucket,
                    head_day,
                    head_score,
                    body,
                });
            }
        }
    }
    if offset != len {
        return Err(corrupt("bodies do not fill the blob"));
    }
    Ok(Head { moves, cells })
}

/// The games of one cell, best first.
fn read_cell<S: Source>(src: &mut S, head: &Head, cell: &Cell) -> Result<Vec<Item>, StoreError> {
    let bytes = src.read(cell.body.clone())?;
    let mut r = Reader::new(&bytes, "lists blob");
    let month = cell.bucket / PER_MONTH;
    let mut out = Vec::new();
    while !r.is_empty() {
        let id: i64 = r.int()?;
        let i: usize = r.int()?;
        let mv = *head.moves.get(i).ok_or_else(|| corrupt("bad move"))?;
        let (day, score) = if out.is_empty() {
            (cell.head_day, cell.head_score)
        } else {
            read_rank(&mut r, month)?
        };
        out.push(Item {
            id,
            mv,
            bucket: cell.bucket,
            day,
            score,
        });
    }
    Ok(out)
}

/// Every game of a lists blob.
pub(super) fn decode(mut bytes: &[u8]) -> Result<Vec<Item>, StoreError> {
    let head = read_head(&mut bytes, |_| true)?;
    let mut out = Vec::new();
    for cell in &head.cells {
        out.extend(read_cell(&mut bytes, &head, cell)?);
    }
    Ok(out)
}

/// The best `n` games of the cells of `head` (read with the filter's cells), best first:
/// the cells are taken by their best game, and once `n` games are held, a cell whose best
/// ranks below the `n`-th is not read.
fn best<S: Source>(src: &mut S, head: &Head, n: usize) -> Result<Vec<Item>, StoreError> {
    if n == 0 {
        return Ok(Vec::new());
    }
    let mut cells: Vec<&Cell> = head.cells.iter().collect();
    cells.sort_by_key(|c| std::cmp::Reverse(c.head_score));
    let mut held: Vec<Item> = Vec::new();
    for cell in cells {
        if held.len() >= n && held[n - 1].score > cell.head_score {
            break;
        }
        held.extend(read_cell(src, head, cell)?);
        held.sort_by_key(Item::best_key);
        held.truncate(n);
    }
    Ok(held)
}

/// The latest `n` games of the cells of `head`, latest first: month by month from the
/// latest, until `n` are held.
fn latest<S: Source>(src: &mut S, head: &Head, n: usize) -> Result<Vec<Item>, StoreError> {
    let mut held: Vec<Item> = Vec::new();
    let months: Vec<&[Cell]> = head
        .cells
        .chunk_by(|a, b| a.bucket / PER_MONTH == b.bucket / PER_MONTH)
        .collect();
    for month in months.into_iter().rev() {
        if held.len() >= n {
            break;
        }
        let mut games = Vec::new();
        for cell in month {
            games.extend(read_cell(src, head, cell)?);
        }
        games.sort_by_key(Item::recent_key);
        held.extend(games);
    }
    held.truncate(n);
    Ok(held)
}

impl Store {
    /// A position's lists blob opened for reading in parts; `None` when it has none.
    fn lists_row(&self, key: super::PositionKey) -> Result<Option<BlobRow<'_>>, StoreError> {
        if !self.has_lists_table()? {
            return Ok(None);
        }
        let tables = self.tables();
        self.blob_row((tables.lists_table(), c"lists"), key)
    }

    /// The best and the latest `n` games of a big position that pass `matcher`, from its
    /// lists; `None` when it keeps none.
    pub(super) fn listed(
        &self,
        key: super::PositionKey,
        matcher: &Matcher,
        n: usize,
        want: (bool, bool),
    ) -> Result<Option<Listed>, StoreError> {
        let Some(mut row) = self.lists_row(key)? else {
            return Ok(None);
        };
        let at = |e| at_position(key, e);
        // The head is read once for both lists.
        let head = read_head(&mut row, |b| matcher.passes(b)).map_err(at)?;
        let best = if want.0 {
            best(&mut row, &head, n).map_err(at)?
        } else {
            Vec::new()
        };
        let latest = if want.1 {
            latest(&mut row, &head, n).map_err(at)?
        } else {
            Vec::new()
        };
        Ok(Some((best, latest)))
    }

    /// Whether the database has the `position_lists` table (schema 11 on).
    fn has_lists_table(&self) -> Result<bool, StoreError> {
        Ok(self
            .conn
            .prepare_cached(&self.q(HAS_LISTS))?
            .query_row([], |_| Ok(()))
            .optional()?
            .is_some())
    }

    /// A position's lists decoded; `None` when it keeps none.
    pub(super) fn stored_lists(
        &self,
        key: super::PositionKey,
    ) -> Result<Option<Vec<Item>>, StoreError> {
        let blob: Option<Vec<u8>> = self
            .conn
            .prepare_cached(&self.q(LISTS_OF))?
            .query_row([key.to_rowid()], |r| r.get(0))
            .optional()?;
        blob.map(|b| decode(&b).map_err(|e| at_position(key, e)))
            .transpose()
    }

    /// Keeps a busy position's lists up to date after its games changed, in the caller's
    /// transaction: `links` are all its games now, `new` the items of the games added or
    /// changed (a changed game's old item is replaced). A position of at most
    /// [`LISTS_FROM`] games keeps none; one that passes it gets its lists from its games.
    /// Returns the bytes of the lists written (0 for none).
    pub(super) fn update_lists(
        &self,
        key: super::PositionKey,
        links: &[Link],
        new: Vec<Item>,
    ) -> Result<u64, StoreError> {
        if links.len() <= LISTS_FROM || !self.has_lists_table()? {
            return self.write_lists_counted(key, &mut []);
        }
        let mut items = match self.stored_lists(key)? {
            Some(old) => {
                let mut new = new;
                new.sort_by_key(|it| it.id);
                let mut items: Vec<Item> = old
                    .into_iter()
                    .filter(|it| new.binary_search_by_key(&it.id, |n| n.id).is_err())
                    .collect();
                items.extend(new);
                items
            }
            None => {
                // Read the games not given.
                let mut new = new;
                new.sort_by_key(|it| it.id);
                let others: Vec<Link> = links
                    .iter()
                    .filter(|l| new.binary_search_by_key(&l.game, |n| n.id).is_err())
                    .copied()
                    .collect();
                let games = self.throughs(&others)?;
                let mut items: Vec<Item> = others
                    .iter()
                    .zip(&games)
                    .map(|(l, t)| Item::of_through(l, t))
                    .collect();
                items.extend(new);
                items
            }
        };
        self.write_lists_counted(key, &mut items)
    }

    /// Replaces some games' items in a position's lists, if it keeps lists (a late richer
    /// copy changed their facts; the position's games are the same).
    pub(super) fn replace_in_lists(
        &self,
        key: super::PositionKey,
        changed: Vec<Item>,
    ) -> Result<(), StoreError> {
        if changed.is_empty() || !self.has_lists_table()? {
            return Ok(());
        }
        let Some(old) = self.stored_lists(key)? else {
            return Ok(());
        };
        let mut changed = changed;
        changed.sort_by_key(|it| it.id);
        let mut items: Vec<Item> = old
            .into_iter()
            .filter(|it| changed.binary_search_by_key(&it.id, |n| n.id).is_err())
            .collect();
        items.extend(changed);
        self.write_lists(key, &mut items)
    }

    /// Stores a position's lists from all its games, or none for a position of at most
    /// [`LISTS_FROM`] games.
    pub(super) fn write_lists(
        &self,
        key: super::PositionKey,
        items: &mut [Item],
    ) -> Result<(), StoreError> {
        self.write_lists_counted(key, items).map(|_| ())
    }

    /// [`Store::write_lists`], returning the bytes of the lists written (0 for none).
    fn write_lists_counted(
        &self,
        key: super::PositionKey,
        items: &mut [Item],
    ) -> Result<u64, StoreError> {
        if !self.has_lists_table()? {
            return Ok(0);
        }
        if items.len() <= LISTS_FROM {
            self.conn
                .prepare_cached(&self.q(DELETE_LISTS))?
                .execute([key.to_rowid()])?;
            return Ok(0);
        }
        let blob = encode(items);
        self.conn
            .prepare_cached(&self.q(REPLACE_LISTS))?
            .execute(rusqlite::params![key.to_rowid(), blob])?;
        Ok(blob.len() as u64)
    }

    /// Builds every big busy position's lists from its games (schema 11's Rust step, and
    /// after a bulk load), in the caller's transaction: the games are read in one scan,
    /// only when some position is big.
    pub(super) fn rebuild_lists(&self) -> Result<(), StoreError> {
        if !self.has_lists_table()? {
            return Ok(());
        }
        let keys: Vec<i64> = {
            let mut stmt = self.conn.prepare(&self.q(super::sql::BUSY_KEYS))?;
            let rows = stmt.query_map([], |r| r.get(0))?;
            rows.collect::<Result<_, _>>()?
        };
        let mut big: Vec<(super::PositionKey, Vec<Link>)> = Vec::new();
        for rowid in keys {
            let key = super::PositionKey::from_rowid(rowid);
            let links = self.busy_row_links(key)?;
            if links.len() > LISTS_FROM {
                big.push((key, links));
            } else {
                self.conn
                    .prepare_cached(&self.q(DELETE_LISTS))?
                    .execute([rowid])?;
            }
        }
        if big.is_empty() {
            return Ok(());
        }
        // What the lists keep of every game, by id.
        let mut games: Vec<(i64, Item)> = Vec::new();
        self.each_through(|t| {
            let l = Link {
                game: t.game.id,
                mv: 0,
            };
            games.push((t.game.id, Item::of_through(&l, t)));
            Ok(())
        })?;
        for (key, links) in big {
            let mut items = Vec::with_capacity(links.len());
            for l in &links {
                let Ok(i) = games.binary_search_by_key(&l.game, |g| g.0) else {
                    return Err(StoreError::Corrupt(format!(
                        "position {key} links to game {}, which is not stored",
                        l.game
                    )));
                };
                items.push(Item {
                    mv: l.mv,
                    ..games[i].1
                });
            }
            self.write_lists(key, &mut items)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(id: i64, mv: u16, bucket: u32, day: u8, score: u64) -> Item {
        Item {
            id,
            mv,
            bucket,
            day,
            score,
        }
    }

    fn sample() -> Vec<Item> {
        // Month code of 2020-05: 1 + 2020 × 13 + 5.
        let may = 1 + 2020 * 13 + 5;
        let s = |flags: u64, rating: u64, dn: u64| flags << 61 | (rating * RATING_UNIT + dn);
        vec![
            item(7, 3, may * PER_MONTH + 40, 9, s(3, 2100, 20200509)),
            item(3, 3, may * PER_MONTH + 40, 2, s(3, 2100, 20200502)),
            item(9, 65535, may * PER_MONTH + 40, 0, s(0, 0, 20200500)),
            // An odd date: the score's date number is not the cell's.
            item(11, 5, may * PER_MONTH + 2, 0, s(1, 0, 20200599)),
            item(2, 5, 0, 0, s(2, 1500, 0)),
            item(20, 3, (may + 1) * PER_MONTH + 40, 1, s(3, 2000, 20200601)),
        ]
    }

    #[test]
    fn lists_decode_to_what_was_encoded() {
        let mut items = sample();
        let blob = encode(&mut items);
        let mut got = decode(&blob).unwrap();
        let mut want = sample();
        got.sort_by_key(|it| it.id);
        want.sort_by_key(|it| it.id);
        assert_eq!(got, want);
    }

    #[test]
    fn truncated_or_bad_blobs_are_errors_not_panics() {
        let blob = encode(&mut sample());
        for cut in 0..blob.len() {
            assert!(decode(&blob[..cut]).is_err(), "cut at {cut}");
        }
        let mut bad = blob.clone();
        bad[0] = 9;
        assert!(decode(&bad).is_err());
    }
}
