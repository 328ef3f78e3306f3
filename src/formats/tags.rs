//! Tag normalisation: raw `(name, value)` pairs from PGN or `.gib` headers → [`Tags`].

use super::{game::Tags, playtags};
use crate::rules::{Color, Outcome, Variant};

/// Builds normalised tags from raw header pairs (names matched case-insensitively; empty and
/// "unknown" values ignored). The raw pairs are kept in [`Tags::raw`].
///
/// ```
/// use qipu::formats::tags::normalise;
/// use qipu::rules::{Color, Outcome};
/// let raw = vec![
///     ("Red".to_string(), "呂欽".to_string()),
///     ("Date".to_string(), "2007年1月".to_string()),
///     ("Result".to_string(), "1-0".to_string()),
/// ];
/// let t = normalise(raw);
/// assert_eq!(t.first.as_deref(), Some("呂欽"));
/// assert_eq!(t.date.as_deref(), Some("2007-01"));
/// assert_eq!(t.result, Some(Outcome::Decisive { winner: Color::First }));
/// ```
pub fn normalise(raw: Vec<(String, String)>) -> Tags {
    let mut t = Tags::default();
    for (name, value) in &raw {
        apply(&mut t, name, value);
    }
    t.raw = raw;
    t
}

/// Sets the normalised field a header names (PGN, `.gib`, XQF, CCBridge and DhtmlXQ names,
/// case-insensitively); empty and "unknown" values and names it does not know change nothing.
/// [`Tags::raw`] is left to the caller.
///
/// ```
/// use qipu::formats::{tags::apply, Tags};
/// let mut t = Tags::default();
/// apply(&mut t, "Contest", "全国象棋个人赛");
/// apply(&mut t, "RedRating", "2550");
/// assert_eq!(t.event.as_deref(), Some("全国象棋个人赛"));
/// assert_eq!(t.first_rating, Some(2550));
/// ```
pub fn apply(t: &mut Tags, name: &str, value: &str) {
    let v = value.trim();
    if v.is_empty() || matches!(v, "?" | "-" | "미상" | "??") {
        return;
    }
    let s = || Some(v.to_string());
    match name.to_ascii_lowercase().as_str() {
        "event" | "contest" | "대회명" => t.event = s(),
        "site" | "place" | "대국장소" => t.site = s(),
        "round" | "회전" => t.round = s(),
        "date" | "대국일자" => t.date = parse_date(v).or(t.date.take()),
        "eventdate" if t.date.is_none() => t.date = parse_date(v),
        "red" | "white" | "초대국자" => t.first = s(),
        "black" | "한대국자" => t.second = s(),
        "redteam" | "whiteteam" => t.first_team = s(),
        "blackteam" => t.second_team = s(),
        "redelo" | "whiteelo" | "redrating" => t.first_rating = parse_rating(v),
        "blackelo" | "blackrating" => t.second_rating = parse_rating(v),
        "result" => t.result = parse_result(v),
        "대국결과" => {
            t.result = parse_result(v);
            t.termination = playtags::gib_termination(v).or(t.termination);
        }
        "timecontrol" | "제한시간" => {
            let clock = if name == "제한시간" {
                playtags::gib_time_limit(v)
            } else {
                playtags::pgn_time_control(v)
            };
            t.time_control = clock.time_control;
            t.speed = clock.speed;
        }
        "termination" => t.termination = playtags::pgn_termination(v).or(t.termination),
        "ecco" => t.ecco = Some(v.to_ascii_uppercase()),
        "opening" => t.opening = s(),
        "variation" => t.variation = s(),
        "초차림" | "초포진" => t.first_formation = s(),
        "한차림" | "한포진" => t.second_formation = s(),
        _ => {}
    }
}

/// Normalises a date to `YYYY`, `YYYY-MM` or `YYYY-MM-DD`: the first number must be a year
/// (4 digits), then an optional month 1–12 and day 1–31; any separators (`.`, `-`, `/`,
/// `年月日`, `년월일`) and unknown parts (`??`) are accepted.
///
/// ```
/// use qipu::formats::tags::parse_date;
/// assert_eq!(parse_date("2006.08.03").as_deref(), Some("2006-08-03"));
/// assert_eq!(parse_date("2007年1月").as_deref(), Some("2007-01"));
/// assert_eq!(parse_date("1981").as_deref(), Some("1981"));
/// assert_eq!(parse_date("1937년").as_deref(), Some("1937"));
/// assert_eq!(parse_date("2006.??.??").as_deref(), Some("2006"));
/// assert_eq!(parse_date("unknown"), None);
/// ```
pub fn parse_date(text: &str) -> Option<String> {
    let mut groups = Vec::new();
    let mut cur = String::new();
    for c in text.chars() {
        let d = match c {
            '0'..='9' => Some(c),
            '０'..='９' => char::from_u32(c as u32 - '０' as u32 + '0' as u32),
            _ => None,
        };
        match d {
            Some(d) => cur.push(d),
            None => {
                if !cur.is_empty() {
                    groups.push(std::mem::take(&mut cur));
                }
                if c == '?' {
                    groups.push(String::from("?"));
                }
            }
        }
    }
    if !cur.is_empty() {
        groups.push(cur);
    }
    let as_year = |g: &String| {
        let y: u32 = g.parse().ok()?;
        (g.len() == 4 && (1000..=2999).contains(&y)).then_some(y)
    };
    let Some(y) = as_year(groups.first()?) else {
        // `10-10-2000`: the year comes last and day/month order is unknown: keep the year.
        return groups
            .iter()
            .skip(1)
            .find_map(as_year)
            .map(|y| format!("{y:04}"));
    };
    let mut out = format!("{y:04}");
    let Some(m) = groups.get(1).and_then(|g| g.parse::<u32>().ok()) else {
        return Some(out);
    };
    if !(1..=12).contains(&m) || groups.get(1).is_some_and(|g| g.len() > 2) {
        return Some(out);
    }
    out.push_str(&format!("-{m:02}"));
    if let Some(d) = groups.get(2).and_then(|g| g.parse::<u32>().ok()) {
        if (1..=31).contains(&d) && groups.get(2).is_some_and(|g| g.len() <= 2) {
            out.push_str(&format!("-{d:02}"));
        }
    }
    Some(out)
}

