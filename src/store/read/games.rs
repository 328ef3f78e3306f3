//! Whole-database reads: a stored game by id and every game of a variant in pages
//! ([`GamesIter`]), every position in key order (for `qipu export`), and what the database
//! holds ([`Store::stats`]). Games are read back as stored ([`StoredGame`]), not replayed;
//! nothing is written.

use rusqlite::{OptionalExtension, Row};

use super::{count, merge::merge_moves, play_code, rating};
use crate::{
    formats::{
        facts::{Mode, Speed, Termination, TimeControl},
        Source, Tags,
    },
    rules::{AnyPosition, Variant},
    store::{
        codec::{result_from_code, stored_line, variant_code, variant_from_code},
        model::{DbStats, MoveRow, PositionKey, StoredGame, VariantCount},
        sql, Store, StoreError,
    },
};

fn stored_game(row: &Row<'_>) -> rusqlite::Result<Result<StoredGame, StoreError>> {
    let id: i64 = row.get(0)?;
    let Some(variant) = variant_from_code(row.get(1)?) else {
        return Ok(Err(StoreError::Corrupt(format!("game {id}: bad variant"))));
    };
    let blob: Vec<u8> = row.get(19)?;
    let start_fen: Option<String> = row.get(18)?;
    let Some(moves) = stored_line(variant, start_fen.as_deref(), &blob) else {
        return Ok(Err(StoreError::Corrupt(format!("game {id}: bad moves"))));
    };
    let result = result_from_code(row.get(12)?);
    Ok(Ok(StoredGame {
        id,
        variant,
        start_fen: start_fen.unwrap_or_else(|| variant.start_fen().to_string()),
        moves,
        result,
        tags: Tags {
            event: row.get(4)?,
            site: row.get(5)?,
            round: row.get(6)?,
            date: row.get(7)?,
            first: row.get(8)?,
            second: row.get(9)?,
            first_rating: rating(row.get(10)?),
            second_rating: rating(row.get(11)?),
            result,
            ecco: row.get(13)?,
            opening: row.get(14)?,
            variation: row.get(15)?,
            first_formation: row.get(16)?,
            second_formation: row.get(17)?,
            time_control: match (
                row.get::<_, Option<i64>>(20)?,
                row.get::<_, Option<i64>>(21)?,
            ) {
                (Some(base), Some(inc)) => Some(TimeControl {
                    base_secs: u32::try_from(base).unwrap_or(0),
                    increment_secs: u32::try_from(inc).unwrap_or(0),
                }),
                _ => None,
            },
            speed: play_code(row.get(22)?).and_then(Speed::from_code),
            mode: play_code(row.get(23)?).and_then(Mode::from_code),
            termination: play_code(row.get(24)?).and_then(Termination::from_code),
            ..Tags::default()
        },
        source: Source {
            file: match row.get(2)? {
                Some(path) => path,
                None => {
                    return Ok(Err(StoreError::Corrupt(format!(
                        "game {id}: no source file"
                    ))))
                }
            },
            index: usize::try_from(row.get::<_, i64>(3)?).unwrap_or(0),
        },
    }))
}

impl Store {
    /// One stored game by id.
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails or the row is corrupt.
    pub fn game(&self, id: i64) -> Result<Option<StoredGame>, StoreError> {
        let mut stmt = self.conn.prepare_cached(sql::GAME_BY_ID)?;
        match stmt.query_row([id], stored_game).optional()? {
            None => Ok(None),
            Some(g) => g.map(Some),
        }
    }

