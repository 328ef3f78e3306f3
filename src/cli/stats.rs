//! `qipu stats`: what is in a database.

use std::{io::Write, path::PathBuf, process::ExitCode};

use clap::Args;

use super::CliError;
use crate::store::Store;

/// Arguments of `qipu stats`.
#[derive(Args, Debug)]
pub struct StatsArgs {
    /// The database.
    #[arg(long, default_value = "qipu.db")]
    db: PathBuf,
    /// Print one JSON document.
    #[arg(long)]
    json: bool,
}

/// Runs `qipu stats`.
pub fn stats(args: &StatsArgs) -> Result<ExitCode, CliError> {
    if !args.db.exists() {
        return Err(format!("{}: no such database", args.db.display()).into());
    }
    let store = Store::open_read_only(&args.db)?;
    let s = store.stats()?;
    let mut out = std::io::stdout().lock();
    if args.json {
        let games: serde_json::Map<String, serde_json::Value> = s
            .games
            .iter()
            .map(|v| (v.variant.name().to_string(), v.games.into()))
            .collect();
        let doc = serde_json::json!({
            "games": games,
            "truncated_games": s.truncated,
            "positions": s.positions,
            "position_moves": s.position_moves,
            "position_games": s.position_games,
            "segments": s.segments,
            "max_ply": s.max_ply,
            "size_bytes": s.size_bytes,
            "top_events": s.top_events.iter()
                .map(|(e, n)| serde_json::json!({"event": e, "games": n}))
                .collect::<Vec<_>>(),
        });
        serde_json::to_writer_pretty(&mut out, &doc)?;
        writeln!(out)?;
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(out, "{}", args.db.display())?;
    for v in &s.games {
        writeln!(out, "  {:<8} {:>9} games", v.variant.name(), v.games)?;
    }
    if s.truncated > 0 {
        writeln!(
            out,
            "  of them {:>9} truncated (kept up to a bad move; qipu import --report lists them)",
            s.truncated
        )?;
    }
    writeln!(out, "  positions {:>9}", s.positions)?;
    writeln!(out, "  position→move rows {:>9}", s.position_moves)?;
    writeln!(out, "  position→game links {:>9}", s.position_games)?;
    writeln!(out, "  segments {:>9}", s.segments)?;
    match s.max_ply {
        Some(0) => writeln!(out, "  depth: whole games")?,
        Some(n) => writeln!(out, "  depth: first {n} plies")?,
        None => writeln!(out, "  depth: not set (empty database)")?,
    }
    writeln!(
        out,
        "  size {:.1} MiB",
        s.size_bytes as f64 / (1024.0 * 1024.0)
    )?;
    if !s.top_events.is_empty() {
        writeln!(out, "  top events:")?;
        for (e, n) in &s.top_events {
            writeln!(out, "    {n:>6}  {e}")?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
