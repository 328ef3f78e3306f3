//! The bulk writer of `qipu load`: a fresh database's position statistics written in one pass
//! from rows already reduced and sorted elsewhere (the Spark job of `spark/build.py`), with
//! the store's own encoders (`links`, `ranges`, `summary`, `buckets`); and the store's value
//! codes for files that carry games outside a database ([`wire`]). No blob layout and no
//! counting rule is written here: a quiet position is packed by `ranges::Packer`, a busy one
//! is counted by the same `Summary::add` and `Buckets::add` as an import batch
//! (`write::add_all`) and stored by `write::write_busy`.
//!
//! The games themselves go through [`Store::write_batch`] (records without positions, ids in
//! the job's order), and an incremental load into a database that already has games goes
//! through it whole: the same per-position merge as an import.

use rusqlite::{Transaction, TransactionBehavior};

use super::{
    buckets::Buckets,
    links::Link,
    model::{GameRecord, PositionKey},
    ranges::Packer,
    sql,
    summary::{Facts, Summary, LIST_MAX},
    write::{add_all, Counted},
    Store, StoreError,
};
use crate::{
    formats::facts::{Mode, Speed, Termination},
    rules::Outcome,
};

/// How many quiet entries are packed before their range rows are written.
const FLUSH_ENTRIES: usize = 200_000;

/// One link of the sorted stream `qipu load` reads: a position, a game through it (by id)
/// and the move code it played there ([`super::END_OF_GAME`] when it ended there).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PositionRow {
    /// The position.
    pub key: PositionKey,
    /// The game's id.
    pub game: i64,
    /// `Move::to_u16`, or [`super::END_OF_GAME`].
    pub mv: u16,
}

/// What a busy position's summary needs of a game, owned.
#[derive(Clone, Debug, Default)]
struct OwnedFacts {
    result: Option<Outcome>,
    ratings: [Option<u32>; 2],
    date: Option<String>,
    real_names: bool,
    label: Option<String>,
    speed: Option<Speed>,
    mode: Option<Mode>,
    termination: Option<Termination>,
}

impl OwnedFacts {
    fn facts(&self) -> Facts<'_> {
        Facts {
            result: self.result,
            ratings: self.ratings,
            date: self.date.as_deref(),
            real_names: self.real_names,
            label: self.label.as_deref(),
            speed: self.speed,
            mode: self.mode,
            termination: self.termination,
        }
    }
}

/// The games of a fresh load by id (1, 2, …): what the busy positions count of each, taken
/// with `Facts::of` from the records as [`Store::write_batch`] stored them.
#[derive(Clone, Debug, Default)]
pub struct LoadedGames {
    facts: Vec<OwnedFacts>,
}

impl LoadedGames {
    /// Adds the game stored with the next id.
    pub fn push(&mut self, r: &GameRecord) {
        let f = Facts::of(r.result, &r.tags, r.opening_label.as_deref());
        self.facts.push(OwnedFacts {
            result: f.result,
            ratings: f.ratings,
            date: f.date.map(str::to_string),
            real_names: f.real_names,
            label: f.label.map(str::to_string),
            speed: f.speed,
            mode: f.mode,
            termination: f.termination,
        });
    }

    /// Games added.
    pub fn len(&self) -> usize {
        self.facts.len()
    }

    /// No game added.
    pub fn is_empty(&self) -> bool {
        self.facts.is_empty()
    }

    fn get(&self, id: i64) -> Option<&OwnedFacts> {
        usize::try_from(id)
            .ok()
            .and_then(|i| i.checked_sub(1))
            .and_then(|i| self.facts.get(i))
    }
}

/// What [`Store::load_positions`] wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LoadOutcome {
    /// Distinct positions.
    pub positions: u64,
    /// Of which busy (more than `LIST_MAX` games: a summary and buckets of their own).
    pub busy: u64,
    /// (position, game) links.
    pub links: u64,
}

