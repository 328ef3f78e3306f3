//! `qipu players PATTERN`: the players whose name contains a pattern (matched after folding:
//! letter case, full-width forms and spaces do not matter), most games first, so that the user
//! can pick the name to give `explore --player`. Reads the player index only.

use std::{io::Write, path::PathBuf, process::ExitCode};

use clap::Args;

use super::CliError;
use crate::store::Store;

/// Arguments of `qipu players`.
#[derive(Args, Debug)]
pub struct PlayersArgs {
    /// Part of a name (none or empty: every player).
    #[arg(default_value = "")]
    pattern: String,
    /// The database.
    #[arg(long, default_value = "qipu.db")]
    db: PathBuf,
    /// At most this many players.
    #[arg(long, default_value_t = 50)]
    limit: usize,
    /// Print one JSON document: `{"players": [{"name", "games"}]}`.
    #[arg(long)]
    json: bool,
}

/// Runs `qipu players`.
pub fn players(args: &PlayersArgs) -> Result<ExitCode, CliError> {
    if !args.db.exists() {
        return Err(format!("{}: no such database", args.db.display()).into());
    }
    let store = Store::open_read_only(&args.db)?;
    let found = store.players(&args.pattern, args.limit)?;
    let mut out = std::io::stdout().lock();
    if args.json {
        let doc = serde_json::json!({
            "players": found
                .iter()
                .map(|p| serde_json::json!({"name": p.name, "games": p.games}))
                .collect::<Vec<_>>(),
        });
        serde_json::to_writer_pretty(&mut out, &doc)?;
        writeln!(out)?;
        return Ok(ExitCode::SUCCESS);
    }
    for p in &found {
        writeln!(out, "{:>8}  {}", p.games, p.name)?;
    }
    if found.is_empty() {
        writeln!(out, "no player matches `{}`", args.pattern)?;
    }
    Ok(ExitCode::SUCCESS)
}
