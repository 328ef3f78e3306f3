//! The filter dimensions of the statistics: month of play, rating band, speed and mode, and
//! the [`BucketFilter`] the explorer asks with. No SQL and no blob here.
//!
//! Every game falls in one *bucket*: (month of play, rating band, speed, mode). A busy
//! position keeps its sums per (move, bucket) (see `buckets`), so that a filtered question is
//! a sum over buckets, exactly as a scan of the games would count it:
//!
//! - **month**: `year × 13 + month`, month 0 for a date of a year only, and a bucket of its
//!   own for games without a date. A bound compares on the precision both sides have (a
//!   partial date is kept unless it is certainly outside the range: `2020` passes
//!   `--since 2020-06`); games without a date fail any month bound.
//! - **rating band**: of the mean of the two known ratings (one known: that one): under 1000,
//!   then 200 wide from 1000 to 2599, then 2600 and more; unrated games fail any band bound.
//! - **speed**: [`Speed`] or unknown; **mode**: [`Mode`] or unknown. A speed (mode) set lets
//!   only games of those speeds (modes) pass; unknown ones fail it.

use std::{fmt, str::FromStr};

use crate::formats::facts::{Mode, Speed};

/// A month bound: a year, or a year and a month.
///
/// ```
/// use qipu::store::Month;
/// let m: Month = "2020-06".parse()?;
/// assert_eq!((m.year, m.month), (2020, Some(6)));
/// assert_eq!("1999".parse::<Month>()?.month, None);
/// assert!("2010-13".parse::<Month>().is_err());
/// assert!("2010-06-01".parse::<Month>().is_err());
/// # Ok::<_, String>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Month {
    /// The year, 1000–2999 (as `formats::tags::parse_date` reads dates).
    pub year: u16,
    /// The month, 1–12, if the bound has one.
    pub month: Option<u8>,
}

impl FromStr for Month {
    type Err = String;

    /// `YYYY` or `YYYY-MM`.
    fn from_str(s: &str) -> Result<Month, String> {
        let t = s.trim();
        let bad = || format!("bad month `{t}` (expected YYYY or YYYY-MM, e.g. 2020-06)");
        let (y, m) = match t.split_once('-') {
            Some((y, m)) => (y, Some(m)),
            None => (t, None),
        };
        if y.len() != 4 || !y.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        let year: u16 = y.parse().map_err(|_| bad())?;
        if !(1000..=2999).contains(&year) {
            return Err(bad());
        }
        let month = match m {
            None => None,
            Some(m) => {
                let n: u8 = (m.len() <= 2 && m.bytes().all(|b| b.is_ascii_digit()))
                    .then(|| m.parse().ok())
                    .flatten()
                    .ok_or_else(bad)?;
                if !(1..=12).contains(&n) {
                    return Err(bad());
                }
                Some(n)
            }
        };
        Ok(Month { year, month })
    }
}

impl fmt::Display for Month {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.month {
            Some(m) => write!(f, "{:04}-{m:02}", self.year),
            None => write!(f, "{:04}", self.year),
        }
    }
}

/// Rating bands: 0 unrated, 1 under 1000, 2–9 from 1000 in steps of 200, 10 for 2600 and
/// more.
pub(super) const BANDS: u32 = 11;
/// Speed codes: 0 unknown, 1 + [`Speed::code`].
pub(super) const SPEEDS: u32 = 5;
/// Mode codes: 0 unknown, 1 + [`Mode::code`].
pub(super) const MODES: u32 = 3;
/// Buckets per month: band × speed × mode.
pub(super) const PER_MONTH: u32 = BANDS * SPEEDS * MODES;

