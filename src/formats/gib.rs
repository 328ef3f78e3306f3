//! `.gib` reader (Korean Janggi records, CP949): Korean header tags, formations or an
//! explicit `[판]` board, and movetext like `1. 08마87 2. 41漢兵42 … 62. 85포55장군 63. 한수쉼`.
//!
//! A file holds many games. A game ends where a tag starts after its moves, or where a tag
//! it already has appears again (forfeits have tags and no moves); `{…}` comments attach to
//! the move before them, `<n>` marks (clock readings) are dropped. Moves are kept as written.

use super::{
    error::GameError,
    game::{Game, MoveNode, Source},
    tags,
};
use crate::rules::{Formations, Variant};

/// Whether a decoded text is a Janggi `.gib` (Korean tags) rather than, say, a Tygem Go
/// record that shares the extension (`\HS … \GS`).
///
/// ```
/// use qipu::formats::gib::looks_like_gib;
/// assert!(looks_like_gib("[대회명 \"친선대국\"]\n[초차림 \"상마상마\"]\n"));
/// assert!(!looks_like_gib("\\HS\n\\[GAMEBLACKNAME=x\\]\n\\GS\nSTO 0 2 1 15 15\n"));
/// ```
pub fn looks_like_gib(text: &str) -> bool {
    const TAGS: [&str; 9] = [
        "[대회명",
        "[초차림",
        "[한차림",
        "[초대국자",
        "[한대국자",
        "[대국결과",
        "[판",
        "[초포진",
        "[대국일자",
    ];
    text.lines()
        .map(|l| l.trim_start_matches(|c: char| c.is_whitespace() || c == '\u{feff}'))
        .filter(|l| !l.is_empty())
        .take(5)
        .any(|l| TAGS.iter().any(|t| l.starts_with(t)))
}

/// Whether a text is a Tygem Go record (`.gib` too, but Go).
pub fn looks_like_tygem_go(text: &str) -> bool {
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .is_some_and(|l| l.starts_with("\\HS"))
}

/// Reads every game of a decoded `.gib` text. A game whose start position cannot be built
/// (unknown formation, malformed `[판]` board) is an error; the others are games.
///
/// ```
/// use qipu::formats::gib::read_gib;
/// let text = "[초차림 \"상마상마\"]\n[한차림 \"마상상마\"]\n[대국결과 \"초 완승\"]\n\n\
///             1. 71졸72 2. 49병48 3. 한수쉼 {생각} 4. 18마37 <3>\n";
/// let games = read_gib("a.gib", text);
/// let g = games[0].as_ref().unwrap();
/// assert_eq!(
///     g.start_fen.as_deref(),
///     Some("rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RBNA1ABNR w - - 0 1")
/// );
/// let moves: Vec<&str> = g.moves.iter().map(|m| m.text.as_str()).collect();
/// assert_eq!(moves, ["71졸72", "49병48", "한수쉼", "18마37"]);
/// assert_eq!(g.moves[2].comment.as_deref(), Some("생각"));
/// ```
pub fn read_gib(file: &str, text: &str) -> Vec<Result<Game, GameError>> {
    read_gib_counted(file, text, &mut 0)
}

/// [`read_gib`], adding to `work` the bytes its tag scans look at: linear in the text (each
/// line is scanned for a closing `]` at most once), which the tests check.
fn read_gib_counted(file: &str, text: &str, work: &mut usize) -> Vec<Result<Game, GameError>> {
    let mut out = Vec::new();
    let mut cur = RawGame::default();
    let mut rest = text;
    // Offset up to which the current line is known to hold no `]`: a `[` before it starts
    // no tag, without scanning the line again.
    let mut no_close_until = 0usize;
    while let Some(c) = rest.chars().next() {
        match c {
            '[' => {
                let at = text.len() - rest.len();
                if at < no_close_until {
                    rest = &rest[1..];
                    continue;
                }
                let (tag, len) = read_tag(rest, work);
                if len == 0 {
                    no_close_until = at + rest.find('\n').unwrap_or(rest.len());
                    rest = &rest[1..];
                    continue;
                }
                rest = &rest[len..];
                if let Some((name, value)) = tag {
                    if !cur.moves.is_empty() || cur.tags.iter().any(|(n, _)| *n == name) {
                        out.push(finish(file, out.len(), std::mem::take(&mut cur)));
                    }
                    cur.tags.push((name, value));
                }
            }
            '{' => {
                let end = rest.find('}').unwrap_or(rest.len());
                let body = rest[1..end].trim();
                rest = rest.get(end + 1..).unwrap_or_default();
                if !body.is_empty() {
                    let slot = match cur.moves.last_mut() {
                        Some(m) => &mut m.comment,
                        None => &mut cur.comment,
                    };
                    match slot {
                        Some(s) => {
                            s.push('\n');
                            s.push_str(body);
                        }
                        None => *slot = Some(body.to_string()),
                    }
                }
            }
            '<' => {
                let end = rest.find(['>', '\n']).unwrap_or(rest.len());
                rest = rest.get(end + 1..).unwrap_or_default();
            }
            c if c.is_whitespace() => rest = &rest[c.len_utf8()..],
            _ => {
                let end = rest
                    .find(|ch: char| ch.is_whitespace() || matches!(ch, '[' | '{' | '<'))
                    .unwrap_or(rest.len());
                let word = &rest[..end];
                rest = &rest[end..];
                let mv = strip_number(word);
                if !mv.is_empty() {
                    cur.moves.push(MoveNode::new(mv));
                }
            }
        }
    }
    if !cur.tags.is_empty() || !cur.moves.is_empty() {
        out.push(finish(file, out.len(), cur));
    }
    out
}

