//! PGN reader for Xiangqi (xqbase tags, Chinese/WXF/ICCS movetext) and Janggi (pychess,
//! `[Variant "Janggi"]`), and for plain move lists without tags.
//!
//! The reader is lenient, as real files require: tag values may hold inner double quotes (the
//! value runs to the last `"` before `]`), move numbers may or may not be followed by a space
//! (`1.炮二平五`), Black-to-move starts are numbered `1. 卒３進１`, comments `{…}` and `;…`,
//! nested variations `(…)`, NAGs `$n`, and any text after the result up to the next tag line
//! (ElephantEye's advert block) are all handled. Moves are kept as written; legality is the
//! business of [`super::replay`].

use super::{
    error::{ErrorKind, GameError},
    game::{Game, MoveNode, Source},
    tags,
};
use crate::rules::Variant;

/// Reads every game of a decoded PGN text. `variant` is the default when no tag says
/// otherwise (`[Variant "Janggi"]`, `[Game "Janggi"]`).
///
/// ```
/// use qipu::formats::pgn::read_pgn;
/// use qipu::rules::Variant;
/// let text = "[Event \"x\"]\n[Red \"呂欽\"]\n1. 炮二平五 {中炮} 馬８進７ (1... 炮８平５) 2. 馬二進三 1-0\n";
/// let games = read_pgn("a.pgn", text, Variant::Xiangqi);
/// assert_eq!(games.len(), 1);
/// let g = games[0].as_ref().unwrap();
/// assert_eq!(g.tags.first.as_deref(), Some("呂欽"));
/// assert_eq!(g.moves.len(), 3);
/// assert_eq!(g.moves[0].comment.as_deref(), Some("中炮"));
/// assert_eq!(g.moves[1].variations[0][0].text, "炮８平５");
/// ```
pub fn read_pgn(file: &str, text: &str, variant: Variant) -> Vec<Result<Game, GameError>> {
    let mut lexer = Lexer::new(text);
    let mut games = Vec::new();
    while let Some(game) = read_game(&mut lexer, file, games.len(), variant) {
        games.push(game);
    }
    games
}

/// Deepest nesting of `(…)` variations in one game; a deeper game is an error (its text is
/// read past, never recursed into), as in the XQF, CCBridge and DhtmlXQ readers.
pub const MAX_VARIATION_DEPTH: usize = super::board90::MAX_VARIATION_DEPTH;

/// Most bytes of movetext one game may have, and most moves (main line and variations): a
/// longer game is an error for that game and the next one reads. Real games, annotated
/// opening trees included, stay far below both.
pub const MAX_GAME_BYTES: usize = 4 << 20;
/// See [`MAX_GAME_BYTES`].
pub const MAX_GAME_MOVES: usize = 200_000;

/// Whether a decoded text looks like PGN: a tag line `[Name "value"]` near the start.
pub fn looks_like_pgn(text: &str) -> bool {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .take(5)
        .any(|l| {
            l.starts_with('[')
                && l.ends_with(']')
                && l.contains('"')
                && l[1..]
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphabetic())
        })
}

#[derive(Debug, PartialEq)]
enum Token<'a> {
    Tag(String, String),
    Move(&'a str),
    Comment(&'a str),
    Open,
    Close,
    Result(&'a str),
}

struct Lexer<'a> {
    s: &'a str,
    pos: usize,
    /// At the beginning of a line (only whitespace since the last newline).
    line_start: bool,
    /// Skipping text after a result until the next tag line.
    skipping: bool,
    peeked: Option<Token<'a>>,
    /// Where the peeked token's text starts (white space, and text skipped after a result,
    /// before it passed over).
    peeked_at: usize,
    /// Where the token [`Lexer::lex`] returned last starts.
    token_at: usize,
}

/// Where the word at the start of `rest` ends: at whitespace or a character that starts
/// another token.
fn word_end(rest: &str) -> usize {
    let b = rest.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let x = b[i];
        if x.is_ascii() {
            if x.is_ascii_whitespace() || matches!(x, b'{' | b'(' | b')' | b';' | b'\x0b') {
                return i;
            }
            i += 1;
        } else {
            // `rest[i..]` starts a character here: bytes before were whole characters.
            let Some(ch) = rest[i..].chars().next() else {
                return i;
            };
            if ch.is_whitespace() || matches!(ch, '（' | '）' | '\u{3000}') {
                return i;
            }
            i += ch.len_utf8();
        }
    }
    b.len()
}

