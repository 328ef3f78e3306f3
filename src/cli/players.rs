//! `qipu players PATTERN`: the persons with a name that contains a pattern (matched after
//! folding: letter case, full-width forms, spaces and simplified/traditional script do not
//! matter), most games first, each with every spelling of their name, so that the user can
//! pick the name to give `explore --player` (any spelling finds the person's games). Reads
//! the player index only; `--rebuild` recomputes the persons behind the names, `--suggest`
//! lists candidate merges of homophone misspellings (never applied), and `--spellings FILE`,
//! `--merge A B` and `--split NAME` record the user's decisions on persons first;
//! `--decisions` lists those decisions and `--forget N|NAME` removes one.

use std::{io::Write, path::PathBuf, process::ExitCode, time::Instant};

use clap::Args;

use super::CliError;
use crate::{
    explorer::no_player,
    formats::spellings,
    store::{Decision, Store, SuggestedPerson},
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
    /// Forget one recorded decision (`--merge`, `--split` or a spelling file's line), by
    /// its number in `--decisions` or by the name it joins or splits off; the persons are
    /// recomputed without it.
    #[arg(long, value_name = "N|NAME")]
    forget: Option<String>,
    /// List the recorded decisions instead, oldest first: number, kind (`merge`: NAME is
    /// one person with PERSON; `split`: NAME is a person of its own) and origin (`--merge`,
    /// `--split`, `FILE:LINE`). `--json`: `{"decisions": [{"id", "kind", "person", "name",
    /// "origin"}]}`. qipu's own data/players.tsv is not listed (`--split` undoes a line).
    #[arg(long)]
    decisions: bool,
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
    if args.decisions {
        return decisions(&store, args.json);
    }
    let found = store.players(&args.pattern, args.limit)?;
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
        print_json(&doc)?;
        return Ok(found_any(&found));
    }
    let mut out = std::io::stdout().lock();
    for p in &found {
        let others: Vec<String> = p
            .spellings
            .iter()
            .filter(|s| s.name != p.name)
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

/// Prints one JSON document (pretty) on standard output.
fn print_json(doc: &serde_json::Value) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, doc)?;
    writeln!(out)?;
    Ok(())
}

/// 0 when some player matched, 1 when none did (the rule of every command: nothing found).
fn found_any<T>(found: &[T]) -> ExitCode {
    if found.is_empty() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// The error for a name `--merge` or `--split` gives that is no player, naming the
/// nearest persons (as `--player` does).
fn known(store: &Store, what: &str, name: &str) -> Result<(), CliError> {
    if store.is_player(name)? {
        return Ok(());
    }
    Err(format!("{what}: {}", no_player(store, name)?).into())
}

/// Applies `--spellings`, `--merge`, `--split` and `--forget`, each in its own transaction.
fn decide(args: &PlayersArgs) -> Result<(), CliError> {
    if args.spellings.is_none()
        && args.merge.is_none()
        && args.split.is_none()
        && args.forget.is_none()
    {
        return Ok(());
    }
    let mut store = Store::open(&args.db)?;
    if let Some(names) = args.merge.as_deref() {
        for n in names {
            known(&store, "--merge", n)?;
        }
    }
    if let Some(name) = &args.split {
        known(&store, "--split", name)?;
    }
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
    if let Some(which) = &args.forget {
        let (d, out) = store.forget_decision(which)?;
        eprintln!("--forget: forgot decision {}: {}", d.id, decision_text(&d));
        done.push(("--forget", out));
    }
    for (what, out) in done {
        eprintln!(
            "{what}: {} names are {} persons ({} names changed person)",
            out.players, out.persons, out.changed
        );
    }
    Ok(())
}

/// A decision in words: `merge Lv Qin into 呂欽 (--merge)`.
fn decision_text(d: &Decision) -> String {
    if d.kind == "split" {
        format!("split {} off ({})", d.name, d.origin)
    } else {
        format!("merge {} into {} ({})", d.name, d.person, d.origin)
    }
}

/// `qipu players --decisions`: the recorded decisions, as text or JSON.
fn decisions(store: &Store, json: bool) -> Result<ExitCode, CliError> {
    let all = store.decisions()?;
    if json {
        let doc = serde_json::json!({
            "decisions": all
                .iter()
                .map(|d| serde_json::json!({
                    "id": d.id,
                    "kind": d.kind,
                    "person": d.person,
                    "name": d.name,
                    "origin": d.origin,
                }))
                .collect::<Vec<_>>(),
        });
        print_json(&doc)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = std::io::stdout().lock();
    for d in &all {
        writeln!(out, "{:>4}  {}", d.id, decision_text(d))?;
    }
    if all.is_empty() {
        writeln!(out, "no decisions recorded")?;
    }
    Ok(ExitCode::SUCCESS)
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
        print_json(&doc)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = std::io::stdout().lock();
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
