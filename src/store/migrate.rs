//! Forward migrations: `schema/NNN_*.sql`, applied in order, each in one transaction that
//! also bumps `PRAGMA user_version` and runs the migration's Rust step, if it has one.

use rusqlite::{Connection, Transaction, TransactionBehavior};

use super::{
    buckets::Buckets,
    codec, guard,
    model::{PositionKey, StoredGame},
    players::Players,
    sql,
    summary::{Facts, Summary},
    write::Counted,
    Store, StoreError, DEFAULT_MAX_PLY,
};
use crate::{
    formats::distinct_positions,
    rules::{AnyPosition, Move, Variant},
};

/// A migration's Rust step: what must be computed after its SQL, in the same transaction.
type Step = fn(&Store) -> Result<(), StoreError>;

/// A schema change: its SQL, then its Rust step if any.
pub(super) struct Migration {
    pub name: &'static str,
    pub sql: &'static str,
    pub then: Option<Step>,
}

/// Every migration, in order; `user_version` = how many have been applied.
pub(super) const MIGRATIONS: &[Migration] = &[
    Migration {
        name: "001_init",
        sql: include_str!("../../schema/001_init.sql"),
        then: None,
    },
    Migration {
        name: "002_positions",
        sql: include_str!("../../schema/002_positions.sql"),
        // The statistics are rebuilt by the next migration.
        then: None,
    },
    Migration {
        name: "003_ranges_and_sources",
        sql: include_str!("../../schema/003_ranges_and_sources.sql"),
        // Until schema 4 this step rebuilt the statistics; schema 4's step rebuilds them
        // again, so a database of schema 2 is replayed once, by it.
        then: None,
    },
    Migration {
        name: "004_filters",
        sql: include_str!("../../schema/004_filters.sql"),
        // Schema 6's step rebuilds everything again: a database older than 6 is replayed
        // once, by it.
        then: None,
    },
    Migration {
        name: "005_evals",
        sql: include_str!("../../schema/005_evals.sql"),
        then: None,
    },
    Migration {
        name: "006_copies",
        sql: include_str!("../../schema/006_copies.sql"),
        then: Some(Store::merge_copies_and_rebuild),
    },
    Migration {
        name: "007_answers",
        sql: include_str!("../../schema/007_answers.sql"),
        then: Some(Store::rebuild_busy),
    },
    Migration {
        name: "008_top_games",
        sql: include_str!("../../schema/008_top_games.sql"),
        // The kept best games are ranked again (a known result, real names, rating, date).
        then: Some(Store::rebuild_busy),
    },
    Migration {
        name: "009_bucket_parts",
        sql: include_str!("../../schema/009_bucket_parts.sql"),
        then: Some(Store::reencode_buckets),
    },
    Migration {
        name: "010_compact_cells",
        sql: include_str!("../../schema/010_compact_cells.sql"),
        // Format 3 decodes to the same cells; they are written in format 4.
        then: Some(Store::reencode_buckets),
    },
    Migration {
        name: "011_lists",
        sql: include_str!("../../schema/011_lists.sql"),
        // Every position of more than 1,000 games gets its full lists.
        then: Some(Store::rebuild_lists),
    },
    Migration {
        name: "012_compact_games",
        sql: include_str!("../../schema/012_compact_games.sql"),
        // Every game's moves as piece codes.
        then: Some(Store::repack_lines),
    },
    Migration {
        name: "013_fen_starts",
        sql: include_str!("../../schema/013_fen_starts.sql"),
        then: None,
    },
    Migration {
        name: "014_buckets_5",
        sql: include_str!("../../schema/014_buckets_5.sql"),
        // Buckets format 4 decodes to the same moves' cells, summary format 3 to the same
        // summary; they are written in formats 5 and 4.
        then: Some(Store::reencode_busy),
    },
    Migration {
        name: "015_persons",
        sql: include_str!("../../schema/015_persons.sql"),
        // Every player's person, from the names, their games and who met whom.
        then: Some(Store::resolve_persons_step),
    },
    Migration {
        name: "016_truncated",
        sql: include_str!("../../schema/016_truncated.sql"),
        // Every game stored so far is whole: the column stays NULL.
        then: None,
    },
    Migration {
        name: "017_person_rules",
        sql: include_str!("../../schema/017_person_rules.sql"),
        // The persons again, now with qipu's own spelling file (data/players.tsv).
        then: Some(Store::resolve_persons_step),
    },
    Migration {
        name: "018_segments",
        sql: include_str!("../../schema/018_segments.sql"),
        // The tables of the statistics stay as they are: they are segment 1.
        then: None,
    },
];

