//! The book builder: replays a stream of games, counts every (position, move) under a format's
//! key scheme, and selects the moves that go into the book.
//!
//! The builder does not know where games come from (a database, files, a test); it replays each
//! game itself because the book keys are computed from the board, and because ElephantEye
//! weights count every ply.
//!
//! Counting, per (position key, move), with the position folded with its mirror image when
//! [`MirrorMode::Merge`] is asked for (see [`KeyScheme`]):
//! - `plays` and `eleeye`: every ply of every game, repetitions included. `eleeye` adds
//!   win 3 / draw 1 / loss −1 for the side to move (0 for an unknown result), exactly as
//!   ElephantEye's MAKEBOOK does.
//! - `games`, `wins`, `draws`, `losses`: once per game (a game that reaches the same position
//!   twice and plays the same move counts once); results are from the mover's view.
//!
//! ```
//! use qipu::book::{build, eleeye::EleeyeKeys, BookGame, BookOptions, Format};
//! use qipu::rules::{AnyPosition, Color, Move, Outcome, Variant};
//! let game = BookGame {
//!     start: AnyPosition::new(Variant::Xiangqi),
//!     moves: vec!["h2e2".parse::<Move>()?, "h9g7".parse()?],
//!     result: Some(Outcome::Decisive { winner: Color::First }),
//! };
//! let mut opts = BookOptions::for_format(Format::Eleeye);
//! opts.ratio = 1;
//! let book = build::<EleeyeKeys>(vec![game].into_iter().map(Ok), &opts)?;
//! // The start position is symmetric: h2e2 is stored with its mirror b2e2 (win: 3 each);
//! // Black's reply after h2e2 lost (−1) and is left out.
//! assert_eq!(book.records.len(), 2);
//! assert!(book.records.iter().all(|r| r.weight == 3));
//! # Ok::<_, Box<dyn std::error::Error>>(())
//! ```

use std::{
    collections::{HashMap, HashSet},
    fmt,
    hash::{BuildHasherDefault, Hash, Hasher},
    sync::Arc,
};

use super::{BookError, Format};
use crate::{
    formats::facts::Score,
    rules::{AnyPosition, Color, JanggiRules, Move, Outcome, Variant},
};

/// One game to learn from: where it starts, the moves played (legal, in qipu's encoding; Janggi
/// games are replayed under [`JanggiRules::SERVER`], as `formats::replay` does) and its result
/// if known.
#[derive(Clone, Debug)]
pub struct BookGame {
    /// Start position (the game's own, not necessarily the standard start).
    pub start: AnyPosition,
    /// The main line.
    pub moves: Vec<Move>,
    /// Result; `None` when unknown or unfinished.
    pub result: Option<Outcome>,
}

/// How a move's weight is computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Weights {
    /// ElephantEye's MAKEBOOK: sum over every ply of win 3 / draw 1 / loss −1 for the mover,
    /// kept when the sum reaches the ratio, divided by the ratio.
    Eleeye,
    /// Number of games that played the move, divided by the ratio.
    Games,
    /// Score in half points for the mover (2 per win, 1 per draw), divided by the ratio.
    Score,
    /// Number of games the mover won, divided by the ratio.
    Wins,
    /// The engine's score of the move for its mover, as stored by `qipu analyse` (or taken
    /// from records): [`engine_weight`], a logistic of the centipawns from 1 to 999, 1000
    /// for a mate the mover gives and 1 for a mate against it; divided by the ratio. Moves
    /// without a score are left out ([`BuiltBook::unscored`]).
    Engine,
}

impl Weights {
    /// The name used on the command line and in qipu books.
    pub const fn name(self) -> &'static str {
        match self {
            Weights::Eleeye => "eleeye",
            Weights::Games => "games",
            Weights::Score => "score",
            Weights::Wins => "wins",
            Weights::Engine => "engine",
        }
    }

    /// Code stored in a qipu book header.
    pub const fn code(self) -> u8 {
        match self {
            Weights::Eleeye => 0,
            Weights::Games => 1,
            Weights::Score => 2,
            Weights::Wins => 3,
            Weights::Engine => 4,
        }
    }

    /// Inverse of [`Weights::code`].
    pub const fn from_code(code: u8) -> Option<Weights> {
        match code {
            0 => Some(Weights::Eleeye),
            1 => Some(Weights::Games),
            2 => Some(Weights::Score),
            3 => Some(Weights::Wins),
            4 => Some(Weights::Engine),
            _ => None,
        }
    }
}

