//! Compaction of the segments (`store::segments`): [`COMPACT_FACTOR`] sealed segments of one
//! level, side by side in id order, become one segment of the next level, so that a question
//! asks few segments however many games the database holds. It reads the segments' rows in
//! key order (`read/every.rs`) and adds them up position by position: links concatenated,
//! summaries and buckets summed (`Summary::merge`, `Buckets::merge`), full lists joined; a
//! position quiet in every segment but past [`LIST_MAX`] games in all becomes busy, counted
//! from its games as an import promotes one. Nothing is counted again that a segment already
//! holds, and nothing is written outside the segments' tables and the `segments` table.
//!
//! One compaction is one transaction: the merged rows go into the tables of the work segment
//! 0, then the compacted segments' tables are dropped, the work tables take the first one's
//! names and its `segments` row counts the games of all. A killed compaction leaves the
//! segments as they were (answers exact), and the next one starts again.
//!
//! A segment's level is how many times its games would have been compacted: level 0 up to
//! [`SEGMENT_GAMES`] games, level L up to `SEGMENT_GAMES × COMPACT_FACTOR^L`. So each game's
//! statistics are rewritten once per level, ⌈log₄(n / 1M)⌉ times for n games (`docs/scaling.md`).

use std::{ops::Range, sync::Arc, time::Instant};

use rusqlite::{Transaction, TransactionBehavior};

use super::{
    buckets::Buckets,
    links::{self, decode_links, Link},
    lists::{Item, LISTS_FROM},
    model::PositionKey,
    ranges::{Entry, Packer},
    read::at_position,
    segments::{Tables, SEGMENT_GAMES},
    sql,
    summary::{Summary, LIST_MAX},
    Store, StoreError,
};

/// How many segments of one level are compacted into one of the next.
pub const COMPACT_FACTOR: usize = 4;

/// The work segment: its tables hold a compaction's rows until they take their place.
const WORK: i64 = 0;

/// How many entries are packed before their range rows are written.
const FLUSH_ENTRIES: usize = 200_000;

/// What a compaction did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CompactOutcome {
    /// Segments compacted (into `compactions` segments).
    pub segments: usize,
    /// How many compactions (one per new segment).
    pub compactions: usize,
    /// The games their statistics count.
    pub games: u64,
    /// Positions written, and of them busy ones.
    pub positions: u64,
    /// See `positions`.
    pub busy: u64,
    /// Quiet positions that became busy.
    pub promoted: u64,
    /// Bytes of statistics written.
    pub bytes: u64,
    /// Segments counting games after it.
    pub segments_after: usize,
    /// Bytes the file gave back to the file system after it (the compacted segments'
    /// pages, once the new segment's are moved into them).
    pub released: u64,
    /// Seconds of `seconds` spent giving them back.
    pub release_seconds: f64,
    /// Seconds it took.
    pub seconds: f64,
}

/// A segment as the compaction sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Counted {
    id: i64,
    first: i64,
    last: i64,
    games: u64,
    sealed: bool,
}

/// The level of a segment of `games` games (see the module doc).
fn level(games: u64) -> u32 {
    let mut cap = SEGMENT_GAMES;
    let mut level = 0;
    while games > cap {
        cap = cap.saturating_mul(COMPACT_FACTOR as u64);
        level += 1;
    }
    level
}

/// The first run of [`COMPACT_FACTOR`] segments side by side (in id order), sealed and of
/// one level, that compacts; `None` when none does.
fn next_run(segments: &[Counted]) -> Option<&[Counted]> {
    segments.windows(COMPACT_FACTOR).find(|w| {
        let l = level(w[0].games);
        w.iter().all(|s| s.sealed && level(s.games) == l)
    })
}

impl Store {
    /// Compacts the segments until no [`COMPACT_FACTOR`] sealed segments of one level lie
    /// side by side, each compaction in its own transaction (see the module doc). Every
    /// answer is the same before and after.
    ///
    /// ```
    /// use qipu::formats::{Game, MoveNode, Source};
    /// use qipu::rules::{AnyPosition, Variant};
    /// use qipu::store::{GameRecord, PositionKey, Store};
    /// let mut store = Store::open_in_memory()?;
    /// for i in 0..4 {
    ///     let mut g = Game::new(Variant::Xiangqi, Source { file: "x".into(), index: i });
    ///     g.moves = vec![MoveNode::new("h2e2"), MoveNode::new(["h9g7", "b9c7", "h7e7", "c6c5"][i])];
    ///     store.write_batch(&[GameRecord::from_game(&g, 40).unwrap()])?;
    ///     store.seal_segment()?;
    /// }
    /// let start = PositionKey(AnyPosition::new(Variant::Xiangqi).key());
    /// let before = store.lookup(start, 10)?;
    /// let done = store.compact()?;
    /// assert_eq!((done.segments, done.segments_after), (4, 1));
    /// assert_eq!(store.lookup(start, 10)?, before);
    /// # Ok::<_, qipu::store::StoreError>(())
    /// ```
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails or a stored row is corrupt (the segments are then as
    /// they were before the compaction that failed).
    pub fn compact(&mut self) -> Result<CompactOutcome, StoreError> {
        let clock = Instant::now();
        let mut out = CompactOutcome::default();
        loop {
            let tx = Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)?;
            let segments = self.counted_segments()?;
            let Some(run) = next_run(&segments) else {
                out.segments_after = segments.len();
                break;
            };
            self.compact_run(run, &mut out)?;
            tx.commit()?;
            out.compactions += 1;
        }
        // Also when nothing was compacted now: a release killed after its compaction's
        // commit is finished by the next run.
        let release = Instant::now();
        out.released = super::guard::release_free_pages(&self.conn)?;
        out.release_seconds = release.elapsed().as_secs_f64();
        out.seconds = clock.elapsed().as_secs_f64();
        Ok(out)
    }

