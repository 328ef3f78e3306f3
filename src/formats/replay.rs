//! Replaying a [`Game`]: resolve every move of the main line against the rules and report
//! exactly where it breaks.

use super::game::{Game, GameError};
use crate::{
    notation::parse_move,
    rules::{AnyPosition, GameEnd, JanggiRules, Move},
};

/// A game whose main line replays legally.
#[derive(Clone, Debug)]
pub struct Replay {
    /// The start position.
    pub start: AnyPosition,
    /// The main line.
    pub moves: Vec<Move>,
    /// How the game ended on the board, if it did (checkmate, stalemate, Janggi endings).
    pub end: Option<GameEnd>,
}

/// Replays the main line. Janggi games are replayed under [`JanggiRules::SERVER`], the rules
/// real records are played under.
///
/// # Errors
/// [`GameError`] naming the file, game, ply and token of the first move that cannot be read
/// or is not legal, or the bad start position.
pub fn replay(game: &Game) -> Result<Replay, GameError> {
    if let Some((_, scheme)) = game
        .tags
        .raw
        .iter()
        .find(|(n, v)| n == "기보형식" && v.trim() != "신좌표")
    {
        return Err(GameError::new(
            &game.source,
            format!("unsupported coordinate system ([기보형식 \"{scheme}\"]): the square numbering of these records is unknown"),
        ));
    }
    let start = match &game.start_fen {
        Some(fen) => AnyPosition::from_fen(game.variant, fen)
            .map_err(|e| GameError::new(&game.source, format!("bad start position: {e}")))?,
        None => AnyPosition::new(game.variant),
    }
    .with_janggi_rules(JanggiRules::SERVER);
    let mut pos = start.clone();
    let mut moves = Vec::with_capacity(game.moves.len());
    for (i, node) in game.moves.iter().enumerate() {
        let m = parse_move(&pos, &node.text).map_err(|e| GameError {
            ply: Some(i + 1),
            token: Some(node.text.clone()),
            ..GameError::new(&game.source, e.to_string())
        })?;
        pos.play_unchecked(m);
        moves.push(m);
    }
    let end = pos.end();
    Ok(Replay { start, moves, end })
}
