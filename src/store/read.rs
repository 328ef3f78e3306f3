//! Reading: position lookups, games through a position, stored games, database statistics.

use rusqlite::{OptionalExtension, Row};

use super::{
    codec::{result_from_code, unpack_moves, variant_code, variant_from_code, END_OF_GAME},
    Store, StoreError,
};
use crate::{
    formats::{Source, Tags},
    rules::{Move, Outcome, Variant},
};

/// The statistics of one move from a position (or, with `mv == None`, of the games that
/// ended in it).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MoveRow {
    /// The move; `None` for "the game ended here".
    pub mv: Option<Move>,
    /// Games.
    pub games: u64,
    /// First player (Red/Cho) won.
    pub first_wins: u64,
    /// Drawn.
    pub draws: u64,
    /// Second player won.
    pub second_wins: u64,
    /// Sum of the known ratings of both players over those games.
    pub rating_sum: u64,
    /// Number of ratings in `rating_sum`.
    pub rating_count: u64,
    /// Earliest date.
    pub first_date: Option<String>,
    /// Latest date.
    pub last_date: Option<String>,
}

impl MoveRow {
    /// The row's game and rating counts.
    pub fn counts(&self) -> super::GameCounts {
        super::GameCounts {
            games: self.games,
            first_wins: self.first_wins,
            draws: self.draws,
            second_wins: self.second_wins,
            rating_sum: self.rating_sum,
            rating_count: self.rating_count,
        }
    }
}

/// A game that went through a position, with the move it played there.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameThrough {
    /// Game id.
    pub id: i64,
    /// Move played in the position; `None` if the game ended there.
    pub mv: Option<Move>,
    /// First player.
    pub first: Option<String>,
    /// Second player.
    pub second: Option<String>,
    /// First player's rating.
    pub first_rating: Option<u32>,
    /// Second player's rating.
    pub second_rating: Option<u32>,
    /// Result.
    pub result: Option<Outcome>,
    /// Date.
    pub date: Option<String>,
    /// Event.
    pub event: Option<String>,
    /// ECCO code as tagged.
    pub ecco: Option<String>,
    /// Janggi formation of the first player.
    pub first_formation: Option<String>,
    /// Janggi formation of the second player.
    pub second_formation: Option<String>,
}

impl GameThrough {
    /// The game's opening label as stored in `position_openings`: its ECCO code (Xiangqi)
    /// or `first/second` formations (Janggi).
    pub fn opening_label(&self, variant: Variant) -> Option<String> {
        match variant {
            Variant::Xiangqi => self.ecco.as_deref().and_then(super::record::normal_ecco),
            Variant::Janggi => super::record::formation_label(
                self.first_formation.as_deref(),
                self.second_formation.as_deref(),
            ),
        }
    }
}

/// An opening label and how many games through the position carry it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpeningRow {
    /// ECCO code (Xiangqi) or `first/second` formations (Janggi).
    pub label: String,
    /// Games with that label.
    pub games: u64,
}

/// A stored game, as the opening-book writers and `GET /api/games/{id}` read it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredGame {
    /// Database id.
    pub id: i64,
    /// Variant.
    pub variant: Variant,
    /// Start position (the standard one filled in).
    pub start_fen: String,
    /// The main line.
    pub moves: Vec<Move>,
    /// Result, first player's view; `None` when unknown.
    pub result: Option<Outcome>,
    /// Header (normalised fields; `raw` is empty).
    pub tags: Tags,
    /// The file and index it was first imported from.
    pub source: Source,
}

/// Games per variant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VariantCount {
    /// Variant.
    pub variant: Variant,
    /// Games stored.
    pub games: u64,
}

/// What is in a database (`qipu stats`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DbStats {
    /// Games per variant.
    pub games: Vec<VariantCount>,
    /// Distinct positions with statistics.
    pub positions: u64,
    /// (position, move) rows.
    pub position_moves: u64,
    /// (position, game) links.
    pub position_games: u64,
    /// Depth limit the database was built with.
    pub max_ply: Option<usize>,
    /// File size in bytes (pages × page size).
    pub size_bytes: u64,
    /// Most frequent events: (event, games).
    pub top_events: Vec<(String, u64)>,
}

