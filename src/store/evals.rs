//! Engine evaluations (`schema/005_evals.sql`): per (position, move) a score from the side to
//! move's view, its depth and the engine configuration, and per position the engine's own
//! choice. The SQL for evaluations only; which positions to analyse and the engines
//! themselves are `crate::analysis` and `crate::engine`.
//!
//! A score is replaced only by a deeper one, so a later, deeper run upgrades a database and a
//! shallower one changes nothing. Each write is one transaction: a killed `qipu analyse`
//! loses at most the positions it had not written yet.
//!
//! ```
//! use qipu::store::{Store, evals::EvalRow};
//! use qipu::formats::facts::Score;
//!
//! let mut store = Store::open_in_memory()?;
//! let engine = store.eval_engine("Fairy-Stockfish 11.1", "Threads=1")?;
//! let mv = "h2e2".parse().unwrap();
//! let row = EvalRow { mv, score: Score::Cp(25), depth: 10 };
//! store.write_position_evals(engine, 42, Some((Some(mv), 10)), &[row])?;
//! let shallower = EvalRow { depth: 8, score: Score::Cp(-300), ..row };
//! store.write_position_evals(engine, 42, None, &[shallower])?; // kept out: not deeper
//! let evals = store.evals_at(42)?;
//! assert_eq!((evals[0].score, evals[0].depth, evals[0].best), (Score::Cp(25), 10, true));
//! assert_eq!(store.engine_best(42)?.unwrap().mv, Some(mv));
//! # Ok::<_, qipu::store::StoreError>(())
//! ```

use std::collections::HashMap;

use rusqlite::{params, OptionalExtension};

use super::{PositionKey, Store, StoreError};
use crate::{formats::facts::Score, rules::Move};

/// Move scores with their depths, by (position key, move).
pub type MoveScores = HashMap<(u64, Move), (Score, u32)>;

/// One move's score to store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EvalRow {
    /// The move.
    pub mv: Move,
    /// Its score from the mover's view.
    pub score: Score,
    /// Search depth.
    pub depth: u32,
}

/// A stored score, with the engine that gave it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredEval {
    /// The move.
    pub mv: Move,
    /// Its score from the view of the side to move in the position.
    pub score: Score,
    /// Search depth.
    pub depth: u32,
    /// The engine's name.
    pub engine: String,
    /// The options it ran with (`Name=Value, …`).
    pub options: String,
    /// Whether this is the engine's own choice in the position ([`Store::engine_best`]).
    pub best: bool,
}

/// The engine's own choice in a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineBest {
    /// The move (`None`: the engine found none, the game is over there).
    pub mv: Option<Move>,
    /// The depth of the search that chose it.
    pub depth: u32,
    /// The engine's name.
    pub engine: String,
    /// Its options.
    pub options: String,
}

/// What is stored of a position, for deciding what is left to do.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StoredDepths {
    /// The depth of the stored best-move search, if any.
    pub best: Option<u32>,
    /// The move it chose (`None` also when it found none).
    pub best_move: Option<Move>,
    /// The depth of every stored move score.
    pub moves: Vec<(Move, u32)>,
}

fn bad_move(code: i64, key: i64) -> StoreError {
    StoreError::Corrupt(format!(
        "evaluation of position {:016x}: bad move code {code}",
        PositionKey::from_rowid(key).0
    ))
}

fn to_move(code: i64, key: i64) -> Result<Move, StoreError> {
    u16::try_from(code)
        .ok()
        .and_then(Move::from_u16)
        .ok_or_else(|| bad_move(code, key))
}

fn to_score(cp: Option<i64>, mate: Option<i64>, key: i64) -> Result<Score, StoreError> {
    let bad = || {
        StoreError::Corrupt(format!(
            "evaluation of position {:016x}: score cp {cp:?} mate {mate:?}",
            PositionKey::from_rowid(key).0
        ))
    };
    match (cp, mate) {
        (Some(c), None) => Ok(Score::Cp(i32::try_from(c).map_err(|_| bad())?)),
        (None, Some(m)) => Ok(Score::Mate(i32::try_from(m).map_err(|_| bad())?)),
        _ => Err(bad()),
    }
}

fn to_depth(d: i64, key: i64) -> Result<u32, StoreError> {
    u32::try_from(d).map_err(|_| {
        StoreError::Corrupt(format!(
            "evaluation of position {:016x}: depth {d}",
            PositionKey::from_rowid(key).0
        ))
    })
}

impl Store {
    /// The id of an engine configuration, added if new.
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails.
    pub fn eval_engine(&mut self, name: &str, options: &str) -> Result<i64, StoreError> {
        self.conn.execute(
            "INSERT INTO eval_engines (name, options) VALUES (?1, ?2) ON CONFLICT DO NOTHING",
            params![name, options],
        )?;
        Ok(self.conn.query_row(
            "SELECT id FROM eval_engines WHERE name = ?1 AND options = ?2",
            params![name, options],
            |r| r.get(0),
        )?)
    }

