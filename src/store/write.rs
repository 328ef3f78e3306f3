//! Writing import batches: games and their statistics in one transaction. What a batch
//! reports (its counts, timings and bytes written) is in `write/outcome.rs`.

use std::{
    borrow::Cow,
    collections::HashMap,
    time::{Duration, Instant},
};

use rayon::prelude::*;
use rusqlite::{OptionalExtension, Transaction, TransactionBehavior};

use super::{
    buckets::Buckets,
    codec::{result_code, stored_blob, variant_code},
    copies::{self, Fate},
    game_facts::GameFacts,
    links::{self, decode_links, encode_links, move_code, Link},
    lists::{Item, LISTS_FROM},
    model::{GameRecord, PositionKey},
    players::Players,
    ranges::{self, Entry, Packer},
    read::{at_position, BusyBlobs},
    sql,
    summary::{Facts, Summary, LIST_MAX},
    Store, StoreError,
};
use crate::{
    formats::facts::{Mode, Speed, Termination},
    rules::Move,
};

mod outcome;

pub use outcome::{BatchBytes, BatchOutcome, BatchTimings};

/// A new game's share of the position statistics.
pub(super) struct Counted<'a> {
    pub id: i64,
    pub facts: Facts<'a>,
    /// What the buckets keep of it (from `facts`).
    pub game: GameFacts,
    /// Each distinct position and the move played there, as [`GameRecord::positions`].
    pub positions: &'a [(PositionKey, Option<Move>)],
}

impl Store {
    /// Stores a batch of games and adds the statistics of the new ones, all in one
    /// transaction: either the whole batch is in the database or none of it. Games whose
    /// content hash is already stored (or repeats within the batch) are skipped, and so are
    /// the other copies of one game (`store::copies`): of a game's copies the richest is
    /// stored, and a stored game takes the metadata of a richer copy that comes later.
    ///
    /// The database holds one depth limit ([`Store::max_ply`]): the first batch of an empty
    /// database records its records' depth, and a record of another depth is refused.
    ///
    /// # Errors
    /// [`StoreError::Setting`] if a record's depth differs from the database's (nothing is
    /// written), [`StoreError`] if SQLite fails; the batch is then rolled back.
    pub fn write_batch(&mut self, records: &[GameRecord]) -> Result<BatchOutcome, StoreError> {
        if let Some(first) = records.first() {
            if let Some(other) = records.iter().find(|r| r.max_ply != first.max_ply) {
                return Err(StoreError::Setting(format!(
                    "one batch mixes depth limits {} and {}",
                    first.max_ply, other.max_ply
                )));
            }
            self.fix_max_ply(first.max_ply)?;
        }
        let written = self.write_batch_in_transaction(records);
        if written.is_err() {
            // Paths added by the rolled-back transaction are gone: read them again next time.
            self.sources = None;
        }
        written
    }

