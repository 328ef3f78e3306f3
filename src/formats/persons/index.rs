//! What the rules of [`super`] compare of each name, read once and kept: [`NameKeys`] (a
//! name's base, its romanized reading, the readings of a hanzi base, its cuts) and
//! [`NameIndex`] (every name of the player index by those keys, so that the names an import
//! batch may decide anew are found from the batch's names alone, without a pass over the
//! table). Owns no rule of its own: [`super::persons_with`] decides; this only says which
//! names it must be asked about together. Reads no file and no database.

use std::collections::{HashMap, HashSet};

use super::{base, is_hanzi, readings, roman_key, without_rank, Decisions, PAIR_MARKS};

/// What the rules compare of one name.
#[derive(Debug)]
pub(super) struct Keys {
    /// The folded name without rank and known prefixes ([`base`]).
    pub base: String,
    /// Its romanized reading, when it is written in Latin letters.
    pub roman: Option<String>,
    /// The pinyin readings of a hanzi base.
    pub readings: Vec<String>,
    /// Each way of cutting the base in two (a front part of two or more characters, and a
    /// rest of two or more without Latin letters): the front part (trimmed) and the rest.
    /// None for a base in Latin letters or a pair (`伍霞+胡榮華`).
    pub cuts: Vec<(String, String)>,
}

impl Keys {
    fn of(name: &str) -> Keys {
        let base = base(name);
        let readings = if is_hanzi(&base) {
            readings(&base)
        } else {
            Vec::new()
        };
        let mut cuts = Vec::new();
        if !(base.is_ascii() || base.contains(PAIR_MARKS)) {
            for (cut, _) in base.char_indices().skip(2) {
                let rest = &base[cut..];
                if rest.chars().count() < 2 {
                    break;
                }
                if !rest.chars().any(|c| c.is_ascii()) {
                    cuts.push((base[..cut].trim().to_string(), rest.to_string()));
                }
            }
        }
        Keys {
            roman: roman_key(without_rank(name).0),
            readings,
            cuts,
            base,
        }
    }
}

/// The keys of names, read once per name and kept between calls of
/// [`super::persons_with`]: reading a name (its pinyin above all) costs more than deciding.
#[derive(Debug, Default)]
pub struct NameKeys {
    pub(super) by_name: HashMap<String, Keys>,
}

impl NameKeys {
    /// Reads a name's keys, unless read already.
    pub(super) fn add(&mut self, name: &str) {
        if !self.by_name.contains_key(name) {
            self.by_name.insert(name.to_string(), Keys::of(name));
        }
    }
}

/// Kinds of key in [`NameIndex`]: a base, a cut's rest, a cut's front part, a romanized
/// reading, a hanzi reading.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Kind {
    Base,
    Rest,
    Front,
    Roman,
    Reading,
}

/// Every name of the player index (by id) under each of its keys, kept up to date name by
/// name ([`NameIndex::set`], [`NameIndex::remove`]): which names [`super::persons_with`] may
/// decide together ([`NameIndex::tied`]) is then found from a batch's names and their
/// neighbours, at a cost that grows with them, not with the table.
///
/// ```
/// use qipu::formats::persons::{Decisions, NameIndex};
/// let mut index = NameIndex::default();
/// for (id, name) in [(1, "胡榮華"), (2, "上海胡榮華"), (3, "HU RongHua"), (4, "呂欽")] {
///     index.set(id, name);
/// }
/// let mut tied: Vec<i64> = index.tied(&[2].into(), &Decisions::default()).into_iter().collect();
/// tied.sort();
/// assert_eq!(tied, [1, 2, 3]);
/// index.remove(1);
/// let tied = index.tied(&[2].into(), &Decisions::default());
/// assert!(!tied.contains(&1) && !tied.contains(&4));
/// // 上海胡榮華 (base 胡荣华) reads as HU RongHua does: one group; 呂欽 a group of one.
/// let groups = index.groups(&[2, 3, 4].into(), &Decisions::default());
/// assert_eq!(groups, [vec![2, 3], vec![4]]);
/// ```
#[derive(Debug, Default)]
pub struct NameIndex {
    keys: NameKeys,
    names: HashMap<i64, String>,
    by_key: HashMap<(Kind, String), HashSet<i64>>,
}

impl NameIndex {
    /// Adds a name under its id, or gives the id a new name (its keys follow).
    pub fn set(&mut self, id: i64, name: &str) {
        if self.names.get(&id).is_some_and(|n| n == name) {
            return;
        }
        self.remove(id);
        self.keys.add(name);
        if let Some(k) = self.keys.by_name.get(name) {
            for key in keys_of(k) {
                self.by_key.entry(key).or_default().insert(id);
            }
        }
        self.names.insert(id, name.to_string());
    }

