//! The opening explorer: statistics of a position and of every move played from it.
//!
//! A [`Query`] (typed: a [`Line`], a [`Filter`], what to list) goes in, an [`Answer`] (typed)
//! comes out; [`json`] is the wire form of the answer. [`explore`] runs in three steps:
//!
//! 1. **gather**: per key (the position, and its mirror with `mirror`) the move rows and the
//!    candidate top games: from [`Store::lookup`] without a filter (one summary row, or the
//!    position's few games), or from [`gather_filtered`] with one;
//! 2. **top games**: the candidates (or the games that played `top_move`), best first;
//! 3. **assemble**: merge, sort, name the opening, say why there are no games.
//!
//! The opening name depends on the position only: it is computed from every game through the
//! position, whatever the filter. Transpositions are merged by construction (positions are
//! keyed by their Zobrist key). This module reads the store and the rules; it knows nothing of
//! the CLI, the web layer or the import pipeline.
//!
//! ```
//! use qipu::explorer::{explore, Query, EXPLORE_RULES};
//! use qipu::formats::{Game, MoveNode, Source};
//! use qipu::notation::Line;
//! use qipu::rules::{Outcome, Variant};
//! use qipu::store::{GameRecord, Store};
//!
//! let mut store = Store::open_in_memory()?;
//! let mut game = Game::new(Variant::Xiangqi, Source::default());
//! game.moves = vec![MoveNode::new("h2e2"), MoveNode::new("h9g7")];
//! game.tags.result = Some(Outcome::Draw);
//! store.write_batch(&[GameRecord::from_game(&game, 40).unwrap()])?;
//! let answer = explore(&store, &Query::at(Line::start(Variant::Xiangqi, EXPLORE_RULES)))?;
//! assert_eq!((answer.counts.games, answer.counts.draws), (1, 1));
//! assert_eq!(answer.moves[0].mv.to_string(), "h2e2");
//! # Ok::<_, qipu::explorer::Error>(())
//! ```

mod answer;
mod dossier;
mod formations;
pub mod json;
mod opening;
mod person;
mod query;
mod repertoire;

use std::{
    collections::{BTreeMap, HashMap},
    fmt,
};

pub use answer::{Answer, Ended, EngineChoice, MoveLine, NoGames, Others, TopGame};
pub use dossier::{
    dossier, Dossier, DossierQuery, FormationsJson, GameRefJson, NamedJson, SpellingJson, YearJson,
    DEFAULT_DEPTH, DEFAULT_DOSSIER_MIN_GAMES, MAX_DEPTH,
};
pub use formations::{formation_counts, lists_formations, ExploreWithFormations, FormationCount};
pub use opening::{
    ecco_depth, ecco_name, name_position, opening_from_label, position_ply, Opening, ECCO_PLIES,
};
pub use person::{no_player, with_person};
pub use query::{
    mean_rating, parse_side, parse_speeds, parse_variant, resolve_start, Filter, GameFacts,
    PartialDate, Query, DEFAULT_MIN_GAMES, DEFAULT_TOP_GAMES, EXPLORE_RULES, MAX_LIMIT, MAX_NAME,
    MAX_RATING, MAX_TOP_GAMES,
};
pub use repertoire::{
    repertoire_pgn, Repertoire, RepertoireMove, RepertoireTree, WeakLine, WEAK_LINES,
};

use crate::{
    notation::{render, Line, Notation},
    rules::{AnyPosition, Move, Variant},
    store::{
        BucketFilter, GameCounts, GameThrough, Month, MonthCounts, MoveRow, Played, PlayerCounts,
        PositionKey, PositionStats, Store, StoreError,
    },
};

/// Why a query could not be answered.
#[derive(Debug)]
pub enum Error {
    /// The query is malformed.
    Query(String),
    /// The query's player is no player of the database (the message names the nearest).
    NoPlayer(String),
    /// The database failed.
    Store(StoreError),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Query(m) | Error::NoPlayer(m) => f.write_str(m),
            Error::Store(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Store(e) => Some(e),
            Error::Query(_) | Error::NoPlayer(_) => None,
        }
    }
}

