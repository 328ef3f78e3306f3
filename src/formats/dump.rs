//! Move-list dumps: one game per line, as some sites publish their games —
//! `gameid;h2e2,h9g7,h0g2`, `gameid<TAB>h2e2 h9g7`, or the moves alone separated by commas
//! (`h2e2,h9g7,h0g2`), optionally ending with a result (`…,1-0`).
//!
//! Owns recognising such a text ([`looks_like_dump`]) and cutting it into games
//! ([`read_dump`]); the moves are kept as written (any notation [`super::replay`] reads) and
//! judged only by replay. Knows nothing of the other formats but the shape of a move word.
//!
//! A line is a game when it has an id (text before the first `;` or tab) or its moves are
//! separated by commas: lines of moves separated by spaces alone are one game written over
//! several lines, read as a plain move list elsewhere. A line that is not a move list (no
//! moves, or a word that is no move) is an error naming its line, and the other lines read.

use super::{
    error::{ErrorKind, GameError},
    game::{Game, MoveNode, Source},
    pgn, tags,
};
use crate::rules::Variant;

/// How many non-blank lines [`looks_like_dump`] looks at.
const SNIFF_LINES: usize = 50;

/// One line of a dump, cut into its id and its words.
struct Line<'a> {
    id: Option<&'a str>,
    words: Vec<&'a str>,
    /// Whether the line is of a dump's own shape (an id, or commas between moves).
    dump_shaped: bool,
}

fn cut_line(line: &str) -> Line<'_> {
    let line = line.trim();
    let (id, moves) = match line.find([';', '\t']) {
        Some(i) => (Some(line[..i].trim()), &line[i + 1..]),
        None => (None, line),
    };
    let mut words: Vec<&str> = moves
        .split([',', ';', ' ', '\t'])
        .map(str::trim)
        .filter(|w| !w.is_empty())
        .map(pgn::strip_move_number)
        .filter(|w| !w.is_empty())
        .collect();
    let commas = moves.contains(',');
    // `id,move,move…`: the first field names the game when it is no move.
    let (id, dump_shaped) = match id {
        Some(id) => (Some(id), true),
        None if commas
            && words.len() > 1
            && !words
                .first()
                .is_some_and(|w| super::read::looks_like_move(w)) =>
        {
            (Some(words.remove(0)), true)
        }
        None => (None, commas),
    };
    Line {
        id,
        words,
        dump_shaped,
    }
}

/// The first word that is neither a move nor (last) a result, if any.
fn first_bad(words: &[&str]) -> Option<usize> {
    let n = words.len();
    words
        .iter()
        .enumerate()
        .position(|(i, w)| !(super::read::looks_like_move(w) || (i + 1 == n && pgn::is_result(w))))
}

/// Whether a decoded text is a move-list dump: two thirds or more of its first non-blank
/// lines (at least two, or one with an id) are dump-shaped lines of moves.
///
/// ```
/// use qipu::formats::dump::looks_like_dump;
/// assert!(looks_like_dump("g1;h2e2,h9g7\ng2;c3c4,g6g5\n"));
/// assert!(looks_like_dump("h2e2,h9g7,h0g2\nb2e2,b9c7\n"));
/// assert!(!looks_like_dump("h2e2 h9g7\nh0g2 i9h9\n")); // one game over two lines
/// assert!(!looks_like_dump("name;city\nLi;Beijing\n"));
/// ```
pub fn looks_like_dump(text: &str) -> bool {
    let mut lines = 0usize;
    let mut good = 0usize;
    let mut with_id = 0usize;
    for line in text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .take(SNIFF_LINES)
    {
        lines += 1;
        let l = cut_line(line);
        if l.dump_shaped && !l.words.is_empty() && first_bad(&l.words).is_none() {
            good += 1;
            with_id += usize::from(l.id.is_some());
        }
    }
    (lines >= 2 || with_id == 1) && good * 3 >= lines * 2 && good >= lines.min(2)
}

