//! The person behind each name of the player index: `players.person`, the id of the player
//! (folded name) that names the person. Owns recomputing it for the whole table (by the
//! schema-15 migration and by [`Store::rebuild_persons`]) and for the names an import batch
//! touched and those tied to them (found in the store's [`NameIndex`]) from the
//! matching rules of [`crate::formats::persons`], and the reads by person: a name's
//! spellings ([`Store::person`]), the persons of a pattern ([`Store::players`]) and the
//! names nearest an unknown one ([`Store::nearest_players`]).

use std::collections::{HashMap, HashSet};

use rusqlite::OptionalExtension;

use super::{decisions::DecidedNames, model::PlayerRow, sql, Store, StoreError};
use crate::formats::{
    names::fold,
    persons::{base, persons_with, without_rank, Name, NameIndex, NameKeys},
};

/// One spelling of a person's name: a player of the index (a folded name), with the name
/// as written most often and its games.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spelling {
    /// The name as written most often.
    pub name: String,
    /// Its games.
    pub games: u64,
}

/// What recomputing the persons found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PersonsOutcome {
    /// Players (folded names) in the index.
    pub players: usize,
    /// Persons they are.
    pub persons: usize,
    /// Players whose person changed.
    pub changed: usize,
}

/// A person: the id of the player that names them, and their players (ids, spellings).
type PersonPlayers = (i64, Vec<(i64, Spelling)>);

/// A row of the player table as the reads by person use it.
pub(super) struct Player {
    pub(super) id: i64,
    pub(super) name: String,
    pub(super) folded: String,
    pub(super) person: i64,
    pub(super) games: u64,
}

/// The pairs of players that sat at one game, from (game, player) seats.
fn pairs_of(mut seats: Vec<(i64, i64)>) -> Vec<(i64, i64)> {
    seats.sort_unstable();
    seats.dedup();
    let mut met = Vec::with_capacity(seats.len() / 2);
    for game in seats.chunk_by(|a, b| a.0 == b.0) {
        for (i, a) in game.iter().enumerate() {
            for b in &game[i + 1..] {
                met.push((a.1, b.1));
            }
        }
    }
    met
}

fn games_of(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}

/// The edit distance of two strings, by characters.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let up = row[j + 1];
            row[j + 1] = (up + 1).min(row[j] + 1).min(diag + usize::from(ca != cb));
            diag = up;
        }
    }
    row[b.len()]
}

impl Store {
    /// Recomputes every player's person from the names, their games, the pairs of players
    /// that met in a game and the decisions taken by hand, in the caller's transaction.
    pub(super) fn resolve_persons(&self) -> Result<PersonsOutcome, StoreError> {
        self.resolve_checked(None)
    }

    /// [`Store::resolve_persons`] for the names an import batch brought games to or took
    /// games from (`touched`, ids, some perhaps gone), the names tied to them by the
    /// matching rules before the batch and after it ([`NameIndex::groups`]), and the names
    /// that were one person with them: no other name's person can change, so only these are
    /// read and recomputed, group by group, from their own games' seats (the same persons
    /// as a recomputation of the whole table: tests/persons.rs); a group of one name is its
    /// own person, and its games are not read. Gives back the store's name index, up to
    /// date with the batch: the caller keeps it ([`Store::keep_name_index`]) once the batch
    /// is committed, so that a batch that fails leaves none, and the next one reads the
    /// table again.
    pub(super) fn resolve_persons_of(&self, touched: &[i64]) -> Result<NameIndex, StoreError> {
        let decided = self.decided(&self.decision_ids()?)?;
        let mut from: HashSet<i64> = touched.iter().copied().collect();
        let mut index = match self.name_index.take() {
            Some(index) => {
                // The names tied to them before the batch (a name gone may have tied others).
                from.extend(index.tied(&from, &decided.decisions));
                index
            }
            None => self.read_name_index()?,
        };
        let mut row = self.conn.prepare_cached(sql::PLAYER_NAME_GAMES)?;
        let mut name_of = |id: i64| -> Result<Option<Name>, StoreError> {
            Ok(row
                .query_row([id], |r| {
                    Ok(Name {
                        id,
                        name: r.get(0)?,
                        games: games_of(r.get(1)?),
                    })
                })
                .optional()?)
        };
        for &id in touched {
            match name_of(id)? {
                Some(n) => index.set(id, &n.name),
                None => index.remove(id),
            }
        }
        let mut same = self.conn.prepare_cached(sql::PLAYERS_OF_PERSON)?;
        for &id in touched {
            for other in same.query_map([id], |r| r.get::<_, i64>(0))? {
                from.insert(other?);
            }
        }
        let (mut own, mut tied) = (Vec::new(), HashSet::new());
        for group in index.groups(&from, &decided.decisions) {
            match group[..] {
                [one] => own.push(one),
                _ => tied.extend(group),
            }
        }
        self.set_persons(&own, &HashMap::new())?;
        let mut names = Vec::with_capacity(tied.len());
        for &id in &tied {
            names.extend(name_of(id)?);
        }
        names.sort_by_key(|n| n.id);
        let met = self.met_among(&tied)?;
        let (person, _) = persons_with(&names, &met, &decided.decisions.among(&tied), index.keys());
        let ids: Vec<i64> = names.iter().map(|n| n.id).collect();
        self.set_persons(&ids, &person)?;
        Ok(index)
    }

