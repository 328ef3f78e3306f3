//! The explorer's typed query: the position (a [`Line`]), which games count (a [`Filter`]) and
//! what to list. The CLI (clap) and the API (query string) turn their text into these types
//! with the same parsers ([`PartialDate`], [`parse_side`], [`parse_speeds`], `Speed`/`Mode`
//! `FromStr`, [`parse_rules`](crate::notation::parse_rules)) and the same checks
//! ([`Query::new`]), so both accept exactly the same queries. Nothing here reads a database.

use std::{cmp::Ordering, fmt, str::FromStr};

use crate::{
    formats::{
        facts::{Mode, Speed},
        names::fold,
    },
    notation::{parse_move, Line},
    rules::{Color, Formations, JanggiRules, Move, Setup, Variant},
    store::rating_band,
};

/// Top games listed when a query does not say.
pub const DEFAULT_TOP_GAMES: usize = 10;
/// Most moves a query may ask for (`limit`; 0 = all).
pub const MAX_LIMIT: usize = 500;
/// Most top games a query may ask for.
pub const MAX_TOP_GAMES: usize = 100;
/// Longest `player` or `event` text, in characters.
pub const MAX_NAME: usize = 100;
/// Highest rating a band may name.
pub const MAX_RATING: u32 = 10_000;
/// The Janggi rules positions are explored under: the rules the database's games were
/// replayed under ([`crate::formats::replay`]), so every stored line can be explored.
pub const EXPLORE_RULES: JanggiRules = JanggiRules::SERVER;

/// A date with an optional month and day: `2010`, `2010-03`, `2010-03-13` (PGN's
/// `2010.03.13` is read too). Ordered by year, month, day, a missing part first.
///
/// ```
/// use qipu::explorer::PartialDate;
/// let d: PartialDate = "2010.03.13".parse().unwrap();
/// assert_eq!(d.to_string(), "2010-03-13");
/// assert_eq!("2010-03".parse::<PartialDate>().unwrap().to_string(), "2010-03");
/// for bad in ["yesterday", "2010-13", "2010-02-30", "10-03", "2010-3"] {
///     assert!(bad.parse::<PartialDate>().is_err(), "{bad}");
/// }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PartialDate {
    /// Year, 0–9999.
    pub year: u16,
    /// Month 1–12, if known.
    pub month: Option<u8>,
    /// Day of the month, if known (only with a month).
    pub day: Option<u8>,
}

fn days_in_month(year: u16, month: u8) -> u8 {
    match month {
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

impl FromStr for PartialDate {
    type Err = String;

    fn from_str(s: &str) -> Result<PartialDate, String> {
        let t = s.trim();
        let bad = || format!("bad date `{t}` (expected YYYY, YYYY-MM or YYYY-MM-DD)");
        let sep = if t.contains('.') { '.' } else { '-' };
        let parts: Vec<&str> = t.split(sep).collect();
        let num = |p: &str, len: usize| -> Result<u16, String> {
            if p.len() == len && p.bytes().all(|b| b.is_ascii_digit()) {
                p.parse().map_err(|_| bad())
            } else {
                Err(bad())
            }
        };
        let (year, month, day) = match parts.as_slice() {
            [y] => (num(y, 4)?, None, None),
            [y, m] => (num(y, 4)?, Some(num(m, 2)?), None),
            [y, m, d] => (num(y, 4)?, Some(num(m, 2)?), Some(num(d, 2)?)),
            _ => return Err(bad()),
        };
        let month = month.map(|m| m as u8);
        if month.is_some_and(|m| !(1..=12).contains(&m)) {
            return Err(bad());
        }
        let day = day.map(|d| d as u8);
        if let (Some(m), Some(d)) = (month, day) {
            if d == 0 || d > days_in_month(year, m) {
                return Err(bad());
            }
        }
        Ok(PartialDate { year, month, day })
    }
}

impl fmt::Display for PartialDate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}", self.year)?;
        if let Some(m) = self.month {
            write!(f, "-{m:02}")?;
        }
        if let Some(d) = self.day {
            write!(f, "-{d:02}")?;
        }
        Ok(())
    }
}