/// Whose moves go into the book.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ForSide {
    /// Every move of both sides, from every game.
    Both,
    /// Only moves of this side, and only from games it won or drew.
    Only(Color),
}

/// Whether a position is folded with its left-right mirror image.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MirrorMode {
    /// Positions are stored as reached.
    Keep,
    /// A position and its mirror are one entry, stored in the orientation with the smaller key;
    /// a symmetric position stores each move together with its mirror image.
    Merge,
}

/// What goes into a book.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BookOptions {
    /// Only the first `max_ply` plies of each game (0: the whole game).
    pub max_ply: usize,
    /// A move must have been played in at least this many games.
    pub min_games: u32,
    /// A move must score at least this many percent for the mover (0: no limit).
    pub min_score: u32,
    /// Whose moves.
    pub for_side: ForSide,
    /// How weights are computed.
    pub weights: Weights,
    /// Mirror folding.
    pub mirror: MirrorMode,
    /// Weights are divided by this (C integer division); at least 1.
    pub ratio: u32,
    /// The engine's scores, for `min_cp` (`qipu book --min-eval`) and [`Weights::Engine`].
    pub evals: Option<EngineEvals>,
}

/// Engine scores of moves, by (qipu position key, move as played there), each from its
/// mover's view with the depth of its search (`Store::eval_scores`).
pub type EvalScores = HashMap<(u64, Move), (Score, u32)>;

/// The engine's scores a book is built with: a move scored below `min_cp` for its mover (or
/// being mated) is left out, a move without a score is kept; [`Weights::Engine`] weighs by
/// them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineEvals {
    /// The lowest score kept, centipawns from the mover's view (`None`: no limit).
    pub min_cp: Option<i32>,
    /// The scores.
    pub scores: Arc<EvalScores>,
}

impl EngineEvals {
    /// The stored score of a move, if any.
    pub fn score(&self, key: u64, mv: Move) -> Option<(Score, u32)> {
        self.scores.get(&(key, mv)).copied()
    }

    /// Whether a move with this score stays in the book under `min_cp`.
    ///
    /// ```
    /// use qipu::book::EngineEvals;
    /// use qipu::formats::facts::Score;
    /// let e = EngineEvals { min_cp: Some(-50), scores: Default::default() };
    /// assert!(e.keeps(None) && e.keeps(Some(Score::Cp(-50))) && e.keeps(Some(Score::Mate(3))));
    /// assert!(!e.keeps(Some(Score::Cp(-51))) && !e.keeps(Some(Score::Mate(-2))));
    /// ```
    pub fn keeps(&self, score: Option<Score>) -> bool {
        match (self.min_cp, score) {
            (None, _) | (_, None) => true,
            (Some(min), Some(Score::Cp(cp))) => cp >= min,
            (Some(_), Some(Score::Mate(n))) => n > 0,
        }
    }
}

/// The weight [`Weights::Engine`] gives a move of this score for its mover (before the
/// ratio): `round(1000 / (1 + 10^(-cp / 400)))` within 1–999 (the expected score of a `cp`
/// advantage read as Elo points, in thousandths), 1000 for a mate the mover gives and 1 for
/// a mate it walks into. A greater score never gets a smaller weight.
///
/// ```
/// use qipu::book::engine_weight;
/// use qipu::formats::facts::Score;
/// assert_eq!(engine_weight(Score::Cp(0)), 500);
/// assert_eq!(engine_weight(Score::Cp(100)), 640);
/// assert_eq!(engine_weight(Score::Cp(-100)), 360);
/// assert_eq!(engine_weight(Score::Cp(5000)), 999);
/// assert_eq!(engine_weight(Score::Cp(-5000)), 1);
/// assert_eq!((engine_weight(Score::Mate(7)), engine_weight(Score::Mate(-1))), (1000, 1));
/// ```
pub fn engine_weight(score: Score) -> u32 {
    match score {
        Score::Mate(n) if n > 0 => 1000,
        Score::Mate(_) => 1,
        Score::Cp(cp) => {
            let p = 1.0 / (1.0 + 10f64.powf(-f64::from(cp) / 400.0));
            // p is in [0, 1]: the cast cannot overflow
            ((1000.0 * p).round() as u32).clamp(1, 999)
        }
    }
}