fn version(conn: &Connection) -> Result<i64, StoreError> {
    Ok(conn.query_row(sql::USER_VERSION, [], |r| r.get(0))?)
}

fn too_new(v: i64) -> StoreError {
    StoreError::Schema(format!(
        "schema version {v} is newer than this qipu understands ({}); upgrade qipu",
        MIGRATIONS.len()
    ))
}

/// Applies the migrations the database lacks.
pub(super) fn migrate(store: &Store) -> Result<(), StoreError> {
    let v = version(&store.conn)?;
    if v > MIGRATIONS.len() as i64 {
        return Err(too_new(v));
    }
    let mut applied = 0;
    for (i, m) in MIGRATIONS.iter().enumerate().skip(v.max(0) as usize) {
        // The write lock is taken first, then the version read again: of two processes
        // opening a new file together, one applies the migration and the other skips it.
        let tx = Transaction::new_unchecked(&store.conn, TransactionBehavior::Immediate)?;
        if version(&tx)? > i as i64 {
            continue;
        }
        tx.execute_batch(m.sql)
            .map_err(|source| StoreError::Migration {
                name: m.name,
                source,
            })?;
        if let Some(step) = m.then {
            step(store)?;
        }
        tx.pragma_update(None, "user_version", i as i64 + 1)?;
        tx.commit()?;
        applied += 1;
    }
    // Only this process's upgrade of an existing file: not a new file another process is
    // creating at the same moment (VACUUM would wait for it, or fail).
    if v > 0 && applied > 0 {
        // An upgrade rewrote tables: give the freed pages back to the file system, and let
        // the file give back later ones on request (a compaction's, `guard::release_free_pages`).
        guard::free_pages_on_request(&store.conn)?;
        store.conn.execute_batch(sql::VACUUM)?;
    }
    Ok(())
}

/// A read-only handle cannot migrate: the file must be at exactly this build's version.
pub(super) fn check_read_only(conn: &Connection) -> Result<(), StoreError> {
    let v = version(conn)?;
    let want = MIGRATIONS.len() as i64;
    if v == 0 {
        Err(StoreError::Schema(
            "not a qipu database (run `qipu import` to create one)".into(),
        ))
    } else if v > want {
        Err(too_new(v))
    } else if v < want {
        Err(StoreError::Schema(format!(
            "schema version {v} is older than {want}; run `qipu import` once to upgrade it"
        )))
    } else {
        Ok(())
    }
}