impl From<StoreError> for Error {
    fn from(e: StoreError) -> Error {
        Error::Store(e)
    }
}

/// A move in the other notations of its game: `wxf` and `chinese` (simplified) for Xiangqi,
/// `korean` for Janggi. The explorer's, the position route's and the probe route's
/// `notation` objects.
///
/// ```
/// use qipu::rules::{AnyPosition, Variant};
/// let n = qipu::explorer::notations(&AnyPosition::new(Variant::Xiangqi), "h2e2".parse().unwrap());
/// assert_eq!((n["wxf"].as_str(), n["chinese"].as_str()), ("C2.5", "炮二平五"));
/// ```
pub fn notations(pos: &AnyPosition, m: Move) -> BTreeMap<&'static str, String> {
    let mut out = BTreeMap::new();
    match pos.variant() {
        Variant::Xiangqi => {
            out.insert("wxf", render(pos, m, Notation::Wxf));
            out.insert(
                "chinese",
                render(pos, m, Notation::Chinese { traditional: false }),
            );
        }
        Variant::Janggi => {
            out.insert("korean", render(pos, m, Notation::Korean { hanja: false }));
        }
    }
    out
}

/// The mirrored position's key, if it differs from the position's.
fn mirror_key(pos: &AnyPosition) -> Result<Option<u64>, Error> {
    let setup = pos.board().to_setup().mirror();
    let mirrored = AnyPosition::from_setup(pos.variant(), &setup)
        .map_err(|e| Error::Query(format!("mirrored position: {e}")))?;
    let k = mirrored.key();
    Ok((k != pos.key()).then_some(k))
}

/// What the filter sees of a game through a position.
fn facts(g: &GameThrough) -> GameFacts<'_> {
    GameFacts::of(
        &g.date,
        g.first_rating,
        g.second_rating,
        &g.first,
        &g.second,
        &g.event,
        g.speed,
        g.mode,
    )
}

/// The part of a filter the store's aggregates answer: months, rating bands, speeds, modes.
fn bucket_filter(f: &Filter) -> BucketFilter {
    let month = |d: PartialDate| Month {
        year: d.year,
        month: d.month,
    };
    BucketFilter {
        since: f.since.map(month),
        until: f.until.map(month),
        min_rating: f.min_rating,
        max_rating: f.max_rating,
        speeds: f.speeds.clone(),
        modes: f.mode.into_iter().collect(),
    }
}

/// The filtered statistics of one position: its move rows, history, the opening labels of all
/// its games, the candidates for its best games (ranked and cut to `top` here) and its latest
/// `top` games, of the games that pass `filter` — the same shape [`Store::lookup`] answers
/// without a filter.
///
/// Dates, ratings, speed and mode are sums over the store's buckets
/// ([`Store::lookup_filtered`]); a player comes from the player index
/// ([`Store::player_lookup`]); no game is read for them. Only an `event` filter, which no
/// aggregate holds, reads every game through the position.
///
/// # Errors
/// [`StoreError`] if the database fails.
pub fn gather_filtered(
    store: &Store,
    key: u64,
    filter: &Filter,
    top: usize,
) -> Result<PositionStats, StoreError> {
    let key = PositionKey(key);
    if filter.event.is_some() {
        let mut s = scan_filtered(store, key, filter, top)?;
        s.openings = store.lookup(key, 0)?.openings;
        return Ok(s);
    }
    let buckets = bucket_filter(filter);
    let mut s = match &filter.player {
        Some(player) => {
            let mut s = store.player_lookup(player, filter.side, key, &buckets, top)?;
            s.openings = store.lookup(key, 0)?.openings;
            s
        }
        None => store.lookup_filtered(key, &buckets, top)?,
    };
    s.top.sort_by_cached_key(GameThrough::top_key);
    s.top.truncate(top);
    Ok(s)
}

