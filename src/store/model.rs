//! The store's values: what it is given ([`GameRecord`]) and what it answers ([`MoveRow`],
//! [`PositionStats`], [`GameThrough`], [`StoredGame`], [`DbStats`] …), with the small rules
//! that belong to them (how a game counts, the best-games order). No SQL and no blob format
//! here; every other file of the store may use these, and this one uses none of them.

use std::fmt;

use crate::{
    formats::{
        facts::{Mode, Speed, Termination},
        GameError, Source, Tags,
    },
    rules::{Color, Move, Outcome, Variant},
};

/// A position's key: qipu's frozen 64-bit Zobrist key ([`crate::rules::AnyPosition::key`]).
/// The database stores it as a signed 64-bit rowid; [`PositionKey::to_rowid`] and
/// [`PositionKey::from_rowid`] are the one place where the sign flips.
///
/// ```
/// use qipu::store::PositionKey;
/// let k = PositionKey::from(u64::MAX);
/// assert_eq!(k.to_rowid(), -1);
/// assert_eq!(PositionKey::from_rowid(-1), k);
/// assert_eq!(k.to_string(), "ffffffffffffffff");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct PositionKey(pub u64);

impl PositionKey {
    /// The key as the `INTEGER PRIMARY KEY` it is stored under (same bits, signed).
    pub fn to_rowid(self) -> i64 {
        self.0 as i64
    }

    /// The key stored as `rowid`.
    pub fn from_rowid(rowid: i64) -> PositionKey {
        PositionKey(rowid as u64)
    }

    /// The key as a number that sorts like its rowid (the sign bit flipped), for sorting
    /// keys in table order without a signed compare.
    pub fn table_order(self) -> u64 {
        self.0 ^ 1 << 63
    }
}

impl From<u64> for PositionKey {
    fn from(key: u64) -> PositionKey {
        PositionKey(key)
    }
}

impl fmt::Display for PositionKey {
    /// 16 lower-case hex digits.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:016x}", self.0)
    }
}

/// A replayed game reduced to what the store keeps: its identity hash, header, moves, and
/// each distinct position it went through (up to the depth limit) with the move played
/// there. Built by the import pipeline (`GameRecord::from_game`, in `pipeline/record.rs`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    /// Variant.
    pub variant: Variant,
    /// Content hash (see [`super::content_hash`]).
    pub hash: u64,
    /// Where it was read.
    pub source: Source,
    /// Header (the `raw` list is not stored).
    pub tags: Tags,
    /// Result: the header's, else the end the board shows (mate, stalemate, Janggi endings).
    pub result: Option<Outcome>,
    /// Start FEN when it is not the variant's standard start.
    pub start_fen: Option<String>,
    /// The main line.
    pub moves: Vec<Move>,
    /// The depth limit `positions` was listed with (0 = the whole game). A database holds
    /// one depth: [`super::Store::write_batch`] refuses a record of another.
    pub max_ply: usize,
    /// Each distinct position with the move played there (`None` for the final position),
    /// in order of first occurrence; a repeated position keeps the move of its last visit
    /// (see [`crate::formats::distinct_positions`]).
    pub positions: Vec<(PositionKey, Option<Move>)>,
    /// ECCO code (Xiangqi) or `first/second` formations (Janggi), for the opening name.
    pub opening_label: Option<String>,
    /// Set when the game is kept only up to the move before one that cannot be read or is
    /// illegal (`GameRecord::from_game_or_prefix`): that move's error, whose ply is the first
    /// move not kept. The store writes the ply in `games.truncated_ply`.
    pub truncated: Option<Box<GameError>>,
}

impl GameRecord {
    /// The 1-based ply of the move the game was cut before, if it was.
    pub fn truncated_ply(&self) -> Option<usize> {
        self.truncated.as_ref().and_then(|e| e.ply)
    }
}

impl crate::formats::Placed for GameRecord {
    fn source_mut(&mut self) -> &mut Source {
        &mut self.source
    }

    /// The offset of the error a truncated game keeps (placed in its file like a
    /// rejected game's).
    fn offset_mut(&mut self) -> Option<&mut Option<u32>> {
        self.truncated.as_mut().map(|e| &mut e.offset)
    }
}

