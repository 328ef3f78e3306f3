//! `qipu book extend`: a book's lines that end before `--plies` continued with a UCI
//! engine's best moves. The walk is `crate::book::extend`, the engine and its cache
//! `crate::analysis::best`; this module wires them to the files and prints the summary.

use std::{
    io::Write,
    path::PathBuf,
    process::ExitCode,
    time::{Duration, Instant},
};

use clap::Args;
use serde_json::json;

use super::{
    analyse::parse_option,
    book::FormatArg,
    book_tools::{format_of, holds, read, write_as},
    CliError, Context,
};
use crate::{
    analysis::best::{BestError, BestMoves},
    book::extend::{extend as grow, ExtendError},
    engine::EngineSpec,
    store::Store,
};

/// Arguments of `qipu book extend`.
#[derive(Args, Debug)]
pub struct ExtendArgs {
    /// The book (BOOK.DAT, .obk or qipu, recognised from the content).
    input: PathBuf,
    /// The UCI engine's executable (e.g. /usr/games/fairy-stockfish).
    #[arg(long)]
    engine: PathBuf,
    /// Each search goes to this depth.
    #[arg(long)]
    depth: u32,
    /// Lines are continued up to this many plies from the start.
    #[arg(long)]
    plies: u32,
    /// Output file (replaced once complete; nothing is written if the run stops).
    #[arg(long)]
    out: PathBuf,
    /// A database (created if missing) caching every search in its evaluation tables, as
    /// `qipu analyse` stores them: a run again asks the engine only what is not stored.
    #[arg(long)]
    db: Option<PathBuf>,
    /// Output format [default: the input's].
    #[arg(long, value_enum)]
    format: Option<FormatArg>,
    /// A UCI option for the engine, `NAME=VALUE` (repeatable); Threads=1 and Hash=16 are set
    /// unless given here.
    #[arg(long = "option", value_name = "NAME=VALUE", value_parser = parse_option)]
    options: Vec<(String, String)>,
    /// Stop after K new searches (the rest of the run left for a later one; needs --db, no
    /// book is written then).
    #[arg(long, value_name = "K", requires = "db")]
    max_searches: Option<usize>,
    /// Time limit of one search, seconds (an engine past it is killed and the run stops).
    #[arg(long, default_value_t = 300)]
    timeout: u64,
    /// Print the summary as JSON on stdout.
    #[arg(long)]
    json: bool,
}

/// Runs `qipu book extend`: 0 when the book is written, 1 when `--max-searches` stopped the
/// run (no book written, the searches stored in the database), 2 on an error (no book
/// written).
pub fn extend(a: &ExtendArgs) -> Result<ExitCode, CliError> {
    let started = Instant::now();
    if a.depth == 0 {
        return Err("--depth must be at least 1".into());
    }
    let book = read(&a.input)?;
    let format = a.format.map_or(book.format, format_of);
    holds(format, &a.input, &book)?;
    let mut store = match &a.db {
        Some(db) => Some(Store::open(db).map_err(|e| Context::new(db.display().to_string(), e))?),
        None => None,
    };
    let spec = EngineSpec {
        options: a.options.clone(),
        ..EngineSpec::new(&a.engine)
    };
    let timeout = Duration::from_secs(a.timeout.max(1));
    let mut engine =
        BestMoves::start(&spec, a.depth, timeout, store.as_mut()).map_err(|e| in_db(e, a))?;
    engine.max_searches = a.max_searches;
    let grown = grow(&book, a.plies, |pos| engine.best(pos));
    let stats = engine.stats;
    let (name, options) = engine.configuration();
    let (name, options) = (name.to_string(), options.to_string());
    drop(engine);
    let grown = match grown {
        Ok(g) => g,
        Err(ExtendError::Best(BestError::Budget(n))) => {
            eprintln!(
                "qipu: {}: stopped after {n} new searches (--max-searches), {} answered from the database; no book written: run again to go on",
                a.out.display(),
                stats.cached
            );
            return Ok(ExitCode::from(1));
        }
        Err(ExtendError::Best(e)) => return Err(in_db(e, a)),
        Err(e @ ExtendError::Illegal { .. }) => {
            return Err(format!("engine {}: {e}", a.engine.display()).into())
        }
    };
    if let Some(s) = &store {
        s.checkpoint()?;
    }
    let Some(w) = write_as(&grown.contents, format, &a.out)? else {
        return Ok(ExitCode::from(1));
    };
    let total = started.elapsed();
    let share = stats.engine_time.as_secs_f64() / total.as_secs_f64().max(1e-9);
    if a.json {
        let doc = json!({"book": a.input.display().to_string(), "out": a.out.display().to_string(),
            "format": format.name(), "engine": name, "options": options, "depth": a.depth,
            "plies": a.plies, "line_ends": grown.line_ends, "lines_extended": grown.extended,
            "lines_to_target": grown.to_target, "plies_added": grown.plies_added,
            "searches_cached": stats.cached, "searches_new": stats.searched,
            "records": w.records, "positions": w.positions,
            "engine_marks_not_kept": w.lost.engine_marks,
            "engine_ms": stats.engine_time.as_millis() as u64,
            "total_ms": total.as_millis() as u64, "engine_share": share});
        writeln!(std::io::stdout().lock(), "{doc}")?;
        return Ok(ExitCode::SUCCESS);
    }
    eprintln!(
        "{}: {format}, {} records, {} positions",
        a.out.display(),
        w.records,
        w.positions
    );
    eprintln!(
        "{} lines' ends before ply {}: {} extended ({} to ply {}), {} plies added by {name} ({options}) at depth {}",
        grown.line_ends, a.plies, grown.extended, grown.to_target, a.plies, grown.plies_added, a.depth
    );
    if w.lost.engine_marks > 0 {
        eprintln!(
            "not kept: {} engine marks ({} has no field for them; the engine moves weigh 1)",
            w.lost.engine_marks,
            format.label()
        );
    }
    eprintln!(
        "engine searches: {} from the database, {} new; engine {:.2} s of {:.2} s in all ({:.1}%)",
        stats.cached,
        stats.searched,
        stats.engine_time.as_secs_f64(),
        total.as_secs_f64(),
        share * 100.0
    );
    Ok(ExitCode::SUCCESS)
}

/// An engine or database error, with the database named for a database error.
fn in_db(e: BestError, a: &ExtendArgs) -> CliError {
    match (e, &a.db) {
        (BestError::Store(e), Some(db)) => Context::new(db.display().to_string(), e).into(),
        (e, _) => e.to_string().into(),
    }
}
