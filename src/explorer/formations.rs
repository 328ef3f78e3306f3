//! The Janggi formation pairs a database's games started from, with their counts under a
//! query's filter: what `qipu explore --variant janggi` (and `/api/explore?variant=janggi`)
//! list beside the default start, so that a user sees the games of the other 15 pairs. Each
//! pair is one explore of its start position; nothing here writes or reads anything but the
//! explorer's own answers.

use serde::{Deserialize, Serialize};

use super::{explore, json::ExploreJson, line, Error, Query};
use crate::{
    rules::{Formations, Variant},
    store::Store,
};

/// One formation pair and the games that started from it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FormationCount {
    /// Cho's and Han's formations as `.gib` letters: `마상상마/상마마상` (what `--setup` and
    /// `setup=` take).
    pub setup: String,
    /// The same in romanised names: `wonangma/yanggwima`.
    pub names: String,
    /// The start FEN of the pair.
    pub fen: String,
    /// Games that started from it (under the query's filter).
    pub games: u64,
    /// Of those, how many have a known result.
    pub decided: u64,
    /// Won by Cho.
    pub first_wins: u64,
    /// Drawn.
    pub draws: u64,
    /// Won by Han.
    pub second_wins: u64,
}

/// Whether a query names its start so loosely that the formation pairs are worth listing:
/// Janggi, from the default start (no formations and no FEN given), no move played yet.
pub fn lists_formations(
    variant: Option<Variant>,
    fen: Option<&str>,
    setup: Option<&str>,
    moves: usize,
) -> bool {
    variant == Some(Variant::Janggi) && fen.is_none() && setup.is_none() && moves == 0
}

/// The 16 formation pairs with the games that started from each under `q`'s filter, most
/// games first (pairs without games are left out).
///
/// # Errors
/// [`Error::Store`] if the database fails.
pub fn formation_counts(store: &Store, q: &Query) -> Result<Vec<FormationCount>, Error> {
    let mut out = Vec::new();
    for pair in Formations::all() {
        let fen = pair.start_fen();
        let start = line(Variant::Janggi, Some(&fen), &[], None)?;
        let query = Query::new(start, q.filter.clone(), false, 1, 0, None).map_err(Error::Query)?;
        let a = explore(store, &query)?;
        if a.counts.games == 0 {
            continue;
        }
        let names = format!("{}/{}", pair.cho.romanised(), pair.han.romanised());
        let json = ExploreJson::from(&a);
        out.push(FormationCount {
            setup: pair.to_string(),
            names,
            fen,
            games: json.games,
            decided: json.decided,
            first_wins: json.first_wins,
            draws: json.draws,
            second_wins: json.second_wins,
        });
    }
    out.sort_by(|a, b| b.games.cmp(&a.games).then_with(|| a.setup.cmp(&b.setup)));
    Ok(out)
}

/// The explorer's JSON answer with the formation pairs beside it (`formations`, present only
/// when [`lists_formations`] says).
#[derive(Clone, Debug, Serialize)]
pub struct ExploreWithFormations {
    /// The answer.
    #[serde(flatten)]
    pub answer: ExploreJson,
    /// The formation pairs and their games, most first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub formations: Option<Vec<FormationCount>>,
}