/// Reads a result: PGN `1-0`/`0-1`/`1/2-1/2`, Chinese `红胜`/`黑胜`/`和`, and `.gib`
/// `초 완승`/`한 …승`/`楚`/`漢`/`무승부`. Unfinished (`*`, `미완`) and unknown give `None`.
///
/// ```
/// use qipu::formats::tags::parse_result;
/// use qipu::rules::{Color, Outcome};
/// assert_eq!(parse_result("한 완승"), Some(Outcome::Decisive { winner: Color::Second }));
/// assert_eq!(parse_result("무승부"), Some(Outcome::Draw));
/// assert_eq!(parse_result("*"), None);
/// ```
pub fn parse_result(text: &str) -> Option<Outcome> {
    let t = text.trim();
    let first = Outcome::Decisive {
        winner: Color::First,
    };
    let second = Outcome::Decisive {
        winner: Color::Second,
    };
    match t {
        "1-0" | "1:0" => return Some(first),
        "0-1" | "0:1" => return Some(second),
        "1/2-1/2" | "½-½" | "0.5-0.5" | "=" => return Some(Outcome::Draw),
        "*" => return None,
        _ => {}
    }
    if t.starts_with('무') || t.contains('和') {
        return Some(Outcome::Draw);
    }
    let named = match t.chars().next()? {
        '초' | '楚' | '红' | '紅' => Color::First,
        '한' | '漢' | '汉' | '黑' => Color::Second,
        _ => return None,
    };
    // `红先负` / `黑负` / `한 패`: the named side lost; otherwise (`红胜`, `초 완승`) it won.
    let lost = t.contains(['负', '負', '败', '敗', '패']);
    let winner = if lost { named.other() } else { named };
    Some(Outcome::Decisive { winner })
}

fn parse_rating(text: &str) -> Option<u32> {
    let v: u32 = text.trim().parse().ok()?;
    (v > 0).then_some(v)
}

impl Tags {
    /// The text fields a database stores of a header, in the order of the games table's
    /// columns: event, site, round, date, first, second, ECCO code, opening, variation,
    /// first and second formation (not the teams, which it does not store).
    ///
    /// ```
    /// let mut t = qipu::formats::Tags::default();
    /// t.site = Some("北京".into());
    /// let f = t.text_fields();
    /// assert_eq!(f.len(), 11);
    /// assert_eq!(f[1].as_deref(), Some("北京"));
    /// ```
    pub fn text_fields(&self) -> [&Option<String>; 11] {
        [
            &self.event,
            &self.site,
            &self.round,
            &self.date,
            &self.first,
            &self.second,
            &self.ecco,
            &self.opening,
            &self.variation,
            &self.first_formation,
            &self.second_formation,
        ]
    }

    /// The game's opening label: its ECCO code (Xiangqi) or `first/second` formations
    /// (Janggi); see [`label_of`].
    ///
    /// ```
    /// use qipu::formats::Tags;
    /// use qipu::rules::Variant;
    /// let t = Tags { ecco: Some(" c48".into()), ..Tags::default() };
    /// assert_eq!(t.opening_label(Variant::Xiangqi).as_deref(), Some("C48"));
    /// assert_eq!(t.opening_label(Variant::Janggi), None);
    /// ```
    pub fn opening_label(&self, variant: Variant) -> Option<String> {
        label_of(
            variant,
            self.ecco.as_deref(),
            self.first_formation.as_deref(),
            self.second_formation.as_deref(),
        )
    }
}