/// The games that pass `filter` through a position (by key).
fn games_at(store: &Store, key: u64, filter: &Filter) -> Result<u64, StoreError> {
    let key = PositionKey(key);
    let buckets = bucket_filter(filter);
    if filter.event.is_some() {
        let n = store
            .games_through(key, None)?
            .iter()
            .filter(|g| filter.passes(&facts(g)))
            .count();
        return Ok(n as u64);
    }
    match &filter.player {
        Some(p) => Ok(store
            .player_moves(p, filter.side, key, &buckets)?
            .iter()
            .map(|r| r.counts.games)
            .sum()),
        None => store.games_at(key, &buckets),
    }
}

/// The sort key of the latest-games lists, smallest first: the later date, then the greater
/// id.
fn recent_rank(g: &GameThrough) -> (std::cmp::Reverse<Option<String>>, std::cmp::Reverse<i64>) {
    (std::cmp::Reverse(g.date.clone()), std::cmp::Reverse(g.id))
}

/// The year and month of a stored date, when it has a month.
fn year_month(date: Option<&str>) -> Option<(u16, u8)> {
    let d: PartialDate = date?.parse().ok()?;
    Some((d.year, d.month?))
}

/// A filter no aggregate answers (an event): every game through the position is read and
/// tested.
fn scan_filtered(
    store: &Store,
    key: PositionKey,
    filter: &Filter,
    top: usize,
) -> Result<PositionStats, StoreError> {
    let mut rows: HashMap<Option<Move>, MoveRow> = HashMap::new();
    let mut history: BTreeMap<(u16, u8), MonthCounts> = BTreeMap::new();
    let mut games = Vec::new();
    for g in store.games_through(key, None)? {
        if !filter.passes(&facts(&g)) {
            continue;
        }
        let ratings = [g.first_rating, g.second_rating];
        let year = g
            .date
            .as_deref()
            .and_then(|d| d.parse::<PartialDate>().ok())
            .map(|d| u32::from(d.year));
        let row = rows.entry(g.mv).or_insert_with(|| MoveRow {
            mv: g.mv,
            ..MoveRow::default()
        });
        row.count(&Played {
            id: g.id,
            result: g.result,
            ratings,
            date: g.date.as_deref(),
            year,
            termination: g.termination,
        });
        if let Some((y, m)) = year_month(g.date.as_deref()) {
            let mut c = GameCounts::default();
            c.add_game(g.result, ratings);
            history
                .entry((y, m))
                .or_insert(MonthCounts {
                    year: y,
                    month: m,
                    ..MonthCounts::default()
                })
                .add(&c);
        }
        games.push(g);
    }
    let mut recent = games.clone();
    recent.sort_by_cached_key(recent_rank);
    recent.truncate(top);
    games.sort_by_cached_key(GameThrough::top_key);
    games.truncate(top);
    let mut moves: Vec<MoveRow> = rows.into_values().collect();
    moves.sort_by_key(|r| r.mv.map(Move::to_u16));
    Ok(PositionStats {
        moves,
        openings: Vec::new(),
        top: games,
        recent,
        history: history.into_values().collect(),
    })
}

/// Step 1's result: merged move rows, opening labels, history and candidate top and recent
/// games.
#[derive(Default)]
struct Gathered {
    by_move: HashMap<Option<Move>, MoveRow>,
    labels: HashMap<String, u64>,
    history: BTreeMap<(u16, u8), MonthCounts>,
    top: Vec<GameThrough>,
    recent: Vec<GameThrough>,
}

