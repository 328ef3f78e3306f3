//! The JSON contract of `qipu explore --json` and `GET /api/explore` (ARCHITECTURE.md): plain
//! serde types built from an [`Answer`]. The field names are part of the contract; strings
//! exist only here.
//!
//! Percentages and scores rest on the decided games only: `decided` counts the games with a
//! known result, and `score` is `null` when none is decided. `score_low`/`score_high` are
//! the Wilson 95% interval of the score over the decided games (a draw counting ½).
//! A player's performance is the mean rating of their rated opponents plus the rating
//! difference `dp` of their score in the FIDE table (FIDE Handbook B.02, Rating Regulations,
//! table 8.1.2, "conversion from fractional score p into rating differences dp"; the score
//! rounded to two decimals, 1.00 → +800 and 0.00 → −800).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{Answer, Ended, EngineChoice, MoveLine, Opening, Others, TopGame};
use crate::{
    formats::facts::{Score, Termination},
    rules::{Color, Outcome},
    store::{evals::StoredEval, GameCounts, MonthCounts, PlayerCounts},
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
    /// The latest games through the position, latest first (as many as `top_games` asks).
    #[serde(default)]
    pub recent_games: Vec<GameSummary>,
    /// The moves not listed (fewer games played than `min_games`, no novelty, or past
    /// `limit`), folded into one row (`null`
    /// when none is): `{moves, games, decided, first_wins, draws, second_wins, score}`.
    #[serde(default)]
    pub others: Option<OthersJson>,
    /// The games that ended in the position: `{games, decided, first_wins, draws,
    /// second_wins, how: {mate, stalemate, resignation, time, agreement, repetition, count,
    /// bikjang, other, unknown}}`.
    #[serde(default)]
    pub ended: EndedJson,
    /// W/D/L per month of the games through the position, from the first month to the last,
    /// empty months as zeros (games dated to a year only, or not at all, are in no month).
    #[serde(default)]
    pub history: Vec<MonthJson>,
    /// With `player`: the player's results over the position's games (absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub player: Option<PlayerJson>,
    /// When `games` is 0, why: `empty_database`, `filtered`, `beyond_max_ply`,
    /// `other_variant` (the FEN and moves reach games of the other variant) or `not_reached`;
    /// `null` otherwise.
    pub no_games: Option<String>,
    /// How the filters were read where they are coarser than given: a day counts as its
    /// month, a rating as its band of 200 (absent when every filter is taken as written).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
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
    /// Its games and their results.
    #[serde(flatten)]
    pub counts: CountsJson,
    /// Score for the side to move over the decided games, 0.0–1.0 (win 1, draw ½); `null`
    /// when no game is decided.
    pub score: Option<f64>,
    /// Lower end of the Wilson 95% interval of `score` (`null` when no game is decided).
    #[serde(default)]
    pub score_low: Option<f64>,
    /// Upper end of that interval.
    #[serde(default)]
    pub score_high: Option<f64>,
    /// Mean rating of the side playing the move, where known.
    pub avg_rating: Option<f64>,
    /// Mean rating of its opponent (the other side), where known.
    #[serde(default)]
    pub avg_opponent_rating: Option<f64>,
    /// Mean year of its games that have a date.
    #[serde(default)]
    pub avg_year: Option<f64>,
    /// Latest date it was played (`YYYY`, `YYYY-MM` or `YYYY-MM-DD`).
    pub last_date: Option<String>,
    /// Earliest date it was played.
    #[serde(default)]
    pub first_date: Option<String>,
    /// A game that played it on `first_date` (the smallest id of those).
    #[serde(default)]
    pub first_game: Option<GameSummary>,
    /// Games (that pass the filters) through the position the move leads to, by any move
    /// order; `null` when that position lies beyond the plies the database indexes.
    #[serde(default)]
    pub games_after: Option<u64>,
    /// Whether that position is mostly reached another way: `games_after` is more than
    /// twice `games`.
    #[serde(default)]
    pub transposed: bool,
    /// With `player`: the player's results in the games that played it (absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub player: Option<PlayerJson>,
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
    /// Whether a game (that passes the filters) played it here, folded moves included.
    #[serde(default)]
    pub played: bool,
    /// The move the engine's search of all moves chose; `move` differs when a move searched
    /// alone scored better (the choice is the best scored move).
    #[serde(default)]
    pub engine_move: String,
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
            played: c.played,
            engine_move: c.engine_move.to_string(),
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

/// Games and their results, as a move, the folded moves and the ended games write them:
/// `games, decided, first_wins, draws, second_wins`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CountsJson {
    /// Games.
    pub games: u64,
    /// Of those, how many have a known result.
    pub decided: u64,
    /// Won by the first player.
    pub first_wins: u64,
    /// Drawn.
    pub draws: u64,
    /// Won by the second player.
    pub second_wins: u64,
}