    /// The segments that count games, oldest first.
    fn counted_segments(&self) -> Result<Vec<Counted>, StoreError> {
        if self.schema_version()? < 18 {
            return Ok(Vec::new());
        }
        let mut stmt = self.conn.prepare_cached(sql::SEGMENTS_COUNTED)?;
        let rows = stmt.query_map([], |r| {
            Ok(Counted {
                id: r.get(0)?,
                first: r.get(1)?,
                last: r.get(2)?,
                games: r.get::<_, i64>(3)?.max(0) as u64,
                sealed: r.get(4)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Compacts one run into its first segment, inside the caller's transaction.
    fn compact_run(&self, run: &[Counted], out: &mut CompactOutcome) -> Result<(), StoreError> {
        let work = Arc::new(Tables::of(WORK));
        self.conn.execute_batch(&work.drop_all())?;
        self.conn.execute_batch(&work.create())?;
        let sources: Vec<Arc<Tables>> = run.iter().map(|s| Arc::new(Tables::of(s.id))).collect();
        self.in_segment(&work, || {
            let mut packer = Packer::default();
            let mut packed = 0;
            let mut start = i64::MIN;
            self.for_each_entry(sources.clone(), |key, entries| {
                if packed >= FLUSH_ENTRIES {
                    out.bytes += self.write_packed(&packer, start)?;
                    packer = Packer::default();
                    start = key.to_rowid();
                    packed = 0;
                }
                self.merge_position(key, entries, &mut packer, out)?;
                packed += 1;
                Ok(())
            })?;
            out.bytes += self.write_packed(&packer, start)?;
            Ok(())
        })?;
        let first = &run[0];
        for s in &sources {
            self.conn.execute_batch(&s.drop_all())?;
        }
        self.conn
            .execute_batch(&work.rename_to(&Tables::of(first.id)))?;
        let games: u64 = run.iter().map(|s| s.games).sum();
        let last = run.iter().map(|s| s.last).max().unwrap_or(first.last);
        let lowest = run.iter().map(|s| s.first).min().unwrap_or(first.first);
        self.conn.execute(
            sql::COMPACTED_SEGMENT,
            rusqlite::params![first.id, lowest, last, games as i64],
        )?;
        for s in &run[1..] {
            self.conn.execute(sql::DELETE_SEGMENT, [s.id])?;
        }
        out.segments += run.len();
        out.games += games;
        Ok(())
    }

    /// Writes packed range rows into the tables addressed now; returns their bytes.
    fn write_packed(&self, packer: &Packer, start: i64) -> Result<u64, StoreError> {
        let mut replace = self.conn.prepare_cached(&self.q(sql::REPLACE_RANGE))?;
        let mut bytes = 0;
        for (s, blob) in packer.rows(start) {
            replace.execute(rusqlite::params![s, blob])?;
            bytes += blob.len() as u64;
        }
        Ok(bytes)
    }

    /// One position's entries in the compacted segments, added up into the tables
    /// addressed now: quiet if its games are still at most [`LIST_MAX`], else busy.
    fn merge_position(
        &self,
        key: PositionKey,
        entries: Vec<(Arc<Tables>, Entry)>,
        packer: &mut Packer,
        out: &mut CompactOutcome,
    ) -> Result<(), StoreError> {
        out.positions += 1;
        let all_quiet = entries.iter().all(|e| matches!(e.1, Entry::Quiet(_)));
        let mut links: Vec<Link> = Vec::new();
        if all_quiet {
            for (_, e) in &entries {
                if let Entry::Quiet(l) = e {
                    links.extend_from_slice(l);
                }
            }
            if links.len() <= LIST_MAX {
                links::sort_by_game(&mut links);
                packer.push_links(key.to_rowid(), &links);
                return Ok(());
            }
            links.clear();
            out.promoted += 1;
        }
        out.busy += 1;
        let at = |e| at_position(key, e);
        let mut summary = Summary::default();
        let mut buckets = Buckets::default();
        // Each entry's links in `links`, and where its lists' items come from.
        let mut parts: Vec<(Range<usize>, Items)> = Vec::with_capacity(entries.len());
        for (tables, entry) in entries {
            let from = links.len();
            let items = match entry {
                Entry::Busy => {
                    let [s, l, b] = self.in_segment(&tables, || self.complete_busy_row(key))?;
                    summary.merge(Summary::decode(&s).map_err(at)?);
                    buckets.merge(Buckets::decode(&b).map_err(at)?);
                    links.extend(decode_links(&l).map_err(at)?);
                    if links.len() - from > LISTS_FROM {
                        Items::Lists(tables)
                    } else {
                        Items::Games
                    }
                }
                Entry::Quiet(l) => {
                    let (s, games) = self.summarize(&l)?;
                    summary.merge(s);
                    buckets.add(
                        l.iter()
                            .zip(&games)
                            .map(|(l, g)| (l.mv, l.game, g.facts().game_facts()))
                            .collect(),
                    );
                    let items = l.iter().zip(&games).map(|(l, g)| Item::of_through(l, g));
                    let items = Items::Known(items.collect());
                    links.extend(l);
                    items
                }
            };
            parts.push((from..links.len(), items));
        }
        if !links.is_sorted_by_key(|l| l.game) {
            links::sort_by_game(&mut links);
        }
        let (s, l, b) = self.write_busy(key, &summary, &links, &buckets)?;
        out.bytes += (s + l + b) as u64;
        if links.len() > LISTS_FROM {
            let mut items = Vec::with_capacity(links.len());
            for (range, part) in parts {
                let part_links = &links[range];
                let listed = match part {
                    Items::Known(v) => Some(v),
                    Items::Lists(t) => self.in_segment(&t, || self.stored_lists(key))?,
                    Items::Games => None,
                };
                match listed {
                    Some(v) => items.extend(v),
                    None => {
                        let games = self.throughs(part_links)?;
                        items.extend(
                            part_links
                                .iter()
                                .zip(&games)
                                .map(|(l, g)| Item::of_through(l, g)),
                        );
                    }
                }
            }
            self.write_lists(key, &mut items)?;
        }
        packer.push_busy(key.to_rowid());
        Ok(())
    }

    /// A busy position's summary, links and buckets blobs, in the segment addressed now;
    /// each must be there.
    fn complete_busy_row(&self, key: PositionKey) -> Result<[Vec<u8>; 3], StoreError> {
        match self.busy_blobs(key)? {
            (Some(s), l, Some(b)) => Ok([s, l, b]),
            _ => Err(StoreError::Corrupt(format!(
                "position {key} has no summary or no buckets"
            ))),
        }
    }
}

/// Where a compacted entry's lists items come from.
enum Items {
    /// Counted from its games here (a quiet entry's).
    Known(Vec<Item>),
    /// Its segment's lists (a busy entry of more than [`LISTS_FROM`] games).
    Lists(Arc<Tables>),
    /// Read from its games, when needed.
    Games,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(id: i64, games: u64, sealed: bool) -> Counted {
        Counted {
            id,
            first: id * 10,
            last: id * 10 + 9,
            games,
            sealed,
        }
    }

    #[test]
    fn levels_grow_by_the_factor() {
        assert_eq!(level(1), 0);
        assert_eq!(level(SEGMENT_GAMES), 0);
        assert_eq!(level(SEGMENT_GAMES + 1), 1);
        assert_eq!(level(4 * SEGMENT_GAMES), 1);
        assert_eq!(level(4 * SEGMENT_GAMES + 1), 2);
        assert_eq!(level(16 * SEGMENT_GAMES), 2);
    }

    #[test]
    fn a_run_is_four_sealed_segments_of_one_level_side_by_side() {
        let g = SEGMENT_GAMES;
        let three = [
            seg(1, g, true),
            seg(2, g, true),
            seg(3, g, true),
            seg(4, 9, false),
        ];
        assert_eq!(next_run(&three), None, "the open segment never compacts");
        let four = [
            seg(1, g, true),
            seg(2, g, true),
            seg(3, 5, true),
            seg(4, g, true),
        ];
        assert_eq!(next_run(&four).map(|r| r[0].id), Some(1));
        let mixed = [
            seg(1, 4 * g, true),
            seg(2, g, true),
            seg(3, g, true),
            seg(4, g, true),
            seg(5, g, true),
            seg(6, 1, false),
        ];
        let run = next_run(&mixed).map(|r| r.iter().map(|s| s.id).collect::<Vec<_>>());
        assert_eq!(run, Some(vec![2, 3, 4, 5]));
        let levels = [
            seg(1, 4 * g, true),
            seg(2, g, true),
            seg(3, g, true),
            seg(4, g, true),
        ];
        assert_eq!(next_run(&levels), None, "levels are not mixed");
    }
}
