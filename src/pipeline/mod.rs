//! The import pipeline, the only place with threads: one reader thread reads files and cuts
//! them into [`Chunk`]s, rayon workers read the chunks' games, replay them and compute their
//! positions' keys, the calling thread gathers them into batches, and a writer thread writes
//! each batch to the [`Store`] while the next one is being read.
//!
//! Memory is bounded: work travels in chunks of about [`CHUNK_BYTES`] over bounded channels,
//! and the writer flushes a batch (one transaction holding the games and their statistics)
//! when its games fill their share of `memory_bytes` (see `budget`: at most two batches in
//! memory, one written and one gathered) or number `batch_games`, or `batch_time` has
//! passed since the last one and the writer is idle (so that a killed import keeps what it
//! did until seconds before, or until the last write's duration before when writes are
//! slower than that; a batch waiting for a busy writer keeps growing instead of queueing:
//! see `run`). When the caller gives the input's size ([`ImportOptions::input_bytes`]) and
//! what is left to read is no more than twice the batch being gathered, that batch waits for
//! the rest and is the last: one more batch would cost a rewrite of about every range row
//! for few games, with the workers idle (see `last_batch_waits`).
//!
//! SQLite's automatic checkpoints are off while the pipeline runs (each would copy about the
//! whole database from the WAL into the file again, inside a commit): the WAL keeps every
//! batch's pages, and the caller checkpoints once at the end ([`Store::checkpoint`]; else
//! SQLite does when the last connection closes, or a later commit once they are back on).
//! Commits stay atomic, so a killed import still leaves a consistent database: its commits
//! are in the WAL, where every reader finds them.
//!
//! ```
//! use qipu::formats::{Game, MoveNode, Source};
//! use qipu::pipeline::{import, ImportOptions};
//! use qipu::rules::Variant;
//! use qipu::store::Store;
//!
//! let mut game = Game::new(Variant::Xiangqi, Source::default());
//! game.moves = vec![MoveNode::new("h2e2"), MoveNode::new("h9g7")];
//! let games = vec![Ok(game.clone()), Ok(game)];
//! let mut store = Store::open_in_memory()?;
//! let report = import(&mut store, games.into_iter(), &ImportOptions::default(), |_| {})?;
//! assert_eq!((report.games_read, report.imported, report.duplicates), (2, 1, 1));
//! # Ok::<_, qipu::store::StoreError>(())
//! ```

mod budget;
mod record;

pub use budget::{Budget, DEFAULT_MEMORY_BYTES, MIN_MEMORY_BYTES};

use std::{
    collections::HashSet,
    sync::mpsc,
    thread,
    time::{Duration, Instant},
};

use rayon::prelude::*;

use crate::{
    formats::{Chunk, Game, GameError, GameNumbers},
    store::{BatchOutcome, BatchTimings, GameRecord, Store, StoreError},
};

/// Bytes of input per chunk of work handed to the workers.
pub const CHUNK_BYTES: usize = 512 << 10;

/// Import settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportOptions {
    /// Count positions up to this many plies into each game (0 = the whole game).
    pub max_ply: usize,
    /// At most this many games per transaction.
    pub batch_games: usize,
    /// The memory budget in bytes (`qipu import --memory`, 1 GiB by default): shared by
    /// [`Budget`] between SQLite's page cache and the two batches in memory; a transaction
    /// ends when its games take their share (estimated by [`GameRecord::memory_bytes`]). The
    /// bigger a batch, the fewer times the stored positions are read back and merged: once
    /// the database is big, a batch rewrites nearly every range row whatever its size.
    pub memory_bytes: u64,
    /// Games per chunk handed to the workers.
    pub chunk_games: usize,
    /// A transaction also ends when this long has passed since the previous one began and
    /// the writer has finished the previous one (a busy writer's next batch keeps growing).
    pub batch_time: Duration,
    /// The input's size in bytes, if known (the files' sizes): the sum of the chunks' sizes
    /// ([`Chunk::size`]) is compared with it to see how much is left to read. A wrong size
    /// only changes where batches are cut.
    pub input_bytes: Option<u64>,
    /// Keep a game with a move that cannot be read or is illegal up to the move before it
    /// ([`GameRecord::from_game_or_prefix`]), counted in [`ImportReport::truncated`]; else
    /// (the default, `qipu import --strict`) such a game is rejected whole.
    pub keep_prefix: bool,
}

impl Default for ImportOptions {
    fn default() -> ImportOptions {
        ImportOptions {
            max_ply: DEFAULT_MAX_PLY,
            batch_games: 1_000_000,
            memory_bytes: DEFAULT_MEMORY_BYTES,
            chunk_games: 1_000,
            batch_time: Duration::from_secs(2),
            input_bytes: None,
            keep_prefix: false,
        }
    }
}