/// Step 1: the statistics of each key (the position and, with `mirror`, its mirror), moves of
/// the mirror mirrored back.
fn gather(store: &Store, q: &Query, keys: &[(u64, bool)]) -> Result<Gathered, Error> {
    let mut out = Gathered::default();
    let n = if q.top_move.is_some() { 0 } else { q.top_games };
    for &(k, mirrored) in keys {
        let fix = |m: Option<Move>| if mirrored { m.map(Move::mirror) } else { m };
        let stats = if q.filter.is_empty() {
            // The store keeps a busy position's best games in the order of every list
            // ([`GameThrough::top_key`]): a known result, real names, rating, date.
            store.lookup(PositionKey(k), n)?
        } else {
            gather_filtered(store, k, &q.filter, n)?
        };
        for row in stats.moves {
            let mv = fix(row.mv);
            out.by_move
                .entry(mv)
                .or_insert_with(|| MoveRow {
                    mv,
                    ..MoveRow::default()
                })
                .merge(&row);
        }
        for o in stats.openings {
            *out.labels.entry(o.label).or_default() += o.games;
        }
        for h in stats.history {
            let e = out.history.entry((h.year, h.month)).or_insert(MonthCounts {
                year: h.year,
                month: h.month,
                ..MonthCounts::default()
            });
            for (a, b) in [
                (&mut e.games, h.games),
                (&mut e.first_wins, h.first_wins),
                (&mut e.draws, h.draws),
                (&mut e.second_wins, h.second_wins),
            ] {
                *a += b;
            }
        }
        let fix_game = |mut g: GameThrough| {
            g.mv = fix(g.mv);
            g
        };
        out.top.extend(stats.top.into_iter().map(fix_game));
        out.recent.extend(stats.recent.into_iter().map(fix_game));
    }
    Ok(out)
}

fn top_game(g: GameThrough) -> TopGame {
    TopGame {
        id: g.id,
        first: g.first,
        second: g.second,
        result: g.result,
        date: g.date,
        event: g.event,
    }
}

/// Step 2: the top games, best first, and the latest games, latest first: the candidates, or
/// with `top_move` the games that played it here.
fn top_games(
    store: &Store,
    q: &Query,
    keys: &[(u64, bool)],
    candidates: Vec<GameThrough>,
    recent: Vec<GameThrough>,
) -> Result<(Vec<TopGame>, Vec<TopGame>), Error> {
    if q.top_games == 0 {
        return Ok((Vec::new(), Vec::new()));
    }
    let (mut top, mut recent) = match q.top_move {
        None => (candidates, recent),
        Some(m) => {
            let mut top = Vec::new();
            for &(k, mirrored) in keys {
                let here = if mirrored { m.mirror() } else { m };
                for g in store.games_playing(PositionKey(k), Some(here), usize::MAX)? {
                    if q.filter.passes(&facts(&g)) {
                        top.push(g);
                    }
                }
            }
            (top.clone(), top)
        }
    };
    top.sort_by_cached_key(GameThrough::top_key);
    top.truncate(q.top_games);
    recent.sort_by_cached_key(recent_rank);
    recent.truncate(q.top_games);
    Ok((
        top.into_iter().map(top_game).collect(),
        recent.into_iter().map(top_game).collect(),
    ))
}

/// Why no game passed: the database is empty for the variant, the filters removed the games,
/// the position is deeper than the database indexes, or no game reaches it.
fn why_empty(store: &Store, q: &Query, keys: &[(u64, bool)]) -> Result<NoGames, Error> {
    if !store.has_games(q.line.position.variant())? {
        return Ok(NoGames::EmptyDatabase);
    }
    if !q.filter.is_empty() {
        for &(k, _) in keys {
            if store
                .lookup(PositionKey(k), 0)?
                .moves
                .iter()
                .any(|r| r.counts.games > 0)
            {
                return Ok(NoGames::Filtered);
            }
        }
    }
    // The ply of a FEN start is not known, so only a line from the standard start can be
    // said to be too deep; a FEN start may be the other variant's position.
    let from_standard = q.line.start.key() == AnyPosition::new(q.line.start.variant()).key();
    if !from_standard {
        if let Some(other) = other_variant_games(store, &q.line)? {
            return Ok(NoGames::OtherVariant(other));
        }
    }
    match store.max_ply()? {
        Some(max) if max > 0 && from_standard && q.line.moves.len() >= max => {
            Ok(NoGames::BeyondMaxPly(max))
        }
        _ => Ok(NoGames::NotReached),
    }
}

