//! The import pipeline, the only place with threads: one reader thread pulls games from any
//! source, rayon workers replay them and compute their positions' keys, and the calling
//! thread writes batches to the [`Store`].
//!
//! Memory is bounded: games travel in chunks over bounded channels, and the writer flushes
//! every `batch_games` games (one transaction holding the games and their statistics, merged
//! into the database with UPSERTs).
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

use std::{collections::HashSet, sync::mpsc, thread};

use rayon::prelude::*;

use crate::{
    formats::{Game, GameError},
    store::{GameRecord, Store, StoreError},
};

/// Import settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportOptions {
    /// Count positions up to this many plies into each game (0 = the whole game).
    pub max_ply: usize,
    /// Games per transaction.
    pub batch_games: usize,
    /// Games per chunk handed to the workers.
    pub chunk_games: usize,
}

impl Default for ImportOptions {
    fn default() -> ImportOptions {
        ImportOptions {
            max_ply: DEFAULT_MAX_PLY,
            batch_games: 20_000,
            chunk_games: 1_000,
        }
    }
}

/// Default depth limit: 40 plies (20 moves each) covers the opening and early middlegame.
pub const DEFAULT_MAX_PLY: usize = 40;

/// Counters so far, handed to the progress callback after each batch and at the end.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    /// Games read (replayable or not).
    pub games_read: u64,
    /// Games stored.
    pub imported: u64,
    /// Games already stored.
    pub duplicates: u64,
    /// Games that could not be read or replayed.
    pub rejected: u64,
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
    /// Games that could not be read or replayed.
    pub rejected: u64,
    /// Every error: rejected games and unreadable files (`game == None`).
    pub errors: Vec<GameError>,
}

type Chunk = Vec<Result<Game, GameError>>;
type Prepared = Vec<Result<GameRecord, GameError>>;

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
    mut progress: impl FnMut(&Progress),
) -> Result<ImportReport, StoreError>
where
    I: Iterator<Item = Result<Game, GameError>> + Send,
{
    store.fix_max_ply(opts.max_ply)?;
    let chunk_games = opts.chunk_games.max(1);
    let batch_games = opts.batch_games.max(1);
    let max_ply = opts.max_ply;
    let mut report = ImportReport::default();
    let mut files: HashSet<String> = HashSet::new();
    let mut counters = Progress::default();

    thread::scope(|s| -> Result<(), StoreError> {
        let (chunk_tx, chunk_rx) = mpsc::sync_channel::<Chunk>(4);
        let (prep_tx, prep_rx) = mpsc::sync_channel::<Prepared>(4);
        s.spawn(move || {
            let mut chunk = Vec::with_capacity(chunk_games);
            for g in games {
                chunk.push(g);
                if chunk.len() >= chunk_games {
                    let full = std::mem::replace(&mut chunk, Vec::with_capacity(chunk_games));
                    if chunk_tx.send(full).is_err() {
                        return; // the writer stopped
                    }
                }
            }
            if !chunk.is_empty() {
                let _ = chunk_tx.send(chunk);
            }
        });
        s.spawn(move || {
            for chunk in chunk_rx {
                let prepared: Prepared = chunk
                    .into_par_iter()
                    .map(|g| g.and_then(|g| GameRecord::from_game(&g, max_ply)))
                    .collect();
                if prep_tx.send(prepared).is_err() {
                    return;
                }
            }
        });
        let mut batch: Vec<GameRecord> = Vec::with_capacity(batch_games);
        for prepared in prep_rx {
            for item in prepared {
                match item {
                    Ok(r) => {
                        counters.games_read += 1;
                        if !files.contains(&r.source.file) {
                            files.insert(r.source.file.clone());
                        }
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
            if batch.len() >= batch_games {
                let out = store.write_batch(&batch)?;
                batch.clear();
                counters.imported += out.imported;
                counters.duplicates += out.duplicates;
            }
            progress(&counters);
        }
        if !batch.is_empty() {
            let out = store.write_batch(&batch)?;
            counters.imported += out.imported;
            counters.duplicates += out.duplicates;
        }
        progress(&counters);
        Ok(())
    })?;

    report.files = files.len() as u64;
    report.games_read = counters.games_read;
    report.imported = counters.imported;
    report.duplicates = counters.duplicates;
    report.rejected = counters.rejected;
    Ok(report)
}