    fn write_batch_in_transaction(
        &mut self,
        records: &[GameRecord],
    ) -> Result<BatchOutcome, StoreError> {
        if self.sources.is_none() {
            let mut stmt = self.conn.prepare(sql::SOURCES)?;
            let known = stmt
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<Result<_, _>>()?;
            self.sources = Some(known);
        }
        let sources = self.sources.get_or_insert_with(HashMap::new);
        // IMMEDIATE: a batch reads before it writes, and a deferred transaction that must
        // then wait for another writer fails at once instead of waiting.
        let tx = Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)?;
        let mut out = BatchOutcome::default();
        let mut counted = Vec::with_capacity(records.len());
        let mut players = Vec::with_capacity(records.len());
        // Paths this batch added, and whether a new game was stored from them.
        let mut added: HashMap<i64, (&str, bool)> = HashMap::new();
        let mut clock = Clock::start();
        let marks = copies::plan(&tx, records)?;
        out.timings.plan = clock.lap();
        // The new games' moves blobs, encoded on all cores before the serial inserts.
        let blobs: Vec<Option<Vec<u8>>> = marks
            .par_iter()
            .map(|mark| {
                let r = &records[mark.record];
                (mark.fate == Fate::New)
                    .then(|| stored_blob(r.variant, r.start_fen.as_deref(), &r.moves))
            })
            .collect();
        let mut richer = Vec::new();
        {
            let mut insert = tx.prepare_cached(sql::INSERT_GAME)?;
            let mut insert_source = tx.prepare_cached(sql::INSERT_SOURCE)?;
            let mut insert_facts = tx.prepare_cached(sql::INSERT_GAME_FACTS)?;
            for (mark, blob) in marks.iter().zip(blobs) {
                let r = &records[mark.record];
                let source = match sources.get(&r.source.file) {
                    Some(&id) => id,
                    None => {
                        insert_source.execute([&r.source.file])?;
                        let id = tx.last_insert_rowid();
                        sources.insert(r.source.file.clone(), id);
                        added.insert(id, (&r.source.file, false));
                        id
                    }
                };
                match mark.fate {
                    Fate::New => {}
                    Fate::Duplicate => {
                        out.duplicates += 1;
                        continue;
                    }
                    Fate::Copy | Fate::Richer(_) => {
                        out.merged += 1;
                        if let Fate::Richer(id) = mark.fate {
                            richer.push((id, r, *mark, source));
                            if let Some((_, used)) = added.get_mut(&source) {
                                *used = true;
                            }
                        }
                        continue;
                    }
                }
                let t = &r.tags;
                let facts = Facts::of(r.result, &r.tags, r.opening_label.as_deref());
                let changed = insert.execute(rusqlite::params![
                    r.hash as i64,
                    variant_code(r.variant),
                    source,
                    r.source.index as i64,
                    t.event,
                    t.site,
                    t.round,
                    t.date,
                    t.first,
                    t.second,
                    t.first_rating,
                    t.second_rating,
                    result_code(r.result),
                    t.ecco,
                    t.opening,
                    t.variation,
                    t.first_formation,
                    t.second_formation,
                    r.start_fen,
                    r.moves.len() as i64,
                    blob,
                    t.time_control.map(|c| c.base_secs),
                    t.time_control.map(|c| c.increment_secs),
                    // The record's speed, else its clock's: what the statistics count.
                    facts.speed.map(Speed::code),
                    t.mode.map(Mode::code),
                    t.termination.map(Termination::code),
                    mark.identity as i64,
                    i64::from(mark.richness),
                    mark.header as i64,
                    r.truncated_ply().map(|p| p as i64),
                ])?;
                if changed == 0 {
                    out.duplicates += 1;
                    continue;
                }
                out.imported += 1;
                if let Some((_, used)) = added.get_mut(&source) {
                    *used = true;
                }
                let id = tx.last_insert_rowid();
                let game = facts.game_facts();
                insert_facts.execute(rusqlite::params![id, game.encode()])?;
                players.push(Players {
                    id,
                    first: t.first.as_deref(),
                    second: t.second.as_deref(),
                });
                counted.push(Counted {
                    id,
                    facts,
                    game,
                    positions: &r.positions,
                });
            }
        }
        // A file whose games were all stored already is not recorded.
        for (id, (path, used)) in added {
            if !used {
                tx.execute(sql::DELETE_SOURCE, [id])?;
                sources.remove(path);
            }
        }
        out.timings.insert = clock.lap();
        if let (Some(first), Some(last)) = (counted.first(), counted.last()) {
            // The new games are counted in the open segment alone (`store::segments`).
            let segment = self.open_segment()?;
            (out.timings.ranges, out.timings.busy, out.timings.written) =
                self.in_segment(&segment, || self.add_positions(&counted))?;
            self.count_in_segment(segment.id, first.id, last.id, counted.len() as u64)?;
        }
        clock.lap();
        let mut touched = self.index_players(&players)?;
        out.timings.players = clock.lap();
        (out.copy_deltas, out.copy_recounts) = self.take_copies(&richer, &mut touched)?;
        out.timings.copies = clock.lap();
        // The persons, in this transaction (a killed import leaves them as of its last
        // batch): of the names the batch's games (and the copies taken) brought or took
        // games from, and of those tied to them.
        let index = if touched.is_empty() {
            None
        } else {
            Some(self.resolve_persons_of(&touched)?)
        };
        out.timings.persons = clock.lap();
        tx.commit()?;
        if let Some(index) = index {
            self.keep_name_index(index);
        }
        out.timings.commit = clock.lap();
        Ok(out)
    }

    /// Adds games to the statistics of the positions they went through, in key order: each
    /// touched range row is read once, merged in Rust and rewritten (cut in two when it has
    /// grown too big); busy positions are merged in their own rows. Ranges are read and
    /// written in parts of [`RANGE_PART`] rows, each part merged on all cores (rows are
    /// independent) while the next is read; the positions that become busy, then the busy
    /// ones, follow. Runs inside the caller's transaction.
    ///
    /// Returns how long the ranges (with the sort and the promotions) and the busy rows took,
    /// and the bytes written.
    pub(super) fn add_positions(
        &self,
        games: &[Counted<'_>],
    ) -> Result<(Duration, Duration, BatchBytes), StoreError> {
        let mut clock = Clock::start();
        let mut written = BatchBytes::default();
        // One u128 per (position, game), sorted: each key's games together, in batch order
        // (which is id order).
        let mut touches: Vec<u128> =
            Vec::with_capacity(games.iter().map(|g| g.positions.len()).sum());
        for (i, g) in games.iter().enumerate() {
            for &(key, mv) in g.positions {
                touches.push(Touch::pack(key, i, move_code(mv)));
            }
        }
        touches.sort_unstable();
        // Busy positions touched, merged after the ranges (each in its own row).
        let mut busy: Vec<(PositionKey, &[u128])> = Vec::new();
        // A part's rows lie within its old ranges, below the next part's, so they may be
        // written after the next part is read. A row's keys are a run of the sorted touches
        // (no list of the batch's keys is made: it would take 16 bytes a key).
        let mut next = 0;
        merge_in_order(
            || self.read_ranges(&touches, &mut next),
            |(r, ts)| merge_range(games, r, &touches[ts]),
            |merged| self.write_ranges(games, merged, &mut busy, &mut written),
        )?;
        let ranges = clock.lap();
        // Busy positions are independent of each other.
        let mut parts = busy.chunks(BUSY_PART);
        merge_in_order(
            || self.read_busy(parts.next().unwrap_or_default()),
            |(&(key, group), (summary, links, buckets))| {
                merge_busy_row(games, key, group, summary, &links, buckets)
            },
            |merged| self.write_busy_rows(merged, &mut written),
        )?;
        Ok((ranges, clock.lap(), written))
    }

    /// The next part of the range rows touched (at most [`RANGE_PART`] rows), from the touch
    /// `*next` on, each with the range of its touches; `*next` moves past them.
    fn read_ranges(
        &self,
        touches: &[u128],
        next: &mut usize,
    ) -> Result<Vec<(OpenRange, std::ops::Range<usize>)>, StoreError> {
        let mut part: Vec<(OpenRange, std::ops::Range<usize>)> = Vec::new();
        while let Some(&first) = touches.get(*next) {
            let key = Touch::key(first);
            let end = touches[*next..]
                .iter()
                .position(|&t| !Touch::same_key(first, t))
                .map_or(touches.len(), |n| *next + n);
            let full = part.len() == RANGE_PART;
            match part.last_mut() {
                Some((r, ts)) if r.covers(key) => ts.end = end,
                _ if full => break,
                _ => part.push((self.open_range(key)?, *next..end)),
            }
            *next = end;
        }
        Ok(part)
    }

    /// Writes merged range rows in key order, then counts the positions that became busy;
    /// the busy positions touched are added to `busy`, the bytes written to `written`.
    fn write_ranges<'t>(
        &self,
        games: &[Counted<'_>],
        merged: Vec<MergedRange<'t>>,
        busy: &mut Vec<(PositionKey, &'t [u128])>,
        written: &mut BatchBytes,
    ) -> Result<(), StoreError> {
        {
            let mut replace = self.conn.prepare_cached(&self.q(sql::REPLACE_RANGE))?;
            for m in &merged {
                for (start, blob) in &m.rows {
                    replace.execute(rusqlite::params![start, blob])?;
                    written.ranges += blob.len() as u64;
                }
            }
        }
        for m in merged {
            for (key, old, group) in m.promoted {
                self.promote(games, key, &old, group, written)?;
            }
            busy.extend(m.busy);
        }
        Ok(())
    }

    /// A quiet position that grows past [`LIST_MAX`] games becomes busy: its summary counts
    /// the games it had (read from the games), then these.
    fn promote(
        &self,
        games: &[Counted<'_>],
        key: PositionKey,
        old: &[Link],
        group: &[u128],
        written: &mut BatchBytes,
    ) -> Result<(), StoreError> {
        let new = new_games(games, group);
        let links: Vec<Link> = new.iter().map(|(l, _)| *l).collect();
        let merged = merge_links(old, &links);
        let (mut summary, had) = self.summarize(old)?;
        let mut buckets = Buckets::default();
        buckets.add(
            old.iter()
                .zip(&had)
                .map(|(l, g)| (l.mv, l.game, g.facts().game_facts()))
                .collect(),
        );
        add_all(&mut summary, &mut buckets, &new)?;
        let (s, l, b) = self.write_busy(key, &summary, &merged, &buckets)?;
        written.busy_row(s, l, b);
        if merged.len() > LISTS_FROM {
            written.lists += self.update_lists(key, &merged, items_of(&new))?;
        }
        Ok(())
    }

    /// The range row a key falls in, ready to be merged into: the row with the greatest start
    /// at or below the key (an empty range from the lowest key when there is none).
    fn open_range(&self, key: PositionKey) -> Result<OpenRange, StoreError> {
        let row: Option<(i64, Vec<u8>)> = self
            .conn
            .prepare_cached(&self.q(sql::RANGE_AT))?
            .query_row([key.to_rowid()], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?;
        let next: Option<i64> = self
            .conn
            .prepare_cached(&self.q(sql::RANGE_AFTER))?
            .query_row([key.to_rowid()], |r| r.get(0))
            .optional()?;
        let (start, blob, old) = match row {
            Some((start, blob)) => {
                let old = ranges::index(start, &blob)?;
                (start, blob, old)
            }
            None => (i64::MIN, Vec::new(), Vec::new()),
        };
        Ok(OpenRange {
            start,
            next,
            blob,
            old,
            copied: 0,
            out: Packer::default(),
        })
    }

    /// Stores a busy position's own row; returns the bytes of its summary, links and buckets.
    pub(super) fn write_busy(
        &self,
        key: PositionKey,
        summary: &Summary,
        links: &[Link],
        buckets: &Buckets,
    ) -> Result<(usize, usize, usize), StoreError> {
        let (summary, links, buckets) = (summary.encode(), encode_links(links), buckets.encode());
        self.conn
            .prepare_cached(&self.q(sql::REPLACE_POSITION))?
            .execute(rusqlite::params![key.to_rowid(), summary, links, buckets])?;
        Ok((summary.len(), links.len(), buckets.len()))
    }

    /// The rows of some busy positions (each with its touches, as `add_positions` groups
    /// them), in their order.
    #[allow(clippy::type_complexity)]
    fn read_busy<'p, 't>(
        &self,
        part: &'p [(PositionKey, &'t [u128])],
    ) -> Result<Vec<(&'p (PositionKey, &'t [u128]), BusyBlobs)>, StoreError> {
        part.iter()
            .map(|busy| Ok((busy, self.busy_blobs(busy.0)?)))
            .collect()
    }

    /// Replaces merged busy rows, in key order, and updates their lists; the bytes written
    /// are added to `written`.
    fn write_busy_rows(
        &self,
        merged: Vec<MergedBusy>,
        written: &mut BatchBytes,
    ) -> Result<(), StoreError> {
        let mut replace = self.conn.prepare_cached(&self.q(sql::REPLACE_POSITION))?;
        for m in merged {
            replace.execute(rusqlite::params![
                m.key.to_rowid(),
                m.summary,
                m.links,
                m.buckets
            ])?;
            written.busy_row(m.summary.len(), m.links.len(), m.buckets.len());
            if let Some((links, items)) = m.lists {
                written.lists += self.update_lists(m.key, &links, items)?;
            }
        }
        Ok(())
    }
}