impl Store {
    /// Whether the database holds no game yet (a fresh load may write into it).
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails.
    pub fn has_no_games(&self) -> Result<bool, StoreError> {
        let n: i64 = self.conn.query_row(sql::ANY_GAME, [], |r| r.get(0))?;
        Ok(n == 0)
    }

    /// Writes the position statistics of a fresh database in one transaction from `rows`,
    /// sorted by position key (in the signed order of the table, as Spark sorts a `long`)
    /// and then by game id, each (position, game) once. `games` are the games stored so far
    /// (ids 1 … n), whose facts the busy positions count.
    ///
    /// # Errors
    /// [`StoreError::Setting`] if the database already has position statistics,
    /// [`StoreError::Corrupt`] if the rows are not sorted, repeat a pair or name a game that
    /// is not stored (nothing is written then), [`StoreError`] if SQLite fails or a row
    /// does (the error of the iterator).
    pub fn load_positions<I>(
        &mut self,
        games: &LoadedGames,
        rows: I,
    ) -> Result<LoadOutcome, StoreError>
    where
        I: IntoIterator<Item = Result<PositionRow, StoreError>>,
    {
        let any: i64 = self.conn.query_row(sql::ANY_RANGE, [], |r| r.get(0))?;
        if any != 0 {
            return Err(StoreError::Setting(
                "this database already has position statistics: a bulk load writes only a fresh one".into(),
            ));
        }
        let tx = Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)?;
        let mut out = LoadOutcome::default();
        let mut packer = Packer::default();
        let mut packed = 0;
        // The start of the range being packed: the lowest key for the first one, as an
        // import's first range.
        let mut start = i64::MIN;
        let mut group: Vec<Link> = Vec::new();
        let mut key: Option<PositionKey> = None;
        let flush = |packer: &mut Packer, start: i64| -> Result<(), StoreError> {
            let mut replace = self.conn.prepare_cached(sql::REPLACE_RANGE)?;
            for (s, blob) in packer.rows(start) {
                replace.execute(rusqlite::params![s, blob])?;
            }
            *packer = Packer::default();
            Ok(())
        };
        let mut rows = rows.into_iter();
        loop {
            let row = rows.next().transpose()?;
            let next_key = row.map(|r| r.key);
            if key.is_some() && next_key != key {
                let Some(k) = key else { break };
                if packed >= FLUSH_ENTRIES {
                    flush(&mut packer, start)?;
                    start = k.to_rowid();
                    packed = 0;
                }
                self.load_one(games, k, &group, &mut packer, &mut out)?;
                packed += 1;
                group.clear();
            }
            let Some(row) = row else { break };
            if let Some(k) = key {
                let before = (k.table_order(), group.last().map_or(i64::MIN, |l| l.game));
                if (row.key.table_order(), row.game) <= before {
                    return Err(StoreError::Corrupt(format!(
                        "position rows out of order at position {} game {}: sort them by key, then game id",
                        row.key, row.game
                    )));
                }
            }
            key = Some(row.key);
            group.push(Link {
                game: row.game,
                mv: row.mv,
            });
        }
        if packed > 0 {
            flush(&mut packer, start)?;
        }
        tx.commit()?;
        Ok(out)
    }

    /// One position's links (sorted by id): packed quiet, or counted and stored busy.
    fn load_one(
        &self,
        games: &LoadedGames,
        key: PositionKey,
        links: &[Link],
        packer: &mut Packer,
        out: &mut LoadOutcome,
    ) -> Result<(), StoreError> {
        out.positions += 1;
        out.links += links.len() as u64;
        for l in links {
            if games.get(l.game).is_none() {
                return Err(StoreError::Corrupt(format!(
                    "position {key}: game {} is not among the {} games loaded",
                    l.game,
                    games.len()
                )));
            }
            super::links::move_from_code(l.mv).map_err(|e| {
                StoreError::Corrupt(format!("position {key}, game {}: {e}", l.game))
            })?;
        }
        if links.len() <= LIST_MAX {
            packer.push_links(key.to_rowid(), links);
            return Ok(());
        }
        out.busy += 1;
        let facts: Vec<Facts<'_>> = links
            .iter()
            .filter_map(|l| games.get(l.game).map(OwnedFacts::facts))
            .collect();
        let counted: Vec<Counted<'_>> = links
            .iter()
            .zip(&facts)
            .map(|(l, f)| Counted {
                id: l.game,
                facts: *f,
                game: f.game_facts(),
                positions: &[],
            })
            .collect();
        let new: Vec<(Link, &Counted<'_>)> = links.iter().copied().zip(&counted).collect();
        let (mut summary, mut buckets) = (Summary::default(), Buckets::default());
        add_all(&mut summary, &mut buckets, &new)?;
        self.write_busy(key, &summary, links, &buckets)?;
        packer.push_busy(key.to_rowid());
        Ok(())
    }
}