/// Whether a word is a game result (`1-0`, `1/2-1/2`, `*`, `红胜`, `和棋`…).
pub(super) fn is_result(t: &str) -> bool {
    // Moves in coordinates start with a letter: the quick no.
    if t.as_bytes().first().is_some_and(u8::is_ascii_alphabetic) {
        return false;
    }
    matches!(
        t,
        "1-0"
            | "0-1"
            | "1/2-1/2"
            | "½-½"
            | "*"
            | "0.5-0.5"
            | "红胜"
            | "紅勝"
            | "黑胜"
            | "黑勝"
            | "和棋"
            | "和局"
            | "红先胜"
            | "紅先勝"
            | "黑先胜"
            | "黑先勝"
    )
}

impl<'a> Lexer<'a> {
    fn new(s: &'a str) -> Lexer<'a> {
        Lexer {
            s,
            pos: 0,
            line_start: true,
            skipping: false,
            peeked: None,
            peeked_at: 0,
            token_at: 0,
        }
    }

    fn rest(&self) -> &'a str {
        self.s.get(self.pos..).unwrap_or_default()
    }

    fn peek(&mut self) -> Option<&Token<'a>> {
        if self.peeked.is_none() {
            self.peeked = self.lex();
            self.peeked_at = self.token_at;
        }
        self.peeked.as_ref()
    }

    fn next(&mut self) -> Option<Token<'a>> {
        match self.peeked.take() {
            Some(t) => Some(t),
            None => self.lex(),
        }
    }

    /// Where the next token starts (white space skipped): the peeked one's start.
    fn at(&self) -> usize {
        if self.peeked.is_some() {
            self.peeked_at
        } else {
            let rest = self.rest();
            self.pos + (rest.len() - rest.trim_start().len())
        }
    }

    fn skip_line(&mut self) {
        let rest = self.rest();
        match rest.find('\n') {
            Some(i) => self.pos += i + 1,
            None => self.pos = self.s.len(),
        }
        self.line_start = true;
    }

    fn lex(&mut self) -> Option<Token<'a>> {
        loop {
            let rest = self.rest();
            let &first = rest.as_bytes().first()?;
            // ASCII whitespace, the common case, byte by byte.
            match first {
                b'\n' => {
                    self.pos += 1;
                    self.line_start = true;
                    continue;
                }
                b' ' | b'\t' | b'\r' | b'\x0b' | b'\x0c' => {
                    self.pos += 1;
                    continue;
                }
                _ => {}
            }
            let c = if first.is_ascii() {
                char::from(first)
            } else {
                rest.chars().next()?
            };
            if c.is_whitespace() {
                self.pos += c.len_utf8();
                continue;
            }
            self.token_at = self.pos;
            if self.line_start && c == '[' {
                if let Some(tag) = self.tag_line() {
                    self.skipping = false;
                    return Some(tag);
                }
            }
            if self.skipping {
                self.skip_line();
                continue;
            }
            self.line_start = false;
            match c {
                '{' => {
                    let body = &rest[1..];
                    let end = body.find('}').unwrap_or(body.len());
                    self.pos += 1 + end + usize::from(end < body.len());
                    return Some(Token::Comment(body[..end].trim()));
                }
                ';' => {
                    let body = &rest[1..];
                    let end = body.find('\n').unwrap_or(body.len());
                    self.pos += 1 + end;
                    return Some(Token::Comment(body[..end].trim()));
                }
                '(' | '（' => {
                    self.pos += c.len_utf8();
                    return Some(Token::Open);
                }
                ')' | '）' => {
                    self.pos += c.len_utf8();
                    return Some(Token::Close);
                }
                '%' if self.line_start_before() => {
                    self.skip_line();
                    continue;
                }
                _ => {}
            }
            let end = word_end(rest);
            let word = &rest[..end];
            self.pos += end;
            if is_result(word) {
                self.skipping = true;
                return Some(Token::Result(word));
            }
            let word = strip_move_number(word);
            if word.is_empty()
                || word.starts_with('$')
                || word.chars().all(|ch| ".…!?".contains(ch))
            {
                continue;
            }
            let word = word.trim_end_matches(['!', '?']);
            if word.is_empty() {
                continue;
            }
            return Some(Token::Move(word));
        }
    }

    fn line_start_before(&self) -> bool {
        self.s[..self.pos]
            .rsplit('\n')
            .next()
            .is_some_and(|l| l.trim().is_empty())
    }

    /// A tag line (see [`tag_of_line`]), consumed; `None` (consuming nothing) otherwise.
    fn tag_line(&mut self) -> Option<Token<'a>> {
        let rest = self.rest();
        let line_end = rest.find('\n').unwrap_or(rest.len());
        let (name, value) = tag_of_line(&rest[..line_end])?;
        self.pos += line_end;
        self.line_start = false;
        Some(Token::Tag(name.to_string(), value.to_string()))
    }
}

