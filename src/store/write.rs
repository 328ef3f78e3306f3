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
        // One u128 per (position, game), sorted: each key's games together, in batch order
        // (which is id order).
        let mut touches: Vec<u128> =
            Vec::with_capacity(games.iter().map(|g| g.positions.len()).sum());
        for (i, g) in games.iter().enumerate() {
            for &(key, mv, _) in g.positions {
                touches.push(Touch::pack(key, i, mv));
            }
        }
        touches.sort_unstable();
        let mut insert = self.conn.prepare_cached(INSERT_POSITION)?;
        for group in touches.chunk_by(|a, b| a >> 64 == b >> 64) {
            let key = Touch::key(group[0]) as i64;
            let new: Vec<(Link, &Facts<'_>)> = group
                .iter()
                .map(|&t| {
                    let (i, mv) = Touch::game(t);
                    (
                        Link {
                            game: games[i].id,
                            mv,
                        },
                        &games[i].facts,
                    )
                })
                .collect();
            // Most positions are new: try the insert first, merge only if the key is taken.
            let summary = if new.len() > LIST_MAX {
                let mut s = Summary::default();
                add_all(&mut s, &new)?;
                Some(s.encode())
            } else {
                None
            };
            let mut links: Vec<Link> = new.iter().map(|(l, _)| *l).collect();
            links.sort_unstable();
            let blob = encode_links(&links);
            if insert.execute(rusqlite::params![key, summary, blob])? == 0 {
                self.merge_position(key, links, &new)?;
            }
        }
        Ok(())
    }

    /// Adds a batch's games to a position that is already stored: its row is read, merged
    /// and replaced.
    fn merge_position(
        &self,
        key: i64,
        mut links: Vec<Link>,
        new: &[(Link, &Facts<'_>)],
    ) -> Result<(), StoreError> {
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
                add_all(&mut s, new)?;
                Some(s)
            }
            None if merged.len() > LIST_MAX => {
                let mut s = Summary::default();
                for l in &merged[..before] {
                    s.add(l.game, l.mv, &self.through(l.game, l.mv)?.facts())?;
                }
                add_all(&mut s, new)?;
                Some(s)
            }
            None => None,
        };
        self.conn
            .prepare_cached(REPLACE_POSITION)?
            .execute(rusqlite::params![
                key,
                summary.map(|s| s.encode()),
                encode_links(&merged)
            ])?;
        Ok(())
    }
}

/// A (position, game) pair packed in a u128 that sorts by position key (in the signed order
/// of the table's rowid), then by the game's index in its batch.
struct Touch;

impl Touch {
    fn pack(key: u64, index: usize, mv: u16) -> u128 {
        u128::from(key ^ 1 << 63) << 64 | (index as u128) << 16 | u128::from(mv)
    }

    fn key(t: u128) -> u64 {
        (t >> 64) as u64 ^ 1 << 63
    }

    /// The game's index in its batch and the move code.
    fn game(t: u128) -> (usize, u16) {
        ((t as u64 >> 16) as usize, t as u16)
    }
}

/// Counts games in a summary.
fn add_all(s: &mut Summary, games: &[(Link, &Facts<'_>)]) -> Result<(), StoreError> {
    for (l, facts) in games {
        s.add(l.game, l.mv, facts)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::Touch;

    #[test]
    fn touches_sort_by_signed_key_then_batch_order_and_unpack() {
        let keys = [u64::MAX, 0, 1 << 63, 5, (1 << 63) - 1];
        let mut touches: Vec<u128> = keys
            .iter()
            .enumerate()
            .flat_map(|(i, &k)| [Touch::pack(k, 7 - i, 0xffff), Touch::pack(k, i, 42)])
            .collect();
        touches.sort_unstable();
        let order: Vec<(i64, usize, u16)> = touches
            .iter()
            .map(|&t| {
                let (i, mv) = Touch::game(t);
                (Touch::key(t) as i64, i, mv)
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
