//! The person behind a player's names: which folded names ([`super::names::fold`]) are one
//! person. Owns only the matching rules; the player index (`store`) gives it the names, their
//! games and which names met in a game, and stores the answer. Reads no file and no database.
//!
//! The rules, each applied only when the two names never met in one game:
//! - a trailing rank (`5단`, `3급`, `9段`, `2級`) is the rank of the day, not the name;
//! - a known place or team word in front (`上海胡榮華`, `廣東 許銀川`, `中華臺北 吳貴臨`:
//!   `data/places.txt`) comes off, and so does any front part of two or more characters when
//!   what is left is itself a name of two or more characters in the database, written
//!   without Latin letters (the front part may hold some: an event written into the name's
//!   tag, `惠來大庚園杯全國冠軍賽 B組第三輪：廣東呂欽`; never in a pair, `伍霞+胡榮華`,
//!   nor when the front part is itself a name of the database, `呂欽 許銀川`);
//! - a name in Latin letters (`HU RongHua`, `Ronghua Hu`, `Lv Qin`, `Lü Qin`) is the hanzi
//!   name that reads so in pinyin (any case, spacing, order; `ü`, `v` and `u` alike) when
//!   exactly one person in the database reads so.
//!
//! ```
//! use qipu::formats::persons::{persons, Name};
//!
//! let names = [
//!     Name { id: 1, name: "胡榮華".into(), games: 385 },
//!     Name { id: 2, name: "上海胡榮華".into(), games: 535 },
//!     Name { id: 3, name: "HU RongHua".into(), games: 1364 },
//!     Name { id: 4, name: "呂欽".into(), games: 473 },
//! ];
//! let person = persons(&names, &[(1, 4)]);
//! assert_eq!(person[&1], person[&2]);
//! assert_eq!(person[&1], person[&3]);
//! assert_ne!(person[&1], person[&4]);
//! ```

use std::{
    collections::{HashMap, HashSet},
    sync::OnceLock,
};

use pinyin::{ToPinyin, ToPinyinMulti};

use super::names::fold;

mod index;
use index::Keys;
pub use index::{NameIndex, NameKeys};

/// A player of the index: their id, the name as written most often, their games.
#[derive(Clone, Debug)]
pub struct Name {
    /// The player's id in the index.
    pub id: i64,
    /// The name as written most often.
    pub name: String,
    /// Their games.
    pub games: u64,
}

/// The name without a trailing rank: `타이슨#401 5단` → `타이슨#401`, `王天一 9段` → `王天一`
/// (a rank is digits, full-width or not, then `단`, `급`, `段`, `級` or `级`, after a space
/// or straight after the name).
///
/// ```
/// use qipu::formats::persons::without_rank;
/// assert_eq!(without_rank("타이슨#401 5단"), ("타이슨#401", Some("5단")));
/// assert_eq!(without_rank("김철수 18급"), ("김철수", Some("18급")));
/// assert_eq!(without_rank("胡榮華"), ("胡榮華", None));
/// ```
pub fn without_rank(name: &str) -> (&str, Option<&str>) {
    let t = name.trim_end();
    let Some(last) = t.chars().last() else {
        return (t, None);
    };
    if !matches!(last, '단' | '급' | '段' | '級' | '级') {
        return (t, None);
    }
    let body = &t[..t.len() - last.len_utf8()];
    let digits = body
        .chars()
        .rev()
        .take_while(|c| c.is_ascii_digit() || ('０'..='９').contains(c))
        .map(char::len_utf8)
        .sum::<usize>();
    if digits == 0 || digits == body.len() {
        return (t, None);
    }
    let name = body[..body.len() - digits].trim_end();
    if name.is_empty() {
        return (t, None);
    }
    (name, Some(t[body.len() - digits..].trim()))
}

/// What joins two players' names into one tag (`伍霞+胡榮華`, mixed doubles): such a
/// name is never cut down to one of them.
const PAIR_MARKS: [char; 6] = ['+', '&', '/', ',', '、', '，'];

/// The place and team words, folded, longest first.
fn places() -> &'static [String] {
    static PLACES: OnceLock<Vec<String>> = OnceLock::new();
    PLACES.get_or_init(|| {
        let mut v: Vec<String> = include_str!("../../data/places.txt")
            .lines()
            .map(|l| l.split('#').next().unwrap_or("").trim())
            .filter(|l| !l.is_empty())
            .map(fold)
            .collect();
        v.sort_by(|a, b| b.chars().count().cmp(&a.chars().count()).then(a.cmp(b)));
        v.dedup();
        v
    })
}