    /// Stores what one engine said of one position in one transaction: the move scores, and
    /// its own choice with the depth of that search (if given). Each replaces a stored one
    /// only if deeper. Returns how many move scores were written or replaced.
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails (nothing of the position is stored then).
    pub fn write_position_evals(
        &mut self,
        engine: i64,
        key: u64,
        best: Option<(Option<Move>, u32)>,
        rows: &[EvalRow],
    ) -> Result<usize, StoreError> {
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let written = insert_evals(&tx, engine, rows.iter().map(|r| (key, *r)))?;
        if let Some((mv, depth)) = best {
            tx.execute(
                "INSERT INTO eval_best (key, mv, depth, engine) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (key) DO UPDATE SET mv = excluded.mv, depth = excluded.depth,
                     engine = excluded.engine
                 WHERE excluded.depth > eval_best.depth",
                params![
                    PositionKey(key).to_rowid(),
                    mv.map(Move::to_u16),
                    depth,
                    engine
                ],
            )?;
        }
        tx.commit()?;
        Ok(written)
    }

    /// Stores move scores of many positions (e.g. a dataset's evaluations) in one
    /// transaction, each replacing a stored one only if deeper. Returns how many were written.
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails (nothing is stored then).
    pub fn write_evals(
        &mut self,
        engine: i64,
        rows: &[(u64, EvalRow)],
    ) -> Result<usize, StoreError> {
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let written = insert_evals(&tx, engine, rows.iter().copied())?;
        tx.commit()?;
        Ok(written)
    }

    /// Every stored move score of a position, by move code, with the engine's own choice
    /// marked.
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails or a row is not what qipu writes.
    pub fn evals_at(&self, key: u64) -> Result<Vec<StoredEval>, StoreError> {
        let key = PositionKey(key).to_rowid();
        let mut stmt = self.conn.prepare_cached(
            "SELECT e.mv, e.cp, e.mate, e.depth, g.name, g.options,
                    e.mv IS (SELECT mv FROM eval_best WHERE key = e.key)
             FROM evals e JOIN eval_engines g ON g.id = e.engine
             WHERE e.key = ?1 ORDER BY e.mv",
        )?;
        let rows = stmt.query_map([key], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, Option<i64>>(1)?,
                r.get::<_, Option<i64>>(2)?,
                r.get::<_, i64>(3)?,
                r.get::<_, String>(4)?,
                r.get::<_, String>(5)?,
                r.get::<_, bool>(6)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (mv, cp, mate, depth, engine, options, best) = row?;
            out.push(StoredEval {
                mv: to_move(mv, key)?,
                score: to_score(cp, mate, key)?,
                depth: to_depth(depth, key)?,
                engine,
                options,
                best,
            });
        }
        Ok(out)
    }

    /// The engine's own choice in a position, if a search for it is stored.
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails or the row is not what qipu writes.
    pub fn engine_best(&self, key: u64) -> Result<Option<EngineBest>, StoreError> {
        let key = PositionKey(key).to_rowid();
        let row = self
            .conn
            .prepare_cached(
                "SELECT b.mv, b.depth, g.name, g.options
                 FROM eval_best b JOIN eval_engines g ON g.id = b.engine WHERE b.key = ?1",
            )?
            .query_row([key], |r| {
                Ok((
                    r.get::<_, Option<i64>>(0)?,
                    r.get::<_, i64>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                ))
            })
            .optional()?;
        let Some((mv, depth, engine, options)) = row else {
            return Ok(None);
        };
        Ok(Some(EngineBest {
            mv: mv.map(|m| to_move(m, key)).transpose()?,
            depth: to_depth(depth, key)?,
            engine,
            options,
        }))
    }

