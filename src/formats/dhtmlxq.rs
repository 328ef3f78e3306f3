//! DhtmlXQ (东萍象棋网 dpxq.com) records and the DHJHtmlXQ variant (广东象棋网), alone or
//! embedded in an HTML page: `[DhtmlXQ_name]value[/DhtmlXQ_name]` tags inside
//! `[DhtmlXQ]…[/DhtmlXQ]`; several games per page are read in order.
//!
//! - `binit`: 32 pieces as `xy` digit pairs (x = file 0–8, y = row from the top, `99` = absent)
//!   in the order 车马相仕帅仕相马车炮炮兵×5, Red then Black; `fen` overrides it.
//! - `movelist`: four digits `x1y1x2y2` per ply.
//! - `move_P_S_B`: branch B, whose first move is an alternative to ply S (1-based, counted
//!   from the start of the game) of branch P (0 = the main line); branches may come in any
//!   order.
//! - `commentN` / `commentB_N`: comment after ply N of the main line / of branch B;
//!   `comment0` is the game comment; `||` is a line break.
//! - DHJHtmlXQ numbers its tags: `_31` board (90 characters from the top), `_32` side to
//!   move (1 = Black), `_34` moves with rows counted from the bottom, `_10`… header fields.
//!
//! ```
//! use qipu::formats::{dhtmlxq, replay};
//! let text = "[DhtmlXQ][DhtmlXQ_movelist]77477062[/DhtmlXQ_movelist]\
//!             [DhtmlXQ_move_0_2_1]1022[/DhtmlXQ_move_0_2_1][DhtmlXQ_result]红胜[/DhtmlXQ_result][/DhtmlXQ]";
//! assert!(dhtmlxq::sniff(text.as_bytes()));
//! let game = dhtmlxq::read("page.html", text.as_bytes()).remove(0).unwrap();
//! assert_eq!(game.moves[0].text, "h2e2");
//! assert_eq!(game.moves[1].text, "h9g7");
//! assert_eq!(game.moves[1].variations[0][0].text, "b9c7");
//! assert!(replay(&game).is_ok());
//! ```

use std::collections::{BTreeMap, HashMap};

use encoding_rs::GBK;

use super::board90::{self, Board90, MAX_VARIATION_DEPTH, PIECE_ORDER};
use super::error::{ErrorKind, GameError};
use super::game::{Game, MoveNode, Source};
use crate::notation::coord::RankBase;
use crate::rules::{Color, Piece, Setup, Square, Variant};

/// Whether the bytes contain a DhtmlXQ or DHJHtmlXQ record (anywhere, e.g. in an HTML page).
///
/// ```
/// assert!(qipu::formats::dhtmlxq::sniff(b"<html>[DhtmlXQ_binit]0919[/DhtmlXQ_binit]"));
/// assert!(!qipu::formats::dhtmlxq::sniff(b"[Event \"x\"]"));
/// ```
pub fn sniff(bytes: &[u8]) -> bool {
    find(bytes, b"[DhtmlXQ").is_some() || find(bytes, b"[DHJHtmlXQ").is_some()
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(hay, needle)
}

/// Reads every DhtmlXQ/DHJHtmlXQ game in the text (UTF-8; GBK when not valid UTF-8).
pub fn read(file: &str, bytes: &[u8]) -> Vec<Result<Game, GameError>> {
    let text = match std::str::from_utf8(bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)) {
        Ok(t) => std::borrow::Cow::Borrowed(t),
        Err(_) => GBK.decode(bytes).0,
    };
    let blocks = split_games(&text);
    if blocks.is_empty() {
        let source = Source {
            file: file.to_string(),
            index: 0,
        };
        return vec![Err(GameError {
            game: None,
            ..GameError::new(
                &source,
                ErrorKind::Malformed("no DhtmlXQ record found".into()),
            )
        })];
    }
    blocks
        .into_iter()
        .enumerate()
        .map(|(index, (dhj, block))| {
            let source = Source {
                file: file.to_string(),
                index,
            };
            read_game(&source, block, dhj).map_err(|reason| GameError::new(&source, reason))
        })
        .collect()
}

