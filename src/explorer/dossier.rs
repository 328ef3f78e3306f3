//! The player dossier (`qipu player NAME`, `GET /api/player`): a person's games under every
//! spelling, counted from the games themselves ([`Store::person_games`]): results as first
//! and as second, by year (with the player's mean rating or rank, and performance), the first
//! and last game, events, the opponents met most, the Janggi formations the player chooses
//! and the repertoire ([`super::repertoire`]). The filters are the explorer's [`Filter`]
//! (dates, ratings, event, speed, mode, `side`), tested on each game as `qipu explore`
//! tests them. The dossier is its own JSON form (the CLI's `--json` and the API's answer).

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use super::{
    facts,
    json::PlayerJson,
    person::no_player,
    repertoire::{repertoire, Repertoire, WeakLine},
    Error, Filter, PartialDate, MAX_NAME,
};
use crate::{
    formats::persons::without_rank,
    rules::{Color, Outcome, Variant},
    store::{PersonGame, PlayerCounts, Store},
};

/// `--depth` and `depth=` when not given: the repertoire's plies.
pub const DEFAULT_DEPTH: usize = 10;
/// The deepest repertoire a query may ask for.
pub const MAX_DEPTH: usize = 40;
/// `--min-games` and `min_games=` when not given: the games a repertoire move (and a weak
/// line) needs to be listed.
pub const DEFAULT_DOSSIER_MIN_GAMES: u64 = 2;

/// What to put in a dossier.
#[derive(Clone, Debug)]
pub struct DossierQuery {
    /// The player: any spelling of the person's name.
    pub player: String,
    /// Which of their games count (`player` left empty: the dossier's player is `player`).
    pub filter: Filter,
    /// The repertoire's plies (0–[`MAX_DEPTH`]).
    pub depth: usize,
    /// The games a repertoire move and a weak line need (at least 1).
    pub min_games: u64,
}

impl DossierQuery {
    /// Builds and checks a query: a player name (at most [`MAX_NAME`] characters), the
    /// filter ([`Filter::check`], which must not name another player), `depth` at most
    /// [`MAX_DEPTH`], `min_games` at least 1. The CLI and the API build theirs here.
    ///
    /// ```
    /// use qipu::explorer::{DossierQuery, Filter};
    /// assert!(DossierQuery::new("胡榮華", Filter::default(), 10, 2).is_ok());
    /// assert!(DossierQuery::new(" ", Filter::default(), 10, 2).is_err());
    /// assert!(DossierQuery::new("胡榮華", Filter::default(), 99, 2).is_err());
    /// ```
    ///
    /// # Errors
    /// A message naming the bad field.
    pub fn new(
        player: &str,
        filter: Filter,
        depth: usize,
        min_games: u64,
    ) -> Result<DossierQuery, String> {
        let player = player.trim();
        if player.is_empty() {
            return Err("`name`: give a player's name".to_string());
        }
        if filter.player.is_some() {
            return Err("give the player as the name, not as `player`".to_string());
        }
        let filter = Filter {
            player: Some(player.to_string()),
            ..filter
        };
        filter.check()?;
        if player.chars().count() > MAX_NAME {
            return Err(format!(
                "`name` is too long (at most {MAX_NAME} characters)"
            ));
        }
        if depth > MAX_DEPTH {
            return Err(format!("`depth` must be at most {MAX_DEPTH}"));
        }
        if min_games == 0 {
            return Err("`min_games` must be at least 1".to_string());
        }
        Ok(DossierQuery {
            player: player.to_string(),
            filter: Filter {
                player: None,
                ..filter
            },
            depth,
            min_games,
        })
    }
}

/// A spelling of the player's name with its games (every game, whatever the filter).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SpellingJson {
    /// The name as written most often.
    pub name: String,
    /// Its games.
    pub games: u64,
}