/// Default depth limit: the store's ([`crate::store::DEFAULT_MAX_PLY`]).
pub use crate::store::DEFAULT_MAX_PLY;

/// Counters so far, handed to the progress callback after each batch and at the end.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    /// Games read (replayable or not).
    pub games_read: u64,
    /// Games stored.
    pub imported: u64,
    /// Games already stored.
    pub duplicates: u64,
    /// Other copies of a stored game, merged into it (`store::copies`).
    pub merged: u64,
    /// Games that could not be read or replayed.
    pub rejected: u64,
    /// Games kept up to a move that could not be read or replayed (also counted as imported
    /// or duplicates).
    pub truncated: u64,
}

/// The outcome of an import.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ImportReport {
    /// Distinct files games (or errors) came from.
    pub files: u64,
    /// Games read (replayable or not).
    pub games_read: u64,
    /// New games stored and counted.
    pub imported: u64,
    /// Games already in the database, or repeated in the input: counted once.
    pub duplicates: u64,
    /// Other copies of a game (differently written metadata, see `store::copies`): merged
    /// into the one stored game, which keeps the richest copy's metadata.
    pub merged: u64,
    /// Games that could not be read or replayed.
    pub rejected: u64,
    /// Every error: rejected games and unreadable files (`game == None`).
    pub errors: Vec<GameError>,
    /// Games kept up to a move that could not be read or replayed (see
    /// [`ImportOptions::keep_prefix`]): each one's error, its ply the first move not kept.
    pub truncated: Vec<GameError>,
    /// Each batch written, in order.
    pub batches: Vec<BatchLog>,
}

/// One batch of an import, for `qipu import --timings`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BatchLog {
    /// Records in it (games read and replayed).
    pub games: usize,
    /// Bytes of input its games came from (chunks seen while it was gathered).
    pub input_bytes: u64,
    /// Why it was sent: `full` (games or bytes), `time`, or `last` (the end of the input).
    pub why: &'static str,
    /// When it was sent, since the import began.
    pub sent: Duration,
    /// When the writer began it, since the import began.
    pub began: Duration,
    /// How long it took to write.
    pub took: Duration,
    /// Where that time went.
    pub timings: BatchTimings,
}

/// Whether a batch that could go now for the time waits for the rest of the input instead
/// and goes last: when what is left to read (the input's size less the bytes read so far)
/// is no more than twice the batch's own input. The batch was read while the one before was
/// written, on the core the writer left; with both cores the rest is read in about the time
/// that write took. Sent now, the rest would be a batch of its own, whose write costs at
/// least as long (a rewrite of about every range row and busy position, the database being
/// bigger) while the readers sit idle. Unknown, or read past the given size: no wait.
fn last_batch_waits(input_bytes: Option<u64>, read: u64, batch: u64) -> bool {
    input_bytes
        .and_then(|total| total.checked_sub(read))
        .is_some_and(|rest| rest <= batch.saturating_mul(2))
}

/// A unit of work: a chunk of a file, or a game already read.
enum Unit {
    Chunk(Chunk),
    Game(Box<Result<Game, GameError>>),
}

impl Unit {
    fn size(&self) -> usize {
        match self {
            Unit::Chunk(p) => p.size().max(1),
            Unit::Game(_) => 1,
        }
    }
}

/// What a worker made of a unit: its games replayed, and the chunk they came from (whose
/// game indices count from 0 until [`GameNumbers`] places them in their file).
type Prepared = (Option<Chunk>, Vec<Result<GameRecord, GameError>>);

fn prepare(unit: Unit, max_ply: usize, keep_prefix: bool) -> Prepared {
    let record = |g: Result<Game, GameError>| {
        g.and_then(|g| {
            if keep_prefix {
                GameRecord::from_game_or_prefix(&g, max_ply)
            } else {
                GameRecord::from_game(&g, max_ply)
            }
        })
    };
    match unit {
        Unit::Game(g) => (None, vec![record(*g)]),
        Unit::Chunk(p) => {
            let records = p.read().into_iter().map(record).collect();
            (Some(p), records)
        }
    }
}