/// Merges rows in parts, in key order, on all cores: `read` gives the next part of the rows
/// (empty at the end), `merge` works on one row of a part (the rows of a part are
/// independent: they go to the rayon workers), and `write` takes a part's results in order.
/// While one part is merged, this thread reads the next one, so `read` must not need what
/// `write` writes for the part before. `read` and `write` run on this thread (they may use
/// the connection), `merge` never does.
fn merge_in_order<T: Send, U: Send>(
    mut read: impl FnMut() -> Result<Vec<T>, StoreError>,
    merge: impl Fn(T) -> Result<U, StoreError> + Sync,
    mut write: impl FnMut(Vec<U>) -> Result<(), StoreError>,
) -> Result<(), StoreError> {
    let mut part = read()?;
    while !part.is_empty() {
        let (merged, following) = std::thread::scope(|s| {
            let merging = s.spawn(|| {
                part.into_par_iter()
                    .map(&merge)
                    .collect::<Result<Vec<U>, StoreError>>()
            });
            let following = read();
            let merged = merging
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (merged, following)
        });
        write(merged?)?;
        part = following?;
    }
    Ok(())
}

/// Laps of a stopwatch.
struct Clock(Instant);

impl Clock {
    fn start() -> Clock {
        Clock(Instant::now())
    }