    /// Takes a name off (a player without games any more); nothing if it is not there.
    pub fn remove(&mut self, id: i64) {
        let Some(name) = self.names.remove(&id) else {
            return;
        };
        if let Some(k) = self.keys.by_name.get(&name) {
            for key in keys_of(k) {
                if let Some(ids) = self.by_key.get_mut(&key) {
                    ids.remove(&id);
                    if ids.is_empty() {
                        self.by_key.remove(&key);
                    }
                }
            }
        }
    }

    /// How many names it holds.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether it holds no name.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The keys read so far, for [`super::persons_with`].
    pub fn keys(&mut self) -> &mut NameKeys {
        &mut self.keys
    }

    /// The names whose persons [`super::persons_with`] may decide together with those of
    /// `from`, in groups: every name tied to one of them, through any chain, by what the
    /// rules compare (one base; a cut of one name whose rest or front part is another's
    /// base; a pinyin reading of a hanzi name that a romanized name has, or one romanized
    /// reading; a join of `decided`), each group the names tied to each other. A name
    /// outside them is decided apart, the same whatever happens to them, and so is each
    /// group: [`super::persons_with`] over a group alone (its met pairs, [`Decisions::among`]
    /// it) gives its names the persons it gives them over every name, and a group of one
    /// name is that name's own person. Ids of `from` that it does not hold are left out.
    pub fn groups(&self, from: &HashSet<i64>, decided: &Decisions) -> Vec<Vec<i64>> {
        let mut joined: HashMap<i64, Vec<i64>> = HashMap::new();
        for &(a, b) in &decided.joins {
            joined.entry(a).or_default().push(b);
            joined.entry(b).or_default().push(a);
        }
        let mut starts: Vec<i64> = from
            .iter()
            .copied()
            .filter(|id| self.names.contains_key(id))
            .collect();
        starts.sort_unstable();
        let mut seen: HashSet<i64> = HashSet::new();
        let mut groups = Vec::new();
        for start in starts {
            if !seen.insert(start) {
                continue;
            }
            let mut group = vec![start];
            let mut todo = vec![start];
            // Each name is taken once: the loop ends within the index's size.
            while let Some(id) = todo.pop() {
                let Some(k) = self.names.get(&id).and_then(|n| self.keys.by_name.get(n)) else {
                    continue;
                };
                let mut next: Vec<i64> = joined.get(&id).cloned().unwrap_or_default();
                for key in neighbour_keys(k) {
                    if let Some(ids) = self.by_key.get(&key) {
                        next.extend(ids);
                    }
                }
                for n in next {
                    if self.names.contains_key(&n) && seen.insert(n) {
                        group.push(n);
                        todo.push(n);
                    }
                }
            }
            group.sort_unstable();
            groups.push(group);
        }
        groups
    }

    /// Every name of [`NameIndex::groups`] in one set.
    pub fn tied(&self, from: &HashSet<i64>, decided: &Decisions) -> HashSet<i64> {
        self.groups(from, decided).into_iter().flatten().collect()
    }
}

/// The keys a name is filed under.
fn keys_of(k: &Keys) -> Vec<(Kind, String)> {
    let mut out = vec![(Kind::Base, k.base.clone())];
    for (front, rest) in &k.cuts {
        out.push((Kind::Front, front.clone()));
        out.push((Kind::Rest, rest.clone()));
    }
    out.extend(k.roman.iter().map(|r| (Kind::Roman, r.clone())));
    out.extend(k.readings.iter().map(|r| (Kind::Reading, r.clone())));
    out
}

/// The keys under which a name's neighbours are filed: names of its base, or cut down to it
/// (rest or front part); names whose base is one of its cuts; romanized names that read as
/// it does, and hanzi names with its romanized reading.
fn neighbour_keys(k: &Keys) -> Vec<(Kind, String)> {
    let mut out = vec![
        (Kind::Base, k.base.clone()),
        (Kind::Rest, k.base.clone()),
        (Kind::Front, k.base.clone()),
    ];
    for (front, rest) in &k.cuts {
        out.push((Kind::Base, front.clone()));
        out.push((Kind::Base, rest.clone()));
    }
    for r in &k.readings {
        out.push((Kind::Roman, r.clone()));
    }
    if let Some(r) = &k.roman {
        out.push((Kind::Roman, r.clone()));
        out.push((Kind::Reading, r.clone()));
    }
    out
}