fn mv_from_code(code: i64) -> Result<Option<Move>, StoreError> {
    if code == i64::from(END_OF_GAME) {
        return Ok(None);
    }
    u16::try_from(code)
        .ok()
        .and_then(Move::from_u16)
        .map(Some)
        .ok_or_else(|| StoreError::Corrupt(format!("bad move code {code}")))
}

fn count(v: i64) -> u64 {
    u64::try_from(v).unwrap_or(0)
}

fn rating(v: Option<i64>) -> Option<u32> {
    v.and_then(|r| u32::try_from(r).ok())
}

const GAME_COLUMNS: &str = "id, variant, source_file, source_index, event, site, round, date, \
    first, second, first_rating, second_rating, result, ecco, opening, variation, \
    first_formation, second_formation, start_fen, moves";

fn stored_game(row: &Row<'_>) -> rusqlite::Result<Result<StoredGame, StoreError>> {
    let id: i64 = row.get(0)?;
    let Some(variant) = variant_from_code(row.get(1)?) else {
        return Ok(Err(StoreError::Corrupt(format!("game {id}: bad variant"))));
    };
    let blob: Vec<u8> = row.get(19)?;
    let Some(moves) = unpack_moves(&blob) else {
        return Ok(Err(StoreError::Corrupt(format!("game {id}: bad moves"))));
    };
    let start_fen: Option<String> = row.get(18)?;
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
            ..Tags::default()
        },
        source: Source {
            file: row.get(2)?,
            index: usize::try_from(row.get::<_, i64>(3)?).unwrap_or(0),
        },
    }))
}

