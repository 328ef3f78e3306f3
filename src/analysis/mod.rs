//! Engine analysis of a database's opening tree (`qipu analyse`): choose the positions, run
//! engines on them in parallel, store what they say.
//!
//! This module owns the choice of positions and the worker threads — like `crate::pipeline`,
//! it is a place with threads: one per engine process, each taking the next position from a
//! shared list, while the calling thread alone writes to the [`Store`] (one transaction per
//! position, so that a kill at any moment loses only the positions in flight). The UCI
//! protocol is `crate::engine`; the SQL is `crate::store::evals`. It does not touch the game
//! statistics. [`records`] turns the evaluations game records carry into the same table's rows
//! (no engine, no threads); [`best`] asks one engine for its choice in single positions, with
//! the answers cached in the same tables (`qipu book extend`).
//!
//! Positions: walking from each game's standard start through the stored moves, breadth
//! first, every position with at least `min_games` games within `max_ply` plies — that is, the
//! positions reached through positions that are themselves that busy (a position reached only
//! through quieter ones by transposition is left out). In each, every move played is scored
//! by a search of that move alone (`go … searchmoves M`), and the engine's own choice by a
//! search of all moves (and then, if no game played it, scored alone like the others). Every
//! search starts from a clean engine (`ucinewgame`), so that a score depends on the position,
//! the move and the limit only: with a fixed depth and one engine thread, a run interrupted
//! and resumed stores exactly what an uninterrupted one does.
//!
//! Resuming: what is stored deep enough (the asked depth; with `movetime`, anything) is not
//! searched again; a deeper run replaces shallower scores.

pub mod best;
pub mod records;

use std::{
    collections::{HashSet, VecDeque},
    sync::{
        atomic::{AtomicBool, AtomicUsize, Ordering},
        mpsc,
    },
    thread,
    time::{Duration, Instant},
};

use crate::{
    engine::{engine_fen, Engine, EngineError, EngineSpec, Limit},
    rules::{AnyPosition, JanggiRules, Move, Variant},
    store::{evals::EvalRow, PositionKey, Store, StoreError},
};

/// What to analyse and how.
#[derive(Clone, Debug)]
pub struct AnalyseOptions {
    /// How long each search runs.
    pub limit: Limit,
    /// The time limit of one position's searches (with `movetime`, twice the searches' own
    /// time is added). An engine past it is killed and restarted.
    pub timeout: Duration,
}

/// A position chosen for analysis.
#[derive(Clone, Debug)]
pub struct Target {
    /// The position.
    pub pos: AnyPosition,
    /// Its key.
    pub key: u64,
    /// Its distance from the start, in plies (the shortest found).
    pub ply: usize,
    /// Games through it.
    pub games: u64,
    /// The moves played from it, by move code.
    pub played: Vec<Move>,
}

/// What is left to do in a position.
#[derive(Clone, Debug)]
pub struct Work {
    /// The position.
    pub target: Target,
    /// Played moves whose score is missing or too shallow.
    pub score: Vec<Move>,
    /// Whether the engine's own choice must be searched.
    pub best: bool,
    /// Moves already stored deep enough (not to be searched again).
    pub stored: Vec<Move>,
}

/// A position the engine failed on.
#[derive(Debug)]
pub struct Failure {
    /// The position's key.
    pub key: u64,
    /// Its FEN, as sent to the engine.
    pub fen: String,
    /// What happened.
    pub error: EngineError,
}

/// The outcome of a run.
#[derive(Debug, Default)]
pub struct Report {
    /// Positions chosen.
    pub positions: usize,
    /// Of them, already stored deep enough (nothing to do).
    pub already_stored: usize,
    /// Positions searched and stored completely.
    pub analysed: usize,
    /// Positions the engine failed on (what it did say is stored).
    pub failures: Vec<Failure>,
    /// Positions not reached because every engine failed to restart.
    pub abandoned: usize,
    /// Move scores written or replaced.
    pub evals_written: usize,
    /// Searches run.
    pub searches: usize,
    /// The engines' own search time, summed (their `time` fields), ms.
    pub engine_ms: u64,
    /// Time the workers spent per position, summed over the workers (engine time plus the
    /// protocol around it), ms.
    pub worker_ms: u64,
}

/// Progress, after each position.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    /// Positions finished (stored or failed).
    pub done: usize,
    /// Positions to do in this run.
    pub total: usize,
    /// Of the finished ones, failed.
    pub failed: usize,
}

