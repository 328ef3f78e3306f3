//! Move notations: parse (syntax, then resolution against a position) and render.
//!
//! Every reader works in two phases, as shakmaty's SAN does: a syntax phase that needs no
//! position, then [`resolve`]-style resolution against a position's legal moves, with distinct
//! errors for bad syntax, no such legal move, and ambiguity.

pub mod coord;

use std::fmt;

/// Why a move text could not be turned into a legal move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotationError {
    /// The text is not a move in any notation understood here.
    Syntax(String),
    /// The text is well-formed but no legal move matches it.
    Illegal(String),
    /// The text matches more than one legal move.
    Ambiguous(String),
}

impl NotationError {
    /// The offending move text.
    pub fn text(&self) -> &str {
        match self {
            NotationError::Syntax(t) | NotationError::Illegal(t) | NotationError::Ambiguous(t) => t,
        }
    }
}

impl fmt::Display for NotationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotationError::Syntax(t) => write!(f, "cannot read move `{t}`"),
            NotationError::Illegal(t) => write!(f, "illegal move `{t}`"),
            NotationError::Ambiguous(t) => write!(f, "ambiguous move `{t}`"),
        }
    }
}

impl std::error::Error for NotationError {}

use crate::rules::{AnyPosition, Move};

/// Reads a move written in any supported notation and resolves it against the position.
///
/// # Errors
/// [`NotationError`] with the offending text.
///
/// ```
/// use qipu::notation::parse_move;
/// use qipu::rules::{AnyPosition, Variant};
/// let pos = AnyPosition::new(Variant::Xiangqi);
/// assert_eq!(parse_move(&pos, "h2e2").unwrap().to_string(), "h2e2");
/// ```
pub fn parse_move(pos: &AnyPosition, text: &str) -> Result<Move, NotationError> {
    coord::parse_coord(pos, text, None)
}
