//! Tag values that carry the facts of play ([`super::facts`]): PGN `TimeControl` and
//! `Termination`, the `.gib` `[제한시간]` clock and the way a `.gib` `[대국결과]` says a game
//! ended. Each parser reads one tag value and gives `None` for anything unknown or malformed:
//! a fact it cannot read is left out, the game is never rejected for it.
//!
//! Owns only the parsing of these small texts; [`super::tags::apply`] decides which tag
//! feeds which fact.
//!
//! ```
//! use qipu::formats::facts::{Speed, TimeControl};
//! use qipu::formats::playtags::{gib_time_limit, pgn_time_control};
//!
//! let c = pgn_time_control("300+3");
//! assert_eq!(c.time_control, Some(TimeControl { base_secs: 300, increment_secs: 3 }));
//! assert_eq!(c.speed, Some(Speed::Blitz));
//! // 40 moves in 2 hours, then 30 minutes: no single base+increment, but a speed.
//! let c = pgn_time_control("40/7200:1800");
//! assert_eq!((c.time_control, c.speed), (None, Some(Speed::Classical)));
//! // Janggi: 5 minutes, then 30-second byo-yomi three times.
//! assert_eq!(gib_time_limit("5분 30초 3회").speed, Some(Speed::Classical));
//! assert_eq!(gib_time_limit("5분").time_control, Some(TimeControl { base_secs: 300, increment_secs: 0 }));
//! ```

use super::facts::{Speed, Termination, TimeControl};

/// A clock as a tag gives it: the base+increment control when the tag is one, and the speed
/// category its estimated length falls in (also for clocks that are not base+increment).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Clock {
    /// The clock, when it is a single base+increment (or sudden-death) control.
    pub time_control: Option<TimeControl>,
    /// The speed category, from the estimated game length (see [`Speed::of_estimate`]).
    pub speed: Option<Speed>,
}

impl Clock {
    fn of(tc: TimeControl) -> Clock {
        Clock {
            time_control: Some(tc),
            speed: Some(tc.speed()),
        }
    }

    fn estimated(secs: u64) -> Clock {
        Clock {
            time_control: None,
            speed: Some(Speed::of_estimate(secs)),
        }
    }
}

/// Moves the speed estimate covers (the Lichess rule: base + 40 × increment).
const ESTIMATE_MOVES: u64 = 40;

fn secs(text: &str) -> Option<u32> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// The PGN standard's `TimeControl` (§9.6.1, seconds): `300` sudden death, `300+3` with an
/// increment, `40/7200` moves per period, `*180` sandclock, several periods joined by `:`
/// (`40/7200:1800`). A single base+increment (or sudden-death) field gives a
/// [`TimeControl`]; any well-formed value gives a speed from the time a player has for 40
/// moves. `?`, `-` and malformed values give nothing.
///
/// ```
/// use qipu::formats::{facts::Speed, playtags::pgn_time_control};
/// assert_eq!(pgn_time_control("120+1").speed, Some(Speed::Bullet));
/// assert_eq!(pgn_time_control("40/5400+30:1800+30").speed, Some(Speed::Classical));
/// assert_eq!(pgn_time_control("15-5-15"), Default::default());
/// assert_eq!(pgn_time_control("-"), Default::default());
/// ```
pub fn pgn_time_control(text: &str) -> Clock {
    let t = text.trim();
    let fields: Vec<&str> = t.split(':').collect();
    if let [one] = fields.as_slice() {
        let (base, inc) = one.split_once('+').unwrap_or((one, "0"));
        if let (Some(base_secs), Some(increment_secs)) = (secs(base), secs(inc)) {
            return Clock::of(TimeControl {
                base_secs,
                increment_secs,
            });
        }
    }
    let mut left = ESTIMATE_MOVES;
    let mut total = 0u64;
    for field in &fields {
        if left == 0 {
            break;
        }
        if let Some((moves, period)) = field.split_once('/') {
            // `40/5400+30` (moves in a period with an increment) is a common extension.
            let (period, inc) = period.split_once('+').unwrap_or((period, "0"));
            let (Some(moves), Some(period), Some(inc)) = (secs(moves), secs(period), secs(inc))
            else {
                return Clock::default();
            };
            if moves == 0 {
                return Clock::default();
            }
            let played = u64::from(moves).min(left);
            total += u64::from(period) + played * u64::from(inc);
            left -= played;
        } else if let Some(sand) = field.strip_prefix('*') {
            let Some(s) = secs(sand) else {
                return Clock::default();
            };
            total += u64::from(s);
            left = 0;
        } else {
            let (base, inc) = field.split_once('+').unwrap_or((field, "0"));
            let (Some(base), Some(inc)) = (secs(base), secs(inc)) else {
                return Clock::default();
            };
            total += u64::from(base) + left * u64::from(inc);
            left = 0;
        }
    }
    Clock::estimated(total)
}

