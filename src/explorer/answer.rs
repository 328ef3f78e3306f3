//! The explorer's typed answer. [`super::json`] turns it into the JSON contract.

use std::collections::BTreeMap;

use super::Opening;
use crate::{
    rules::{Color, Move, Outcome, Variant},
    store::{evals::StoredEval, GameCounts, MonthCounts, PlayerCounts, ENDINGS},
};

/// The answer for one position.
#[derive(Clone, Debug, PartialEq)]
pub struct Answer {
    /// The game.
    pub variant: Variant,
    /// FEN of the position.
    pub fen: String,
    /// qipu key of the position.
    pub key: u64,
    /// The side to move.
    pub turn: Color,
    /// The games through the position (that pass the filter).
    pub counts: GameCounts,
    /// Opening name: ECCO code and name (Xiangqi), or the formations (Janggi).
    pub opening: Option<Opening>,
    /// Moves played from the position, most played first.
    pub moves: Vec<MoveLine>,
    /// The best games through the position (or through `top_move`).
    pub top_games: Vec<TopGame>,
    /// The latest games through the position (or through `top_move`), latest first.
    pub recent_games: Vec<TopGame>,
    /// The moves not listed (fewer games played than the query's `min_games`, no novelty, or
    /// past its `limit`), folded into one row (`None` when none is).
    pub others: Option<Others>,
    /// The games that ended in the position, and how.
    pub ended: Ended,
    /// The games through the position per month, from the first month with games to the
    /// last, months without games included (as zeros).
    pub history: Vec<MonthCounts>,
    /// With a player filter: the player's results over the position's games.
    pub player: Option<PlayerCounts>,
    /// Why no game goes through the position, when none does.
    pub no_games: Option<NoGames>,
    /// How the filter was read where it is coarser than given ([`super::Filter::notes`]).
    pub notes: Vec<String>,
    /// The engine's choice in the position (`qipu analyse`), played in a game or not.
    pub engine_best: Option<EngineChoice>,
}

/// The engine's choice in the position: the best scored of the moves it searched there (each
/// played move alone, and its own choice), so that no move listed beats it; its own choice
/// (`engine_move`) when that scored best or nothing was scored.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineChoice {
    /// The move.
    pub mv: Move,
    /// The move the engine's search of all moves chose (the same as `mv` unless a move
    /// searched alone scored better).
    pub engine_move: Move,
    /// Whether a game that passes the filters played the move here (a move folded into
    /// "others" counts).
    pub played: bool,
    /// The move in other notations.
    pub notation: BTreeMap<&'static str, String>,
    /// Its score, when the engine scored it alone.
    pub eval: Option<StoredEval>,
    /// The depth of the search that chose it.
    pub depth: u32,
    /// The engine's name.
    pub engine: String,
}

/// One move from the position and the games that played it.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveLine {
    /// The move.
    pub mv: Move,
    /// The move in other notations: `wxf` and `chinese` (Xiangqi), `korean` (Janggi).
    pub notation: BTreeMap<&'static str, String>,
    /// The games that played it.
    pub counts: GameCounts,
    /// Latest date it was played (`YYYY`, `YYYY-MM` or `YYYY-MM-DD`).
    pub last_date: Option<String>,
    /// Earliest date it was played.
    pub first_date: Option<String>,
    /// A game that played it on `first_date` (of those, the smallest id).
    pub first_game: Option<TopGame>,
    /// Mean year of the games that played it (those with a date).
    pub avg_year: Option<f64>,
    /// The games (that pass the filter) through the position the move leads to, by any move
    /// order; `None` when that position is deeper than the database indexes.
    pub games_after: Option<u64>,
    /// With a player filter: the player's results in the games that played it.
    pub player: Option<PlayerCounts>,
    /// The engine's score of the move, when `qipu analyse` stored one.
    pub eval: Option<StoredEval>,
}

/// Moves folded into one row.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Others {
    /// How many moves.
    pub moves: usize,
    /// The moves, most played first.
    pub list: Vec<Move>,
    /// Their games together.
    pub counts: GameCounts,
}

/// The games that ended in a position.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ended {
    /// Their games by result.
    pub counts: GameCounts,
    /// Their games by how they ended, indexed by `Termination::code` (0 = unknown).
    pub how: [u64; ENDINGS],
}

/// A game in the top-games list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TopGame {
    /// Database id.
    pub id: i64,
    /// First player (Red/Cho).
    pub first: Option<String>,
    /// Second player (Black/Han).
    pub second: Option<String>,
    /// Result, `None` when unknown.
    pub result: Option<Outcome>,
    /// Date.
    pub date: Option<String>,
    /// Event.
    pub event: Option<String>,
}

/// Why an answer has no games.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoGames {
    /// The database holds no game of this variant.
    EmptyDatabase,
    /// Games go through the position, but the filters removed every one.
    Filtered,
    /// The position lies deeper than the plies the database indexes (`--max-ply`).
    BeyondMaxPly(usize),
    /// No stored game of the variant reaches the position, but the same start and moves
    /// read as the other variant do (a Janggi FEN explored as Xiangqi, or the reverse).
    OtherVariant(Variant),
    /// No stored game reaches the position.
    NotReached,
}

impl NoGames {
    /// The JSON code: `empty_database`, `filtered`, `beyond_max_ply`, `not_reached`.
    pub fn code(self) -> &'static str {
        match self {
            NoGames::EmptyDatabase => "empty_database",
            NoGames::Filtered => "filtered",
            NoGames::BeyondMaxPly(_) => "beyond_max_ply",
            NoGames::OtherVariant(_) => "other_variant",
            NoGames::NotReached => "not_reached",
        }
    }

    /// A sentence for the terminal.
    pub fn message(self) -> String {
        match self {
            NoGames::EmptyDatabase => "the database holds no game of this variant".to_string(),
            NoGames::Filtered => {
                "games go through this position, but the filters removed every one".to_string()
            }
            NoGames::BeyondMaxPly(n) => format!(
                "the position is deeper than the database indexes (imported with --max-ply {n})"
            ),
            NoGames::OtherVariant(v) => format!(
                "no game of this variant goes through this position, but {v} games do: \
                 ask for --variant {v}",
                v = v.name()
            ),
            NoGames::NotReached => "no game in the database goes through this position".to_string(),
        }
    }
}
