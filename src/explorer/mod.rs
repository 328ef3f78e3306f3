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
mod formations;
pub mod json;
mod opening;
mod query;

use std::{
    collections::{BTreeMap, HashMap},
    fmt,
};

pub use answer::{Answer, EngineChoice, MoveLine, NoGames, TopGame};
pub use formations::{formation_counts, lists_formations, ExploreWithFormations, FormationCount};
pub use opening::{ecco_name, name_position, opening_from_label, Opening};
pub use query::{
    mean_rating, parse_side, parse_speeds, parse_variant, resolve_start, Filter, GameFacts,
    PartialDate, Query, DEFAULT_TOP_GAMES, EXPLORE_RULES, MAX_LIMIT, MAX_NAME, MAX_RATING,
    MAX_TOP_GAMES,
};

use crate::{
    formats::names::fold,
    notation::{render, Line, Notation},
    rules::{AnyPosition, Move, Variant},
    store::{
        BucketFilter, GameCounts, GameThrough, Month, MoveRow, PositionKey, PositionStats, Store,
        StoreError, TOP_KEPT,
    },
};

/// Why a query could not be answered.
#[derive(Debug)]
pub enum Error {
    /// The query is malformed.
    Query(String),
    /// The database failed.
    Store(StoreError),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Query(m) => f.write_str(m),
            Error::Store(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Store(e) => Some(e),
            Error::Query(_) => None,
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
    GameFacts {
        date: g.date.as_deref(),
        ratings: [g.first_rating, g.second_rating],
        names: [g.first.as_deref(), g.second.as_deref()],
        event: g.event.as_deref(),
        speed: g.speed,
        mode: g.mode,
    }
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

/// Positions with at most this many games list their filtered top games from all their games;
/// busier ones from the best games the store keeps for them ([`TOP_KEPT`]).
const TOP_FROM_ALL_UNDER: u64 = 1_000;

/// The filtered statistics of one position: its move rows, the opening labels and the best
/// `top` games of the games that pass `filter` — the same shape [`Store::lookup`] answers
/// without a filter.
///
/// Dates, ratings, speed and mode are sums over the store's buckets
/// ([`Store::moves_filtered`]); a player comes from the player index
/// ([`Store::player_moves`]); no game is read for them. Only an `event` filter, which no
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
        return scan_filtered(store, key, filter, top);
    }
    let buckets = bucket_filter(filter);
    let moves = match &filter.player {
        Some(player) => store.player_moves(player, filter.side, key, &buckets)?,
        None => store.moves_filtered(key, &buckets)?,
    };
    let passing: u64 = moves.iter().map(|r| r.counts.games).sum();
    let top = if top == 0 || passing == 0 {
        Vec::new()
    } else {
        filtered_top(store, key, filter, top)?
    };
    Ok(PositionStats {
        moves,
        openings: Vec::new(),
        top,
    })
}

/// The best `top` games through a position that pass `filter`: from all its games when it has
/// at most [`TOP_FROM_ALL_UNDER`], else from the best games the store keeps for it.
fn filtered_top(
    store: &Store,
    key: PositionKey,
    filter: &Filter,
    top: usize,
) -> Result<Vec<GameThrough>, StoreError> {
    let kept = store.lookup(key, TOP_KEPT)?;
    let all: u64 = kept.moves.iter().map(|r| r.counts.games).sum();
    let pool = if all > kept.top.len() as u64 && all <= TOP_FROM_ALL_UNDER {
        store.games_through(key, None)?
    } else {
        kept.top
    };
    let mut games: Vec<GameThrough> = pool
        .into_iter()
        .filter(|g| filter.passes(&facts(g)))
        .collect();
    games.sort_by_cached_key(top_rank);
    games.truncate(top);
    Ok(games)
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
    let mut games = Vec::new();
    for g in store.games_through(key, None)? {
        if !filter.passes(&facts(&g)) {
            continue;
        }
        rows.entry(g.mv).or_default().add_game(
            g.result,
            [g.first_rating, g.second_rating],
            g.date.as_deref(),
        );
        games.push(g);
    }
    games.sort_by_cached_key(top_rank);
    games.truncate(top);
    let mut moves: Vec<MoveRow> = rows
        .into_iter()
        .map(|(mv, mut r)| {
            r.mv = mv;
            r
        })
        .collect();
    moves.sort_by_key(|r| r.mv.map(Move::to_u16));
    Ok(PositionStats {
        moves,
        openings: Vec::new(),
        top: games,
    })
}

/// Step 1's result: merged move rows, opening labels and candidate top games.
#[derive(Default)]
struct Gathered {
    by_move: HashMap<Option<Move>, MoveRow>,
    labels: HashMap<String, u64>,
    top: Vec<GameThrough>,
}

/// Step 1: the statistics of each key (the position and, with `mirror`, its mirror), moves of
/// the mirror mirrored back.
fn gather(store: &Store, q: &Query, keys: &[(u64, bool)]) -> Result<Gathered, Error> {
    let mut out = Gathered::default();
    let n = if q.top_move.is_some() { 0 } else { q.top_games };
    for &(k, mirrored) in keys {
        let fix = |m: Option<Move>| if mirrored { m.map(Move::mirror) } else { m };
        let stats = if q.filter.is_empty() {
            // The store's kept best games are ordered by rating and date only; they are
            // re-ranked below ([`top_rank`]). Reading more of them to re-rank costs a row per
            // game, so the preference for known results and names is exact only where the
            // store's order has it (the filtered path ranks every game).
            store.lookup(PositionKey(k), n)?
        } else {
            let mut s = gather_filtered(store, k, &q.filter, n)?;
            // The name is the position's, whatever the filter.
            s.openings = store.lookup(PositionKey(k), 0)?.openings;
            s
        };
        for row in stats.moves {
            out.by_move.entry(fix(row.mv)).or_default().merge(&row);
        }
        for o in stats.openings {
            *out.labels.entry(o.label).or_default() += o.games;
        }
        out.top.extend(stats.top.into_iter().map(|mut g| {
            g.mv = fix(g.mv);
            g
        }));
    }
    Ok(out)
}

