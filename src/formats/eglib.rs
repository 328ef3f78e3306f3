//! `.eglib` endgame libraries (XQMagic): one puzzle per line, `name|FEN[|m1,m2,…]`, moves in
//! lower-case ICCS coordinates (ranks 0–9).

use super::game::{Game, MoveNode, Source};
use crate::{notation::coord::RankBase, rules::Variant};

/// Whether a decoded text is an `.eglib` library: its first non-empty lines are
/// `name|FEN…` with a 10-row board.
///
/// ```
/// use qipu::formats::eglib::looks_like_eglib;
/// assert!(looks_like_eglib("兵的杀法|9/3k5/3aP4/9/9/9/9/9/9/4K4 w - - 0 1\n"));
/// assert!(!looks_like_eglib("[Event \"x\"]\n"));
/// ```
pub fn looks_like_eglib(text: &str) -> bool {
    let mut lines = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .take(3);
    let Some(first) = lines.next() else {
        return false;
    };
    std::iter::once(first).chain(lines).all(|l| {
        l.split('|')
            .nth(1)
            .is_some_and(|f| f.split('/').count() == 10)
    })
}

/// Reads every line of an `.eglib` library as a game: the name goes to `event`, the FEN to
/// the start position, the moves (if any) to the main line.
///
/// ```
/// use qipu::formats::eglib::read_eglib;
/// let g = read_eglib("a.eglib", "250三辰不轨|3ck4/4c4/4R4/9/9/9/9/9/9/3K5 w|d0d1,d9c9,e7d7\n");
/// assert_eq!(g[0].tags.event.as_deref(), Some("250三辰不轨"));
/// assert_eq!(g[0].start_fen.as_deref(), Some("3ck4/4c4/4R4/9/9/9/9/9/9/3K5 w"));
/// assert_eq!(g[0].moves.len(), 3);
/// assert_eq!(g[0].moves[2].text, "e7d7");
/// ```
pub fn read_eglib(file: &str, text: &str) -> Vec<Game> {
    let mut games = Vec::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let mut fields = line.split('|');
        let name = fields.next().unwrap_or_default().trim();
        let fen = fields.next().unwrap_or_default().trim();
        let moves = fields.next().unwrap_or_default();
        let mut game = Game::new(
            Variant::Xiangqi,
            Source {
                file: file.to_string(),
                index: games.len(),
            },
        );
        game.rank_base = Some(RankBase::Zero);
        if !fen.is_empty() {
            game.start_fen = Some(fen.to_string());
        }
        if !name.is_empty() {
            game.tags.event = Some(name.to_string());
            game.tags.raw.push(("Event".to_string(), name.to_string()));
        }
        game.moves = moves
            .split([',', ' '])
            .map(str::trim)
            .filter(|m| !m.is_empty())
            .map(MoveNode::new)
            .collect();
        games.push(game);
    }
    games
}
