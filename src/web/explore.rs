//! `GET /api/explore`: the request parameters → [`crate::explorer::Query`].

use super::{
    position::Line,
    query::{BadRequest, Params},
};
use crate::{explorer::Query, notation::parse_move};

/// The parameters `/api/explore` accepts.
pub const PARAMS: &[&str] = &[
    "variant",
    "fen",
    "moves",
    "since",
    "until",
    "min_rating",
    "player",
    "side",
    "event",
    "mirror",
    "limit",
    "top_games",
    "top_move",
];

/// Most moves a client may ask for (`limit`; 0 = all).
pub const MAX_LIMIT: u64 = 500;
/// Most top games a client may ask for.
pub const MAX_TOP_GAMES: u64 = 100;
/// Top games when `top_games` is not given.
pub const DEFAULT_TOP_GAMES: usize = 10;
/// Longest `player` or `event` text.
pub const MAX_NAME: usize = 100;

/// Reads and checks the query of `/api/explore`. The moves are replayed here, so a bad FEN or
/// move is a 400 naming it, and the explorer receives them in canonical form.
///
/// # Errors
/// [`BadRequest`] naming the bad parameter.
///
/// ```
/// use qipu::web::{explore::query, query::Params};
/// let q = query(&Params::parse("moves=H2-E2&min_rating=2400&limit=5").unwrap()).unwrap();
/// assert_eq!(q.moves, vec!["h2e2"]);
/// assert_eq!(q.min_rating, Some(2400));
/// assert!(query(&Params::parse("since=2007-13").unwrap()).is_err());
/// ```
pub fn query(params: &Params) -> Result<Query, BadRequest> {
    params.only(PARAMS)?;
    let line = Line::from_params(params)?;
    let text = |key: &str| -> Result<Option<String>, BadRequest> {
        match params.get(key) {
            Some(v) if v.chars().count() > MAX_NAME => Err(BadRequest(format!(
                "`{key}` is too long (at most {MAX_NAME} characters)"
            ))),
            v => Ok(v.map(str::to_string)),
        }
    };
    let player = text("player")?;
    let side = match params.get("side") {
        None => None,
        Some(s @ ("first" | "second")) if player.is_some() => Some(s.to_string()),
        Some("first" | "second") => {
            return Err(BadRequest("`side` needs `player`".to_string()));
        }
        Some(s) => {
            return Err(BadRequest(format!(
                "`side` must be first or second, not `{s}`"
            )))
        }
    };
    let since = params.date("since")?;
    let until = params.date("until")?;
    if let (Some(a), Some(b)) = (&since, &until) {
        if a > b {
            return Err(BadRequest(format!("`since` {a} is after `until` {b}")));
        }
    }
    let min_rating = params.uint("min_rating", 10_000)?.map(|r| r as u32);
    Ok(Query {
        variant: line.position.variant().name().to_string(),
        fen: params.get("fen").map(|_| line.start.fen()),
        moves: line.moves.iter().map(|m| m.to_string()).collect(),
        since,
        until,
        min_rating,
        player,
        side,
        event: text("event")?,
        mirror: params.flag("mirror")?,
        limit: params.uint("limit", MAX_LIMIT)?.unwrap_or(0) as usize,
        top_games: params
            .uint("top_games", MAX_TOP_GAMES)?
            .map_or(DEFAULT_TOP_GAMES, |n| n as usize),
        top_move: match params.get("top_move") {
            None => None,
            Some(text) => Some(
                parse_move(&line.position, text)
                    .map_err(|e| BadRequest(format!("`top_move` `{text}`: {e}")))?
                    .to_string(),
            ),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(s: &str) -> Result<Query, BadRequest> {
        query(&Params::parse(s).unwrap())
    }

    #[test]
    fn reads_every_parameter() {
        let got = q(
            "variant=xiangqi&moves=h2e2,h9g7&since=2000&until=2007-06&min_rating=2300\
                     &player=%E5%91%82%E6%AC%BD&side=first&event=Cup&mirror=1&limit=12&top_games=3\
                     &top_move=%E9%A9%AC%E4%BA%8C%E8%BF%9B%E4%B8%89",
        )
        .unwrap();
        assert_eq!(
            got,
            Query {
                variant: "xiangqi".into(),
                fen: None,
                moves: vec!["h2e2".into(), "h9g7".into()],
                since: Some("2000".into()),
                until: Some("2007-06".into()),
                min_rating: Some(2300),
                player: Some("呂欽".into()),
                side: Some("first".into()),
                event: Some("Cup".into()),
                mirror: true,
                limit: 12,
                top_games: 3,
                // 马二进三, read in the position after the moves.
                top_move: Some("h0g2".into()),
            }
        );
        let d = q("variant=janggi").unwrap();
        assert_eq!(d.variant, "janggi");
        assert_eq!(
            (d.limit, d.top_games, d.mirror),
            (0, DEFAULT_TOP_GAMES, false)
        );
    }

    #[test]
    fn rejects_bad_values() {
        for bad in [
            "side=first",
            "player=x&side=red",
            "since=2008&until=2007",
            "min_rating=abc",
            "limit=100000",
            "top_games=1000",
            "mirror=maybe",
            "moves=h2h8",
            "color=red",
            "moves=h2e2&top_move=h2e2",
        ] {
            assert!(q(bad).is_err(), "{bad}");
        }
        let long = format!("player={}", "x".repeat(MAX_NAME + 1));
        assert!(q(&long).is_err());
    }
}