impl GameRecord {
    /// About how much memory the record holds, for the import's batch budget.
    pub fn heap_bytes(&self) -> usize {
        let t = &self.tags;
        let text: usize = t
            .text_fields()
            .into_iter()
            .chain([&self.start_fen, &self.opening_label])
            .map(|s| s.as_ref().map_or(0, String::len))
            .sum();
        std::mem::size_of::<GameRecord>()
            + text
            + self.source.file.len()
            + self.moves.capacity() * std::mem::size_of::<Move>()
            + self.positions.capacity() * std::mem::size_of::<(PositionKey, Option<Move>)>()
    }
}

/// The statistics of one move from a position (or, with `mv == None`, of the games that
/// ended in it).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MoveRow {
    /// The move; `None` for "the game ended here".
    pub mv: Option<Move>,
    /// Games by result, and their players' known ratings.
    pub counts: GameCounts,
    /// Earliest date.
    pub first_date: Option<String>,
    /// Latest date.
    pub last_date: Option<String>,
    /// A game played on `first_date` (of those, the smallest id); `None` when no dated game
    /// was counted with its id.
    pub first_game: Option<i64>,
    /// Sum of the years of the games with a known date (a year at least).
    pub year_sum: u64,
    /// How many games `year_sum` holds.
    pub dated: u64,
    /// Only in the row of the games that ended here (`mv == None`): its games by how they
    /// ended, indexed by [`Termination::code`] (0 = unknown).
    pub endings: [u64; ENDINGS],
    /// Only in the rows of [`super::Store::player_moves`]: the player's results and their
    /// opponents' ratings.
    pub player: PlayerCounts,
}

/// Slots of [`MoveRow::endings`]: unknown, then one per [`Termination`].
pub const ENDINGS: usize = 1 + Termination::ALL.len();

/// A game as a [`MoveRow`] counts it.
#[derive(Clone, Copy, Debug, Default)]
pub struct Played<'a> {
    /// Game id.
    pub id: i64,
    /// Result, first player's view (`None` = unknown).
    pub result: Option<Outcome>,
    /// The players' ratings.
    pub ratings: [Option<u32>; 2],
    /// Date as stored (`YYYY[-MM[-DD]]`).
    pub date: Option<&'a str>,
    /// The year of `date`, when it is a date the store reads (see `filter::date_code`).
    pub year: Option<u32>,
    /// How the game ended.
    pub termination: Option<Termination>,
}

impl MoveRow {
    /// Counts one more game: its result (`None` = unknown), its players' ratings and date
    /// (without its id: `first_game` is left as it is, and no year is counted).
    pub fn add_game(
        &mut self,
        result: Option<Outcome>,
        ratings: [Option<u32>; 2],
        date: Option<&str>,
    ) {
        self.counts.add_game(result, ratings);
        self.take_first(date, None);
        self.widen_last(date);
    }

    /// Counts one more game with everything a row keeps of it.
    ///
    /// ```
    /// use qipu::store::{MoveRow, Played};
    /// let mut r = MoveRow::default();
    /// r.count(&Played { id: 7, date: Some("2020-05"), year: Some(2020), ..Played::default() });
    /// r.count(&Played { id: 3, date: Some("2020-05"), year: Some(2020), ..Played::default() });
    /// r.count(&Played { id: 1, date: Some("2021"), year: Some(2021), ..Played::default() });
    /// assert_eq!((r.first_date.as_deref(), r.first_game), (Some("2020-05"), Some(3)));
    /// assert_eq!((r.year_sum, r.dated, r.counts.games), (6061, 3, 3));
    /// ```
    pub fn count(&mut self, g: &Played<'_>) {
        self.counts.add_game(g.result, g.ratings);
        self.take_first(g.date, Some(g.id));
        self.widen_last(g.date);
        if let Some(y) = g.year {
            self.year_sum += u64::from(y);
            self.dated += 1;
        }
        if self.mv.is_none() {
            self.endings[g.termination.map_or(0, |t| usize::from(t.code()))] += 1;
        }
    }

