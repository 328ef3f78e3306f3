//! The person a query's `player` names: every spelling of their name from the player index
//! ([`Store::person`]), so that the filter takes any of them, or the error that the name is
//! no player, naming the nearest ones ([`Store::nearest_players`], [`no_player`]).

use super::{Error, Filter};
use crate::{formats::names::fold, store::Store};

/// How many nearest names an unknown player's error offers.
const NEAREST: usize = 3;

/// The filter with the folded spellings of its player's person
/// ([`Filter::spellings`]); a filter without a player as it is.
///
/// ```
/// use qipu::explorer::{with_person, Filter};
/// let store = qipu::store::Store::open_in_memory()?;
/// let f = Filter { player: Some("胡荣花".into()), ..Filter::default() };
/// let e = with_person(&store, &f).unwrap_err();
/// assert!(e.to_string().starts_with("no such player 胡荣花"));
/// # Ok::<_, qipu::store::StoreError>(())
/// ```
///
/// # Errors
/// [`Error::NoPlayer`] if the name is no player (the message names up to three nearest
/// persons with their games), [`Error::Store`] if the database fails.
pub fn with_person(store: &Store, filter: &Filter) -> Result<Filter, Error> {
    let Some(player) = &filter.player else {
        return Ok(filter.clone());
    };
    let Some(person) = store.person(player)? else {
        return Err(Error::NoPlayer(no_player(store, player)?));
    };
    Ok(Filter {
        spellings: person.spellings.iter().map(|s| fold(&s.name)).collect(),
        ..filter.clone()
    })
}

/// The message for a name that is no player, naming up to three nearest persons:
/// `no such player NAME; did you mean: A (N games), B (M games)?` (as `--player`, the
/// dossier and `qipu players --merge`/`--split` say it).
///
/// ```
/// let store = qipu::store::Store::open_in_memory()?;
/// assert_eq!(qipu::explorer::no_player(&store, "胡荣花")?, "no such player 胡荣花");
/// # Ok::<_, qipu::explorer::Error>(())
/// ```
///
/// # Errors
/// [`Error::Store`] if the database fails.
pub fn no_player(store: &Store, player: &str) -> Result<String, Error> {
    let near = store.nearest_players(player, NEAREST)?;
    let mut m = format!("no such player {player}");
    if !near.is_empty() {
        let names: Vec<String> = near
            .iter()
            .map(|p| {
                let s = if p.games == 1 { "" } else { "s" };
                format!("{} ({} game{s})", p.name, p.games)
            })
            .collect();
        m.push_str(&format!("; did you mean: {}?", names.join(", ")));
    }
    Ok(m)
}