/// Splits the text into games: each `[DhtmlXQ]`/`[DHJHtmlXQ]` (or `[DhtmlXQiFrame]`) block;
/// if there is no such opening tag but there are tags, the whole text is one game.
fn split_games(text: &str) -> Vec<(bool, &str)> {
    let mut starts: Vec<(usize, bool)> = Vec::new();
    for (pat, dhj) in [
        ("[DhtmlXQ]", false),
        ("[DhtmlXQiFrame]", false),
        ("[DHJHtmlXQ]", true),
    ] {
        starts.extend(text.match_indices(pat).map(|(i, _)| (i, dhj)));
    }
    starts.sort_unstable();
    if starts.is_empty() {
        if text.contains("[DHJHtmlXQ_") {
            return vec![(true, text)];
        }
        if text.contains("[DhtmlXQ_") {
            return vec![(false, text)];
        }
        return Vec::new();
    }
    starts
        .iter()
        .enumerate()
        .map(|(k, &(s, dhj))| {
            let end = starts.get(k + 1).map_or(text.len(), |n| n.0);
            (dhj, &text[s..end])
        })
        .filter(|(_, b)| b.contains("_"))
        .collect()
}

/// The `[Prefix_name]value[/…]` tags of a block: name (without prefix) → value. The value runs
/// to the next closing tag of the family (real files close some tags with the wrong name).
fn tags(block: &str, dhj: bool) -> Vec<(String, String)> {
    let prefix = if dhj { "[DHJHtmlXQ_" } else { "[DhtmlXQ_" };
    let close = if dhj { "[/DHJHtmlXQ" } else { "[/DhtmlXQ" };
    let mut out = Vec::new();
    let mut rest = block;
    loop {
        // Next opening tag: the family's own, or (DHJ) bare `comment_`/`game_comment_` tags.
        let mut next = rest.find(prefix).map(|i| (i, prefix.len()));
        if dhj {
            for alt in ["[game_comment_", "[comment_"] {
                if let Some(i) = rest.find(alt) {
                    if next.is_none_or(|(n, _)| i < n) {
                        next = Some((i, 1));
                    }
                }
            }
        }
        let Some((i, skip)) = next else { break };
        let after = &rest[i + skip..];
        let Some(rb) = after.find(']') else { break };
        let name = after[..rb].to_string();
        let body = &after[rb + 1..];
        let end = if skip == 1 {
            body.find("[/").unwrap_or(body.len())
        } else {
            body.find(close).unwrap_or(body.len())
        };
        out.push((name, body[..end].to_string()));
        rest = &body[end..];
    }
    out
}

/// Decodes `\uXXXX` escapes and the `||` line break of comments.
fn comment_text(raw: &str) -> Option<String> {
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(i) = rest.find("\\u") {
        out.push_str(&rest[..i]);
        let hex = rest.get(i + 2..i + 6);
        match hex
            .and_then(|h| u32::from_str_radix(h, 16).ok())
            .and_then(char::from_u32)
        {
            Some(c) => {
                out.push(c);
                rest = &rest[i + 6..];
            }
            None => {
                out.push_str("\\u");
                rest = &rest[i + 2..];
            }
        }
    }
    out.push_str(rest);
    board90::clean(&out.replace("||", "\n"))
}

