//! `qipu analyse`: score the moves of a database's opening tree with a UCI engine, or
//! (`--records`) store the evaluations that game records carry, without an engine.

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
    analysis::{
        analyse as run, plan,
        records::{import_record_evals, RecordsReport},
        select, start_engines, AnalyseOptions, Progress,
    },
    engine::{EngineSpec, Limit},
    formats::read_path,
    store::Store,
};

/// Arguments of `qipu analyse`.
#[derive(Args, Debug)]
pub struct AnalyseArgs {
    /// The database (must exist).
    #[arg(long, default_value = "qipu.db")]
    db: PathBuf,
    /// The UCI engine's executable (e.g. /usr/games/fairy-stockfish).
    #[arg(long, required_unless_present = "records")]
    engine: Option<PathBuf>,
    /// Instead of running an engine: store the evaluations these game files (folders, zip
    /// archives) carry, e.g. the elephantchess.io CSV's engine lines, each move's score with
    /// the engine the record names (see README: dataset evaluations). A stored score is
    /// replaced only by a deeper one.
    #[arg(long, num_args = 1.., conflicts_with_all = ["engine", "depth", "movetime", "jobs", "options"])]
    records: Vec<PathBuf>,
    /// Search every move to this depth (the default: 10).
    #[arg(long, conflicts_with = "movetime")]
    depth: Option<u32>,
    /// Search every move this many milliseconds instead of to a depth.
    #[arg(long)]
    movetime: Option<u64>,
    /// Analyse the positions with at least this many games.
    #[arg(long, default_value_t = 10)]
    min_games: u64,
    /// … within this many plies of the start.
    #[arg(long, default_value_t = 20)]
    max_ply: usize,
    /// Engine processes in parallel (default: the number of cores).
    #[arg(long)]
    jobs: Option<usize>,
    /// A UCI option for the engine, `NAME=VALUE` (repeatable), e.g. `Hash=64`.
    #[arg(long = "option", value_name = "NAME=VALUE", value_parser = parse_option)]
    options: Vec<(String, String)>,
    /// Time limit of one position's searches, seconds (with --movetime, twice the searches'
    /// own time is added); an engine past it is killed and restarted.
    #[arg(long, default_value_t = 300)]
    timeout: u64,
    /// Print one JSON document instead of the human summary.
    #[arg(long)]
    json: bool,
}

/// Reads `--option NAME=VALUE`.
pub(crate) fn parse_option(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((n, v)) if !n.trim().is_empty() => Ok((n.trim().to_string(), v.trim().to_string())),
        _ => Err(format!("`{s}`: expected NAME=VALUE")),
    }
}

fn progress_bar(total: usize) -> ProgressBar {
    let pb = if std::io::stderr().is_terminal() {
        ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr())
    } else {
        ProgressBar::hidden()
    };
    pb.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} positions  {per_sec}  ETA {eta}  {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    pb.enable_steady_tick(Duration::from_millis(500));
    pb
}

