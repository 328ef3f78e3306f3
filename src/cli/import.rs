//! `qipu import`: read game files into a database.

use std::{
    io::{IsTerminal, Write},
    path::PathBuf,
    process::ExitCode,
    time::{Duration, Instant},
};

use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::CliError;
use crate::{
    formats::{chunks, Chunk, GameError},
    pipeline::{import_chunks, ImportOptions, ImportReport, Progress, DEFAULT_MAX_PLY},
    store::Store,
};

/// Arguments of `qipu import`.
#[derive(Args, Debug)]
pub struct ImportArgs {
    /// Files, folders and zip archives of any supported format.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// The database (created if missing).
    #[arg(long, default_value = "qipu.db")]
    db: PathBuf,
    /// Count positions up to this many plies into each game (0 = whole games). A database
    /// keeps the limit of its first import.
    #[arg(long, default_value_t = DEFAULT_MAX_PLY)]
    max_ply: usize,
    /// Print one JSON document instead of the human summary.
    #[arg(long)]
    json: bool,
    /// Write every rejected game (file, game index, ply, token, reason) to this CSV file.
    #[arg(long)]
    report: Option<PathBuf>,
    /// At most this many games per transaction.
    #[arg(long, default_value_t = ImportOptions::default().batch_games, hide = true)]
    batch_games: usize,
    /// A transaction ends when its games hold about this many bytes of memory.
    #[arg(long, default_value_t = ImportOptions::default().batch_bytes, hide = true)]
    batch_bytes: usize,
    /// A transaction also ends after this many milliseconds.
    #[arg(long, default_value_t = ImportOptions::default().batch_time.as_millis() as u64, hide = true)]
    batch_ms: u64,
}

/// The chunks of every path, in order.
fn read_inputs(paths: Vec<PathBuf>) -> impl Iterator<Item = Chunk> + Send {
    paths.into_iter().flat_map(|p| chunks(&p))
}

/// Peak resident memory of this process in bytes (Linux `VmHWM`), if known.
pub(super) fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

pub(super) fn error_json(e: &GameError) -> serde_json::Value {
    serde_json::json!({
        "file": e.file,
        "game": e.game,
        "ply": e.ply,
        "token": e.token,
        "reason": e.reason(),
        "kind": e.kind.name(),
        "offset": e.offset,
    })
}

/// The rejected-games CSV: one row per error, games numbered from 1 as on the terminal, the
/// error's kind by its stable name, and the byte offset of the game in text records.
pub(super) fn write_report(path: &PathBuf, errors: &[GameError]) -> Result<(), CliError> {
    let mut w = csv::Writer::from_path(path)?;
    w.write_record(["file", "game", "ply", "token", "kind", "reason", "offset"])?;
    let number = |n: Option<usize>| n.map(|n| n.to_string()).unwrap_or_default();
    for e in errors {
        w.write_record([
            e.file.clone(),
            number(e.game.map(|g| g + 1)),
            number(e.ply),
            e.token.clone().unwrap_or_default(),
            e.kind.name().to_string(),
            e.reason(),
            e.offset.map(|o| o.to_string()).unwrap_or_default(),
        ])?;
    }
    w.flush()?;
    Ok(())
}

/// The progress bar's line: games read (and their rate), then what became of them so far —
/// imported, duplicates, merged copies, errors — and how many are read but not yet written
/// (the batch being filled or written; they are counted as each batch commits).
fn progress_message(p: &Progress, secs: f64) -> String {
    let done = p.imported + p.duplicates + p.merged + p.rejected;
    format!(
        "{} read ({:.0}/s): {} imported, {} duplicates, {} copies merged, {} errors, {} being written",
        p.games_read,
        p.games_read as f64 / secs.max(1e-9),
        p.imported,
        p.duplicates,
        p.merged,
        p.rejected,
        p.games_read.saturating_sub(done)
    )
}