    /// Streams every stored game of a variant in id order, reading a page of games at a
    /// time (memory stays bounded whatever the database size). This is how the opening-book
    /// writers read games back.
    ///
    /// ```
    /// use qipu::formats::{Game, MoveNode, Source};
    /// use qipu::rules::Variant;
    /// use qipu::store::{GameRecord, Store};
    /// let mut store = Store::open_in_memory()?;
    /// let mut game = Game::new(Variant::Xiangqi, Source::default());
    /// game.moves = vec![MoveNode::new("h2e2")];
    /// store.write_batch(&[GameRecord::from_game(&game, 40).unwrap()])?;
    /// let games: Vec<_> = store.games(Variant::Xiangqi).collect::<Result<_, _>>()?;
    /// assert_eq!(games.len(), 1);
    /// assert_eq!(games[0].moves[0].to_string(), "h2e2");
    /// assert_eq!(store.games(Variant::Janggi).count(), 0);
    /// # Ok::<_, qipu::store::StoreError>(())
    /// ```
    pub fn games(&self, variant: Variant) -> GamesIter<'_> {
        GamesIter {
            store: self,
            variant,
            after: i64::MIN,
            page: Vec::new().into_iter(),
            done: false,
        }
    }

    /// Whether any game of `variant` is stored: a game from the standard start went through
    /// that start (every stored game's ply 0 is indexed), any other starts from a FEN (the
    /// partial index `games_fen_starts`). Two lookups, whatever the database's size.
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails or the start's range row is damaged.
    pub fn has_games(&self, variant: Variant) -> Result<bool, StoreError> {
        let start = PositionKey(AnyPosition::new(variant).key());
        if self.entry(start)?.is_some() {
            return Ok(true);
        }
        let mut stmt = self.conn.prepare_cached(sql::ANY_FEN_GAME_OF)?;
        Ok(stmt.query_row([variant_code(variant)], |r| r.get(0))?)
    }

    fn games_page(&self, variant: Variant, after: i64) -> Result<Vec<StoredGame>, StoreError> {
        let mut stmt = self.conn.prepare_cached(sql::GAMES_PAGE)?;
        let rows = stmt.query_map(rusqlite::params![variant_code(variant), after], stored_game)?;
        let mut out = Vec::new();
        for row in rows {
            out.push(row??);
        }
        Ok(out)
    }

    /// Calls `f` for every (position key, move row) in key order (for `qipu export`).
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails, or the error `f` returns.
    pub fn for_each_position_move(
        &self,
        mut f: impl FnMut(PositionKey, &MoveRow) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        self.for_each_position_moves(|key, _, rows| rows.iter().try_for_each(|m| f(key, m)))
    }

    /// Calls `f` for every position in key order with a game through it (the smallest id;
    /// `None` only for a position without links) and its move rows (for `qipu export`, which
    /// replays that game to write the position's FEN).
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails, or the error `f` returns.
    pub fn for_each_position_moves(
        &self,
        mut f: impl FnMut(PositionKey, Option<i64>, &[MoveRow]) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        self.for_each_position(|key, rows| {
            let game = rows
                .iter()
                .flat_map(|r| r.links.iter().map(|l| l.game))
                .min();
            let mut moves = Vec::with_capacity(rows.len());
            for row in rows {
                moves.push(match row.summary {
                    Some(s) => s.moves,
                    None => self.summarize(&row.links)?.0.moves,
                });
            }
            f(key, game, &merge_moves(moves))
        })
    }

    /// What is in the database. Counting the (position, move) pairs reads every position.
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails or a row is corrupt.
    pub fn stats(&self) -> Result<DbStats, StoreError> {
        let mut games = Vec::new();
        for v in Variant::ALL {
            let n: i64 = self
                .conn
                .query_row(sql::COUNT_GAMES, [variant_code(v)], |r| r.get(0))?;
            games.push(VariantCount {
                variant: v,
                games: count(n),
            });
        }
        let (mut positions, mut position_moves, mut position_games) = (0, 0, 0);
        self.for_each_position(|_, rows| {
            positions += 1;
            position_games += rows.iter().map(|r| r.links.len() as u64).sum::<u64>();
            let mut codes: Vec<u16> = rows
                .iter()
                .flat_map(|r| r.links.iter().map(|l| l.mv))
                .collect();
            codes.sort_unstable();
            codes.dedup();
            position_moves += codes.len() as u64;
            Ok(())
        })?;
        let size_bytes = count(self.conn.query_row(sql::FILE_BYTES, [], |r| r.get(0))?);
        let truncated = count(
            self.conn
                .query_row(sql::COUNT_TRUNCATED, [], |r| r.get(0))?,
        );
        let mut stmt = self.conn.prepare(sql::TOP_EVENTS)?;
        let top_events = stmt
            .query_map([], |r| Ok((r.get::<_, String>(0)?, count(r.get(1)?))))?
            .collect::<Result<_, _>>()?;
        Ok(DbStats {
            games,
            truncated,
            positions,
            position_moves,
            position_games,
            segments: self.segments()?.len() as u64,
            max_ply: self.max_ply()?,
            size_bytes,
            top_events,
        })
    }
}

/// Iterator returned by [`Store::games`].
#[derive(Debug)]
pub struct GamesIter<'a> {
    store: &'a Store,
    variant: Variant,
    after: i64,
    page: std::vec::IntoIter<StoredGame>,
    done: bool,
}

impl Iterator for GamesIter<'_> {
    type Item = Result<StoredGame, StoreError>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(g) = self.page.next() {
            return Some(Ok(g));
        }
        if self.done {
            return None;
        }
        match self.store.games_page(self.variant, self.after) {
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
            Ok(page) => {
                if page.len() < 1000 {
                    self.done = true;
                }
                if let Some(last) = page.last() {
                    self.after = last.id;
                }
                self.page = page.into_iter();
                self.page.next().map(Ok)
            }
        }
    }
}