/// The `.gib` `[제한시간]` clock as Korean servers write it: `5분` (minutes, also `5分`,
/// `15min`), optionally followed by byo-yomi seconds and periods (`5분 30초 3회`,
/// `25분 초읽기 40초 3회`, `각 30분`). Minutes alone give a sudden-death [`TimeControl`]; with
/// byo-yomi there is no base+increment, and the speed is estimated as base + 40 × byo-yomi
/// (each of 40 moves may take the byo-yomi time, as an increment would allow). Anything else
/// (`미상`, a player's rank, a typo) gives nothing.
///
/// ```
/// use qipu::formats::{facts::Speed, playtags::gib_time_limit};
/// assert_eq!(gib_time_limit("0분 20초 1회").speed, Some(Speed::Rapid));
/// assert_eq!(gib_time_limit("10分 30秒 3回").speed, Some(Speed::Classical));
/// assert_eq!(gib_time_limit("9단"), Default::default());
/// assert_eq!(gib_time_limit("5분 20초 3히"), Default::default());
/// ```
pub fn gib_time_limit(text: &str) -> Clock {
    #[derive(Clone, Copy, PartialEq)]
    enum Unit {
        Minutes,
        Seconds,
        Times,
    }
    const UNITS: [(&str, Unit); 7] = [
        ("분", Unit::Minutes),
        ("分", Unit::Minutes),
        ("min", Unit::Minutes),
        ("초", Unit::Seconds),
        ("秒", Unit::Seconds),
        ("회", Unit::Times),
        ("回", Unit::Times),
    ];
    const FILLERS: [&str; 3] = ["초읽기", "각자", "각"];
    let mut parts: Vec<(u64, Unit)> = Vec::new();
    let mut rest = text.trim();
    while let Some(c) = rest.chars().next() {
        if c.is_whitespace() || c == ',' {
            rest = &rest[c.len_utf8()..];
            continue;
        }
        if c.is_ascii_digit() {
            let end = rest
                .find(|ch: char| !ch.is_ascii_digit())
                .unwrap_or(rest.len());
            let Ok(n) = rest[..end].parse::<u64>() else {
                return Clock::default();
            };
            let after = rest[end..].trim_start();
            let Some((word, unit)) = UNITS.iter().find(|(w, _)| after.starts_with(w)) else {
                return Clock::default();
            };
            parts.push((n.min(u64::from(u32::MAX)), *unit));
            rest = &after[word.len()..];
            continue;
        }
        match FILLERS.iter().find(|w| rest.starts_with(*w)) {
            Some(w) => rest = &rest[w.len()..],
            None => return Clock::default(),
        }
    }
    match parts.as_slice() {
        [(min, Unit::Minutes)] if *min > 0 => Clock::of(TimeControl {
            base_secs: u32::try_from(min * 60).unwrap_or(u32::MAX),
            increment_secs: 0,
        }),
        [(min, Unit::Minutes), (byo, Unit::Seconds)]
        | [(min, Unit::Minutes), (byo, Unit::Seconds), (_, Unit::Times)]
            if *byo > 0 =>
        {
            Clock::estimated(min * 60 + ESTIMATE_MOVES * byo)
        }
        _ => Clock::default(),
    }
}