/// The folded name without its rank and without known place or team words in front
/// (`上海 胡榮華` → `胡荣华`, `中國上海胡榮華` → `胡荣华`, a place's team `遼寧隊 卜鳳波` →
/// `卜凤波`); at least two characters stay.
///
/// ```
/// use qipu::formats::persons::base;
/// assert_eq!(base("黑龍江 趙國榮"), "赵国荣");
/// assert_eq!(base("타이슨#401 7단"), "타이슨#401");
/// assert_eq!(base("上海"), "上海");
/// ```
pub fn base(name: &str) -> String {
    let mut b = fold(without_rank(name).0);
    'strip: loop {
        for p in places() {
            if let Some(rest) = b.strip_prefix(p.as_str()) {
                // A place's team: `遼寧隊 卜鳳波`.
                let rest = rest
                    .strip_prefix('队')
                    .filter(|r| r.chars().count() >= 2)
                    .unwrap_or(rest);
                if rest.chars().count() >= 2 {
                    b = rest.to_string();
                    continue 'strip;
                }
            }
        }
        return b;
    }
}

/// Whether a folded name is all CJK ideographs (a hanzi name, two to four of them).
fn is_hanzi(b: &str) -> bool {
    let n = b.chars().count();
    (2..=4).contains(&n) && b.chars().all(|c| ('\u{4E00}'..='\u{9FFF}').contains(&c))
}

/// A romanized name's key: its letters, lower case, `ü`/`v` as `u`; `None` unless the name
/// is Latin letters only (with spaces, hyphens, dots or apostrophes between).
fn roman_key(name: &str) -> Option<String> {
    let mut k = String::new();
    for c in fold(name).chars() {
        match c {
            'a'..='z' => k.push(if c == 'v' { 'u' } else { c }),
            'ü' | 'ǖ' | 'ǘ' | 'ǚ' | 'ǜ' => k.push('u'),
            '-' | '.' | '\'' | '’' | '_' => {}
            _ => return None,
        }
    }
    (k.len() >= 3).then_some(k)
}

/// The pinyin readings of a name whose base ([`base`]) is two to four hanzi, surname first,
/// syllables in plain letters (`ü` as `u`) joined by spaces, at most 32 of them (a character
/// with several readings gives one reading each); none for any other name. Two names with a
/// reading in common sound alike (`楊官璘` and `楊官麟` both read `yang guan lin`). The usual
/// reading comes first, then the others in text order.
///
/// ```
/// use qipu::formats::persons::spoken;
/// assert_eq!(spoken("卜鳳波"), spoken("卜風波"));
/// assert!(spoken("上海 楊官璘").contains(&"yang guan lin".to_string()));
/// assert!(spoken("HU RongHua").is_empty());
/// ```
pub fn spoken(name: &str) -> Vec<String> {
    let b = base(name);
    if !is_hanzi(&b) {
        return Vec::new();
    }
    let mut v: Vec<String> = syllables(&b).iter().map(|w| w.join(" ")).collect();
    v.sort();
    v.dedup();
    let usual: Option<Vec<&str>> = b
        .as_str()
        .to_pinyin()
        .map(|p| p.map(|p| p.plain()))
        .collect();
    if let Some(usual) = usual.map(|u| u.join(" ").replace(['ü', 'v'], "u")) {
        if let Some(i) = v.iter().position(|r| *r == usual) {
            v[..=i].rotate_right(1);
        }
    }
    v
}

/// Every reading of a hanzi name as its syllables, at most 32 of them.
fn syllables(b: &str) -> Vec<Vec<String>> {
    let mut syllables: Vec<Vec<String>> = Vec::new();
    for m in b.to_pinyin_multi() {
        let Some(m) = m else { return Vec::new() };
        let mut s: Vec<String> = m
            .into_iter()
            .map(|p| p.plain().replace(['ü', 'v'], "u"))
            .collect();
        s.sort();
        s.dedup();
        syllables.push(s);
    }
    let mut whole: Vec<Vec<String>> = vec![Vec::new()];
    for s in &syllables {
        whole = whole
            .iter()
            .flat_map(|w| {
                s.iter().map(move |x| {
                    let mut w = w.clone();
                    w.push(x.clone());
                    w
                })
            })
            .take(32)
            .collect();
    }
    whole
}

