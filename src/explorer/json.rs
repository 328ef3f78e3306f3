//! The JSON contract of `qipu explore --json` and `GET /api/explore` (ARCHITECTURE.md): plain
//! serde types built from an [`Answer`]. The field names are part of the contract; strings
//! exist only here.
//!
//! Percentages and scores rest on the decided games only: `decided` counts the games with a
//! known result, and `score` is `null` when none is decided.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{Answer, EngineChoice, MoveLine, Opening, TopGame};
use crate::{
    formats::facts::Score,
    rules::{Color, Outcome},
    store::{evals::StoredEval, GameCounts},
};

/// The answer for one position.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ExploreJson {
    /// `xiangqi` or `janggi`.
    pub variant: String,
    /// FEN of the position.
    pub fen: String,
    /// qipu key of the position, 16 lower-case hex digits.
    pub key: String,
    /// Games through the position.
    pub games: u64,
    /// Of those, how many have a known result.
    pub decided: u64,
    /// Won by the first player (Red/Cho).
    pub first_wins: u64,
    /// Drawn.
    pub draws: u64,
    /// Won by the second player (Black/Han).
    pub second_wins: u64,
    /// Opening name: ECCO code and name (Xiangqi), or the formations (Janggi).
    pub opening: Option<Opening>,
    /// Moves played from the position, most played first.
    pub moves: Vec<MoveJson>,
    /// The best games through the position.
    pub top_games: Vec<GameSummary>,
    /// When `games` is 0, why: `empty_database`, `filtered`, `beyond_max_ply`,
    /// `other_variant` (the FEN and moves reach games of the other variant) or `not_reached`;
    /// `null` otherwise.
    pub no_games: Option<String>,
    /// The engine's own choice in the position, when `qipu analyse` stored one (absent
    /// otherwise): `{move, notation, eval, depth, engine}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine_best: Option<EngineBestJson>,
}

/// Statistics of one move from the position.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MoveJson {
    /// Canonical coordinates (`h2e2`, `pass`).
    #[serde(rename = "move")]
    pub mv: String,
    /// The move in other notations: `wxf` and `chinese` (Xiangqi), `korean` (Janggi).
    pub notation: BTreeMap<String, String>,
    /// Games in which it was played here.
    pub games: u64,
    /// Of those, how many have a known result.
    pub decided: u64,
    /// Won by the first player.
    pub first_wins: u64,
    /// Drawn.
    pub draws: u64,
    /// Won by the second player.
    pub second_wins: u64,
    /// Score for the side to move over the decided games, 0.0–1.0 (win 1, draw ½); `null`
    /// when no game is decided.
    pub score: Option<f64>,
    /// Mean rating of the players where known.
    pub avg_rating: Option<f64>,
    /// Latest date it was played (`YYYY`, `YYYY-MM` or `YYYY-MM-DD`).
    pub last_date: Option<String>,
    /// The engine's score of the move (absent when none is stored).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eval: Option<EvalJson>,
}

/// An engine's score of a move, from the view of the side to move: centipawns or mate in N
/// (negative: the mover is mated), with the depth and the engine that searched it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EvalJson {
    /// Centipawns, `null` for a mate score.
    pub cp: Option<i32>,
    /// Mate in this many moves, `null` for a centipawn score.
    pub mate: Option<i32>,
    /// Search depth.
    pub depth: u32,
    /// The engine's name.
    pub engine: String,
}

impl From<&StoredEval> for EvalJson {
    fn from(e: &StoredEval) -> EvalJson {
        let (cp, mate) = match e.score {
            Score::Cp(cp) => (Some(cp), None),
            Score::Mate(m) => (None, Some(m)),
        };
        EvalJson {
            cp,
            mate,
            depth: e.depth,
            engine: e.engine.clone(),
        }
    }
}

/// The engine's own choice in the position: a novelty suggestion when no game played it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineBestJson {
    /// Canonical coordinates.
    #[serde(rename = "move")]
    pub mv: String,
    /// The move in other notations.
    pub notation: BTreeMap<String, String>,
    /// Its score, when stored.
    pub eval: Option<EvalJson>,
    /// The depth of the search that chose it.
    pub depth: u32,
    /// The engine's name.
    pub engine: String,
}

impl From<&EngineChoice> for EngineBestJson {
    fn from(c: &EngineChoice) -> EngineBestJson {
        EngineBestJson {
            mv: c.mv.to_string(),
            notation: c
                .notation
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
            eval: c.eval.as_ref().map(EvalJson::from),
            depth: c.depth,
            engine: c.engine.clone(),
        }
    }
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

/// Games with a known result.
pub fn decided(c: &GameCounts) -> u64 {
    c.first_wins + c.draws + c.second_wins
}

/// The score of `side` over the decided games, `None` when none is.
pub fn score(c: &GameCounts, side: Color) -> Option<f64> {
    (decided(c) > 0).then(|| c.score(side))
}

impl From<&Answer> for ExploreJson {
    fn from(a: &Answer) -> ExploreJson {
        ExploreJson {
            variant: a.variant.name().to_string(),
            fen: a.fen.clone(),
            key: format!("{:016x}", a.key),
            games: a.counts.games,
            decided: decided(&a.counts),
            first_wins: a.counts.first_wins,
            draws: a.counts.draws,
            second_wins: a.counts.second_wins,
            opening: a.opening.clone(),
            moves: a.moves.iter().map(|m| MoveJson::new(m, a.turn)).collect(),
            top_games: a.top_games.iter().map(GameSummary::from).collect(),
            no_games: a.no_games.map(|n| n.code().to_string()),
            engine_best: a.engine_best.as_ref().map(EngineBestJson::from),
        }
    }
}

impl MoveJson {
    fn new(m: &MoveLine, turn: Color) -> MoveJson {
        let c = &m.counts;
        MoveJson {
            mv: m.mv.to_string(),
            notation: m
                .notation
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
            games: c.games,
            decided: decided(c),
            first_wins: c.first_wins,
            draws: c.draws,
            second_wins: c.second_wins,
            score: score(c, turn),
            avg_rating: (c.rating_count > 0).then(|| c.rating_sum as f64 / c.rating_count as f64),
            last_date: m.last_date.clone(),
            eval: m.eval.as_ref().map(EvalJson::from),
        }
    }
}

impl From<&TopGame> for GameSummary {
    fn from(g: &TopGame) -> GameSummary {
        GameSummary {
            id: g.id,
            first: g.first.clone(),
            second: g.second.clone(),
            result: g.result.map_or("*", Outcome::pgn).to_string(),
            date: g.date.clone(),
            event: g.event.clone(),
        }
    }
}
