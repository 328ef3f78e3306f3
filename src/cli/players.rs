//! `qipu players PATTERN`: the persons with a name that contains a pattern (matched after
//! folding: letter case, full-width forms, spaces and simplified/traditional script do not
//! matter), most games first, each with every spelling of their name, so that the user can
//! pick the name to give `explore --player` (any spelling finds the person's games). Reads
//! the player index only; `--rebuild` recomputes the persons behind the names, `--suggest`
//! lists candidate merges of homophone misspellings (never applied), and `--spellings FILE`,
//! `--merge A B` and `--split NAME` record the user's decisions on persons first.

use std::{io::Write, path::PathBuf, process::ExitCode, time::Instant};

use clap::Args;

use super::CliError;
use crate::{
    formats::spellings,
    store::{Store, SuggestedPerson},
};

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
    /// List candidate merges instead (never applied): persons whose names read the same in
    /// pinyin but are written differently (`楊官璘` / `楊官麟`) and never met in a game,
    /// most likely first, with the evidence. `--json`: `{"suggestions": [{"reading", "a",
    /// "b", "shared_opponents", "shared_events", "years_fit"}]}`, `a`/`b` being `{"name",
    /// "games", "first_year", "last_year"}`.
    #[arg(long)]
    suggest: bool,
    /// Apply a spelling file first (no re-import): one person a line,
    /// `person<TAB>spelling<TAB>spelling…` (`#` comments, blank lines skipped); the names of
    /// a line become one person, named by the first column. Recorded in the database, so
    /// that `--rebuild` and later imports keep it. A bad line is an error (`FILE:LINE`), so
    /// is a line joining two names that met in a game (naming it); then nothing changes.
    #[arg(long, value_name = "FILE")]
    spellings: Option<PathBuf>,
    /// Record that two names are one person, named by the first (refused, naming the game,
    /// if their names met in one game); `--rebuild` and later imports keep it.
    #[arg(long, num_args = 2, value_names = ["A", "B"])]
    merge: Option<Vec<String>>,
    /// Record that a name is a person of its own: no rule and no line of qipu's own
    /// spelling file joins it (forgets the `--merge`s that name it).
    #[arg(long, value_name = "NAME")]
    split: Option<String>,
}

/// Runs `qipu players`: exit 1 when no player matches.
pub fn players(args: &PlayersArgs) -> Result<ExitCode, CliError> {
    if !args.db.exists() {
        return Err(format!("{}: no such database", args.db.display()).into());
    }
    decide(args)?;
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
    if args.suggest {
        return suggest(&store, args);
    }
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

/// Applies `--spellings`, `--merge` and `--split`, each in its own transaction.
fn decide(args: &PlayersArgs) -> Result<(), CliError> {
    if args.spellings.is_none() && args.merge.is_none() && args.split.is_none() {
        return Ok(());
    }
    let mut store = Store::open(&args.db)?;
    let mut done = Vec::new();
    if let Some(file) = &args.spellings {
        let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
        let name = file.display().to_string();
        let lines = spellings::parse(&text, &name)?;
        done.push(("--spellings", store.apply_spellings(&lines, &name)?));
    }
    if let Some([a, b]) = args.merge.as_deref() {
        done.push(("--merge", store.merge_players(a, b)?));
    }
    if let Some(name) = &args.split {
        done.push(("--split", store.split_player(name)?));
    }
    for (what, out) in done {
        eprintln!(
            "{what}: {} names are {} persons ({} names changed person)",
            out.players, out.persons, out.changed
        );
    }
    Ok(())
}

/// `first–last` years of a person, or `no dated game`.
fn years(p: &SuggestedPerson) -> String {
    match (p.first_year, p.last_year) {
        (Some(a), Some(b)) if a == b => a.to_string(),
        (Some(a), Some(b)) => format!("{a}\u{2013}{b}"),
        _ => "no dated game".to_string(),
    }
}

fn person_json(p: &SuggestedPerson) -> serde_json::Value {
    serde_json::json!({
        "name": p.name,
        "games": p.games,
        "first_year": p.first_year,
        "last_year": p.last_year,
    })
}

/// `qipu players --suggest`: the candidate merges, as text or JSON.
fn suggest(store: &Store, args: &PlayersArgs) -> Result<ExitCode, CliError> {
    let found = store.suggest_persons(args.limit)?;
    let mut out = std::io::stdout().lock();
    if args.json {
        let doc = serde_json::json!({
            "suggestions": found
                .iter()
                .map(|s| serde_json::json!({
                    "reading": s.reading,
                    "a": person_json(&s.a),
                    "b": person_json(&s.b),
                    "shared_opponents": s.shared_opponents,
                    "shared_events": s.shared_events,
                    "years_fit": s.years_fit,
                }))
                .collect::<Vec<_>>(),
        });
        serde_json::to_writer_pretty(&mut out, &doc)?;
        writeln!(out)?;
        return Ok(ExitCode::SUCCESS);
    }
    for s in &found {
        writeln!(
            out,
            "{} ({} games, {}) = {} ({} games, {})?  reads {}; never met; {} shared opponents, \
             {} shared events{}",
            s.a.name,
            s.a.games,
            years(&s.a),
            s.b.name,
            s.b.games,
            years(&s.b),
            s.reading,
            s.shared_opponents,
            s.shared_events,
            if s.years_fit { "" } else { "; years apart" }
        )?;
    }
    if found.is_empty() {
        writeln!(out, "no candidate merges")?;
    }
    Ok(ExitCode::SUCCESS)
}