/// Reads every line of a dump as a game: the id is kept as the tag `GameId` (and
/// [`Source::index`] counts the lines read as games, from 0). A line that is not a move list
/// is an error with the line number, the ply and word at fault and the line's byte offset;
/// a header line (no moves, first line) is skipped.
///
/// ```
/// use qipu::formats::dump::read_dump;
/// let games = read_dump("d.txt", "id;moves\n7;h2e2,h9g7,1-0\n8;h2e2,zz9\n");
/// assert_eq!(games.len(), 2);
/// let g = games[0].as_ref().unwrap();
/// assert_eq!(g.moves.len(), 2);
/// assert_eq!(g.tags.raw[0], ("GameId".to_string(), "7".to_string()));
/// let e = games[1].as_ref().unwrap_err();
/// assert_eq!((e.game, e.ply, e.token.as_deref()), (Some(1), Some(2), Some("zz9")));
/// assert!(e.reason().starts_with("line 3: "));
/// ```
pub fn read_dump(file: &str, text: &str) -> Vec<Result<Game, GameError>> {
    let variant = if text.chars().any(|c| ('\u{ac00}'..='\u{d7a3}').contains(&c)) {
        Variant::Janggi
    } else {
        Variant::Xiangqi
    };
    let mut out = Vec::new();
    let mut offset = 0usize;
    let mut first = true;
    for (n, raw) in text.split_inclusive('\n').enumerate() {
        let at = offset;
        offset += raw.len();
        if raw.trim().is_empty() {
            continue;
        }
        let line = cut_line(raw);
        let header = std::mem::take(&mut first);
        let source = Source {
            file: file.to_string(),
            index: out.len(),
        };
        let error = |kind: ErrorKind| GameError::new(&source, kind).at_offset(at);
        let bad = first_bad(&line.words);
        if header && bad == Some(0) && line.id.is_some() {
            continue; // `id;moves`
        }
        if line.words.is_empty() {
            out.push(Err(error(ErrorKind::Malformed(format!(
                "line {}: no moves",
                n + 1
            )))));
            continue;
        }
        if let Some(i) = bad {
            let word = line.words[i];
            out.push(Err(error(ErrorKind::Malformed(format!(
                "line {}: not a move",
                n + 1
            )))
            .at_ply(i + 1, word)));
            continue;
        }
        let mut words = line.words;
        let mut game = Game::new(variant, source);
        game.offset = u32::try_from(at).ok();
        if let Some(id) = line.id.filter(|id| !id.is_empty()) {
            game.tags.raw.push(("GameId".to_string(), id.to_string()));
        }
        if let Some(result) = words.last().copied().filter(|w| pgn::is_result(w)) {
            words.pop();
            tags::apply(&mut game.tags, "Result", result);
            game.tags
                .raw
                .push(("Result".to_string(), result.to_string()));
        }
        game.moves = words.into_iter().map(MoveNode::new).collect();
        out.push(Ok(game));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        let ids = |text: &str| -> Vec<Option<String>> {
            read_dump("t", text)
                .into_iter()
                .map(|g| {
                    let g = g.unwrap();
                    g.tags
                        .raw
                        .iter()
                        .find(|(n, _)| n == "GameId")
                        .map(|(_, v)| v.clone())
                })
                .collect()
        };
        assert_eq!(
            ids("a1;h2e2,h9g7\na2\th2e2 h9g7\na3,h2e2,h9g7\nh2e2,h9g7\n"),
            [
                Some("a1".into()),
                Some("a2".into()),
                Some("a3".into()),
                None
            ]
        );
        let g = read_dump("t", "x;1. h2e2 h9g7 2. h0g2\n");
        assert_eq!(g[0].as_ref().unwrap().moves.len(), 3);
    }

    #[test]
    fn not_dumps() {
        assert!(!looks_like_dump("a,b,c\n1,2,3\n"));
        assert!(!looks_like_dump("[Event \"x\"]\n1. h2e2 *\n"));
        assert!(!looks_like_dump("just one line without id h2e2 h9g7"));
        assert!(looks_like_dump("only;h2e2,h9g7"));
    }
}