/// The positions with at least `min_games` games within `max_ply` plies (see the module
/// doc), breadth first from each game's start.
///
/// # Errors
/// [`StoreError`] if the database cannot be read.
///
/// ```
/// use qipu::analysis::select;
/// use qipu::formats::{Game, MoveNode, Source};
/// use qipu::pipeline::{import, ImportOptions};
/// use qipu::rules::Variant;
/// use qipu::store::Store;
///
/// let mut store = Store::open_in_memory()?;
/// let mut games = Vec::new();
/// for second in ["h9g7", "h9g7", "b9c7"] {
///     let mut g = Game::new(Variant::Xiangqi, Source::default());
///     g.moves = vec![MoveNode::new("h2e2"), MoveNode::new(second)];
///     g.tags.first = Some(second.to_string() + &games.len().to_string()); // distinct games
///     games.push(Ok(g));
/// }
/// import(&mut store, games.into_iter(), &ImportOptions::default(), |_| {})?;
/// let chosen = select(&store, 2, 10)?;
/// // the start (3 games), after h2e2 (3 games), after h2e2 h9g7 (2 games)
/// assert_eq!(chosen.iter().map(|t| (t.ply, t.games)).collect::<Vec<_>>(), [(0, 3), (1, 3), (2, 2)]);
/// assert_eq!(chosen[1].played.len(), 2);
/// # Ok::<_, qipu::store::StoreError>(())
/// ```
pub fn select(store: &Store, min_games: u64, max_ply: usize) -> Result<Vec<Target>, StoreError> {
    let mut out = Vec::new();
    for variant in Variant::ALL {
        let start = AnyPosition::new(variant).with_janggi_rules(JanggiRules::SERVER);
        let mut seen = HashSet::from([start.key()]);
        let mut queue = VecDeque::from([(start, 0usize)]);
        while let Some((pos, ply)) = queue.pop_front() {
            let key = pos.key();
            let rows = store.position(PositionKey(key))?;
            let games: u64 = rows.iter().map(|r| r.counts.games).sum();
            if games < min_games.max(1) {
                continue;
            }
            let played: Vec<Move> = rows.iter().filter_map(|r| r.mv).collect();
            if ply < max_ply {
                for &m in &played {
                    let mut child = pos.clone();
                    // A stored move that is not legal here cannot be followed (it is not
                    // what qipu stores); the walk goes on without it.
                    if child.play(m).is_ok() && seen.insert(child.key()) {
                        queue.push_back((child, ply + 1));
                    }
                }
            }
            out.push(Target {
                pos,
                key,
                ply,
                games,
                played,
            });
        }
    }
    Ok(out)
}

/// What is left to do for each target, given what is stored: with [`Limit::Depth`] a score
/// shallower than the limit is redone, with [`Limit::MoveTime`] only what is missing.
///
/// # Errors
/// [`StoreError`] if the database cannot be read.
pub fn plan(store: &Store, targets: Vec<Target>, limit: Limit) -> Result<Vec<Work>, StoreError> {
    let deep_enough = |d: u32| match limit {
        Limit::Depth(n) => d >= n,
        Limit::MoveTime(_) => true,
    };
    let mut out = Vec::new();
    for target in targets {
        let stored = store.eval_depths(target.key)?;
        let stored_moves: Vec<Move> = stored
            .moves
            .iter()
            .filter(|(_, d)| deep_enough(*d))
            .map(|(m, _)| *m)
            .collect();
        let mut score: Vec<Move> = target
            .played
            .iter()
            .copied()
            .filter(|m| !stored_moves.contains(m))
            .collect();
        let best = !stored.best.is_some_and(deep_enough);
        // A run that failed after choosing the best move but before scoring it.
        if let (false, Some(b)) = (best, stored.best_move) {
            if !stored_moves.contains(&b) && !score.contains(&b) {
                score.push(b);
            }
        }
        if score.is_empty() && !best {
            continue;
        }
        out.push(Work {
            target,
            score,
            best,
            stored: stored_moves,
        });
    }
    Ok(out)
}

/// What a worker found in one position.
struct Found {
    index: usize,
    best: Option<(Option<Move>, u32)>,
    rows: Vec<EvalRow>,
    searches: usize,
    engine_ms: u64,
    worker_ms: u64,
    error: Option<EngineError>,
}

fn analyse_one(engine: &mut Engine, work: &Work, opts: &AnalyseOptions, index: usize) -> Found {
    let started = Instant::now();
    let searches = work.score.len() + 2;
    let extra = match opts.limit {
        Limit::MoveTime(ms) => Duration::from_millis(ms.saturating_mul(2 * searches as u64)),
        Limit::Depth(_) => Duration::ZERO,
    };
    let deadline = started + opts.timeout + extra;
    let mut found = Found {
        index,
        best: None,
        rows: Vec::new(),
        searches: 0,
        engine_ms: 0,
        worker_ms: 0,
        error: None,
    };
    let pos = &work.target.pos;
    let mut todo = work.score.clone();
    let result = (|| {
        if work.best {
            let s = engine.search(pos, opts.limit, None, deadline)?;
            found.searches += 1;
            found.engine_ms += s.time_ms;
            found.best = Some((s.best, s.depth));
            if let Some(b) = s.best {
                if !todo.contains(&b) && !work.stored.contains(&b) {
                    todo.push(b);
                }
            }
        }
        for &m in &todo {
            let s = engine.search(pos, opts.limit, Some(m), deadline)?;
            found.searches += 1;
            found.engine_ms += s.time_ms;
            found.rows.push(EvalRow {
                mv: m,
                score: s.score,
                depth: s.depth,
            });
        }
        Ok::<(), EngineError>(())
    })();
    found.error = result.err();
    found.worker_ms = started.elapsed().as_millis() as u64;
    found
}