/// The band of a rating, 1–10: 1 under 1000, then 200 wide from 1000 to 2599, and 10 for
/// 2600 and more (band 0 holds the unrated games).
///
/// ```
/// use qipu::store::rating_band;
/// assert_eq!(rating_band(999), 1);
/// assert_eq!(rating_band(1000), 2);
/// assert_eq!(rating_band(2599), 9);
/// assert_eq!(rating_band(2600), 10);
/// ```
pub fn rating_band(rating: u32) -> u8 {
    if rating < 1000 {
        1
    } else {
        (2 + (rating - 1000) / 200).min(10) as u8
    }
}

/// The lowest rating of a band (1–10), as `--help` and the README write the bands.
pub fn band_floor(band: u8) -> u32 {
    match band {
        0 | 1 => 0,
        b => 1000 + 200 * u32::from(b - 2),
    }
}

/// The band of a game: of the mean of its known ratings, 0 when none is known.
pub(super) fn game_band(ratings: [Option<u32>; 2]) -> u8 {
    match ratings {
        [Some(a), Some(b)] => rating_band(((u64::from(a) + u64::from(b)) / 2) as u32),
        [Some(r), None] | [None, Some(r)] => rating_band(r),
        [None, None] => 0,
    }
}

/// A game's date as the buckets keep it: the month code (0 = no date, else 1 + year × 13 +
/// month, month 0 for a year alone) and the day (0 = none). A date that is not
/// `YYYY[-MM[-DD]]` (as `formats::tags::parse_date` writes them) counts as no date.
pub(super) fn date_code(date: Option<&str>) -> (u32, u8) {
    let Some(d) = date else { return (0, 0) };
    let b = d.as_bytes();
    let digits = |r: std::ops::Range<usize>| -> Option<u32> {
        let part = b.get(r)?;
        part.iter()
            .all(u8::is_ascii_digit)
            .then(|| part.iter().fold(0, |n, c| n * 10 + u32::from(c - b'0')))
    };
    let shape_ok = match b.len() {
        4 => true,
        7 => b[4] == b'-',
        10 => b[4] == b'-' && b[7] == b'-',
        _ => false,
    };
    if !shape_ok {
        return (0, 0);
    }
    let (Some(year), month, day) = (
        digits(0..4),
        if b.len() >= 7 { digits(5..7) } else { Some(0) },
        if b.len() == 10 {
            digits(8..10)
        } else {
            Some(0)
        },
    ) else {
        return (0, 0);
    };
    match (month, day) {
        (Some(m), Some(day)) if m <= 12 && day <= 31 && (m > 0 || day == 0) => {
            (1 + year * 13 + m, day as u8)
        }
        _ => (0, 0),
    }
}

/// The date a month code and a day stand for, as `YYYY`, `YYYY-MM` or `YYYY-MM-DD`.
pub(super) fn date_text(month: u32, day: u8) -> Option<String> {
    let code = month.checked_sub(1)?;
    let (y, m) = (code / 13, code % 13);
    Some(match (m, day) {
        (0, _) => format!("{y:04}"),
        (m, 0) => format!("{y:04}-{m:02}"),
        (m, d) => format!("{y:04}-{m:02}-{d:02}"),
    })
}

/// The year of a month code (see [`date_code`]), `None` for no date.
pub(super) fn year_of(month: u32) -> Option<u32> {
    month.checked_sub(1).map(|c| c / 13)
}

/// The year and month of a month code, `None` for no date or a year alone.
pub(super) fn calendar_month(month: u32) -> Option<(u16, u8)> {
    let c = month.checked_sub(1)?;
    let m = (c % 13) as u8;
    (m > 0).then_some(((c / 13) as u16, m))
}

/// The bucket of a game: `month × PER_MONTH + (band × SPEEDS + speed) × MODES + mode`.
pub(super) fn bucket(month: u32, band: u8, speed: Option<Speed>, mode: Option<Mode>) -> u32 {
    let speed = speed.map_or(0, |s| 1 + u32::from(s.code()));
    let mode = mode.map_or(0, |m| 1 + u32::from(m.code()));
    month * PER_MONTH + (u32::from(band) * SPEEDS + speed) * MODES + mode
}