/// The player's results in one year.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct YearJson {
    /// The year (`null`: the games without a date).
    pub year: Option<u16>,
    /// Their results, opponents' mean rating and performance.
    #[serde(flatten)]
    pub results: PlayerJson,
    /// The player's own mean rating in those games (`null` when none is known).
    pub rating: Option<f64>,
    /// The rank the player's name carried in the latest of those games (`5단`), if any.
    pub rank: Option<String>,
}

/// The player's results against one opponent, in one event or with one formation.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NamedJson {
    /// The opponent (named by their spelling with the most games), event or formation.
    pub name: String,
    /// The player's results there.
    #[serde(flatten)]
    pub results: PlayerJson,
}

/// A game the dossier points to.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GameRefJson {
    /// Database id (`GET /api/games/{id}`).
    pub id: i64,
    /// Date as stored.
    pub date: Option<String>,
    /// The side the player had: `first` (Red/Cho) or `second` (Black/Han).
    pub side: &'static str,
    /// The opponent's name as written.
    pub opponent: Option<String>,
    /// The result, PGN style (`1-0`), `null` when unknown.
    pub result: Option<String>,
}

/// The Janggi formations the player set up, with their results, most games first.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FormationsJson {
    /// As Cho.
    pub first: Vec<NamedJson>,
    /// As Han.
    pub second: Vec<NamedJson>,
}

/// A player's dossier, as `qipu player --json` prints it and `GET /api/player` answers.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Dossier {
    /// The person, named as `qipu players` names them (a spelling file's name, else the
    /// spelling with the most games, without a trailing rank).
    pub player: String,
    /// Every spelling, most games first.
    pub spellings: Vec<SpellingJson>,
    /// The games that pass the filter.
    pub games: u64,
    /// Results as Red/Cho.
    pub as_first: PlayerJson,
    /// Results as Black/Han.
    pub as_second: PlayerJson,
    /// By year, earliest first (undated games last).
    pub by_year: Vec<YearJson>,
    /// The earliest game (by date, then id; by id when no game has a date).
    pub first_game: Option<GameRefJson>,
    /// The latest game.
    pub last_game: Option<GameRefJson>,
    /// Events, most games first.
    pub events: Vec<NamedJson>,
    /// Opponents (persons), most games first, with the player's results against each.
    pub opponents: Vec<NamedJson>,
    /// Janggi: the formations the player chose (absent without a Janggi game).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub formations: Option<FormationsJson>,
    /// The player's moves position by position, as first and as second.
    pub repertoire: Repertoire,
    /// The lines where the player scores furthest below their average on that side.
    pub weak_lines: Vec<WeakLine>,
    /// The repertoire's plies.
    pub depth: usize,
    /// The games a repertoire move and a weak line need.
    pub min_games: u64,
    /// How the filters were read where coarser than given (absent when as written).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// The word of a side in the dossier.
pub(super) fn side_word(c: Color) -> &'static str {
    match c {
        Color::First => "first",
        Color::Second => "second",
    }
}

/// Adds a game to the counts of a key.
fn add<K: Ord>(map: &mut BTreeMap<K, PlayerCounts>, key: K, g: &PersonGame) {
    map.entry(key).or_default().add_game(
        g.side,
        g.game.result,
        [g.game.first_rating, g.game.second_rating],
    );
}

/// Most games first, then by name.
fn ranked(map: BTreeMap<String, PlayerCounts>) -> Vec<NamedJson> {
    let mut v: Vec<NamedJson> = map
        .into_iter()
        .map(|(name, c)| NamedJson {
            name,
            results: PlayerJson::from(&c),
        })
        .collect();
    v.sort_by_key(|n| std::cmp::Reverse(n.results.games));
    v
}

/// The player's name as written in a game, and the opponent's.
fn names(g: &PersonGame) -> (Option<&str>, Option<&str>) {
    let (a, b) = (g.game.first.as_deref(), g.game.second.as_deref());
    match g.side {
        Color::First => (a, b),
        Color::Second => (b, a),
    }
}