/// The PGN `Termination` tag: the standard's values (`time forfeit`; `abandoned`,
/// `adjudication`, `death`, `emergency`, `rules infraction` as [`Termination::Other`];
/// `normal` and `unterminated` say nothing of how) and the names of [`Termination`]
/// (`mate`, `resignation`, …, also `checkmate`, `resigned`, `perpetual check`).
///
/// ```
/// use qipu::formats::{facts::Termination, playtags::pgn_termination};
/// assert_eq!(pgn_termination("Time forfeit"), Some(Termination::Time));
/// assert_eq!(pgn_termination("checkmate"), Some(Termination::Mate));
/// assert_eq!(pgn_termination("normal"), None);
/// ```
pub fn pgn_termination(text: &str) -> Option<Termination> {
    let t = text.trim().to_ascii_lowercase();
    Some(match t.as_str() {
        "time forfeit" | "time" | "flagged" | "timeout" => Termination::Time,
        "abandoned" | "adjudication" | "death" | "emergency" | "rules infraction" => {
            Termination::Other
        }
        "checkmate" | "checkmated" => Termination::Mate,
        "resign" | "resigned" => Termination::Resignation,
        "draw agreed" | "draw by agreement" => Termination::Agreement,
        "perpetual check" | "perpetual" => Termination::Repetition,
        _ => return t.parse().ok(),
    })
}

