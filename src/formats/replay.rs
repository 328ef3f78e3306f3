//! Replaying a [`Game`]: resolve every move of the main line against the rules and report
//! exactly where it breaks.

use super::game::{Game, GameError};
use crate::{
    notation::MoveReader,
    rules::{AnyPosition, GameEnd, JanggiRules, Move, Variant},
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
    /// Janggi play that only the servers' rules allow, e.g. `ply 40: play went on after two
    /// passes in a row`: the moves were kept, and this says where stricter rules would have
    /// ended the game.
    pub notes: Vec<String>,
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
        Some(fen) => AnyPosition::from_fen(game.variant, fen).map_err(|e| GameError {
            token: Some(fen.clone()),
            ..GameError::new(&game.source, format!("bad start position: {e}"))
        })?,
        None => AnyPosition::new(game.variant),
    }
    .with_janggi_rules(JanggiRules::SERVER);
    let mut pos = start.clone();
    let mut moves = Vec::with_capacity(game.moves.len());
    let mut reader = match game.rank_base {
        Some(base) => MoveReader::with_rank_base(base),
        None => MoveReader::new(),
    };
    let mut notes = Vec::new();
    let (mut prev_bikjang, mut prev_pass) = (start.board().generals_face(), false);
    let (mut noted_bikjang, mut noted_pass) = (false, false);
    for (i, node) in game.moves.iter().enumerate() {
        let m = reader.read(&pos, &node.text).map_err(|e| GameError {
            ply: Some(i + 1),
            token: Some(node.text.clone()),
            ..GameError::new(&game.source, e.to_string())
        })?;
        pos.play_unchecked(m);
        moves.push(m);
        if game.variant == Variant::Janggi {
            // Strict rules (Fairy-Stockfish `janggi`): while the generals face each other only
            // a move that breaks the line or a pass is legal, and bikjang on two consecutive
            // plies or two passes in a row end the game.
            let bikjang = pos.board().generals_face();
            let more = i + 1 < game.moves.len();
            if prev_bikjang && bikjang && (more || !m.is_pass()) && !noted_bikjang {
                notes.push(format!(
                    "ply {}: play went on while the generals faced each other (bikjang)",
                    i + 1
                ));
                noted_bikjang = true;
            }
            if m.is_pass() && prev_pass && more && !noted_pass {
                notes.push(format!(
                    "ply {}: play went on after two passes in a row",
                    i + 1
                ));
                noted_pass = true;
            }
            prev_bikjang = bikjang;
            prev_pass = m.is_pass();
        }
    }
    let end = pos.end();
    Ok(Replay {
        start,
        moves,
        end,
        notes,
    })
}