    /// The time since the last lap (or the start).
    fn lap(&mut self) -> Duration {
        let now = Instant::now();
        now.duration_since(std::mem::replace(&mut self.0, now))
    }
}

/// The games of a key's touches, with their links.
fn new_games<'g, 'a>(games: &'g [Counted<'a>], group: &[u128]) -> Vec<(Link, &'g Counted<'a>)> {
    group
        .iter()
        .map(|&t| {
            let (i, mv) = Touch::game(t);
            let g = &games[i];
            (Link { game: g.id, mv }, g)
        })
        .collect()
}

/// A range row merged with a batch: its new rows, the busy positions it holds that the
/// batch touched, and the quiet positions that became busy (key, old links, touches).
struct MergedRange<'t> {
    rows: Vec<(i64, Vec<u8>)>,
    busy: Vec<(PositionKey, &'t [u128])>,
    promoted: Vec<(PositionKey, Vec<Link>, &'t [u128])>,
}

/// Merges the touches of some keys (sorted, all in the range) into a range row.
fn merge_range<'t>(
    games: &[Counted<'_>],
    mut range: OpenRange,
    touches: &'t [u128],
) -> Result<MergedRange<'t>, StoreError> {
    let mut out = MergedRange {
        rows: Vec::new(),
        busy: Vec::new(),
        promoted: Vec::new(),
    };
    let mut links = Vec::new();
    for group in touches.chunk_by(|&a, &b| Touch::same_key(a, b)) {
        let key = Touch::key(group[0]);
        let old = match range.take_old(key)? {
            Some(Entry::Busy) => {
                out.busy.push((key, group));
                range.out.push_busy(key.to_rowid());
                continue;
            }
            Some(Entry::Quiet(old)) => old,
            None => Vec::new(),
        };
        links.clear();
        links.extend(group.iter().map(|&t| {
            let (i, mv) = Touch::game(t);
            Link {
                game: games[i].id,
                mv,
            }
        }));
        let merged = merge_links(&old, &links);
        if merged.len() > LIST_MAX {
            out.promoted.push((key, old, group));
            range.out.push_busy(key.to_rowid());
        } else {
            range.out.push_links(key.to_rowid(), &merged);
        }
    }
    range.copy_old_below(None);
    out.rows = range.out.rows(range.start);
    Ok(out)
}

