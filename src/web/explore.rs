//! `GET /api/explore`: the request parameters → [`crate::explorer::Query`], read with the
//! same parsers and checks as `qipu explore`'s arguments.

use super::{
    position::fen,
    query::{BadRequest, Params},
};
use crate::{
    explorer::{
        line, lists_formations, parse_side, parse_speeds, parse_variant, resolve_start, Filter,
        PartialDate, Query, DEFAULT_MIN_GAMES, DEFAULT_TOP_GAMES,
    },
    formats::facts::Mode,
    notation::parse_rules,
};

/// The parameters `/api/explore` accepts.
pub const PARAMS: &[&str] = &[
    "variant",
    "fen",
    "setup",
    "moves",
    "rules",
    "since",
    "until",
    "min_rating",
    "max_rating",
    "player",
    "side",
    "event",
    "speed",
    "mode",
    "mirror",
    "limit",
    "top_games",
    "top_move",
    "min_games",
    "novelties",
];

/// Reads and checks the query of `/api/explore`: the line (its start from `variant`, `fen`
/// and `setup` as [`resolve_start`] reads them, under the explorer's Janggi rules unless
/// `rules` says), the filter and the lists, with the checks of [`Query::new`].
///
/// # Errors
/// [`BadRequest`] naming the bad parameter.
pub fn query(params: &Params) -> Result<Query, BadRequest> {
    params.only(PARAMS)?;
    let (variant, start) = resolve_start(
        params.parsed("variant", parse_variant)?,
        fen(params)?,
        params.get("setup"),
    )
    .map_err(BadRequest)?;
    let line = line(
        variant,
        start.as_deref(),
        &params.moves("moves")?,
        params.parsed("rules", parse_rules)?,
    )
    .map_err(|e| BadRequest(e.to_string()))?;
    let filter = filter(params)?;
    let count = |key: &str| -> Result<Option<usize>, BadRequest> {
        Ok(params
            .uint(key, u64::MAX)?
            .map(|n| usize::try_from(n).unwrap_or(usize::MAX)))
    };
    let mut q = Query::new(
        line,
        filter,
        params.flag("mirror")?,
        count("limit")?.unwrap_or(0),
        count("top_games")?.unwrap_or(DEFAULT_TOP_GAMES),
        params.get("top_move"),
    )
    .map_err(BadRequest)?;
    q.min_games = params
        .uint("min_games", u64::MAX)?
        .unwrap_or(DEFAULT_MIN_GAMES);
    q.novelties = params.parsed("novelties", str::parse::<PartialDate>)?;
    Ok(q)
}

/// The game filter of a query string (`since`, `until`, `min_rating`, `max_rating`,
/// `player`, `side`, `event`, `speed`, `mode`), read with the parsers the CLI's flags use;
/// not yet checked as a whole ([`Filter::check`]). `/api/explore` and `/api/player` read
/// theirs here.
///
/// # Errors
/// [`BadRequest`] naming the bad parameter.
pub fn filter(params: &Params) -> Result<Filter, BadRequest> {
    let rating = |key: &str| -> Result<Option<u32>, BadRequest> {
        Ok(params
            .uint(key, u64::from(u32::MAX))?
            .and_then(|n| u32::try_from(n).ok()))
    };
    Ok(Filter {
        since: params.parsed("since", str::parse::<PartialDate>)?,
        until: params.parsed("until", str::parse::<PartialDate>)?,
        min_rating: rating("min_rating")?,
        max_rating: rating("max_rating")?,
        player: params.get("player").map(str::to_string),
        spellings: Vec::new(),
        side: params.parsed("side", parse_side)?,
        event: params.get("event").map(str::to_string),
        speeds: params.parsed("speed", parse_speeds)?.unwrap_or_default(),
        mode: params.parsed("mode", str::parse::<Mode>)?,
    })
}

