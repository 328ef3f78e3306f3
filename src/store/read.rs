//! Reading: position lookups, games through a position, stored games, database statistics.

use rusqlite::{OptionalExtension, Row};

use super::{
    codec::{result_from_code, unpack_moves, variant_code, variant_from_code},
    position::{decode_links, move_from_code, top_score, Facts, Link, Summary, TOP_KEPT},
    ranges::{self, Entry},
    GameCounts, Store, StoreError,
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
    /// Games by result, and their players' known ratings.
    pub counts: GameCounts,
    /// Earliest date.
    pub first_date: Option<String>,
    /// Latest date.
    pub last_date: Option<String>,
}

impl MoveRow {
    /// Counts one more game: its result (`None` = unknown), its players' ratings and date.
    pub fn add_game(
        &mut self,
        result: Option<Outcome>,
        ratings: [Option<u32>; 2],
        date: Option<&str>,
    ) {
        self.counts.add_game(result, ratings);
        self.widen_dates(date, date);
    }

    /// Adds another row's games (same move, or a transposition or mirror of it).
    pub fn merge(&mut self, other: &MoveRow) {
        self.counts.merge(&other.counts);
        self.widen_dates(other.first_date.as_deref(), other.last_date.as_deref());
    }

    /// Widens the date range to cover `first` and `last`.
    fn widen_dates(&mut self, first: Option<&str>, last: Option<&str>) {
        if let Some(d) = first {
            if self.first_date.as_deref().is_none_or(|f| d < f) {
                self.first_date = Some(d.to_string());
            }
        }
        if let Some(d) = last {
            if self.last_date.as_deref().is_none_or(|l| d > l) {
                self.last_date = Some(d.to_string());
            }
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
    /// The game's opening label: its ECCO code (Xiangqi) or `first/second` formations
    /// (Janggi).
    pub fn opening_label(&self, variant: Variant) -> Option<String> {
        super::record::label_of(
            variant,
            self.ecco.as_deref(),
            self.first_formation.as_deref(),
            self.second_formation.as_deref(),
        )
    }

    /// The sort key of best-games lists, smallest first: higher mean known rating first, then
    /// the later date, then the smaller id.
    pub fn top_key(&self) -> (std::cmp::Reverse<u64>, i64) {
        let score = top_score(
            [self.first_rating, self.second_rating],
            self.date.as_deref(),
        );
        (std::cmp::Reverse(score), self.id)
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

fn count(v: i64) -> u64 {
    u64::try_from(v).unwrap_or(0)
}

fn rating(v: Option<i64>) -> Option<u32> {
    v.and_then(|r| u32::try_from(r).ok())
}

/// The columns [`stored_game`] reads, from `GAMES_WITH_SOURCE`.
const GAME_COLUMNS: &str = "g.id, g.variant, s.path, g.source_index, g.event, g.site, g.round, \
    g.date, g.first, g.second, g.first_rating, g.second_rating, g.result, g.ecco, g.opening, \
    g.variation, g.first_formation, g.second_formation, g.start_fen, g.moves";

/// Games with their source file's path (`NULL` if the source row is missing).
const GAMES_WITH_SOURCE: &str = "games g LEFT JOIN sources s ON s.id = g.source";

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

/// Everything the explorer shows of one position, read from its row at once.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PositionStats {
    /// Every move played from the position, by move code, plus a row with `mv == None` for
    /// the games that ended there.
    pub moves: Vec<MoveRow>,
    /// Opening labels of the games through the position, most frequent first (games
    /// without a label are left out).
    pub openings: Vec<OpeningRow>,
    /// The best games through it: best rated first, then latest, then by id.
    pub top: Vec<GameThrough>,
}

/// A game through a position as the statistics read it: the game and its opening label.
pub(super) struct Through {
    game: GameThrough,
    label: Option<String>,
}

impl Through {
    /// A game read by `THROUGH_SQL`, with the move it played at the position.
    fn new(mut game: GameThrough, variant: i64, mv: u16) -> Result<Through, StoreError> {
        let variant = variant_from_code(variant)
            .ok_or_else(|| StoreError::Corrupt(format!("game {}: bad variant", game.id)))?;
        game.mv = move_from_code(mv)?;
        let label = game.opening_label(variant);
        Ok(Through { game, label })
    }

    pub(super) fn facts(&self) -> Facts<'_> {
        let g = &self.game;
        Facts {
            result: g.result,
            ratings: [g.first_rating, g.second_rating],
            date: g.date.as_deref(),
            label: self.label.as_deref(),
        }
    }
}

/// What is stored of one position, decoded: its links, and its summary if it is busy.
pub(super) struct PositionRow {
    pub summary: Option<Summary>,
    pub links: Vec<Link>,
}

impl PositionRow {
    fn decode(key: u64, summary: Option<&[u8]>, links: &[u8]) -> Result<PositionRow, StoreError> {
        Ok(PositionRow {
            summary: summary
                .map(Summary::decode)
                .transpose()
                .map_err(|e| at_position(key, e))?,
            links: decode_links(links).map_err(|e| at_position(key, e))?,
        })
    }
}

/// Names the position a decoding error comes from.
pub(super) fn at_position(key: u64, e: StoreError) -> StoreError {
    match e {
        StoreError::Corrupt(m) => StoreError::Corrupt(format!("position {key:016x}: {m}")),
        other => other,
    }
}

const THROUGH_SQL: &str = "SELECT id, first, second, first_rating, second_rating, result, date, \
    event, ecco, first_formation, second_formation, variant FROM games";

/// From this many links on, [`Store::throughs`] scans the games instead of looking them up.
const THROUGH_SCAN_FROM: usize = 256;

/// A row of `THROUGH_SQL`: the game's id, the game without its move, its variant code.
fn through_row(r: &Row<'_>) -> rusqlite::Result<(i64, GameThrough, i64)> {
    let id = r.get(0)?;
    let game = GameThrough {
        id,
        mv: None,
        first: r.get(1)?,
        second: r.get(2)?,
        first_rating: rating(r.get(3)?),
        second_rating: rating(r.get(4)?),
        result: result_from_code(r.get(5)?),
        date: r.get(6)?,
        event: r.get(7)?,
        ecco: r.get(8)?,
        first_formation: r.get(9)?,
        second_formation: r.get(10)?,
    };
    Ok((id, game, r.get(11)?))
}

fn not_stored(id: i64) -> StoreError {
    StoreError::Corrupt(format!(
        "a position links to game {id}, which is not stored"
    ))
}

/// Most frequent first, then by label; unlabelled games left out.
fn sort_openings(mut openings: Vec<OpeningRow>) -> Vec<OpeningRow> {
    openings.retain(|o| !o.label.is_empty());
    openings.sort_by(|a, b| b.games.cmp(&a.games).then_with(|| a.label.cmp(&b.label)));
    openings
}

impl Store {
    /// How the range rows record a key: `None` if no stored game went through it.
    fn entry(&self, key: u64) -> Result<Option<Entry>, StoreError> {
        let key = key as i64;
        let mut stmt = self.conn.prepare_cached(
            "SELECT start, entries FROM position_ranges WHERE start <= ?1 \
             ORDER BY start DESC LIMIT 1",
        )?;
        let found = stmt
            .query_row([key], |r| {
                let start: i64 = r.get(0)?;
                Ok(ranges::find(start, r.get_ref(1)?.as_blob()?, key))
            })
            .optional()?;
        found
            .transpose()
            .map(Option::flatten)
            .map_err(|e| at_position(key as u64, e))
    }

    /// A busy position's own row (links and summary).
    pub(super) fn busy_row(&self, key: u64) -> Result<PositionRow, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT summary, links FROM positions WHERE key = ?1")?;
        let raw: Option<(Option<Vec<u8>>, Vec<u8>)> = stmt
            .query_row([key as i64], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?;
        let Some((summary, links)) = raw else {
            return Err(StoreError::Corrupt(format!(
                "position {key:016x} is marked busy but has no row"
            )));
        };
        PositionRow::decode(key, summary.as_deref(), &links)
    }

    /// The games through a position (and its summary if it is busy), if any game went
    /// through it.
    pub(super) fn position_row(&self, key: u64) -> Result<Option<PositionRow>, StoreError> {
        match self.entry(key)? {
            None => Ok(None),
            Some(Entry::Busy) => self.busy_row(key).map(Some),
            Some(Entry::Quiet(links)) => Ok(Some(PositionRow {
                summary: None,
                links,
            })),
        }
    }

    /// A stored game as the statistics see it.
    pub(super) fn through(&self, id: i64, mv: u16) -> Result<Through, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached(&format!("{THROUGH_SQL} WHERE id = ?1"))?;
        let row = stmt.query_row([id], through_row).optional()?;
        let Some((_, game, variant)) = row else {
            return Err(not_stored(id));
        };
        Through::new(game, variant, mv)
    }

    /// The games behind some links (sorted by id). Many links close together are joined
    /// with one scan of the games in their id range rather than looked up one by one.
    fn throughs(&self, links: &[Link]) -> Result<Vec<Through>, StoreError> {
        let (Some(first), Some(last)) = (links.first(), links.last()) else {
            return Ok(Vec::new());
        };
        // A scanned row costs about an eighth of a lookup.
        let span = last.game.abs_diff(first.game).saturating_add(1);
        if links.len() < THROUGH_SCAN_FROM || span > 8 * links.len() as u64 {
            return links.iter().map(|l| self.through(l.game, l.mv)).collect();
        }
        let mut stmt = self.conn.prepare_cached(&format!(
            "{THROUGH_SQL} WHERE id BETWEEN ?1 AND ?2 ORDER BY id"
        ))?;
        let mut rows = stmt.query_map([first.game, last.game], through_row)?;
        let mut out = Vec::with_capacity(links.len());
        for l in links {
            let (game, variant) = loop {
                match rows.next().transpose()? {
                    Some((id, game, variant)) if id == l.game => break (game, variant),
                    Some((id, ..)) if id < l.game => continue,
                    _ => return Err(not_stored(l.game)),
                }
            };
            out.push(Through::new(game, variant, l.mv)?);
        }
        Ok(out)
    }

    /// The statistics of some games (a quiet position's), counted as a busy position's
    /// summary keeps them, and the games themselves.
    pub(super) fn summarize(&self, links: &[Link]) -> Result<(Summary, Vec<Through>), StoreError> {
        let games = self.throughs(links)?;
        let mut summary = Summary::default();
        for (l, g) in links.iter().zip(&games) {
            summary.add(l.game, l.mv, &g.facts())?;
        }
        Ok((summary, games))
    }

    /// The moves, opening labels and best `top` games of a position (by key); empty when no
    /// stored game went through it. A busy position is answered from its summary (one row);
    /// a position of at most [`LIST_MAX`](super::LIST_MAX) games is counted from them.
    ///
    /// ```
    /// use qipu::formats::{Game, MoveNode, Source};
    /// use qipu::rules::{AnyPosition, Outcome, Variant};
    /// use qipu::store::{GameRecord, Store};
    /// let mut store = Store::open_in_memory()?;
    /// let records: Vec<GameRecord> = ["h2e2 h9g7", "c3c4", "h2e2 b9c7"]
    ///     .iter()
    ///     .enumerate()
    ///     .map(|(i, line)| {
    ///         let mut g = Game::new(Variant::Xiangqi, Source { file: "x".into(), index: i });
    ///         g.moves = line.split(' ').map(MoveNode::new).collect();
    ///         g.tags.result = Some(Outcome::Draw);
    ///         GameRecord::from_game(&g, 40).unwrap()
    ///     })
    ///     .collect();
    /// store.write_batch(&records)?;
    /// let start = store.lookup(AnyPosition::new(Variant::Xiangqi).key(), 2)?;
    /// let mut games: Vec<(String, u64)> =
    ///     start.moves.iter().map(|r| (r.mv.unwrap().to_string(), r.counts.games)).collect();
    /// games.sort();
    /// assert_eq!(games, [("c3c4".to_string(), 1), ("h2e2".to_string(), 2)]);
    /// assert_eq!(start.top.len(), 2);
    /// # Ok::<_, qipu::store::StoreError>(())
    /// ```
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails or a row is corrupt.
    pub fn lookup(&self, key: u64, top: usize) -> Result<PositionStats, StoreError> {
        match self.entry(key)? {
            None => Ok(PositionStats::default()),
            Some(Entry::Busy) => {
                // The summary alone: a busy position's links (three bytes a game) are not read.
                let summary: Option<Vec<u8>> = self
                    .conn
                    .prepare_cached("SELECT summary FROM positions WHERE key = ?1")?
                    .query_row([key as i64], |r| r.get(0))
                    .optional()?
                    .flatten();
                let Some(summary) = summary else {
                    return Err(StoreError::Corrupt(format!(
                        "position {key:016x} is marked busy but has no summary"
                    )));
                };
                let s = Summary::decode(&summary).map_err(|e| at_position(key, e))?;
                let top = if top <= s.top.len() || s.top.len() < TOP_KEPT {
                    s.top
                        .iter()
                        .take(top)
                        .map(|b| Ok(self.through(b.link.game, b.link.mv)?.game))
                        .collect::<Result<_, StoreError>>()?
                } else {
                    self.games_through(key, None)?
                        .into_iter()
                        .take(top)
                        .collect()
                };
                Ok(PositionStats {
                    moves: s.moves,
                    openings: sort_openings(s.labels),
                    top,
                })
            }
            Some(Entry::Quiet(links)) => {
                let (s, games) = self.summarize(&links)?;
                Ok(PositionStats {
                    moves: s.moves,
                    openings: sort_openings(s.labels),
                    top: best_games(games, top),
                })
            }
        }
    }

    /// Every move played from a position (by key), plus a row with `mv == None` for the
    /// games that ended there, by move code.
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails or a row is corrupt.
    pub fn position(&self, key: u64) -> Result<Vec<MoveRow>, StoreError> {
        Ok(self.lookup(key, 0)?.moves)
    }

    /// The best `limit` games that played `mv` in a position (`None`: that ended there), best
    /// rated first, then latest.
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails or a row is corrupt.
    pub fn games_playing(
        &self,
        key: u64,
        mv: Option<Move>,
        limit: usize,
    ) -> Result<Vec<GameThrough>, StoreError> {
        let Some(row) = self.position_row(key)? else {
            return Ok(Vec::new());
        };
        let code = mv.map_or(super::END_OF_GAME, Move::to_u16);
        let links: Vec<Link> = row.links.into_iter().filter(|l| l.mv == code).collect();
        Ok(best_games(self.throughs(&links)?, limit))
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
        match limit {
            Some(n) => Ok(self.lookup(key, n)?.top),
            None => {
                let Some(row) = self.position_row(key)? else {
                    return Ok(Vec::new());
                };
                Ok(best_games(self.throughs(&row.links)?, usize::MAX))
            }
        }
    }

    /// One stored game by id.
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails or the row is corrupt.
    pub fn game(&self, id: i64) -> Result<Option<StoredGame>, StoreError> {
        let sql = format!("SELECT {GAME_COLUMNS} FROM {GAMES_WITH_SOURCE} WHERE g.id = ?1");
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
            "SELECT {GAME_COLUMNS} FROM {GAMES_WITH_SOURCE} WHERE g.variant = ?1 AND g.id > ?2 \
             ORDER BY g.id LIMIT 1000"
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
        self.for_each_position(|key, row| {
            let moves = match row.summary {
                Some(s) => s.moves,
                None => self.summarize(&row.links)?.0.moves,
            };
            moves.iter().try_for_each(|m| f(key, m))
        })
    }

    /// Calls `f` for every position, in key order.
    fn for_each_position(
        &self,
        mut f: impl FnMut(u64, PositionRow) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT start, entries FROM position_ranges ORDER BY start")?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let start: i64 = r.get(0)?;
            let blob = r.get_ref(1)?.as_blob().map_err(rusqlite::Error::from)?;
            for (key, entry) in ranges::entries(start, blob)? {
                let key = key as u64;
                let row = match entry {
                    Entry::Busy => self.busy_row(key)?,
                    Entry::Quiet(links) => PositionRow {
                        summary: None,
                        links,
                    },
                };
                f(key, row)?;
            }
        }
        Ok(())
    }

    /// What is in the database. Counting the (position, move) pairs reads every position.
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails or a row is corrupt.
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
        let (mut positions, mut position_moves, mut position_games) = (0, 0, 0);
        self.for_each_position(|_, row| {
            positions += 1;
            position_games += row.links.len() as u64;
            let mut codes: Vec<u16> = row.links.iter().map(|l| l.mv).collect();
            codes.sort_unstable();
            codes.dedup();
            position_moves += codes.len() as u64;
            Ok(())
        })?;
        let size_bytes = count(self.conn.query_row(
            "SELECT page_count * page_size FROM pragma_page_count, pragma_page_size",
            [],
            |r| r.get(0),
        )?);
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

/// The best `n` of some games: best rated first, then latest, then by id.
fn best_games(games: Vec<Through>, n: usize) -> Vec<GameThrough> {
    let mut games: Vec<GameThrough> = games.into_iter().map(|t| t.game).collect();
    games.sort_by_cached_key(GameThrough::top_key);
    games.truncate(n);
    games
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
