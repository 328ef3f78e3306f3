//! The game facts blob (`game_facts.facts`): what a filtered question needs of one game, a
//! few bytes keyed by game id, so that a quiet position (at most `LIST_MAX` games) is
//! answered from its links without reading the games' rows. No SQL here.
//!
//! Frozen layout (format of schema 4; any change is a new schema version):
//!
//! ```text
//! facts = varint bucket (see `filter`: month × 165 + (band × 5 + speed) × 3 + mode)
//!         varint (day << 2 | result)   day 0–31 (0 = none), result 0 unknown, 1 first won,
//!                                      2 draw, 3 second won
//!         varint first rating + 1  (0 = unknown)
//!         varint second rating + 1 (0 = unknown)
//!         varint termination       (0 = unknown, else `Termination::code`)
//! ```

use super::{
    codec::{result_code, result_from_code},
    filter::{bucket, date_code, date_text, game_band, PER_MONTH},
    model::top_score_of,
    varint::{self, Reader},
    StoreError,
};
use crate::{
    formats::facts::{Mode, Speed, Termination},
    rules::Outcome,
};

/// The weight of the rating in a top score (`store::top_score`): below it, the date number.
const RATING_UNIT: u64 = 100_000_000;

/// What the buckets and a filtered count need of one game.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct GameFacts {
    /// The game's bucket (month, band, speed, mode).
    pub bucket: u32,
    /// Day of the month, 0 when the date has none.
    pub day: u8,
    /// Result, first player's view.
    pub result: Option<Outcome>,
    /// The players' ratings.
    pub ratings: [Option<u32>; 2],
    /// How the game ended.
    pub termination: Option<Termination>,
}

impl GameFacts {
    /// The facts of a game with this result, ratings, date, speed, mode and ending.
    pub(super) fn new(
        result: Option<Outcome>,
        ratings: [Option<u32>; 2],
        date: Option<&str>,
        speed: Option<Speed>,
        mode: Option<Mode>,
        termination: Option<Termination>,
    ) -> GameFacts {
        let (month, day) = date_code(date);
        GameFacts {
            bucket: bucket(month, game_band(ratings), speed, mode),
            day,
            result,
            ratings,
            termination,
        }
    }

    /// The month code of the bucket (0 = no date).
    pub(super) fn month(&self) -> u32 {
        self.bucket / PER_MONTH
    }

    /// The date as stored (`YYYY[-MM[-DD]]`), `None` for no date.
    pub(super) fn date(&self) -> Option<String> {
        date_text(self.month(), self.day)
    }

    /// An upper bound of the game's top score (`store::top_score`) from its facts alone: its
    /// score with real names (the facts do not keep the names), and with the greatest date
    /// number of its rating when its date has no month code (a stored date of another shape
    /// counts by its digits). A game that passes a filter is read fully only if this bound
    /// can still place it among the best.
    pub(super) fn top_score_bound(&self) -> u64 {
        let date = self.date();
        let score = top_score_of(self.result.is_some(), true, self.ratings, date.as_deref());
        if self.month() == 0 {
            score + (RATING_UNIT - 1)
        } else {
            score
        }
    }

    /// The blob stored in `game_facts.facts`.
    pub(super) fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(12);
        varint::put(&mut out, u64::from(self.bucket));
        varint::put(
            &mut out,
            u64::from(self.day) << 2 | result_code(self.result) as u64,
        );
        for r in self.ratings {
            varint::put(&mut out, r.map_or(0, |r| u64::from(r) + 1));
        }
        varint::put(
            &mut out,
            self.termination.map_or(0, |t| u64::from(t.code())),
        );
        out
    }

    /// The inverse of [`GameFacts::encode`].
    pub(super) fn decode(bytes: &[u8]) -> Result<GameFacts, StoreError> {
        let mut r = Reader::new(bytes, "game facts");
        let bucket: u32 = r.int()?;
        let day_result = r.u64()?;
        let day = u8::try_from(day_result >> 2)
            .ok()
            .filter(|d| *d <= 31)
            .ok_or_else(|| StoreError::Corrupt("game facts: bad day".into()))?;
        let mut ratings = [None, None];
        for slot in &mut ratings {
            let v: u32 = r.int()?;
            *slot = v.checked_sub(1);
        }
        let termination = Termination::from_code(r.int()?);
        if !r.is_empty() {
            return Err(StoreError::Corrupt("game facts: trailing bytes".into()));
        }
        Ok(GameFacts {
            bucket,
            day,
            result: result_from_code((day_result & 3) as i64),
            ratings,
            termination,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Color;

    #[test]
    fn facts_round_trip_and_reject_garbage() {
        let g = GameFacts::new(
            Some(Outcome::Decisive {
                winner: Color::Second,
            }),
            [Some(2450), None],
            Some("2021-03-09"),
            Some(Speed::Blitz),
            Some(Mode::Rated),
            Termination::from_code(1),
        );
        assert_eq!(g.date().as_deref(), Some("2021-03-09"));
        assert_eq!(GameFacts::decode(&g.encode()).unwrap(), g);
        let none = GameFacts::new(None, [None, None], None, None, None, None);
        assert_eq!(none.date(), None);
        assert_eq!(GameFacts::decode(&none.encode()).unwrap(), none);
        let mut bad = g.encode();
        bad.push(0);
        assert!(GameFacts::decode(&bad).is_err());
        assert!(GameFacts::decode(&g.encode()[..2]).is_err());
        assert!(GameFacts::decode(&[0, 0x80 | 1, 1, 0, 0, 0]).is_err());
    }

    #[test]
    fn the_score_bound_is_the_score_with_real_names_and_never_below_it() {
        let dates = [
            None,
            Some("2021"),
            Some("2021-03"),
            Some("2021-03-09"),
            Some("2021/03/09"),
            Some("9999-99-99"),
        ];
        for date in dates {
            for result in [None, Some(Outcome::Draw)] {
                for ratings in [[None, None], [Some(2450), None], [Some(120_000), Some(900)]] {
                    let g = GameFacts::new(result, ratings, date, None, None, None);
                    let real = top_score_of(result.is_some(), true, ratings, date);
                    let fake = top_score_of(result.is_some(), false, ratings, date);
                    let bound = g.top_score_bound();
                    assert!(bound >= real && real > fake, "{date:?}");
                    // A date of the stored shapes is bounded exactly.
                    if g.month() > 0 || date.is_none() {
                        assert!(bound == real || date.is_none(), "{date:?}");
                    }
                    // Never past the next rating's scores.
                    assert!(
                        bound < top_score_of(result.is_some(), true, ratings, None) + RATING_UNIT
                    );
                }
            }
        }
    }
}