    /// Takes a counted game off the row (the inverse of [`MoveRow::count`]), before it is
    /// counted again with other facts (a richer copy's, see `store::copies`). The sums lose
    /// it exactly; the first and last dates are a minimum and a maximum, so when the game
    /// held one of them it is cleared and reported lost, `(first, last)`: only a game
    /// counted next with a date as early (as late) gives the row an exact one again.
    /// Returns `None`, the row then unusable, if the row cannot have counted this game.
    pub(super) fn uncount(&mut self, g: &Played<'_>) -> Option<(bool, bool)> {
        if !self.counts.remove_game(g.result, g.ratings) {
            return None;
        }
        if let Some(y) = g.year {
            self.year_sum = self.year_sum.checked_sub(u64::from(y))?;
            self.dated = self.dated.checked_sub(1)?;
        }
        if self.mv.is_none() {
            let slot = &mut self.endings[g.termination.map_or(0, |t| usize::from(t.code()))];
            *slot = slot.checked_sub(1)?;
        }
        let Some(d) = g.date else {
            return Some((false, false));
        };
        let first = self.first_date.as_deref() == Some(d) && self.first_game == Some(g.id);
        if first {
            (self.first_date, self.first_game) = (None, None);
        }
        let last = self.last_date.as_deref() == Some(d);
        if last {
            self.last_date = None;
        }
        Some((first, last))
    }

    /// Adds another row's games (same move, or a transposition or mirror of it).
    pub fn merge(&mut self, other: &MoveRow) {
        self.counts.merge(&other.counts);
        self.take_first(other.first_date.as_deref(), other.first_game);
        self.widen_last(other.last_date.as_deref());
        self.year_sum += other.year_sum;
        self.dated += other.dated;
        for (a, b) in self.endings.iter_mut().zip(other.endings) {
            *a += b;
        }
        self.player.merge(&other.player);
    }

    /// Takes `date` (and its game) as the first date if it is earlier, or the same date with
    /// a smaller game id.
    fn take_first(&mut self, date: Option<&str>, game: Option<i64>) {
        let Some(d) = date else { return };
        let earlier = match self.first_date.as_deref() {
            None => true,
            Some(f) => (d, game.unwrap_or(i64::MAX)) < (f, self.first_game.unwrap_or(i64::MAX)),
        };
        if earlier {
            self.first_date = Some(d.to_string());
            self.first_game = game;
        }
    }

    /// Widens the last date to cover `last`.
    fn widen_last(&mut self, last: Option<&str>) {
        if let Some(d) = last {
            if self.last_date.as_deref().is_none_or(|l| d > l) {
                self.last_date = Some(d.to_string());
            }
        }
    }
}

/// One player's games in a row: their results and their opponents' known ratings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlayerCounts {
    /// Games.
    pub games: u64,
    /// Won by the player.
    pub wins: u64,
    /// Drawn.
    pub draws: u64,
    /// Lost by the player.
    pub losses: u64,
    /// Sum of the opponents' known ratings.
    pub opponent_rating_sum: u64,
    /// How many ratings `opponent_rating_sum` holds.
    pub opponent_rating_count: u64,
}

impl PlayerCounts {
    /// Counts a game the player played as `side`.
    pub fn add_game(&mut self, side: Color, result: Option<Outcome>, ratings: [Option<u32>; 2]) {
        self.games += 1;
        match result {
            Some(Outcome::Draw) => self.draws += 1,
            Some(Outcome::Decisive { winner }) if winner == side => self.wins += 1,
            Some(Outcome::Decisive { .. }) => self.losses += 1,
            None => {}
        }
        let opponent = match side {
            Color::First => ratings[1],
            Color::Second => ratings[0],
        };
        if let Some(r) = opponent {
            self.opponent_rating_sum += u64::from(r);
            self.opponent_rating_count += 1;
        }
    }

    /// Adds another player's counts.
    pub fn merge(&mut self, o: &PlayerCounts) {
        self.games += o.games;
        self.wins += o.wins;
        self.draws += o.draws;
        self.losses += o.losses;
        self.opponent_rating_sum += o.opponent_rating_sum;
        self.opponent_rating_count += o.opponent_rating_count;
    }
}

