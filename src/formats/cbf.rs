//! CCBridge (象棋桥) CBF records: UTF-8 XML (`<ChineseChessRecord>`) with a `<Head>` of
//! header fields and a `<MoveList>` of `<Move value="xy-xy">` elements (x = column 0–8,
//! y = row from the top), comments as element text (usually CDATA). The first move
//! `00-00` is a dummy carrying the game comment. Only the main line is known in this format;
//! a `<Move>` nested inside another is reported as unsupported rather than guessed at.
//!
//! ```
//! use qipu::formats::{cbf, replay};
//! let bytes = std::fs::read("tests/data/binfmt/small.cbf").unwrap();
//! assert!(cbf::sniff(&bytes));
//! let game = cbf::read("small.cbf", &bytes).remove(0).unwrap();
//! assert_eq!(game.moves[0].text, "h2e2");
//! assert!(replay(&game).is_ok());
//! ```

use super::board90;
use super::error::{ErrorKind, GameError};
use super::game::{Game, MoveNode, Source};
use crate::notation::coord::RankBase;
use crate::rules::{Setup, Variant};

/// Whether the bytes are a CBF record (`<ChineseChessRecord` near the start).
///
/// ```
/// assert!(qipu::formats::cbf::sniff(b"\xef\xbb\xbf<?xml version=\"1.0\"?>\n<ChineseChessRecord Version=\"1.0\">"));
/// ```
pub fn sniff(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(1024)];
    head.windows(19).any(|w| w == b"<ChineseChessRecord")
}

/// Reads the one game of a CBF file.
pub fn read(file: &str, bytes: &[u8]) -> Vec<Result<Game, GameError>> {
    let source = Source {
        file: file.to_string(),
        index: 0,
    };
    vec![read_game(&source, bytes).map_err(|reason| GameError::new(&source, reason))]
}

