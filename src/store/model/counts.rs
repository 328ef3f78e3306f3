//! How the store counts games: a move's row ([`MoveRow`], from [`Played`] games), a player's
//! results ([`PlayerCounts`]), a month of a history ([`MonthCounts`]) and the sums they share
//! ([`GameCounts`]), with the inverse of each count that a richer copy's delta needs. Values
//! and arithmetic only: no SQL, no blob format, nothing else of the store.

use crate::{
    formats::facts::Termination,
    rules::{Color, Move, Outcome},
};

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
    /// Only in the rows of [`crate::store::Store::player_moves`]: the player's results and their
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
    pub(in crate::store) fn uncount(&mut self, g: &Played<'_>) -> Option<(bool, bool)> {
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
    pub(in crate::store) fn remove(&mut self, c: &GameCounts) -> bool {
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
    pub(in crate::store) fn remove_game(
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
