//! The decisions on persons taken by hand, which every recomputation of the persons
//! honours: qipu's own spelling file (`data/players.tsv`, compiled in) and the user's,
//! recorded in `person_rules` (schema 17) by [`Store::apply_spellings`],
//! [`Store::merge_players`] and [`Store::split_player`], each in one transaction that
//! changes nothing when a decision would join two names that met in a game.

use std::{collections::HashMap, sync::OnceLock};

use super::{persons::PersonsOutcome, sql, Store, StoreError};
use crate::formats::{
    names::fold,
    persons::{Decisions, Refused},
    spellings::{parse, SpellingLine},
};

/// qipu's own spelling file, folded: per line, the person then every spelling.
fn shipped() -> &'static [Vec<String>] {
    static LINES: OnceLock<Vec<Vec<String>>> = OnceLock::new();
    LINES.get_or_init(|| {
        parse(include_str!("../../data/players.tsv"), "data/players.tsv")
            .unwrap_or_default()
            .into_iter()
            .map(|l| {
                std::iter::once(&l.person)
                    .chain(&l.spellings)
                    .map(|n| fold(n))
                    .collect()
            })
            .collect()
    })
}

/// A recorded decision (a row of `person_rules`).
pub(super) struct Rule {
    pub(super) id: i64,
    kind: String,
    person: String,
    name: String,
    origin: String,
}

/// The decisions by player id, and for each join the rule it came from (none for the
/// shipped file's).
pub(super) struct Decided {
    pub(super) decisions: Decisions,
    pub(super) rules: Vec<Option<Rule>>,
}

impl Store {
    /// Every recorded decision, oldest first; none before schema 17.
    fn rules(&self) -> Result<Vec<Rule>, StoreError> {
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
            Ok(Rule {
                id: r.get(0)?,
                kind: r.get(1)?,
                person: r.get(2)?,
                name: r.get(3)?,
                origin: r.get(4)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The decisions for the players of `ids` (folded name → id): the shipped file's lines
    /// (soft: a `--split` wins), then the recorded ones.
    pub(super) fn decided(&self, ids: &HashMap<String, i64>) -> Result<Decided, StoreError> {
        let mut d = Decisions::default();
        let mut rules = Vec::new();
        for line in shipped() {
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
        for rule in self.rules()? {
            let (p, n) = (ids.get(&fold(&rule.person)), ids.get(&fold(&rule.name)));
            match (rule.kind.as_str(), p, n) {
                ("split", _, Some(&n)) => {
                    d.alone.insert(n);
                }
                ("merge", Some(&p), Some(&n)) => {
                    d.heads.push(p);
                    d.joins.push((p, n));
                    rules.push(Some(rule));
                }
                _ => {}
            }
        }
        Ok(Decided {
            decisions: d,
            rules,
        })
    }

    /// The error for a recorded decision that joins two names that met: naming the game.
    pub(super) fn refusal(&self, rule: &Rule, r: &Refused) -> Result<StoreError, StoreError> {
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
            .rules()?
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
