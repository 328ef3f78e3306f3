//! The reads of a player's dossier: every game of a person (under every spelling), with the
//! side they had, the game's header, its start and its moves (decoded from the `games.moves`
//! blob as the statistics decode it), and the person behind each opponent's name. No
//! counting here: the dossier itself is `explorer::dossier`'s.

use std::collections::HashMap;

use rusqlite::OptionalExtension;

use super::{
    codec::{unpack_line, variant_from_code},
    model::GameThrough,
    read::through_row,
    sql, Store, StoreError,
};
use crate::{
    formats::names::fold,
    rules::{AnyPosition, Color, Move, Variant},
};

/// One game of a person, as the dossier reads it.
#[derive(Clone, Debug)]
pub struct PersonGame {
    /// The header (players as written, ratings, result, date, event, formations, speed …).
    pub game: GameThrough,
    /// The side the person had.
    pub side: Color,
    /// The game's variant.
    pub variant: Variant,
    /// The start position, `None` for the variant's standard start.
    pub start_fen: Option<String>,
    /// The main line.
    pub moves: Vec<Move>,
}

/// A person as an opponent: the id of the player that names them and that name.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PersonName {
    /// The person's id (`players.person`).
    pub id: i64,
    /// Their name: a spelling file's (see [`Store::players`]), else the spelling that names
    /// them, as written most often.
    pub name: String,
}

impl Store {
    /// Every game of the person a name is (any spelling, as [`Store::person`] resolves it),
    /// in id order, each once (with the first side, should both sides be theirs); empty
    /// when the name is no player.
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails, or a game's variant, start or moves are corrupt.
    pub fn person_games(&self, player: &str) -> Result<Vec<PersonGame>, StoreError> {
        let mut stmt = self.conn.prepare_cached(sql::PLAYER_DOSSIER_GAMES)?;
        let mut out: Vec<PersonGame> = Vec::new();
        for (id, _) in self.person_players(player)? {
            let rows = stmt.query_map([id], |r| {
                let (_, game, variant, _) = through_row(r)?;
                let side: i64 = r.get(15)?;
                let fen: Option<String> = r.get(16)?;
                let blob: Vec<u8> = r.get(17)?;
                Ok((game, variant, side, fen, blob))
            })?;
            for row in rows {
                let (game, variant, side, start_fen, blob) = row?;
                let g = game.id;
                let variant = variant_from_code(variant)
                    .ok_or_else(|| StoreError::Corrupt(format!("game {g}: bad variant")))?;
                let start = match &start_fen {
                    None => AnyPosition::new(variant),
                    Some(f) => AnyPosition::from_fen(variant, f)
                        .map_err(|source| StoreError::StartPosition { game: g, source })?,
                };
                let moves = unpack_line(&start, &blob)
                    .ok_or_else(|| StoreError::Corrupt(format!("game {g}: bad moves")))?;
                out.push(PersonGame {
                    game,
                    side: if side == 0 {
                        Color::First
                    } else {
                        Color::Second
                    },
                    variant,
                    start_fen,
                    moves,
                });
            }
        }
        out.sort_by_key(|p| (p.game.id, p.side == Color::Second));
        out.dedup_by_key(|p| p.game.id);
        Ok(out)
    }

    /// The persons behind some names as written (folded as the player index folds them), by
    /// name, each named as [`Store::players`] names them; a name that is no player is left
    /// out.
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails.
    pub fn persons_of<'a>(
        &self,
        names: impl IntoIterator<Item = &'a str>,
    ) -> Result<HashMap<String, PersonName>, StoreError> {
        let mut stmt = self.conn.prepare_cached(sql::PERSON_HEAD_OF_FOLDED)?;
        let mut out = HashMap::new();
        for name in names {
            if out.contains_key(name) {
                continue;
            }
            let head = stmt
                .query_row([fold(name)], |r| {
                    Ok(PersonName {
                        id: r.get(0)?,
                        name: r.get(1)?,
                    })
                })
                .optional()?;
            if let Some(h) = head {
                out.insert(name.to_string(), h);
            }
        }
        // Each person once: the name a spelling file gives them, else their head's.
        let decided = self.decided_names()?;
        let mut named: HashMap<i64, String> = HashMap::new();
        for p in out.values_mut() {
            if let std::collections::hash_map::Entry::Vacant(e) = named.entry(p.id) {
                let rows = self.spellings_of(p.id)?;
                if rows.is_empty() {
                    continue;
                }
                e.insert(Self::person_name(p.id, &rows, &decided));
            }
            if let Some(n) = named.get(&p.id) {
                p.name.clone_from(n);
            }
        }
        Ok(out)
    }
}