/// Reads digit quadruples `x1y1x2y2` into (from, to) as (file, rank).
fn moves(list: &str, rows_from_top: bool) -> Result<Vec<String>, String> {
    let digits: Vec<u8> = list
        .bytes()
        .filter(|b| !b.is_ascii_whitespace())
        .map(|b| {
            b.checked_sub(b'0')
                .filter(|d| *d <= 9)
                .ok_or_else(|| format!("move list contains `{}`", b as char))
        })
        .collect::<Result<_, _>>()?;
    if digits.len() % 4 != 0 {
        return Err(format!(
            "move list of {} digits is not a multiple of 4",
            digits.len()
        ));
    }
    let rank = |y: u8| if rows_from_top { 9 - y } else { y };
    Ok(digits
        .chunks_exact(4)
        .map(|c| board90::move_text((c[0], rank(c[1])), (c[2], rank(c[3]))))
        .collect())
}

/// One line of the tree while it is assembled.
struct Line {
    /// Ply number (1-based, from the start of the game) of the first move.
    start: usize,
    /// The line it hangs off (`None` for the main line).
    parent: Option<usize>,
    nodes: Vec<(String, Option<String>, Vec<usize>)>,
}

fn read_game(source: &Source, block: &str, dhj: bool) -> Result<Game, ErrorKind> {
    let mut game = Game::new(Variant::Xiangqi, source.clone());
    game.rank_base = Some(RankBase::Zero);
    let mut binit = None;
    let mut fen = None;
    let mut main = None;
    let mut black_first = None;
    let mut branches: Vec<(usize, usize, usize, String)> = Vec::new();
    let mut comments: HashMap<(usize, usize), String> = HashMap::new();

    for (name, value) in tags(block, dhj) {
        let key: &str = if dhj {
            match name.as_str() {
                "10" => "title",
                "11" => "event",
                "13" => "date",
                "14" => "place",
                "15" => "round",
                "16" => "table",
                "17" => "red",
                "21" => "black",
                "28" => "result",
                "36" => "open",
                "37" => "variation",
                "40" => "remark",
                "41" => "author",
                "31" => "board90",
                "32" => "startplayer",
                "34" => "movelist",
                n if n.starts_with("comment_") || n.starts_with("game_comment_") => {
                    let id = n.trim_start_matches("game_").trim_start_matches("comment_");
                    add_comment(&mut comments, id, &value);
                    continue;
                }
                n => n,
            }
        } else {
            name.as_str()
        };
        match key {
            "binit" => binit = Some(value),
            "fen" => fen = Some(value),
            "board90" => fen = Some(board90_fen(&value)?),
            "startplayer" => black_first = Some(value.trim() == "1"),
            "movelist" => main = Some(moves(&value, !dhj)?),
            k if k.starts_with("move_") => {
                let ids: Vec<usize> = k[5..]
                    .split('_')
                    .map(|p| p.parse().map_err(|_| format!("bad branch tag `{k}`")))
                    .collect::<Result<_, _>>()?;
                let [p, s, b] = ids[..] else {
                    return Err(format!("bad branch tag `{k}`").into());
                };
                branches.push((p, s, b, value));
            }
            k if k.starts_with("comment") => add_comment(&mut comments, &k[7..], &value),
            _ => {
                let Some(v) = board90::clean(&value) else {
                    continue;
                };
                match key {
                    "open" => {
                        // `E27 仙人指路转左中炮…`: an ECCO code, then the opening name.
                        let (code, name) = v.split_once(' ').unwrap_or((&v, ""));
                        let is_ecco = code.len() == 3
                            && code.as_bytes()[0].is_ascii_uppercase()
                            && code[1..].bytes().all(|b| b.is_ascii_digit());
                        if is_ecco {
                            game.tags.ecco.get_or_insert_with(|| code.to_string());
                            if let Some(n) = board90::clean(name) {
                                game.tags.opening = Some(n);
                            }
                        } else {
                            game.tags.opening = Some(v.clone());
                        }
                    }
                    _ => super::tags::apply(&mut game.tags, key, &v),
                }
                game.tags.raw.push((key.to_string(), v));
            }
        }
    }

    let board = match &fen {
        Some(f) => {
            let setup = Setup::from_fen(f.trim()).map_err(|e| format!("bad fen `{f}`: {e}"))?;
            board_of(&setup)?
        }
        None => match &binit {
            Some(b) => binit_board(b)?,
            None => board_of(
                &Setup::from_fen(Variant::Xiangqi.start_fen()).map_err(|e| e.to_string())?,
            )?,
        },
    };

    game.comment = comments.remove(&(0, 0));
    game.moves = assemble(main.unwrap_or_default(), branches, &mut comments)?;
    let fallback = if black_first == Some(true) {
        Color::Second
    } else {
        Color::First
    };
    let turn = board.turn_for(game.moves.first(), fallback);
    game.start_fen = board.start_fen(turn);
    Ok(game)
}

