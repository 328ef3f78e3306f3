//! `qipu emit`: the map of a Spark build (see `crate::bulk`): games and positions as Parquet.

use std::{path::PathBuf, process::ExitCode, time::Instant};

use clap::Args;

use super::{import::RunSummary, CliError};
use crate::{bulk, pipeline::DEFAULT_MAX_PLY};

/// Arguments of `qipu emit`.
#[derive(Args, Debug)]
pub struct EmitArgs {
    /// Files, folders and zip archives of any supported format (as `qipu import` takes them).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Output folder: `games/` and `positions/` get one new part file each, so that the
    /// emits of shards of an input may write (or be copied) into one folder.
    #[arg(long)]
    out: PathBuf,
    /// Count positions up to this many plies into each game (0 = whole games); the database
    /// loaded from the output keeps it.
    #[arg(long, default_value_t = DEFAULT_MAX_PLY)]
    max_ply: usize,
    /// Print one JSON document instead of the human summary.
    #[arg(long)]
    json: bool,
    /// Write every rejected or truncated game (file, game index, ply, token, reason, fate)
    /// to this CSV file.
    #[arg(long)]
    report: Option<PathBuf>,
    /// For a shard of a larger input: the place (from 0) of this emit's first argument in the
    /// whole list, so that the shards' games keep the order `qipu import` of the whole list
    /// gives them (`qipu emit a/ b/` = `qipu emit a/` plus `qipu emit --input-rank 1 b/`).
    #[arg(long, default_value_t = 0)]
    input_rank: u32,
    /// Reject a game whole at a move that cannot be read or is illegal (as `qipu import
    /// --strict`); else it is kept up to the move before, as `qipu import` keeps it.
    #[arg(long)]
    strict: bool,
}

/// Runs `qipu emit`: exit 0 when every game was emitted, 1 when some were rejected, 2 on a
/// fatal error.
pub fn emit(args: &EmitArgs) -> Result<ExitCode, CliError> {
    for p in &args.paths {
        if !p.exists() {
            return Err(format!("{}: no such file or folder", p.display()).into());
        }
    }
    let started = Instant::now();
    let report = bulk::emit(
        &args.paths,
        &args.out,
        args.max_ply,
        args.input_rank,
        !args.strict,
    )?;
    RunSummary {
        games_read: report.games_read,
        files: None,
        secs: started.elapsed().as_secs_f64(),
        counts: vec![
            ("emitted", "emitted", report.emitted),
            ("positions", "position rows", report.positions),
        ],
        rejected: report.rejected,
        fields: vec![("out", args.out.display().to_string().into())],
        errors: &report.errors,
        truncated: &report.truncated,
    }
    .finish(args.json, args.report.as_ref())
}