impl BookOptions {
    /// The defaults of a format, as an engine author would build a book:
    /// - `eleeye`: ElephantEye's MAKEBOOK settings, bit for bit (whole games, eleeye weights,
    ///   ratio 4 so that a move needs a sum of at least 4, i.e. two decided games or more;
    ///   mirrors merged);
    /// - `obk` (positions as reached) and `qipu` (mirrors merged): game counts, the first
    ///   [`BookOptions::OPENING_PLIES`] plies only and a move played in at least
    ///   [`BookOptions::MIN_GAMES`] games: the opening, where a book helps an engine, and not
    ///   the single-game endgame moves that would make most of a whole-game book.
    ///
    /// Both sides, no minimum score.
    ///
    /// ```
    /// use qipu::book::{BookOptions, Format};
    /// let o = BookOptions::for_format(Format::Obk);
    /// assert_eq!((o.max_ply, o.min_games), (40, 2));
    /// let e = BookOptions::for_format(Format::Eleeye);
    /// assert_eq!((e.max_ply, e.min_games, e.ratio), (0, 1, 4));
    /// ```
    pub fn for_format(format: Format) -> BookOptions {
        let (weights, ratio, mirror) = match format {
            Format::Eleeye => (Weights::Eleeye, 4, MirrorMode::Merge),
            Format::Obk => (Weights::Games, 1, MirrorMode::Keep),
            Format::Qipu => (Weights::Games, 1, MirrorMode::Merge),
        };
        let (max_ply, min_games) = match format {
            Format::Eleeye => (0, 1),
            Format::Obk | Format::Qipu => (Self::OPENING_PLIES, Self::MIN_GAMES),
        };
        BookOptions {
            max_ply,
            min_games,
            min_score: 0,
            for_side: ForSide::Both,
            weights,
            mirror,
            ratio,
            evals: None,
        }
    }

    /// Default depth of `.obk` and qipu books: 40 plies (20 moves each), past which master
    /// games rarely share a position.
    pub const OPENING_PLIES: usize = 40;

    /// Default minimum number of games per move of `.obk` and qipu books: 2, as ElephantEye's
    /// MAKEBOOK keeps no move that a single game played (one win scores 3, under its ratio 4).
    pub const MIN_GAMES: u32 = 2;

    /// Every move of every whole game (no depth limit, no minimum): the format's weights and
    /// mirror handling only. For tests and for callers that filter themselves.
    pub fn everything(format: Format) -> BookOptions {
        BookOptions {
            max_ply: 0,
            min_games: 1,
            ..BookOptions::for_format(format)
        }
    }
}

/// The counts of one move in one position (see the module documentation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MoveStats {
    /// Times played, every ply counted.
    pub plays: u32,
    /// Sum of ElephantEye values (win 3, draw 1, loss −1) over every ply.
    pub eleeye: i64,
    /// Games that played it.
    pub games: u32,
    /// Of those, games the mover won.
    pub wins: u32,
    /// Drawn games.
    pub draws: u32,
    /// Games the mover lost.
    pub losses: u32,
    /// The engine's score of the move for its mover (the deepest of the orientations folded
    /// into this entry), when [`BookOptions::evals`] has one.
    pub eval: Option<(Score, u32)>,
}

/// One selected move of a built book.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BookRecord<K> {
    /// Position key in the format's scheme (of the stored orientation).
    pub key: K,
    /// The move, in the stored orientation.
    pub mv: Move,
    /// The weight, at least 1.
    pub weight: u32,
    /// What it was computed from.
    pub stats: MoveStats,
    /// Marks beyond the counts (engine moves, records kept under another format's key).
    pub flags: RecordFlags,
}