impl Store {
    /// Every busy position's key (as its rowid), in key order.
    fn busy_keys(&self) -> Result<Vec<i64>, StoreError> {
        let mut stmt = self.conn.prepare(sql::BUSY_KEYS)?;
        let rows = stmt.query_map([], |r| r.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Rewrites every busy position's summary and buckets in the current formats, counted
    /// again from its links and the stored games (a migration's Rust step, in the caller's
    /// transaction; the links and the range rows stay as they are).
    pub(super) fn rebuild_busy(&self) -> Result<(), StoreError> {
        for rowid in self.busy_keys()? {
            let key = PositionKey::from_rowid(rowid);
            let row = self.busy_row_links(key)?;
            let (summary, games) = self.summarize(&row)?;
            let mut buckets = Buckets::default();
            buckets.add(
                row.iter()
                    .zip(&games)
                    .map(|(l, g)| (l.mv, l.game, g.facts().game_facts()))
                    .collect(),
            );
            self.conn
                .prepare_cached(sql::UPDATE_BUSY_BLOBS)?
                .execute(rusqlite::params![rowid, summary.encode(), buckets.encode()])?;
        }
        Ok(())
    }

    /// Rewrites every busy position's buckets in the current format from the cells it holds
    /// (a migration's Rust step, in the caller's transaction; nothing is counted again).
    pub(super) fn reencode_buckets(&self) -> Result<(), StoreError> {
        for rowid in self.busy_keys()? {
            let key = PositionKey::from_rowid(rowid);
            let blob: Option<Vec<u8>> = self
                .conn
                .prepare_cached(sql::BUSY_BUCKETS)?
                .query_row([rowid], |r| r.get(0))?;
            let Some(blob) = blob else {
                return Err(StoreError::Corrupt(format!(
                    "position {key} is marked busy but has no buckets"
                )));
            };
            let buckets = Buckets::decode(&blob).map_err(|e| super::read::at_position(key, e))?;
            self.conn
                .prepare_cached(sql::UPDATE_BUSY_BUCKETS)?
                .execute(rusqlite::params![rowid, buckets.encode()])?;
        }
        Ok(())
    }

    /// Rewrites every busy position's summary and buckets in the current formats from what
    /// they hold (a migration's Rust step, in the caller's transaction; nothing is counted
    /// again).
    fn reencode_busy(&self) -> Result<(), StoreError> {
        for rowid in self.busy_keys()? {
            let key = PositionKey::from_rowid(rowid);
            let blobs: (Option<Vec<u8>>, Option<Vec<u8>>) = self
                .conn
                .prepare_cached(sql::BUSY_SUMMARY_BUCKETS)?
                .query_row([rowid], |r| Ok((r.get(0)?, r.get(1)?)))?;
            let (Some(summary), Some(buckets)) = blobs else {
                return Err(StoreError::Corrupt(format!(
                    "position {key} is marked busy but has no summary or no buckets"
                )));
            };
            let at = |e| super::read::at_position(key, e);
            let summary = Summary::decode(&summary).map_err(at)?;
            let buckets = Buckets::decode(&buckets).map_err(at)?;
            self.conn
                .prepare_cached(sql::UPDATE_BUSY_BLOBS)?
                .execute(rusqlite::params![rowid, summary.encode(), buckets.encode()])?;
        }
        Ok(())
    }

    /// Rewrites every stored game's moves in the current `games.moves` format (a
    /// migration's Rust step, in the caller's transaction; the moves read back the same).
    fn repack_lines(&self) -> Result<(), StoreError> {
        let mut after = i64::MIN;
        loop {
            let page: Vec<(i64, i64, Option<String>, Vec<u8>)> = self
                .conn
                .prepare_cached(sql::LINES_PAGE)?
                .query_map([after], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
                })?
                .collect::<Result<_, _>>()?;
            let Some(last) = page.last() else {
                return Ok(());
            };
            after = last.0;
            let mut set = self.conn.prepare_cached(sql::SET_MOVES)?;
            for (id, variant, fen, blob) in page {
                let bad = || StoreError::Corrupt(format!("game {id}: bad moves"));
                let variant = codec::variant_from_code(variant).ok_or_else(bad)?;
                let moves = codec::stored_line(variant, fen.as_deref(), &blob).ok_or_else(bad)?;
                set.execute(rusqlite::params![
                    id,
                    codec::stored_blob(variant, fen.as_deref(), &moves)
                ])?;
            }
        }
    }

    /// The schema-6 step: the copies of each game merged into its richest one
    /// (`store::copies`), then every statistic rebuilt from the games left.
    fn merge_copies_and_rebuild(&self) -> Result<(), StoreError> {
        self.merge_stored_copies()?;
        self.rebuild_positions()
    }

    /// Recomputes the statistics of every position and every game's facts row from the
    /// stored games, in the caller's transaction (a migration's Rust step; the position and
    /// facts tables are empty when it starts).
    pub(super) fn rebuild_positions(&self) -> Result<(), StoreError> {
        let max_ply = self.max_ply()?.unwrap_or(DEFAULT_MAX_PLY);
        for variant in Variant::ALL {
            let mut games = self.games(variant).peekable();
            while games.peek().is_some() {
                let chunk: Vec<StoredGame> =
                    games.by_ref().take(10_000).collect::<Result<_, _>>()?;
                let mut prepared = Vec::with_capacity(chunk.len());
                for g in &chunk {
                    let start = AnyPosition::from_fen(variant, &g.start_fen)
                        .map_err(|source| StoreError::StartPosition { game: g.id, source })?;
                    let positions: Vec<(PositionKey, Option<Move>)> =
                        distinct_positions(&start, &g.moves, max_ply)
                            .into_iter()
                            .map(|(k, m)| (PositionKey(k), m))
                            .collect();
                    prepared.push((g.tags.opening_label(variant), positions));
                }
                let counted: Vec<Counted<'_>> = chunk
                    .iter()
                    .zip(&prepared)
                    .map(|(g, (label, positions))| {
                        let facts = Facts::of(g.result, &g.tags, label.as_deref());
                        Counted {
                            id: g.id,
                            game: facts.game_facts(),
                            facts,
                            positions,
                        }
                    })
                    .collect();
                let mut insert = self.conn.prepare_cached(sql::INSERT_GAME_FACTS)?;
                for c in &counted {
                    insert.execute(rusqlite::params![c.id, c.game.encode()])?;
                }
                let players: Vec<Players<'_>> = chunk
                    .iter()
                    .map(|g| Players {
                        id: g.id,
                        first: g.tags.first.as_deref(),
                        second: g.tags.second.as_deref(),
                    })
                    .collect();
                self.index_players(&players)?;
                self.add_positions(&counted)?;
            }
        }
        Ok(())
    }
}