/// `[Name "value"]` on one line: the name and the value, which runs from the first `"` to
/// the last `"` before the closing `]`. `None` if the line is not a tag.
fn tag_of_line(line: &str) -> Option<(&str, &str)> {
    let inner = line.trim_end().strip_prefix('[')?;
    let close = inner.rfind(']')?;
    let inner = &inner[..close];
    let name_end = inner
        .find(|c: char| c.is_whitespace() || c == '"')
        .unwrap_or(inner.len());
    let name = &inner[..name_end];
    if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return None;
    }
    let after = &inner[name_end..];
    let value = match (after.find('"'), after.rfind('"')) {
        (Some(a), Some(b)) if b > a => &after[a + 1..b],
        _ => after.trim().trim_matches('"'),
    };
    Some((name, value.trim()))
}

/// Where a PGN text can be cut into runs of whole games of about `chunk_bytes` each: offsets
/// of lines that begin a game's tags, the first offset being 0. Reading each run with
/// [`read_pgn`] gives the games of the whole text, in order. Brace comments are followed so
/// that a `[` line inside one is never taken for a tag.
///
/// ```
/// use qipu::formats::pgn::{chunk_starts, read_pgn};
/// use qipu::rules::Variant;
/// let text = "[Event \"a\"]\n[Red \"x\"]\n1. h2e2 {\n[not a tag]} h9g7 *\n".repeat(3);
/// let starts = chunk_starts(&text, 1);
/// assert_eq!(starts.len(), 3);
/// assert!(starts.iter().all(|&s| text[s..].starts_with("[Event")));
/// assert_eq!(read_pgn("x", &text[starts[1]..starts[2]], Variant::Xiangqi).len(), 1);
/// ```
pub fn chunk_starts(text: &str, chunk_bytes: usize) -> Vec<usize> {
    let b = text.as_bytes();
    let mut starts = vec![0];
    // Whether the last thing seen was a tag line (a tag block goes on), and whether there
    // was any content since the current chunk began.
    let mut after_tag = false;
    let mut content = false;
    let mut line = 0;
    while line < b.len() {
        let line_end = memchr::memchr(b'\n', &b[line..]).map_or(b.len(), |n| line + n);
        let Some(first) = b[line..line_end]
            .iter()
            .position(|c| !matches!(c, b' ' | b'\t' | b'\r'))
            .map(|n| line + n)
        else {
            line = line_end + 1;
            continue;
        };
        if b[first] == b'[' {
            let long_enough = line - starts[starts.len() - 1] >= chunk_bytes;
            // Lines are parsed as tags only once the chunk is long enough to end. Until
            // then a `[` line with a `]` and no comment character is taken for a tag without
            // parsing: real tags are among those, and a wrong guess only sets `after_tag`,
            // which can only prevent a cut.
            let rest = &b[first..line_end];
            let is_tag = if long_enough || memchr::memchr2(b'{', b';', rest).is_some() {
                tag_of_line(&text[first..line_end]).is_some()
            } else {
                memchr::memchr(b']', rest).is_some()
            };
            if is_tag {
                if long_enough && !after_tag && content {
                    starts.push(line);
                    content = false;
                }
                after_tag = true;
                line = line_end + 1;
                continue;
            }
        }
        after_tag = false;
        content = true;
        // Comments: `;` to the end of the line, `{` to the next `}` (perhaps lines later).
        let mut i = first;
        let mut end = line_end;
        while let Some(n) = memchr::memchr2(b'{', b';', &b[i..end]) {
            let at = i + n;
            if b[at] == b';' {
                break;
            }
            match memchr::memchr(b'}', &b[at + 1..]) {
                Some(m) => {
                    i = at + 1 + m + 1;
                    end = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |n| i + n);
                }
                None => {
                    end = b.len();
                    break;
                }
            }
        }
        line = end + 1;
    }
    starts
}

