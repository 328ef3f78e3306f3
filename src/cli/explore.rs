//! `qipu explore`: the statistics of a position, as an aligned table or as JSON.

use std::{io::Write, path::PathBuf, process::ExitCode};

use clap::Args;

use super::CliError;
use crate::{
    explorer::{explore as run_query, Explore, Query},
    store::Store,
};

/// Arguments of `qipu explore`.
#[derive(Args, Debug)]
pub struct ExploreArgs {
    /// The database.
    #[arg(long, default_value = "qipu.db")]
    db: PathBuf,
    /// The game: xiangqi or janggi.
    #[arg(long, default_value = "xiangqi")]
    variant: String,
    /// Start position (default: the standard start).
    #[arg(long)]
    fen: Option<String>,
    /// Moves played from the start, in any supported notation (several values, or one
    /// quoted string).
    #[arg(long, num_args = 1..)]
    moves: Vec<String>,
    /// Only games on or after this date (YYYY, YYYY-MM or YYYY-MM-DD).
    #[arg(long)]
    since: Option<String>,
    /// Only games on or before this date.
    #[arg(long)]
    until: Option<String>,
    /// Only games whose known ratings are all at least this.
    #[arg(long)]
    min_rating: Option<u32>,
    /// Only games of this player (substring of either name, or of the one on --side).
    #[arg(long)]
    player: Option<String>,
    /// With --player: first (Red/Cho) or second (Black/Han).
    #[arg(long)]
    side: Option<String>,
    /// Only games whose event contains this text.
    #[arg(long)]
    event: Option<String>,
    /// Merge the position with its left-right mirror.
    #[arg(long)]
    mirror: bool,
    /// At most this many moves (0 = all).
    #[arg(long, default_value_t = 0)]
    limit: usize,
    /// At most this many top games.
    #[arg(long, default_value_t = 10)]
    top_games: usize,
    /// List as top games the best games that played this move here (any notation).
    #[arg(long)]
    top_move: Option<String>,
    /// Print one JSON document instead of the table.
    #[arg(long)]
    json: bool,
}

impl ExploreArgs {
    fn query(&self) -> Query {
        Query {
            variant: self.variant.clone(),
            fen: self.fen.clone(),
            moves: self.moves.clone(),
            since: self.since.clone(),
            until: self.until.clone(),
            min_rating: self.min_rating,
            player: self.player.clone(),
            side: self.side.clone(),
            event: self.event.clone(),
            mirror: self.mirror,
            limit: self.limit,
            top_games: self.top_games,
            top_move: self.top_move.clone(),
        }
    }
}

