//! Writers: a [`Game`] as UTF-8 PGN (variations and comments kept) or as a Janggi `.gib`.
//!
//! Moves are resolved against the position as they are written (main line and every
//! variation), so each is rendered in the notation asked for by the `render` callback
//! (typically `notation::render`). The main line must replay; a variation move that does not
//! is written as it was read, with the rest of that variation.

use std::fmt::Write as _;

use super::{
    error::{ErrorKind, GameError},
    game::{Game, MoveNode},
    replay::replay,
};
use crate::{
    notation::parse_move,
    rules::{AnyPosition, Color, Move, Outcome, Variant},
};

/// Renders a legal move in the position before it.
pub type Render<'a> = &'a dyn Fn(&AnyPosition, Move) -> String;

/// Writes a game as PGN: xqbase tags for Xiangqi (`[Game "Chinese Chess"]`, `Red`, `Black`,
/// `Format`), pychess tags for Janggi (`[Variant "Janggi"]`, `White` = Cho), `[FEN]` for a
/// non-standard start, then the movetext with `{comments}` and `(variations)`.
///
/// # Errors
/// The [`GameError`] of [`replay`] if the main line does not replay.
///
/// ```
/// use qipu::formats::{read_bytes, write::write_pgn};
/// let g = read_bytes("a.pgn", "[Red \"A\"]\n1. h2e2 {x} h9g7 (1... h7e7) 1-0".as_bytes());
/// let g = g[0].as_ref().unwrap();
/// let text = write_pgn(g, &|_, m| m.to_string(), Some("ICCS")).unwrap();
/// assert!(text.contains("[Red \"A\"]"));
/// assert!(text.contains("1. h2e2 {x} 1... h9g7 (1... h7e7) 1-0"), "{text}");
/// ```
pub fn write_pgn(
    game: &Game,
    render: Render<'_>,
    format: Option<&str>,
) -> Result<String, GameError> {
    let rp = replay(game)?;
    let mut out = String::new();
    let t = &game.tags;
    let xq = game.variant == Variant::Xiangqi;
    let mut tag = |name: &str, value: Option<&str>| {
        if let Some(v) = value {
            let v = v.replace(['\n', '\r'], " ");
            let _ = writeln!(out, "[{name} \"{v}\"]");
        }
    };
    if xq {
        tag("Game", Some("Chinese Chess"));
    } else {
        tag("Variant", Some("Janggi"));
    }
    tag("Event", t.event.as_deref());
    tag("Site", t.site.as_deref());
    let date = t.date.as_ref().map(|d| d.replace('-', "."));
    tag("Date", date.as_deref());
    tag("Round", t.round.as_deref());
    let (first, second) = if xq {
        ("Red", "Black")
    } else {
        ("White", "Black")
    };
    tag(first, t.first.as_deref());
    tag(&format!("{first}Team"), t.first_team.as_deref());
    tag(second, t.second.as_deref());
    tag(&format!("{second}Team"), t.second_team.as_deref());
    let fr = t.first_rating.map(|r| r.to_string());
    let sr = t.second_rating.map(|r| r.to_string());
    tag(&format!("{first}Elo"), fr.as_deref());
    tag(&format!("{second}Elo"), sr.as_deref());
    let result = t.result.map_or("*", Outcome::pgn);
    tag("Result", Some(result));
    tag("ECCO", t.ecco.as_deref());
    tag("Opening", t.opening.as_deref());
    tag("Variation", t.variation.as_deref());
    if !xq {
        tag("ChoFormation", t.first_formation.as_deref());
        tag("HanFormation", t.second_formation.as_deref());
    }
    if game.start_fen.is_some() {
        tag("FEN", Some(&rp.start.fen()));
        tag("SetUp", Some("1"));
    }
    tag("Format", format);
    out.push('\n');
    let mut body = String::new();
    if let Some(c) = &game.comment {
        push_comment(&mut body, c);
    }
    // Plies are counted from a virtual Red/Cho move so that a start with the second player to
    // move is numbered `1... x 2. y`.
    let ply0 = usize::from(rp.start.turn() == Color::Second);
    write_line(
        &mut body,
        &game.moves,
        &rp.start,
        ply0,
        render,
        Some(&rp.moves),
    );
    if !body.is_empty() {
        body.push(' ');
    }
    body.push_str(result);
    out.push_str(&wrap(&body, 80));
    out.push_str("\n\n");
    Ok(out)
}

