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
    pipeline::{
        import_chunks, ImportOptions, ImportReport, Progress, DEFAULT_MAX_PLY,
        DEFAULT_MEMORY_BYTES, MIN_MEMORY_BYTES,
    },
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
    /// Write every rejected or truncated game (file, game index, ply, token, reason, fate) to
    /// this CSV file.
    #[arg(long)]
    report: Option<PathBuf>,
    /// Reject a game whole at a move that cannot be read or is illegal. Without it such a
    /// game is kept up to the move before (the positions it reached and its result), marked
    /// truncated in the database and counted apart (`truncated`).
    #[arg(long)]
    strict: bool,
    /// At most this many games per transaction.
    #[arg(long, default_value_t = ImportOptions::default().batch_games, hide = true)]
    batch_games: usize,
    /// Memory budget in MB (at least 64): SQLite's page cache and the games gathered for the
    /// next transaction share it; lower it on a small machine (smaller transactions, slower
    /// on a big database).
    #[arg(long, value_name = "MB", default_value_t = DEFAULT_MEMORY_BYTES >> 20)]
    memory: u64,
    /// Leave the segments of the statistics as the batches wrote them: by default, once
    /// four sealed segments of one size lie side by side, the import compacts them into one
    /// after its last batch (`qipu compact`), so that a question asks few segments.
    #[arg(long)]
    pub no_compact: bool,
    /// Seal the open segment after the last batch (the next import opens a new one): for
    /// benchmarks and tests of several segments without a million games each.
    #[arg(long, hide = true)]
    pub seal: bool,
    /// Print each batch's timings to standard error at the end.
    #[arg(long, hide = true)]
    timings: bool,
    /// A transaction also ends after this many milliseconds.
    #[arg(long, default_value_t = ImportOptions::default().batch_time.as_millis() as u64, hide = true)]
    batch_ms: u64,
}

/// The chunks of every path, in order.
fn read_inputs(paths: Vec<PathBuf>) -> impl Iterator<Item = Chunk> + Send {
    paths.into_iter().flat_map(|p| chunks(&p))
}

