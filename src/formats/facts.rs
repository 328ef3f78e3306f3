//! Facts about how a game was played, beside its tags: the time control and its speed
//! category, rated or casual, how the game ended, and an engine's view of a position as a
//! record may carry it. Readers fill them where their format says so; the store keeps them as
//! game columns and filter dimensions. Plain values: no parsing of any record format here
//! beyond the small texts each fact is written as.
//!
//! ```
//! use qipu::formats::facts::{Speed, TimeControl};
//!
//! let tc = TimeControl { base_secs: 300, increment_secs: 3 };
//! assert_eq!(tc.estimated_secs(), 420);
//! assert_eq!(tc.speed(), Speed::Blitz);
//! assert_eq!("rapid,classical".split(',').map(str::parse).collect::<Result<Vec<Speed>, _>>()?,
//!            vec![Speed::Rapid, Speed::Classical]);
//! # Ok::<_, String>(())
//! ```

use std::{fmt, str::FromStr};

/// A clock: base time and increment per move, in seconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TimeControl {
    /// Time for the whole game at the start, in seconds.
    pub base_secs: u32,
    /// Seconds added after each move.
    pub increment_secs: u32,
}

impl TimeControl {
    /// Estimated length of a game for one player, in seconds: base + 40 × increment (the
    /// estimate the Lichess explorer uses to put a clock into a speed category).
    pub fn estimated_secs(&self) -> u64 {
        u64::from(self.base_secs) + 40 * u64::from(self.increment_secs)
    }

    /// The speed category of this clock (see [`Speed::of_estimate`]).
    pub fn speed(&self) -> Speed {
        Speed::of_estimate(self.estimated_secs())
    }
}

impl fmt::Display for TimeControl {
    /// PGN `TimeControl` form: `base+increment` in seconds.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}+{}", self.base_secs, self.increment_secs)
    }
}

/// Speed category of a game, from its estimated length.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Speed {
    /// Estimated length under 3 minutes.
    Bullet,
    /// 3 minutes to under 8.
    Blitz,
    /// 8 minutes to under 25.
    Rapid,
    /// 25 minutes and more.
    Classical,
}

impl Speed {
    /// Every category, fastest first.
    pub const ALL: [Speed; 4] = [Speed::Bullet, Speed::Blitz, Speed::Rapid, Speed::Classical];

    /// The category of an estimated game length in seconds (base + 40 × increment): under
    /// 180 s bullet, under 480 s blitz, under 1,500 s rapid, else classical (the Lichess
    /// limits, without its ultra-bullet and correspondence classes).
    pub fn of_estimate(secs: u64) -> Speed {
        match secs {
            0..180 => Speed::Bullet,
            180..480 => Speed::Blitz,
            480..1500 => Speed::Rapid,
            _ => Speed::Classical,
        }
    }

    /// Lower-case name, as the CLI and the API write it.
    pub fn name(self) -> &'static str {
        match self {
            Speed::Bullet => "bullet",
            Speed::Blitz => "blitz",
            Speed::Rapid => "rapid",
            Speed::Classical => "classical",
        }
    }

    /// Small stable number for storage (0–3).
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The category stored as [`Speed::code`].
    pub fn from_code(code: u8) -> Option<Speed> {
        Speed::ALL.get(usize::from(code)).copied()
    }
}

impl FromStr for Speed {
    type Err = String;

    /// Case-insensitive category name.
    fn from_str(s: &str) -> Result<Speed, String> {
        let t = s.trim();
        Speed::ALL
            .into_iter()
            .find(|sp| sp.name().eq_ignore_ascii_case(t))
            .ok_or_else(|| format!("unknown speed `{t}` (bullet, blitz, rapid, classical)"))
    }
}

impl fmt::Display for Speed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Whether a game counted for rating.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Mode {
    /// The game counted for rating.
    Rated,
    /// A friendly game.
    Casual,
}

impl Mode {
    /// Both modes.
    pub const ALL: [Mode; 2] = [Mode::Rated, Mode::Casual];

    /// Lower-case name, as the CLI and the API write it.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Rated => "rated",
            Mode::Casual => "casual",
        }
    }

    /// Small stable number for storage (0–1).
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The mode stored as [`Mode::code`].
    pub fn from_code(code: u8) -> Option<Mode> {
        Mode::ALL.get(usize::from(code)).copied()
    }
}

impl FromStr for Mode {
    type Err = String;

