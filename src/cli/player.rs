//! `qipu player NAME`: a player's dossier (results by side and year, first and last game,
//! events, opponents, Janggi formations, repertoire and weak lines) as a readable report or
//! as JSON, and `--pgn FILE`: the repertoire as PGN with variations, to prepare against.

use std::{
    io::Write,
    path::{Path, PathBuf},
    process::ExitCode,
};

use clap::Args;

use super::{game_filter::GameFilterArgs, CliError, Context};
use crate::{
    explorer::{
        dossier, json::PlayerJson, repertoire_pgn, Dossier, DossierQuery, NamedJson,
        RepertoireMove, RepertoireTree, DEFAULT_DEPTH, DEFAULT_DOSSIER_MIN_GAMES,
    },
    store::Store,
};

/// Arguments of `qipu player`. Each is read with the parser `/api/player` uses for the
/// parameter of the same name, and checked by the same [`DossierQuery::new`].
#[derive(Args, Debug)]
#[command(
    mut_arg("player", |a| a.hide(true)),
    mut_arg("side", |a| a.help(
        "Only the player's games on this side: red, black, cho, han, first or second"
    ))
)]
pub struct PlayerArgs {
    /// The player: any spelling of their name (as `qipu players` lists them).
    name: String,
    /// The database.
    #[arg(long, default_value = "qipu.db")]
    db: PathBuf,
    /// The repertoire's depth, in plies.
    #[arg(long, default_value_t = DEFAULT_DEPTH)]
    depth: usize,
    /// The games a repertoire move needs to be listed, and a weak line to count.
    #[arg(long, default_value_t = DEFAULT_DOSSIER_MIN_GAMES)]
    min_games: u64,
    /// Which of the player's games count (`--side`: only those on that side).
    #[command(flatten)]
    filter: GameFilterArgs,
    /// Print one JSON document (the answer of `GET /api/player`): `player`, `spellings`,
    /// `games`, `as_first`, `as_second`, `by_year`, `first_game`, `last_game`, `events`,
    /// `opponents`, `formations` (Janggi), `repertoire` {`first`, `second`}, `weak_lines`.
    #[arg(long)]
    json: bool,
    /// Also write the repertoire to this file as PGN: one game per side and start, the most
    /// played line as the main line, the others as variations, games and score as comments.
    #[arg(long, value_name = "FILE")]
    pgn: Option<PathBuf>,
}