/// The opening label of a game with this ECCO code and these formations: the code
/// normalised (`c48` → `C48`; anything but a letter A–E and two digits is no code) for
/// Xiangqi, `first/second` formations (`?` for an unknown one; `None` if both are) for Janggi.
///
/// ```
/// use qipu::formats::tags::label_of;
/// use qipu::rules::Variant;
/// assert_eq!(label_of(Variant::Janggi, None, Some("상마상마"), None).as_deref(), Some("상마상마/?"));
/// assert_eq!(label_of(Variant::Xiangqi, Some("F00"), None, None), None);
/// ```
pub fn label_of(
    variant: Variant,
    ecco: Option<&str>,
    first_formation: Option<&str>,
    second_formation: Option<&str>,
) -> Option<String> {
    match variant {
        Variant::Xiangqi => ecco.and_then(normal_ecco),
        Variant::Janggi => formation_label(first_formation, second_formation),
    }
}

/// `first/second` formations, `?` for an unknown one; `None` if both are unknown.
fn formation_label(first: Option<&str>, second: Option<&str>) -> Option<String> {
    fn clean(f: Option<&str>) -> Option<&str> {
        f.map(str::trim).filter(|f| !f.is_empty())
    }
    match (clean(first), clean(second)) {
        (None, None) => None,
        (a, b) => Some(format!("{}/{}", a.unwrap_or("?"), b.unwrap_or("?"))),
    }
}

/// `c48` → `C48`; anything that is not a letter A–E and two digits → `None`.
fn normal_ecco(code: &str) -> Option<String> {
    let c = code.trim().to_ascii_uppercase();
    let b = c.as_bytes();
    (b.len() == 3
        && (b'A'..=b'E').contains(&b[0])
        && b[1].is_ascii_digit()
        && b[2].is_ascii_digit())
    .then_some(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chinese_and_korean_result_words() {
        let red = Some(Outcome::Decisive {
            winner: Color::First,
        });
        let black = Some(Outcome::Decisive {
            winner: Color::Second,
        });
        assert_eq!(parse_result("红胜"), red);
        assert_eq!(parse_result("红先胜"), red);
        assert_eq!(parse_result("红先负"), black);
        assert_eq!(parse_result("黑负"), red);
        assert_eq!(parse_result("黑胜"), black);
        assert_eq!(parse_result("한 완승"), black);
        assert_eq!(parse_result("초 기권패"), black);
        assert_eq!(parse_result("和棋"), Some(Outcome::Draw));
        assert_eq!(parse_result("红先和"), Some(Outcome::Draw));
        assert_eq!(parse_result("??"), None);
        assert_eq!(parse_result("1-0"), red);
    }

    #[test]
    fn dates() {
        assert_eq!(parse_date("2016-12-06").as_deref(), Some("2016-12-06"));
        assert_eq!(parse_date("2017/3/20").as_deref(), Some("2017-03-20"));
        assert_eq!(parse_date("2007年1月5日").as_deref(), Some("2007-01-05"));
        assert_eq!(parse_date("2012년 5월 3일").as_deref(), Some("2012-05-03"));
        assert_eq!(parse_date("2006.13.01").as_deref(), Some("2006"));
        assert_eq!(parse_date("82"), None);
        assert_eq!(parse_date("10-10-2000").as_deref(), Some("2000"));
        assert_eq!(parse_date("20世纪30年代"), None);
        assert_eq!(parse_date("1956年12月17日").as_deref(), Some("1956-12-17"));
        assert_eq!(parse_date(""), None);
    }

    #[test]
    fn results() {
        let w = |c| Some(Outcome::Decisive { winner: c });
        assert_eq!(parse_result("초 완승"), w(Color::First));
        assert_eq!(parse_result("楚 시간승"), w(Color::First));
        assert_eq!(parse_result("漢 기권승"), w(Color::Second));
        assert_eq!(parse_result("0-1"), w(Color::Second));
        assert_eq!(parse_result("1/2-1/2"), Some(Outcome::Draw));
        assert_eq!(parse_result("미완"), None);
        assert_eq!(parse_result("통"), None);
    }

    #[test]
    fn gib_tags() {
        let raw = [
            ("대회명", "친선대국"),
            ("회전", "미상"),
            ("대국일자", "2016-12-06"),
            ("초대국자", "하여명"),
            ("한대국자", "전동하"),
            ("초차림", "상마상마"),
            ("한차림", "마상상마"),
            ("대국결과", "초 완승"),
        ]
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
        let t = normalise(raw);
        assert_eq!(t.event.as_deref(), Some("친선대국"));
        assert_eq!(t.round, None);
        assert_eq!(t.date.as_deref(), Some("2016-12-06"));
        assert_eq!(t.first.as_deref(), Some("하여명"));
        assert_eq!(t.second.as_deref(), Some("전동하"));
        assert_eq!(t.first_formation.as_deref(), Some("상마상마"));
        assert_eq!(t.second_formation.as_deref(), Some("마상상마"));
        assert_eq!(t.raw.len(), 8);
    }

    #[test]
    fn ecco_codes_are_normalised() {
        assert_eq!(super::normal_ecco(" c48"), Some("C48".into()));
        assert_eq!(super::normal_ecco("F00"), None);
        assert_eq!(super::normal_ecco("C4"), None);
    }
}