fn add_comment(comments: &mut HashMap<(usize, usize), String>, id: &str, value: &str) {
    let key = match id.split_once('_') {
        Some((b, n)) => b.parse().ok().zip(n.parse().ok()),
        None => id.parse().ok().map(|n| (0, n)),
    };
    if let (Some(key), Some(text)) = (key, comment_text(value)) {
        comments.insert(key, text);
    }
}

fn board_of(setup: &Setup) -> Result<Board90, String> {
    let mut board = Board90::empty();
    for (i, p) in setup.board.iter().enumerate() {
        if let (Some(p), Some(sq)) = (p, Square::new(i as u8)) {
            board.put(sq.file(), sq.rank(), *p)?;
        }
    }
    Ok(board)
}

fn binit_board(b: &str) -> Result<Board90, String> {
    let digits: Vec<u8> = b
        .trim()
        .bytes()
        .map(|c| {
            c.checked_sub(b'0')
                .filter(|d| *d <= 9)
                .ok_or_else(|| format!("binit contains `{}`", c as char))
        })
        .collect::<Result<_, _>>()?;
    if digits.len() != 64 {
        return Err(format!("binit has {} digits instead of 64", digits.len()));
    }
    let mut board = Board90::empty();
    for (i, c) in digits.chunks_exact(2).enumerate() {
        let (x, y) = (c[0], c[1]);
        if x == 9 && y == 9 {
            continue;
        }
        if x > 8 {
            return Err(format!("binit piece {i} on file {x}"));
        }
        let color = if i < 16 { Color::First } else { Color::Second };
        board.put(x, 9 - y, Piece::new(color, PIECE_ORDER[i % 16]))?;
    }
    Ok(board)
}

/// The DHJHtmlXQ board: 90 characters row by row from the top; letters are pieces, anything
/// else an empty square.
fn board90_fen(text: &str) -> Result<String, String> {
    let chars: Vec<char> = text.trim().chars().collect();
    if chars.len() != 90 {
        return Err(format!("board of {} squares instead of 90", chars.len()));
    }
    let mut setup = Setup::empty();
    for (i, c) in chars.iter().enumerate() {
        let (x, y) = ((i % 9) as u8, (i / 9) as u8);
        if let (Some(p), Some(sq)) = (Piece::from_char(*c), Square::from_coords(x, 9 - y)) {
            setup.board[sq.index()] = Some(p);
        }
    }
    Ok(setup.to_fen())
}