/// The player's own rating in a game.
fn own_rating(g: &PersonGame) -> Option<u32> {
    match g.side {
        Color::First => g.game.first_rating,
        Color::Second => g.game.second_rating,
    }
}

fn game_ref(g: &PersonGame) -> GameRefJson {
    GameRefJson {
        id: g.game.id,
        date: g.game.date.clone(),
        side: side_word(g.side),
        opponent: names(g).1.map(str::to_string),
        result: g.game.result.map(|r| Outcome::pgn(r).to_string()),
    }
}

/// The results by year, with the player's mean rating and latest rank.
fn by_year(games: &[PersonGame]) -> Vec<YearJson> {
    #[derive(Default)]
    struct Year {
        counts: PlayerCounts,
        rating: (u64, u64),
        rank: Option<(Option<PartialDate>, i64, String)>,
    }
    let mut years: BTreeMap<(bool, u16), Year> = BTreeMap::new();
    for g in games {
        let date: Option<PartialDate> = g.game.date.as_deref().and_then(|d| d.parse().ok());
        let y = years
            .entry((date.is_none(), date.map_or(0, |d| d.year)))
            .or_default();
        y.counts.add_game(
            g.side,
            g.game.result,
            [g.game.first_rating, g.game.second_rating],
        );
        if let Some(r) = own_rating(g) {
            y.rating = (y.rating.0 + u64::from(r), y.rating.1 + 1);
        }
        if let Some(rank) = names(g).0.and_then(|n| without_rank(n).1) {
            if y.rank
                .as_ref()
                .is_none_or(|(d, id, _)| (date, g.game.id) > (*d, *id))
            {
                y.rank = Some((date, g.game.id, rank.to_string()));
            }
        }
    }
    years
        .into_iter()
        .map(|((undated, year), y)| YearJson {
            year: (!undated).then_some(year),
            results: PlayerJson::from(&y.counts),
            rating: (y.rating.1 > 0).then(|| y.rating.0 as f64 / y.rating.1 as f64),
            rank: y.rank.map(|r| r.2),
        })
        .collect()
}

/// The earliest and the latest game: by date then id among the dated games, by id when none
/// is dated.
fn first_and_last(games: &[PersonGame]) -> (Option<GameRefJson>, Option<GameRefJson>) {
    let dated: Vec<(PartialDate, &PersonGame)> = games
        .iter()
        .filter_map(|g| Some((g.game.date.as_deref()?.parse().ok()?, g)))
        .collect();
    if dated.is_empty() {
        return (games.first().map(game_ref), games.last().map(game_ref));
    }
    let key = |(d, g): &&(PartialDate, &PersonGame)| (*d, g.game.id);
    (
        dated.iter().min_by_key(key).map(|p| game_ref(p.1)),
        dated.iter().max_by_key(key).map(|p| game_ref(p.1)),
    )
}

/// The opponents by person (a name that is no player by itself), with the player's results.
fn opponents(store: &Store, games: &[PersonGame]) -> Result<Vec<NamedJson>, Error> {
    let persons = store.persons_of(games.iter().filter_map(|g| names(g).1))?;
    let mut by: HashMap<String, PlayerCounts> = HashMap::new();
    for g in games {
        let Some(name) = names(g).1.map(str::trim).filter(|n| !n.is_empty()) else {
            continue;
        };
        let key = persons.get(name).map_or(name, |p| p.name.as_str());
        by.entry(key.to_string()).or_default().add_game(
            g.side,
            g.game.result,
            [g.game.first_rating, g.game.second_rating],
        );
    }
    Ok(ranked(by.into_iter().collect()))
}

