//! `qipu players PATTERN`: the persons with a name that contains a pattern (matched after
//! folding: letter case, full-width forms, spaces and simplified/traditional script do not
//! matter), most games first, each with every spelling of their name, so that the user can
//! pick the name to give `explore --player` (any spelling finds the person's games). Reads
//! the player index only; `--rebuild` recomputes the persons behind the names.

use std::{io::Write, path::PathBuf, process::ExitCode, time::Instant};

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
    /// Print one JSON document: `{"players": [{"name", "games", "spellings": [{"name",
    /// "games"}]}]}` (`spellings`: every spelling, most games first).
    #[arg(long)]
    json: bool,
    /// Recompute which names are one person (as every import does) before listing: rank
    /// suffixes, place and team prefixes and pinyin, never two names that met in a game.
    #[arg(long)]
    rebuild: bool,
}

/// Runs `qipu players`: exit 1 when no player matches.
pub fn players(args: &PlayersArgs) -> Result<ExitCode, CliError> {
    if !args.db.exists() {
        return Err(format!("{}: no such database", args.db.display()).into());
    }
    if args.rebuild {
        let began = Instant::now();
        let mut store = Store::open(&args.db)?;
        let out = store.rebuild_persons()?;
        eprintln!(
            "{} names are {} persons ({} names changed person) in {:.3} s",
            out.players,
            out.persons,
            out.changed,
            began.elapsed().as_secs_f64()
        );
    }
    let store = Store::open_read_only(&args.db)?;
    let found = store.players(&args.pattern, args.limit)?;
    let mut out = std::io::stdout().lock();
    if args.json {
        let doc = serde_json::json!({
            "players": found
                .iter()
                .map(|p| serde_json::json!({
                    "name": p.name,
                    "games": p.games,
                    "spellings": p.spellings.iter()
                        .map(|s| serde_json::json!({"name": s.name, "games": s.games}))
                        .collect::<Vec<_>>(),
                }))
                .collect::<Vec<_>>(),
        });
        serde_json::to_writer_pretty(&mut out, &doc)?;
        writeln!(out)?;
        return Ok(found_any(&found));
    }
    for p in &found {
        let others: Vec<String> = p
            .spellings
            .iter()
            .skip(1)
            .map(|s| format!("{} {}", s.name, s.games))
            .collect();
        if others.is_empty() {
            writeln!(out, "{:>8}  {}", p.games, p.name)?;
        } else {
            writeln!(
                out,
                "{:>8}  {}  (also: {})",
                p.games,
                p.name,
                others.join(", ")
            )?;
        }
    }
    if found.is_empty() {
        writeln!(out, "no player matches `{}`", args.pattern)?;
    }
    Ok(found_any(&found))
}

/// 0 when some player matched, 1 when none did (the rule of every command: nothing found).
fn found_any<T>(found: &[T]) -> ExitCode {
    if found.is_empty() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