    /// The depths stored for a position (any engine).
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails or a row is not what qipu writes.
    pub fn eval_depths(&self, key: u64) -> Result<StoredDepths, StoreError> {
        let k = PositionKey(key).to_rowid();
        let stored = self
            .conn
            .prepare_cached("SELECT depth, mv FROM eval_best WHERE key = ?1")?
            .query_row([k], |r| {
                Ok((r.get::<_, i64>(0)?, r.get::<_, Option<i64>>(1)?))
            })
            .optional()?;
        let (best, best_move) = match stored {
            None => (None, None),
            Some((d, mv)) => (
                Some(to_depth(d, k)?),
                mv.map(|m| to_move(m, k)).transpose()?,
            ),
        };
        let mut stmt = self
            .conn
            .prepare_cached("SELECT mv, depth FROM evals WHERE key = ?1")?;
        let rows = stmt.query_map([k], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)))?;
        let mut moves = Vec::new();
        for row in rows {
            let (mv, d) = row?;
            moves.push((to_move(mv, k)?, to_depth(d, k)?));
        }
        Ok(StoredDepths {
            best,
            best_move,
            moves,
        })
    }

    /// Every stored move score with its depth, by (position key, move), e.g. for a book's
    /// `--min-eval` and `--weights engine`.
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails or a row is not what qipu writes.
    pub fn eval_scores(&self) -> Result<MoveScores, StoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT key, mv, cp, mate, depth FROM evals")?;
        let rows = stmt.query_map([], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, Option<i64>>(2)?,
                r.get::<_, Option<i64>>(3)?,
                r.get::<_, i64>(4)?,
            ))
        })?;
        let mut out = HashMap::new();
        for row in rows {
            let (key, mv, cp, mate, depth) = row?;
            out.insert(
                (PositionKey::from_rowid(key).0, to_move(mv, key)?),
                (to_score(cp, mate, key)?, to_depth(depth, key)?),
            );
        }
        Ok(out)
    }

    /// How many move scores and best-move searches are stored.
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails.
    pub fn eval_counts(&self) -> Result<(u64, u64), StoreError> {
        Ok(self.conn.query_row(
            "SELECT (SELECT count(*) FROM evals), (SELECT count(*) FROM eval_best)",
            [],
            |r| Ok((r.get::<_, i64>(0)? as u64, r.get::<_, i64>(1)? as u64)),
        )?)
    }
}

fn insert_evals(
    tx: &rusqlite::Transaction<'_>,
    engine: i64,
    rows: impl Iterator<Item = (u64, EvalRow)>,
) -> Result<usize, StoreError> {
    let mut stmt = tx.prepare_cached(
        "INSERT INTO evals (key, mv, cp, mate, depth, engine) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
         ON CONFLICT (key, mv) DO UPDATE SET cp = excluded.cp, mate = excluded.mate,
             depth = excluded.depth, engine = excluded.engine
         WHERE excluded.depth > evals.depth",
    )?;
    let mut written = 0;
    for (key, r) in rows {
        let (cp, mate) = match r.score {
            Score::Cp(c) => (Some(c), None),
            Score::Mate(m) => (None, Some(m)),
        };
        written += stmt.execute(params![
            PositionKey(key).to_rowid(),
            r.mv.to_u16(),
            cp,
            mate,
            r.depth,
            engine
        ])?;
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deeper_replaces_equal_and_shallower_do_not() {
        let mut store = Store::open_in_memory().unwrap();
        let a = store.eval_engine("A", "").unwrap();
        let b = store.eval_engine("B", "Hash=1").unwrap();
        assert_eq!(store.eval_engine("A", "").unwrap(), a);
        let mv: Move = "h2e2".parse().unwrap();
        let other: Move = "b2e2".parse().unwrap();
        let row = |cp, depth| EvalRow {
            mv,
            score: Score::Cp(cp),
            depth,
        };
        assert_eq!(
            store
                .write_position_evals(a, 7, Some((Some(mv), 8)), &[row(10, 8)])
                .unwrap(),
            1
        );
        assert_eq!(
            store
                .write_position_evals(b, 7, Some((Some(other), 8)), &[row(20, 8)])
                .unwrap(),
            0
        );
        assert_eq!(
            store
                .write_position_evals(b, 7, None, &[row(30, 7)])
                .unwrap(),
            0
        );
        let e = store.evals_at(7).unwrap();
        assert_eq!(
            (e.len(), e[0].score, e[0].engine.as_str(), e[0].best),
            (1, Score::Cp(10), "A", true)
        );
        let mate = EvalRow {
            mv,
            score: Score::Mate(-3),
            depth: 12,
        };
        store
            .write_position_evals(b, 7, Some((Some(other), 12)), &[mate])
            .unwrap();
        let e = store.evals_at(7).unwrap();
        assert_eq!(
            (e[0].score, e[0].depth, e[0].options.as_str(), e[0].best),
            (Score::Mate(-3), 12, "Hash=1", false)
        );
        let best = store.engine_best(7).unwrap().unwrap();
        assert_eq!(
            (best.mv, best.depth, best.engine.as_str()),
            (Some(other), 12, "B")
        );
        assert_eq!(
            store.eval_depths(7).unwrap(),
            StoredDepths {
                best: Some(12),
                best_move: Some(other),
                moves: vec![(mv, 12)]
            }
        );
        assert!(store.evals_at(8).unwrap().is_empty());
        assert_eq!(store.engine_best(8).unwrap(), None);
        assert_eq!(store.eval_counts().unwrap(), (1, 1));
    }

    #[test]
    fn corrupt_rows_are_errors() {
        let mut store = Store::open_in_memory().unwrap();
        let a = store.eval_engine("A", "").unwrap();
        store
            .conn
            .execute("INSERT INTO evals VALUES (1, 70000, 5, NULL, 3, ?1)", [a])
            .unwrap();
        assert!(matches!(store.evals_at(1), Err(StoreError::Corrupt(_))));
    }
}