/// The store's codes for a game's values, for files that carry games outside a database
/// (`qipu emit` writes them, `qipu load` reads them back): the same codes as the `games`
/// table.
pub mod wire {
    use crate::rules::{Move, Outcome, Variant};

    /// A variant's code (Xiangqi 0, Janggi 1).
    pub fn variant_code(v: Variant) -> i64 {
        super::super::codec::variant_code(v)
    }

    /// The variant of a code.
    pub fn variant_from_code(c: i64) -> Option<Variant> {
        super::super::codec::variant_from_code(c)
    }

    /// A result's code (0 unknown, 1 first won, 2 draw, 3 second won).
    pub fn result_code(r: Option<Outcome>) -> i64 {
        super::super::codec::result_code(r)
    }

    /// The result of a code (anything else than 1–3 is unknown).
    pub fn result_from_code(c: i64) -> Option<Outcome> {
        super::super::codec::result_from_code(c)
    }

    /// A main line as the `games.moves` blob.
    pub fn pack_moves(moves: &[Move]) -> Vec<u8> {
        super::super::codec::pack_moves(moves)
    }

    /// The inverse of [`pack_moves`]; `None` if a code is not a move.
    pub fn unpack_moves(blob: &[u8]) -> Option<Vec<Move>> {
        super::super::codec::unpack_moves(blob)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        formats::{facts::TimeControl, Game, MoveNode, Source},
        rules::{AnyPosition, Variant},
        store::{BucketFilter, END_OF_GAME},
    };

