//! The decisions on persons taken by hand, which every recomputation of the persons
//! honours: qipu's own spelling file (`data/players.tsv`, compiled in) and the user's,
//! recorded in `person_rules` (schema 17) by [`Store::apply_spellings`],
//! [`Store::merge_players`] and [`Store::split_player`], listed by [`Store::decisions`] and
//! undone by [`Store::forget_decision`], each change in one transaction that changes nothing
//! when a decision would join two names that met in a game. Also owns the name a decision
//! gives a person ([`Store::decided_names`]). Reads and writes `person_rules` only; the
//! persons themselves are `persons.rs`'s.

use rusqlite::OptionalExtension;
use std::{
    collections::{HashMap, HashSet},
    sync::OnceLock,
};

use super::{persons::PersonsOutcome, sql, Store, StoreError};
use crate::formats::{
    names::fold,
    persons::{Decisions, Refused},
    spellings::{parse, SpellingLine},
};

/// A line of qipu's own spelling file: the person's name as written, then every name of
/// the line (the person's first), folded.
struct ShippedLine {
    person: String,
    folded: Vec<String>,
}

/// qipu's own spelling file.
fn shipped() -> &'static [ShippedLine] {
    static LINES: OnceLock<Vec<ShippedLine>> = OnceLock::new();
    LINES.get_or_init(|| {
        parse(include_str!("../../data/players.tsv"), "data/players.tsv")
            .unwrap_or_default()
            .into_iter()
            .map(|l| ShippedLine {
                folded: std::iter::once(&l.person)
                    .chain(&l.spellings)
                    .map(|n| fold(n))
                    .collect(),
                person: l.person,
            })
            .collect()
    })
}

/// A decision on persons recorded in the database (a row of `person_rules`), as
/// `qipu players --decisions` lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    /// Its number, for [`Store::forget_decision`].
    pub id: i64,
    /// `merge` (`name` is one person with `person`) or `split` (`name` is a person of its
    /// own; `person` is the same name).
    pub kind: String,
    /// The name the person is named by, as given.
    pub person: String,
    /// The name joined to the person (or split off), as given.
    pub name: String,
    /// Where it came from: `--merge`, `--split` or a spelling file's `FILE:LINE`.
    pub origin: String,
}

/// The names decisions give persons whose name is no stored player: per spelling-file
/// line (the user's newest first, then qipu's own in file order) the line's person as
/// written and the line's stored names, folded, that are not split off. A person holding
/// all of a line's stored names is named by it ([`DecidedNames::name_of`]).
#[derive(Clone, Debug, Default)]
pub(super) struct DecidedNames {
    lines: Vec<(String, Vec<String>)>,
}

impl DecidedNames {
    /// The name of the person with these spellings (folded), if a line names them.
    pub(super) fn name_of<'a>(&'a self, spellings: &[&str]) -> Option<&'a str> {
        self.lines
            .iter()
            .find(|(_, names)| names.iter().all(|n| spellings.contains(&n.as_str())))
            .map(|(person, _)| person.as_str())
    }
}

/// The decisions by player id, and for each join the rule it came from (none for the
/// shipped file's).
pub(super) struct Decided {
    pub(super) decisions: Decisions,
    pub(super) rules: Vec<Option<Decision>>,
}