/// Runs `qipu player`.
pub fn player(args: &PlayerArgs) -> Result<ExitCode, CliError> {
    let q = DossierQuery::new(&args.name, args.filter.filter(), args.depth, args.min_games)?;
    if !args.db.exists() {
        return Err(format!(
            "{}: no such database (create one with `qipu import`)",
            args.db.display()
        )
        .into());
    }
    let store = Store::open_read_only(&args.db)?;
    let d = dossier(&store, &q)?;
    if let Some(path) = &args.pgn {
        let text = repertoire_pgn(&d.player, &d.repertoire)?;
        write_file(path, &text).map_err(|e| Context::new(path.display().to_string(), e))?;
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &d)?;
        writeln!(out)?;
    } else {
        write_report(&mut out, &d)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Writes `text` to a temporary file beside `path`, then renames it there: no partial file.
fn write_file(path: &Path, text: &str) -> std::io::Result<()> {
    let name = path
        .file_name()
        .map_or_else(|| "repertoire".into(), |n| n.to_string_lossy().into_owned());
    let tmp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    let written = std::fs::write(&tmp, text).and_then(|()| std::fs::rename(&tmp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// `12 games  +5 =4 -3  58.3%` (and the performance when known).
fn results(r: &PlayerJson) -> String {
    let mut s = format!(
        "{:>5} games  +{} ={} -{}",
        r.games, r.wins, r.draws, r.losses
    );
    if let Some(p) = r.score {
        s.push_str(&format!("  {:.1}%", p * 100.0));
    }
    if let Some(p) = r.performance {
        s.push_str(&format!("  perf {p}"));
    }
    s
}

fn named(out: &mut impl Write, title: &str, list: &[NamedJson]) -> std::io::Result<()> {
    if list.is_empty() {
        return Ok(());
    }
    writeln!(out, "\n{title} ({}):", list.len())?;
    for n in list.iter().take(LISTED) {
        writeln!(out, "  {}  {}", results(&n.results), n.name)?;
    }
    if list.len() > LISTED {
        writeln!(out, "  … {} more (--json lists all)", list.len() - LISTED)?;
    }
    Ok(())
}

/// Rows of a list the report shows.
const LISTED: usize = 10;

fn tree(out: &mut impl Write, moves: &[RepertoireMove], indent: usize) -> std::io::Result<()> {
    for m in moves {
        let text = m
            .notation
            .values()
            .next()
            .map_or(m.mv.clone(), |t| format!("{} {t}", m.mv));
        let who = if m.by == "player" { "" } else { "  (opponent)" };
        writeln!(
            out,
            "{}{}  {}{who}",
            "  ".repeat(indent),
            text,
            results(&m.results).trim_start()
        )?;
        tree(out, &m.moves, indent + 1)?;
    }
    Ok(())
}

fn trees(out: &mut impl Write, side: &str, list: &[RepertoireTree]) -> std::io::Result<()> {
    for t in list {
        let from = match (&t.formations, &t.fen) {
            (Some(f), _) => format!(" from {f}"),
            (None, Some(fen)) => format!(" from {fen}"),
            (None, None) => String::new(),
        };
        writeln!(
            out,
            "\nrepertoire as {side}{from}: {}",
            results(&t.results).trim_start()
        )?;
        tree(out, &t.moves, 1)?;
    }
    Ok(())
}

/// The dossier as a report for the terminal.
///
/// # Errors
/// Only the writer's.
pub fn write_report(out: &mut impl Write, d: &Dossier) -> std::io::Result<()> {
    let janggi = d.formations.is_some();
    let (first, second) = if janggi {
        ("Cho", "Han")
    } else {
        ("Red", "Black")
    };
    writeln!(out, "{}: {} games", d.player, d.games)?;
    if d.spellings.len() > 1 {
        let s: Vec<String> = d
            .spellings
            .iter()
            .map(|s| format!("{} {}", s.name, s.games))
            .collect();
        writeln!(out, "  spellings: {}", s.join(", "))?;
    }
    for n in &d.notes {
        writeln!(out, "  note: {n}")?;
    }
    writeln!(out, "  as {first:<5} {}", results(&d.as_first))?;
    writeln!(out, "  as {second:<5} {}", results(&d.as_second))?;
    for (what, g) in [("first game", &d.first_game), ("last game ", &d.last_game)] {
        if let Some(g) = g {
            writeln!(
                out,
                "  {what}  #{} {} vs {} ({}) {}",
                g.id,
                g.date.as_deref().unwrap_or("undated"),
                g.opponent.as_deref().unwrap_or("?"),
                g.side,
                g.result.as_deref().unwrap_or("*")
            )?;
        }
    }
    if !d.by_year.is_empty() {
        writeln!(out, "\nby year:")?;
        for y in &d.by_year {
            let year = y.year.map_or("undated".to_string(), |y| y.to_string());
            let mut line = format!("  {year:<7} {}", results(&y.results));
            if let Some(r) = y.rating {
                line.push_str(&format!("  rating {r:.0}"));
            }
            if let Some(r) = &y.rank {
                line.push_str(&format!("  rank {r}"));
            }
            writeln!(out, "{line}")?;
        }
    }
    named(out, "events", &d.events)?;
    named(out, "opponents", &d.opponents)?;
    if let Some(f) = &d.formations {
        named(out, "formations as Cho", &f.first)?;
        named(out, "formations as Han", &f.second)?;
    }
    trees(out, first, &d.repertoire.first)?;
    trees(out, second, &d.repertoire.second)?;
    if !d.weak_lines.is_empty() {
        writeln!(
            out,
            "\nweak lines (at least {} games, score against the side's average):",
            d.min_games
        )?;
        for w in &d.weak_lines {
            writeln!(
                out,
                "  as {:<6} {:>4} games  {:.1}% ({:+.1})  {}",
                w.side,
                w.games,
                w.score * 100.0,
                w.delta * 100.0,
                w.notation.join(" ")
            )?;
        }
    }
    Ok(())
}