impl Store {
    /// Every move played from a position (by key), plus a row with `mv == None` for the
    /// games that ended there. A few page reads: the rows of one key are adjacent in the
    /// `moves` table's primary key.
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails or a row is corrupt.
    pub fn position(&self, key: u64) -> Result<Vec<MoveRow>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT mv, games, first_wins, draws, second_wins, rating_sum, rating_count, \
             first_date, last_date FROM moves WHERE key = ?1",
        )?;
        let rows = stmt.query_map([key as i64], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                MoveRow {
                    mv: None,
                    games: count(r.get(1)?),
                    first_wins: count(r.get(2)?),
                    draws: count(r.get(3)?),
                    second_wins: count(r.get(4)?),
                    rating_sum: count(r.get(5)?),
                    rating_count: count(r.get(6)?),
                    first_date: r.get(7)?,
                    last_date: r.get(8)?,
                },
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (code, mut m) = row?;
            m.mv = mv_from_code(code)?;
            out.push(m);
        }
        Ok(out)
    }

    /// Games through a position, best rated first, then latest; at most `limit` of them
    /// (`None` = all).
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails or a row is corrupt.
    pub fn games_through(
        &self,
        key: u64,
        limit: Option<usize>,
    ) -> Result<Vec<GameThrough>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT g.id, p.mv, g.first, g.second, g.first_rating, g.second_rating, g.result, \
             g.date, g.event, g.ecco, g.first_formation, g.second_formation FROM position_games p JOIN games g ON g.id = p.game_id \
             WHERE p.key = ?1 ORDER BY p.rank, p.game_id LIMIT ?2",
        )?;
        let lim = limit.map_or(-1, |l| i64::try_from(l).unwrap_or(i64::MAX));
        let rows = stmt.query_map(rusqlite::params![key as i64, lim], |r| {
            Ok((
                r.get::<_, i64>(1)?,
                GameThrough {
                    id: r.get(0)?,
                    mv: None,
                    first: r.get(2)?,
                    second: r.get(3)?,
                    first_rating: rating(r.get(4)?),
                    second_rating: rating(r.get(5)?),
                    result: result_from_code(r.get(6)?),
                    date: r.get(7)?,
                    event: r.get(8)?,
                    ecco: r.get(9)?,
                    first_formation: r.get(10)?,
                    second_formation: r.get(11)?,
                },
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (code, mut g) = row?;
            g.mv = mv_from_code(code)?;
            out.push(g);
        }
        Ok(out)
    }

    /// Opening labels tagged on the games through a position, most frequent first (games
    /// without a label are left out). Uses the precomputed `position_openings` rows for early
    /// positions and counts the games through the position otherwise.
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails.
    pub fn openings(&self, key: u64, variant: Variant) -> Result<Vec<OpeningRow>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT label, games FROM position_openings WHERE key = ?1 ORDER BY games DESC, label",
        )?;
        let mut out: Vec<OpeningRow> = stmt
            .query_map([key as i64], |r| {
                Ok(OpeningRow {
                    label: r.get(0)?,
                    games: count(r.get(1)?),
                })
            })?
            .collect::<Result<_, _>>()?;
        if out.is_empty() {
            // Deep position (no game reached it before ply OPENING_PLIES): few games go
            // through it, count their labels.
            let mut n: std::collections::HashMap<String, u64> = std::collections::HashMap::new();
            for g in self.games_through(key, None)? {
                *n.entry(g.opening_label(variant).unwrap_or_default())
                    .or_default() += 1;
            }
            out = n
                .into_iter()
                .map(|(label, games)| OpeningRow { label, games })
                .collect();
            out.sort_by(|a, b| b.games.cmp(&a.games).then_with(|| a.label.cmp(&b.label)));
        }
        out.retain(|o| !o.label.is_empty());
        Ok(out)
    }

    /// One stored game by id.
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails or the row is corrupt.
    pub fn game(&self, id: i64) -> Result<Option<StoredGame>, StoreError> {
        let sql = format!("SELECT {GAME_COLUMNS} FROM games WHERE id = ?1");
        let mut stmt = self.conn.prepare_cached(&sql)?;
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

    fn games_page(&self, variant: Variant, after: i64) -> Result<Vec<StoredGame>, StoreError> {
        let sql = format!(
            "SELECT {GAME_COLUMNS} FROM games WHERE variant = ?1 AND id > ?2 ORDER BY id LIMIT 1000"
        );
        let mut stmt = self.conn.prepare_cached(&sql)?;
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
        mut f: impl FnMut(u64, &MoveRow) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let mut stmt = self.conn.prepare(
            "SELECT key, mv, games, first_wins, draws, second_wins, rating_sum, rating_count, \
             first_date, last_date FROM moves ORDER BY key, mv",
        )?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let key: i64 = r.get(0)?;
            let row = MoveRow {
                mv: mv_from_code(r.get(1)?)?,
                games: count(r.get(2)?),
                first_wins: count(r.get(3)?),
                draws: count(r.get(4)?),
                second_wins: count(r.get(5)?),
                rating_sum: count(r.get(6)?),
                rating_count: count(r.get(7)?),
                first_date: r.get(8)?,
                last_date: r.get(9)?,
            };
            f(key as u64, &row)?;
        }
        Ok(())
    }

    /// What is in the database.
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails.
    pub fn stats(&self) -> Result<DbStats, StoreError> {
        let mut games = Vec::new();
        for v in Variant::ALL {
            let n: i64 = self.conn.query_row(
                "SELECT count(*) FROM games WHERE variant = ?1",
                [variant_code(v)],
                |r| r.get(0),
            )?;
            games.push(VariantCount {
                variant: v,
                games: count(n),
            });
        }
        let one = |sql: &str| -> Result<u64, StoreError> {
            Ok(count(self.conn.query_row(sql, [], |r| r.get(0))?))
        };
        let positions = one("SELECT count(*) FROM (SELECT DISTINCT key FROM moves)")?;
        let position_moves = one("SELECT count(*) FROM moves")?;
        let position_games = one("SELECT count(*) FROM position_games")?;
        let size_bytes =
            one("SELECT page_count * page_size FROM pragma_page_count, pragma_page_size")?;
        let mut stmt = self.conn.prepare(
            "SELECT event, count(*) AS n FROM games WHERE event IS NOT NULL AND event <> '' \
             GROUP BY event ORDER BY n DESC, event LIMIT 10",
        )?;
        let top_events = stmt
            .query_map([], |r| Ok((r.get::<_, String>(0)?, count(r.get(1)?))))?
            .collect::<Result<_, _>>()?;
        Ok(DbStats {
            games,
            positions,
            position_moves,
            position_games,
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