fn strip_number(word: &str) -> &str {
    let digits = word.bytes().take_while(u8::is_ascii_digit).count();
    match word[digits..].strip_prefix('.') {
        Some(after) if digits > 0 => after,
        _ => word,
    }
}

/// `[name "value"]` → ((name, value), bytes consumed). The value runs from the first `"` to
/// the last `"` before the closing `]`. No `]` on the line: nothing consumed (`0`), the
/// caller skips the `[`. `work` counts the bytes scanned.
fn read_tag(s: &str, work: &mut usize) -> (Option<(String, String)>, usize) {
    let line_end = s.find('\n').unwrap_or(s.len());
    *work += line_end;
    let Some(close) = s[..line_end].rfind(']') else {
        return (None, 0);
    };
    let inner = &s[1..close];
    let name_end = inner
        .find(|c: char| c.is_whitespace() || c == '"')
        .unwrap_or(inner.len());
    let name = inner[..name_end].trim();
    let after = &inner[name_end..];
    let value = match (after.find('"'), after.rfind('"')) {
        (Some(a), Some(b)) if b > a => &after[a + 1..b],
        _ => after.trim(),
    };
    if name.is_empty() {
        return (None, close + 1);
    }
    (
        Some((name.to_string(), value.trim().to_string())),
        close + 1,
    )
}

#[derive(Default)]
struct RawGame {
    tags: Vec<(String, String)>,
    moves: Vec<MoveNode>,
    comment: Option<String>,
}

fn finish(file: &str, index: usize, raw: RawGame) -> Result<Game, GameError> {
    let source = Source {
        file: file.to_string(),
        index,
    };
    let tag = |names: &[&str]| {
        raw.tags
            .iter()
            .find(|(n, _)| names.contains(&n.as_str()))
            .map(|(_, v)| v.as_str())
    };
    let start_fen = if let Some(board) = tag(&["판"]) {
        Some(board_fen(board).map_err(|e| GameError::new(&source, e.into()))?)
    } else {
        let cho = tag(&["초차림", "초포진"]);
        let han = tag(&["한차림", "한포진"]);
        if cho.is_none() && han.is_none() && raw.moves.is_empty() {
            None
        } else {
            Some(
                formation_fen(cho.unwrap_or("마상상마"), han.unwrap_or("마상상마"))
                    .map_err(|e| GameError::new(&source, e.into()))?,
            )
        }
    };
    let mut game = Game::new(Variant::Janggi, source);
    game.start_fen = start_fen;
    game.moves = raw.moves;
    game.comment = raw.comment;
    game.tags = tags::normalise(raw.tags);
    Ok(game)
}

/// The start FEN for Cho's and Han's formations (`[초차림]`, `[한차림]`), read as
/// [`Formations`] reads them.
///
/// ```
/// use qipu::formats::gib::formation_fen;
/// assert_eq!(
///     formation_fen("상마마상", "마상마상").unwrap(),
///     "rnba1anbr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RBNA1ANBR w - - 0 1"
/// );
/// assert!(formation_fen("마마상상", "마상마상").is_err());
/// ```
pub fn formation_fen(cho: &str, han: &str) -> Result<String, String> {
    Ok(Formations {
        cho: cho.parse()?,
        han: han.parse()?,
    }
    .start_fen())
}

