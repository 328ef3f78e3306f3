//! The worker's job on one game: replay it, hash it, list its distinct positions and its
//! opening label, so that the store is handed a finished [`GameRecord`]. No threads and no
//! SQL here.

use crate::{
    formats::{replay, replay_or_prefix, Game, GameError, Replay, Tags},
    store::{content_hash, copies::board_and_turn, GameRecord, PositionKey},
};

impl GameRecord {
    /// Replays a game and lists its positions up to `max_ply` plies (0 = the whole game).
    ///
    /// # Errors
    /// The [`GameError`] of [`replay`] (bad start position, unreadable or illegal move).
    ///
    /// ```
    /// use qipu::formats::{Game, MoveNode, Source};
    /// use qipu::rules::Variant;
    /// use qipu::store::GameRecord;
    /// let mut game = Game::new(Variant::Xiangqi, Source::default());
    /// game.moves = vec![MoveNode::new("h2e2"), MoveNode::new("h9g7")];
    /// let r = GameRecord::from_game(&game, 0).unwrap();
    /// assert_eq!(r.positions.len(), 3);
    /// assert_eq!(r.positions[2].1, None);
    /// assert_eq!(GameRecord::from_game(&game, 1).unwrap().positions.len(), 1);
    /// let long = {
    ///     game.moves = "h2e2 h9g7 h0g2 i9h9".split(' ').map(MoveNode::new).collect();
    ///     GameRecord::from_game(&game, 0).unwrap()
    /// };
    /// // Two more positions: each is held in the record and touched once by the writer.
    /// assert!(long.memory_bytes() - r.memory_bytes() >= 2 * (16 + 16));
    /// ```
    pub fn from_game(game: &Game, max_ply: usize) -> Result<GameRecord, GameError> {
        Ok(GameRecord::from_replay(game, replay(game)?, max_ply))
    }

    /// The record of a game and its replay (of the whole main line, or of a prefix).
    fn from_replay(game: &Game, rep: Replay, max_ply: usize) -> GameRecord {
        let positions = rep
            .positions(max_ply)
            .into_iter()
            .map(|(k, m)| (PositionKey(k), m))
            .collect();
        // A game without a FEN starts from the standard start: no FEN to write or compare.
        let standard = board_and_turn(game.variant.start_fen());
        let start_fen = game
            .start_fen
            .as_ref()
            .map(|_| rep.start.fen())
            .filter(|fen| board_and_turn(fen) != standard);
        let board_and_turn = start_fen.as_deref().map_or(standard, board_and_turn);
        let tags = &game.tags;
        let result = tags.result.or(rep.end.map(|e| e.outcome));
        let hash = content_hash(
            game.variant,
            board_and_turn,
            &rep.moves,
            tags.first.as_deref(),
            tags.second.as_deref(),
            tags.date.as_deref(),
            result,
        );
        GameRecord {
            variant: game.variant,
            hash,
            source: game.source.clone(),
            tags: Tags {
                raw: Vec::new(),
                ..tags.clone()
            },
            result,
            start_fen,
            moves: rep.moves,
            max_ply,
            positions,
            opening_label: tags.opening_label(game.variant),
            truncated: None,
        }
    }

    /// As [`GameRecord::from_game`], but a game with a move of its main line that cannot be
    /// read or is illegal keeps its moves before it ([`replay_or_prefix`]): the positions it
    /// reached and its result are still true. The record then carries that move's error in
    /// `truncated`.
    ///
    /// # Errors
    /// As [`GameRecord::from_game`] for any other error, and when the very first move is bad
    /// (no move is left to keep).
    ///
    /// ```
    /// use qipu::formats::{Game, MoveNode, Source};
    /// use qipu::rules::Variant;
    /// use qipu::store::GameRecord;
    /// let mut game = Game::new(Variant::Xiangqi, Source::default());
    /// game.moves = "h2e2 h9g7 h2h9 i9h9".split(' ').map(MoveNode::new).collect();
    /// assert!(GameRecord::from_game(&game, 0).is_err()); // h2h9: no piece on h2 any more
    /// let r = GameRecord::from_game_or_prefix(&game, 0).unwrap();
    /// assert_eq!((r.moves.len(), r.truncated_ply()), (2, Some(3)));
    /// ```
    pub fn from_game_or_prefix(game: &Game, max_ply: usize) -> Result<GameRecord, GameError> {
        let (rep, cut) = replay_or_prefix(game)?;
        let mut r = GameRecord::from_replay(game, rep, max_ply);
        r.truncated = cut.map(Box::new);
        Ok(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        formats::{MoveNode, Source},
        rules::Variant,
    };

    fn game(moves: &str) -> Game {
        let mut g = Game::new(Variant::Xiangqi, Source::default());
        g.moves = moves.split_whitespace().map(MoveNode::new).collect();
        g
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
}
