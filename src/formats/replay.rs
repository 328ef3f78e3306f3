//! Replaying a [`Game`]: resolve every move of the main line against the rules and report
//! exactly where it breaks.

use super::error::{ErrorKind, GameError};
use super::game::Game;
use crate::{
    notation::MoveReader,
    rules::{AnyPosition, GameEnd, JanggiRules, Move, Variant},
};
use std::collections::HashMap;

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
/// or is not legal, or the bad start position, and for text records the game's byte offset.
pub fn replay(game: &Game) -> Result<Replay, GameError> {
    replay_moves(game).map_err(|e| GameError {
        offset: e.offset.or(game.offset),
        ..e
    })
}

/// As [`replay`], but a game with a move of its main line that cannot be read or is illegal
/// keeps the moves before it: the replay of that prefix, with the bad move's error (the
/// positions it reached and its result are still true). What `qipu import` keeps of such a
/// game unless `--strict`, and `qipu book` from game files likewise.
///
/// # Errors
/// As [`replay`] for any other error, and when the very first move is bad (no move is left
/// to keep).
///
/// ```
/// use qipu::formats::{replay_or_prefix, Game, MoveNode, Source};
/// use qipu::rules::Variant;
/// let mut game = Game::new(Variant::Xiangqi, Source::default());
/// game.moves = "h2e2 h9g7 h2h9 i9h9".split(' ').map(MoveNode::new).collect();
/// let (kept, cut) = replay_or_prefix(&game)?; // h2h9: no piece on h2 any more
/// assert_eq!((kept.moves.len(), cut.and_then(|e| e.ply)), (2, Some(3)));
/// # Ok::<_, qipu::formats::GameError>(())
/// ```
pub fn replay_or_prefix(game: &Game) -> Result<(Replay, Option<GameError>), GameError> {
    match replay(game) {
        Ok(r) => Ok((r, None)),
        Err(e) if matches!(e.kind, ErrorKind::BadMove(_)) && e.ply.is_some_and(|p| p > 1) => {
            let kept = e.ply.map_or(0, |p| p - 1);
            let mut prefix = game.clone();
            prefix.moves.truncate(kept);
            Ok((replay(&prefix)?, Some(e)))
        }
        Err(e) => Err(e),
    }
}

fn replay_moves(game: &Game) -> Result<Replay, GameError> {
    if let Some((_, scheme)) = game
        .tags
        .raw
        .iter()
        .find(|(n, v)| n == "기보형식" && v.trim() != "신좌표")
    {
        return Err(GameError::new(
            &game.source,
            ErrorKind::Unsupported(format!("unsupported coordinate system ([기보형식 \"{scheme}\"]): the square numbering of these records is unknown")),
        ));
    }
    let start = match &game.start_fen {
        Some(fen) => AnyPosition::from_fen(game.variant, fen).map_err(|e| GameError {
            token: Some(fen.clone()),
            ..GameError::new(&game.source, ErrorKind::BadStart(Box::new(e)))
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
        let m = reader.read(&pos, &node.text).map_err(|e| {
            GameError::new(&game.source, ErrorKind::BadMove(e)).at_ply(i + 1, &node.text)
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

impl Replay {
    /// Each distinct position of the main line within `max_ply` plies (0 = the whole game),
    /// with the move played there: see [`distinct_positions`].
    ///
    /// ```
    /// use qipu::formats::{replay, Game, MoveNode, Source};
    /// use qipu::rules::Variant;
    /// let mut game = Game::new(Variant::Xiangqi, Source::default());
    /// game.moves = vec![MoveNode::new("h2e2"), MoveNode::new("h9g7")];
    /// let r = replay(&game).unwrap();
    /// assert_eq!(r.positions(0).len(), 3);
    /// assert_eq!(r.positions(0)[2].1, None); // the game ended there
    /// assert_eq!(r.positions(1).len(), 1);
    /// ```
    pub fn positions(&self, max_ply: usize) -> Vec<(u64, Option<Move>)> {
        distinct_positions(&self.start, &self.moves, max_ply)
    }
}

/// `(key, move)` of each distinct position a line goes through within `max_ply` plies (0 =
/// the whole line), in order of first occurrence. The move is `None` for the final position
/// (listed only when the line is shorter than the limit). A position that occurs more than
/// once keeps the move played on its *last* occurrence (the loop is cut out), so every
/// position counts once per game.
pub fn distinct_positions(
    start: &AnyPosition,
    moves: &[Move],
    max_ply: usize,
) -> Vec<(u64, Option<Move>)> {
    let limit = if max_ply == 0 { usize::MAX } else { max_ply };
    let mut positions: Vec<(u64, Option<Move>)> = Vec::with_capacity(moves.len().min(limit) + 1);
    // Short games search the list; long ones switch to a map.
    let mut index: Option<HashMap<u64, usize>> = None;
    let mut note = |key: u64, mv: Option<Move>, positions: &mut Vec<(u64, Option<Move>)>| {
        let found = match &index {
            Some(map) => map.get(&key).copied(),
            None => positions.iter().position(|p| p.0 == key),
        };
        match found {
            Some(i) => positions[i].1 = mv,
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
                positions.push((key, mv));
            }
        }
    };
    let mut pos = start.clone();
    for &m in moves.iter().take(limit) {
        note(pos.key(), Some(m), &mut positions);
        pos.play_unchecked(m);
    }
    if moves.len() < limit {
        note(pos.key(), None, &mut positions);
    }
    positions
}

#[cfg(test)]
mod positions_tests {
    use super::*;
    use crate::formats::{MoveNode, Source};

    fn line(moves: &str) -> Replay {
        let mut g = Game::new(Variant::Xiangqi, Source::default());
        g.moves = moves.split_whitespace().map(MoveNode::new).collect();
        replay(&g).unwrap()
    }

    #[test]
    fn repeated_position_counts_once_with_its_last_move() {
        // Horses out and back: the start position occurs twice (plies 0 and 4).
        let p = line("b0c2 b9c7 c2b0 c7b9 h2e2").positions(0);
        let start = AnyPosition::new(Variant::Xiangqi).key();
        let at_start: Vec<_> = p.iter().filter(|p| p.0 == start).collect();
        assert_eq!(at_start.len(), 1);
        assert_eq!(at_start[0].1, Some("h2e2".parse::<Move>().unwrap()));
        // 6 positions visited, one of them (the start) twice: 5 distinct.
        assert_eq!(p.len(), 5);
    }

    #[test]
    fn long_games_switch_to_a_map_and_stay_correct() {
        let cycle = "b0c2 b9c7 c2b0 c7b9 ".repeat(30);
        let p = line(&cycle).positions(0);
        assert_eq!(p.len(), 4);
        assert_eq!(p.iter().filter(|p| p.1.is_none()).count(), 1);
    }
}
