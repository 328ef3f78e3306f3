//! `qipu compact`: the segments of a database's statistics compacted (`store::compact`).
//! `qipu import` does the same after its last batch unless told `--no-compact`.

use std::{io::Write, path::PathBuf, process::ExitCode};

use clap::Args;

use super::CliError;
use crate::store::{CompactOutcome, Store};

/// Arguments of `qipu compact`.
#[derive(Args, Debug)]
pub struct CompactArgs {
    /// The database.
    #[arg(long, default_value = "qipu.db")]
    db: PathBuf,
    /// Print one JSON document.
    #[arg(long)]
    json: bool,
}

/// Runs `qipu compact`.
pub fn compact(args: &CompactArgs) -> Result<ExitCode, CliError> {
    if !args.db.exists() {
        return Err(format!("{}: no such database", args.db.display()).into());
    }
    let mut store = Store::open(&args.db)?;
    let done = store.compact()?;
    store.checkpoint()?;
    let mut out = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &outcome_json(&done))?;
        writeln!(out)?;
    } else {
        writeln!(out, "{}", outcome_line(&done))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// A compaction as the JSON documents of `qipu compact` and `qipu import` give it.
pub(super) fn outcome_json(c: &CompactOutcome) -> serde_json::Value {
    serde_json::json!({
        "segments_compacted": c.segments,
        "compactions": c.compactions,
        "games": c.games,
        "positions": c.positions,
        "busy_positions": c.busy,
        "promoted": c.promoted,
        "bytes_written": c.bytes,
        "segments": c.segments_after,
        "bytes_released": c.released,
        "secs": (c.seconds * 1000.0).round() / 1000.0,
        "release_secs": (c.release_seconds * 1000.0).round() / 1000.0,
    })
}

/// A compaction in one line.
pub(super) fn outcome_line(c: &CompactOutcome) -> String {
    if c.compactions == 0 {
        return format!(
            "nothing to compact: {} segments; {:.1} MB given back to the file system",
            c.segments_after,
            c.released as f64 / 1e6
        );
    }
    format!(
        "compacted {} segments ({} games, {} positions, {} busy) into {} in {:.1} s; {} segments now, {:.1} MB given back to the file system",
        c.segments,
        c.games,
        c.positions,
        c.busy,
        c.compactions,
        c.seconds,
        c.segments_after,
        c.released as f64 / 1e6
    )
}