/// The results of a position's games of one month (its history).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MonthCounts {
    /// Year.
    pub year: u16,
    /// Month, 1–12.
    pub month: u8,
    /// Games.
    pub games: u64,
    /// Won by the first player.
    pub first_wins: u64,
    /// Drawn.
    pub draws: u64,
    /// Won by the second player.
    pub second_wins: u64,
}

impl MonthCounts {
    /// Adds games by result.
    pub fn add(&mut self, c: &GameCounts) {
        self.games += c.games;
        self.first_wins += c.first_wins;
        self.draws += c.draws;
        self.second_wins += c.second_wins;
    }

    /// Takes games by result off again (the inverse of [`MonthCounts::add`]); `false`,
    /// changing nothing, if these counts do not hold them.
    pub(super) fn remove(&mut self, c: &GameCounts) -> bool {
        let left = (|| {
            Some([
                self.games.checked_sub(c.games)?,
                self.first_wins.checked_sub(c.first_wins)?,
                self.draws.checked_sub(c.draws)?,
                self.second_wins.checked_sub(c.second_wins)?,
            ])
        })();
        let Some([games, first_wins, draws, second_wins]) = left else {
            return false;
        };
        (self.games, self.first_wins, self.draws, self.second_wins) =
            (games, first_wins, draws, second_wins);
        true
    }
}

/// A game that went through a position, with the move it played there.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameThrough {
    /// Game id.
    pub id: i64,
    /// Move played in the position; `None` if the game ended there.
    pub mv: Option<Move>,
    /// First player.
    pub first: Option<String>,
    /// Second player.
    pub second: Option<String>,
    /// First player's rating.
    pub first_rating: Option<u32>,
    /// Second player's rating.
    pub second_rating: Option<u32>,
    /// Result.
    pub result: Option<Outcome>,
    /// Date.
    pub date: Option<String>,
    /// Event.
    pub event: Option<String>,
    /// ECCO code as tagged.
    pub ecco: Option<String>,
    /// Janggi formation of the first player.
    pub first_formation: Option<String>,
    /// Janggi formation of the second player.
    pub second_formation: Option<String>,
    /// Speed category, when known.
    pub speed: Option<Speed>,
    /// Rated or casual, when known.
    pub mode: Option<Mode>,
    /// How the game ended, when known.
    pub termination: Option<Termination>,
}

impl GameThrough {
    /// The game's opening label: its ECCO code (Xiangqi) or `first/second` formations
    /// (Janggi).
    pub fn opening_label(&self, variant: Variant) -> Option<String> {
        crate::formats::tags::label_of(
            variant,
            self.ecco.as_deref(),
            self.first_formation.as_deref(),
            self.second_formation.as_deref(),
        )
    }

    /// The sort key of best-games lists, smallest first: the higher [`top_score`] (a known
    /// result, real names, the mean known rating, the later date), then the smaller id.
    pub fn top_key(&self) -> (std::cmp::Reverse<u64>, i64) {
        let score = top_score(
            self.result,
            [self.first.as_deref(), self.second.as_deref()],
            [self.first_rating, self.second_rating],
            self.date.as_deref(),
        );
        (std::cmp::Reverse(score), self.id)
    }
}

/// A person found by [`super::Store::players`]: a player under every spelling.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerRow {
    /// The name the person is shown by: the one a spelling file or `--merge` gives them, else
    /// their spelling with the most games (as written most often).
    pub name: String,
    /// Games they played (either side, every spelling).
    pub games: u64,
    /// Every spelling (player of the index) with its games, most games first.
    pub spellings: Vec<super::persons::Spelling>,
}

/// An opening label and how many games through the position carry it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpeningRow {
    /// ECCO code (Xiangqi) or `first/second` formations (Janggi).
    pub label: String,
    /// Games with that label.
    pub games: u64,
}

/// A stored game, as the opening-book writers and `GET /api/games/{id}` read it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredGame {
    /// Database id.
    pub id: i64,
    /// Variant.
    pub variant: Variant,
    /// Start position (the standard one filled in).
    pub start_fen: String,
    /// The main line.
    pub moves: Vec<Move>,
    /// Result, first player's view; `None` when unknown.
    pub result: Option<Outcome>,
    /// Header (normalised fields; `raw` is empty).
    pub tags: Tags,
    /// The file and index it was first imported from.
    pub source: Source,
}