/// Runs `qipu analyse`: exit 0 when every position was analysed, 1 when the engine failed on
/// some (the rest stored), 2 on a fatal error (through `Err`).
pub fn analyse(args: &AnalyseArgs) -> Result<ExitCode, CliError> {
    if !args.db.exists() {
        return Err(format!("{}: no such database", args.db.display()).into());
    }
    let Some(engine) = &args.engine else {
        return from_records(args);
    };
    let limit = match (args.depth, args.movetime) {
        (_, Some(ms)) if ms > 0 => Limit::MoveTime(ms),
        (_, Some(_)) => return Err("--movetime must be at least 1 ms".into()),
        (Some(0), _) => return Err("--depth must be at least 1".into()),
        (d, None) => Limit::Depth(d.unwrap_or(10)),
    };
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    let spec = EngineSpec {
        options: args.options.clone(),
        ..EngineSpec::new(engine)
    };
    let started = Instant::now();
    let mut store = Store::open(&args.db)?;
    // The engines first: a path that is not an engine fails before any work.
    let engines = start_engines(&spec, jobs)?;
    let engine_name = engines
        .first()
        .map(|e| e.name().to_string())
        .unwrap_or_default();
    let targets = select(&store, args.min_games, args.max_ply)?;
    let positions = targets.len();
    let work = plan(&store, targets, limit)?;
    let opts = AnalyseOptions {
        limit,
        timeout: Duration::from_secs(args.timeout),
    };
    let pb = progress_bar(work.len());
    let work_started = Instant::now();
    let mut report = run(&mut store, engines, &spec, &work, &opts, |p: Progress| {
        pb.set_position(p.done as u64);
        if p.failed > 0 {
            pb.set_message(format!("{} failed", p.failed));
        }
    })?;
    pb.finish_and_clear();
    store.checkpoint()?;
    report.positions = positions;
    report.already_stored = positions - work.len();
    let work_secs = work_started.elapsed().as_secs_f64();
    let rate = (report.analysed + report.failures.len()) as f64 / work_secs.max(1e-9);
    let overhead = if report.worker_ms > 0 {
        1.0 - report.engine_ms as f64 / report.worker_ms as f64
    } else {
        0.0
    };
    let mut out = std::io::stdout().lock();
    let limit_json = match limit {
        Limit::Depth(d) => serde_json::json!({ "depth": d }),
        Limit::MoveTime(ms) => serde_json::json!({ "movetime": ms }),
    };
    if args.json {
        let doc = serde_json::json!({
            "db": args.db.display().to_string(),
            "engine": engine_name,
            "options": spec.options_text(),
            "limit": limit_json,
            "jobs": jobs,
            "positions": report.positions,
            "already_stored": report.already_stored,
            "analysed": report.analysed,
            "failed": report.failures.len(),
            "abandoned": report.abandoned,
            "evals_written": report.evals_written,
            "searches": report.searches,
            "engine_ms": report.engine_ms,
            "worker_ms": report.worker_ms,
            "work_ms": (work_secs * 1000.0) as u64,
            "elapsed_ms": started.elapsed().as_millis() as u64,
            "positions_per_sec": rate,
            "harness_overhead": overhead,
            "errors": report.failures.iter().map(|f| serde_json::json!({
                "key": format!("{:016x}", f.key),
                "fen": f.fen,
                "reason": f.error.to_string(),
            })).collect::<Vec<_>>(),
        });
        serde_json::to_writer_pretty(&mut out, &doc)?;
        writeln!(out)?;
    } else {
        writeln!(
            out,
            "{} positions ({} already stored): {} analysed, {} failed, {} not reached; {} scores written by {} searches ({engine_name}, {jobs} processes)",
            report.positions,
            report.already_stored,
            report.analysed,
            report.failures.len(),
            report.abandoned,
            report.evals_written,
            report.searches,
        )?;
        writeln!(
            out,
            "{rate:.2} positions/s; engine time {:.1} s of {:.1} s in the workers (harness {:.1}%)",
            report.engine_ms as f64 / 1000.0,
            report.worker_ms as f64 / 1000.0,
            overhead * 100.0
        )?;
        for f in &report.failures {
            writeln!(out, "  error: {}", f.error)?;
        }
    }
    Ok(if report.failures.is_empty() && report.abandoned == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `qipu analyse --records`: exit 0, or 1 when some games could not be read or replayed (the
/// others' scores are stored).
fn from_records(args: &AnalyseArgs) -> Result<ExitCode, CliError> {
    let started = Instant::now();
    let mut store = Store::open(&args.db)?;
    let games = args.records.iter().flat_map(|p| read_path(p));
    let report: RecordsReport = import_record_evals(&mut store, games)?;
    store.checkpoint()?;
    for e in &report.rejected {
        eprintln!("qipu: {e}");
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        let doc = serde_json::json!({
            "db": args.db.display().to_string(),
            "records": args.records.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
            "games": report.games,
            "with_evals": report.with_evals,
            "scores": report.scores,
            "evals_written": report.written,
            "rejected": report.rejected.len(),
            "elapsed_ms": started.elapsed().as_millis() as u64,
        });
        serde_json::to_writer_pretty(&mut out, &doc)?;
        writeln!(out)?;
    } else {
        writeln!(
            out,
            "{} games ({} with evaluations, {} rejected): {} move scores, {} written (the rest were stored as deep or deeper)",
            report.games,
            report.with_evals,
            report.rejected.len(),
            report.scores,
            report.written,
        )?;
    }
    Ok(if report.rejected.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