/// Replaces the five predefined XML entities and numeric character references.
fn unescape(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let Some(end) = rest.find(';').filter(|&e| e <= 10) else {
            out.push('&');
            rest = &rest[1..];
            continue;
        };
        let ent = &rest[1..end];
        let ch = match ent {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            _ => ent
                .strip_prefix("#x")
                .and_then(|h| u32::from_str_radix(h, 16).ok())
                .or_else(|| ent.strip_prefix('#').and_then(|d| d.parse().ok()))
                .and_then(char::from_u32),
        };
        match ch {
            Some(c) => {
                out.push(c);
                rest = &rest[end + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The text content of an element body: CDATA sections verbatim, other text unescaped.
fn content(body: &str) -> String {
    let mut out = String::new();
    let mut rest = body;
    while let Some(i) = rest.find("<![CDATA[") {
        out.push_str(&unescape(&rest[..i]));
        let after = &rest[i + 9..];
        match after.find("]]>") {
            Some(e) => {
                out.push_str(&after[..e]);
                rest = &after[e + 3..];
            }
            None => {
                out.push_str(after);
                rest = "";
            }
        }
    }
    out.push_str(&unescape(rest));
    out
}

/// The section between `<name` (with any attributes) and `</name>`, or `None`.
fn section<'a>(text: &'a str, name: &str) -> Option<&'a str> {
    let open = format!("<{name}");
    let mut from = 0;
    loop {
        let i = from + text.get(from..)?.find(&open)?;
        let after = text.get(i + open.len()..)?;
        if after.starts_with(['>', ' ', '\t', '\r', '\n', '/']) {
            let gt = after.find('>')?;
            if after[..gt].ends_with('/') {
                return Some("");
            }
            let body = &after[gt + 1..];
            let close = format!("</{name}>");
            return Some(&body[..body.find(&close)?]);
        }
        from = i + open.len();
    }
}

/// One `<Move>` element: its `value` attribute and its comment.
struct MoveElem {
    value: String,
    comment: Option<String>,
}

fn attribute(tag: &str, name: &str) -> Option<String> {
    let key = format!("{name}=");
    let i = tag.find(&key)? + key.len();
    let rest = &tag[i..];
    let q = rest.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let body = &rest[1..];
    Some(unescape(&body[..body.find(q)?]))
}

fn moves(list: &str) -> Result<Vec<MoveElem>, String> {
    let mut out = Vec::new();
    let mut rest = list;
    while let Some(i) = rest.find("<Move") {
        let after = &rest[i + 5..];
        if !after.starts_with([' ', '\t', '\r', '\n', '>', '/']) {
            rest = after;
            continue;
        }
        let gt = after
            .find('>')
            .ok_or_else(|| format!("unterminated <Move> element (move {})", out.len()))?;
        let tag = &after[..gt];
        let value = attribute(tag, "value")
            .ok_or_else(|| format!("<Move> without a value (move {})", out.len()))?;
        if tag.ends_with('/') {
            out.push(MoveElem {
                value,
                comment: None,
            });
            rest = &after[gt + 1..];
            continue;
        }
        let body_all = &after[gt + 1..];
        let end = body_all
            .find("</Move>")
            .ok_or_else(|| format!("unterminated <Move> element (move {})", out.len()))?;
        let body = &body_all[..end];
        // CDATA may legitimately contain `<Move`; only look outside it.
        let outside: String = {
            let mut s = String::new();
            let mut r = body;
            while let Some(c) = r.find("<![CDATA[") {
                s.push_str(&r[..c]);
                r = r[c..].find("]]>").map_or("", |e| &r[c + e + 3..]);
            }
            s.push_str(r);
            s
        };
        if outside.contains("<Move") {
            return Err("nested <Move> elements (variations) are not supported in CBF".into());
        }
        out.push(MoveElem {
            value,
            comment: board90::clean(&content(body)),
        });
        rest = &body_all[end + 7..];
    }
    Ok(out)
}

/// `"xy-xy"` → canonical move text (rank = 9 − y).
fn move_value(v: &str) -> Result<(u8, u8, u8, u8), String> {
    let b = v.trim().as_bytes();
    let digit = |i: usize| {
        b.get(i)
            .and_then(|c| c.checked_sub(b'0'))
            .filter(|d| *d <= 9)
    };
    match (b.len(), b.get(2), digit(0), digit(1), digit(3), digit(4)) {
        (5, Some(b'-'), Some(x1), Some(y1), Some(x2), Some(y2)) => Ok((x1, y1, x2, y2)),
        _ => Err(format!("bad move value `{v}`")),
    }
}

fn read_game(source: &Source, bytes: &[u8]) -> Result<Game, ErrorKind> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let text = std::str::from_utf8(bytes).map_err(|e| format!("CBF is not UTF-8: {e}"))?;
    if !sniff(text.as_bytes()) {
        return Err("not a CBF record (no <ChineseChessRecord>)".into());
    }
    let mut game = Game::new(Variant::Xiangqi, source.clone());
    game.rank_base = Some(RankBase::Zero);
    let head = section(text, "Head").ok_or("CBF without <Head>")?;
    let fields = [
        "Name",
        "Contest",
        "Round",
        "Group",
        "Table",
        "Date",
        "Site",
        "TimeRule",
        "Red",
        "RedTeam",
        "RedRating",
        "Black",
        "BlackTeam",
        "BlackRating",
        "Commentator",
        "Creator",
        "ECCO",
        "RecordResult",
        "FEN",
    ];
    let mut fen = None;
    for name in fields {
        let Some(v) = section(head, name).and_then(|b| board90::clean(&content(b))) else {
            continue;
        };
        match name {
            "RecordResult" => {
                game.tags.result = v.parse::<u8>().ok().and_then(board90::result_from_byte);
            }
            "FEN" => fen = Some(v.clone()),
            _ => super::tags::apply(&mut game.tags, name, &v),
        }
        game.tags.raw.push((name.to_string(), v));
    }
    let list = section(text, "MoveList").ok_or("CBF without <MoveList>")?;
    let elems = moves(list)?;
    let mut it = elems.into_iter().peekable();
    if let Some(first) = it.peek() {
        if let Ok((x1, y1, x2, y2)) = move_value(&first.value) {
            if (x1, y1) == (x2, y2) {
                game.comment = it.next().and_then(|m| m.comment);
            }
        }
    }
    for (i, m) in it.enumerate() {
        let (x1, y1, x2, y2) = move_value(&m.value).map_err(|e| format!("move {}: {e}", i + 1))?;
        let text = board90::move_text((x1, 9 - y1), (x2, 9 - y2));
        game.moves.push(MoveNode {
            text,
            comment: m.comment,
            variations: Vec::new(),
            eval: None,
        });
    }
    if let Some(fen) = fen {
        let setup = Setup::from_fen(&fen).map_err(|e| format!("bad <FEN> `{fen}`: {e}"))?;
        // Trust the side to move of the first move's piece over the FEN field, like the
        // other board formats.
        let mut with_turn = setup.clone();
        if let Some(first) = game.moves.first() {
            let sq = first
                .text
                .get(0..2)
                .and_then(|s| s.parse::<crate::rules::Square>().ok());
            if let Some(p) = sq.and_then(|sq| setup.piece_at(sq)) {
                with_turn.turn = p.color;
            }
        }
        let out = with_turn.to_fen();
        let standard = Setup::from_fen(Variant::Xiangqi.start_fen()).ok();
        game.start_fen = (Some(&with_turn) != standard.as_ref()).then_some(out);
    }
    Ok(game)
}