/// Games per variant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VariantCount {
    /// Variant.
    pub variant: Variant,
    /// Games stored.
    pub games: u64,
}

/// What is in a database (`qipu stats`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DbStats {
    /// Games per variant.
    pub games: Vec<VariantCount>,
    /// Games kept up to a bad move (counted in `games` too).
    pub truncated: u64,
    /// Distinct positions with statistics.
    pub positions: u64,
    /// (position, move) rows.
    pub position_moves: u64,
    /// (position, game) links.
    pub position_games: u64,
    /// Depth limit the database was built with.
    pub max_ply: Option<usize>,
    /// File size in bytes (pages × page size).
    pub size_bytes: u64,
    /// Most frequent events: (event, games).
    pub top_events: Vec<(String, u64)>,
}

/// Everything the explorer shows of one position, read from its row at once.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PositionStats {
    /// Every move played from the position, by move code, plus a row with `mv == None` for
    /// the games that ended there.
    pub moves: Vec<MoveRow>,
    /// Opening labels of the games through the position, most frequent first (games
    /// without a label are left out).
    pub openings: Vec<OpeningRow>,
    /// The best games through it: best rated first, then latest, then by id.
    pub top: Vec<GameThrough>,
    /// The latest games through it: latest date first, then the greater id.
    pub recent: Vec<GameThrough>,
    /// Its games per month of play, by month (games dated to a year only, or not at all,
    /// are in no month); months without games are left out.
    pub history: Vec<MonthCounts>,
}

/// Games by result, and the known ratings of their players.
///
/// ```
/// use qipu::rules::{Color, Outcome};
/// use qipu::store::GameCounts;
/// let mut c = GameCounts::default();
/// c.add_game(Some(Outcome::Decisive { winner: Color::First }), [Some(2500), None]);
/// c.add_game(Some(Outcome::Draw), [Some(2400), Some(2600)]);
/// assert_eq!((c.games, c.first_wins, c.draws, c.second_wins), (2, 1, 1, 0));
/// assert_eq!((c.rating_sum, c.rating_count), (7500, 3));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GameCounts {
    /// Games.
    pub games: u64,
    /// Won by the first player (Red/Cho).
    pub first_wins: u64,
    /// Drawn.
    pub draws: u64,
    /// Won by the second player (Black/Han).
    pub second_wins: u64,
    /// Sum of the known ratings of both players.
    pub rating_sum: u64,
    /// How many ratings `rating_sum` holds.
    pub rating_count: u64,
    /// Sum of the known ratings of the first player (the second's are the rest).
    pub first_rating_sum: u64,
    /// How many ratings `first_rating_sum` holds.
    pub first_rating_count: u64,
}

impl GameCounts {
    /// Counts one game with its result (`None` = unknown) and its players' ratings.
    pub fn add_game(&mut self, result: Option<Outcome>, ratings: [Option<u32>; 2]) {
        self.games += 1;
        match result {
            Some(Outcome::Decisive {
                winner: Color::First,
            }) => self.first_wins += 1,
            Some(Outcome::Decisive {
                winner: Color::Second,
            }) => self.second_wins += 1,
            Some(Outcome::Draw) => self.draws += 1,
            None => {}
        }
        for r in ratings.into_iter().flatten() {
            self.rating_sum += u64::from(r);
            self.rating_count += 1;
        }
        if let Some(r) = ratings[0] {
            self.first_rating_sum += u64::from(r);
            self.first_rating_count += 1;
        }
    }