/// Runs the engines (one worker thread each) over the work, storing each position's results
/// as they come, and calls `progress` after each. A position the engine fails on is reported
/// (with what it did answer stored) and its engine restarted; the others go on.
///
/// # Errors
/// [`StoreError`] if a write fails: the run stops after the positions in flight, and what was
/// written before stays.
pub fn analyse(
    store: &mut Store,
    engines: Vec<Engine>,
    spec: &EngineSpec,
    work: &[Work],
    opts: &AnalyseOptions,
    mut progress: impl FnMut(Progress),
) -> Result<Report, StoreError> {
    let mut report = Report::default();
    let Some(first) = engines.first() else {
        report.abandoned = work.len();
        return Ok(report);
    };
    let engine_id = store.eval_engine(first.name(), &spec.options_text())?;
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<Found>();
    let mut outcome = Ok(());
    thread::scope(|scope| {
        for mut engine in engines {
            let tx = tx.clone();
            let (next, stop) = (&next, &stop);
            scope.spawn(move || loop {
                if stop.load(Ordering::Relaxed) {
                    return;
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(w) = work.get(i) else { return };
                let found = analyse_one(&mut engine, w, opts, i);
                let failed = found.error.is_some();
                if tx.send(found).is_err() {
                    return;
                }
                if failed {
                    match Engine::start(spec) {
                        Ok(e) => engine = e,
                        Err(_) => return, // the other workers take the rest
                    }
                }
            });
        }
        drop(tx);
        let mut done = 0;
        for found in rx {
            if outcome.is_ok() {
                let w = &work[found.index].target;
                match store.write_position_evals(engine_id, w.key, found.best, &found.rows) {
                    Ok(n) => report.evals_written += n,
                    Err(e) => {
                        stop.store(true, Ordering::Relaxed);
                        outcome = Err(e);
                    }
                }
            }
            report.searches += found.searches;
            report.engine_ms += found.engine_ms;
            report.worker_ms += found.worker_ms;
            match found.error {
                None => report.analysed += 1,
                Some(error) => report.failures.push(Failure {
                    key: work[found.index].target.key,
                    fen: engine_fen(&work[found.index].target.pos),
                    error,
                }),
            }
            done += 1;
            progress(Progress {
                done,
                total: work.len(),
                failed: report.failures.len(),
            });
        }
        report.abandoned = work.len() - done;
    });
    outcome.map(|()| report)
}

/// Starts `jobs` engines (at least one), each shaken hands with: a path that is not an
/// engine fails here, before any work.
///
/// # Errors
/// The first engine's [`EngineError`].
pub fn start_engines(spec: &EngineSpec, jobs: usize) -> Result<Vec<Engine>, EngineError> {
    (0..jobs.max(1)).map(|_| Engine::start(spec)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Score;

    #[test]
    fn a_stored_best_move_without_its_score_is_scored_on_the_next_run() {
        let mut store = Store::open_in_memory().unwrap();
        let engine = store.eval_engine("E", "").unwrap();
        let pos = AnyPosition::new(Variant::Xiangqi);
        let key = pos.key();
        let m = |t: &str| t.parse::<Move>().unwrap();
        let row = EvalRow {
            mv: m("h2e2"),
            score: Score::Cp(20),
            depth: 5,
        };
        store
            .write_position_evals(engine, key, Some((Some(m("b2e2")), 5)), &[row])
            .unwrap();
        let target = Target {
            pos,
            key,
            ply: 0,
            games: 3,
            played: vec![m("h2e2"), m("c3c4")],
        };
        let work = plan(&store, vec![target.clone()], Limit::Depth(5)).unwrap();
        assert_eq!(work.len(), 1);
        assert!(!work[0].best);
        assert_eq!(work[0].score, [m("c3c4"), m("b2e2")]);
        assert_eq!(work[0].stored, [m("h2e2")]);
        // Deeper: everything again.
        let work = plan(&store, vec![target], Limit::Depth(6)).unwrap();
        assert!(work[0].best);
        assert_eq!(work[0].score, [m("h2e2"), m("c3c4")]);
    }
}