impl PartialDate {
    /// The date without its day: the precision the explorer's filters count in.
    pub fn month_only(self) -> PartialDate {
        PartialDate { day: None, ..self }
    }

    /// Compares on the parts both dates have: `2007` and `2007-05-01` compare equal, so a
    /// partial date is kept unless it is certainly outside a range.
    pub fn cmp_known(&self, other: &PartialDate) -> Ordering {
        self.year
            .cmp(&other.year)
            .then_with(|| match (self.month, other.month) {
                (Some(a), Some(b)) => a.cmp(&b).then_with(|| match (self.day, other.day) {
                    (Some(x), Some(y)) => x.cmp(&y),
                    _ => Ordering::Equal,
                }),
                _ => Ordering::Equal,
            })
    }
}

/// The words for a side, the same in the CLI and the API: `red`, `cho`, `first` for the
/// first player; `black`, `han`, `second` for the second (case-insensitive).
///
/// # Errors
/// A message listing the words.
///
/// ```
/// use qipu::{explorer::parse_side, rules::Color};
/// assert_eq!(parse_side("Cho"), Ok(Color::First));
/// assert_eq!(parse_side("black"), Ok(Color::Second));
/// assert!(parse_side("white").is_err());
/// ```
pub fn parse_side(text: &str) -> Result<Color, String> {
    match text.trim().to_ascii_lowercase().as_str() {
        "red" | "cho" | "first" => Ok(Color::First),
        "black" | "han" | "second" => Ok(Color::Second),
        other => Err(format!(
            "unknown side `{other}` (expected red, black, cho, han, first or second)"
        )),
    }
}

/// A comma-separated list of speeds (`bullet,blitz`); repeats are dropped.
///
/// # Errors
/// The first unknown (or empty) speed.
pub fn parse_speeds(text: &str) -> Result<Vec<Speed>, String> {
    let mut out: Vec<Speed> = Vec::new();
    for part in text.split(',') {
        let s: Speed = part.parse()?;
        if !out.contains(&s) {
            out.push(s);
        }
    }
    out.sort();
    Ok(out)
}

/// Reads a variant name (`xiangqi`, `janggi`).
///
/// # Errors
/// A message for any other name.
pub fn parse_variant(text: &str) -> Result<Variant, String> {
    text.trim().parse()
}

/// Where a query's line starts, from its three ways of saying so (the CLI's `--variant`,
/// `--fen`, `--setup`; the API's `variant`, `fen`, `setup`): the game and the start FEN
/// (`None`: the game's standard start).
///
/// - `setup` names Janggi formations, Cho's first ([`Formations`]: `마상상마/상마마상`,
///   `inner/outer`, …); it needs no variant (Janggi is implied) and is refused with `fen` or
///   with another variant;
/// - a `fen` without a variant is read as the game its board most likely belongs to
///   ([`Setup::likely_variant`]), so a Janggi FEN is not explored as a Xiangqi position;
/// - nothing: the variant's (default Xiangqi) standard start.
///
/// # Errors
/// A message naming the conflicting or bad field.
///
/// ```
/// use qipu::{explorer::resolve_start, rules::Variant};
/// let (v, fen) = resolve_start(None, None, Some("상마마상/마상상마")).unwrap();
/// assert_eq!(v, Variant::Janggi);
/// assert!(fen.unwrap().ends_with("/4K4/RBNA1ANBR w - - 0 1"));
/// assert_eq!(resolve_start(None, Some(Variant::Janggi.start_fen()), None).unwrap().0, Variant::Janggi);
/// assert!(resolve_start(Some(Variant::Xiangqi), None, Some("inner/inner")).is_err());
/// ```
pub fn resolve_start(
    variant: Option<Variant>,
    fen: Option<&str>,
    setup: Option<&str>,
) -> Result<(Variant, Option<String>), String> {
    match (setup.map(str::trim).filter(|s| !s.is_empty()), fen) {
        (Some(_), Some(_)) => Err("give `setup` or `fen`, not both".to_string()),
        (Some(text), None) => {
            if variant.is_some_and(|v| v != Variant::Janggi) {
                return Err(format!(
                    "`setup` `{text}` names Janggi formations; it cannot start a {} game",
                    variant.map_or("", Variant::name)
                ));
            }
            let pair: Formations = text.parse()?;
            Ok((Variant::Janggi, Some(pair.start_fen())))
        }
        (None, Some(f)) => {
            let v = match variant {
                Some(v) => v,
                None => Setup::from_fen(f)
                    .map_err(|e| format!("bad `fen`: {e}"))?
                    .likely_variant(),
            };
            Ok((v, Some(f.to_string())))
        }
        (None, None) => Ok((variant.unwrap_or(Variant::Xiangqi), None)),
    }
}