/// How a `.gib` game ended, from the words of its `[대국결과]`: `기권`/`불계` resignation,
/// `시간` time, `점수` or `N.5점` count, `빅장`/`빅승` bikjang, `외통`/`장군승` mate,
/// `동의` agreement, `접속 끊김` (disconnection) other. A bare `완승` or `승` says only who
/// won.
///
/// ```
/// use qipu::formats::{facts::Termination, playtags::gib_termination};
/// assert_eq!(gib_termination("한 기권승"), Some(Termination::Resignation));
/// assert_eq!(gib_termination("초 2.5점 승"), Some(Termination::Count));
/// assert_eq!(gib_termination("무승부(빅장)"), Some(Termination::Bikjang));
/// assert_eq!(gib_termination("한 완승"), None);
/// ```
pub fn gib_termination(text: &str) -> Option<Termination> {
    let t: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let has = |words: &[&str]| words.iter().any(|w| t.contains(w));
    Some(if has(&["기권", "불계"]) {
        Termination::Resignation
    } else if has(&["시간"]) {
        Termination::Time
    } else if has(&["점수", "점승", "점)"]) {
        Termination::Count
    } else if has(&["빅장", "빅승"]) {
        Termination::Bikjang
    } else if has(&["외통", "장군승"]) {
        Termination::Mate
    } else if has(&["동의"]) {
        Termination::Agreement
    } else if has(&["접속끊김"]) {
        Termination::Other
    } else {
        return None;
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tc(base_secs: u32, increment_secs: u32) -> Option<TimeControl> {
        Some(TimeControl {
            base_secs,
            increment_secs,
        })
    }

    #[test]
    fn pgn_forms() {
        assert_eq!(pgn_time_control("1800+0").time_control, tc(1800, 0));
        assert_eq!(pgn_time_control("1800").time_control, tc(1800, 0));
        assert_eq!(pgn_time_control("300+3").speed, Some(Speed::Blitz));
        // 40 moves in 2 h then 30 min: 7,200 s for the first 40 moves.
        let c = pgn_time_control("40/7200:1800");
        assert_eq!((c.time_control, c.speed), (None, Some(Speed::Classical)));
        // 20 moves in 100 s, then 60 s + 1 s a move: 100 + 60 + 20 × 1 = 180 s, blitz.
        assert_eq!(pgn_time_control("20/100:60+1").speed, Some(Speed::Blitz));
        assert_eq!(pgn_time_control("20/100:60+0").speed, Some(Speed::Bullet));
        assert_eq!(pgn_time_control("*170").speed, Some(Speed::Bullet));
        // 20 moves in 60 s + 3 s a move: 60 + 20 × 3 = 120, then 100 s: 220 s.
        assert_eq!(pgn_time_control("20/60+3:100").speed, Some(Speed::Blitz));
        assert_eq!(pgn_time_control("20/60+3:20").speed, Some(Speed::Bullet));
        for bad in [
            "?", "-", "", "15-5-15", "5+", "+3", "a+b", "40/", "0/60", "1e3", "-1",
        ] {
            assert_eq!(pgn_time_control(bad), Clock::default(), "{bad:?}");
        }
        assert_eq!(
            pgn_time_control("99999999999+0"),
            Clock::default(),
            "overflow"
        );
    }

    #[test]
    fn gib_forms_of_the_real_files() {
        let sp = |t| gib_time_limit(t).speed;
        assert_eq!(gib_time_limit("5분").time_control, tc(300, 0));
        assert_eq!(gib_time_limit("5분 ").time_control, tc(300, 0));
        assert_eq!(gib_time_limit("15min").time_control, tc(900, 0));
        assert_eq!(gib_time_limit("각 30분").time_control, tc(1800, 0));
        assert_eq!(sp("5분"), Some(Speed::Blitz));
        assert_eq!(sp("10분"), Some(Speed::Rapid));
        // base + 40 × byo-yomi
        assert_eq!(sp("5분 20초 1회"), Some(Speed::Rapid)); // 1,100 s
        assert_eq!(sp("5분 30초 3회"), Some(Speed::Classical)); // 1,500 s
        assert_eq!(sp("0분 20초 1회"), Some(Speed::Rapid)); // 800 s
        assert_eq!(sp("0분20초3회"), Some(Speed::Rapid));
        assert_eq!(sp("25분 초읽기 40초 3회"), Some(Speed::Classical));
        assert_eq!(sp("10분, 초읽기 30초 3회"), Some(Speed::Classical));
        assert_eq!(sp("5分 20秒 1回"), Some(Speed::Rapid));
        assert_eq!(sp("0분 30초"), Some(Speed::Rapid));
        assert_eq!(gib_time_limit("5분 30초 3회").time_control, None);
        for bad in [
            "미상",
            "0분",
            "5본",
            "9단",
            "한게임",
            "초 완승",
            "10분 30초 ㄷ회",
            "40분_10분초읽기30초3회",
            "자유시간 5분 초읽기 3회",
            "대국취소",
            "30초",
        ] {
            assert_eq!(gib_time_limit(bad), Clock::default(), "{bad:?}");
        }
    }

    #[test]
    fn terminations() {
        assert_eq!(pgn_termination("abandoned"), Some(Termination::Other));
        assert_eq!(
            pgn_termination("Resignation"),
            Some(Termination::Resignation)
        );
        assert_eq!(pgn_termination("unterminated"), None);
        assert_eq!(pgn_termination("whatever"), None);
        let g = gib_termination;
        assert_eq!(g("초승(기권) "), Some(Termination::Resignation));
        assert_eq!(g("楚 불계승"), Some(Termination::Resignation));
        assert_eq!(g("한 시간승"), Some(Termination::Time));
        assert_eq!(g("한 점수승"), Some(Termination::Count));
        assert_eq!(g("한승(3.5점)"), Some(Termination::Count));
        assert_eq!(g("한 빅승"), Some(Termination::Bikjang));
        assert_eq!(g("한승(외통수)"), Some(Termination::Mate));
        assert_eq!(g("漢 장군승"), Some(Termination::Mate));
        assert_eq!(g("무승부(동의)"), Some(Termination::Agreement));
        assert_eq!(g("초 접속 끊김 패"), Some(Termination::Other));
        assert_eq!(g("무승부"), None);
        assert_eq!(g("초 승리"), None);
    }
}