fn progress_bar() -> ProgressBar {
    let pb = if std::io::stderr().is_terminal() {
        ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr())
    } else {
        ProgressBar::hidden()
    };
    pb.set_style(
        ProgressStyle::with_template("{spinner} {elapsed_precise} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    pb.enable_steady_tick(Duration::from_millis(200));
    pb
}

/// Runs `qipu import`: exit 0 when every game was imported (or already there), 1 when some
/// were rejected, 2 on a fatal error (through `Err`).
pub fn import(args: &ImportArgs) -> Result<ExitCode, CliError> {
    for p in &args.paths {
        if !p.exists() {
            return Err(format!("{}: no such file or folder", p.display()).into());
        }
    }
    let mut store = Store::open(&args.db)?;
    let opts = ImportOptions {
        max_ply: args.max_ply,
        batch_games: args.batch_games,
        batch_bytes: args.batch_bytes,
        batch_time: Duration::from_millis(args.batch_ms),
        ..ImportOptions::default()
    };
    let started = Instant::now();
    let pb = progress_bar();
    let mut committed = (0, 0);
    let imported = import_chunks(
        &mut store,
        read_inputs(args.paths.clone()),
        &opts,
        |p: &Progress| {
            committed = (p.imported, p.duplicates);
            pb.set_message(progress_message(p, started.elapsed().as_secs_f64()));
        },
    );
    pb.finish_and_clear();
    let report: ImportReport = imported.map_err(|e| {
        format!(
            "{e}\n  {} new games (and {} already there) were committed before; the database is consistent: \
             run the same import again to finish it",
            committed.0, committed.1
        )
    })?;
    // Every game is committed by now: a checkpoint that fails (disk full) leaves them in the
    // WAL, where the next open of the database finds them.
    let checkpoint = store.checkpoint().err().map(|e| {
        format!(
            "all games are committed, but the final checkpoint failed ({e}): {} keeps them in {}-wal until the next open",
            args.db.display(),
            args.db.display()
        )
    });
    let secs = started.elapsed().as_secs_f64();
    let rate = report.games_read as f64 / secs.max(1e-9);
    if let Some(path) = &args.report {
        write_report(path, &report.errors)?;
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        let doc = serde_json::json!({
            "db": args.db.display().to_string(),
            "files": report.files,
            "games_read": report.games_read,
            "imported": report.imported,
            "duplicates": report.duplicates,
            "merged_copies": report.merged,
            "rejected": report.rejected,
            "seconds": secs,
            "games_per_second": rate,
            "peak_rss_bytes": peak_rss_bytes(),
            "db_bytes": std::fs::metadata(&args.db).ok().map(|m| m.len()),
            "errors": report.errors.iter().map(error_json).collect::<Vec<_>>(),
            "checkpoint_error": checkpoint,
        });
        serde_json::to_writer_pretty(&mut out, &doc)?;
        writeln!(out)?;
    } else {
        writeln!(
            out,
            "{} games from {} files in {:.2} s ({:.0} games/s): {} imported, {} duplicates, {} copies merged, {} rejected",
            report.games_read,
            report.files,
            secs,
            rate,
            report.imported,
            report.duplicates,
            report.merged,
            report.rejected
        )?;
        for e in report.errors.iter().take(10) {
            eprintln!("  {e}");
        }
        if report.errors.len() > 10 {
            eprintln!(
                "  … and {} more{}",
                report.errors.len() - 10,
                if args.report.is_some() {
                    " (all in the report)"
                } else {
                    " (use --report FILE to list them all)"
                }
            );
        }
    }
    if let Some(warning) = &checkpoint {
        eprintln!("qipu import: {warning}");
    }
    Ok(if report.errors.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_progress_line_says_what_became_of_the_games_read() {
        let p = Progress {
            games_read: 1000,
            imported: 700,
            duplicates: 50,
            merged: 20,
            rejected: 30,
        };
        assert_eq!(
            progress_message(&p, 2.0),
            "1000 read (500/s): 700 imported, 50 duplicates, 20 copies merged, 30 errors, 200 being written"
        );
        // Before the first batch commits, every game read is still to be written.
        let start = Progress {
            games_read: 10,
            ..Progress::default()
        };
        assert!(progress_message(&start, 0.0).ends_with("0 errors, 10 being written"));
    }
}
