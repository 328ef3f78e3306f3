//! The opening explorer: statistics of a position and of every move played from it.
//!
//! Without filters the answer comes from [`Store::lookup`]: the position's summary, or its
//! few games (one row read, plus at most 32 game rows). With a filter (dates, rating, player,
//! event) it is computed from every game through the position, each contributing the move it
//! played there; the same games give the top-games list and the opening name.
//! Transpositions are merged by construction (positions are keyed by their Zobrist key);
//! `mirror` adds the left-right mirrored position, its moves mirrored back.
//!
//! ```
//! use qipu::explorer::{explore, Query};
//! use qipu::formats::{Game, MoveNode, Source};
//! use qipu::rules::{Outcome, Variant};
//! use qipu::store::{GameRecord, Store};
//!
//! let mut store = Store::open_in_memory()?;
//! let mut game = Game::new(Variant::Xiangqi, Source::default());
//! game.moves = vec![MoveNode::new("h2e2"), MoveNode::new("h9g7")];
//! game.tags.result = Some(Outcome::Draw);
//! store.write_batch(&[GameRecord::from_game(&game, 40).unwrap()])?;
//! let q = Query { variant: "xiangqi".into(), ..Query::default() };
//! let answer = explore(&store, &q)?;
//! assert_eq!((answer.games, answer.draws), (1, 1));
//! assert_eq!(answer.moves[0].mv, "h2e2");
//! # Ok::<_, qipu::explorer::Error>(())
//! ```

mod opening;
mod types;

use std::{
    collections::{BTreeMap, HashMap},
    fmt,
};

pub use opening::{ecco_name, name_position, opening_from_label};
pub use types::{Explore, GameSummary, MoveStats, Opening, Query};

use crate::{
    notation::{parse_move, render, Notation},
    rules::{AnyPosition, Color, JanggiRules, Move, Outcome, Variant},
    store::{GameCounts, GameThrough, MoveRow, PositionKey, Store, StoreError},
};

/// Why a query could not be answered.
#[derive(Debug)]
pub enum Error {
    /// The query is malformed: unknown variant, bad FEN, unplayable move, bad side.
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

/// Default number of top games when the query asks for 0.
pub const DEFAULT_TOP_GAMES: usize = 10;

/// The position a query names: its start (FEN or standard) with the moves played.
///
/// # Errors
/// [`Error::Query`] naming the bad variant, FEN or the first unplayable move.
pub fn query_position(q: &Query) -> Result<AnyPosition, Error> {
    let variant: Variant = if q.variant.is_empty() {
        Variant::Xiangqi
    } else {
        q.variant.parse().map_err(Error::Query)?
    };
    let start = match &q.fen {
        Some(fen) if !fen.trim().is_empty() => AnyPosition::from_fen(variant, fen.trim())
            .map_err(|e| Error::Query(format!("bad FEN: {e}")))?,
        _ => AnyPosition::new(variant),
    };
    let mut pos = start.with_janggi_rules(JanggiRules::SERVER);
    for (ply, text) in q
        .moves
        .iter()
        .flat_map(|m| m.split_whitespace())
        .enumerate()
    {
        let m =
            parse_move(&pos, text).map_err(|e| Error::Query(format!("move {}: {e}", ply + 1)))?;
        pos.play_unchecked(m);
    }
    Ok(pos)
}

fn is_filtered(q: &Query) -> bool {
    q.since.is_some()
        || q.until.is_some()
        || q.min_rating.is_some()
        || q.player.is_some()
        || q.event.is_some()
}

/// Compares two dates on their common prefix (`2007` vs `2007-05-01` compare equal), so a
/// partial date is kept unless it is certainly outside the range.
fn date_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    let n = a.len().min(b.len());
    a.as_bytes()[..n].cmp(&b.as_bytes()[..n])
}

fn contains_ci(hay: Option<&str>, needle: &str) -> bool {
    hay.is_some_and(|h| h.to_lowercase().contains(&needle.to_lowercase()))
}

/// Whether a game passes the query's filters.
///
/// - `since`/`until`: games without a date are left out; partial dates compare on their
///   common prefix.
/// - `min_rating`: the game needs at least one known rating, and every known rating at
///   least the minimum.
/// - `player`: case-insensitive substring of either player, or of the one on `side`.
/// - `event`: case-insensitive substring of the event.
fn passes(g: &GameThrough, q: &Query, side: Option<Color>) -> bool {
    if q.since.is_some() || q.until.is_some() {
        let Some(d) = g.date.as_deref() else {
            return false;
        };
        if q.since.as_deref().is_some_and(|s| date_cmp(d, s).is_lt()) {
            return false;
        }
        if q.until.as_deref().is_some_and(|u| date_cmp(d, u).is_gt()) {
            return false;
        }
    }
    if let Some(min) = q.min_rating {
        let known: Vec<u32> = [g.first_rating, g.second_rating]
            .into_iter()
            .flatten()
            .collect();
        if known.is_empty() || known.iter().any(|&r| r < min) {
            return false;
        }
    }
    if let Some(p) = &q.player {
        let ok = match side {
            Some(Color::First) => contains_ci(g.first.as_deref(), p),
            Some(Color::Second) => contains_ci(g.second.as_deref(), p),
            None => contains_ci(g.first.as_deref(), p) || contains_ci(g.second.as_deref(), p),
        };
        if !ok {
            return false;
        }
    }
    if let Some(e) = &q.event {
        if !contains_ci(g.event.as_deref(), e) {
            return false;
        }
    }
    true
}