    /// Keeps the name index a committed batch gave back ([`Store::resolve_persons_of`]).
    pub(super) fn keep_name_index(&self, index: NameIndex) {
        self.name_index.replace(Some(index));
    }

    /// Every player's name, indexed by its keys: once per store, at its first import batch.
    fn read_name_index(&self) -> Result<NameIndex, StoreError> {
        let mut index = NameIndex::default();
        let mut stmt = self.conn.prepare_cached(sql::PLAYER_NAMES_GAMES)?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            index.set(r.get(0)?, &r.get::<_, String>(1)?);
        }
        Ok(index)
    }

    /// Every player's id, name and games, and the ids by folded name.
    fn player_names(&self) -> Result<(Vec<Name>, HashMap<String, i64>), StoreError> {
        let mut ids: HashMap<String, i64> = HashMap::new();
        let names: Vec<Name> = self
            .conn
            .prepare_cached(sql::PLAYER_NAMES_GAMES)?
            .query_map([], |r| {
                Ok((
                    Name {
                        id: r.get(0)?,
                        name: r.get(1)?,
                        games: games_of(r.get(2)?),
                    },
                    r.get::<_, String>(3)?,
                ))
            })?
            .map(|row| {
                row.map(|(n, folded)| {
                    ids.insert(folded, n.id);
                    n
                })
            })
            .collect::<Result<_, _>>()?;
        Ok((names, ids))
    }

    /// [`Store::resolve_persons`]; with `Some(mark)`, the error naming the game when a
    /// recorded decision newer than `mark` would join two names that met.
    pub(super) fn resolve_checked(&self, mark: Option<i64>) -> Result<PersonsOutcome, StoreError> {
        let (names, ids) = self.player_names()?;
        let met = self.met_pairs()?;
        let decided = self.decided(&ids)?;
        let (person, refused) =
            persons_with(&names, &met, &decided.decisions, &mut NameKeys::default());
        if let Some(mark) = mark {
            for r in &refused {
                if let Some(Some(rule)) = decided.rules.get(r.join) {
                    if rule.id > mark {
                        return Err(self.refusal(rule, r)?);
                    }
                }
            }
        }
        let ids: Vec<i64> = names.iter().map(|n| n.id).collect();
        self.set_persons(&ids, &person)
    }

    /// Writes the persons of some names (ids; a name without one is its own).
    fn set_persons(
        &self,
        ids: &[i64],
        person: &HashMap<i64, i64>,
    ) -> Result<PersonsOutcome, StoreError> {
        let mut set = self.conn.prepare_cached(sql::SET_PERSON)?;
        let mut out = PersonsOutcome {
            players: ids.len(),
            ..PersonsOutcome::default()
        };
        for &id in ids {
            let p = person.get(&id).copied().unwrap_or(id);
            out.persons += usize::from(p == id);
            out.changed += set.execute(rusqlite::params![id, p])?;
        }
        Ok(out)
    }

    /// The pairs of players (ids) among `some` that met in a game, from their own games.
    fn met_among(&self, some: &HashSet<i64>) -> Result<Vec<(i64, i64)>, StoreError> {
        let mut seats: Vec<(i64, i64)> = Vec::new();
        let mut stmt = self.conn.prepare_cached(sql::PLAYER_GAMES)?;
        for &id in some {
            for game in stmt.query_map([id], |r| r.get::<_, i64>(1))? {
                seats.push((game?, id));
            }
        }
        Ok(pairs_of(seats))
    }

    /// The pairs of players (ids) that met in a game.
    fn met_pairs(&self) -> Result<Vec<(i64, i64)>, StoreError> {
        let seats: Vec<(i64, i64)> = self
            .conn
            .prepare_cached(sql::GAME_PLAYERS)?
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<_, _>>()?;
        Ok(pairs_of(seats))
    }

    /// [`Store::resolve_persons`] as a migration's step.
    pub(super) fn resolve_persons_step(&self) -> Result<(), StoreError> {
        self.resolve_persons().map(|_| ())
    }

    /// Recomputes every player's person in one transaction (`qipu players --rebuild`): what
    /// an import does after each batch, on demand.
    ///
    /// ```
    /// let mut store = qipu::store::Store::open_in_memory()?;
    /// assert_eq!(store.rebuild_persons()?.players, 0);
    /// # Ok::<_, qipu::store::StoreError>(())
    /// ```
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails.
    pub fn rebuild_persons(&mut self) -> Result<PersonsOutcome, StoreError> {
        let tx = rusqlite::Transaction::new_unchecked(
            &self.conn,
            rusqlite::TransactionBehavior::Immediate,
        )?;
        let out = self.resolve_persons()?;
        tx.commit()?;
        Ok(out)
    }

    /// Every player of the table.
    pub(super) fn all_players(&self) -> Result<Vec<Player>, StoreError> {
        let mut stmt = self.conn.prepare_cached(sql::ALL_PLAYERS)?;
        let rows = stmt.query_map([], |r| {
            Ok(Player {
                id: r.get(0)?,
                name: r.get(1)?,
                folded: r.get(2)?,
                person: r.get(3)?,
                games: games_of(r.get(4)?),
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The players (ids, spellings) that are one person with a name: the stored name that
    /// folds as it does, else the one person whose names read as it after their rank and
    /// place words come off (`中國呂欽` finds `呂欽`); none when it is no player. Most games
    /// first.
    pub(super) fn person_players(&self, player: &str) -> Result<Vec<(i64, Spelling)>, StoreError> {
        Ok(self.person_of(player)?.map(|p| p.1).unwrap_or_default())
    }

    /// [`Store::person_players`] with the id of the player that names the person
    /// (`players.person`); `None` when the name is no player.
    fn person_of(&self, player: &str) -> Result<Option<PersonPlayers>, StoreError> {
        let folded = fold(player);
        let mut stmt = self.conn.prepare_cached(sql::PERSON_OF_FOLDED)?;
        let mut head = None;
        let found: Vec<(i64, Spelling)> = stmt
            .query_map([&folded], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    Spelling {
                        name: r.get(1)?,
                        games: games_of(r.get(3)?),
                    },
                    r.get::<_, i64>(4)?,
                ))
            })?
            .map(|row| {
                row.map(|(id, s, person)| {
                    head = head.or(Some(person));
                    (id, s)
                })
            })
            .collect::<Result<_, _>>()?;
        if let Some(head) = head {
            return Ok(Some((head, found)));
        }
        if folded.is_empty() {
            return Ok(None);
        }
        let want = base(player);
        let all = self.all_players()?;
        let mut heads: Vec<i64> = all
            .iter()
            .filter(|p| base(&p.name) == want)
            .map(|p| p.person)
            .collect();
        heads.sort_unstable();
        heads.dedup();
        let [head] = heads[..] else {
            return Ok(None);
        };
        let mut of: Vec<(i64, Spelling)> = all
            .into_iter()
            .filter(|p| p.person == head)
            .map(|p| {
                (
                    p.id,
                    Spelling {
                        name: p.name,
                        games: p.games,
                    },
                )
            })
            .collect();
        of.sort_by(|a, b| b.1.games.cmp(&a.1.games).then(a.1.name.cmp(&b.1.name)));
        Ok(Some((head, of)))
    }

    /// The players (ids, spellings) of the person named by player `head`, most games first.
    pub(super) fn spellings_of(&self, head: i64) -> Result<Vec<(i64, Spelling)>, StoreError> {
        let mut of = self.conn.prepare_cached(sql::PERSON_SPELLINGS)?;
        let rows = of.query_map([head], |r| {
            Ok((
                r.get(0)?,
                Spelling {
                    name: r.get(1)?,
                    games: games_of(r.get(3)?),
                },
            ))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The name a person is shown by: the one a spelling file gives them when it is no
    /// stored name ([`DecidedNames`]), else the spelling of `head` (the player that names
    /// the person: a spelling file's first column or `--merge`'s first, else the spelling
    /// with the most games), else the first spelling; without a trailing rank (`타이슨#401`
    /// for `타이슨#401 6단`: the rank is the game's, shown by year in the dossier).
    pub(super) fn person_name(
        head: i64,
        spellings: &[(i64, Spelling)],
        decided: &DecidedNames,
    ) -> String {
        let folded: Vec<String> = spellings.iter().map(|s| fold(&s.1.name)).collect();
        let folded: Vec<&str> = folded.iter().map(String::as_str).collect();
        if let Some(name) = decided.name_of(&folded) {
            return name.to_string();
        }
        spellings
            .iter()
            .find(|s| s.0 == head)
            .or(spellings.first())
            .map(|s| without_rank(&s.1.name).0.to_string())
            .unwrap_or_default()
    }

    /// The person a name is (see [`Store::players`] for the rows): named as
    /// [`Store::players`] names them, with every spelling (most games first); `None` when
    /// the name is no player.
    ///
    /// ```
    /// use qipu::formats::{Game, MoveNode, Source};
    /// use qipu::rules::Variant;
    /// use qipu::store::{GameRecord, Store};
    /// let mut store = Store::open_in_memory()?;
    /// let records: Vec<GameRecord> = [("胡榮華", "呂欽"), ("上海胡榮華", "許銀川"), ("HU RongHua", "呂欽")]
    ///     .iter()
    ///     .enumerate()
    ///     .map(|(i, (a, b))| {
    ///         let mut g = Game::new(Variant::Xiangqi, Source { file: "x".into(), index: i });
    ///         g.moves = vec![MoveNode::new(["h2e2", "c3c4", "b2e2"][i])];
    ///         g.tags.first = Some(a.to_string());
    ///         g.tags.second = Some(b.to_string());
    ///         GameRecord::from_game(&g, 40).unwrap()
    ///     })
    ///     .collect();
    /// store.write_batch(&records)?;
    /// let hu = store.person("胡荣华")?.unwrap();
    /// assert_eq!(hu.games, 3);
    /// assert_eq!(hu.spellings.len(), 3);
    /// assert!(store.person("胡荣花")?.is_none());
    /// # Ok::<_, qipu::store::StoreError>(())
    /// ```
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails.
    pub fn person(&self, player: &str) -> Result<Option<PlayerRow>, StoreError> {
        let Some((head, rows)) = self.person_of(player)? else {
            return Ok(None);
        };
        if rows.is_empty() {
            return Ok(None);
        }
        let name = Self::person_name(head, &rows, &self.decided_names()?);
        let spellings: Vec<Spelling> = rows.into_iter().map(|(_, s)| s).collect();
        Ok(Some(PlayerRow {
            name,
            games: spellings.iter().map(|s| s.games).sum(),
            spellings,
        }))
    }

    /// Persons with a name whose folded form contains the folded `pattern`, most games
    /// first (then by name): each named by the name a spelling file (qipu's own
    /// `data/players.tsv` or the user's) or `--merge` gives them, else by their spelling
    /// with the most games, with their games and every spelling (the naming one first,
    /// then most games first). An empty pattern lists every person.
    ///
    /// ```
    /// use qipu::formats::{Game, MoveNode, Source};
    /// use qipu::rules::Variant;
    /// use qipu::store::{GameRecord, Store};
    /// let mut store = Store::open_in_memory()?;
    /// let records: Vec<GameRecord> = [("Hu Ronghua", "Lü Qin"), ("HU RONGHUA", "Xu Tianhong"), ("上海胡榮華", "Lü Qin")]
    ///     .iter()
    ///     .enumerate()
    ///     .map(|(i, (a, b))| {
    ///         let mut g = Game::new(Variant::Xiangqi, Source { file: "x".into(), index: i });
    ///         g.moves = vec![MoveNode::new(["h2e2", "c3c4", "b2e2"][i])];
    ///         g.tags.first = Some(a.to_string());
    ///         g.tags.second = Some(b.to_string());
    ///         GameRecord::from_game(&g, 40).unwrap()
    ///     })
    ///     .collect();
    /// store.write_batch(&records)?;
    /// let found = store.players("ronghua", 10)?;
    /// assert_eq!(found.len(), 1);
    /// // Named by qipu's own spelling file (`胡榮華<TAB>HU RongHua…`), though no game writes
    /// // 胡榮華 so.
    /// assert_eq!((found[0].name.as_str(), found[0].games), ("胡榮華", 3));
    /// // Else by the form written most often; a tie goes to the first in text order.
    /// let xu = store.players("tianhong", 10)?;
    /// assert_eq!(xu[0].name, "Xu Tianhong");
    /// assert_eq!(found[0].spellings.len(), 2, "HU RONGHUA (Hu Ronghua) and 上海胡榮華");
    /// assert_eq!(store.players("", 10)?.len(), 3);
    /// # Ok::<_, qipu::store::StoreError>(())
    /// ```
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails.
    pub fn players(&self, pattern: &str, limit: usize) -> Result<Vec<PlayerRow>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let heads: Vec<(i64, i64)> = self
            .conn
            .prepare_cached(sql::FIND_PERSONS)?
            .query_map(rusqlite::params![fold(pattern), limit], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })?
            .collect::<Result<_, _>>()?;
        let decided = self.decided_names()?;
        let mut out = Vec::with_capacity(heads.len());
        for (head, games) in heads {
            let mut rows = self.spellings_of(head)?;
            if rows.is_empty() {
                continue;
            }
            // The name that names the person first (a spelling file's first column).
            if let Some(i) = rows.iter().position(|r| r.0 == head) {
                rows[..=i].rotate_right(1);
            }
            let name = Self::person_name(head, &rows, &decided);
            out.push(PlayerRow {
                name,
                games: games_of(games),
                spellings: rows.into_iter().map(|r| r.1).collect(),
            });
        }
        Ok(out)
    }

    /// The persons whose names are nearest a name that is no player, at most `n`, nearest
    /// first (then most games): each row names the nearest spelling, with the person's games
    /// and spellings. Near is the edit distance of the folded names, or of their bases
    /// (without rank and place words), at most half the name's characters; a name holding
    /// the given one is nearest of all.
    ///
    /// ```
    /// use qipu::formats::{Game, MoveNode, Source};
    /// use qipu::rules::Variant;
    /// use qipu::store::{GameRecord, Store};
    /// let mut store = Store::open_in_memory()?;
    /// let mut g = Game::new(Variant::Xiangqi, Source::default());
    /// g.moves = vec![MoveNode::new("h2e2")];
    /// g.tags.first = Some("上海胡榮華".into());
    /// g.tags.second = Some("呂欽".into());
    /// store.write_batch(&[GameRecord::from_game(&g, 40).unwrap()])?;
    /// let near = store.nearest_players("胡荣花", 3)?;
    /// assert_eq!(near.len(), 1);
    /// assert_eq!(near[0].name, "上海胡榮華");
    /// # Ok::<_, qipu::store::StoreError>(())
    /// ```
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails.
    pub fn nearest_players(&self, player: &str, n: usize) -> Result<Vec<PlayerRow>, StoreError> {
        let (folded, want) = (fold(player), base(player));
        let most = (folded.chars().count() / 2).max(1);
        let all = self.all_players()?;
        // Per person: the nearest spelling and its distance.
        let mut best: HashMap<i64, (usize, usize)> = HashMap::new();
        let mut games: HashMap<i64, u64> = HashMap::new();
        for (i, p) in all.iter().enumerate() {
            *games.entry(p.person).or_default() += p.games;
            let d = if !folded.is_empty() && p.folded.contains(&folded) {
                0
            } else {
                distance(&folded, &p.folded).min(distance(&want, &base(&p.name)))
            };
            if d > most {
                continue;
            }
            let e = best.entry(p.person).or_insert((d, i));
            if (d, std::cmp::Reverse(p.games)) < (e.0, std::cmp::Reverse(all[e.1].games)) {
                *e = (d, i);
            }
        }
        let mut near: Vec<(usize, u64, i64, usize)> = best
            .into_iter()
            .map(|(person, (d, i))| (d, games.get(&person).copied().unwrap_or(0), person, i))
            .collect();
        near.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
        near.truncate(n);
        let decided = self.decided_names()?;
        Ok(near
            .into_iter()
            .map(|(_, games, person, _)| {
                let mut rows: Vec<(i64, Spelling)> = all
                    .iter()
                    .filter(|p| p.person == person)
                    .map(|p| {
                        let s = Spelling {
                            name: p.name.clone(),
                            games: p.games,
                        };
                        (p.id, s)
                    })
                    .collect();
                rows.sort_by(|a, b| b.1.games.cmp(&a.1.games).then(a.1.name.cmp(&b.1.name)));
                // Named as `qipu players` names them, not by the spelling nearest the query.
                let name = Self::person_name(person, &rows, &decided);
                PlayerRow {
                    name,
                    games,
                    spellings: rows.into_iter().map(|(_, s)| s).collect(),
                }
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::distance;

    #[test]
    fn edit_distance() {
        assert_eq!(distance("胡荣花", "胡荣华"), 1);
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("same", "same"), 0);
    }
}