/// Runs `qipu explore`.
pub fn explore(args: &ExploreArgs) -> Result<ExitCode, CliError> {
    if !args.db.exists() {
        return Err(format!(
            "{}: no such database (create one with `qipu import`)",
            args.db.display()
        )
        .into());
    }
    let store = Store::open_read_only(&args.db)?;
    let answer = run_query(&store, &args.query())?;
    let mut out = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &answer)?;
        writeln!(out)?;
    } else {
        write_table(&mut out, &answer)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Terminal columns a string takes: East Asian wide and full-width characters count 2.
pub fn display_width(s: &str) -> usize {
    s.chars()
        .map(|c| {
            let u = c as u32;
            let wide = (0x1100..=0x115f).contains(&u)
                || (0x2e80..=0xa4cf).contains(&u)
                || (0xac00..=0xd7a3).contains(&u)
                || (0xf900..=0xfaff).contains(&u)
                || (0xfe30..=0xfe4f).contains(&u)
                || (0xff00..=0xff60).contains(&u)
                || (0xffe0..=0xffe6).contains(&u)
                || (0x2_0000..=0x3_fffd).contains(&u);
            if wide {
                2
            } else {
                1
            }
        })
        .sum()
}

fn pad(s: &str, width: usize) -> String {
    let w = display_width(s);
    format!("{s}{}", " ".repeat(width.saturating_sub(w)))
}

fn pct(n: u64, d: u64) -> f64 {
    if d == 0 {
        0.0
    } else {
        100.0 * n as f64 / d as f64
    }
}

/// A bar of `width` cells: first-player wins `█`, draws `▒`, second-player wins `░`.
fn bar(first: u64, draws: u64, second: u64, width: usize) -> String {
    let total = first + draws + second;
    if total == 0 {
        return " ".repeat(width);
    }
    let cells = |n: u64| ((n as f64 * width as f64 / total as f64).round()) as usize;
    let a = cells(first).min(width);
    let b = cells(draws).min(width - a);
    let c = width - a - b;
    format!("{}{}{}", "█".repeat(a), "▒".repeat(b), "░".repeat(c))
}

fn write_table(out: &mut impl Write, e: &Explore) -> std::io::Result<()> {
    let (first, second) = if e.variant == "janggi" {
        ("Cho", "Han")
    } else {
        ("Red", "Black")
    };
    writeln!(out, "{}  {}", e.variant, e.fen)?;
    write!(out, "key {}", e.key)?;
    if let Some(o) = &e.opening {
        if o.ecco.is_empty() {
            write!(out, "   opening {}", o.name)?;
        } else {
            write!(out, "   opening {} {}", o.ecco, o.name)?;
        }
    }
    writeln!(out)?;
    let decided = e.first_wins + e.draws + e.second_wins;
    writeln!(
        out,
        "{} games: {first} {:.1}%  draw {:.1}%  {second} {:.1}%",
        e.games,
        pct(e.first_wins, decided),
        pct(e.draws, decided),
        pct(e.second_wins, decided),
    )?;
    if e.moves.is_empty() {
        writeln!(out, "\nno games in the database go through this position")?;
        return Ok(());
    }
    let keys: Vec<&str> = if e.variant == "janggi" {
        vec!["korean"]
    } else {
        vec!["wxf", "chinese"]
    };
    let widths: Vec<usize> = keys
        .iter()
        .map(|k| {
            e.moves
                .iter()
                .map(|m| m.notation.get(*k).map_or(0, |s| display_width(s)))
                .max()
                .unwrap_or(0)
                .max(display_width(k))
        })
        .collect();
    let mut header = pad("move", 6);
    for (k, w) in keys.iter().zip(&widths) {
        header.push_str(&pad(k, w + 2));
    }
    header.push_str(&format!(
        "{:>7} {:>6}  {:<20}  {:>6} {:>6} {:>6}  {:>5}  {:>6}  last",
        "games",
        "%",
        format!("{first}/draw/{second}"),
        first,
        "draw",
        second,
        "score",
        "rating"
    ));
    writeln!(out, "\n{header}")?;
    for m in &e.moves {
        let mut line = pad(&m.mv, 6);
        for (k, w) in keys.iter().zip(&widths) {
            line.push_str(&pad(m.notation.get(*k).map_or("", String::as_str), w + 2));
        }
        let d = m.first_wins + m.draws + m.second_wins;
        line.push_str(&format!(
            "{:>7} {:>5.1}%  {}  {:>5.1}% {:>5.1}% {:>5.1}%  {:>5.1}  {:>6}  {}",
            m.games,
            pct(m.games, e.games),
            bar(m.first_wins, m.draws, m.second_wins, 20),
            pct(m.first_wins, d),
            pct(m.draws, d),
            pct(m.second_wins, d),
            100.0 * m.score,
            m.avg_rating.map_or("-".to_string(), |r| format!("{r:.0}")),
            m.last_date.as_deref().unwrap_or("-"),
        ));
        writeln!(out, "{}", line.trim_end())?;
    }
    if !e.top_games.is_empty() {
        writeln!(out, "\ntop games")?;
        for g in &e.top_games {
            writeln!(
                out,
                "  #{:<7} {} - {}  {:<7} {}  {}",
                g.id,
                g.first.as_deref().unwrap_or("?"),
                g.second.as_deref().unwrap_or("?"),
                g.result,
                g.date.as_deref().unwrap_or("-"),
                g.event.as_deref().unwrap_or(""),
            )?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_count_cjk_as_two() {
        assert_eq!(display_width("h2e2"), 4);
        assert_eq!(display_width("炮二平五"), 8);
        assert_eq!(display_width("08마87"), 6);
    }

    #[test]
    fn bars_fill_their_width() {
        assert_eq!(bar(1, 1, 2, 8), "██▒▒░░░░");
        assert_eq!(bar(0, 0, 0, 3), "   ");
        assert_eq!(display_width(&bar(3, 3, 3, 20)), 20);
    }
}