/// Which games a filtered question counts; every field left empty lets every game pass.
///
/// ```
/// use qipu::formats::facts::Speed;
/// use qipu::store::BucketFilter;
/// let f = BucketFilter {
///     since: Some("2020-06".parse()?),
///     min_rating: Some(2400),
///     speeds: vec![Speed::Blitz, Speed::Rapid],
///     ..BucketFilter::default()
/// };
/// assert!(!f.is_empty());
/// assert!(BucketFilter::default().is_empty());
/// # Ok::<_, String>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BucketFilter {
    /// Played in this month or later (partial dates compare on their common precision).
    pub since: Option<Month>,
    /// Played in this month or earlier.
    pub until: Option<Month>,
    /// The game's rating band (of the mean known rating) at least the band of this rating.
    pub min_rating: Option<u32>,
    /// The game's rating band at most the band of this rating.
    pub max_rating: Option<u32>,
    /// One of these speeds (empty: any, unknown included).
    pub speeds: Vec<Speed>,
    /// One of these modes (empty: any, unknown included).
    pub modes: Vec<Mode>,
}

impl BucketFilter {
    /// Whether the filter lets every game pass.
    pub fn is_empty(&self) -> bool {
        self.since.is_none()
            && self.until.is_none()
            && self.min_rating.is_none()
            && self.max_rating.is_none()
            && self.speeds.is_empty()
            && self.modes.is_empty()
    }

    /// The filter compiled for testing buckets.
    pub(super) fn matcher(&self) -> Matcher {
        let lo = self.min_rating.map_or(0, rating_band);
        let hi = self.max_rating.map_or(10, rating_band);
        let rated_only = self.min_rating.is_some() || self.max_rating.is_some();
        let mut rest = [false; PER_MONTH as usize];
        for (i, ok) in rest.iter_mut().enumerate() {
            let i = i as u32;
            let (band, speed, mode) = (i / (SPEEDS * MODES), i / MODES % SPEEDS, i % MODES);
            let band_ok = !rated_only || (band > 0 && (lo..=hi).contains(&(band as u8)));
            let speed_ok = self.speeds.is_empty()
                || speed
                    .checked_sub(1)
                    .and_then(|c| Speed::from_code(c as u8))
                    .is_some_and(|s| self.speeds.contains(&s));
            let mode_ok = self.modes.is_empty()
                || mode
                    .checked_sub(1)
                    .and_then(|c| Mode::from_code(c as u8))
                    .is_some_and(|m| self.modes.contains(&m));
            *ok = band_ok && speed_ok && mode_ok;
        }
        Matcher {
            since: self.since,
            until: self.until,
            all_rests: rest.iter().all(|ok| *ok),
            rest,
        }
    }
}

/// A [`BucketFilter`] ready to test buckets.
pub(super) struct Matcher {
    since: Option<Month>,
    until: Option<Month>,
    /// By `bucket % PER_MONTH`: whether band, speed and mode pass.
    rest: [bool; PER_MONTH as usize],
    /// Whether every band, speed and mode passes.
    all_rests: bool,
}

impl Matcher {
    /// Whether games of this bucket pass.
    pub(super) fn passes(&self, bucket: u32) -> bool {
        self.rest_passes(bucket % PER_MONTH) && self.month_passes(bucket / PER_MONTH)
    }

    /// Whether the filter bounds the month of play.
    pub(super) fn has_dates(&self) -> bool {
        self.since.is_some() || self.until.is_some()
    }

    /// Whether every band, speed and mode passes (the filter bounds dates at most).
    pub(super) fn all_rests_pass(&self) -> bool {
        self.all_rests
    }

    /// Whether band, speed and mode of `rest` (`bucket % PER_MONTH`) pass.
    pub(super) fn rest_passes(&self, rest: u32) -> bool {
        self.rest.get(rest as usize).copied().unwrap_or(false)
    }