/// Which games count. Every field left empty lets every game through.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Filter {
    /// Only games on or after this date (partial dates compare on their known parts).
    pub since: Option<PartialDate>,
    /// Only games on or before this date.
    pub until: Option<PartialDate>,
    /// Only games whose rating band (of the mean known rating, see `store::rating_band`) is
    /// at least this rating's band.
    pub min_rating: Option<u32>,
    /// Only games whose rating band is at most this rating's band.
    pub max_rating: Option<u32>,
    /// Only games of this player: the name as written; compared folded
    /// ([`fold`]), whole name, on either side or on `side`.
    pub player: Option<String>,
    /// With `player`: the folded spellings of the player's person, any of which matches
    /// (filled by [`crate::explorer::explore`] from the player index, [`with_person`]);
    /// empty: the folded `player` alone.
    ///
    /// [`with_person`]: crate::explorer::with_person
    pub spellings: Vec<String>,
    /// With `player`: the side the player had.
    pub side: Option<Color>,
    /// Only games whose event contains this text (case-insensitive).
    pub event: Option<String>,
    /// Only games of these speeds (empty = any). A game of unknown speed does not pass.
    pub speeds: Vec<Speed>,
    /// Only rated or only casual games. A game of unknown mode does not pass.
    pub mode: Option<Mode>,
}

impl From<&crate::store::BucketFilter> for Filter {
    /// The explorer's filter of the same months, rating bands, speeds and mode (the first
    /// of the bucket filter's modes).
    fn from(f: &crate::store::BucketFilter) -> Filter {
        let date = |m: Option<crate::store::Month>| {
            m.map(|m| PartialDate {
                year: m.year,
                month: m.month,
                day: None,
            })
        };
        Filter {
            since: date(f.since),
            until: date(f.until),
            min_rating: f.min_rating,
            max_rating: f.max_rating,
            speeds: f.speeds.clone(),
            mode: f.modes.first().copied(),
            ..Filter::default()
        }
    }
}

/// What the filter needs to know of a game.
#[derive(Clone, Copy, Debug, Default)]
pub struct GameFacts<'a> {
    /// Date as stored (`YYYY`, `YYYY-MM` or `YYYY-MM-DD`).
    pub date: Option<&'a str>,
    /// The two players' ratings.
    pub ratings: [Option<u32>; 2],
    /// The two players' names.
    pub names: [Option<&'a str>; 2],
    /// Event.
    pub event: Option<&'a str>,
    /// Speed, if known.
    pub speed: Option<Speed>,
    /// Mode, if known.
    pub mode: Option<Mode>,
}