fn parse_side(side: Option<&str>) -> Result<Option<Color>, Error> {
    match side.map(|s| s.to_ascii_lowercase()) {
        None => Ok(None),
        Some(s) => match s.as_str() {
            "" => Ok(None),
            "first" | "red" | "cho" | "white" | "w" => Ok(Some(Color::First)),
            "second" | "black" | "han" | "b" => Ok(Some(Color::Second)),
            other => Err(Error::Query(format!(
                "unknown side `{other}` (expected first or second)"
            ))),
        },
    }
}

fn summary(g: &GameThrough) -> GameSummary {
    GameSummary {
        id: g.id,
        first: g.first.clone(),
        second: g.second.clone(),
        result: g.result.map_or("*", Outcome::pgn).to_string(),
        date: g.date.clone(),
        event: g.event.clone(),
    }
}

/// The mirrored position's key, if it differs from the position's.
fn mirror_key(pos: &AnyPosition) -> Result<Option<u64>, Error> {
    let setup = pos.board().to_setup().mirror();
    let mirrored = AnyPosition::from_setup(pos.variant(), &setup)
        .map_err(|e| Error::Query(format!("mirrored position: {e}")))?;
    let k = mirrored.key();
    Ok((k != pos.key()).then_some(k))
}

/// Other notations of a move, for the `notation` object of [`MoveStats`]: `wxf` and
/// `chinese` (simplified) for Xiangqi, `korean` for Janggi.
pub fn notations(pos: &AnyPosition, m: Move) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    match pos.variant() {
        Variant::Xiangqi => {
            out.insert("wxf".to_string(), render(pos, m, Notation::Wxf));
            out.insert(
                "chinese".to_string(),
                render(pos, m, Notation::Chinese { traditional: false }),
            );
        }
        Variant::Janggi => {
            out.insert(
                "korean".to_string(),
                render(pos, m, Notation::Korean { hanja: false }),
            );
        }
    }
    out
}

/// Answers a query from the store: the position's totals, its moves (most played first),
/// the opening name and the top games.
///
/// # Errors
/// [`Error::Query`] for a malformed query, [`Error::Store`] if the database fails.
pub fn explore(store: &Store, q: &Query) -> Result<Explore, Error> {
    let pos = query_position(q)?;
    let variant = pos.variant();
    let side = parse_side(q.side.as_deref())?;
    let key = pos.key();
    let mut keys = vec![(PositionKey(key), false)];
    if q.mirror {
        if let Some(k) = mirror_key(&pos)? {
            keys.push((PositionKey(k), true));
        }
    }
    let top_n = if q.top_games == 0 {
        DEFAULT_TOP_GAMES
    } else {
        q.top_games
    };
    let fix = |m: Option<Move>, mirrored: bool| if mirrored { m.map(Move::mirror) } else { m };

    let mut by_move: HashMap<Option<Move>, MoveRow> = HashMap::new();
    let mut top: Vec<GameThrough> = Vec::new();
    let mut labels: HashMap<String, u64> = HashMap::new();
    for &(k, mirrored) in &keys {
        if is_filtered(q) {
            for mut g in store.games_through(k, None)? {
                if !passes(&g, q, side) {
                    continue;
                }
                g.mv = fix(g.mv, mirrored);
                by_move.entry(g.mv).or_default().add_game(
                    g.result,
                    [g.first_rating, g.second_rating],
                    g.date.as_deref(),
                );
                if let Some(label) = g.opening_label(variant) {
                    *labels.entry(label).or_default() += 1;
                }
                top.push(g);
            }
        } else {
            let stats = store.lookup(k, top_n)?;
            for row in stats.moves {
                by_move
                    .entry(fix(row.mv, mirrored))
                    .or_default()
                    .merge(&row);
            }
            top.extend(stats.top);
            for o in stats.openings {
                *labels.entry(o.label).or_default() += o.games;
            }
        }
    }
    if let Some(text) = q.top_move.as_deref().filter(|t| !t.trim().is_empty()) {
        let m =
            parse_move(&pos, text.trim()).map_err(|e| Error::Query(format!("top move: {e}")))?;
        top.clear();
        for &(k, mirrored) in &keys {
            let here = if mirrored { m.mirror() } else { m };
            for mut g in store.games_playing(k, Some(here), usize::MAX)? {
                if passes(&g, q, side) {
                    g.mv = fix(g.mv, mirrored);
                    top.push(g);
                }
            }
        }
    }
    top.sort_by_cached_key(GameThrough::top_key);
    top.truncate(top_n);

    let mut total = GameCounts::default();
    for t in by_move.values() {
        total.merge(&t.counts);
    }
    let turn = pos.turn();
    let mut moves: Vec<(Move, MoveRow)> = by_move
        .into_iter()
        .filter_map(|(m, t)| m.map(|m| (m, t)))
        .collect();
    // Most played first; ties in canonical text order.
    moves.sort_by_cached_key(|(m, t)| (std::cmp::Reverse(t.counts.games), m.to_string()));
    if q.limit > 0 {
        moves.truncate(q.limit);
    }
    let moves = moves
        .into_iter()
        .map(|(m, t)| MoveStats {
            mv: m.to_string(),
            notation: notations(&pos, m),
            games: t.counts.games,
            first_wins: t.counts.first_wins,
            draws: t.counts.draws,
            second_wins: t.counts.second_wins,
            score: t.counts.score(turn),
            avg_rating: (t.counts.rating_count > 0)
                .then(|| t.counts.rating_sum as f64 / t.counts.rating_count as f64),
            last_date: t.last_date.clone(),
        })
        .collect();
    let opening = opening::name_position(variant, &labels);

    Ok(Explore {
        variant: variant.name().to_string(),
        fen: pos.fen(),
        key: format!("{key:016x}"),
        games: total.games,
        first_wins: total.first_wins,
        draws: total.draws,
        second_wins: total.second_wins,
        opening,
        moves,
        top_games: top.iter().map(summary).collect(),
    })
}
