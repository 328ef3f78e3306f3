//! [`GameRecord`]: a replayed game ready to store, with the positions it counts.

use super::{
    codec::{content_hash, END_OF_GAME},
    position::Facts,
};
use crate::{
    formats::{replay, Game, GameError, Source, Tags},
    rules::{AnyPosition, Move, Outcome, Variant},
};
use std::collections::HashMap;

/// A game replayed and reduced to what the store keeps: its identity hash, header, moves,
/// and each distinct position it went through (up to the depth limit) with the move played
/// there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    /// Variant.
    pub variant: Variant,
    /// Content hash (see [`content_hash`]).
    pub hash: u64,
    /// Where it was read.
    pub source: Source,
    /// Header (the `raw` list is not stored).
    pub tags: Tags,
    /// Result: the header's, else the end the board shows (mate, stalemate, Janggi endings).
    pub result: Option<Outcome>,
    /// Start FEN when it is not the variant's standard start.
    pub start_fen: Option<String>,
    /// The main line.
    pub moves: Vec<Move>,
    /// `(key, move code)` for each distinct position, in order of first occurrence.
    /// The move code is [`END_OF_GAME`] for the final position. A position that occurs
    /// more than once keeps the move played on its *last* occurrence (the loop is cut out),
    /// so every position counts once per game.
    pub positions: Vec<(u64, u16)>,
    /// ECCO code (Xiangqi) or `first/second` formations (Janggi), for the opening name.
    pub opening_label: Option<String>,
}

impl GameRecord {
    /// Replays a game and lists its positions up to `max_ply` plies (0 = the whole game).
    ///
    /// # Errors
    /// The [`GameError`] of [`replay`] (bad start position, unreadable or illegal move).
    ///
    /// ```
    /// use qipu::formats::{Game, MoveNode, Source};
    /// use qipu::rules::Variant;
    /// use qipu::store::{GameRecord, END_OF_GAME};
    /// let mut game = Game::new(Variant::Xiangqi, Source::default());
    /// game.moves = vec![MoveNode::new("h2e2"), MoveNode::new("h9g7")];
    /// let r = GameRecord::from_game(&game, 0).unwrap();
    /// assert_eq!(r.positions.len(), 3);
    /// assert_eq!(r.positions[2].1, END_OF_GAME);
    /// assert_eq!(GameRecord::from_game(&game, 1).unwrap().positions.len(), 1);
    /// ```
    pub fn from_game(game: &Game, max_ply: usize) -> Result<GameRecord, GameError> {
        let rep = replay(game)?;
        let positions = distinct_positions(&rep.start, &rep.moves, max_ply);
        // A game without a FEN starts from the standard start: no FEN to write or compare.
        let standard = board_and_turn(game.variant.start_fen());
        let start_fen = game
            .start_fen
            .as_ref()
            .map(|_| rep.start.fen())
            .filter(|fen| board_and_turn(fen) != standard);
        let board_and_turn = start_fen.as_deref().map_or(standard, board_and_turn);
        let tags = &game.tags;
        let hash = content_hash(
            game.variant,
            board_and_turn,
            &rep.moves,
            tags.first.as_deref(),
            tags.second.as_deref(),
            tags.date.as_deref(),
        );
        let opening_label = opening_label(game.variant, tags);
        Ok(GameRecord {
            variant: game.variant,
            hash,
            source: game.source.clone(),
            tags: Tags {
                raw: Vec::new(),
                ..tags.clone()
            },
            result: tags.result.or(rep.end.map(|e| e.outcome)),
            start_fen,
            moves: rep.moves,
            positions,
            opening_label,
        })
    }
}

impl crate::formats::Placed for GameRecord {
    fn source_mut(&mut self) -> &mut Source {
        &mut self.source
    }
}

impl GameRecord {
    /// About how much memory the record holds, for the import's batch budget.
    ///
    /// ```
    /// use qipu::formats::{Game, MoveNode, Source};
    /// use qipu::rules::Variant;
    /// use qipu::store::GameRecord;
    /// let mut game = Game::new(Variant::Xiangqi, Source::default());
    /// game.moves = vec![MoveNode::new("h2e2"); 1];
    /// let short = GameRecord::from_game(&game, 0).unwrap();
    /// game.moves = "h2e2 h9g7 h0g2 i9h9".split(' ').map(MoveNode::new).collect();
    /// let long = GameRecord::from_game(&game, 0).unwrap();
    /// assert!(long.heap_bytes() > short.heap_bytes());
    /// ```
    pub fn heap_bytes(&self) -> usize {
        let t = &self.tags;
        let text: usize = [
            &t.event,
            &t.site,
            &t.round,
            &t.date,
            &t.first,
            &t.second,
            &t.ecco,
            &t.opening,
            &t.variation,
            &t.first_formation,
            &t.second_formation,
            &self.start_fen,
            &self.opening_label,
        ]
        .iter()
        .map(|s| s.as_ref().map_or(0, String::len))
        .sum();
        std::mem::size_of::<GameRecord>()
            + text
            + self.source.file.len()
            + self.moves.capacity() * std::mem::size_of::<Move>()
            + self.positions.capacity() * std::mem::size_of::<(u64, u16)>()
    }

    /// What the position statistics need of this game.
    pub(super) fn facts(&self) -> Facts<'_> {
        Facts::of(self.result, &self.tags, self.opening_label.as_deref())
    }
}

/// The board and side-to-move fields of a FEN (as qipu writes it: one space between fields).
fn board_and_turn(fen: &str) -> &str {
    let end = fen.match_indices(' ').nth(1).map_or(fen.len(), |(i, _)| i);
    &fen[..end]
}