impl<'a> GameFacts<'a> {
    /// What the filter sees of a game header, from its fields as both a record's tags
    /// ([`crate::formats::Tags`]) and a stored game ([`crate::store::GameThrough`]) hold them:
    /// the one constructor of both.
    #[allow(clippy::too_many_arguments)]
    pub fn of(
        date: &'a Option<String>,
        first_rating: Option<u32>,
        second_rating: Option<u32>,
        first: &'a Option<String>,
        second: &'a Option<String>,
        event: &'a Option<String>,
        speed: Option<Speed>,
        mode: Option<Mode>,
    ) -> GameFacts<'a> {
        GameFacts {
            date: date.as_deref(),
            ratings: [first_rating, second_rating],
            names: [first.as_deref(), second.as_deref()],
            event: event.as_deref(),
            speed,
            mode,
        }
    }
}

/// The mean of the known ratings, `None` when none is known.
pub fn mean_rating(ratings: [Option<u32>; 2]) -> Option<f64> {
    let known: Vec<u32> = ratings.into_iter().flatten().collect();
    (!known.is_empty())
        .then(|| known.iter().map(|&r| f64::from(r)).sum::<f64>() / known.len() as f64)
}

impl Filter {
    /// Whether the filter lets every game through.
    pub fn is_empty(&self) -> bool {
        *self == Filter::default()
    }

    /// Checks the filter as a whole: the date range and the rating band in order, the band
    /// within 0–[`MAX_RATING`], `side` only with `player`, texts at most [`MAX_NAME`]
    /// characters.
    ///
    /// # Errors
    /// A message naming the bad field.
    pub fn check(&self) -> Result<(), String> {
        if let (Some(a), Some(b)) = (self.since, self.until) {
            if a.cmp_known(&b).is_gt() {
                return Err(format!("`since` {a} is after `until` {b}"));
            }
        }
        for (name, r) in [
            ("min_rating", self.min_rating),
            ("max_rating", self.max_rating),
        ] {
            if r.is_some_and(|r| r > MAX_RATING) {
                return Err(format!("`{name}` must be at most {MAX_RATING}"));
            }
        }
        if let (Some(a), Some(b)) = (self.min_rating, self.max_rating) {
            if a > b {
                return Err(format!("`min_rating` {a} is above `max_rating` {b}"));
            }
        }
        if self.side.is_some() && self.player.is_none() {
            return Err("`side` needs `player`".to_string());
        }
        for (name, t) in [("player", &self.player), ("event", &self.event)] {
            if t.as_ref().is_some_and(|t| t.chars().count() > MAX_NAME) {
                return Err(format!(
                    "`{name}` is too long (at most {MAX_NAME} characters)"
                ));
            }
        }
        Ok(())
    }