/// Writes a line of moves from `pos`; `ply0` is the ply of its first move (0 = the first
/// player's first move). `known`
/// holds the line's moves when they are already resolved (the replayed main line).
fn write_line(
    out: &mut String,
    line: &[MoveNode],
    pos: &AnyPosition,
    ply0: usize,
    render: Render<'_>,
    known: Option<&[Move]>,
) {
    let mut pos = pos.clone();
    let mut need_number = true;
    let mut resolved = true;
    for (i, node) in line.iter().enumerate() {
        let ply = ply0 + i;
        let first_to_move = pos.turn() == Color::First;
        if !out.is_empty() && !out.ends_with(['(', ' ']) {
            out.push(' ');
        }
        let number = ply / 2 + 1;
        if first_to_move {
            let _ = write!(out, "{number}. ");
        } else if need_number {
            let _ = write!(out, "{number}... ");
        }
        let m = match known {
            Some(k) => k.get(i).copied(),
            None if resolved => parse_move(&pos, &node.text).ok(),
            None => None,
        };
        match m {
            Some(m) => out.push_str(&render(&pos, m)),
            None => {
                resolved = false;
                out.push_str(&node.text);
            }
        }
        need_number = false;
        if let Some(c) = &node.comment {
            out.push(' ');
            push_comment(out, c);
            need_number = true;
        }
        for var in &node.variations {
            out.push_str(" (");
            if resolved {
                write_line(out, var, &pos, ply, render, None);
            } else {
                write_raw(out, var);
            }
            out.push(')');
            need_number = true;
        }
        if let Some(m) = m {
            pos.play_unchecked(m);
        }
    }
}

fn write_raw(out: &mut String, line: &[MoveNode]) {
    for (i, node) in line.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(&node.text);
        if let Some(c) = &node.comment {
            out.push(' ');
            push_comment(out, c);
        }
    }
}

fn push_comment(out: &mut String, c: &str) {
    out.push('{');
    out.push_str(&c.replace('}', ")"));
    out.push('}');
}

/// Wraps at spaces outside comments so that lines stay under `width` characters (comments are
/// kept whole).
fn wrap(text: &str, width: usize) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / width);
    let mut col = 0;
    let mut depth = 0usize;
    let mut prev = ' ';
    for c in text.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        if c == ' ' && depth == 0 && col >= width && prev != '.' {
            out.push('\n');
            col = 0;
            prev = '\n';
            continue;
        }
        prev = c;
        out.push(c);
        col = if c == '\n' { 0 } else { col + 1 };
    }
    out
}

