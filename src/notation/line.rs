//! A line: a start position (the standard one or a FEN), the Janggi rule set, and the moves
//! played from it in any notation, each checked against the position it is played in.
//!
//! This is the one place where "start + moves → position" is written: the CLI, the web layer
//! and the explorer all build their positions with [`Line::parse`]. It owns the names of the
//! Janggi rule sets ([`parse_rules`], [`rules_name`]); it reads no files and knows nothing of
//! databases.
//!
//! ```
//! use qipu::notation::{Line, LineError};
//! use qipu::rules::{JanggiRules, Variant};
//! let line = Line::parse(Variant::Xiangqi, None, &["炮二平五", "h9g7"], JanggiRules::SERVER)?;
//! assert_eq!(line.moves.len(), 2);
//! assert_eq!(line.moves[0].to_string(), "h2e2");
//! let bad = Line::parse(Variant::Xiangqi, None, &["h2e2", "h2h8"], JanggiRules::SERVER);
//! assert!(matches!(bad, Err(LineError::Move { ply: 2, .. })));
//! # Ok::<_, LineError>(())
//! ```

use std::fmt;

use super::{parse_move, NotationError};
use crate::rules::{AnyPosition, JanggiRules, Move, PositionError, Variant};

/// A start position and the moves played from it.
#[derive(Clone, Debug)]
pub struct Line {
    /// The start position (with the rule set applied).
    pub start: AnyPosition,
    /// The position after the moves.
    pub position: AnyPosition,
    /// The moves, canonical.
    pub moves: Vec<Move>,
}

/// Why a line could not be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LineError {
    /// The FEN is not a position of the variant.
    Fen(PositionError),
    /// A move (1-based `ply`) cannot be read or played where it stands.
    Move {
        /// 1-based ply of the move in the line.
        ply: usize,
        /// The text given.
        text: String,
        /// What was wrong with it.
        source: NotationError,
    },
    /// A move (1-based `ply`) was given after the game had ended.
    GameOver {
        /// 1-based ply of the move in the line.
        ply: usize,
        /// The text given.
        text: String,
    },
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LineError::Fen(e) => write!(f, "bad FEN: {e}"),
            LineError::Move { ply, source, .. } => write!(f, "move {ply}: {source}"),
            LineError::GameOver { ply, text } => {
                write!(f, "move {ply} `{text}`: the game is already over")
            }
        }
    }
}

impl std::error::Error for LineError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            LineError::Move { source, .. } => Some(source),
            LineError::Fen(_) | LineError::GameOver { .. } => None,
        }
    }
}

impl Line {
    /// The standard start of a variant, no moves.
    pub fn start(variant: Variant, rules: JanggiRules) -> Line {
        let start = AnyPosition::new(variant).with_janggi_rules(rules);
        Line {
            position: start.clone(),
            start,
            moves: Vec::new(),
        }
    }

    /// Builds a line: the start (`fen`, or the variant's standard start) under `rules`, then
    /// every move text, each read in the position it is played in. A text may hold several
    /// moves separated by white space or commas (`"h2e2 h9g7"`, `"h2e2,h9g7"`). Empty FEN
    /// text means the standard start.
    ///
    /// # Errors
    /// [`LineError`] naming the bad FEN, or the first move that cannot be read, is not legal,
    /// or comes after the end of the game.
    pub fn parse<S: AsRef<str>>(
        variant: Variant,
        fen: Option<&str>,
        texts: &[S],
        rules: JanggiRules,
    ) -> Result<Line, LineError> {
        let start = match fen.map(str::trim).filter(|f| !f.is_empty()) {
            Some(f) => AnyPosition::from_fen(variant, f).map_err(LineError::Fen)?,
            None => AnyPosition::new(variant),
        }
        .with_janggi_rules(rules);
        let mut position = start.clone();
        let mut moves = Vec::new();
        for text in texts
            .iter()
            .flat_map(|t| t.as_ref().split(|c: char| c == ',' || c.is_whitespace()))
            .filter(|t| !t.is_empty())
        {
            let ply = moves.len() + 1;
            // A move is read among the legal moves, and an ended game has none; only then is
            // the end worked out (it costs a move generation), to say why.
            let m = match parse_move(&position, text) {
                Ok(m) => m,
                Err(_) if position.end().is_some() => {
                    return Err(LineError::GameOver {
                        ply,
                        text: text.to_string(),
                    })
                }
                Err(source) => {
                    return Err(LineError::Move {
                        ply,
                        text: text.to_string(),
                        source,
                    })
                }
            };
            position.play_unchecked(m);
            moves.push(m);
        }
        Ok(Line {
            start,
            position,
            moves,
        })
    }
}

/// The names of the Janggi rule sets, as the CLI and the API write them.
pub const RULE_NAMES: [&str; 4] = ["tournament", "traditional", "casual", "server"];

/// Reads a Janggi rule-set name (case-insensitive): `tournament`, `traditional`, `casual` or
/// `server`.
///
/// # Errors
/// A message listing the names, for any other text.
///
/// ```
/// use qipu::{notation::parse_rules, rules::JanggiRules};
/// assert_eq!(parse_rules("Server"), Ok(JanggiRules::SERVER));
/// assert!(parse_rules("kakao").is_err());
/// ```
pub fn parse_rules(text: &str) -> Result<JanggiRules, String> {
    match text.trim().to_ascii_lowercase().as_str() {
        "tournament" => Ok(JanggiRules::TOURNAMENT),
        "traditional" => Ok(JanggiRules::TRADITIONAL),
        "casual" => Ok(JanggiRules::CASUAL),
        "server" => Ok(JanggiRules::SERVER),
        other => Err(format!(
            "unknown rules `{other}` (expected {})",
            RULE_NAMES.join(", ")
        )),
    }
}

/// The name of a rule set (`None` for a combination without a name).
pub fn rules_name(rules: JanggiRules) -> Option<&'static str> {
    RULE_NAMES
        .into_iter()
        .find(|n| parse_rules(n).is_ok_and(|r| r == rules))
}