    /// Takes one game counted by [`GameCounts::add_game`] off again; `false`, changing
    /// nothing, if the counts cannot hold such a game.
    pub(super) fn remove_game(
        &mut self,
        result: Option<Outcome>,
        ratings: [Option<u32>; 2],
    ) -> bool {
        let mut one = GameCounts::default();
        one.add_game(result, ratings);
        let sub = |a: u64, b: u64| a.checked_sub(b);
        let left = (|| {
            Some(GameCounts {
                games: sub(self.games, one.games)?,
                first_wins: sub(self.first_wins, one.first_wins)?,
                draws: sub(self.draws, one.draws)?,
                second_wins: sub(self.second_wins, one.second_wins)?,
                rating_sum: sub(self.rating_sum, one.rating_sum)?,
                rating_count: sub(self.rating_count, one.rating_count)?,
                first_rating_sum: sub(self.first_rating_sum, one.first_rating_sum)?,
                first_rating_count: sub(self.first_rating_count, one.first_rating_count)?,
            })
        })();
        match left {
            Some(c) => {
                *self = c;
                true
            }
            None => false,
        }
    }

    /// The mean known rating of `side`'s players, `None` when none is known.
    ///
    /// ```
    /// use qipu::{rules::Color, store::GameCounts};
    /// let mut c = GameCounts::default();
    /// c.add_game(None, [Some(2500), Some(2000)]);
    /// c.add_game(None, [None, Some(2100)]);
    /// assert_eq!(c.mean_rating(Color::First), Some(2500.0));
    /// assert_eq!(c.mean_rating(Color::Second), Some(2050.0));
    /// ```
    pub fn mean_rating(&self, side: Color) -> Option<f64> {
        let (sum, n) = match side {
            Color::First => (self.first_rating_sum, self.first_rating_count),
            Color::Second => (
                self.rating_sum.saturating_sub(self.first_rating_sum),
                self.rating_count.saturating_sub(self.first_rating_count),
            ),
        };
        (n > 0).then(|| sum as f64 / n as f64)
    }

    /// The score of `side`: its wins plus half the draws, over the games with a known
    /// result (0.5 when none is known).
    ///
    /// ```
    /// use qipu::rules::Color;
    /// use qipu::store::GameCounts;
    /// let c = GameCounts { games: 5, first_wins: 2, draws: 1, second_wins: 1, ..Default::default() };
    /// assert_eq!(c.score(Color::First), 0.625);
    /// assert_eq!(c.score(Color::Second), 0.375);
    /// assert_eq!(GameCounts::default().score(Color::First), 0.5);
    /// ```
    pub fn score(&self, side: Color) -> f64 {
        let decided = self.first_wins + self.draws + self.second_wins;
        if decided == 0 {
            return 0.5;
        }
        let wins = match side {
            Color::First => self.first_wins,
            Color::Second => self.second_wins,
        };
        (wins as f64 + self.draws as f64 / 2.0) / decided as f64
    }

    /// Adds another set of counts.
    pub fn merge(&mut self, other: &GameCounts) {
        self.games += other.games;
        self.first_wins += other.first_wins;
        self.draws += other.draws;
        self.second_wins += other.second_wins;
        self.rating_sum += other.rating_sum;
        self.rating_count += other.rating_count;
        self.first_rating_sum += other.first_rating_sum;
        self.first_rating_count += other.first_rating_count;
    }
}

/// Whether a player name is a real one: not empty and not a word for "unknown" (compared
/// folded by [`crate::formats::names::fold`]): question marks, `-`, `nn`, `unknown`, and the
/// side placeholders some programs write (`红方棋手`, `黑方`, …).
///
/// ```
/// use qipu::store::is_real_name;
/// assert!(is_real_name(Some("呂欽")));
/// assert!(!is_real_name(Some(" ? ")) && !is_real_name(Some("紅方棋手")) && !is_real_name(None));
/// ```
pub fn is_real_name(name: Option<&str>) -> bool {
    const PLACEHOLDERS: [&str; 11] = [
        "-",
        "nn",
        "unknown",
        "红方",
        "黑方",
        "红方棋手",
        "黑方棋手",
        "红方选手",
        "黑方选手",
        "红棋",
        "黑棋",
    ];
    name.is_some_and(|n| {
        let f = crate::formats::names::fold(n);
        !f.is_empty() && !f.chars().all(|c| c == '?') && !PLACEHOLDERS.contains(&f.as_str())
    })
}