/// Imports the games of some chunks (see [`crate::formats::chunks`]): the import of files,
/// folders and archives, their chunks read in parallel. Game indices are those of
/// [`crate::formats::read_path`].
///
/// ```
/// use qipu::formats::chunks_of_bytes;
/// use qipu::pipeline::{import_chunks, ImportOptions};
/// use qipu::store::Store;
/// let pgn = "[Red \"A\"]\n1. h2e2 h9g7 1-0\n[Red \"B\"]\n1. h2e2 h2h9 *\n";
/// let mut store = Store::open_in_memory()?;
/// let chunks = chunks_of_bytes("two.pgn", pgn.as_bytes().to_vec());
/// let report = import_chunks(&mut store, chunks.into_iter(), &ImportOptions::default(), |_| {})?;
/// assert_eq!((report.imported, report.rejected), (1, 1));
/// assert_eq!(report.errors[0].game, Some(1)); // the second game: h2h9 is illegal
/// # Ok::<_, qipu::store::StoreError>(())
/// ```
///
/// # Errors
/// As [`import`].
pub fn import_chunks<I>(
    store: &mut Store,
    chunks: I,
    opts: &ImportOptions,
    progress: impl FnMut(&Progress),
) -> Result<ImportReport, StoreError>
where
    I: Iterator<Item = Chunk> + Send,
{
    run(store, chunks.map(Unit::Chunk), opts, progress)
}

/// Imports games into the store. `games` is any source of games (a reader over files, or
/// games built in memory); `progress` is called after every chunk of games.
///
/// Each batch is one transaction, so stopping the process at any moment loses at most the
/// batch in flight, and importing the same input again completes the database to exactly
/// what an uninterrupted run gives (stored games are recognised by content hash).
///
/// # Errors
/// [`StoreError`] if the database fails or was built with another `max_ply`; games already
/// committed stay.
pub fn import<I>(
    store: &mut Store,
    games: I,
    opts: &ImportOptions,
    progress: impl FnMut(&Progress),
) -> Result<ImportReport, StoreError>
where
    I: Iterator<Item = Result<Game, GameError>> + Send,
{
    run(
        store,
        games.map(|g| Unit::Game(Box::new(g))),
        opts,
        progress,
    )
}

