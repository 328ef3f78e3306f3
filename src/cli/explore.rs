//! `qipu explore`: the statistics of a position, as an aligned table or as JSON.

use std::{io::Write, path::PathBuf, process::ExitCode};

use clap::Args;

use super::{
    game_filter::{given, GameFilterArgs},
    CliError,
};
use crate::{
    explorer::{
        explore as run_query, formation_counts,
        json::{EvalJson, ExploreJson, MonthJson, MoveJson, PlayerJson},
        line, lists_formations, parse_variant, resolve_start, Answer, ExploreWithFormations,
        FormationCount, PartialDate, Query, DEFAULT_MIN_GAMES, DEFAULT_TOP_GAMES,
    },
    notation::{parse_rules, Line},
    rules::{Color, JanggiRules, Move, Piece, Role, Square, Variant},
    store::Store,
};

/// Arguments of `qipu explore`. Each is read with the parser `/api/explore` uses for the
/// parameter of the same name, and checked by the same [`Query::new`].
#[derive(Args, Debug)]
pub struct ExploreArgs {
    /// The database.
    #[arg(long, default_value = "qipu.db")]
    db: PathBuf,
    /// The game: xiangqi or janggi (default: xiangqi; with --fen, the game the FEN's board
    /// belongs to; with --setup, janggi). `--variant janggi` alone also lists the formation
    /// pairs the games started from, with their games.
    #[arg(long, value_parser = parse_variant)]
    variant: Option<Variant>,
    /// Start position (default: the standard start).
    #[arg(long)]
    fen: Option<String>,
    /// Janggi: start from these formations, Cho's first, as `.gib` letters or names:
    /// `마상상마/상마마상`, `wonangma/yanggwima`, `inner/outer` (마상상마 wonangma inner,
    /// 상마마상 yanggwima outer, 상마상마 left-gwima left-outer, 마상마상 right-gwima
    /// right-outer; left and right as drawn with Cho at the bottom).
    #[arg(long, conflicts_with = "fen")]
    setup: Option<String>,
    /// Moves played from the start, in any supported notation (several values, or one
    /// quoted string).
    #[arg(long, num_args = 1..)]
    moves: Vec<String>,
    /// Janggi rule set the moves are played under: tournament, traditional, casual or
    /// server (default: server, the rules the database's games were replayed under).
    #[arg(long, value_parser = parse_rules)]
    rules: Option<JanggiRules>,
    /// Which games count.
    #[command(flatten)]
    filter: GameFilterArgs,
    /// Merge the position with its left-right mirror.
    #[arg(long)]
    mirror: bool,
    /// At most this many moves (0 = all).
    #[arg(long, default_value_t = 0)]
    limit: usize,
    /// At most this many top games, and as many latest games (0 = none).
    #[arg(long, default_value_t = DEFAULT_TOP_GAMES)]
    top_games: usize,
    /// Fold the moves with fewer games played (decided or not) than this into one "others"
    /// row (0: none). Moves past --limit are folded there too, so the rows always add up.
    #[arg(long, default_value_t = DEFAULT_MIN_GAMES)]
    min_games: u64,
    /// List only the moves first played (among the games the filters keep) on or after this
    /// date (YYYY, YYYY-MM or YYYY-MM-DD; a partial first date counts unless certainly
    /// earlier).
    #[arg(long, value_name = "SINCE")]
    novelties: Option<PartialDate>,
    /// Show every column (decided games, each result's share, the opponents' rating, the
    /// average year, the first game, the player's score and performance); the default table
    /// fits 120 columns.
    #[arg(long)]
    wide: bool,
    /// List as top games the best games that played this move here (any notation).
    #[arg(long)]
    top_move: Option<String>,
    /// Print one JSON document instead of the table.
    #[arg(long)]
    json: bool,
    /// Leave out the board drawn above the table.
    #[arg(long, conflicts_with = "board")]
    no_board: bool,
    /// Draw the board even when the output is not a terminal.
    #[arg(long)]
    board: bool,
    /// Draw the board in ASCII (FEN letters, upper case for Red/Cho) instead of the
    /// notation's piece names.
    #[arg(long)]
    ascii: bool,
}