    /// How the filter is read where it is coarser than what was given: a day counts as its
    /// whole month and a rating as its whole band, because the aggregates keep months and
    /// bands. One sentence each, for the terminal, the JSON `notes` and the page; empty when
    /// the filter is taken as written.
    ///
    /// ```
    /// use qipu::explorer::{Filter, PartialDate};
    /// let f = Filter {
    ///     since: Some("2010-03-12".parse::<PartialDate>().unwrap()),
    ///     min_rating: Some(1850),
    ///     max_rating: Some(1999),
    ///     ..Filter::default()
    /// };
    /// assert_eq!(
    ///     f.notes(),
    ///     [
    ///         "since 2010-03-12 counts the whole month: games from 2010-03 on (dates are indexed by month)",
    ///         "min_rating 1850 counts its whole band: games rated from 1800 on (ratings are indexed in bands of 200)",
    ///     ]
    /// );
    /// assert!(Filter::default().notes().is_empty());
    /// ```
    pub fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        for (name, date, edge) in [
            ("since", self.since, "from {m} on"),
            ("until", self.until, "to the end of {m}"),
        ] {
            if let Some(d) = date.filter(|d| d.day.is_some()) {
                let m = d.month_only().to_string();
                notes.push(format!(
                    "{name} {d} counts the whole month: games {} (dates are indexed by month)",
                    edge.replace("{m}", &m)
                ));
            }
        }
        for (name, rating, low) in [
            ("min_rating", self.min_rating, true),
            ("max_rating", self.max_rating, false),
        ] {
            let Some(r) = rating else { continue };
            let band = rating_band(r);
            let floor = crate::store::band_floor(band);
            let next = (band < 10).then(|| crate::store::band_floor(band + 1));
            let edge = match (low, next) {
                (true, _) if r != floor => format!("from {floor} on"),
                (false, Some(n)) if r + 1 != n => format!("up to {}", n - 1),
                (false, None) => format!("{floor} and up"),
                _ => continue,
            };
            notes.push(format!(
                "{name} {r} counts its whole band: games rated {edge} (ratings are indexed in bands of 200)"
            ));
        }
        notes
    }

    /// Whether a game passes.
    ///
    /// - dates: a game without a date is left out; partial dates compare on their known parts;
    /// - rating band: on the mean known rating; a game without any rating is left out;
    /// - player: the folded name of either player (or the one on `side`) is one of
    ///   `spellings`, or without them equals the folded `player`;
    /// - event: case-insensitive substring;
    /// - speed and mode: a game whose speed or mode is unknown is left out.
    pub fn passes(&self, g: &GameFacts<'_>) -> bool {
        if self.since.is_some() || self.until.is_some() {
            let Some(d) = g.date.and_then(|d| d.parse::<PartialDate>().ok()) else {
                return false;
            };
            // Bounds count whole months, as the store's buckets do.
            if self
                .since
                .is_some_and(|s| d.cmp_known(&s.month_only()).is_lt())
                || self
                    .until
                    .is_some_and(|u| d.cmp_known(&u.month_only()).is_gt())
            {
                return false;
            }
        }
        if self.min_rating.is_some() || self.max_rating.is_some() {
            // The band of the mean known rating (rounded down), as the store's buckets keep it.
            let mean = match g.ratings {
                [Some(a), Some(b)] => ((u64::from(a) + u64::from(b)) / 2) as u32,
                [Some(r), None] | [None, Some(r)] => r,
                [None, None] => return false,
            };
            let band = rating_band(mean);
            if self.min_rating.is_some_and(|m| band < rating_band(m))
                || self.max_rating.is_some_and(|m| band > rating_band(m))
            {
                return false;
            }
        }
        if let Some(p) = &self.player {
            let want = fold(p);
            let is = |n: Option<&str>| {
                n.is_some_and(|n| {
                    let n = fold(n);
                    if self.spellings.is_empty() {
                        n == want
                    } else {
                        self.spellings.contains(&n)
                    }
                })
            };
            let ok = match self.side {
                Some(Color::First) => is(g.names[0]),
                Some(Color::Second) => is(g.names[1]),
                None => is(g.names[0]) || is(g.names[1]),
            };
            if !ok {
                return false;
            }
        }
        if let Some(e) = &self.event {
            let e = e.to_lowercase();
            if !g.event.is_some_and(|h| h.to_lowercase().contains(&e)) {
                return false;
            }
        }
        if !self.speeds.is_empty() && !g.speed.is_some_and(|s| self.speeds.contains(&s)) {
            return false;
        }
        if self.mode.is_some() && g.mode != self.mode {
            return false;
        }
        true
    }
}

/// What to look up and list.
#[derive(Clone, Debug)]
pub struct Query {
    /// The position: its start and the moves played.
    pub line: Line,
    /// Which games count.
    pub filter: Filter,
    /// Merge the position with its left-right mirror.
    pub mirror: bool,
    /// At most this many moves (0 = all).
    pub limit: usize,
    /// At most this many top games (0 = none).
    pub top_games: usize,
    /// List as top games only games that played this move in the position.
    pub top_move: Option<Move>,
    /// Fold the moves with fewer games played (decided or not) than this into one "others" row (0, the
    /// default of [`Query::at`] and [`Query::new`], folds none; `qipu explore` and
    /// `/api/explore` default to [`DEFAULT_MIN_GAMES`]).
    pub min_games: u64,
    /// List only the moves first played (among the games that pass the filter) on or after
    /// this date; a first date that is partial counts unless certainly earlier.
    pub novelties: Option<PartialDate>,
}

