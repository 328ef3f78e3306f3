//! The explorer's game filters as command-line flags (`--since/--until`, `--min-rating/
//! --max-rating`, `--player/--side`, `--event`, `--speed`, `--mode`), shared by `qipu
//! explore` and `qipu book` so that both read them with the same parsers into the one
//! [`Filter`] type. Owns the flags only; what passes is `explorer::Filter`'s to say.

use clap::Args;

use crate::{
    explorer::{parse_side, Filter, GameFacts, PartialDate},
    formats::{
        facts::{Mode, Speed},
        Tags,
    },
    rules::Color,
};

/// Which games count, as flags.
#[derive(Args, Debug, Default)]
pub struct GameFilterArgs {
    /// Only games on or after this month (YYYY, YYYY-MM; a day, YYYY-MM-DD or YYYY.MM.DD,
    /// counts as its whole month; a partial date is kept unless certainly outside the range).
    #[arg(long)]
    since: Option<PartialDate>,
    /// Only games on or before this month (as --since).
    #[arg(long)]
    until: Option<PartialDate>,
    /// Only games whose rating band is at least this rating's band. Bands are of the mean of
    /// the two known ratings (one known: that one): under 1000, 1000–1199, 1200–1399, …,
    /// 2400–2599, 2600 and up; unrated games fail any rating bound.
    #[arg(long)]
    min_rating: Option<u32>,
    /// Only games whose rating band is at most this rating's band (see --min-rating).
    #[arg(long)]
    max_rating: Option<u32>,
    /// Only games of this player (the whole name, compared ignoring case, width and spaces).
    #[arg(long)]
    player: Option<String>,
    /// With --player: red, black, cho, han, first or second.
    #[arg(long, value_parser = parse_side)]
    side: Option<Color>,
    /// Only games whose event contains this text.
    #[arg(long)]
    event: Option<String>,
    /// Only games of these speeds: bullet, blitz, rapid, classical (comma-separated).
    #[arg(long, value_delimiter = ',')]
    speed: Vec<Speed>,
    /// Only rated or only casual games.
    #[arg(long)]
    mode: Option<Mode>,
}

/// Text given on the command line, trimmed; empty text counts as absent (as in a query
/// string).
pub fn given(s: &Option<String>) -> Option<String> {
    s.as_deref()
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_string)
}

impl GameFilterArgs {
    /// The filter the flags say (not yet checked as a whole: see [`Filter::check`]).
    pub fn filter(&self) -> Filter {
        let mut speeds = self.speed.clone();
        speeds.sort();
        speeds.dedup();
        Filter {
            since: self.since,
            until: self.until,
            min_rating: self.min_rating,
            max_rating: self.max_rating,
            player: given(&self.player),
            spellings: Vec::new(),
            side: self.side,
            event: given(&self.event),
            speeds,
            mode: self.mode,
        }
    }
}

/// What the filter sees of a game's header.
pub fn tag_facts(t: &Tags) -> GameFacts<'_> {
    GameFacts::of(
        &t.date,
        t.first_rating,
        t.second_rating,
        &t.first,
        &t.second,
        &t.event,
        t.speed,
        t.mode,
    )
}