impl From<&GameCounts> for CountsJson {
    fn from(c: &GameCounts) -> CountsJson {
        CountsJson {
            games: c.games,
            decided: decided(c),
            first_wins: c.first_wins,
            draws: c.draws,
            second_wins: c.second_wins,
        }
    }
}

/// Moves folded into one row.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct OthersJson {
    /// How many moves.
    pub moves: usize,
    /// Their games and results.
    #[serde(flatten)]
    pub counts: CountsJson,
    /// Score for the side to move over the decided games.
    pub score: Option<f64>,
}

/// The games that ended in the position.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EndedJson {
    /// Its games and their results.
    #[serde(flatten)]
    pub counts: CountsJson,
    /// Games by how they ended: every `Termination` name, and `unknown`.
    pub how: BTreeMap<String, u64>,
}

/// One month of a position's history.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MonthJson {
    /// `YYYY-MM`.
    pub month: String,
    /// Games.
    pub games: u64,
    /// Won by the first player.
    pub first_wins: u64,
    /// Drawn.
    pub draws: u64,
    /// Won by the second player.
    pub second_wins: u64,
}

/// A player's results in some games.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PlayerJson {
    /// Games.
    pub games: u64,
    /// Won by the player.
    pub wins: u64,
    /// Drawn.
    pub draws: u64,
    /// Lost.
    pub losses: u64,
    /// The player's score over the decided games (`null` when none is).
    pub score: Option<f64>,
    /// Mean rating of their rated opponents.
    pub avg_opponent_rating: Option<f64>,
    /// Performance rating: `avg_opponent_rating` + dp(score) of the FIDE table (see the
    /// module doc); `null` without a decided game or a rated opponent.
    pub performance: Option<i64>,
}

/// dp of the FIDE table 8.1.2 (FIDE Handbook B.02) for p = 0.50, 0.51, …, 1.00.
const FIDE_DP: [i64; 51] = [
    0, 7, 14, 21, 29, 36, 43, 50, 57, 65, 72, 80, 87, 95, 102, 110, 117, 125, 133, 141, 149, 158,
    166, 175, 184, 193, 202, 211, 220, 230, 240, 251, 262, 273, 284, 296, 309, 322, 336, 351, 366,
    383, 401, 422, 444, 470, 501, 538, 589, 677, 800,
];

/// The FIDE rating difference of a score `p` (0–1, rounded to two decimals).
///
/// ```
/// use qipu::explorer::json::fide_dp;
/// assert_eq!((fide_dp(0.5), fide_dp(0.75), fide_dp(0.25), fide_dp(1.0)), (0, 193, -193, 800));
/// assert_eq!(fide_dp(0.834), 273);
/// ```
pub fn fide_dp(p: f64) -> i64 {
    let hundredths = (p.clamp(0.0, 1.0) * 100.0).round() as i64;
    let i = (hundredths - 50).unsigned_abs() as usize;
    let dp = FIDE_DP[i.min(50)];
    if hundredths < 50 {
        -dp
    } else {
        dp
    }
}