fn run<I>(
    store: &mut Store,
    units: I,
    opts: &ImportOptions,
    mut progress: impl FnMut(&Progress),
) -> Result<ImportReport, StoreError>
where
    I: Iterator<Item = Unit> + Send,
{
    store.fix_max_ply(opts.max_ply)?;
    let budget = Budget::new(opts.memory_bytes);
    store.set_cache_bytes(budget.cache_bytes())?;
    let began = Instant::now();
    let chunk_games = opts.chunk_games.max(1);
    let batch_games = opts.batch_games.max(1);
    let max_ply = opts.max_ply;
    let keep_prefix = opts.keep_prefix;
    let mut report = ImportReport::default();
    let mut files: HashSet<String> = HashSet::new();
    let mut counters = Progress::default();
    let mut batches = Vec::new();

    thread::scope(|s| -> Result<(), StoreError> {
        let (chunk_tx, chunk_rx) = mpsc::sync_channel::<Vec<Unit>>(4);
        let (prep_tx, prep_rx) = mpsc::sync_channel::<Vec<Prepared>>(4);
        s.spawn(move || {
            let mut chunk = Vec::new();
            let mut bytes = 0;
            for unit in units {
                bytes += unit.size();
                chunk.push(unit);
                if bytes >= CHUNK_BYTES || chunk.len() >= chunk_games {
                    if chunk_tx.send(std::mem::take(&mut chunk)).is_err() {
                        return; // the writer stopped
                    }
                    bytes = 0;
                }
            }
            if !chunk.is_empty() {
                let _ = chunk_tx.send(chunk);
            }
        });
        s.spawn(move || {
            for chunk in chunk_rx {
                let prepared: Vec<Prepared> = chunk
                    .into_par_iter()
                    .map(|unit| prepare(unit, max_ply, keep_prefix))
                    .collect();
                if prep_tx.send(prepared).is_err() {
                    return;
                }
            }
        });
        // The database writer runs beside the collector below, so that the workers go on
        // reading the next batch while one is written; its channel is a rendezvous, so that
        // no third batch waits in it.
        let (batch_tx, batch_rx) = mpsc::sync_channel::<(Vec<GameRecord>, BatchLog)>(0);
        let (done_tx, done_rx) = mpsc::channel::<(BatchOutcome, BatchLog)>();
        let writer = s.spawn(move || -> Result<(), StoreError> {
            for (batch, mut log) in batch_rx {
                log.began = began.elapsed();
                let out = store.write_batch(&batch)?;
                log.took = began.elapsed() - log.began;
                log.timings = out.timings;
                drop(batch);
                if done_tx.send((out, log)).is_err() {
                    break;
                }
            }
            Ok(())
        });
        let mut add = |counters: &mut Progress, (out, log): (BatchOutcome, BatchLog)| {
            counters.imported += out.imported;
            counters.duplicates += out.duplicates;
            counters.merged += out.merged;
            batches.push(log);
        };
        let mut numbers = GameNumbers::default();
        let mut batch: Vec<GameRecord> = Vec::new();
        let mut batch_bytes = 0u64;
        let mut batch_started = Instant::now();
        // Bytes of input read, and of the batch being gathered.
        let (mut input_read, mut batch_input) = (0u64, 0u64);
        // Batches sent and not yet reported written.
        let mut in_flight = 0usize;
        'read: for prepared in prep_rx {
            for (chunk, mut items) in prepared {
                if let Some(p) = &chunk {
                    numbers.place(p, &mut items);
                    input_read += p.size() as u64;
                    batch_input += p.size() as u64;
                }
                for item in items {
                    match item {
                        Ok(r) => {
                            counters.games_read += 1;
                            if let Some(e) = &r.truncated {
                                // numbered in its file as the record was
                                let mut e = GameError::clone(e);
                                e.game = Some(r.source.index);
                                report.truncated.push(e);
                                counters.truncated += 1;
                            }
                            if !files.contains(&r.source.file) {
                                files.insert(r.source.file.clone());
                            }
                            batch_bytes += r.memory_bytes() as u64;
                            batch.push(r);
                        }
                        Err(e) => {
                            if e.game.is_some() {
                                counters.games_read += 1;
                                counters.rejected += 1;
                            }
                            if !files.contains(&e.file) {
                                files.insert(e.file.clone());
                            }
                            report.errors.push(e);
                        }
                    }
                }
                while let Ok(out) = done_rx.try_recv() {
                    add(&mut counters, out);
                    in_flight -= 1;
                }
                // Full batches go at once; a batch sent for the time goes only to an idle
                // writer. While the writer is busy the batch grows, so that batches get
                // bigger as writing them gets slower (a batch rewrites every range row it
                // touches, about all of them once the database is big): the writer's cost
                // per game stays bounded instead of growing with the database.
                let full = batch.len() >= batch_games || budget.closes(batch_bytes);
                let timed = !batch.is_empty()
                    && in_flight == 0
                    && batch_started.elapsed() >= opts.batch_time
                    && !last_batch_waits(opts.input_bytes, input_read, batch_input);
                if full || timed {
                    let log = BatchLog {
                        games: batch.len(),
                        input_bytes: batch_input,
                        why: if full { "full" } else { "time" },
                        sent: began.elapsed(),
                        ..BatchLog::default()
                    };
                    (batch_bytes, batch_input) = (0, 0);
                    batch_started = Instant::now();
                    in_flight += 1;
                    if batch_tx.send((std::mem::take(&mut batch), log)).is_err() {
                        break 'read; // the writer failed: its error is returned below
                    }
                }
            }
            progress(&counters);
        }
        if !batch.is_empty() {
            let log = BatchLog {
                games: batch.len(),
                input_bytes: batch_input,
                why: "last",
                sent: began.elapsed(),
                ..BatchLog::default()
            };
            let _ = batch_tx.send((batch, log));
        }
        drop(batch_tx);
        let written = writer
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        while let Ok(out) = done_rx.try_recv() {
            add(&mut counters, out);
        }
        progress(&counters);
        written
    })?;
    report.batches = batches;

    report.files = files.len() as u64;
    report.games_read = counters.games_read;
    report.imported = counters.imported;
    report.duplicates = counters.duplicates;
    report.merged = counters.merged;
    report.rejected = counters.rejected;
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::last_batch_waits;

    #[test]
    fn a_batch_waits_for_a_rest_no_bigger_than_itself() {
        // 1,000 bytes of input, the batch gathered holds 200 of those read.
        assert!(last_batch_waits(Some(1000), 700, 200)); // 300 left
        assert!(last_batch_waits(Some(1000), 600, 200)); // 400 left: twice the batch
        assert!(!last_batch_waits(Some(1000), 599, 200)); // 401 left
        assert!(last_batch_waits(Some(1000), 1000, 1)); // all read
        assert!(!last_batch_waits(Some(u64::MAX), 0, u64::MAX / 2));
        assert!(last_batch_waits(Some(u64::MAX), 0, u64::MAX)); // 2 × saturates
                                                                // Read past the given size (a wrong size), or no size: batches go as usual.
        assert!(!last_batch_waits(Some(1000), 1001, 200));
        assert!(!last_batch_waits(None, 700, 200));
    }
}