/// The marks of a record that the builder never sets: `qipu book extend` and `qipu book
/// convert` / `merge` do.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RecordFlags {
    /// An engine chose the move (`qipu book extend`), no game did.
    pub engine: bool,
    /// A record whose position is not known (read from a book of another format and not
    /// reached from a start position): the format whose key it keeps. `None`: the book's
    /// own key scheme.
    pub foreign: Option<Format>,
}

/// The selected moves of a book, sorted by (key, move).
#[derive(Clone, Debug)]
pub struct BuiltBook<K> {
    /// The game of every position.
    pub variant: Variant,
    /// The options it was built with.
    pub options: BookOptions,
    /// Games read.
    pub games: usize,
    /// Distinct (position, move) pairs seen before selection.
    pub candidates: usize,
    /// The records.
    pub records: Vec<BookRecord<K>>,
    /// Distinct (position, move) pairs (as played, before mirror folding) left out by
    /// [`EngineEvals::min_cp`].
    pub dropped_by_eval: usize,
    /// Entries left out under [`Weights::Engine`] because no score of theirs is stored.
    pub unscored: usize,
}

/// A format's position keys.
pub trait KeyScheme {
    /// The key; its order decides the stored orientation when mirrors are merged.
    type Key: Copy + Ord + Hash + fmt::Debug;
    /// The variants the format can store.
    fn supports(variant: Variant) -> bool;
    /// The key of a position as it stands.
    fn key(pos: &AnyPosition) -> Self::Key;
    /// The key of its left-right mirror image.
    fn mirror_key(pos: &AnyPosition) -> Self::Key;
}

/// A move's counts while building, with the last game (1-based) that counted it.
#[derive(Default)]
struct Tally {
    stats: MoveStats,
    last_game: u32,
}

/// Hasher for keys that are already Zobrist hashes: a multiply-rotate mix of the words written.
#[derive(Clone, Copy, Default)]
pub(crate) struct FastHasher(u64);

impl Hasher for FastHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u16(&mut self, n: u16) {
        self.write_u64(u64::from(n));
    }
    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(26) ^ n).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
}

pub(crate) type FastHash = BuildHasherDefault<FastHasher>;

/// The (key, move) pairs a ply is counted under.
fn emissions<S: KeyScheme>(
    pos: &AnyPosition,
    m: Move,
    mirror: MirrorMode,
) -> ([(S::Key, Move); 2], usize) {
    let k = S::key(pos);
    if mirror == MirrorMode::Keep {
        return ([(k, m); 2], 1);
    }
    let mk = S::mirror_key(pos);
    match k.cmp(&mk) {
        std::cmp::Ordering::Less => ([(k, m); 2], 1),
        std::cmp::Ordering::Greater => ([(mk, m.mirror()); 2], 1),
        std::cmp::Ordering::Equal => ([(k, m), (mk, m.mirror())], 2),
    }
}

/// MAKEBOOK's value of a move for its mover.
fn eleeye_value(mover: Color, result: Option<Outcome>) -> i64 {
    match result {
        Some(Outcome::Draw) => 1,
        Some(Outcome::Decisive { winner }) if winner == mover => 3,
        Some(Outcome::Decisive { .. }) => -1,
        None => 0,
    }
}

fn counted(for_side: ForSide, mover: Color, result: Option<Outcome>) -> bool {
    match for_side {
        ForSide::Both => true,
        ForSide::Only(side) => {
            side == mover
                && (matches!(result, Some(Outcome::Draw))
                    || matches!(result, Some(Outcome::Decisive { winner }) if winner == side))
        }
    }
}

/// Whether a move's games pass `min_games` and `min_score`, whatever its weight.
fn qualifies(stats: &MoveStats, opts: &BookOptions) -> bool {
    if stats.games < opts.min_games.max(1) {
        return false;
    }
    if opts.min_score > 0 {
        let decided = u64::from(stats.wins) + u64::from(stats.draws) + u64::from(stats.losses);
        let half_points = 2 * u64::from(stats.wins) + u64::from(stats.draws);
        // score% = 100 * half_points / (2 * decided) >= min_score
        if decided == 0 || 100 * half_points < 2 * decided * u64::from(opts.min_score) {
            return false;
        }
    }
    true
}