/// Writes a Janggi game as a `.gib` record (Korean tags, formations or a `[판]` board, moves
/// in Korean coordinates given by `render`, comments in braces). `.gib` has no variations:
/// only the main line is written.
///
/// # Errors
/// The [`GameError`] of [`replay`], or an error for a Xiangqi game.
pub fn write_gib(game: &Game, render: Render<'_>) -> Result<String, GameError> {
    if game.variant != Variant::Janggi {
        return Err(GameError::new(
            &game.source,
            ErrorKind::Unsupported("only Janggi games can be written as .gib".into()),
        ));
    }
    let rp = replay(game)?;
    let t = &game.tags;
    let mut out = String::new();
    let mut tag = |name: &str, value: Option<&str>| {
        if let Some(v) = value {
            let v = v.replace(['\n', '\r', '"'], " ");
            let _ = writeln!(out, "[{name} \"{v}\"]");
        }
    };
    tag("대회명", t.event.as_deref());
    tag("회전", t.round.as_deref());
    tag("대국일자", t.date.as_deref());
    tag("대국장소", t.site.as_deref());
    tag("초대국자", t.first.as_deref());
    tag("한대국자", t.second.as_deref());
    let fen = rp.start.fen();
    match formations_of(&fen) {
        Some((cho, han)) => {
            tag("초차림", Some(&cho));
            tag("한차림", Some(&han));
        }
        None => tag("판", Some(&gib_board(&fen))),
    }
    let result = match t.result {
        Some(Outcome::Decisive {
            winner: Color::First,
        }) => "초 완승",
        Some(Outcome::Decisive {
            winner: Color::Second,
        }) => "한 완승",
        Some(Outcome::Draw) => "무승부",
        None => "미상",
    };
    tag("총수", Some(&rp.moves.len().to_string()));
    tag("대국결과", Some(result));
    out.push('\n');
    let mut pos = rp.start.clone();
    let mut body = String::new();
    if let Some(c) = &game.comment {
        push_comment(&mut body, c);
    }
    for (i, (m, node)) in rp.moves.iter().zip(&game.moves).enumerate() {
        if !body.is_empty() {
            body.push(' ');
        }
        let _ = write!(body, "{}. {}", i + 1, render(&pos, *m));
        if let Some(c) = &node.comment {
            body.push(' ');
            push_comment(&mut body, c);
        }
        pos.play_unchecked(*m);
    }
    out.push_str(&wrap(&body, 72));
    out.push_str("\n\n");
    Ok(out)
}

/// The formations (`초차림`, `한차림`) of a standard Janggi start, if the FEN is one.
fn formations_of(fen: &str) -> Option<(String, String)> {
    let mut fields = fen.split(' ');
    let rows: Vec<&str> = fields.next()?.split('/').collect();
    if fields.next()? != "w"
        || rows.get(1..9)?
            != [
                "4k4",
                "1c5c1",
                "p1p1p1p1p",
                "9",
                "9",
                "P1P1P1P1P",
                "1C5C1",
                "4K4",
            ]
    {
        return None;
    }
    let formation = |row: &str| -> Option<String> {
        let b: Vec<char> = row.chars().collect();
        if b.len() != 9 || b[3] != 'a' && b[3] != 'A' || b[4] != '1' {
            return None;
        }
        [b[1], b[2], b[6], b[7]]
            .iter()
            .map(|c| match c.to_ascii_lowercase() {
                'n' => Some('마'),
                'b' => Some('상'),
                _ => None,
            })
            .collect()
    };
    let han = formation(rows.first()?)?;
    let cho = formation(rows.get(9)?)?;
    Some((cho, han))
}

/// A `[판]` board: rows from Cho's back rank upwards, Hangul for Cho, Hanja for Han, then who
/// moves first.
fn gib_board(fen: &str) -> String {
    let mut fields = fen.split(' ');
    let rows: Vec<&str> = fields.next().unwrap_or_default().split('/').collect();
    let side = if fields.next() == Some("b") {
        "한"
    } else {
        "초"
    };
    let rows: Vec<String> = rows
        .iter()
        .rev()
        .map(|row| {
            row.chars()
                .map(|c| match c {
                    'R' => '차',
                    'N' | 'H' => '마',
                    'B' | 'E' => '상',
                    'A' => '사',
                    'K' => '장',
                    'C' => '포',
                    'P' => '졸',
                    'r' => '車',
                    'n' | 'h' => '馬',
                    'b' | 'e' => '象',
                    'a' => '士',
                    'k' => '將',
                    'c' => '包',
                    'p' => '兵',
                    other => other,
                })
                .collect()
        })
        .collect();
    format!("{} {side} 접장기", rows.join("/"))
}