/// Every pinyin reading of a hanzi name as a key (surname first and surname last), at most
/// 64 of them.
fn readings(b: &str) -> Vec<String> {
    let whole = syllables(b);
    let mut keys: Vec<String> = Vec::new();
    for w in whole {
        keys.push(w.concat());
        if let Some((surname, given)) = w.split_first() {
            keys.push(given.concat() + surname);
        }
    }
    keys.sort();
    keys.dedup();
    keys
}

/// Union of names into persons, never joining two that met.
struct Groups {
    /// Names that only a hard join joins.
    alone: HashSet<i64>,
    root: HashMap<i64, i64>,
    members: HashMap<i64, Vec<i64>>,
    opponents: HashMap<i64, HashSet<i64>>,
}

impl Groups {
    fn find(&self, id: i64) -> i64 {
        let mut r = id;
        while let Some(&up) = self.root.get(&r).filter(|&&up| up != r) {
            r = up;
        }
        r
    }

    /// [`Groups::join`] by a rule: never for a name that is alone.
    fn auto(&mut self, a: i64, b: i64) -> bool {
        !self.alone.contains(&a) && !self.alone.contains(&b) && self.join(a, b)
    }

    /// The names of `a`'s person, and a name of `b`'s person that met one of them, if any.
    fn met_pair(&self, a: i64, b: i64) -> Option<(Vec<i64>, i64)> {
        let (ra, rb) = (self.find(a), self.find(b));
        let theirs = self.opponents.get(&ra)?;
        let y = self.members.get(&rb)?.iter().find(|y| theirs.contains(y))?;
        Some((self.members.get(&ra)?.clone(), *y))
    }

    /// Joins the persons of `a` and `b` unless a name of one met a name of the other.
    fn join(&mut self, a: i64, b: i64) -> bool {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra == rb {
            return true;
        }
        let (big, small) = if self.members[&ra].len() >= self.members[&rb].len() {
            (ra, rb)
        } else {
            (rb, ra)
        };
        let met = |x: i64, y: i64| {
            self.members[&y]
                .iter()
                .any(|m| self.opponents.get(&x).is_some_and(|o| o.contains(m)))
        };
        if met(big, small) {
            return false;
        }
        let moved = self.members.remove(&small).unwrap_or_default();
        let theirs = self.opponents.remove(&small).unwrap_or_default();
        for m in &moved {
            self.root.insert(*m, big);
        }
        self.members.entry(big).or_default().extend(moved);
        self.opponents.entry(big).or_default().extend(theirs);
        true
    }
}

/// Decisions taken by hand, by player id: a spelling file's lines and the user's
/// `--merge` / `--split`. They come before the rules; two names that met still never join.
#[derive(Clone, Debug, Default)]
pub struct Decisions {
    /// Pairs of names that are one person, in order.
    pub joins: Vec<(i64, i64)>,
    /// How many of `joins` (the first ones) yield to `alone`: a spelling file's, not the
    /// user's `--merge`.
    pub soft: usize,
    /// Names that no rule and no soft join joins to another (`--split`).
    pub alone: HashSet<i64>,
    /// Names that name their person (a spelling file's first column, `--merge`'s first);
    /// of two in one person, the later one.
    pub heads: Vec<i64>,
}

/// A join of [`Decisions::joins`] refused because two of its names met in a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused {
    /// Its index in [`Decisions::joins`].
    pub join: usize,
    /// The names (ids) of one side's person.
    pub names: Vec<i64>,
    /// A name of the other side's person that met one of `names`.
    pub met: i64,
}

/// Each name's person: the id of the person's name with the most games (then the first
/// in text order), by the rules of this module. `met` lists the pairs of names (ids) that played each
/// other; two names that met are never one person.
pub fn persons(names: &[Name], met: &[(i64, i64)]) -> HashMap<i64, i64> {
    persons_with(names, met, &Decisions::default(), &mut NameKeys::default()).0
}