/// Names that stand for "unknown" (compared folded): empty, question marks, `-`, `nn`,
/// `unknown`, and the side placeholders some programs write (`红方棋手`, `黑方`, …).
fn is_real_name(name: Option<&str>) -> bool {
    const PLACEHOLDERS: [&str; 10] = [
        "-",
        "nn",
        "unknown",
        "红方",
        "黑方",
        "紅方",
        "红方棋手",
        "黑方棋手",
        "紅方棋手",
        "黑方選手",
    ];
    name.is_some_and(|n| {
        let f = fold(n);
        !f.chars().all(|c| c == '?') && !PLACEHOLDERS.contains(&f.as_str())
    })
}

/// The sort key of the top-games list, smallest first: a known result first, then real names
/// on both sides, then the store's order (higher mean rating, later date, smaller id).
pub fn top_rank(g: &GameThrough) -> (bool, bool, (std::cmp::Reverse<u64>, i64)) {
    (
        g.result.is_none(),
        !(is_real_name(g.first.as_deref()) && is_real_name(g.second.as_deref())),
        g.top_key(),
    )
}

/// Step 2: the top games, best first: the candidates, or with `top_move` the games that
/// played it here.
fn top_games(
    store: &Store,
    q: &Query,
    keys: &[(u64, bool)],
    candidates: Vec<GameThrough>,
) -> Result<Vec<TopGame>, Error> {
    if q.top_games == 0 {
        return Ok(Vec::new());
    }
    let mut top = match q.top_move {
        None => candidates,
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
            top
        }
    };
    top.sort_by_cached_key(top_rank);
    top.truncate(q.top_games);
    Ok(top
        .into_iter()
        .map(|g| TopGame {
            id: g.id,
            first: g.first,
            second: g.second,
            result: g.result,
            date: g.date,
            event: g.event,
        })
        .collect())
}

/// Why no game passed: the database is empty for the variant, the filters removed the games,
/// the position is deeper than the database indexes, or no game reaches it.
fn why_empty(store: &Store, q: &Query, keys: &[(u64, bool)]) -> Result<NoGames, Error> {
    if store.games(q.line.position.variant()).next().is_none() {
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

/// Step 3: totals, the moves most played first (ties in canonical text order), the opening.
fn assemble(q: &Query, g: Gathered, top_games: Vec<TopGame>) -> Answer {
    let pos = &q.line.position;
    let mut counts = GameCounts::default();
    for t in g.by_move.values() {
        counts.merge(&t.counts);
    }
    let mut moves: Vec<(Move, MoveRow)> = g
        .by_move
        .into_iter()
        .filter_map(|(m, t)| m.map(|m| (m, t)))
        .collect();
    moves.sort_by_cached_key(|(m, t)| (std::cmp::Reverse(t.counts.games), m.to_string()));
    if q.limit > 0 {
        moves.truncate(q.limit);
    }
    Answer {
        variant: pos.variant(),
        fen: pos.fen(),
        key: pos.key(),
        turn: pos.turn(),
        counts,
        opening: name_position(pos.variant(), &g.labels),
        moves: moves
            .into_iter()
            .map(|(m, t)| MoveLine {
                mv: m,
                notation: notations(pos, m),
                counts: t.counts,
                last_date: t.last_date,
                eval: None,
            })
            .collect(),
        top_games,
        no_games: None,
        engine_best: None,
    }
}

/// Step 4: the engine's scores of the moves and its own choice, where `qipu analyse` stored
/// them (for the position itself, not its mirror).
fn attach_evals(store: &Store, pos: &AnyPosition, answer: &mut Answer) -> Result<(), StoreError> {
    let evals = store.evals_at(answer.key)?;
    if evals.is_empty() {
        return Ok(());
    }
    let eval_of = |m: Move| evals.iter().find(|e| e.mv == m).cloned();
    for line in &mut answer.moves {
        line.eval = eval_of(line.mv);
    }
    if let Some(best) = store.engine_best(answer.key)? {
        answer.engine_best = best.mv.map(|mv| EngineChoice {
            mv,
            notation: notations(pos, mv),
            eval: eval_of(mv),
            depth: best.depth,
            engine: best.engine,
        });
    }
    Ok(())
}

/// Answers a query from the store: the position's totals, its moves (most played first),
/// the opening name and the top games.
///
/// # Errors
/// [`Error::Query`] if the mirrored position cannot be built, [`Error::Store`] if the
/// database fails.
pub fn explore(store: &Store, q: &Query) -> Result<Answer, Error> {
    let pos = &q.line.position;
    let mut keys = vec![(pos.key(), false)];
    if q.mirror {
        if let Some(k) = mirror_key(pos)? {
            keys.push((k, true));
        }
    }
    let mut gathered = gather(store, q, &keys)?;
    let candidates = std::mem::take(&mut gathered.top);
    let top = top_games(store, q, &keys, candidates)?;
    let mut answer = assemble(q, gathered, top);
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
    use super::is_real_name;

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