/// The start FEN of a `[판]` board: rows from Cho's back rank upwards separated by `/`, each
/// left to right with digits for empty runs and short rows padded on the right; Hangul
/// letters are Cho's pieces, Hanja letters Han's. A trailing `한 접장기` means Han moves
/// first, `초 …` (or nothing) Cho.
///
/// ```
/// use qipu::formats::gib::board_fen;
/// let b = "차마상사1사상마차/4장/1포5포/졸1졸1졸1졸1졸///兵1兵1兵1兵1兵/1包5包/4將/車馬象3馬象車 한 접장기";
/// assert_eq!(
///     board_fen(b).unwrap(),
///     "rnb3nbr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR b - - 0 1"
/// );
/// ```
pub fn board_fen(board: &str) -> Result<String, String> {
    let mut parts = board.split_whitespace();
    let rows_text = parts.next().unwrap_or_default();
    let side = match parts.next() {
        Some(s) if s.starts_with('한') || s.starts_with('漢') => 'b',
        _ => 'w',
    };
    let rows: Vec<&str> = rows_text.split('/').collect();
    if rows.len() != 10 {
        return Err(format!("board `{board}` has {} rows, not 10", rows.len()));
    }
    let mut fen_rows = Vec::with_capacity(10);
    for row in rows.iter().rev() {
        let mut out = String::new();
        let mut width = 0u32;
        let mut empty = 0u32;
        for c in row.chars() {
            if let Some(d) = c.to_digit(10) {
                empty += d;
                width += d;
                continue;
            }
            let letter =
                piece_letter(c).ok_or_else(|| format!("unknown piece `{c}` on the board"))?;
            if empty > 0 {
                out.push_str(&empty.to_string());
                empty = 0;
            }
            out.push(letter);
            width += 1;
        }
        if width > 9 {
            return Err(format!("board row `{row}` is wider than 9"));
        }
        empty += 9 - width;
        if empty > 0 {
            out.push_str(&empty.to_string());
        }
        fen_rows.push(out);
    }
    Ok(format!("{} {side} - - 0 1", fen_rows.join("/")))
}

fn piece_letter(c: char) -> Option<char> {
    Some(match c {
        '차' => 'R',
        '마' => 'N',
        '상' => 'B',
        '사' => 'A',
        '장' | '궁' => 'K',
        '포' => 'C',
        '졸' | '병' => 'P',
        '車' => 'r',
        '馬' => 'n',
        '象' => 'b',
        '士' => 'a',
        '將' | '漢' | '楚' => 'k',
        '包' | '砲' => 'c',
        '兵' | '卒' => 'p',
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn games_split_on_tags_after_moves_and_repeated_tags() {
        let text = "[대회명 \"a\"]\n[초차림 \"마상상마\"]\n[한차림 \"마상상마\"]\n[대국결과 \"초 기권승\"]\n\n\
                    [대회명 \"b\"]\n[초차림 \"마상상마\"]\n[한차림 \"마상상마\"]\n\n1. 71졸72 2. 13漢馬34장군[대회명 \"c\"]\n\
                    [초차림 \"상마마상\"]\n[한차림 \"상마상마\"]\n1. 01차02\n\u{1a}";
        let g = read_gib("f", text);
        assert_eq!(g.len(), 3);
        let g: Vec<&Game> = g.iter().map(|r| r.as_ref().unwrap()).collect();
        assert_eq!(g[0].tags.event.as_deref(), Some("a"));
        assert!(g[0].moves.is_empty());
        assert_eq!(g[1].moves.len(), 2);
        assert_eq!(g[1].moves[1].text, "13漢馬34장군");
        assert_eq!(g[2].source.index, 2);
        assert_eq!(g[2].moves[0].text, "01차02");
    }

    #[test]
    fn bad_formation_is_an_error_for_that_game_only() {
        let text = "[초차림 \"마마마마\"]\n1. 71졸72\n[초차림 \"마상상마\"]\n1. 71졸72\n";
        let g = read_gib("f", text);
        assert_eq!(g.len(), 2);
        let e = g[0].as_ref().unwrap_err();
        assert!(e.reason().contains("formation"), "{e}");
        assert_eq!(e.game, Some(0));
        assert!(g[1].is_ok());
    }

    /// A line of `[` without `]` (176 s for 1 MB before): the tag scans look at each byte a
    /// bounded number of times, so doubling the input doubles the work.
    #[test]
    fn unclosed_brackets_take_linear_work() {
        let work = |n: usize| {
            let text = format!("[초차림 \"마상상마\"]\n{}\n1. 71졸72\n", "[".repeat(n));
            let mut w = 0;
            let games = read_gib_counted("f", &text, &mut w);
            assert_eq!(games.len(), 1);
            assert_eq!(games[0].as_ref().unwrap().moves.len(), 1);
            w
        };
        let (small, big) = (work(1 << 16), work(1 << 17));
        assert!(small <= 2 * (1 << 16) + 64, "{small}");
        assert!(big <= 2 * small + 64, "{small} -> {big}");
        assert!(work(1 << 20) <= 2 * (1 << 20) + 64);
    }

    #[test]
    fn cho_first_board() {
        let b = "차마상사1사상마차/4장/1포5포/졸1졸1졸1졸1졸///兵1兵1兵1兵1兵/1包5包/4將/車馬象士1士象馬車 초 접장기";
        assert_eq!(
            board_fen(b).unwrap(),
            "rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR w - - 0 1"
        );
        assert!(board_fen("차/장").is_err());
        assert!(board_fen("99/////////").is_err());
    }
}
