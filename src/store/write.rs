//! Writing import batches: games and their statistics in one transaction.

use std::{borrow::Cow, collections::HashMap};

use rusqlite::{OptionalExtension, Transaction, TransactionBehavior};

use super::{
    buckets::Buckets,
    codec::{result_code, stored_blob, variant_code},
    copies::{self, Fate},
    game_facts::GameFacts,
    links::{encode_links, move_code, Link},
    lists::{Item, LISTS_FROM},
    model::{GameRecord, PositionKey},
    players::Players,
    ranges::{self, Entry, Packer},
    read::at_position,
    sql,
    summary::{Facts, Summary, LIST_MAX},
    Store, StoreError,
};
use crate::{
    formats::facts::{Mode, Speed, Termination},
    rules::Move,
};

/// What a batch did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BatchOutcome {
    /// New games stored and counted.
    pub imported: u64,
    /// Games already in the database (or earlier in the batch), not counted again.
    pub duplicates: u64,
    /// Other copies of a stored game or of a game of the batch (see `store::copies`): not
    /// stored as games; a richer copy gave the stored game its metadata.
    pub merged: u64,
    /// Busy positions whose sums took a richer copy's new facts as a delta (no other game
    /// read).
    pub copy_deltas: u64,
    /// Busy positions counted again from all their games, a richer copy's delta not being
    /// exact there (see `Summary::replace`): a measure of the copies' cost.
    pub copy_recounts: u64,
}

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
        let marks = copies::plan(&tx, records)?;
        let mut richer = Vec::new();
        {
            let mut insert = tx.prepare_cached(sql::INSERT_GAME)?;
            let mut insert_source = tx.prepare_cached(sql::INSERT_SOURCE)?;
            let mut insert_facts = tx.prepare_cached(sql::INSERT_GAME_FACTS)?;
            for mark in &marks {
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
                    stored_blob(r.variant, r.start_fen.as_deref(), &r.moves),
                    t.time_control.map(|c| c.base_secs),
                    t.time_control.map(|c| c.increment_secs),
                    // The record's speed, else its clock's: what the statistics count.
                    facts.speed.map(Speed::code),
                    t.mode.map(Mode::code),
                    t.termination.map(Termination::code),
                    mark.identity as i64,
                    i64::from(mark.richness),
                    mark.header as i64,
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
        self.add_positions(&counted)?;
        self.index_players(&players)?;
        (out.copy_deltas, out.copy_recounts) = self.take_copies(&richer)?;
        tx.commit()?;
        Ok(out)
    }

    /// Adds games to the statistics of the positions they went through, in key order: each
    /// touched range row is read once, merged in Rust and rewritten (cut in two when it has
    /// grown too big); busy positions are merged in their own rows. Runs inside the caller's
    /// transaction.
    pub(super) fn add_positions(&self, games: &[Counted<'_>]) -> Result<(), StoreError> {
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
        let mut open: Option<OpenRange> = None;
        let mut links = Vec::new();
        for group in touches.chunk_by(|a, b| a >> 64 == b >> 64) {
            let key = Touch::key(group[0]);
            let range = match open.take() {
                Some(r) if r.covers(key) => r,
                other => {
                    if let Some(r) = other {
                        self.close_range(r)?;
                    }
                    self.open_range(key)?
                }
            };
            let range = open.insert(range);
            links.clear();
            links.extend(group.iter().map(|&t| {
                let (i, mv) = Touch::game(t);
                Link {
                    game: games[i].id,
                    mv,
                }
            }));
            let new = || -> Vec<(Link, &Counted<'_>)> {
                group
                    .iter()
                    .zip(&links)
                    .map(|(&t, l)| (*l, &games[Touch::game(t).0]))
                    .collect()
            };
            let old = match range.take_old(key)? {
                Some(Entry::Busy) => {
                    self.merge_busy(key, &links, &new())?;
                    range.out.push_busy(key.to_rowid());
                    continue;
                }
                Some(Entry::Quiet(old)) => old,
                None => Vec::new(),
            };
            let merged = merge_links(&old, &links);
            if merged.len() > LIST_MAX {
                // The position becomes busy: its summary counts the games it had, then these.
                let (mut summary, had) = self.summarize(&old)?;
                let mut buckets = Buckets::default();
                buckets.add(
                    old.iter()
                        .zip(&had)
                        .map(|(l, g)| (l.mv, l.game, g.facts().game_facts()))
                        .collect(),
                );
                let new = new();
                add_all(&mut summary, &mut buckets, &new)?;
                self.write_busy(key, &summary, &merged, &buckets)?;
                if merged.len() > LISTS_FROM {
                    self.update_lists(key, &merged, items_of(&new))?;
                }
                range.out.push_busy(key.to_rowid());
            } else {
                range.out.push_links(key.to_rowid(), &merged);
            }
        }
        if let Some(r) = open {
            self.close_range(r)?;
        }
        Ok(())
    }

    /// The range row a key falls in, ready to be merged into: the row with the greatest start
    /// at or below the key (an empty range from the lowest key when there is none).
    fn open_range(&self, key: PositionKey) -> Result<OpenRange, StoreError> {
        let row: Option<(i64, Vec<u8>)> = self
            .conn
            .prepare_cached(sql::RANGE_AT)?
            .query_row([key.to_rowid()], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?;
        let next: Option<i64> = self
            .conn
            .prepare_cached(sql::RANGE_AFTER)?
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

    /// Writes a merged range back: its old entries not touched, then its rows.
    fn close_range(&self, mut range: OpenRange) -> Result<(), StoreError> {
        range.copy_old_below(None);
        let rows = range.out.rows(range.start);
        let mut replace = self.conn.prepare_cached(sql::REPLACE_RANGE)?;
        for (start, blob) in rows {
            replace.execute(rusqlite::params![start, blob])?;
        }
        Ok(())
    }

    /// Stores a busy position's own row.
    pub(super) fn write_busy(
        &self,
        key: PositionKey,
        summary: &Summary,
        links: &[Link],
        buckets: &Buckets,
    ) -> Result<(), StoreError> {
        self.conn
            .prepare_cached(sql::REPLACE_POSITION)?
            .execute(rusqlite::params![
                key.to_rowid(),
                summary.encode(),
                encode_links(links),
                buckets.encode()
            ])?;
        Ok(())
    }

    /// Adds a batch's games to a busy position: its row is read, merged and replaced.
    fn merge_busy(
        &self,
        key: PositionKey,
        links: &[Link],
        new: &[(Link, &Counted<'_>)],
    ) -> Result<(), StoreError> {
        let old = self.busy_row(key)?;
        let (Some(mut summary), Some(mut buckets)) = (old.summary, old.buckets) else {
            return Err(StoreError::Corrupt(format!(
                "position {key} has no summary or no buckets"
            )));
        };
        add_all(&mut summary, &mut buckets, new)?;
        let merged = merge_links(&old.links, links);
        self.write_busy(key, &summary, &merged, &buckets)?;
        if merged.len() > LISTS_FROM {
            self.update_lists(key, &merged, items_of(new))?;
        }
        Ok(())
    }
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
        merged.sort_unstable();
        merged.dedup_by_key(|l| l.game);
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

/// A (position, game) pair packed in a u128 that sorts by position key (in the signed order
/// of the table's rowid), then by the game's index in its batch.
struct Touch;

impl Touch {
    fn pack(key: PositionKey, index: usize, mv: u16) -> u128 {
        u128::from(key.table_order()) << 64 | (index as u128) << 16 | u128::from(mv)
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