    /// Case-insensitive `rated` or `casual`.
    fn from_str(s: &str) -> Result<Mode, String> {
        let t = s.trim();
        Mode::ALL
            .into_iter()
            .find(|m| m.name().eq_ignore_ascii_case(t))
            .ok_or_else(|| format!("unknown mode `{t}` (rated, casual)"))
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How a game ended, when the record says (or the final position shows).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Termination {
    /// The side to move was mated.
    Mate,
    /// The side to move had no legal move and was not in check.
    Stalemate,
    /// A player resigned.
    Resignation,
    /// A player ran out of time.
    Time,
    /// Drawn by agreement.
    Agreement,
    /// Decided by a repetition ruling (perpetual check or chase).
    Repetition,
    /// Janggi: decided on points (count).
    Count,
    /// Janggi: bikjang (the generals face each other).
    Bikjang,
    /// Another end the record names (abandoned, adjudicated, …).
    Other,
}

impl Termination {
    /// Every kind, in storage order.
    pub const ALL: [Termination; 9] = [
        Termination::Mate,
        Termination::Stalemate,
        Termination::Resignation,
        Termination::Time,
        Termination::Agreement,
        Termination::Repetition,
        Termination::Count,
        Termination::Bikjang,
        Termination::Other,
    ];

    /// Lower-case name, as JSON writes it.
    pub fn name(self) -> &'static str {
        match self {
            Termination::Mate => "mate",
            Termination::Stalemate => "stalemate",
            Termination::Resignation => "resignation",
            Termination::Time => "time",
            Termination::Agreement => "agreement",
            Termination::Repetition => "repetition",
            Termination::Count => "count",
            Termination::Bikjang => "bikjang",
            Termination::Other => "other",
        }
    }

    /// Small stable number for storage (1–9; 0 is left for "unknown").
    pub fn code(self) -> u8 {
        self as u8 + 1
    }

    /// The kind stored as [`Termination::code`] (0 and unknown codes give `None`).
    pub fn from_code(code: u8) -> Option<Termination> {
        Termination::ALL
            .get(usize::from(code.checked_sub(1)?))
            .copied()
    }
}

impl FromStr for Termination {
    type Err = String;

    /// Case-insensitive [`Termination::name`].
    fn from_str(s: &str) -> Result<Termination, String> {
        let t = s.trim();
        Termination::ALL
            .into_iter()
            .find(|k| k.name().eq_ignore_ascii_case(t))
            .ok_or_else(|| format!("unknown termination `{t}`"))
    }
}

impl fmt::Display for Termination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An engine's score of a position, from the side to move's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Score {
    /// Centipawns.
    Cp(i32),
    /// Mate in this many moves (negative: the side to move is mated).
    Mate(i32),
}

impl Score {
    /// A number that orders scores from the worst for the side to move to the best: being
    /// mated at once, later and later, then centipawns, then mating later, sooner.
    ///
    /// ```
    /// use qipu::formats::facts::Score;
    /// let order = [Score::Mate(0), Score::Mate(-2), Score::Mate(-9), Score::Cp(-300),
    ///     Score::Cp(41), Score::Cp(104), Score::Mate(7), Score::Mate(1)];
    /// assert!(order.windows(2).all(|w| w[0].rank() < w[1].rank()));
    /// ```
    pub fn rank(self) -> i64 {
        const MATES: i64 = 1 << 40;
        match self {
            Score::Cp(cp) => i64::from(cp),
            Score::Mate(n) if n > 0 => MATES - i64::from(n),
            Score::Mate(n) => -MATES - i64::from(n),
        }
    }
}

/// What an engine said of a position, as a record carries it (e.g. the elephantchess dataset's
/// UCI `info … score cp N … pv …` line for the position before a move).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineEval {
    /// The score, from the view of the side to move in that position.
    pub score: Score,
    /// Search depth, when given.
    pub depth: Option<u32>,
    /// Principal variation as written (UCI coordinates), possibly empty.
    pub pv: Vec<String>,
    /// Engine name, when the source says which engine.
    pub engine: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speed_limits_are_the_documented_ones() {
        let cases = [
            (0, Speed::Bullet),
            (179, Speed::Bullet),
            (180, Speed::Blitz),
            (479, Speed::Blitz),
            (480, Speed::Rapid),
            (1499, Speed::Rapid),
            (1500, Speed::Classical),
            (u64::MAX, Speed::Classical),
        ];
        for (secs, want) in cases {
            assert_eq!(Speed::of_estimate(secs), want, "{secs} s");
        }
        let tc = TimeControl {
            base_secs: 60,
            increment_secs: 3,
        };
        assert_eq!((tc.estimated_secs(), tc.speed()), (180, Speed::Blitz));
    }

    #[test]
    fn codes_and_names_round_trip() {
        for s in Speed::ALL {
            assert_eq!(Speed::from_code(s.code()), Some(s));
            assert_eq!(s.name().to_uppercase().parse::<Speed>(), Ok(s));
        }
        for m in Mode::ALL {
            assert_eq!(Mode::from_code(m.code()), Some(m));
            assert_eq!(m.name().parse::<Mode>(), Ok(m));
        }
        for t in Termination::ALL {
            assert_eq!(Termination::from_code(t.code()), Some(t));
            assert_eq!(t.name().parse::<Termination>(), Ok(t));
        }
        assert_eq!(Termination::from_code(0), None);
        assert_eq!(Speed::from_code(4), None);
        assert!("hyper".parse::<Speed>().is_err());
        assert!("ranked".parse::<Mode>().is_err());
    }
}