/// Drops a leading move number: `12.`, `12...`, `12…`, `１２．`; the rest (if any) is a move.
pub(super) fn strip_move_number(word: &str) -> &str {
    let digits = word
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_digit() || ('０'..='９').contains(c)))
        .map(|(i, _)| i)
        .unwrap_or(word.len());
    if digits == 0 {
        return word;
    }
    let after = &word[digits..];
    if after.is_empty() {
        // A bare number: a move number without its dot (`1 炮二平五`); never a move.
        return "";
    }
    if after.starts_with(['.', '…', '．', '、']) {
        return after.trim_start_matches(['.', '…', '．', '、']);
    }
    word
}

fn read_game(
    lexer: &mut Lexer<'_>,
    file: &str,
    index: usize,
    default: Variant,
) -> Option<Result<Game, GameError>> {
    // The game starts at its first token (text skipped after the previous result is not
    // part of it), wherever the text was cut into chunks.
    lexer.peek();
    let game_start = lexer.at();
    let mut raw = Vec::new();
    while let Some(Token::Tag(..)) = lexer.peek() {
        if let Some(Token::Tag(n, v)) = lexer.next() {
            raw.push((n, v));
        }
    }
    if raw.is_empty() && lexer.peek().is_none() {
        return None;
    }
    if raw.is_empty() && matches!(lexer.peek(), Some(Token::Result(_))) {
        // A result with nothing before it: nothing to read.
        lexer.next();
        return read_game(lexer, file, index, default);
    }
    let variant = raw
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("variant") || n.eq_ignore_ascii_case("game"))
        .and_then(|(_, v)| {
            let v = v.to_ascii_lowercase();
            if v.contains("janggi") {
                Some(Variant::Janggi)
            } else if v.contains("xiangqi") || v.contains("chinese") {
                Some(Variant::Xiangqi)
            } else {
                None
            }
        })
        .unwrap_or(default);
    let fen = raw
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("fen"))
        .map(|(_, v)| v.trim().to_string())
        .filter(|v| !v.is_empty());
    let mut game = Game::new(
        variant,
        Source {
            file: file.to_string(),
            index,
        },
    );
    game.start_fen = fen;
    game.tags = tags::normalise(raw);
    game.offset = u32::try_from(game_start).ok();
    Some(match read_movetext(lexer, &mut game) {
        Ok(()) => Ok(game),
        Err((ply, reason)) => Err(GameError {
            ply,
            ..GameError::new(&game.source, ErrorKind::Refused(reason)).at_offset(game_start)
        }),
    })
}