/// The weight of a move under the options, `None` when it is not selected.
pub fn select(stats: &MoveStats, opts: &BookOptions) -> Option<u32> {
    if !qualifies(stats, opts) {
        return None;
    }
    let ratio = i64::from(opts.ratio.max(1));
    let raw = match opts.weights {
        Weights::Eleeye => {
            if stats.eleeye < ratio {
                return None;
            }
            stats.eleeye
        }
        Weights::Games => i64::from(stats.games),
        Weights::Score => 2 * i64::from(stats.wins) + i64::from(stats.draws),
        Weights::Wins => i64::from(stats.wins),
        Weights::Engine => i64::from(engine_weight(stats.eval?.0)),
    };
    let w = raw / ratio;
    if w < 1 {
        None
    } else {
        Some(u32::try_from(w).unwrap_or(u32::MAX))
    }
}

/// Replays the games and builds the book of a key scheme.
///
/// Every game must be of one variant (the first game's) that the scheme supports; moves are
/// checked for legality.
///
/// # Errors
/// [`BookError::Build`] naming the game (0-based index in the stream), ply and move of the first
/// illegal move or a game of the wrong variant; errors of the input stream are passed on.
pub fn build<S: KeyScheme>(
    games: impl Iterator<Item = Result<BookGame, BookError>>,
    opts: &BookOptions,
) -> Result<BuiltBook<S::Key>, BookError> {
    let mut table: HashMap<(S::Key, Move), Tally, FastHash> = HashMap::default();
    let mut variant = None;
    let mut count = 0;
    let mut dropped = HashSet::new();
    for (index, game) in games.enumerate() {
        let game = game?;
        let game_no = u32::try_from(index + 1).unwrap_or(u32::MAX);
        count += 1;
        let v = game.start.variant();
        if !S::supports(v) {
            return Err(BookError::build(index, None, format!("{v} games")));
        }
        if *variant.get_or_insert(v) != v {
            return Err(BookError::build(
                index,
                None,
                "games of both variants".into(),
            ));
        }
        // Real records are played under the game servers' Janggi rules (play goes on after
        // bikjang and double passes), as `formats::replay` does.
        let mut pos = game.start.clone().with_janggi_rules(JanggiRules::SERVER);
        for (ply, &m) in game.moves.iter().enumerate() {
            if opts.max_ply > 0 && ply >= opts.max_ply {
                break;
            }
            let mover = pos.turn();
            if !pos.is_legal(m) {
                return Err(BookError::build(
                    index,
                    Some(ply + 1),
                    format!("illegal move {m} in {}", pos.fen()),
                ));
            }
            let eval = opts.evals.as_ref().and_then(|e| e.score(pos.key(), m));
            if opts
                .evals
                .as_ref()
                .is_some_and(|e| !e.keeps(eval.map(|s| s.0)))
            {
                dropped.insert((pos.key(), m));
                pos.play_unchecked(m);
                continue;
            }
            if counted(opts.for_side, mover, game.result) {
                let value = eleeye_value(mover, game.result);
                let (pairs, n) = emissions::<S>(&pos, m, opts.mirror);
                for &pair in &pairs[..n] {
                    let Tally {
                        stats: s,
                        last_game,
                    } = table.entry(pair).or_default();
                    s.plays = s.plays.saturating_add(1);
                    s.eleeye += value;
                    // the deepest score of the orientations folded here (the first on a tie)
                    if eval.is_some_and(|(_, d)| s.eval.is_none_or(|(_, had)| d > had)) {
                        s.eval = eval;
                    }
                    // first time in this game: count the game once
                    if *last_game != game_no {
                        *last_game = game_no;
                        s.games = s.games.saturating_add(1);
                        match game.result {
                            Some(Outcome::Draw) => s.draws = s.draws.saturating_add(1),
                            Some(Outcome::Decisive { winner }) if winner == mover => {
                                s.wins = s.wins.saturating_add(1)
                            }
                            Some(Outcome::Decisive { .. }) => s.losses = s.losses.saturating_add(1),
                            None => {}
                        }
                    }
                }
            }
            pos.play_unchecked(m);
        }
    }
    let candidates = table.len();
    let unscored = if opts.weights == Weights::Engine {
        table
            .values()
            .filter(|t| t.stats.eval.is_none() && qualifies(&t.stats, opts))
            .count()
    } else {
        0
    };
    let mut records: Vec<BookRecord<S::Key>> = table
        .into_iter()
        .filter_map(|((key, mv), Tally { stats, .. })| {
            select(&stats, opts).map(|weight| BookRecord {
                key,
                mv,
                weight,
                stats,
                flags: RecordFlags::default(),
            })
        })
        .collect();
    records.sort_by_key(|r| (r.key, r.mv));
    Ok(BuiltBook {
        variant: variant.unwrap_or(Variant::Xiangqi),
        options: opts.clone(),
        games: count,
        candidates,
        records,
        dropped_by_eval: dropped.len(),
        unscored,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(games: u32, wins: u32, draws: u32, losses: u32, eleeye: i64) -> MoveStats {
        MoveStats {
            plays: games,
            eleeye,
            games,
            wins,
            draws,
            losses,
            eval: None,
        }
    }

    #[test]
    fn selection_follows_the_options() {
        let mut o = BookOptions::for_format(Format::Eleeye);
        // MAKEBOOK: kept when sum >= ratio, weight = sum / ratio.
        assert_eq!(select(&stats(1, 1, 0, 0, 3), &o), None);
        assert_eq!(select(&stats(2, 1, 1, 0, 4), &o), Some(1));
        assert_eq!(select(&stats(9, 9, 0, 0, 27), &o), Some(6));
        assert_eq!(select(&stats(3, 0, 0, 3, -3), &o), None);
        o.weights = Weights::Score;
        o.ratio = 1;
        assert_eq!(select(&stats(4, 1, 2, 1, 0), &o), Some(4));
        o.min_score = 51; // 50% exactly fails
        assert_eq!(select(&stats(4, 1, 2, 1, 0), &o), None);
        o.min_score = 50;
        assert_eq!(select(&stats(4, 1, 2, 1, 0), &o), Some(4));
        o.weights = Weights::Wins;
        o.min_score = 0;
        assert_eq!(select(&stats(4, 0, 2, 2, 0), &o), None);
        o.weights = Weights::Games;
        o.min_games = 5;
        assert_eq!(select(&stats(4, 0, 2, 2, 0), &o), None);
        // engine weights: the logistic of the score, nothing without one, divided by the ratio
        o.weights = Weights::Engine;
        o.min_games = 1;
        let scored = |cp| MoveStats {
            eval: Some((Score::Cp(cp), 10)),
            ..stats(1, 0, 0, 1, -1)
        };
        assert_eq!(select(&stats(4, 4, 0, 0, 12), &o), None);
        assert_eq!(select(&scored(0), &o), Some(500));
        assert_eq!(select(&scored(-100), &o), Some(360));
        o.ratio = 10;
        assert_eq!(select(&scored(100), &o), Some(64));
        assert_eq!(
            select(&scored(-5000), &o),
            None,
            "weight 1 / 10 = 0: left out"
        );
    }

    #[test]
    fn engine_weights_never_fall_as_the_score_rises() {
        let mut last = 0;
        for cp in (-3000..=3000).step_by(7) {
            let w = engine_weight(Score::Cp(cp));
            assert!(
                w >= last && (1..=999).contains(&w),
                "{cp}: {w} after {last}"
            );
            last = w;
        }
        assert!(engine_weight(Score::Mate(1)) > last);
        assert!(engine_weight(Score::Mate(-1)) <= engine_weight(Score::Cp(-3000)));
    }

    #[test]
    fn only_the_side_that_did_well() {
        let red_won = Some(Outcome::Decisive {
            winner: Color::First,
        });
        let red = ForSide::Only(Color::First);
        assert!(counted(red, Color::First, red_won));
        assert!(counted(red, Color::First, Some(Outcome::Draw)));
        assert!(!counted(red, Color::Second, red_won));
        assert!(!counted(red, Color::First, None));
        assert!(!counted(
            ForSide::Only(Color::Second),
            Color::Second,
            red_won
        ));
        assert!(counted(ForSide::Both, Color::Second, None));
    }
}