    /// 100 games from the start: the start and the first plies are busy, later ones quiet;
    /// dated, rated, with clocks.
    fn records() -> Vec<GameRecord> {
        let mut out = Vec::new();
        let mut seed = 7u64;
        let mut next = |n: usize| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            ((seed >> 33) % n as u64) as usize
        };
        for i in 0..100 {
            let mut pos = AnyPosition::new(Variant::Xiangqi);
            let mut g = Game::new(
                Variant::Xiangqi,
                Source {
                    file: "t.pgn".into(),
                    index: i,
                },
            );
            for ply in 0..(3 + next(12)) {
                let legal = pos.legal_moves();
                let m = legal[next(if ply < 2 { 2 } else { legal.len() })];
                g.moves.push(MoveNode::new(m.to_string()));
                pos.play_unchecked(m);
            }
            g.tags.date = Some(format!(
                "{}-{:02}-{:02}",
                2000 + next(20),
                1 + next(12),
                next(29)
            ));
            g.tags.first = Some(format!("P{}", next(5)));
            g.tags.first_rating = (next(3) > 0).then(|| 1000 + next(1600) as u32);
            g.tags.time_control = (next(2) == 0).then_some(TimeControl {
                base_secs: 60 * (1 + next(30) as u32),
                increment_secs: next(5) as u32,
            });
            g.tags.ecco = Some(format!("A{:02}", next(4)));
            out.push(GameRecord::from_game(&g, 40).unwrap());
        }
        out
    }

    /// The job's output, made here: each (position, game id) once, sorted by key then id.
    fn sorted_rows(records: &[GameRecord]) -> Vec<PositionRow> {
        let mut rows: Vec<PositionRow> = records
            .iter()
            .enumerate()
            .flat_map(|(i, r)| {
                r.positions.iter().map(move |&(key, mv)| PositionRow {
                    key,
                    game: i as i64 + 1,
                    mv: mv.map_or(END_OF_GAME, crate::rules::Move::to_u16),
                })
            })
            .collect();
        rows.sort_by_key(|r| (r.key.to_rowid(), r.game));
        rows
    }

    fn bulk(records: &[GameRecord]) -> (Store, LoadOutcome) {
        let mut store = Store::open_in_memory().unwrap();
        let mut games = LoadedGames::default();
        let bare: Vec<GameRecord> = records
            .iter()
            .map(|r| GameRecord {
                positions: Vec::new(),
                ..r.clone()
            })
            .collect();
        store.write_batch(&bare).unwrap();
        for r in &bare {
            games.push(r);
        }
        let rows = sorted_rows(records);
        let out = store
            .load_positions(&games, rows.into_iter().map(Ok))
            .unwrap();
        (store, out)
    }

    #[test]
    fn a_bulk_load_answers_as_import_batches() {
        let records = records();
        let mut imported = Store::open_in_memory().unwrap();
        // The import in three batches: busy positions cross LIST_MAX between them.
        for part in records.chunks(40) {
            imported.write_batch(part).unwrap();
        }
        let (loaded, out) = bulk(&records);
        assert!(out.busy >= 2, "{out:?}");
        let a = imported.stats().unwrap();
        let b = loaded.stats().unwrap();
        assert_eq!(
            (a.positions, a.position_moves, a.position_games),
            (b.positions, b.position_moves, b.position_games)
        );
        assert_eq!(out.positions, b.positions);
        let filters = [
            BucketFilter::default(),
            BucketFilter {
                since: Some("2010-03".parse().unwrap()),
                min_rating: Some(1400),
                ..BucketFilter::default()
            },
            BucketFilter {
                speeds: vec![Speed::Blitz, Speed::Rapid],
                ..BucketFilter::default()
            },
        ];
        let mut keys: Vec<PositionKey> = sorted_rows(&records).iter().map(|r| r.key).collect();
        keys.dedup();
        for key in keys {
            assert_eq!(
                imported.lookup(key, 100).unwrap(),
                loaded.lookup(key, 100).unwrap()
            );
            for f in &filters {
                assert_eq!(
                    imported.moves_filtered(key, f).unwrap(),
                    loaded.moves_filtered(key, f).unwrap(),
                    "{key} {f:?}"
                );
            }
        }
    }

    #[test]
    fn rows_out_of_order_unknown_games_and_a_second_load_are_refused() {
        let records = records();
        let (mut store, _) = bulk(&records);
        let games = LoadedGames::default();
        // The database has statistics now.
        assert!(matches!(
            store.load_positions(&games, std::iter::empty()),
            Err(StoreError::Setting(_))
        ));
        let mut fresh = Store::open_in_memory().unwrap();
        let mut rows = sorted_rows(&records);
        rows.swap(0, 1);
        let mut loaded = LoadedGames::default();
        for r in &records {
            loaded.push(r);
        }
        let err = fresh.load_positions(&loaded, rows.into_iter().map(Ok));
        assert!(matches!(err, Err(StoreError::Corrupt(m)) if m.contains("out of order")));
        let rows = sorted_rows(&records);
        let err = fresh.load_positions(&LoadedGames::default(), rows.into_iter().map(Ok));
        assert!(matches!(err, Err(StoreError::Corrupt(m)) if m.contains("not among")));
        // Nothing was written by the refused loads.
        assert_eq!(fresh.stats().unwrap().positions, 0);
    }
}