/// Range rows read, merged and written per part of `Store::add_positions`.
const RANGE_PART: usize = 4096;

/// Busy positions merged per part of `Store::add_positions`: their rows are held in memory
/// together (two parts at a time: a few MiB to a few hundred), and one part is read while
/// the one before is merged on all cores.
const BUSY_PART: usize = 2048;

/// A busy position's row merged with a batch, encoded, and its list update.
struct MergedBusy {
    key: PositionKey,
    summary: Vec<u8>,
    links: Vec<u8>,
    buckets: Vec<u8>,
    /// When it keeps lists: all its links and the new games' items.
    lists: Option<(Vec<Link>, Vec<Item>)>,
}

/// Decodes a busy position's row, adds the games of its touches and encodes it again.
fn merge_busy_row(
    games: &[Counted<'_>],
    key: PositionKey,
    group: &[u128],
    summary: Option<Vec<u8>>,
    links: &[u8],
    buckets: Option<Vec<u8>>,
) -> Result<MergedBusy, StoreError> {
    let (Some(summary), Some(buckets)) = (summary, buckets) else {
        return Err(StoreError::Corrupt(format!(
            "position {key} has no summary or no buckets"
        )));
    };
    let mut summary = Summary::decode(&summary).map_err(|e| at_position(key, e))?;
    let mut buckets = Buckets::decode(&buckets).map_err(|e| at_position(key, e))?;
    let old = decode_links(links).map_err(|e| at_position(key, e))?;
    let new = new_games(games, group);
    let links: Vec<Link> = new.iter().map(|(l, _)| *l).collect();
    add_all(&mut summary, &mut buckets, &new)?;
    let merged = merge_links(&old, &links);
    let lists = (merged.len() > LISTS_FROM).then(|| (merged.to_vec(), items_of(&new)));
    Ok(MergedBusy {
        key,
        summary: summary.encode(),
        links: encode_links(&merged),
        buckets: buckets.encode(),
        lists,
    })
}

/// Two lists of links by game id as one (a game in both counts once).
fn merge_links<'a>(old: &'a [Link], new: &'a [Link]) -> Cow<'a, [Link]> {
    if old.is_empty() {
        return Cow::Borrowed(new);
    }
    let mut merged = Vec::with_capacity(old.len() + new.len());
    merged.extend_from_slice(old);
    merged.extend_from_slice(new);
    if old
        .last()
        .zip(new.first())
        .is_some_and(|(o, n)| o.game >= n.game)
    {
        links::sort_by_game(&mut merged);
    }
    Cow::Owned(merged)
}

/// A range row being merged with a batch: its old entries (spans into `blob`), how many of
/// them are already copied to `out`, and `out`, the range's new content.
struct OpenRange {
    start: i64,
    /// The next row's start: the range holds the keys below it.
    next: Option<i64>,
    blob: Vec<u8>,
    old: Vec<(i64, std::ops::Range<usize>)>,
    copied: usize,
    out: Packer,
}

impl OpenRange {
    fn covers(&self, key: PositionKey) -> bool {
        let key = key.to_rowid();
        key >= self.start && self.next.is_none_or(|n| key < n)
    }

    /// Copies the old entries below `key` (all of them for `None`) to `out`.
    fn copy_old_below(&mut self, key: Option<i64>) {
        while let Some((k, body)) = self.old.get(self.copied) {
            if key.is_some_and(|key| *k >= key) {
                break;
            }
            self.out.push_body(*k, &self.blob[body.clone()]);
            self.copied += 1;
        }
    }

    /// The old entry of `key`, if any, after copying the ones below it.
    fn take_old(&mut self, key: PositionKey) -> Result<Option<Entry>, StoreError> {
        self.copy_old_below(Some(key.to_rowid()));
        match self.old.get(self.copied) {
            Some((k, body)) if *k == key.to_rowid() => {
                let entry =
                    ranges::entry(&self.blob[body.clone()]).map_err(|e| at_position(key, e))?;
                self.copied += 1;
                Ok(Some(entry))
            }
            _ => Ok(None),
        }
    }
}

/// The bytes of one touch: the writer holds one for each position of each game of its batch.
pub(super) const TOUCH_BYTES: usize = std::mem::size_of::<u128>();

/// A (position, game) pair packed in a u128 that sorts by position key (in the signed order
/// of the table's rowid), then by the game's index in its batch.
struct Touch;

impl Touch {
    fn pack(key: PositionKey, index: usize, mv: u16) -> u128 {
        u128::from(key.table_order()) << 64 | (index as u128) << 16 | u128::from(mv)
    }

    /// Whether two touches are of the same position.
    fn same_key(a: u128, b: u128) -> bool {
        a >> 64 == b >> 64
    }

    fn key(t: u128) -> PositionKey {
        PositionKey((t >> 64) as u64 ^ 1 << 63)
    }

    /// The game's index in its batch and the move code.
    fn game(t: u128) -> (usize, u16) {
        ((t as u64 >> 16) as usize, t as u16)
    }
}

/// The lists' items of some games added to a position.
fn items_of(games: &[(Link, &Counted<'_>)]) -> Vec<Item> {
    games
        .iter()
        .map(|(l, g)| Item::of(l.game, l.mv, &g.facts, &g.game))
        .collect()
}

/// Counts games in a summary and its buckets.
pub(super) fn add_all(
    s: &mut Summary,
    b: &mut Buckets,
    games: &[(Link, &Counted<'_>)],
) -> Result<(), StoreError> {
    for (l, g) in games {
        s.add(l.game, l.mv, &g.facts, &g.game)?;
    }
    b.add(games.iter().map(|(l, g)| (l.mv, l.game, g.game)).collect());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{PositionKey, Touch};

    #[test]
    fn touches_sort_by_signed_key_then_batch_order_and_unpack() {
        let keys = [u64::MAX, 0, 1 << 63, 5, (1 << 63) - 1];
        let mut touches: Vec<u128> = keys
            .iter()
            .enumerate()
            .flat_map(|(i, &k)| {
                let k = PositionKey(k);
                [Touch::pack(k, 7 - i, 0xffff), Touch::pack(k, i, 42)]
            })
            .collect();
        touches.sort_unstable();
        let order: Vec<(i64, usize, u16)> = touches
            .iter()
            .map(|&t| {
                let (i, mv) = Touch::game(t);
                (Touch::key(t).to_rowid(), i, mv)
            })
            .collect();
        let mut want: Vec<(i64, usize, u16)> = keys
            .iter()
            .enumerate()
            .flat_map(|(i, &k)| [(k as i64, 7 - i, 0xffff), (k as i64, i, 42)])
            .collect();
        want.sort_unstable();
        assert_eq!(order, want);
    }
}