impl Store {
    /// Every recorded decision, oldest first (`qipu players --decisions`); none before
    /// schema 17.
    ///
    /// ```
    /// let store = qipu::store::Store::open_in_memory()?;
    /// assert!(store.decisions()?.is_empty());
    /// # Ok::<_, qipu::store::StoreError>(())
    /// ```
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails.
    pub fn decisions(&self) -> Result<Vec<Decision>, StoreError> {
        let exists: i64 = self.conn.query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'person_rules'",
            [],
            |r| r.get(0),
        )?;
        if exists == 0 {
            return Ok(Vec::new());
        }
        let mut stmt = self.conn.prepare_cached(sql::PERSON_RULES)?;
        let rows = stmt.query_map([], |r| {
            Ok(Decision {
                id: r.get(0)?,
                kind: r.get(1)?,
                person: r.get(2)?,
                name: r.get(3)?,
                origin: r.get(4)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The ids of the names the decisions name (the shipped spelling file's and the
    /// user's), by folded name: what [`Store::decided`] looks up, without reading every
    /// player.
    pub(super) fn decision_ids(&self) -> Result<HashMap<String, i64>, StoreError> {
        let mut wanted: HashSet<String> = shipped()
            .iter()
            .flat_map(|l| l.folded.iter().cloned())
            .collect();
        for rule in self.decisions()? {
            wanted.insert(fold(&rule.person));
            wanted.insert(fold(&rule.name));
        }
        let mut find = self.conn.prepare_cached(sql::PLAYER_BY_FOLDED)?;
        let mut ids = HashMap::with_capacity(wanted.len());
        for f in wanted {
            if let Some(id) = find.query_row([&f], |r| r.get::<_, i64>(0)).optional()? {
                ids.insert(f, id);
            }
        }
        Ok(ids)
    }

    /// The decisions for the players of `ids` (folded name → id): the shipped file's lines
    /// (soft: a `--split` wins), then the recorded ones.
    pub(super) fn decided(&self, ids: &HashMap<String, i64>) -> Result<Decided, StoreError> {
        let mut d = Decisions::default();
        let mut rules = Vec::new();
        for line in shipped() {
            let line = &line.folded;
            let Some(head) = line.iter().find_map(|n| ids.get(n)) else {
                continue;
            };
            if let Some(&first) = ids.get(&line[0]) {
                d.heads.push(first);
            }
            for id in line.iter().filter_map(|n| ids.get(n)) {
                d.joins.push((*head, *id));
                rules.push(None);
            }
        }
        d.soft = d.joins.len();
        // A merge's person that is no stored name (a spelling file's first column): its
        // names are joined to the first stored one of them.
        let mut anchors: HashMap<String, i64> = HashMap::new();
        for rule in self.decisions()? {
            let person = fold(&rule.person);
            let (p, n) = (ids.get(&person), ids.get(&fold(&rule.name)));
            match (rule.kind.as_str(), p, n) {
                ("split", _, Some(&n)) => {
                    d.alone.insert(n);
                }
                ("merge", Some(&p), Some(&n)) => {
                    d.heads.push(p);
                    d.joins.push((p, n));
                    rules.push(Some(rule));
                }
                ("merge", None, Some(&n)) => match anchors.get(&person) {
                    Some(&a) => {
                        d.joins.push((a, n));
                        rules.push(Some(rule));
                    }
                    None => {
                        anchors.insert(person, n);
                    }
                },
                _ => {}
            }
        }
        Ok(Decided {
            decisions: d,
            rules,
        })
    }

    /// The error for a recorded decision that joins two names that met: naming the game.
    pub(super) fn refusal(&self, rule: &Decision, r: &Refused) -> Result<StoreError, StoreError> {
        let mut stmt = self.conn.prepare_cached(sql::PLAYER_MEETINGS)?;
        let rows = stmt.query_map([r.met], |row| {
            Ok((
                row.get::<_, i64>(0)?,
                row.get::<_, i64>(1)?,
                row.get::<_, Option<String>>(2)?,
                row.get::<_, Option<String>>(3)?,
                row.get::<_, Option<String>>(4)?,
                row.get::<_, Option<String>>(5)?,
            ))
        })?;
        let mut game = String::from("a game");
        for row in rows {
            let (id, other, first, second, date, event) = row?;
            if r.names.contains(&other) {
                let facts: Vec<String> = [date, event].into_iter().flatten().collect();
                game = format!(
                    "game {id} ({} - {}{}{})",
                    first.unwrap_or_default(),
                    second.unwrap_or_default(),
                    if facts.is_empty() { "" } else { ", " },
                    facts.join(", ")
                );
                break;
            }
        }
        Ok(StoreError::Setting(format!(
            "{}: {} and {} would be one person, but their names met in {game}; nothing changed",
            rule.origin, rule.person, rule.name
        )))
    }

    /// Records decisions and recomputes the persons, in one transaction: any decision that
    /// would join two names that met undoes it all.
    fn decide(
        &mut self,
        add: &[(&str, String, String, String)],
        forget: &[i64],
    ) -> Result<PersonsOutcome, StoreError> {
        let tx = rusqlite::Transaction::new_unchecked(
            &self.conn,
            rusqlite::TransactionBehavior::Immediate,
        )?;
        let mark: i64 = self
            .conn
            .query_row(sql::LAST_PERSON_RULE, [], |r| r.get(0))?;
        for id in forget {
            self.conn
                .prepare_cached(sql::DELETE_PERSON_RULE)?
                .execute([id])?;
        }
        let mut insert = self.conn.prepare_cached(sql::ADD_PERSON_RULE)?;
        for (kind, person, name, origin) in add {
            insert.execute(rusqlite::params![kind, person, name, origin])?;
        }
        drop(insert);
        let out = self.resolve_checked(Some(mark))?;
        tx.commit()?;
        Ok(out)
    }

    /// The id of a stored player's name, or the error that it is none.
    fn known(&self, name: &str) -> Result<i64, StoreError> {
        let mut stmt = self.conn.prepare_cached(sql::PLAYER_OF_FOLDED)?;
        let mut rows = stmt.query([fold(name)])?;
        match rows.next()? {
            Some(r) => Ok(r.get(0)?),
            None => Err(StoreError::Setting(format!("no such player {name}"))),
        }
    }

    /// The recorded decisions that name a folded name, either side, of a kind.
    fn naming(&self, folded: &[String], kind: &str) -> Result<Vec<i64>, StoreError> {
        Ok(self
            .decisions()?
            .into_iter()
            .filter(|r| r.kind == kind)
            .filter(|r| folded.contains(&fold(&r.person)) || folded.contains(&fold(&r.name)))
            .map(|r| r.id)
            .collect())
    }

    /// `qipu players --merge A B`: records that the names `a` and `b` are one person,
    /// named `a` (forgetting a `--split` of either), and recomputes the persons.
    ///
    /// # Errors
    /// [`StoreError::Setting`] if a name is no player, or if the two persons' names met in
    /// a game (naming it; nothing changed); [`StoreError`] if SQLite fails.
    pub fn merge_players(&mut self, a: &str, b: &str) -> Result<PersonsOutcome, StoreError> {
        if self.known(a)? == self.known(b)? {
            return Err(StoreError::Setting(format!("{a} and {b} are one name")));
        }
        let forget = self.naming(&[fold(a), fold(b)], "split")?;
        let add = [("merge", a.to_string(), b.to_string(), "--merge".to_string())];
        self.decide(&add, &forget)
    }

    /// `qipu players --split NAME`: records that the name is a person of its own (no rule
    /// and no line of the shipped spelling file joins it; forgetting the user's merges that
    /// name it), and recomputes the persons.
    ///
    /// # Errors
    /// [`StoreError::Setting`] if the name is no player; [`StoreError`] if SQLite fails.
    pub fn split_player(&mut self, name: &str) -> Result<PersonsOutcome, StoreError> {
        self.known(name)?;
        let forget = self.naming(&[fold(name)], "merge")?;
        let add = [(
            "split",
            name.to_string(),
            name.to_string(),
            "--split".to_string(),
        )];
        self.decide(&add, &forget)
    }

    /// Whether a name is a stored player's (the whole folded name, as `--merge` and
    /// `--split` take it).
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails.
    pub fn is_player(&self, name: &str) -> Result<bool, StoreError> {
        Ok(self
            .conn
            .prepare_cached(sql::PLAYER_OF_FOLDED)?
            .exists([fold(name)])?)
    }

    /// `qipu players --forget N|NAME`: forgets one recorded decision, by its number
    /// ([`Store::decisions`]) or by the name it joins or splits off (else the name it
    /// names a person by), and recomputes the persons. Returns the decision forgotten.
    ///
    /// ```
    /// let mut store = qipu::store::Store::open_in_memory()?;
    /// assert!(store.forget_decision("1").is_err(), "no decision 1");
    /// # Ok::<_, qipu::store::StoreError>(())
    /// ```
    ///
    /// # Errors
    /// [`StoreError::Setting`] if no decision or several decisions are named so (nothing
    /// changed); [`StoreError`] if SQLite fails.
    pub fn forget_decision(
        &mut self,
        which: &str,
    ) -> Result<(Decision, PersonsOutcome), StoreError> {
        let all = self.decisions()?;
        let chosen: Vec<&Decision> = match which.trim().parse::<i64>() {
            Ok(n) => all.iter().filter(|d| d.id == n).collect(),
            Err(_) => {
                let f = fold(which);
                let by_name: Vec<&Decision> = all.iter().filter(|d| fold(&d.name) == f).collect();
                if by_name.is_empty() {
                    all.iter().filter(|d| fold(&d.person) == f).collect()
                } else {
                    by_name
                }
            }
        };
        match chosen[..] {
            [one] => {
                let d = one.clone();
                let out = self.decide(&[], &[d.id])?;
                Ok((d, out))
            }
            [] => Err(StoreError::Setting(format!(
                "--forget: no decision {which} (`qipu players --decisions` lists them)"
            ))),
            _ => {
                let ids: Vec<String> = chosen.iter().map(|d| d.id.to_string()).collect();
                Err(StoreError::Setting(format!(
                    "--forget: {which} is in decisions {}; give one number",
                    ids.join(", ")
                )))
            }
        }
    }

    /// The names decisions give persons whose name is no stored player (see
    /// [`DecidedNames`]): the user's spelling-file lines, newest first, then qipu's own.
    pub(super) fn decided_names(&self) -> Result<DecidedNames, StoreError> {
        let rules = self.decisions()?;
        let split: HashSet<String> = rules
            .iter()
            .filter(|r| r.kind == "split")
            .map(|r| fold(&r.name))
            .collect();
        // The user's lines: merges grouped by their person (folded), the newest first.
        let mut user: Vec<(i64, String, Vec<String>)> = Vec::new();
        for r in rules.iter().filter(|r| r.kind == "merge") {
            let p = fold(&r.person);
            match user.iter_mut().find(|u| u.2[0] == p) {
                Some(u) => {
                    u.0 = r.id;
                    u.2.push(fold(&r.name));
                }
                None => user.push((r.id, r.person.clone(), vec![p, fold(&r.name)])),
            }
        }
        user.sort_by_key(|u| std::cmp::Reverse(u.0));
        let lines = user
            .into_iter()
            .map(|(_, person, names)| (person, names))
            .chain(
                shipped()
                    .iter()
                    .map(|l| (l.person.clone(), l.folded.clone())),
            );
        let mut stored = self.conn.prepare_cached(sql::PLAYER_OF_FOLDED)?;
        let mut out = DecidedNames::default();
        for (person, names) in lines {
            // A stored name names its person itself (`Decisions::heads`).
            if names.is_empty() || stored.exists([&names[0]])? {
                continue;
            }
            let mut held: Vec<String> = Vec::new();
            for n in names.into_iter().skip(1) {
                if !split.contains(&n) && !held.contains(&n) && stored.exists([&n])? {
                    held.push(n);
                }
            }
            if !held.is_empty() {
                out.lines.push((person, held));
            }
        }
        Ok(out)
    }

    /// `qipu players --spellings FILE`: records each line's names as one person, named by
    /// the first column, and recomputes the persons (no re-import). `file` names the file
    /// in errors.
    ///
    /// # Errors
    /// [`StoreError::Setting`] if a line would join two names that met in a game
    /// (`FILE:LINE`, naming the game; nothing changed); [`StoreError`] if SQLite fails.
    pub fn apply_spellings(
        &mut self,
        lines: &[SpellingLine],
        file: &str,
    ) -> Result<PersonsOutcome, StoreError> {
        let add: Vec<(&str, String, String, String)> = lines
            .iter()
            .flat_map(|l| {
                l.spellings.iter().map(move |s| {
                    (
                        "merge",
                        l.person.clone(),
                        s.clone(),
                        format!("{file}:{}", l.line),
                    )
                })
            })
            .collect();
        self.decide(&add, &[])
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_shipped_file_parses() {
        let text = include_str!("../../data/players.tsv");
        let lines = crate::formats::spellings::parse(text, "data/players.tsv").unwrap();
        assert_eq!(lines.len(), super::shipped().len());
        assert!(lines
            .iter()
            .any(|l| l.person == "楊官璘" && l.spellings.contains(&"楊官麟".to_string())));
    }
}