/// `(key, move code)` of each distinct position a game goes through within `max_ply`
/// plies (0 = the whole game), in order of first occurrence; see [`GameRecord::positions`].
pub(super) fn distinct_positions(
    start: &AnyPosition,
    moves: &[Move],
    max_ply: usize,
) -> Vec<(u64, u16)> {
    let limit = if max_ply == 0 { usize::MAX } else { max_ply };
    let mut positions: Vec<(u64, u16)> = Vec::with_capacity(moves.len().min(limit) + 1);
    // Short games search the list; long ones switch to a map.
    let mut index: Option<HashMap<u64, usize>> = None;
    let mut note = |key: u64, code: u16, positions: &mut Vec<(u64, u16)>| {
        let found = match &index {
            Some(map) => map.get(&key).copied(),
            None => positions.iter().position(|p| p.0 == key),
        };
        match found {
            Some(i) => positions[i].1 = code,
            None => {
                if let Some(map) = &mut index {
                    map.insert(key, positions.len());
                } else if positions.len() >= 64 {
                    let mut map: HashMap<u64, usize> = positions
                        .iter()
                        .enumerate()
                        .map(|(i, p)| (p.0, i))
                        .collect();
                    map.insert(key, positions.len());
                    index = Some(map);
                }
                positions.push((key, code));
            }
        }
    };
    let mut pos = start.clone();
    for &m in moves.iter().take(limit) {
        note(pos.key(), m.to_u16(), &mut positions);
        pos.play_unchecked(m);
    }
    if moves.len() < limit {
        note(pos.key(), END_OF_GAME, &mut positions);
    }
    positions
}

/// A game's opening label from its header: its ECCO code (Xiangqi) or `first/second`
/// formations (Janggi).
pub(super) fn opening_label(variant: Variant, tags: &Tags) -> Option<String> {
    label_of(
        variant,
        tags.ecco.as_deref(),
        tags.first_formation.as_deref(),
        tags.second_formation.as_deref(),
    )
}

/// The opening label of a game with this ECCO code and these formations.
pub(super) fn label_of(
    variant: Variant,
    ecco: Option<&str>,
    first_formation: Option<&str>,
    second_formation: Option<&str>,
) -> Option<String> {
    match variant {
        Variant::Xiangqi => ecco.and_then(normal_ecco),
        Variant::Janggi => formation_label(first_formation, second_formation),
    }
}

/// `first/second` formations, `?` for an unknown one; `None` if both are unknown.
pub(super) fn formation_label(first: Option<&str>, second: Option<&str>) -> Option<String> {
    fn clean(f: Option<&str>) -> Option<&str> {
        f.map(str::trim).filter(|f| !f.is_empty())
    }
    match (clean(first), clean(second)) {
        (None, None) => None,
        (a, b) => Some(format!("{}/{}", a.unwrap_or("?"), b.unwrap_or("?"))),
    }
}

/// `c48` → `C48`; anything that is not a letter A–E and two digits → `None`.
pub(super) fn normal_ecco(code: &str) -> Option<String> {
    let c = code.trim().to_ascii_uppercase();
    let b = c.as_bytes();
    (b.len() == 3
        && (b'A'..=b'E').contains(&b[0])
        && b[1].is_ascii_digit()
        && b[2].is_ascii_digit())
    .then_some(c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::MoveNode;

    fn game(moves: &str) -> Game {
        let mut g = Game::new(Variant::Xiangqi, Source::default());
        g.moves = moves.split_whitespace().map(MoveNode::new).collect();
        g
    }

    #[test]
    fn repeated_position_counts_once_with_its_last_move() {
        // Horses out and back: the start position occurs twice (plies 0 and 4).
        let r = GameRecord::from_game(&game("b0c2 b9c7 c2b0 c7b9 h2e2"), 0).unwrap();
        let start = crate::rules::AnyPosition::new(Variant::Xiangqi).key();
        let at_start: Vec<_> = r.positions.iter().filter(|p| p.0 == start).collect();
        assert_eq!(at_start.len(), 1);
        assert_eq!(at_start[0].1, "h2e2".parse::<Move>().unwrap().to_u16());
        // 6 positions visited, one of them (the start) twice: 5 distinct.
        assert_eq!(r.positions.len(), 5);
    }

    #[test]
    fn long_games_switch_to_a_map_and_stay_correct() {
        let cycle = "b0c2 b9c7 c2b0 c7b9 ".repeat(30);
        let r = GameRecord::from_game(&game(&cycle), 0).unwrap();
        assert_eq!(r.positions.len(), 4);
        let end = r.positions.iter().filter(|p| p.1 == END_OF_GAME).count();
        assert_eq!(end, 1);
    }

    #[test]
    fn a_standard_fen_tag_changes_nothing_and_another_start_is_kept() {
        let plain = GameRecord::from_game(&game("h2e2 h9g7"), 0).unwrap();
        let mut tagged = game("h2e2 h9g7");
        tagged.start_fen = Some(Variant::Xiangqi.start_fen().to_string());
        let tagged = GameRecord::from_game(&tagged, 0).unwrap();
        assert_eq!((tagged.hash, &tagged.start_fen), (plain.hash, &None));
        let fen = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 0 1";
        let mut black_first = game("h9g7");
        black_first.start_fen = Some(fen.to_string());
        let black_first = GameRecord::from_game(&black_first, 0).unwrap();
        assert_eq!(black_first.start_fen.as_deref(), Some(fen));
        assert_ne!(black_first.hash, plain.hash);
        assert_eq!(board_and_turn(fen), &fen[..fen.len() - 8]);
    }

    #[test]
    fn ecco_codes_are_normalised() {
        assert_eq!(normal_ecco(" c48"), Some("C48".into()));
        assert_eq!(normal_ecco("F00"), None);
        assert_eq!(normal_ecco("C4"), None);
    }
}
