//! `GET /api/probe`: the moves a served book holds for a position, with the book's facts
//! ([`BookFacts`]) and, per move, its weight and — where the format stores them (qipu's own
//! format, `.obk`) — the games, wins, draws and losses from the view of the side to move, with
//! its score. What a format does not store is `null`, never 0.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{
    position::line_from_params,
    query::{BadRequest, Params},
    reply::Reply,
    routes::ApiError,
    worker::Worker,
};
use crate::{
    book::{BookError, BookFacts, ProbeMove},
    explorer::{self, json},
    rules::{AnyPosition, Color, JanggiRules},
    store::GameCounts,
};

/// One book move.
#[derive(Serialize)]
struct ProbeMoveJson {
    #[serde(rename = "move")]
    mv: String,
    notation: BTreeMap<&'static str, String>,
    weight: i64,
    /// Games that played the move (`null`: not stored, BOOK.DAT and `.obk`).
    games: Option<u32>,
    /// Won by the side to move (`null`: not stored, BOOK.DAT).
    wins: Option<u32>,
    draws: Option<u32>,
    /// Lost by the side to move.
    losses: Option<u32>,
    /// The side to move's score over wins, draws and losses (`null` without any).
    score: Option<f64>,
    /// The score's 95% (Wilson) interval.
    score_low: Option<f64>,
    score_high: Option<f64>,
    /// Chosen by an engine (`qipu book extend`), not by games.
    engine: bool,
}

impl ProbeMoveJson {
    fn new(pos: &AnyPosition, m: &ProbeMove) -> ProbeMoveJson {
        // The mover's counts as the explorer's, the mover playing first: the same score rule.
        let counts = m.counts.map(|c| GameCounts {
            first_wins: c.wins.into(),
            draws: c.draws.into(),
            second_wins: c.losses.into(),
            ..GameCounts::default()
        });
        let score = counts.as_ref().and_then(|c| json::score(c, Color::First));
        let interval = counts
            .as_ref()
            .zip(score)
            .and_then(|(c, s)| json::wilson(s, json::decided(c)));
        ProbeMoveJson {
            mv: m.mv.to_string(),
            notation: explorer::notations(pos, m.mv),
            weight: m.weight,
            games: m.counts.and_then(|c| c.games),
            wins: m.counts.map(|c| c.wins),
            draws: m.counts.map(|c| c.draws),
            losses: m.counts.map(|c| c.losses),
            score,
            score_low: interval.map(|i| i.0),
            score_high: interval.map(|i| i.1),
            engine: m.engine,
        }
    }
}

#[derive(Serialize)]
struct ProbeJson<'a> {
    book: &'a str,
    #[serde(flatten)]
    facts: &'a BookFacts,
    fen: String,
    mirrored: bool,
    moves: Vec<ProbeMoveJson>,
}

/// Answers `/api/probe`.
///
/// # Errors
/// 400 for bad parameters, a book not served or a game the book does not hold; 503 without
/// books; 500 when the book cannot be read.
pub fn probe(worker: &mut Worker, params: &Params) -> Result<Reply, ApiError> {
    params.only(&["book", "variant", "fen", "moves", "rules"])?;
    let line = line_from_params(params, JanggiRules::TOURNAMENT)?;
    if worker.book_names().is_empty() {
        return Err(ApiError::Unavailable(
            "no books: start the server with `qipu serve --book FILE`".to_string(),
        ));
    }
    let (name, book, facts) = worker.book(params.get("book")).ok_or_else(|| {
        ApiError::BadRequest(BadRequest(format!(
            "`book` must name one of the served books: {}",
            worker.book_names().join(", ")
        )))
    })?;
    let pos = &line.position;
    let probed = book.probe(pos).map_err(|e| match e {
        BookError::Unsupported(m) => ApiError::BadRequest(BadRequest(m)),
        other => ApiError::Internal(other.into()),
    })?;
    Ok(Reply::json(&ProbeJson {
        book: name,
        facts,
        fen: pos.fen(),
        mirrored: probed.mirrored,
        moves: probed
            .moves
            .iter()
            .map(|m| ProbeMoveJson::new(pos, m))
            .collect(),
    }))
}