/// Reads movetext until the result, the next tag line or the end. A game nested deeper than
/// [`MAX_VARIATION_DEPTH`] or longer than [`MAX_GAME_BYTES`] / [`MAX_GAME_MOVES`] is read
/// past to its end and refused: `Err((ply of the main line reached, reason))`.
fn read_movetext(lexer: &mut Lexer<'_>, game: &mut Game) -> Result<(), (Option<usize>, String)> {
    // The stack of lines being built; the bottom one is the main line. A pending variation
    // list belongs to the next move of the line (a variation written before any move).
    let mut stack: Vec<Vec<MoveNode>> = vec![Vec::new()];
    let mut pending_comment: Vec<Option<String>> = vec![None];
    let start = lexer.pos;
    let mut moves = 0usize;
    let mut refused: Option<(Option<usize>, String)> = None;
    loop {
        if refused.is_none() {
            let ply = stack.first().map(|l| l.len() + 1);
            if stack.len() > MAX_VARIATION_DEPTH + 1 {
                refused = Some((
                    ply,
                    format!("variations nested deeper than {MAX_VARIATION_DEPTH}"),
                ));
            } else if lexer.pos - start > MAX_GAME_BYTES {
                refused = Some((ply, format!("game text longer than {MAX_GAME_BYTES} bytes")));
            } else if moves > MAX_GAME_MOVES {
                refused = Some((ply, format!("more than {MAX_GAME_MOVES} moves")));
            }
            if refused.is_some() {
                stack = Vec::new();
                pending_comment = Vec::new();
            }
        }
        if refused.is_some() {
            match lexer.next() {
                None | Some(Token::Result(_)) => break,
                Some(Token::Tag(n, v)) => {
                    lexer.peeked = Some(Token::Tag(n, v));
                    break;
                }
                Some(_) => continue,
            }
        }
        match lexer.peek() {
            None | Some(Token::Tag(..)) => break,
            _ => {}
        }
        let Some(tok) = lexer.next() else { break };
        match tok {
            Token::Tag(..) => break,
            Token::Result(r) => {
                if game.tags.result.is_none()
                    && !game
                        .tags
                        .raw
                        .iter()
                        .any(|(n, _)| n.eq_ignore_ascii_case("result"))
                {
                    game.tags.result = tags::parse_result(r);
                }
                break;
            }
            Token::Move(text) => {
                moves += 1;
                let mut node = MoveNode::new(text);
                if let Some(c) = pending_comment.last_mut().and_then(Option::take) {
                    node.comment = Some(c);
                }
                if let Some(line) = stack.last_mut() {
                    line.push(node);
                }
            }
            Token::Comment(c) => {
                if c.is_empty() {
                    continue;
                }
                let depth = stack.len();
                let Some(line) = stack.last_mut() else { break };
                match line.last_mut() {
                    Some(node) => append(&mut node.comment, c),
                    None if depth == 1 => append(&mut game.comment, c),
                    None => {
                        if let Some(p) = pending_comment.last_mut() {
                            append(p, c);
                        }
                    }
                }
            }
            Token::Open => {
                stack.push(Vec::new());
                pending_comment.push(None);
            }
            Token::Close => close_variation(&mut stack, &mut pending_comment),
        }
    }
    if let Some(r) = refused {
        return Err(r);
    }
    while stack.len() > 1 {
        close_variation(&mut stack, &mut pending_comment);
    }
    game.moves = stack.pop().unwrap_or_default();
    Ok(())
}