/// The other variant, if the line's start (as FEN) and moves are a position of it that
/// stored games reach.
fn other_variant_games(store: &Store, line: &Line) -> Result<Option<Variant>, Error> {
    let other = match line.start.variant() {
        Variant::Xiangqi => Variant::Janggi,
        Variant::Janggi => Variant::Xiangqi,
    };
    let Ok(mut pos) = AnyPosition::from_fen(other, &line.start.fen()) else {
        return Ok(None);
    };
    pos = pos.with_janggi_rules(EXPLORE_RULES);
    for &m in &line.moves {
        if pos.play(m).is_err() {
            return Ok(None);
        }
    }
    let reached = store
        .lookup(PositionKey(pos.key()), 0)?
        .moves
        .iter()
        .any(|r| r.counts.games > 0);
    Ok(reached.then_some(other))
}

/// The history from its first month to its last, months without games as zeros.
fn full_history(h: &BTreeMap<(u16, u8), MonthCounts>) -> Vec<MonthCounts> {
    let (Some((&first, _)), Some((&last, _))) = (h.first_key_value(), h.last_key_value()) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let (mut y, mut m) = first;
    // Bounded: at most 12 entries a year between two stored years.
    while (y, m) <= last {
        out.push(h.get(&(y, m)).copied().unwrap_or(MonthCounts {
            year: y,
            month: m,
            ..MonthCounts::default()
        }));
        (y, m) = if m == 12 { (y + 1, 1) } else { (y, m + 1) };
    }
    out
}

/// Whether a move first played on `first` counts as a novelty since `since`: a partial first
/// date counts unless certainly earlier; an unknown one does not.
fn is_novelty(first: Option<&str>, since: PartialDate) -> bool {
    first
        .and_then(|d| d.parse::<PartialDate>().ok())
        .is_some_and(|d| !d.cmp_known(&since).is_lt())
}

/// Step 3: totals, the moves most played first (ties in canonical text order), the moves of
/// too few games, the non-novelties and those past the limit folded into "others", the
/// opening.
fn assemble(q: &Query, g: Gathered, top_games: Vec<TopGame>, recent: Vec<TopGame>) -> Answer {
    let pos = &q.line.position;
    let mut counts = GameCounts::default();
    let mut player: Option<PlayerCounts> = None;
    for t in g.by_move.values() {
        counts.merge(&t.counts);
        if q.filter.player.is_some() {
            player
                .get_or_insert_with(PlayerCounts::default)
                .merge(&t.player);
        }
    }
    let ended = g
        .by_move
        .get(&None)
        .map(|t| Ended {
            counts: t.counts,
            how: t.endings,
        })
        .unwrap_or_default();
    let mut moves: Vec<(Move, MoveRow)> = g
        .by_move
        .into_iter()
        .filter_map(|(m, t)| m.map(|m| (m, t)))
        .collect();
    moves.sort_by_cached_key(|(m, t)| (std::cmp::Reverse(t.counts.games), m.to_string()));
    // Every move is either listed or folded into "others", so that the listed moves and
    // "others" always add up to the position's moves and games: a move is folded when it has
    // fewer games played (decided or not) than `min_games`, is no novelty, or lies past
    // `limit`.
    let mut others: Option<Others> = None;
    let mut listed: Vec<(Move, MoveRow)> = Vec::with_capacity(moves.len());
    for (m, t) in moves {
        if t.counts.games == 0 {
            continue; // no game that passes the filter played it
        }
        let shown = t.counts.games >= q.min_games
            && q.novelties
                .is_none_or(|since| is_novelty(t.first_date.as_deref(), since))
            && (q.limit == 0 || listed.len() < q.limit);
        if shown {
            listed.push((m, t));
        } else {
            let o = others.get_or_insert_with(Others::default);
            o.moves += 1;
            o.list.push(m);
            o.counts.merge(&t.counts);
        }
    }
    let moves = listed;
    let with_player = q.filter.player.is_some();
    Answer {
        variant: pos.variant(),
        fen: pos.fen(),
        key: pos.key(),
        turn: pos.turn(),
        counts,
        opening: name_position(pos.variant(), &g.labels, position_ply(pos)),
        moves: moves
            .into_iter()
            .map(|(m, t)| MoveLine {
                mv: m,
                notation: notations(pos, m),
                counts: t.counts,
                last_date: t.last_date,
                first_date: t.first_date,
                first_game: t.first_game.map(|id| TopGame {
                    id,
                    first: None,
                    second: None,
                    result: None,
                    date: None,
                    event: None,
                }),
                avg_year: (t.dated > 0).then(|| t.year_sum as f64 / t.dated as f64),
                games_after: None,
                player: with_player.then_some(t.player),
                eval: None,
            })
            .collect(),
        top_games,
        recent_games: recent,
        others,
        ended,
        history: full_history(&g.history),
        player,
        no_games: None,
        notes: q.filter.notes(),
        engine_best: None,
    }
}