/// Whether the answer lists the formation pairs beside the position (`variant=janggi` with
/// no `fen`, `setup` or `moves`), as `qipu explore` does.
///
/// # Errors
/// [`BadRequest`] for a bad `variant` or `moves`.
pub fn wants_formations(params: &Params) -> Result<bool, BadRequest> {
    Ok(lists_formations(
        params.parsed("variant", parse_variant)?,
        params.get("fen"),
        params.get("setup"),
        params.moves("moves")?.len(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{formats::facts::Speed, rules::Color};

    fn q(s: &str) -> Result<Query, BadRequest> {
        query(&Params::parse(s).unwrap())
    }

    #[test]
    fn moves_in_any_notation_and_a_filter() {
        let got = q("moves=H2-E2&min_rating=2400&limit=5").unwrap();
        assert_eq!(got.line.moves[0].to_string(), "h2e2");
        assert_eq!((got.filter.min_rating, got.limit), (Some(2400), 5));
        assert!(q("since=2007-13").is_err());
    }

    #[test]
    fn reads_every_parameter() {
        let got = q(
            "variant=xiangqi&moves=h2e2,h9g7&since=2000&until=2007-06&min_rating=2300\
             &max_rating=2700&player=%E5%91%82%E6%AC%BD&side=red&event=Cup&speed=blitz,rapid\
             &mode=rated&mirror=1&limit=12&top_games=3\
             &top_move=%E9%A9%AC%E4%BA%8C%E8%BF%9B%E4%B8%89",
        )
        .unwrap();
        let moves: Vec<String> = got.line.moves.iter().map(|m| m.to_string()).collect();
        assert_eq!(moves, ["h2e2", "h9g7"]);
        assert_eq!(
            got.filter,
            Filter {
                since: Some("2000".parse().unwrap()),
                until: Some("2007-06".parse().unwrap()),
                min_rating: Some(2300),
                max_rating: Some(2700),
                player: Some("呂欽".into()),
                spellings: Vec::new(),
                side: Some(Color::First),
                event: Some("Cup".into()),
                speeds: vec![Speed::Blitz, Speed::Rapid],
                mode: Some(Mode::Rated),
            }
        );
        assert_eq!((got.mirror, got.limit, got.top_games), (true, 12, 3));
        // 马二进三, read in the position after the moves.
        assert_eq!(got.top_move.map(|m| m.to_string()).as_deref(), Some("h0g2"));
        // 상마마상/마상상마 by letters (percent-encoded) and by names: the same start.
        let by_letters =
            q("setup=%EC%83%81%EB%A7%88%EB%A7%88%EC%83%81/%EB%A7%88%EC%83%81%EC%83%81%EB%A7%88")
                .unwrap();
        let by_names = q("setup=outer/wonangma&variant=janggi").unwrap();
        assert_eq!(by_letters.line.position.fen(), by_names.line.position.fen());
        assert_eq!(
            by_names.line.position.fen(),
            "rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RBNA1ANBR w - - 0 1"
        );
        let d = q("variant=janggi").unwrap();
        assert_eq!(d.line.position.variant().name(), "janggi");
        assert_eq!(
            (d.limit, d.top_games, d.mirror),
            (0, DEFAULT_TOP_GAMES, false)
        );
    }

    #[test]
    fn rejects_bad_values() {
        for bad in [
            "side=first",
            "player=x&side=white",
            "since=2008&until=2007",
            "since=yesterday",
            "min_rating=abc",
            "min_rating=2500&max_rating=2400",
            "max_rating=20000",
            "speed=hyper",
            "speed=blitz,,rapid",
            "mode=ranked",
            "rules=kakao",
            "limit=100000",
            "top_games=1000",
            "mirror=maybe",
            "moves=h2h8",
            "color=red",
            "moves=h2e2&top_move=h2e2",
            "setup=inner",
            "setup=inner/inner&fen=9/9",
            "variant=xiangqi&setup=inner/inner",
            "setup=%EB%A7%88%EB%A7%88%EC%83%81%EC%83%81/inner",
        ] {
            assert!(q(bad).is_err(), "{bad}");
        }
        let long = format!("player={}", "x".repeat(crate::explorer::MAX_NAME + 1));
        assert!(q(&long).is_err());
    }
}
