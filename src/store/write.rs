//! Writing import batches: games and their statistics in one transaction.

use super::{
    codec::{pack_moves, result_code, variant_code},
    position::{encode_links, Facts, Link, Summary, LIST_MAX},
    read::StoredGame,
    record::{distinct_positions, opening_label, GameRecord},
    Store, StoreError,
};
use crate::rules::{AnyPosition, Variant};

/// What a batch did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BatchOutcome {
    /// New games stored and counted.
    pub imported: u64,
    /// Games already in the database (or earlier in the batch), not counted again.
    pub duplicates: u64,
}

const INSERT_GAME: &str = "INSERT OR IGNORE INTO games (hash, variant, source_file, source_index, \
    event, site, round, date, first, second, first_rating, second_rating, result, ecco, opening, \
    variation, first_formation, second_formation, start_fen, plies, moves) \
    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21)";

const INSERT_POSITION: &str =
    "INSERT OR IGNORE INTO positions (key, summary, links) VALUES (?1, ?2, ?3)";

const REPLACE_POSITION: &str =
    "INSERT OR REPLACE INTO positions (key, summary, links) VALUES (?1, ?2, ?3)";

/// A new game's share of the position statistics.
pub(super) struct Counted<'a> {
    pub id: i64,
    pub facts: Facts<'a>,
    /// `(key, move code, ply)` of each distinct position, as [`GameRecord::positions`].
    pub positions: &'a [(u64, u16, u16)],
}

impl Store {
    /// Stores a batch of games and adds the statistics of the new ones, all in one
    /// transaction: either the whole batch is in the database or none of it. Games whose
    /// content hash is already stored (or repeats within the batch) are skipped.
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails; the batch is then rolled back.
    pub fn write_batch(&mut self, records: &[GameRecord]) -> Result<BatchOutcome, StoreError> {
        let tx = self.conn.unchecked_transaction()?;
        let mut out = BatchOutcome::default();
        let mut counted = Vec::with_capacity(records.len());
        {
            let mut insert = tx.prepare_cached(INSERT_GAME)?;
            for r in records {
                let t = &r.tags;
                let changed = insert.execute(rusqlite::params![
                    r.hash as i64,
                    variant_code(r.variant),
                    r.source.file,
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
                    pack_moves(&r.moves),
                ])?;
                if changed == 0 {
                    out.duplicates += 1;
                    continue;
                }
                out.imported += 1;
                counted.push(Counted {
                    id: tx.last_insert_rowid(),
                    facts: r.facts(),
                    positions: &r.positions,
                });
            }
        }
        self.add_positions(&counted)?;
        tx.commit()?;
        Ok(out)
    }

    /// Recomputes the statistics of every position from the stored games (the Rust step of
    /// the migration to schema 2), in the caller's transaction.
    pub(super) fn rebuild_positions(&self) -> Result<(), StoreError> {
        let max_ply = self.max_ply()?.unwrap_or(crate::pipeline::DEFAULT_MAX_PLY);
        for variant in Variant::ALL {
            let mut games = self.games(variant).peekable();
            while games.peek().is_some() {
                let chunk: Vec<StoredGame> =
                    games.by_ref().take(10_000).collect::<Result<_, _>>()?;
                let mut prepared = Vec::with_capacity(chunk.len());
                for g in &chunk {
                    let start = AnyPosition::from_fen(variant, &g.start_fen).map_err(|e| {
                        StoreError::Corrupt(format!("game {}: start position: {e}", g.id))
                    })?;
                    let positions = distinct_positions(&start, &g.moves, max_ply);
                    prepared.push((opening_label(variant, &g.tags), positions));
                }
                let counted: Vec<Counted<'_>> = chunk
                    .iter()
                    .zip(&prepared)
                    .map(|(g, (label, positions))| Counted {
                        id: g.id,
                        facts: Facts {
                            result: g.result,
                            ratings: [g.tags.first_rating, g.tags.second_rating],
                            date: g.tags.date.as_deref(),
                            label: label.as_deref(),
                        },
                        positions,
                    })
                    .collect();
                self.add_positions(&counted)?;
            }
        }
        Ok(())
    }

    /// Adds games to the statistics of the positions they went through: one read and one
    /// write of each position's row, in key order. Runs inside the caller's transaction.
    pub(super) fn add_positions(&self, games: &[Counted<'_>]) -> Result<(), StoreError> {
        // (key, game id, index in `games`, move code), sorted: each key's games together,
        // by id.
        let mut touches: Vec<(i64, i64, u32, u16)> =
            Vec::with_capacity(games.iter().map(|g| g.positions.len()).sum());
        for (i, g) in games.iter().enumerate() {
            for &(key, mv, _) in g.positions {
                touches.push((key as i64, g.id, i as u32, mv));
            }
        }
        touches.sort_unstable();
        let mut insert = self.conn.prepare_cached(INSERT_POSITION)?;
        let mut replace = self.conn.prepare_cached(REPLACE_POSITION)?;
        for group in touches.chunk_by(|a, b| a.0 == b.0) {
            let key = group[0].0;
            let add_group = |s: &mut Summary| -> Result<(), StoreError> {
                for &(_, id, i, mv) in group {
                    s.add(id, mv, &games[i as usize].facts)?;
                }
                Ok(())
            };
            let mut links: Vec<Link> = group
                .iter()
                .map(|&(_, game, _, mv)| Link { game, mv })
                .collect();
            // Most positions are new: try the insert first, merge only if the key is taken.
            let mut summary = None;
            if links.len() > LIST_MAX {
                let mut s = Summary::default();
                add_group(&mut s)?;
                summary = Some(s);
            }
            let blobs = (summary.as_ref().map(Summary::encode), encode_links(&links));
            if insert.execute(rusqlite::params![key, blobs.0, blobs.1])? == 1 {
                continue;
            }
            let Some(old) = self.position_row(key as u64)? else {
                return Err(StoreError::Corrupt(format!("position {key:016x} vanished")));
            };
            let mut merged = old.links;
            let before = merged.len();
            merged.append(&mut links);
            if merged[..before]
                .last()
                .is_some_and(|l| l.game >= merged[before].game)
            {
                merged.sort_unstable();
                merged.dedup_by_key(|l| l.game);
            }
            let summary = match old.summary {
                Some(mut s) => {
                    add_group(&mut s)?;
                    Some(s)
                }
                None if merged.len() > LIST_MAX => {
                    let mut s = Summary::default();
                    for l in &merged[..before] {
                        s.add(l.game, l.mv, &self.through(l.game, l.mv)?.facts())?;
                    }
                    add_group(&mut s)?;
                    Some(s)
                }
                None => None,
            };
            replace.execute(rusqlite::params![
                key,
                summary.map(|s| s.encode()),
                encode_links(&merged)
            ])?;
        }
        Ok(())
    }
}