/// Sort key of the best-games lists, higher = better, the one ranking of every best-games
/// list (the kept list of a busy position, a quiet position's games, a filtered answer): a
/// known result first, then real names on both sides ([`is_real_name`]), then the higher
/// mean known rating, then the later date (`YYYYMMDD`, missing or unreadable parts 0). The
/// flags are bits 62 and 61, the rating × 10^8 and the date below them.
///
/// ```
/// use qipu::rules::Outcome;
/// use qipu::store::top_score;
/// let (named, unnamed) = ([Some("呂欽"), Some("胡榮華")], [Some("?"), Some("黑方棋手")]);
/// let draw = Some(Outcome::Draw);
/// // Rating, then date.
/// assert!(top_score(draw, named, [Some(2500), None], Some("2001"))
///     > top_score(draw, named, [None, None], Some("2020-01-02")));
/// // Real names before a rating, a known result before real names.
/// assert!(top_score(draw, named, [None, None], None)
///     > top_score(draw, unnamed, [Some(2700), Some(2700)], Some("2020")));
/// assert!(top_score(draw, unnamed, [None, None], None)
///     > top_score(None, named, [Some(2700), Some(2700)], Some("2020")));
/// ```
pub fn top_score(
    result: Option<Outcome>,
    names: [Option<&str>; 2],
    ratings: [Option<u32>; 2],
    date: Option<&str>,
) -> u64 {
    top_score_of(
        result.is_some(),
        names.into_iter().all(is_real_name),
        ratings,
        date,
    )
}

/// [`top_score`] with the result and the names already judged.
pub(super) fn top_score_of(
    known_result: bool,
    real_names: bool,
    ratings: [Option<u32>; 2],
    date: Option<&str>,
) -> u64 {
    let (sum, known) = ratings.into_iter().flatten().fold((0, 0), |(sum, n), r| {
        (sum + u64::from(r.min(99_999)), n + 1)
    });
    let rating = sum.checked_div(known).unwrap_or(0);
    (u64::from(known_result) << 62)
        | (u64::from(real_names) << 61)
        | (rating * 100_000_000 + date_number(date))
}

/// `YYYY-MM-DD` → YYYYMMDD as a number (missing or unreadable parts count as 0).
fn date_number(date: Option<&str>) -> u64 {
    let Some(d) = date else { return 0 };
    let mut parts = d.split('-').map(|p| p.parse::<u64>().unwrap_or(0));
    let y = parts.next().unwrap_or(0).min(9999);
    let m = parts.next().unwrap_or(0).min(99);
    let day = parts.next().unwrap_or(0).min(99);
    y * 10_000 + m * 100 + day
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_score_orders_result_names_rating_then_date() {
        let s = |result: bool, names: bool, r: [Option<u32>; 2], d: Option<&str>| {
            let names = if names {
                [Some("A"), Some("B")]
            } else {
                [Some("A"), Some("红方")]
            };
            top_score(result.then_some(Outcome::Draw), names, r, d)
        };
        let a = s(true, true, [Some(2600), Some(2500)], Some("2001"));
        let b = s(true, true, [Some(2500), None], Some("2020-01-01"));
        let c = s(true, true, [None, None], Some("2020-01-02"));
        let d = s(true, true, [None, None], Some("2020-01"));
        let e = s(
            true,
            false,
            [Some(99_999), Some(99_999)],
            Some("9999-99-99"),
        );
        let f = s(
            false,
            true,
            [Some(99_999), Some(99_999)],
            Some("9999-99-99"),
        );
        let g = s(false, false, [None, None], None);
        assert!(
            a > b && b > c && c > d && d > e && e > f && f > g,
            "{a} {b} {c} {d} {e} {f}"
        );
        assert_eq!(g, 0);
    }

    #[test]
    fn keys_sort_in_table_order_like_their_rowids() {
        let keys: Vec<PositionKey> = [u64::MAX, 0, 1 << 63, 5, (1 << 63) - 1, 1 << 62]
            .into_iter()
            .map(PositionKey)
            .collect();
        let mut by_rowid = keys.clone();
        by_rowid.sort_by_key(|k| k.to_rowid());
        let mut by_order = keys.clone();
        by_order.sort_by_key(|k| k.table_order());
        assert_eq!(by_rowid, by_order);
        for k in keys {
            assert_eq!(PositionKey::from_rowid(k.to_rowid()), k);
        }
    }
}