/// Step 3b: each listed move's first game (its players and event) and the games through the
/// position it leads to (and its mirror, with `mirror`), under the same filter.
///
/// Every game that played a move here goes through the position it leads to (within the
/// plies the database indexes); so when that position has, of all games, exactly as many as
/// played the move here, they are the same games, and its filtered games are the move's: the
/// store is asked for its unfiltered total (a count kept in the row) instead of a filtered
/// one. Only without `mirror` (the mirror's games would be other games).
fn attach_moves(store: &Store, q: &Query, answer: &mut Answer) -> Result<(), Error> {
    let played: HashMap<Move, u64> = if q.filter.is_empty() || q.mirror {
        HashMap::new()
    } else {
        store
            .position(PositionKey(q.line.position.key()))?
            .into_iter()
            .filter_map(|r| r.mv.map(|m| (m, r.counts.games)))
            .collect()
    };
    for line in &mut answer.moves {
        if let Some(first) = &mut line.first_game {
            if let Some(g) = store.game_brief(first.id)? {
                *first = top_game(g);
            }
        }
        let mut child = q.line.position.clone();
        if child.play(line.mv).is_err() {
            continue;
        }
        let mut n = match played.get(&line.mv) {
            // One look at the position it leads to: its count kept in the row, and only
            // when that is not the move's, its filtered count.
            Some(&all) if q.filter.player.is_none() && q.filter.event.is_none() => store
                .games_after(
                    PositionKey(child.key()),
                    &bucket_filter(&q.filter),
                    all,
                    line.counts.games,
                )?,
            Some(&all) if games_at(store, child.key(), &Filter::default())? == all => {
                line.counts.games
            }
            _ => games_at(store, child.key(), &q.filter)?,
        };
        if q.mirror {
            if let Some(k) = mirror_key(&child)? {
                n += games_at(store, k, &q.filter)?;
            }
        }
        // Every game that played the move here reaches that position, unless it lies beyond
        // the plies the database indexes (then it holds no game of them).
        line.games_after = (n >= line.counts.games).then_some(n);
    }
    Ok(())
}