/// `--min-games` and `min_games=` when not given: every move played by at least one game
/// that passes the filter is listed (a move whose games have no recorded result included).
pub const DEFAULT_MIN_GAMES: u64 = 1;

impl Query {
    /// The query of a position with no filter and the defaults.
    ///
    /// ```
    /// use qipu::{explorer::Query, notation::Line, rules::Variant};
    /// let q = Query::at(Line::start(Variant::Xiangqi, qipu::explorer::EXPLORE_RULES));
    /// assert_eq!(q.top_games, qipu::explorer::DEFAULT_TOP_GAMES);
    /// ```
    pub fn at(line: Line) -> Query {
        Query {
            line,
            filter: Filter::default(),
            mirror: false,
            limit: 0,
            top_games: DEFAULT_TOP_GAMES,
            top_move: None,
            min_games: 0,
            novelties: None,
        }
    }

    /// Builds and checks a query: the filter ([`Filter::check`]), `limit` and `top_games`
    /// within [`MAX_LIMIT`] and [`MAX_TOP_GAMES`], and `top_move` read (any notation) in the
    /// line's position. Both the CLI and the API build their queries here.
    ///
    /// # Errors
    /// A message naming the bad field.
    pub fn new(
        line: Line,
        filter: Filter,
        mirror: bool,
        limit: usize,
        top_games: usize,
        top_move: Option<&str>,
    ) -> Result<Query, String> {
        filter.check()?;
        if limit > MAX_LIMIT {
            return Err(format!("`limit` must be at most {MAX_LIMIT}"));
        }
        if top_games > MAX_TOP_GAMES {
            return Err(format!("`top_games` must be at most {MAX_TOP_GAMES}"));
        }
        let top_move = match top_move.map(str::trim).filter(|t| !t.is_empty()) {
            None => None,
            Some(text) => Some(
                parse_move(&line.position, text)
                    .map_err(|e| format!("`top_move` `{text}`: {e}"))?,
            ),
        };
        Ok(Query {
            line,
            filter,
            mirror,
            limit,
            top_games,
            top_move,
            min_games: 0,
            novelties: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> PartialDate {
        s.parse().unwrap()
    }

    #[test]
    fn dates_compare_on_known_parts() {
        assert_eq!(d("2007").cmp_known(&d("2007-05-01")), Ordering::Equal);
        assert_eq!(d("2007-04").cmp_known(&d("2007-05-01")), Ordering::Less);
        assert_eq!(d("2008").cmp_known(&d("2007-12-31")), Ordering::Greater);
        assert_eq!(d("2007.05.01"), d("2007-05-01"));
        assert!("2000-02-29".parse::<PartialDate>().is_ok());
        assert!("1900-02-29".parse::<PartialDate>().is_err());
        assert!("2010-00".parse::<PartialDate>().is_err());
        assert!("2010-03-00".parse::<PartialDate>().is_err());
        assert!("2010-03.13".parse::<PartialDate>().is_err());
    }

    #[test]
    fn the_filter_on_hand_made_games() {
        let g = GameFacts {
            date: Some("2007-05"),
            ratings: [Some(2400), Some(2200)],
            names: [Some("呂欽"), Some("Hu Ronghua")],
            event: Some("Five Goats Cup"),
            speed: None,
            mode: None,
        };
        let f = |edit: &dyn Fn(&mut Filter)| {
            let mut f = Filter::default();
            edit(&mut f);
            f.passes(&g)
        };
        assert!(f(&|_| {}));
        assert!(f(&|f| f.since = Some(d("2007-05-20"))));
        assert!(!f(&|f| f.since = Some(d("2007-06"))));
        assert!(!f(&|f| f.until = Some(d("2007-04-30"))));
        // Mean 2300: the band 2200–2399. Bounds name bands, not exact ratings.
        assert!(f(&|f| f.min_rating = Some(2399)));
        assert!(!f(&|f| f.min_rating = Some(2400)));
        assert!(f(&|f| f.max_rating = Some(2200)));
        assert!(!f(&|f| f.max_rating = Some(2199)));
        assert!(f(&|f| f.player = Some("ＨＵ ronghua".into())));
        assert!(!f(&|f| f.player = Some("Hu".into())), "whole names only");
        assert!(f(&|f| {
            f.player = Some("hu ronghua".into());
            f.side = Some(Color::Second);
        }));
        assert!(!f(&|f| {
            f.player = Some("hu ronghua".into());
            f.side = Some(Color::First);
        }));
        assert!(f(&|f| f.event = Some("goats".into())));
        assert!(!f(&|f| f.speeds = vec![Speed::Blitz]), "unknown speed");
        assert!(!f(&|f| f.mode = Some(Mode::Rated)), "unknown mode");
        let known = GameFacts {
            speed: Some(Speed::Blitz),
            mode: Some(Mode::Casual),
            ..g
        };
        let f = Filter {
            speeds: vec![Speed::Bullet, Speed::Blitz],
            mode: Some(Mode::Casual),
            ..Filter::default()
        };
        assert!(f.passes(&known));
    }

    #[test]
    fn the_start_from_variant_fen_and_setup() {
        let janggi = Variant::Janggi.start_fen();
        let xiangqi = Variant::Xiangqi.start_fen();
        assert_eq!(
            resolve_start(None, None, None),
            Ok((Variant::Xiangqi, None))
        );
        assert_eq!(
            resolve_start(Some(Variant::Janggi), None, None),
            Ok((Variant::Janggi, None))
        );
        // A FEN without its game: read as the game it looks like; with it: as told.
        assert_eq!(
            resolve_start(None, Some(janggi), None).unwrap().0,
            Variant::Janggi
        );
        assert_eq!(
            resolve_start(None, Some(xiangqi), None).unwrap().0,
            Variant::Xiangqi
        );
        assert_eq!(
            resolve_start(Some(Variant::Xiangqi), Some(janggi), None)
                .unwrap()
                .0,
            Variant::Xiangqi
        );
        assert!(resolve_start(None, Some("nonsense"), None).is_err());
        // The default pair is the standard start's board.
        let (v, fen) =
            resolve_start(Some(Variant::Janggi), None, Some("마상상마/마상상마")).unwrap();
        assert_eq!((v, fen.as_deref()), (Variant::Janggi, Some(janggi)));
        assert!(resolve_start(None, Some(janggi), Some("inner/inner")).is_err());
        assert!(resolve_start(None, None, Some("inner")).is_err());
        assert!(resolve_start(Some(Variant::Xiangqi), None, Some("inner/inner")).is_err());
    }

    #[test]
    fn checks() {
        let bad = [
            Filter {
                since: Some(d("2009")),
                until: Some(d("2008")),
                ..Filter::default()
            },
            Filter {
                min_rating: Some(2500),
                max_rating: Some(2400),
                ..Filter::default()
            },
            Filter {
                max_rating: Some(MAX_RATING + 1),
                ..Filter::default()
            },
            Filter {
                side: Some(Color::First),
                ..Filter::default()
            },
        ];
        for f in bad {
            assert!(f.check().is_err(), "{f:?}");
        }
        assert!(parse_speeds("blitz,rapid,blitz").unwrap().len() == 2);
        assert!(parse_speeds("blitz,hyper").is_err());
    }
}