    /// Whether games of this month code pass the month bounds.
    pub(super) fn month_passes(&self, month: u32) -> bool {
        if self.since.is_none() && self.until.is_none() {
            return true;
        }
        let Some(code) = month.checked_sub(1) else {
            return false; // no date
        };
        let (y, m) = (code / 13, code % 13);
        // Compared on the precision both have: a year alone against a year.
        let at = |b: Month| match b.month {
            Some(bm) if m > 0 => (y, m).cmp(&(u32::from(b.year), u32::from(bm))),
            _ => y.cmp(&u32::from(b.year)),
        };
        !self.since.is_some_and(|s| at(s).is_lt()) && !self.until.is_some_and(|u| at(u).is_gt())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_code_and_come_back() {
        for d in ["2020", "2020-06", "2020-06-15", "1000-12-31"] {
            let (m, day) = date_code(Some(d));
            assert_eq!(date_text(m, day).as_deref(), Some(d));
        }
        assert_eq!(date_code(None), (0, 0));
        assert_eq!(date_code(Some("2020-13")), (0, 0));
        assert_eq!(date_code(Some("20x0")), (0, 0));
        assert_eq!(date_code(Some("2020/06")), (0, 0));
        assert_eq!(date_text(0, 0), None);
        // Order of codes is the order of the texts.
        let mut texts = ["2020-06-15", "2020", "2019-12-31", "2020-06", "2020-01"];
        let mut codes: Vec<(u32, u8)> = texts.iter().map(|d| date_code(Some(d))).collect();
        texts.sort_unstable();
        codes.sort_unstable();
        let back: Vec<String> = codes
            .iter()
            .map(|&(m, d)| date_text(m, d).unwrap())
            .collect();
        assert_eq!(back, texts);
    }

    #[test]
    fn month_bounds_keep_partial_dates_unless_certainly_outside() {
        let f = |since: &str, until: &str| {
            BucketFilter {
                since: (!since.is_empty()).then(|| since.parse().unwrap()),
                until: (!until.is_empty()).then(|| until.parse().unwrap()),
                ..BucketFilter::default()
            }
            .matcher()
        };
        let b = |d: Option<&str>| bucket(date_code(d).0, 0, None, None);
        let m = f("2020-06", "");
        assert!(m.passes(b(Some("2020"))));
        assert!(m.passes(b(Some("2020-06"))));
        assert!(m.passes(b(Some("2021-01-01"))));
        assert!(!m.passes(b(Some("2020-05-31"))));
        assert!(!m.passes(b(Some("2019"))));
        assert!(!m.passes(b(None)));
        let m = f("", "2019");
        assert!(m.passes(b(Some("2019-12-31"))));
        assert!(!m.passes(b(Some("2020-01"))));
        assert!(f("", "").passes(b(None)));
    }

    #[test]
    fn bands_speeds_and_modes() {
        assert_eq!(game_band([Some(2300), Some(2500)]), rating_band(2400));
        assert_eq!(game_band([None, Some(900)]), 1);
        assert_eq!(game_band([None, None]), 0);
        assert_eq!(band_floor(rating_band(2450)), 2400);
        let m = BucketFilter {
            min_rating: Some(2400),
            speeds: vec![Speed::Blitz],
            modes: vec![Mode::Rated],
            ..BucketFilter::default()
        }
        .matcher();
        let at = |band, speed, mode| m.passes(bucket(1 + 2020 * 13, band, speed, mode));
        let (blitz, rated) = (Some(Speed::Blitz), Some(Mode::Rated));
        assert!(at(9, blitz, rated));
        assert!(at(10, blitz, rated));
        assert!(!at(8, blitz, rated));
        assert!(!at(0, blitz, rated));
        assert!(!at(9, None, rated));
        assert!(!at(9, Some(Speed::Rapid), rated));
        assert!(!at(9, blitz, Some(Mode::Casual)));
        assert!(!at(9, blitz, None));
    }
}
