//! `GET /api/position`: a position after a line of moves, with everything the board needs —
//! pieces, side to move, check, game end and the legal moves in canonical text.

use std::collections::BTreeMap;

use serde::Serialize;

use super::query::{BadRequest, Params};
use crate::{
    notation::{parse_move, render, Notation},
    rules::{AnyPosition, Color, EndReason, JanggiRules, Move, Variant},
};

/// Longest FEN accepted.
pub const MAX_FEN: usize = 256;

/// A start position and the moves played from it, read from `variant`, `fen`, `moves` and
/// (Janggi) `rules`.
#[derive(Clone, Debug)]
pub struct Line {
    /// The start position.
    pub start: AnyPosition,
    /// The position after the moves.
    pub position: AnyPosition,
    /// The moves, canonical.
    pub moves: Vec<Move>,
}

/// Reads the `variant` parameter (default `xiangqi`).
///
/// # Errors
/// [`BadRequest`] for an unknown variant.
pub fn variant(params: &Params) -> Result<Variant, BadRequest> {
    match params.get("variant") {
        None => Ok(Variant::Xiangqi),
        Some(v) => v.parse::<Variant>().map_err(BadRequest),
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

fn janggi_rules(params: &Params) -> Result<JanggiRules, BadRequest> {
    Ok(match params.get("rules") {
        None | Some("tournament") => JanggiRules::TOURNAMENT,
        Some("traditional") => JanggiRules::TRADITIONAL,
        Some("casual") => JanggiRules::CASUAL,
        Some("server") => JanggiRules::SERVER,
        Some(r) => {
            return Err(BadRequest(format!(
                "unknown rules `{r}` (expected tournament, traditional, casual or server)"
            )))
        }
    })
}

impl Line {
    /// Builds the line from the request parameters, playing every move (any notation).
    ///
    /// # Errors
    /// [`BadRequest`] naming the bad parameter, FEN, or the first move that cannot be played.
    ///
    /// ```
    /// use qipu::web::{position::Line, query::Params};
    /// let line = Line::from_params(&Params::parse("moves=h2e2,h9g7").unwrap()).unwrap();
    /// assert_eq!(line.moves.len(), 2);
    /// assert!(Line::from_params(&Params::parse("moves=h2h8").unwrap()).is_err());
    /// ```
    pub fn from_params(params: &Params) -> Result<Line, BadRequest> {
        let variant = variant(params)?;
        let start = match fen(params)? {
            Some(f) => AnyPosition::from_fen(variant, f)
                .map_err(|e| BadRequest(format!("bad `fen`: {e}")))?,
            None => AnyPosition::new(variant),
        };
        let start = start.with_janggi_rules(janggi_rules(params)?);
        let texts = params.moves("moves")?;
        let mut position = start.clone();
        let mut moves = Vec::with_capacity(texts.len());
        for (i, text) in texts.iter().enumerate() {
            if position.end().is_some() {
                return Err(BadRequest(format!(
                    "move {} `{text}`: the game is already over",
                    i + 1
                )));
            }
            let m = parse_move(&position, text)
                .map_err(|e| BadRequest(format!("move {}: {e}", i + 1)))?;
            position
                .play(m)
                .map_err(|e| BadRequest(format!("move {}: {e}", i + 1)))?;
            moves.push(m);
        }
        Ok(Line {
            start,
            position,
            moves,
        })
    }
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
    /// The same moves in other notations (see [`notations`]).
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
    /// The same moves in other notations (see [`notations`]).
    pub legal_notation: Vec<BTreeMap<&'static str, String>>,
}

/// A move in the notations of its game, keyed as in the explorer's JSON: `wxf` and `chinese`
/// for Xiangqi, `korean` for Janggi.
///
/// ```
/// use qipu::rules::{AnyPosition, Variant};
/// use qipu::web::position::notations;
/// let n = notations(&AnyPosition::new(Variant::Xiangqi), "h2e2".parse().unwrap());
/// assert_eq!(n["wxf"], "C2.5");
/// assert_eq!(n["chinese"], "炮二平五");
/// ```
pub fn notations(pos: &AnyPosition, m: Move) -> BTreeMap<&'static str, String> {
    let mut out = BTreeMap::new();
    match pos.variant() {
        Variant::Xiangqi => {
            out.insert("wxf", render(pos, m, Notation::Wxf));
            out.insert(
                "chinese",
                render(pos, m, Notation::Chinese { traditional: false }),
            );
        }
        Variant::Janggi => {
            out.insert("korean", render(pos, m, Notation::Korean { hanja: false }));
        }
    }
    out
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
