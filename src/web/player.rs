//! `GET /api/player`: the request parameters → [`DossierQuery`], read with the same parsers
//! and checks as `qipu player`'s arguments (the filter with `/api/explore`'s reader).

use super::{
    explore::filter,
    query::{BadRequest, Params},
};
use crate::explorer::{DossierQuery, DEFAULT_DEPTH, DEFAULT_DOSSIER_MIN_GAMES};

/// The parameters `/api/player` accepts.
pub const PARAMS: &[&str] = &[
    "name",
    "since",
    "until",
    "min_rating",
    "max_rating",
    "side",
    "event",
    "speed",
    "mode",
    "depth",
    "min_games",
];

/// Reads and checks the query of `/api/player`.
///
/// # Errors
/// [`BadRequest`] naming the bad parameter.
pub fn query(params: &Params) -> Result<DossierQuery, BadRequest> {
    params.only(PARAMS)?;
    let name = params
        .get("name")
        .ok_or_else(|| BadRequest("`name`: give a player's name".to_string()))?;
    let depth = params
        .uint("depth", u64::MAX)?
        .map_or(DEFAULT_DEPTH, |n| usize::try_from(n).unwrap_or(usize::MAX));
    let min_games = params
        .uint("min_games", u64::MAX)?
        .unwrap_or(DEFAULT_DOSSIER_MIN_GAMES);
    DossierQuery::new(name, filter(params)?, depth, min_games).map_err(BadRequest)
}