/// The Janggi formations the player set up, by side.
fn formations(games: &[PersonGame]) -> Option<FormationsJson> {
    let janggi: Vec<&PersonGame> = games
        .iter()
        .filter(|g| g.variant == Variant::Janggi)
        .collect();
    if janggi.is_empty() {
        return None;
    }
    let mut sides = [BTreeMap::new(), BTreeMap::new()];
    for g in janggi {
        let own = match g.side {
            Color::First => &g.game.first_formation,
            Color::Second => &g.game.second_formation,
        };
        let name = own.clone().unwrap_or_else(|| "?".to_string());
        add(&mut sides[usize::from(g.side == Color::Second)], name, g);
    }
    let [first, second] = sides;
    Some(FormationsJson {
        first: ranked(first),
        second: ranked(second),
    })
}

/// The dossier of a player.
///
/// ```
/// use qipu::explorer::{dossier, DossierQuery, Filter};
/// use qipu::formats::{Game, MoveNode, Source};
/// use qipu::rules::{Outcome, Variant, Color};
/// use qipu::store::{GameRecord, Store};
/// let mut store = Store::open_in_memory()?;
/// let mut g = Game::new(Variant::Xiangqi, Source::default());
/// g.moves = vec![MoveNode::new("h2e2"), MoveNode::new("h9g7")];
/// g.tags.first = Some("胡榮華".into());
/// g.tags.second = Some("呂欽".into());
/// g.tags.result = Some(Outcome::Decisive { winner: Color::First });
/// store.write_batch(&[GameRecord::from_game(&g, 40).unwrap()])?;
/// let d = dossier(&store, &DossierQuery::new("胡荣华", Filter::default(), 10, 1).unwrap())?;
/// assert_eq!((d.games, d.as_first.wins, d.as_second.games), (1, 1, 0));
/// assert_eq!(d.repertoire.first[0].moves[0].mv, "h2e2");
/// assert!(dossier(&store, &DossierQuery::new("胡荣花", Filter::default(), 10, 1).unwrap()).is_err());
/// # Ok::<_, qipu::explorer::Error>(())
/// ```
///
/// # Errors
/// [`Error::NoPlayer`] when the name is no player (naming the nearest), [`Error::Store`]
/// when the database fails or a game is corrupt.
pub fn dossier(store: &Store, q: &DossierQuery) -> Result<Dossier, Error> {
    let Some(person) = store.person(&q.player)? else {
        return Err(Error::NoPlayer(no_player(store, &q.player)?));
    };
    let test = Filter {
        player: None,
        side: None,
        ..q.filter.clone()
    };
    let games: Vec<PersonGame> = store
        .person_games(&q.player)?
        .into_iter()
        .filter(|g| q.filter.side.is_none_or(|s| s == g.side) && test.passes(&facts(&g.game)))
        .collect();
    let mut sides = [PlayerCounts::default(), PlayerCounts::default()];
    let mut events = BTreeMap::new();
    for g in &games {
        sides[usize::from(g.side == Color::Second)].add_game(
            g.side,
            g.game.result,
            [g.game.first_rating, g.game.second_rating],
        );
        if let Some(e) = g
            .game
            .event
            .as_deref()
            .map(str::trim)
            .filter(|e| !e.is_empty())
        {
            add(&mut events, e.to_string(), g);
        }
    }
    let (as_first, as_second) = (PlayerJson::from(&sides[0]), PlayerJson::from(&sides[1]));
    let averages = [as_first.score, as_second.score];
    let (repertoire, weak_lines) = repertoire(&games, q.depth, q.min_games, averages)?;
    let (first_game, last_game) = first_and_last(&games);
    Ok(Dossier {
        player: person.name,
        spellings: person
            .spellings
            .into_iter()
            .map(|s| SpellingJson {
                name: s.name,
                games: s.games,
            })
            .collect(),
        games: games.len() as u64,
        as_first,
        as_second,
        by_year: by_year(&games),
        first_game,
        last_game,
        events: ranked(events),
        opponents: opponents(store, &games)?,
        formations: formations(&games),
        repertoire,
        weak_lines,
        depth: q.depth,
        min_games: q.min_games,
        notes: q.filter.notes(),
    })
}