/// Builds the main line with its branches attached.
fn assemble(
    main: Vec<String>,
    branches: Vec<(usize, usize, usize, String)>,
    comments: &mut HashMap<(usize, usize), String>,
) -> Result<Vec<MoveNode>, String> {
    let node = |t: String| (t, None, Vec::new());
    let mut lines = vec![Line {
        start: 1,
        parent: None,
        nodes: main.into_iter().map(node).collect(),
    }];
    // Branch id → line index (several ids may share a line when one continues another).
    let mut line_of: HashMap<usize, usize> = HashMap::from([(0, 0)]);
    let mut pending: BTreeMap<usize, (usize, usize, String)> = BTreeMap::new();
    for (p, s, b, moves_text) in branches {
        if b == 0 || pending.insert(b, (p, s, moves_text)).is_some() {
            return Err(format!("branch number {b} used twice"));
        }
    }
    // Attach branches breadth-first from the main line: a branch can only be placed once the
    // branch it hangs off is. Siblings go in ply order so that a branch continuing a line is
    // in place before the alternatives to its moves.
    let mut children: HashMap<usize, Vec<(usize, usize)>> = HashMap::new();
    for (&b, &(p, s, _)) in &pending {
        children.entry(p).or_default().push((s, b));
    }
    let mut depth_of: Vec<usize> = vec![0];
    let mut queue = std::collections::VecDeque::from([0usize]);
    while let Some(parent) = queue.pop_front() {
        let Some(mut kids) = children.remove(&parent) else {
            continue;
        };
        kids.sort_unstable();
        for (_, b) in kids {
            let Some((p, s, text)) = pending.remove(&b) else {
                continue;
            };
            let tag = format!("move_{p}_{s}_{b}");
            let moves = moves(&text, true).map_err(|e| format!("branch {tag}: {e}"))?;
            let Some(mut owner) = line_of.get(&p).copied() else {
                continue;
            };
            // An alternative to a ply before this line's start belongs to an ancestor line.
            while s < lines[owner].start {
                owner = lines[owner]
                    .parent
                    .ok_or_else(|| format!("branch {tag}: ply {s} is before the game"))?;
            }
            let at = s - lines[owner].start;
            let len = lines[owner].nodes.len();
            if at < len && !moves.is_empty() {
                let depth = depth_of[owner] + 1;
                if depth > MAX_VARIATION_DEPTH {
                    return Err(format!(
                        "variations nested more than {MAX_VARIATION_DEPTH} deep"
                    ));
                }
                let id = lines.len();
                lines.push(Line {
                    start: s,
                    parent: Some(owner),
                    nodes: moves.into_iter().map(node).collect(),
                });
                depth_of.push(depth);
                lines[owner].nodes[at].2.push(id);
                line_of.insert(b, id);
            } else if at <= len {
                // Continues the line past its end (or is empty): it shares that line.
                lines[owner].nodes.extend(moves.into_iter().map(node));
                line_of.insert(b, owner);
            } else {
                return Err(format!(
                    "branch {tag}: ply {s} is past the end of branch {p} (ply {})",
                    lines[owner].start + len - 1
                ));
            }
            queue.push_back(b);
        }
    }
    if let Some((b, (p, s, _))) = pending.into_iter().next() {
        return Err(format!(
            "branch move_{p}_{s}_{b}: branch {p} does not exist"
        ));
    }
    for ((b, n), text) in comments.drain() {
        let Some(&l) = line_of.get(&b) else { continue };
        if let Some(i) = n.checked_sub(lines[l].start) {
            if let Some(node) = lines[l].nodes.get_mut(i) {
                node.1 = Some(text);
            }
        }
    }
    let mut taken: Vec<Option<Line>> = lines.into_iter().map(Some).collect();
    to_nodes(&mut taken, 0, 0)
}

fn to_nodes(lines: &mut [Option<Line>], id: usize, depth: usize) -> Result<Vec<MoveNode>, String> {
    if depth > MAX_VARIATION_DEPTH {
        return Err(format!(
            "variations nested more than {MAX_VARIATION_DEPTH} deep"
        ));
    }
    let Some(line) = lines.get_mut(id).and_then(Option::take) else {
        return Ok(Vec::new());
    };
    let mut out = Vec::with_capacity(line.nodes.len());
    for (text, comment, vars) in line.nodes {
        let mut variations = Vec::with_capacity(vars.len());
        for v in vars {
            variations.push(to_nodes(lines, v, depth + 1)?);
        }
        out.push(MoveNode {
            text,
            comment,
            variations,
            eval: None,
        });
    }
    Ok(out)
}