fn close_variation(stack: &mut Vec<Vec<MoveNode>>, pending: &mut Vec<Option<String>>) {
    if stack.len() < 2 {
        return; // an unmatched `)`: ignore it
    }
    pending.pop();
    let Some(var) = stack.pop() else { return };
    if var.is_empty() {
        return;
    }
    if let Some(node) = stack.last_mut().and_then(|line| line.last_mut()) {
        node.variations.push(var);
    }
}

fn append(slot: &mut Option<String>, text: &str) {
    match slot {
        Some(s) => {
            s.push('\n');
            s.push_str(text);
        }
        None => *slot = Some(text.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(games: Vec<Result<Game, GameError>>) -> Vec<Game> {
        games.into_iter().map(|g| g.unwrap()).collect()
    }

    fn texts(line: &[MoveNode]) -> Vec<&str> {
        line.iter().map(|n| n.text.as_str()).collect()
    }

    #[test]
    fn inner_quotes_and_case() {
        let g = ok(read_pgn(
            "f",
            "[event \"\"中立杯\"象棋电视快棋赛\"]\n1. h2e2 *",
            Variant::Xiangqi,
        ));
        assert_eq!(g[0].tags.event.as_deref(), Some("\"中立杯\"象棋电视快棋赛"));
    }

    #[test]
    fn text_after_result_and_two_games() {
        let text =
            "[Game \"Chinese Chess\"]\r\n[Result \"0-1\"]\r\n  1. 炮八平五 马２进３\r\n 0-1\r\n\
            ============================\r\n欢迎访问《象棋百科全书》网站\r\n\r\n\
            [Game \"Chinese Chess\"]\r\n1.炮二平五 2...马8进7\r\n  3.          马８进７\r\n";
        let g = ok(read_pgn("f", text, Variant::Xiangqi));
        assert_eq!(g.len(), 2);
        assert_eq!(texts(&g[0].moves), ["炮八平五", "马２进３"]);
        assert_eq!(texts(&g[1].moves), ["炮二平五", "马8进7", "马８进７"]);
        assert_eq!(g[1].source.index, 1);
    }

    #[test]
    fn nested_variations_and_comments() {
        let text = "{start} 1. a (1. b {bc} (1. c) 1... d) 1... e (1... f 2. g) 2. h )) *";
        let g = ok(read_pgn("f", text, Variant::Xiangqi));
        let g = &g[0];
        assert_eq!(g.comment.as_deref(), Some("start"));
        assert_eq!(texts(&g.moves), ["a", "e", "h"]);
        let v = &g.moves[0].variations;
        assert_eq!(v.len(), 1);
        assert_eq!(texts(&v[0]), ["b", "d"]);
        assert_eq!(v[0][0].comment.as_deref(), Some("bc"));
        assert_eq!(texts(&v[0][0].variations[0]), ["c"]);
        assert_eq!(texts(&g.moves[1].variations[0]), ["f", "g"]);
    }

    #[test]
    fn janggi_variant_and_fen() {
        let text = "[Variant \"Janggi\"]\n[FEN \"rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR w - - 0 1\"]\n1. Ea3b5 $1 Ec10d8! 1-0";
        let g = ok(read_pgn("f", text, Variant::Xiangqi));
        assert_eq!(g[0].variant, Variant::Janggi);
        assert!(g[0].start_fen.is_some());
        assert_eq!(texts(&g[0].moves), ["Ea3b5", "Ec10d8"]);
    }

    #[test]
    fn unterminated_input_never_loops() {
        for text in ["[", "{", "(((", "[A \"", "1.", ")", "[Event \"x\"]"] {
            let g = ok(read_pgn("f", text, Variant::Xiangqi));
            assert!(g.len() <= 1);
        }
        // Tags and nothing else is a game without moves.
        let g = ok(read_pgn(
            "f",
            "[Game \"Chinese Chess\"]\n[Result \"*\"]\n",
            Variant::Xiangqi,
        ));
        assert_eq!(g.len(), 1);
        assert!(g[0].moves.is_empty());
    }
}