/// [`persons`] after the decisions taken by hand, with the joins it refused. A person with
/// a name of [`Decisions::heads`] is named by it. `keys` keeps what it read of each name
/// (its base, its readings) for the next call.
pub fn persons_with(
    names: &[Name],
    met: &[(i64, i64)],
    decided: &Decisions,
    keys: &mut NameKeys,
) -> (HashMap<i64, i64>, Vec<Refused>) {
    for n in names {
        keys.add(&n.name);
    }
    let keys = &*keys;
    let mut g = Groups {
        alone: HashSet::new(),
        root: names.iter().map(|n| (n.id, n.id)).collect(),
        members: names.iter().map(|n| (n.id, vec![n.id])).collect(),
        opponents: HashMap::new(),
    };
    for &(a, b) in met {
        g.opponents.entry(a).or_default().insert(b);
        g.opponents.entry(b).or_default().insert(a);
    }
    g.alone.clone_from(&decided.alone);
    let mut refused = Vec::new();
    for (i, &(a, b)) in decided.joins.iter().enumerate() {
        let done = if i < decided.soft {
            g.auto(a, b)
        } else {
            g.join(a, b)
        };
        if !done {
            if let Some((names, met)) = g.met_pair(a, b) {
                refused.push(Refused {
                    join: i,
                    names,
                    met,
                });
            }
        }
    }
    // Most games first, so that a name joins the person it most likely is.
    // (Every name's keys were read above: none is left out.)
    let mut order: Vec<(&Name, &Keys)> = names
        .iter()
        .filter_map(|n| keys.by_name.get(&n.name).map(|k| (n, k)))
        .collect();
    order.sort_by(|(a, _), (b, _)| b.games.cmp(&a.games).then(a.id.cmp(&b.id)));
    let (order, read): (Vec<&Name>, Vec<&Keys>) = order.into_iter().unzip();
    let bases: Vec<&str> = read.iter().map(|k| k.base.as_str()).collect();
    // Rank and known prefixes: one base, one person.
    let mut by_base: HashMap<&str, i64> = HashMap::new();
    for (n, b) in order.iter().zip(&bases) {
        match by_base.get(b) {
            Some(&first) => {
                g.auto(first, n.id);
            }
            None if !g.alone.contains(&n.id) => {
                by_base.insert(b, n.id);
            }
            None => {}
        }
    }
    // Any other front part, when the rest is a name of the database written without Latin
    // letters (the front part may hold some: an event written into the name's tag,
    // `…B組第三輪：廣東呂欽`). A name in Latin letters alone is never cut, nor a pair
    // (`伍霞+胡榮華`).
    for (n, k) in order.iter().zip(&read) {
        for (front, rest) in &k.cuts {
            if let Some(&other) = by_base.get(rest.as_str()) {
                // A front part that is itself a name makes a pair (`呂欽 許銀川`): no cut.
                if !by_base.contains_key(front.as_str()) {
                    g.auto(other, n.id);
                }
                break;
            }
        }
    }
    // Pinyin: a romanized name joins the one hanzi person that reads so.
    let mut reads: HashMap<&str, HashSet<i64>> = HashMap::new();
    for (n, k) in order.iter().zip(&read) {
        if !g.alone.contains(&n.id) {
            let person = g.find(n.id);
            for r in &k.readings {
                reads.entry(r).or_default().insert(person);
            }
        }
    }
    for (n, k) in order.iter().zip(&read) {
        let Some(k) = &k.roman else {
            continue;
        };
        if let Some(people) = reads.get(k.as_str()) {
            let people: HashSet<i64> = people.iter().map(|&p| g.find(p)).collect();
            if let [one] = people.into_iter().collect::<Vec<_>>()[..] {
                g.auto(one, n.id);
            }
        }
    }
    // Each person named by its name with the most games.
    // A decided head first, then the most games, then the first name in text order.
    let heads: HashMap<i64, usize> = decided
        .heads
        .iter()
        .enumerate()
        .map(|(i, &h)| (h, i + 1))
        .collect();
    let rank: HashMap<i64, (usize, u64, std::cmp::Reverse<&str>)> = names
        .iter()
        .map(|n| {
            let head = heads.get(&n.id).copied().unwrap_or(0);
            (n.id, (head, n.games, std::cmp::Reverse(n.name.as_str())))
        })
        .collect();
    let mut out = HashMap::with_capacity(names.len());
    for (root, members) in &g.members {
        let head = members
            .iter()
            .copied()
            .max_by_key(|m| rank.get(m).copied().unwrap_or_default())
            .unwrap_or(*root);
        for m in members {
            out.insert(*m, head);
        }
    }
    (out, refused)
}

impl Decisions {
    /// The decisions on some names alone: the joins of two of them (the soft ones still
    /// first), every split and every head (they only ever apply to the names they name).
    pub fn among(&self, names: &HashSet<i64>) -> Decisions {
        let keep = |(a, b): &&(i64, i64)| names.contains(a) && names.contains(b);
        Decisions {
            joins: self.joins.iter().filter(keep).copied().collect(),
            soft: self.joins[..self.soft.min(self.joins.len())]
                .iter()
                .filter(keep)
                .count(),
            alone: self.alone.clone(),
            heads: self.heads.clone(),
        }
    }
}

#[cfg(test)]
mod tests;