impl ExploreArgs {
    /// The typed query.
    ///
    /// # Errors
    /// A message naming the bad FEN, move or filter.
    pub fn query(&self) -> Result<Query, String> {
        let (variant, fen) = resolve_start(
            self.variant,
            given(&self.fen).as_deref(),
            self.setup.as_deref(),
        )?;
        let line =
            line(variant, fen.as_deref(), &self.moves, self.rules).map_err(|e| e.to_string())?;
        let filter = self.filter.filter();
        let mut q = Query::new(
            line,
            filter,
            self.mirror,
            self.limit,
            self.top_games,
            self.top_move.as_deref(),
        )?;
        q.min_games = self.min_games;
        q.novelties = self.novelties;
        Ok(q)
    }
}

/// Runs `qipu explore`: exit 1 when no game goes through the position.
pub fn explore(args: &ExploreArgs) -> Result<ExitCode, CliError> {
    let query = args.query()?;
    if !args.db.exists() {
        return Err(format!(
            "{}: no such database (create one with `qipu import`)",
            args.db.display()
        )
        .into());
    }
    if args.variant.is_none()
        && given(&args.fen).is_some()
        && query.line.position.variant() == Variant::Janggi
    {
        eprintln!("note: --fen read as a Janggi position (give --variant to choose)");
    }
    let store = Store::open_read_only(&args.db)?;
    let answer = run_query(&store, &query)?;
    let formations = if lists_formations(
        args.variant,
        given(&args.fen).as_deref(),
        args.setup.as_deref(),
        args.moves.len(),
    ) {
        Some(formation_counts(&store, &query)?)
    } else {
        None
    };
    let mut out = std::io::stdout().lock();
    if args.json {
        let json = ExploreWithFormations {
            answer: ExploreJson::from(&answer),
            formations,
        };
        serde_json::to_writer_pretty(&mut out, &json)?;
        writeln!(out)?;
    } else {
        use std::io::IsTerminal;
        let terminal = std::io::stdout().is_terminal();
        if args.board || (terminal && !args.no_board) {
            let style = if args.ascii {
                BoardStyle::Ascii
            } else {
                // https://no-color.org: a set, non-empty NO_COLOR turns colour off.
                let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
                BoardStyle::Unicode {
                    color: terminal && !no_color,
                }
            };
            write_board(&mut out, &query.line, style)?;
        }
        write_table(&mut out, &answer, args.wide)?;
        if let Some(f) = &formations {
            write_formations(&mut out, f)?;
        }
    }
    // No game goes through the position: an answer, but nothing found (as grep's 1).
    Ok(if answer.counts.games == 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Lists the formation pairs the games started from (`--variant janggi` alone).
///
/// # Errors
/// Only the writer's.
pub fn write_formations(out: &mut impl Write, list: &[FormationCount]) -> std::io::Result<()> {
    let total: u64 = list.iter().map(|f| f.games).sum();
    writeln!(
        out,
        "\nformations (Cho/Han; explore one with --setup): {total} games from {} pairs",
        list.len()
    )?;
    writeln!(
        out,
        "  {}  {}  {:>7} {:>6} {:>7}  {:>6} {:>6} {:>6}",
        pad("setup", 17),
        pad("names", 24),
        "games",
        "%",
        "decided",
        "Cho",
        "draw",
        "Han"
    )?;
    for f in list {
        writeln!(
            out,
            "  {}  {}  {:>7} {} {:>7}  {} {} {}",
            pad(&f.setup, 17),
            pad(&f.names, 24),
            f.games,
            right(&pct(f.games, total), 6),
            f.decided,
            right(&pct(f.first_wins, f.decided), 6),
            right(&pct(f.draws, f.decided), 6),
            right(&pct(f.second_wins, f.decided), 6),
        )?;
    }
    Ok(())
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

/// How the board is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoardStyle {
    /// FEN letters, `.` for an empty point.
    Ascii,
    /// One distinct Chinese character per side and kind ([`board_glyph`]), painted when
    /// `color` (Red and Han in red, Cho in blue).
    Unicode {
        /// Paint the pieces with ANSI escapes (a terminal, and `NO_COLOR` unset or empty).
        color: bool,
    },
}

/// Draws the position a line reaches: rank 9 at the top, files `a`–`i` below, the last move
/// marked (its destination in `[ ]`, its origin `()`), and the side to move.
///
/// # Errors
/// Only the writer's.
pub fn write_board(out: &mut impl Write, line: &Line, style: BoardStyle) -> std::io::Result<()> {
    let pos = &line.position;
    let board = pos.board();
    let last = line.moves.last().copied();
    let (from, to) = (last.and_then(Move::from), last.and_then(Move::to));
    let wide = matches!(style, BoardStyle::Unicode { .. });
    for rank in (0..10u8).rev() {
        // The separators around the nine points; the marks of the last move go there.
        let mut sep = [' '; 10];
        let here = |sq: Option<Square>| {
            sq.filter(|s| s.rank() == rank)
                .map(|s| usize::from(s.file()))
        };
        if let Some(f) = here(to) {
            (sep[f], sep[f + 1]) = ('[', ']');
        }
        if let Some(f) = here(from) {
            for (i, c) in [(f, '('), (f + 1, ')')] {
                if sep[i] == ' ' {
                    sep[i] = c;
                }
            }
        }
        let mut row = format!("{rank}");
        for file in 0..9u8 {
            row.push(sep[usize::from(file)]);
            let piece = Square::from_coords(file, rank).and_then(|sq| board.piece_at(sq));
            row.push_str(&cell(piece, pos.variant(), style, wide));
        }
        row.push(sep[9]);
        writeln!(out, "{}", row.trim_end())?;
    }
    let files: String = ('a'..='i')
        .map(|f| {
            if wide {
                format!(" {f} ")
            } else {
                format!(" {f}")
            }
        })
        .collect();
    writeln!(out, " {}", files.trim_end())?;
    let (first, second) = match pos.variant() {
        Variant::Xiangqi => ("Red", "Black"),
        Variant::Janggi => ("Cho", "Han"),
    };
    let mover = if pos.turn() == Color::First {
        first
    } else {
        second
    };
    match last {
        Some(m) => writeln!(out, "{mover} to move (last move {m})\n")?,
        None => writeln!(out, "{mover} to move\n")?,
    }
    Ok(())
}

/// One point of the board: a piece or an empty point, two columns wide in Unicode.
fn cell(piece: Option<Piece>, variant: Variant, style: BoardStyle, wide: bool) -> String {
    let Some(p) = piece else {
        return if wide {
            "・".to_string()
        } else {
            ".".to_string()
        };
    };
    match style {
        BoardStyle::Ascii => p.char().to_string(),
        BoardStyle::Unicode { color } => {
            let glyph = board_glyph(variant, p.role, p.color);
            // Red for Xiangqi's Red and Janggi's Han, blue for Cho, as the sets are painted;
            // Black keeps the terminal's colour.
            let paint = match (variant, p.color) {
                (Variant::Xiangqi, Color::First) | (Variant::Janggi, Color::Second) => "31",
                (Variant::Janggi, Color::First) => "34",
                (Variant::Xiangqi, Color::Second) => "",
            };
            if color && !paint.is_empty() {
                format!("\x1b[{paint}m{glyph}\x1b[0m")
            } else {
                glyph.to_string()
            }
        }
    }
}

/// The glyph of a piece on the drawn board: one distinct character for each side's piece of
/// each kind, so that a board reads without colour. Xiangqi as printed sets write them
/// (Red 帥仕相傌俥炮兵, Black 將士象馬車砲卒); Janggi's sets write both sides alike but the
/// king and the soldiers, so Cho takes the red set's variant forms (楚仕相傌俥炮卒) and Han the
/// plain ones (漢士象馬車包兵).
fn board_glyph(variant: Variant, role: Role, color: Color) -> char {
    let first = color == Color::First;
    match (variant, role, first) {
        (Variant::Xiangqi, Role::King, true) => '帥',
        (Variant::Xiangqi, Role::King, false) => '將',
        (Variant::Janggi, Role::King, true) => '楚',
        (Variant::Janggi, Role::King, false) => '漢',
        (_, Role::Advisor, true) => '仕',
        (_, Role::Advisor, false) => '士',
        (_, Role::Elephant, true) => '相',
        (_, Role::Elephant, false) => '象',
        (_, Role::Horse, true) => '傌',
        (_, Role::Horse, false) => '馬',
        (_, Role::Rook, true) => '俥',
        (_, Role::Rook, false) => '車',
        (_, Role::Cannon, true) => '炮',
        (Variant::Xiangqi, Role::Cannon, false) => '砲',
        (Variant::Janggi, Role::Cannon, false) => '包',
        (Variant::Xiangqi, Role::Pawn, true) => '兵',
        (Variant::Xiangqi, Role::Pawn, false) => '卒',
        (Variant::Janggi, Role::Pawn, true) => '卒',
        (Variant::Janggi, Role::Pawn, false) => '兵',
    }
}

/// A percentage of the decided games, `—` when none is decided.
fn pct(n: u64, d: u64) -> String {
    if d == 0 {
        "—".to_string()
    } else {
        format!("{:.1}%", 100.0 * n as f64 / d as f64)
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

/// Right-aligns text in `width` terminal columns.
fn right(s: &str, width: usize) -> String {
    format!("{}{s}", " ".repeat(width.saturating_sub(display_width(s))))
}

/// Writes the answer as the terminal table: the default one fits 120 columns, `wide` shows
/// every column.
pub fn write_table(out: &mut impl Write, a: &Answer, wide: bool) -> std::io::Result<()> {
    let e = ExploreJson::from(a);
    let (first, second) = if a.variant == Variant::Janggi {
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
    writeln!(
        out,
        "{} games, {} decided: {first} {}  draw {}  {second} {}",
        e.games,
        e.decided,
        pct(e.first_wins, e.decided),
        pct(e.draws, e.decided),
        pct(e.second_wins, e.decided),
    )?;
    if let Some(p) = &e.player {
        writeln!(out, "player: {}", player_text(p))?;
    }
    for n in &e.notes {
        writeln!(out, "note: {n}")?;
    }
    if let Some(why) = a.no_games {
        writeln!(out, "\nno games: {}", why.message())?;
        return Ok(());
    }
    if e.moves.is_empty() && e.others.is_none() {
        writeln!(out, "\nno game continues from this position")?;
    } else {
        write_moves(out, &e, first, second, wide)?;
    }
    if e.ended.counts.games > 0 {
        let how: Vec<String> = e
            .ended
            .how
            .iter()
            .filter(|(_, n)| **n > 0)
            .map(|(k, n)| match k.as_str() {
                "unknown" => format!("not recorded {n}"),
                _ => format!("{k} {n}"),
            })
            .collect();
        writeln!(
            out,
            "ended here: {} games, {first} {}  draw {}  {second} {}  (how they ended: {})",
            e.ended.counts.games,
            pct(e.ended.counts.first_wins, e.ended.counts.decided),
            pct(e.ended.counts.draws, e.ended.counts.decided),
            pct(e.ended.counts.second_wins, e.ended.counts.decided),
            how.join(", ")
        )?;
    }
    if !e.history.is_empty() {
        writeln!(out, "\nhistory (games per year)")?;
        writeln!(out, "  {}", sparkline(&e.history))?;
    }
    for (title, games) in [
        ("top games", &e.top_games),
        ("recent games", &e.recent_games),
    ] {
        if games.is_empty() {
            continue;
        }
        writeln!(out, "\n{title}")?;
        for g in games {
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

/// A player's results as one line: games, W/D/L, score, opponents, performance.
fn player_text(p: &PlayerJson) -> String {
    format!(
        "{} games, +{} ={} -{}, score {}, opponents {}, performance {}",
        p.games,
        p.wins,
        p.draws,
        p.losses,
        p.score
            .map_or("-".to_string(), |s| format!("{:.1}%", 100.0 * s)),
        p.avg_opponent_rating
            .map_or("-".to_string(), |r| format!("{r:.0}")),
        p.performance.map_or("-".to_string(), |r| r.to_string()),
    )
}

/// Games per year as one line: `1990 ▁▃▅█▂ 1994` (a year without games is a space; the
/// busiest year is `█`, every other year at least `▁`).
pub fn sparkline(history: &[MonthJson]) -> String {
    let year = |m: &MonthJson| m.month.get(..4).and_then(|y| y.parse::<u32>().ok());
    let (Some(first), Some(last)) = (
        history.iter().find_map(year),
        history.iter().rev().find_map(year),
    ) else {
        return String::new();
    };
    let mut per_year = vec![0u64; (last.saturating_sub(first) + 1) as usize];
    for m in history {
        if let Some(i) = year(m).and_then(|y| y.checked_sub(first)) {
            if let Some(n) = per_year.get_mut(i as usize) {
                *n += m.games;
            }
        }
    }
    const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    let most = per_year.iter().copied().max().unwrap_or(0).max(1);
    let bars: String = per_year
        .iter()
        .map(|&n| {
            if n == 0 {
                ' '
            } else {
                BARS[((n * 8).div_ceil(most) as usize).clamp(1, 8) - 1]
            }
        })
        .collect();
    format!("{first} {bars} {last}")
}

/// A score with its interval as the table shows it: `52.1 ±4.3` (half the Wilson interval's
/// width, in points), `—` without a decided game.
fn score_text(score: Option<f64>, low: Option<f64>, high: Option<f64>) -> String {
    match (score, low, high) {
        (Some(s), Some(lo), Some(hi)) => {
            format!("{:.1} ±{:.1}", 100.0 * s, 50.0 * (hi - lo))
        }
        (Some(s), ..) => format!("{:.1}", 100.0 * s),
        _ => "—".to_string(),
    }
}

/// `games_after`, with `*` when the position is mostly reached another way.
fn after_text(m: &MoveJson) -> String {
    match m.games_after {
        Some(n) if m.transposed => format!("{n}*"),
        Some(n) => n.to_string(),
        None => "-".to_string(),
    }
}

fn opt_num(v: Option<f64>) -> String {
    v.map_or("-".to_string(), |r| format!("{r:.0}"))
}

fn write_moves(
    out: &mut impl Write,
    e: &ExploreJson,
    first: &str,
    second: &str,
    wide: bool,
) -> std::io::Result<()> {
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
    let notation_width: usize = widths.iter().map(|w| w + 2).sum();
    let mut header = pad("move", 6);
    for (k, w) in keys.iter().zip(&widths) {
        header.push_str(&pad(k, w + 2));
    }
    let with_eval = e.moves.iter().any(|m| m.eval.is_some());
    let with_player = e.player.is_some();
    header.push_str(&format!(
        "{:>7} {:>6}  {:<20}  {:>11}  {:>6} {:>8}",
        "games",
        "%",
        format!("{first}/draw/{second}"),
        "score",
        "rating",
        "after"
    ));
    if wide {
        header.push_str(&format!(
            "  {:>7} {:>6} {:>6} {:>6}  {:>6} {:>6}  {:>8}",
            "decided", first, "draw", second, "opp", "year", "1st game"
        ));
        if with_player {
            header.push_str(&format!("  {:>6} {:>5}", "player", "perf"));
        }
    }
    if with_eval {
        header.push_str(&format!("  {:>6}", "eval"));
    }
    header.push_str(&format!("  {:<10} last", "first"));
    writeln!(out, "\n{header}")?;
    let mut row = |name: String, m: &MoveJson| -> std::io::Result<()> {
        let mut line = name;
        let c = &m.counts;
        line.push_str(&format!(
            "{:>7} {}  {}  {}  {:>6} {}",
            c.games,
            right(&pct(c.games, e.games), 6),
            bar(c.first_wins, c.draws, c.second_wins, 20),
            right(&score_text(m.score, m.score_low, m.score_high), 11),
            opt_num(m.avg_rating),
            right(&after_text(m), 8),
        ));
        if wide {
            line.push_str(&format!(
                "  {:>7} {} {} {}  {:>6} {:>6}  {:>8}",
                c.decided,
                right(&pct(c.first_wins, c.decided), 6),
                right(&pct(c.draws, c.decided), 6),
                right(&pct(c.second_wins, c.decided), 6),
                opt_num(m.avg_opponent_rating),
                opt_num(m.avg_year),
                m.first_game
                    .as_ref()
                    .map_or("-".to_string(), |g| format!("#{}", g.id)),
            ));
            if with_player {
                let p = m.player.as_ref();
                line.push_str(&format!(
                    "  {} {:>5}",
                    right(
                        &p.and_then(|p| p.score)
                            .map_or("-".to_string(), |s| format!("{:.1}%", 100.0 * s)),
                        6
                    ),
                    p.and_then(|p| p.performance)
                        .map_or("-".to_string(), |r| r.to_string()),
                ));
            }
        }
        if with_eval {
            line.push_str(&format!(
                "  {:>6}",
                m.eval.as_ref().map_or("-".to_string(), eval_text)
            ));
        }
        line.push_str(&format!(
            "  {:<10} {}",
            m.first_date.as_deref().unwrap_or("-"),
            m.last_date.as_deref().unwrap_or("-")
        ));
        writeln!(out, "{}", line.trim_end())
    };
    for m in &e.moves {
        let mut name = pad(&m.mv, 6);
        for (k, w) in keys.iter().zip(&widths) {
            name.push_str(&pad(m.notation.get(*k).map_or("", String::as_str), w + 2));
        }
        row(name, m)?;
    }
    if let Some(o) = &e.others {
        let folded = MoveJson {
            counts: o.counts,
            score: o.score,
            ..MoveJson::default()
        };
        row(
            pad(&format!("others ({} moves)", o.moves), 6 + notation_width),
            &folded,
        )?;
    }
    if let Some(b) = &e.engine_best {
        let names: Vec<&str> = keys
            .iter()
            .filter_map(|k| b.notation.get(*k).map(String::as_str))
            .collect();
        writeln!(
            out,
            "engine's choice: {} {}  {}  (depth {}, {}){}{}",
            b.mv,
            names.join(" "),
            b.eval.as_ref().map_or("-".to_string(), eval_text),
            b.depth,
            b.engine,
            if b.played { "" } else { ", never played here" },
            if b.engine_move == b.mv {
                String::new()
            } else {
                format!(
                    "; the search of all moves picked {}, which scored lower alone",
                    b.engine_move
                )
            }
        )?;
    }
    Ok(())
}

/// An engine score as the table shows it, from the mover's view: `+35` centipawns, `#3` mate
/// in 3, `#-2` mated in 2.
fn eval_text(e: &EvalJson) -> String {
    match (e.cp, e.mate) {
        (_, Some(m)) => format!("#{m}"),
        (Some(cp), None) => format!("{cp:+}"),
        (None, None) => "-".to_string(),
    }
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
    fn sparklines_show_games_per_year() {
        let m = |month: &str, games| MonthJson {
            month: month.into(),
            games,
            ..MonthJson::default()
        };
        let line = sparkline(&[
            m("2001-01", 4),
            m("2001-05", 4),
            m("2002-01", 0),
            m("2003-02", 1),
        ]);
        // 8 games in 2001, none in 2002, 1 in 2003: an eighth of the busiest year is `▁`.
        assert_eq!(line, "2001 █ ▁ 2003");
        assert_eq!(sparkline(&[]), "");
        assert_eq!(
            score_text(Some(0.521), Some(0.478), Some(0.564)),
            "52.1 ±4.3"
        );
        assert_eq!(score_text(None, None, None), "—");
    }

    /// The board after 炮二平五 马８进７, written out by hand: rank 9 on top, the horse's origin
    /// in `( )` and its destination in `[ ]`, the side to move and the last move under it.
    #[test]
    fn the_board_marks_the_last_move_and_the_side_to_move() {
        let rules = crate::rules::JanggiRules::default();
        let line = Line::parse(Variant::Xiangqi, None, &["h2e2 h9g7"], rules).unwrap();
        let mut out = Vec::new();
        write_board(&mut out, &line, BoardStyle::Ascii).unwrap();
        let want = "9 r n b a k a b(.)r
8 . . . . . . . . .
7 . c . . . .[n]c .
6 p . p . p . p . p
5 . . . . . . . . .
4 . . . . . . . . .
3 P . P . P . P . P
2 . C . . C . . . .
1 . . . . . . . . .
0 R N B A K A B N R
  a b c d e f g h i
Red to move (last move h9g7)

";
        assert_eq!(String::from_utf8(out).unwrap(), want);
        // In the notation's piece names, two columns a point; Janggi in Hangul, Cho to move.
        let mut out = Vec::new();
        write_board(&mut out, &line, BoardStyle::Unicode { color: false }).unwrap();
        let text = String::from_utf8(out).unwrap();
        let rows: Vec<&str> = text.lines().collect();
        assert_eq!(rows[0], "9 車 馬 象 士 將 士 象(・)車");
        assert_eq!(rows[2], "7 ・ 砲 ・ ・ ・ ・[馬]砲 ・");
        assert_eq!(rows[3], "6 卒 ・ 卒 ・ 卒 ・ 卒 ・ 卒");
        assert_eq!(rows[6], "3 兵 ・ 兵 ・ 兵 ・ 兵 ・ 兵");
        assert_eq!(rows[7], "2 ・ 炮 ・ ・ 炮 ・ ・ ・ ・");
        assert_eq!(rows[9], "0 俥 傌 相 仕 帥 仕 相 傌 俥");
        let janggi = Line::start(Variant::Janggi, rules);
        let mut out = Vec::new();
        write_board(&mut out, &janggi, BoardStyle::Unicode { color: false }).unwrap();
        let text = String::from_utf8(out).unwrap();
        let rows: Vec<&str> = text.lines().collect();
        assert_eq!(rows[0], "9 車 馬 象 士 ・ 士 象 馬 車");
        assert_eq!(rows[1], "8 ・ ・ ・ ・ 漢 ・ ・ ・ ・");
        assert_eq!(rows[8], "1 ・ ・ ・ ・ 楚 ・ ・ ・ ・");
        assert_eq!(rows[9], "0 俥 傌 相 仕 ・ 仕 相 傌 俥");
        assert!(text.trim_end().ends_with("Cho to move"), "{text}");
        assert!(!text.contains('(') && !text.contains('['));
    }

    #[test]
    fn every_piece_of_each_side_has_its_own_glyph() {
        for v in [Variant::Xiangqi, Variant::Janggi] {
            let mut seen: Vec<char> = Role::ALL
                .iter()
                .flat_map(|&r| [Color::First, Color::Second].map(|c| board_glyph(v, r, c)))
                .collect();
            seen.sort_unstable();
            seen.dedup();
            assert_eq!(seen.len(), 14, "{v:?}: {seen:?}");
        }
    }

    #[test]
    fn bars_fill_their_width() {
        assert_eq!(bar(1, 1, 2, 8), "██▒▒░░░░");
        assert_eq!(bar(0, 0, 0, 3), "   ");
        assert_eq!(display_width(&bar(3, 3, 3, 20)), 20);
    }
}
