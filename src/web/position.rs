//! `GET /api/position`: a position after a line of moves, with everything the board needs —
//! pieces, side to move, check, game end and the legal moves in canonical text.

use std::collections::BTreeMap;

use serde::Serialize;

use super::query::{BadRequest, Params};
use crate::{
    explorer::{notations, parse_variant},
    notation::{parse_rules, Line, LineError},
    rules::{Color, EndReason, JanggiRules, Move, Variant},
};

/// Longest FEN accepted.
pub const MAX_FEN: usize = 256;

/// Reads the `variant` parameter (default `xiangqi`).
///
/// # Errors
/// [`BadRequest`] for an unknown variant.
pub fn variant(params: &Params) -> Result<Variant, BadRequest> {
    match params.get("variant") {
        None => Ok(Variant::Xiangqi),
        Some(v) => parse_variant(v).map_err(BadRequest),
    }
}

/// Reads the `fen` parameter, checking its length.
///
/// # Errors
/// [`BadRequest`] if it is longer than [`MAX_FEN`].
pub fn fen(params: &Params) -> Result<Option<&str>, BadRequest> {
    match params.get("fen") {
        Some(f) if f.len() > MAX_FEN => Err(BadRequest(format!(
            "`fen` is too long (at most {MAX_FEN} bytes)"
        ))),
        other => Ok(other),
    }
}

/// Builds a line from `variant`, `fen`, `moves` and (Janggi) `rules` (default
/// `default_rules`), playing every move (any notation) with [`Line::parse`].
///
/// # Errors
/// [`BadRequest`] naming the bad parameter, FEN, or the first move that cannot be played.
pub fn line_from_params(params: &Params, default_rules: JanggiRules) -> Result<Line, BadRequest> {
    let variant = variant(params)?;
    let fen = fen(params)?;
    let rules = params
        .parsed("rules", parse_rules)?
        .unwrap_or(default_rules);
    let texts = params.moves("moves")?;
    Line::parse(variant, fen, &texts, rules).map_err(|e| match e {
        LineError::Fen(e) => BadRequest(format!("bad `fen`: {e}")),
        other => BadRequest(other.to_string()),
    })
}

/// The JSON of `GET /api/position`.
#[derive(Clone, Debug, Serialize)]
pub struct PositionJson {
    /// `xiangqi` or `janggi`.
    pub variant: &'static str,
    /// FEN of the start position.
    pub start_fen: String,
    /// The moves played, canonical.
    pub moves: Vec<String>,
    /// The same moves in other notations (see [`crate::explorer::notations`]).
    pub moves_notation: Vec<BTreeMap<&'static str, String>>,
    /// FEN of the position reached.
    pub fen: String,
    /// qipu key, 16 hex digits.
    pub key: String,
    /// `first` (Red/Cho) or `second` (Black/Han).
    pub turn: &'static str,
    /// Whether the side to move is in check.
    pub check: bool,
    /// How the game ended, if it did.
    pub end: Option<EndJson>,
    /// Every piece: square and FEN letter.
    pub pieces: Vec<PieceJson>,
    /// Legal moves, canonical, in alphabetical order (none once the game is over).
    pub legal: Vec<String>,
    /// The same moves in other notations (see [`crate::explorer::notations`]).
    pub legal_notation: Vec<BTreeMap<&'static str, String>>,
}

/// A piece on the board.
#[derive(Clone, Debug, Serialize)]
pub struct PieceJson {
    /// `a0`..`i9`.
    pub square: String,
    /// FEN letter, upper case for the first player.
    pub piece: char,
}

/// The end of a game.
#[derive(Clone, Debug, Serialize)]
pub struct EndJson {
    /// `checkmate`, `stalemate`, `bikjang`, `double_pass`, `repetition` or `move_limit`.
    pub reason: &'static str,
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub result: &'static str,
}

fn color_name(c: Color) -> &'static str {
    match c {
        Color::First => "first",
        Color::Second => "second",
    }
}

fn reason_name(r: EndReason) -> &'static str {
    match r {
        EndReason::Checkmate => "checkmate",
        EndReason::Stalemate => "stalemate",
        EndReason::Bikjang => "bikjang",
        EndReason::DoublePass => "double_pass",
        EndReason::Repetition => "repetition",
        EndReason::MoveLimit => "move_limit",
    }
}

impl PositionJson {
    /// Describes the position a line reaches.
    pub fn new(line: &Line) -> PositionJson {
        let pos = &line.position;
        let end = pos.end();
        let mut legal: Vec<(String, Move)> = if end.is_some() {
            Vec::new()
        } else {
            pos.legal_moves()
                .iter()
                .map(|m| (m.to_string(), *m))
                .collect()
        };
        legal.sort();
        let mut before = line.start.clone();
        let mut moves_notation = Vec::with_capacity(line.moves.len());
        for m in &line.moves {
            moves_notation.push(notations(&before, *m));
            before.play_unchecked(*m);
        }
        PositionJson {
            variant: pos.variant().name(),
            start_fen: line.start.fen(),
            moves: line.moves.iter().map(Move::to_string).collect(),
            moves_notation,
            fen: pos.fen(),
            key: format!("{:016x}", pos.key()),
            turn: color_name(pos.turn()),
            check: pos.is_check(),
            end: end.map(|e| EndJson {
                reason: reason_name(e.reason),
                result: e.outcome.pgn(),
            }),
            pieces: pos
                .board()
                .pieces()
                .map(|(sq, p)| PieceJson {
                    square: sq.to_string(),
                    piece: p.char(),
                })
                .collect(),
            legal_notation: legal.iter().map(|(_, m)| notations(pos, *m)).collect(),
            legal: legal.into_iter().map(|(t, _)| t).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_played_from_the_parameters() {
        let p = |s: &str| Params::parse(s).unwrap();
        let line = line_from_params(&p("moves=h2e2,h9g7"), JanggiRules::TOURNAMENT).unwrap();
        let played: Vec<String> = line.moves.iter().map(Move::to_string).collect();
        assert_eq!(played, ["h2e2", "h9g7"]);
        assert_eq!(line.position.turn(), Color::First);
        assert!(line_from_params(&p("moves=h2h8"), JanggiRules::TOURNAMENT).is_err());
        let e = line_from_params(&p("rules=kakao"), JanggiRules::TOURNAMENT).unwrap_err();
        assert!(e.0.starts_with("`rules`"), "{e}");
    }
}
