//! [`GameCounts`]: games by result and the sums of their ratings — what the statistics of a
//! position or of a (position, move) add up, in the writer and in the explorer alike.

use crate::rules::{Color, Outcome};

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
    }
}