/// Step 4: the engine's scores of the moves and its choice, where `qipu analyse` stored them
/// (for the position itself, not its mirror). The choice is the best scored of every move
/// searched here, folded moves included (see [`EngineChoice`]).
fn attach_evals(store: &Store, pos: &AnyPosition, answer: &mut Answer) -> Result<(), StoreError> {
    let evals = store.evals_at(answer.key)?;
    if evals.is_empty() {
        return Ok(());
    }
    let eval_of = |m: Move| evals.iter().find(|e| e.mv == m).cloned();
    for line in &mut answer.moves {
        line.eval = eval_of(line.mv);
    }
    let Some(best) = store.engine_best(answer.key)? else {
        return Ok(());
    };
    let Some(engine_move) = best.mv else {
        return Ok(());
    };
    // The engine's own choice wins ties: it comes first among equals.
    let mut chosen = eval_of(engine_move);
    for e in &evals {
        if chosen
            .as_ref()
            .is_none_or(|c| e.score.rank() > c.score.rank())
        {
            chosen = Some(e.clone());
        }
    }
    let mv = chosen.as_ref().map_or(engine_move, |c| c.mv);
    let played = answer.moves.iter().any(|l| l.mv == mv)
        || answer.others.as_ref().is_some_and(|o| o.list.contains(&mv));
    answer.engine_best = Some(EngineChoice {
        mv,
        engine_move,
        played,
        notation: notations(pos, mv),
        depth: chosen.as_ref().map_or(best.depth, |c| c.depth),
        engine: chosen.as_ref().map_or(best.engine, |c| c.engine.clone()),
        eval: chosen,
    });
    Ok(())
}

/// Answers a query from the store: the position's totals, its moves (most played first),
/// the opening name and the top games.
///
/// Everything is read in one snapshot of the database ([`Store::snapshot`]).
///
/// # Errors
/// [`Error::Query`] if the mirrored position cannot be built, [`Error::Store`] if the
/// database fails.
pub fn explore(store: &Store, q: &Query) -> Result<Answer, Error> {
    store.snapshot(|| explore_in(store, q))
}

/// [`explore`], inside its read transaction.
fn explore_in(store: &Store, q: &Query) -> Result<Answer, Error> {
    let with_person;
    let q = match &q.filter.player {
        None => q,
        Some(_) => {
            with_person = Query {
                filter: person::with_person(store, &q.filter)?,
                ..q.clone()
            };
            &with_person
        }
    };
    let pos = &q.line.position;
    let mut keys = vec![(pos.key(), false)];
    if q.mirror {
        if let Some(k) = mirror_key(pos)? {
            keys.push((k, true));
        }
    }
    let mut gathered = gather(store, q, &keys)?;
    let candidates = std::mem::take(&mut gathered.top);
    let recent = std::mem::take(&mut gathered.recent);
    let (top, recent) = top_games(store, q, &keys, candidates, recent)?;
    let mut answer = assemble(q, gathered, top, recent);
    attach_moves(store, q, &mut answer)?;
    attach_evals(store, pos, &mut answer)?;
    if answer.counts.games == 0 {
        answer.no_games = Some(why_empty(store, q, &keys)?);
    }
    Ok(answer)
}

/// Builds the line of a query from its parts, under [`EXPLORE_RULES`] unless `rules` says.
///
/// # Errors
/// [`Error::Query`] naming the bad FEN or move.
pub fn line(
    variant: Variant,
    fen: Option<&str>,
    moves: &[String],
    rules: Option<crate::rules::JanggiRules>,
) -> Result<Line, Error> {
    Line::parse(variant, fen, moves, rules.unwrap_or(EXPLORE_RULES))
        .map_err(|e| Error::Query(e.to_string()))
}

#[cfg(test)]
mod tests {
    use crate::store::is_real_name;

    #[test]
    fn placeholder_names_are_not_real() {
        for n in [
            None,
            Some(""),
            Some("?"),
            Some("??"),
            Some("红方棋手"),
            Some(" 黑方 "),
            Some("NN"),
        ] {
            assert!(!is_real_name(n), "{n:?}");
        }
        for n in ["呂欽", "Hu Ronghua", "红方队"] {
            assert!(is_real_name(Some(n)), "{n}");
        }
    }
}