/// The Wilson 95% interval of a proportion `p` over `n` trials, `None` for no trial.
///
/// ```
/// use qipu::explorer::json::wilson;
/// let (lo, hi) = wilson(0.5, 100).unwrap();
/// assert!((lo - 0.4038).abs() < 1e-4 && (hi - 0.5962).abs() < 1e-4);
/// assert_eq!(wilson(0.5, 0), None);
/// ```
pub fn wilson(p: f64, n: u64) -> Option<(f64, f64)> {
    if n == 0 {
        return None;
    }
    const Z: f64 = 1.959_963_984_540_054;
    let n = n as f64;
    let z2 = Z * Z;
    let centre = p + z2 / (2.0 * n);
    let half = Z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    let d = 1.0 + z2 / n;
    Some((
        ((centre - half) / d).max(0.0),
        ((centre + half) / d).min(1.0),
    ))
}

impl From<&PlayerCounts> for PlayerJson {
    fn from(p: &PlayerCounts) -> PlayerJson {
        let decided = p.wins + p.draws + p.losses;
        let score = (decided > 0).then(|| (p.wins as f64 + p.draws as f64 / 2.0) / decided as f64);
        let avg_opponent_rating = (p.opponent_rating_count > 0)
            .then(|| p.opponent_rating_sum as f64 / p.opponent_rating_count as f64);
        PlayerJson {
            games: p.games,
            wins: p.wins,
            draws: p.draws,
            losses: p.losses,
            score,
            avg_opponent_rating,
            performance: score
                .zip(avg_opponent_rating)
                .map(|(s, r)| r.round() as i64 + fide_dp(s)),
        }
    }
}

impl OthersJson {
    fn new(o: &Others, turn: Color) -> OthersJson {
        let c = &o.counts;
        OthersJson {
            moves: o.moves,
            counts: CountsJson::from(c),
            score: score(c, turn),
        }
    }
}

impl From<&Ended> for EndedJson {
    fn from(e: &Ended) -> EndedJson {
        let mut how: BTreeMap<String, u64> = Termination::ALL
            .iter()
            .map(|t| (t.name().to_string(), e.how[usize::from(t.code())]))
            .collect();
        how.insert("unknown".to_string(), e.how[0]);
        EndedJson {
            counts: CountsJson::from(&e.counts),
            how,
        }
    }
}

impl From<&MonthCounts> for MonthJson {
    fn from(m: &MonthCounts) -> MonthJson {
        MonthJson {
            month: format!("{:04}-{:02}", m.year, m.month),
            games: m.games,
            first_wins: m.first_wins,
            draws: m.draws,
            second_wins: m.second_wins,
        }
    }
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
            recent_games: a.recent_games.iter().map(GameSummary::from).collect(),
            others: a.others.as_ref().map(|o| OthersJson::new(o, a.turn)),
            ended: EndedJson::from(&a.ended),
            history: a.history.iter().map(MonthJson::from).collect(),
            player: a.player.as_ref().map(PlayerJson::from),
            no_games: a.no_games.map(|n| n.code().to_string()),
            notes: a.notes.clone(),
            engine_best: a.engine_best.as_ref().map(EngineBestJson::from),
        }
    }
}

impl MoveJson {
    fn new(m: &MoveLine, turn: Color) -> MoveJson {
        let c = &m.counts;
        let score = score(c, turn);
        let interval = score.and_then(|s| wilson(s, decided(c)));
        MoveJson {
            mv: m.mv.to_string(),
            notation: m
                .notation
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
            counts: CountsJson::from(c),
            score,
            score_low: interval.map(|i| i.0),
            score_high: interval.map(|i| i.1),
            avg_rating: c.mean_rating(turn),
            avg_opponent_rating: c.mean_rating(turn.other()),
            avg_year: m.avg_year,
            last_date: m.last_date.clone(),
            first_date: m.first_date.clone(),
            first_game: m.first_game.as_ref().map(GameSummary::from),
            games_after: m.games_after,
            transposed: m.games_after.is_some_and(|n| n > 2 * m.counts.games),
            player: m.player.as_ref().map(PlayerJson::from),
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
