//! Candidate merges of homophone misspellings (`qipu players --suggest`): two persons whose
//! names read the same in pinyin ([`crate::formats::persons::spoken`]) but are written
//! differently (`楊官璘` / `楊官麟`), who never played each other, with the evidence for the
//! user to judge: the reading, each one's games and years, the opponents and events they
//! share. Proposes only; nothing is written.

use std::collections::{BTreeSet, HashMap, HashSet};

use super::{sql, Store, StoreError};
use crate::formats::persons::spoken;

/// One side of a [`Suggestion`]: a person as the player index has them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SuggestedPerson {
    /// The person's name (their spelling with the most games).
    pub name: String,
    /// Their games, every spelling.
    pub games: u64,
    /// The year of their first dated game.
    pub first_year: Option<u32>,
    /// The year of their last dated game.
    pub last_year: Option<u32>,
}

/// Two persons that may be one: same reading, other writing, never in one game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Suggestion {
    /// The pinyin reading they share (`yang guan lin`).
    pub reading: String,
    /// The person with more games.
    pub a: SuggestedPerson,
    /// The other.
    pub b: SuggestedPerson,
    /// Opponents (persons) both played.
    pub shared_opponents: usize,
    /// Events both played in.
    pub shared_events: usize,
    /// Whether their years overlap (or either has no dated game).
    pub years_fit: bool,
}

/// What the games say of each person: whom they met, where, when.
#[derive(Default)]
struct Record {
    opponents: HashSet<i64>,
    events: HashSet<String>,
    years: Option<(u32, u32)>,
}

/// The year of a date (`YYYY`, `YYYY-MM`, `YYYY.MM.DD` …), if it starts with four digits.
fn year(date: &str) -> Option<u32> {
    let y = date.get(..4)?;
    y.bytes()
        .all(|b| b.is_ascii_digit())
        .then(|| y.parse().ok())
        .flatten()
        .filter(|&y| y > 0)
}

impl Store {
    /// Each person's opponents, events and years, from every game of the index.
    fn records(&self, person: &HashMap<i64, i64>) -> Result<HashMap<i64, Record>, StoreError> {
        let mut stmt = self.conn.prepare_cached(sql::PLAYER_GAME_FACTS)?;
        let rows = stmt.query_map([], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, Option<String>>(2)?,
                r.get::<_, Option<String>>(3)?,
            ))
        })?;
        let mut seats: Vec<(i64, i64, Option<String>, Option<String>)> =
            rows.collect::<Result<_, _>>()?;
        seats.sort_by_key(|s| s.0);
        let mut out: HashMap<i64, Record> = HashMap::new();
        for game in seats.chunk_by(|a, b| a.0 == b.0) {
            let people: Vec<i64> = game
                .iter()
                .map(|s| person.get(&s.1).copied().unwrap_or(s.1))
                .collect();
            for (s, &p) in game.iter().zip(&people) {
                let r = out.entry(p).or_default();
                r.opponents.extend(people.iter().filter(|&&o| o != p));
                if let Some(e) = s.3.as_deref().map(str::trim).filter(|e| !e.is_empty()) {
                    r.events.insert(e.to_string());
                }
                if let Some(y) = s.2.as_deref().and_then(year) {
                    r.years = Some(r.years.map_or((y, y), |(a, b)| (a.min(y), b.max(y))));
                }
            }
        }
        Ok(out)
    }

    /// Candidate merges of homophone misspellings, most likely first: pairs of persons
    /// with a pinyin reading in common (each name's usual reading one of the other's) whose
    /// names are written differently and who never met in a game. Most likely: years that fit, then the most opponents and events
    /// shared, then the most games. At most `limit`.
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails.
    pub fn suggest_persons(&self, limit: usize) -> Result<Vec<Suggestion>, StoreError> {
        let all = self.all_players()?;
        let person: HashMap<i64, i64> = all.iter().map(|p| (p.id, p.person)).collect();
        let mut games: HashMap<i64, u64> = HashMap::new();
        let mut head: HashMap<i64, (u64, &str)> = HashMap::new();
        let mut by_reading: HashMap<String, BTreeSet<i64>> = HashMap::new();
        for p in &all {
            *games.entry(p.person).or_default() += p.games;
            let h = head.entry(p.person).or_insert((p.games, &p.name));
            if (p.games, std::cmp::Reverse(p.name.as_str())) > (h.0, std::cmp::Reverse(h.1)) {
                *h = (p.games, &p.name);
            }
            for r in spoken(&p.name) {
                by_reading.entry(r).or_default().insert(p.person);
            }
        }
        let mut pairs: HashMap<(i64, i64), String> = HashMap::new();
        for (reading, people) in &by_reading {
            let people: Vec<i64> = people.iter().copied().collect();
            for (i, &x) in people.iter().enumerate() {
                for &y in &people[i + 1..] {
                    let e = pairs.entry((x, y)).or_insert_with(|| reading.clone());
                    if reading < e {
                        e.clone_from(reading);
                    }
                }
            }
        }
        if pairs.is_empty() {
            return Ok(Vec::new());
        }
        let records = self.records(&person)?;
        let none = Record::default();
        let side = |p: i64| {
            let r = records.get(&p).unwrap_or(&none);
            SuggestedPerson {
                name: head.get(&p).map_or_else(String::new, |h| h.1.to_string()),
                games: games.get(&p).copied().unwrap_or(0),
                first_year: r.years.map(|y| y.0),
                last_year: r.years.map(|y| y.1),
            }
        };
        let mut out: Vec<Suggestion> = Vec::new();
        for ((x, y), reading) in pairs {
            let (rx, ry) = (
                records.get(&x).unwrap_or(&none),
                records.get(&y).unwrap_or(&none),
            );
            if rx.opponents.contains(&y) {
                continue;
            }
            let (a, b) = (side(x), side(y));
            let (a, b) = if (b.games, &a.name) > (a.games, &b.name) {
                (b, a)
            } else {
                (a, b)
            };
            // Each name's usual reading must be one of the other's: a rare reading of one
            // character (強 as jiang) is no homophone.
            let (sa, sb) = (spoken(&a.name), spoken(&b.name));
            let reading = match (sa.first(), sb.first()) {
                (Some(ua), Some(ub)) if !(sb.contains(ua) && sa.contains(ub)) => continue,
                (Some(ua), Some(ub)) if ua == ub => ua.clone(),
                _ => reading,
            };
            out.push(Suggestion {
                reading,
                a,
                b,
                shared_opponents: rx.opponents.intersection(&ry.opponents).count(),
                shared_events: rx.events.intersection(&ry.events).count(),
                years_fit: match (rx.years, ry.years) {
                    (Some(p), Some(q)) => p.0 <= q.1 && q.0 <= p.1,
                    _ => true,
                },
            });
        }
        out.sort_by(|p, q| {
            let key = |s: &Suggestion| {
                (
                    s.years_fit,
                    s.shared_opponents + s.shared_events,
                    s.a.games + s.b.games,
                )
            };
            key(q)
                .cmp(&key(p))
                .then_with(|| (&p.a.name, &p.b.name).cmp(&(&q.a.name, &q.b.name)))
        });
        out.truncate(limit);
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::year;

    #[test]
    fn years_of_dates() {
        assert_eq!(year("1984-05-01"), Some(1984));
        assert_eq!(year("1984"), Some(1984));
        assert_eq!(year("1984.05"), Some(1984));
        assert_eq!(year("????.??.??"), None);
        assert_eq!(year("84"), None);
    }
}
