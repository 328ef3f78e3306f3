//! The explorer's query and answer types: the JSON contract of `qipu explore --json` and of
//! `GET /api/explore` (see ARCHITECTURE.md). Field names are part of the contract.

use serde::{Deserialize, Serialize};

/// What to look up, and which games count.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Query {
    /// `xiangqi` or `janggi`.
    pub variant: String,
    /// Start position (default: the standard start).
    pub fen: Option<String>,
    /// Moves from the start, any notation.
    pub moves: Vec<String>,
    /// Only games on or after this date (`YYYY`, `YYYY-MM` or `YYYY-MM-DD`).
    pub since: Option<String>,
    /// Only games on or before this date.
    pub until: Option<String>,
    /// Only games where both known ratings are at least this.
    pub min_rating: Option<u32>,
    /// Only games of this player (substring match on either side unless `side` is given).
    pub player: Option<String>,
    /// With `player`: `first` or `second`.
    pub side: Option<String>,
    /// Only games whose event contains this text.
    pub event: Option<String>,
    /// Merge the position with its left-right mirror.
    pub mirror: bool,
    /// At most this many moves (0 = all).
    pub limit: usize,
    /// At most this many top games.
    pub top_games: usize,
    /// Only games that played this move in the position (any notation) are listed in
    /// `top_games`: the best games through a move.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_move: Option<String>,
}

/// The answer for one position.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Explore {
    /// `xiangqi` or `janggi`.
    pub variant: String,
    /// FEN of the position.
    pub fen: String,
    /// qipu key of the position, 16 lower-case hex digits.
    pub key: String,
    /// Games through the position.
    pub games: u64,
    /// Of those, won by the first player (Red/Cho).
    pub first_wins: u64,
    /// Drawn.
    pub draws: u64,
    /// Won by the second player (Black/Han).
    pub second_wins: u64,
    /// Opening name: ECCO code and name (Xiangqi), or the formations (Janggi).
    pub opening: Option<Opening>,
    /// Moves played from the position, most played first.
    pub moves: Vec<MoveStats>,
    /// The best games through the position (best rated, then latest).
    pub top_games: Vec<GameSummary>,
}

/// An opening name.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Opening {
    /// ECCO code, e.g. `C48` (empty for Janggi).
    pub ecco: String,
    /// Name.
    pub name: String,
}

/// Statistics of one move from the position.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MoveStats {
    /// Canonical coordinates (`h2e2`, `pass`).
    #[serde(rename = "move")]
    pub mv: String,
    /// The move in other notations: `wxf` and `chinese` (Xiangqi), `korean` (Janggi).
    pub notation: std::collections::BTreeMap<String, String>,
    /// Games in which it was played here.
    pub games: u64,
    /// Of those, won by the first player.
    pub first_wins: u64,
    /// Drawn.
    pub draws: u64,
    /// Won by the second player.
    pub second_wins: u64,
    /// Score for the side to move, 0.0–1.0 (win 1, draw ½).
    pub score: f64,
    /// Mean rating of the players where known.
    pub avg_rating: Option<f64>,
    /// Latest date it was played (`YYYY`, `YYYY-MM` or `YYYY-MM-DD`).
    pub last_date: Option<String>,
}

/// A game in a list.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameSummary {
    /// Database id (for `GET /api/games/{id}`).
    pub id: i64,
    /// First player (Red/Cho).
    pub first: Option<String>,
    /// Second player (Black/Han).
    pub second: Option<String>,
    /// `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub result: String,
    /// Date.
    pub date: Option<String>,
    /// Event.
    pub event: Option<String>,
}