/// The input's size for the pipeline's last batch ([`ImportOptions::input_bytes`]): the
/// sizes of the files, folders walked; unknown when a zip is among them (its members read
/// to more than its size) or a size cannot be read.
fn input_bytes(paths: &[PathBuf]) -> Option<u64> {
    fn walk(p: &std::path::Path) -> Option<u64> {
        let meta = std::fs::metadata(p).ok()?;
        if meta.is_dir() {
            let mut sum = 0;
            for entry in std::fs::read_dir(p).ok()? {
                sum += walk(&entry.ok()?.path())?;
            }
            return Some(sum);
        }
        let zip = p.extension().is_some_and(|e| e.eq_ignore_ascii_case("zip"));
        (!zip).then_some(meta.len())
    }
    paths.iter().map(|p| walk(p)).sum()
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
/// error's kind by its stable name, the byte offset of the game in text records, and its fate:
/// `rejected` (the game is not stored) or `truncated` (stored up to the move before `ply`).
pub(super) fn write_report(
    path: &PathBuf,
    errors: &[GameError],
    truncated: &[GameError],
) -> Result<(), CliError> {
    let mut w = csv::Writer::from_path(path)?;
    w.write_record([
        "file", "game", "ply", "token", "kind", "reason", "offset", "fate",
    ])?;
    let number = |n: Option<usize>| n.map(|n| n.to_string()).unwrap_or_default();
    let fated = errors
        .iter()
        .map(|e| (e, "rejected"))
        .chain(truncated.iter().map(|e| (e, "truncated")));
    for (e, fate) in fated {
        w.write_record([
            e.file.clone(),
            number(e.game.map(|g| g + 1)),
            number(e.ply),
            e.token.clone().unwrap_or_default(),
            e.kind.name().to_string(),
            e.reason(),
            e.offset.map(|o| o.to_string()).unwrap_or_default(),
            fate.to_string(),
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
    let memory_bytes = match args.memory.checked_mul(1 << 20) {
        Some(b) if b >= MIN_MEMORY_BYTES => b,
        Some(_) => {
            let least = MIN_MEMORY_BYTES >> 20;
            return Err(format!(
                "--memory {}: the import needs at least {least} MB",
                args.memory
            )
            .into());
        }
        None => return Err(format!("--memory {}: too large", args.memory).into()),
    };
    let mut store = Store::open(&args.db)?;
    let opts = ImportOptions {
        max_ply: args.max_ply,
        batch_games: args.batch_games,
        memory_bytes,
        batch_time: Duration::from_millis(args.batch_ms),
        input_bytes: input_bytes(&args.paths),
        keep_prefix: !args.strict,
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
    // Every game is committed by now. A compaction that fails leaves the segments as they
    // were (every answer exact): the import stands, and the warning says what to run.
    if args.seal {
        store.seal_segment()?;
    }
    let compacted = (!args.no_compact).then(|| store.compact());
    let compact_error = match &compacted {
        Some(Err(e)) => Some(format!(
            "all games are committed, but compacting the statistics failed ({e}): run `qipu compact --db {}`",
            args.db.display()
        )),
        _ => None,
    };
    let compacted = compacted.and_then(Result::ok);
    if let Some(c) = compacted
        .as_ref()
        .filter(|c| c.compactions > 0 && !args.json)
    {
        eprintln!("{}", super::compact::outcome_line(c));
    }
    // A checkpoint that fails (disk full) leaves them in the WAL, where the next open of
    // the database finds them.
    let checkpointing = Instant::now();
    let checkpoint = store.checkpoint().err().map(|e| {
        format!(
            "all games are committed, but the final checkpoint failed ({e}): {} keeps them in {}-wal until the next open",
            args.db.display(),
            args.db.display()
        )
    });
    if args.timings {
        print_timings(&report, checkpointing.elapsed());
    }
    let run = RunSummary {
        games_read: report.games_read,
        files: Some(report.files),
        secs: started.elapsed().as_secs_f64(),
        counts: vec![
            ("imported", "imported", report.imported),
            ("duplicates", "duplicates", report.duplicates),
            ("merged_copies", "copies merged", report.merged),
        ],
        rejected: report.rejected,
        fields: vec![
            ("db", args.db.display().to_string().into()),
            (
                "db_bytes",
                std::fs::metadata(&args.db).ok().map(|m| m.len()).into(),
            ),
            ("checkpoint_error", checkpoint.clone().into()),
            (
                "compaction",
                compacted.as_ref().map(super::compact::outcome_json).into(),
            ),
            ("compaction_error", compact_error.clone().into()),
        ],
        errors: &report.errors,
        truncated: &report.truncated,
    };
    let code = run.finish(args.json, args.report.as_ref())?;
    for warning in compact_error.iter().chain(&checkpoint) {
        eprintln!("qipu import: {warning}");
    }
    Ok(code)
}

/// `--timings`: one line per batch (seconds since the import began), then the final
/// checkpoint's.
fn print_timings(report: &ImportReport, checkpoint: Duration) {
    let s = |d: Duration| d.as_secs_f64();
    for (i, b) in report.batches.iter().enumerate() {
        let t = &b.timings;
        eprintln!(
            "batch {i}: {} games, {} MB of input, sent at {:.2} ({}), written {:.2} to {:.2}: \
             plan {:.2}, insert {:.2}, ranges {:.2}, busy {:.2}, players {:.2}, copies {:.2}, persons {:.2}, commit {:.2}; \
             wrote bytes: ranges {}, busy rows {} (summary {}, links {}, buckets {}), lists {}",
            b.games,
            b.input_bytes >> 20,
            s(b.sent),
            b.why,
            s(b.began),
            s(b.began + b.took),
            s(t.plan),
            s(t.insert),
            s(t.ranges),
            s(t.busy),
            s(t.players),
            s(t.copies),
            s(t.persons),
            s(t.commit),
            t.written.ranges,
            t.written.busy_rows,
            t.written.summary,
            t.written.links,
            t.written.buckets,
            t.written.lists
        );
    }
    eprintln!("final checkpoint: {:.2}", s(checkpoint));
}

/// How an import-like run (`qipu import`, `qipu emit`) went, for [`RunSummary::finish`].
pub(super) struct RunSummary<'a> {
    /// Games read (replayable or not).
    pub games_read: u64,
    /// Files read, when the run counts them.
    pub files: Option<u64>,
    /// Seconds taken.
    pub secs: f64,
    /// The run's own counts, in the order shown: (JSON name, the words after the number
    /// in the summary line, value).
    pub counts: Vec<(&'static str, &'static str, u64)>,
    /// Games rejected.
    pub rejected: u64,
    /// Further fields of the JSON document.
    pub fields: Vec<(&'static str, serde_json::Value)>,
    /// Every error.
    pub errors: &'a [GameError],
    /// The games kept up to a bad move, each one's error.
    pub truncated: &'a [GameError],
}

impl RunSummary<'_> {
    /// Writes the rejected-games report to `report` (when given), then one JSON document
    /// (`json`) or the summary line and the first ten errors; the exit code is 0 when
    /// there was no error, 1 otherwise (a rejected or truncated game, or a file that gave no
    /// game: the summary counts each).
    pub(super) fn finish(
        &self,
        json: bool,
        report: Option<&PathBuf>,
    ) -> Result<ExitCode, CliError> {
        let rate = self.games_read as f64 / self.secs.max(1e-9);
        // Files that gave no game at all (empty, not a record, unreadable): input rejected
        // as surely as a game, so counted beside the games in the summary.
        let unread = self.errors.iter().filter(|e| e.game.is_none()).count();
        if let Some(path) = report {
            write_report(path, self.errors, self.truncated)?;
        }
        let mut out = std::io::stdout().lock();
        if json {
            let mut doc = serde_json::Map::new();
            for (name, value) in [
                ("games_read", self.games_read.into()),
                ("rejected", self.rejected.into()),
                ("files_unread", unread.into()),
                ("truncated", self.truncated.len().into()),
                (
                    "truncated_games",
                    self.truncated
                        .iter()
                        .map(error_json)
                        .collect::<Vec<_>>()
                        .into(),
                ),
                ("seconds", self.secs.into()),
                ("games_per_second", rate.into()),
                ("peak_rss_bytes", peak_rss_bytes().into()),
                (
                    "errors",
                    self.errors
                        .iter()
                        .map(error_json)
                        .collect::<Vec<_>>()
                        .into(),
                ),
            ]
            .into_iter()
            .chain(self.files.map(|f| ("files", f.into())))
            .chain(self.counts.iter().map(|(name, _, n)| (*name, (*n).into())))
            .chain(self.fields.iter().cloned())
            {
                doc.insert(name.to_string(), value);
            }
            serde_json::to_writer_pretty(&mut out, &doc)?;
            writeln!(out)?;
        } else {
            let files = self
                .files
                .map_or(String::new(), |f| format!(" from {f} files"));
            let counts: Vec<String> =
                self.counts
                    .iter()
                    .map(|(_, words, n)| format!("{n} {words}"))
                    .chain([format!("{} rejected", self.rejected)])
                    .chain((!self.truncated.is_empty()).then(|| {
                        format!("{} truncated (kept up to a bad move)", self.truncated.len())
                    }))
                    .chain((unread > 0).then(|| {
                        format!("{unread} file{} unread", if unread == 1 { "" } else { "s" })
                    }))
                    .collect();
            writeln!(
                out,
                "{} games{files} in {:.2} s ({rate:.0} games/s): {}",
                self.games_read,
                self.secs,
                counts.join(", ")
            )?;
            let lines: Vec<String> = self
                .errors
                .iter()
                .map(ToString::to_string)
                .chain(self.truncated.iter().map(|e| {
                    let kept = e.ply.map_or(0, |p| p - 1);
                    format!("{e} (truncated: its first {kept} plies kept)")
                }))
                .collect();
            for line in lines.iter().take(10) {
                eprintln!("  {line}");
            }
            if lines.len() > 10 {
                eprintln!(
                    "  … and {} more{}",
                    lines.len() - 10,
                    if report.is_some() {
                        " (all in the report)"
                    } else {
                        " (use --report FILE to list them all)"
                    }
                );
            }
        }
        Ok(if self.errors.is_empty() && self.truncated.is_empty() {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        })
    }
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
            truncated: 0,
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
