//! The engine's own choice in one position at a time, one search each to a fixed depth, with
//! the answers cached in a database's evaluation tables (what `qipu book extend` asks).
//!
//! This module owns one engine process and, optionally, the cache: a position whose choice
//! is stored (`eval_best`, keyed by the position's key, as `qipu analyse` stores it) by the
//! same engine configuration — the engine's name and options text — at the asked depth or
//! deeper is answered from the store without a search; every new search is stored at once
//! (its choice and the chosen move's score, one transaction), so an interrupted run loses
//! nothing it had searched. The engine runs deterministically: one thread and a fixed hash
//! size (`Threads=1`, `Hash=16`, unless the caller sets them; options the engine lacks are
//! skipped), a clean state for every search (`ucinewgame`, see [`Engine::search`]) and a
//! fixed depth, so a search answered again gives the same move. The SQL is
//! `crate::store::evals`, the protocol `crate::engine`.

use std::time::{Duration, Instant};

use crate::{
    engine::{Engine, EngineError, EngineSpec, Limit},
    rules::{AnyPosition, Move},
    store::{evals::EvalRow, Store, StoreError},
};

/// The options set for a deterministic search unless the caller sets them.
pub const DETERMINISTIC: [(&str, &str); 2] = [("Threads", "1"), ("Hash", "16")];

/// What a [`BestMoves`] did so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BestStats {
    /// Positions answered from the cache.
    pub cached: usize,
    /// Positions searched.
    pub searched: usize,
    /// Time spent waiting for the engine: its start and its searches.
    pub engine_time: Duration,
}

/// Why no move came.
#[derive(Debug)]
pub enum BestError {
    /// The engine failed (could not start, died, hung, answered nonsense).
    Engine(EngineError),
    /// The cache could not be read or written.
    Store(StoreError),
    /// The search budget ([`BestMoves::max_searches`]) is spent.
    Budget(usize),
}

impl std::fmt::Display for BestError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BestError::Engine(e) => write!(f, "{e}"),
            BestError::Store(e) => write!(f, "{e}"),
            BestError::Budget(n) => write!(f, "stopped after {n} searches (the budget)"),
        }
    }
}

impl std::error::Error for BestError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            BestError::Engine(e) => Some(e),
            BestError::Store(e) => Some(e),
            BestError::Budget(_) => None,
        }
    }
}

impl From<StoreError> for BestError {
    fn from(e: StoreError) -> Self {
        BestError::Store(e)
    }
}

impl From<EngineError> for BestError {
    fn from(e: EngineError) -> Self {
        BestError::Engine(e)
    }
}

/// An engine answering "your move here?", with a cache (see the module doc).
#[derive(Debug)]
pub struct BestMoves<'s> {
    engine: Engine,
    depth: u32,
    timeout: Duration,
    /// The engine's name and options text, as stored with each answer.
    name: String,
    options: String,
    /// The store and the engine configuration's id in it.
    cache: Option<(&'s mut Store, i64)>,
    /// New searches allowed; the next one beyond fails with [`BestError::Budget`].
    pub max_searches: Option<usize>,
    /// What was done so far.
    pub stats: BestStats,
}

impl<'s> BestMoves<'s> {
    /// Starts the engine with `spec`'s options and [`DETERMINISTIC`]'s others that it has,
    /// registering the configuration in `cache` if given. Each search is to `depth` and may
    /// take `timeout`.
    ///
    /// # Errors
    /// [`BestError::Engine`] if the engine cannot be started or set up; [`BestError::Store`].
    pub fn start(
        spec: &EngineSpec,
        depth: u32,
        timeout: Duration,
        cache: Option<&'s mut Store>,
    ) -> Result<BestMoves<'s>, BestError> {
        let started = Instant::now();
        let mut engine = Engine::start(spec)?;
        let mut options = spec.options.clone();
        for (name, value) in DETERMINISTIC {
            let given = options.iter().any(|(n, _)| n.eq_ignore_ascii_case(name));
            if !given && engine.has_option(name) {
                engine.set_option(name, value, Instant::now() + spec.handshake)?;
                options.push((name.to_string(), value.to_string()));
            }
        }
        let options = EngineSpec {
            options,
            ..spec.clone()
        }
        .options_text();
        let name = engine.name().to_string();
        let cache = match cache {
            Some(store) => {
                let id = store.eval_engine(&name, &options)?;
                Some((store, id))
            }
            None => None,
        };
        Ok(BestMoves {
            engine,
            depth,
            timeout,
            name,
            options,
            cache,
            max_searches: None,
            stats: BestStats {
                engine_time: started.elapsed(),
                ..BestStats::default()
            },
        })
    }

    /// The engine's name and options text (`Threads=1, Hash=16`), as the cache keys them.
    pub fn configuration(&self) -> (&str, &str) {
        (&self.name, &self.options)
    }

    /// The stored choice of this configuration in `pos`, if deep enough and still legal.
    fn cached(&self, pos: &AnyPosition) -> Result<Option<Option<Move>>, BestError> {
        let Some((store, _)) = &self.cache else {
            return Ok(None);
        };
        let Some(b) = store.engine_best(pos.key())? else {
            return Ok(None);
        };
        let same = b.engine == self.name && b.options == self.options && b.depth >= self.depth;
        let usable = match b.mv {
            Some(m) => pos.is_legal(m),
            None => pos.legal_moves().is_empty(),
        };
        Ok((same && usable).then_some(b.mv))
    }

    /// The engine's choice in `pos` (`None`: it has no move there), from the cache or from a
    /// new search (then stored).
    ///
    /// # Errors
    /// [`BestError::Engine`] (the engine is dead then: the caller stops),
    /// [`BestError::Store`], [`BestError::Budget`].
    pub fn best(&mut self, pos: &AnyPosition) -> Result<Option<Move>, BestError> {
        if let Some(mv) = self.cached(pos)? {
            self.stats.cached += 1;
            return Ok(mv);
        }
        if self.max_searches.is_some_and(|m| self.stats.searched >= m) {
            return Err(BestError::Budget(self.stats.searched));
        }
        let started = Instant::now();
        let found = self
            .engine
            .search(pos, Limit::Depth(self.depth), None, started + self.timeout);
        self.stats.engine_time += started.elapsed();
        let found = found?;
        self.stats.searched += 1;
        if let Some((store, id)) = &mut self.cache {
            let rows: Vec<EvalRow> = found
                .best
                .map(|mv| EvalRow {
                    mv,
                    score: found.score,
                    depth: found.depth,
                })
                .into_iter()
                .collect();
            store.write_position_evals(*id, pos.key(), Some((found.best, found.depth)), &rows)?;
        }
        Ok(found.best)
    }
}
