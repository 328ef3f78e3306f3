//! The player index: each player's games by side, keyed by the folded name
//! ([`crate::formats::names::fold`]), and the names as written. Written with each batch (and
//! rebuilt by the schema-4 migration); read by [`Store::players`] (substring search) and
//! [`Store::player_moves`] (one player's moves at a position, without scanning games).

use std::collections::HashMap;

use rusqlite::OptionalExtension;

use super::{
    filter::BucketFilter,
    links::{move_code, Link},
    model::{MonthCounts, MoveRow, PositionKey, PositionStats},
    ranges::Entry,
    read::{add_counted, add_history, recent_games},
    sql, Store, StoreError,
};
use crate::{
    formats::{distinct_positions, names::fold},
    rules::{AnyPosition, Color},
};

/// Side codes in `player_games`.
fn side_code(c: Color) -> i64 {
    match c {
        Color::First => 0,
        Color::Second => 1,
    }
}

/// A new game's players, for the index: its id and the names as written.
pub(super) struct Players<'a> {
    pub id: i64,
    pub first: Option<&'a str>,
    pub second: Option<&'a str>,
}

impl Store {
    /// Adds games to the player index, in the caller's transaction; gives the players (ids)
    /// it added games to, in id order.
    pub(super) fn index_players(&self, games: &[Players<'_>]) -> Result<Vec<i64>, StoreError> {
        // Each folded name of the batch once: its id, and how often each written form occurs.
        let mut ids: HashMap<String, i64> = HashMap::new();
        let mut forms: HashMap<(i64, &str), u64> = HashMap::new();
        let mut find = self.conn.prepare_cached(sql::PLAYER_BY_FOLDED)?;
        let mut insert = self.conn.prepare_cached(sql::INSERT_PLAYER)?;
        let mut link = self.conn.prepare_cached(sql::INSERT_PLAYER_GAME)?;
        for g in games {
            for (side, name) in [(Color::First, g.first), (Color::Second, g.second)] {
                let Some(name) = name.map(str::trim).filter(|n| !n.is_empty()) else {
                    continue;
                };
                let folded = fold(name);
                if folded.is_empty() {
                    continue;
                }
                let id = match ids.get(&folded) {
                    Some(&id) => id,
                    None => {
                        let id = match find
                            .query_row([&folded], |r| r.get::<_, i64>(0))
                            .optional()?
                        {
                            Some(id) => id,
                            None => {
                                insert.execute(rusqlite::params![folded, name])?;
                                self.conn.last_insert_rowid()
                            }
                        };
                        ids.insert(folded, id);
                        id
                    }
                };
                link.execute(rusqlite::params![id, side_code(side), g.id])?;
                *forms.entry((id, name)).or_default() += 1;
            }
        }
        let mut add_form = self.conn.prepare_cached(sql::ADD_PLAYER_NAME)?;
        let mut touched: Vec<i64> = Vec::with_capacity(ids.len());
        for ((id, name), n) in &forms {
            add_form.execute(rusqlite::params![id, name, *n as i64])?;
            touched.push(*id);
        }
        touched.sort_unstable();
        touched.dedup();
        let mut update = self.conn.prepare_cached(sql::UPDATE_PLAYER)?;
        for &id in &touched {
            update.execute([id])?;
        }
        Ok(touched)
    }

    /// The moves one player's games played at a position (by key), counting only the games
    /// that pass `filter`, like [`Store::moves_filtered`], each row with the player's results
    /// and their opponents' ratings ([`MoveRow::player`]): `player` is matched after folding
    /// (the whole folded name, not a part of it), `side` keeps only the games where they
    /// played that side. Reads the player's game ids from the index, and then, for a quiet
    /// position, its at most `LIST_MAX` links; for a busy one, replays the player's games to
    /// the depth limit (no other game is read).
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails or a row is corrupt.
    pub fn player_moves(
        &self,
        player: &str,
        side: Option<Color>,
        key: PositionKey,
        filter: &BucketFilter,
    ) -> Result<Vec<MoveRow>, StoreError> {
        Ok(self.player_counts(player, side, key, filter)?.0)
    }

    /// [`Store::player_moves`] with the history of those games and, as in
    /// [`Store::lookup_filtered`], every one of them as candidates for the best games (`top`,
    /// not ranked) and the latest `top` of them. No opening labels.
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails or a row is corrupt.
    pub fn player_lookup(
        &self,
        player: &str,
        side: Option<Color>,
        key: PositionKey,
        filter: &BucketFilter,
        top: usize,
    ) -> Result<PositionStats, StoreError> {
        let (moves, history, links) = self.player_counts(player, side, key, filter)?;
        let games = if top == 0 {
            Vec::new()
        } else {
            self.throughs(&links)?
        };
        Ok(PositionStats {
            moves,
            openings: Vec::new(),
            top: games.iter().map(|t| t.game.clone()).collect(),
            recent: recent_games(games, top),
            history,
        })
    }

    /// The rows, the history and the links of one player's games through a position that
    /// pass `filter`.
    fn player_counts(
        &self,
        player: &str,
        side: Option<Color>,
        key: PositionKey,
        filter: &BucketFilter,
    ) -> Result<PlayerCounted, StoreError> {
        let through = self.player_links(player, side, key)?;
        let matcher = filter.matcher();
        let mut rows: Vec<MoveRow> = Vec::new();
        let mut history = Vec::new();
        let mut links = Vec::new();
        for (l, played) in through {
            let f = self.game_facts(l.game)?;
            if matcher.passes(f.bucket) {
                let i = add_counted(&mut rows, l.mv, l.game, &f)?;
                rows[i].player.add_game(played, f.result, f.ratings);
                add_history(&mut history, &f);
                links.push(l);
            }
        }
        Ok((rows, history, links))
    }

    /// One player's games through a position (by id), each with the move played there and
    /// the side the player had (the first, if they had both).
    fn player_links(
        &self,
        player: &str,
        side: Option<Color>,
        key: PositionKey,
    ) -> Result<Vec<(Link, Color)>, StoreError> {
        let mut stmt = self.conn.prepare_cached(sql::PLAYER_GAMES)?;
        let mut games: Vec<(i64, Color)> = Vec::new();
        // Every spelling of the person (none for a name that is no player).
        for (id, _) in self.person_players(player)? {
            let rows = stmt
                .query_map(rusqlite::params![id], |r| {
                    Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?))
                })?
                .filter_map(|row| match row {
                    Ok((s, g)) => {
                        let c = if s == side_code(Color::First) {
                            Color::First
                        } else {
                            Color::Second
                        };
                        side.is_none_or(|want| want == c).then_some(Ok((g, c)))
                    }
                    Err(e) => Some(Err(e)),
                });
            for row in rows {
                games.push(row?);
            }
        }
        games.sort_unstable_by_key(|(g, c)| (*g, side_code(*c)));
        games.dedup_by_key(|(g, _)| *g);
        let find = |g: i64| {
            games
                .binary_search_by_key(&g, |p| p.0)
                .ok()
                .map(|i| games[i].1)
        };
        // The player's games through the position, with the move played there.
        let mut through: Vec<(Link, Color)> = Vec::new();
        match self.entry(key)? {
            None => return Ok(Vec::new()),
            Some(Entry::Quiet(links)) => {
                for l in links {
                    if let Some(c) = find(l.game) {
                        through.push((l, c));
                    }
                }
            }
            Some(Entry::Busy) => {
                let max_ply = self.max_ply()?.unwrap_or(super::DEFAULT_MAX_PLY);
                let mut moves_of = self.conn.prepare_cached(sql::GAME_LINE)?;
                for &(g, c) in &games {
                    let line = moves_of
                        .query_row([g], |r| {
                            Ok((
                                r.get::<_, i64>(0)?,
                                r.get::<_, Option<String>>(1)?,
                                r.get::<_, Vec<u8>>(2)?,
                            ))
                        })
                        .optional()?;
                    let Some((variant, fen, blob)) = line else {
                        return Err(StoreError::Corrupt(format!(
                            "player index: game {g} is not stored"
                        )));
                    };
                    let variant = super::codec::variant_from_code(variant)
                        .ok_or_else(|| StoreError::Corrupt(format!("game {g}: bad variant")))?;
                    let start = match fen {
                        None => AnyPosition::new(variant),
                        Some(f) => AnyPosition::from_fen(variant, &f)
                            .map_err(|source| StoreError::StartPosition { game: g, source })?,
                    };
                    let moves = super::codec::unpack_line(&start, &blob)
                        .ok_or_else(|| StoreError::Corrupt(format!("game {g}: bad moves")))?;
                    if let Some(&(_, mv)) = distinct_positions(&start, &moves, max_ply)
                        .iter()
                        .find(|p| p.0 == key.0)
                    {
                        through.push((
                            Link {
                                game: g,
                                mv: move_code(mv),
                            },
                            c,
                        ));
                    }
                }
            }
        }
        Ok(through)
    }
}

/// What [`Store::player_counts`] gives: rows, history, links.
type PlayerCounted = (Vec<MoveRow>, Vec<MonthCounts>, Vec<Link>);
