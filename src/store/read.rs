//! Reading: position lookups, games through a position, stored games, database statistics.

use std::{borrow::Cow, ops::Range};

use rusqlite::{OptionalExtension, Row};

use super::{
    buckets::{self, Source as BlobSource},
    codec::{result_from_code, stored_line, variant_code, variant_from_code},
    filter::{year_of, BucketFilter, Matcher, PER_MONTH},
    game_facts::GameFacts,
    links::{decode_links, move_code, move_from_code, Link},
    lists::{Item, LISTS_FROM},
    model::{
        DbStats, GameCounts, GameThrough, MonthCounts, MoveRow, OpeningRow, Played, PositionKey,
        PositionStats, StoredGame, VariantCount,
    },
    ranges::{self, Entry},
    sql,
    summary::{self, Facts, Summary, TOP_KEPT},
    Store, StoreError,
};
use crate::{
    formats::{
        facts::{Mode, Speed, Termination, TimeControl},
        Source, Tags,
    },
    rules::{AnyPosition, Move, Variant},
};

fn count(v: i64) -> u64 {
    u64::try_from(v).unwrap_or(0)
}

fn rating(v: Option<i64>) -> Option<u32> {
    v.and_then(|r| u32::try_from(r).ok())
}

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

/// A small code column (speed, mode, termination), `None` when NULL or out of range.
fn play_code(v: Option<i64>) -> Option<u8> {
    v.and_then(|c| u8::try_from(c).ok())
}

/// How a game was played, as `THROUGH_*` read it: speed, mode, termination.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Play {
    speed: Option<Speed>,
    mode: Option<Mode>,
    termination: Option<Termination>,
}

/// A game through a position as the statistics read it: the game, its opening label and
/// how it was played.
pub(super) struct Through {
    pub(super) game: GameThrough,
    label: Option<String>,
    play: Play,
}

impl Through {
    /// A game read by `sql::THROUGH_BY_ID`, with the move it played at the position.
    fn new(
        mut game: GameThrough,
        variant: i64,
        play: Play,
        mv: u16,
    ) -> Result<Through, StoreError> {
        let variant = variant_from_code(variant)
            .ok_or_else(|| StoreError::Corrupt(format!("game {}: bad variant", game.id)))?;
        game.mv = move_from_code(mv)?;
        let label = game.opening_label(variant);
        Ok(Through { game, label, play })
    }

    pub(super) fn facts(&self) -> Facts<'_> {
        let g = &self.game;
        Facts {
            result: g.result,
            ratings: [g.first_rating, g.second_rating],
            date: g.date.as_deref(),
            real_names: super::is_real_name(g.first.as_deref())
                && super::is_real_name(g.second.as_deref()),
            label: self.label.as_deref(),
            speed: self.play.speed,
            mode: self.play.mode,
            termination: self.play.termination,
        }
    }
}

/// A busy position's row as read: summary, links, buckets.
pub(super) type BusyBlobs = (Option<Vec<u8>>, Vec<u8>, Option<Vec<u8>>);

/// What is stored of one position, decoded: its links, and its summary if it is busy (its
/// buckets are read apart, by the questions that need them).
pub(super) struct PositionRow {
    pub summary: Option<Summary>,
    pub links: Vec<Link>,
}

impl PositionRow {
    fn decode(
        key: PositionKey,
        summary: Option<&[u8]>,
        links: &[u8],
    ) -> Result<PositionRow, StoreError> {
        Ok(PositionRow {
            summary: summary
                .map(Summary::decode)
                .transpose()
                .map_err(|e| at_position(key, e))?,
            links: decode_links(links).map_err(|e| at_position(key, e))?,
        })
    }
}

/// A blob of a position's row (its buckets, its lists), read in parts through SQLite's
/// incremental blob I/O: a question reads the blob's directory and the parts it needs (see
/// `buckets`, `lists`), not the whole blob.
pub(super) struct BlobRow<'c> {
    blob: rusqlite::blob::Blob<'c>,
    buf: Vec<u8>,
}

impl BlobSource for BlobRow<'_> {
    fn len(&self) -> usize {
        self.blob.len()
    }

    fn read(&mut self, at: Range<usize>) -> Result<Cow<'_, [u8]>, StoreError> {
        if at.end > self.blob.len() || at.start > at.end {
            return Err(StoreError::Corrupt("buckets blob: truncated".into()));
        }
        self.buf.resize(at.len(), 0);
        self.blob.read_at_exact(&mut self.buf, at.start)?;
        Ok(Cow::Borrowed(&self.buf))
    }
}

/// Names the position a decoding error comes from.
pub(super) fn at_position(key: PositionKey, e: StoreError) -> StoreError {
    match e {
        StoreError::Corrupt(m) => StoreError::Corrupt(format!("position {key}: {m}")),
        other => other,
    }
}

/// From this many links on, [`Store::throughs`] scans the games instead of looking them up.
const THROUGH_SCAN_FROM: usize = 256;

/// A row of `sql::THROUGH_BY_ID`: the game's id, the game without its move, its variant
/// code, how it was played.
pub(super) fn through_row(r: &Row<'_>) -> rusqlite::Result<(i64, GameThrough, i64, Play)> {
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
        speed: None,
        mode: None,
        termination: None,
    };
    let play = Play {
        speed: play_code(r.get(12)?).and_then(Speed::from_code),
        mode: play_code(r.get(13)?).and_then(Mode::from_code),
        termination: play_code(r.get(14)?).and_then(Termination::from_code),
    };
    let game = GameThrough {
        speed: play.speed,
        mode: play.mode,
        termination: play.termination,
        ..game
    };
    Ok((id, game, r.get(11)?, play))
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
    /// A blob (`table`, `column`) of the row whose rowid is `key`, opened for reading in
    /// parts; `None` when there is no such row or no blob in it.
    pub(super) fn blob_row(
        &self,
        (table, column): (&std::ffi::CStr, &std::ffi::CStr),
        key: PositionKey,
    ) -> Result<Option<BlobRow<'_>>, StoreError> {
        match self
            .conn
            .blob_open(rusqlite::MAIN_DB, table, column, key.to_rowid(), true)
        {
            Ok(blob) => Ok(Some(BlobRow {
                blob,
                buf: Vec::new(),
            })),
            Err(rusqlite::Error::SqliteFailure(e, _)) if e.code == rusqlite::ErrorCode::Unknown => {
                Ok(None)
            }
            Err(e) => Err(e.into()),
        }
    }

    /// A busy position's buckets, opened for reading in parts.
    fn buckets_row(&self, key: PositionKey) -> Result<BlobRow<'_>, StoreError> {
        self.blob_row(sql::BUCKETS_BLOB, key)?.ok_or_else(|| {
            StoreError::Corrupt(format!("position {key} is marked busy but has no buckets"))
        })
    }

    /// The sums of a busy position's buckets that pass `matcher` (see `buckets::sum`).
    fn bucket_sums(
        &self,
        key: PositionKey,
        matcher: &Matcher,
    ) -> Result<buckets::Summed, StoreError> {
        let mut row = self.buckets_row(key)?;
        buckets::sum(&mut row, matcher).map_err(|e| at_position(key, e))
    }

    /// How the range rows record a key: `None` if no stored game went through it.
    pub(super) fn entry(&self, key: PositionKey) -> Result<Option<Entry>, StoreError> {
        let rowid = key.to_rowid();
        let mut stmt = self.conn.prepare_cached(sql::RANGE_AT)?;
        let found = stmt
            .query_row([rowid], |r| {
                let start: i64 = r.get(0)?;
                Ok(ranges::find(start, r.get_ref(1)?.as_blob()?, rowid))
            })
            .optional()?;
        found
            .transpose()
            .map(Option::flatten)
            .map_err(|e| at_position(key, e))
    }

    /// A busy position's own row (links and summary).
    pub(super) fn busy_row(&self, key: PositionKey) -> Result<PositionRow, StoreError> {
        let mut stmt = self.conn.prepare_cached(sql::BUSY_ROW)?;
        let raw: Option<BusyBlobs> = stmt
            .query_row([key.to_rowid()], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .optional()?;
        let Some((summary, links, _buckets)) = raw else {
            return Err(StoreError::Corrupt(format!(
                "position {key} is marked busy but has no row"
            )));
        };
        PositionRow::decode(key, summary.as_deref(), &links)
    }

    /// A busy position's summary alone (its links, three bytes a game, and its buckets are
    /// not read).
    fn busy_summary(&self, key: PositionKey) -> Result<Summary, StoreError> {
        self.read_summary(key, Summary::decode)
    }

    /// `read` of a busy position's summary blob, read in place.
    fn read_summary<T>(
        &self,
        key: PositionKey,
        read: impl Fn(&[u8]) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let mut stmt = self.conn.prepare_cached(sql::BUSY_SUMMARY)?;
        let s = stmt
            .query_row([key.to_rowid()], |r| {
                Ok(r.get_ref(0)?.as_blob_or_null()?.map(&read))
            })
            .optional()?
            .flatten();
        match s {
            Some(s) => s.map_err(|e| at_position(key, e)),
            None => Err(StoreError::Corrupt(format!(
                "position {key} is marked busy but has no summary"
            ))),
        }
    }

    /// A busy position's links, whatever its other blobs hold (the migration that rewrites
    /// them reads only these).
    pub(super) fn busy_row_links(&self, key: PositionKey) -> Result<Vec<Link>, StoreError> {
        let mut stmt = self.conn.prepare_cached(sql::BUSY_LINKS)?;
        let links: Option<Vec<u8>> = stmt.query_row([key.to_rowid()], |r| r.get(0)).optional()?;
        let Some(links) = links else {
            return Err(StoreError::Corrupt(format!("position {key} has no row")));
        };
        decode_links(&links).map_err(|e| at_position(key, e))
    }

    /// The games through a position (and its summary if it is busy), if any game went
    /// through it.
    pub(super) fn position_row(&self, key: PositionKey) -> Result<Option<PositionRow>, StoreError> {
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
        let mut stmt = self.conn.prepare_cached(sql::THROUGH_BY_ID)?;
        let row = stmt.query_row([id], through_row).optional()?;
        let Some((_, game, variant, play)) = row else {
            return Err(not_stored(id));
        };
        Through::new(game, variant, play, mv)
    }

    /// A game as the explorer lists it (players, ratings, result, date, event …), by id;
    /// `None` if no game has that id.
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails.
    pub fn game_brief(&self, id: i64) -> Result<Option<GameThrough>, StoreError> {
        let mut stmt = self.conn.prepare_cached(sql::THROUGH_BY_ID)?;
        Ok(stmt
            .query_row([id], through_row)
            .optional()?
            .map(|(_, g, _, _)| g))
    }

    /// The games behind some links (sorted by id). Many links close together are joined
    /// with one scan of the games in their id range rather than looked up one by one.
    pub(super) fn throughs(&self, links: &[Link]) -> Result<Vec<Through>, StoreError> {
        let (Some(first), Some(last)) = (links.first(), links.last()) else {
            return Ok(Vec::new());
        };
        // A scanned row costs about an eighth of a lookup.
        let span = last.game.abs_diff(first.game).saturating_add(1);
        if links.len() < THROUGH_SCAN_FROM || span > 8 * links.len() as u64 {
            return links.iter().map(|l| self.through(l.game, l.mv)).collect();
        }
        let mut stmt = self.conn.prepare_cached(sql::THROUGH_BETWEEN)?;
        let mut rows = stmt.query_map([first.game, last.game], through_row)?;
        let mut out = Vec::with_capacity(links.len());
        for l in links {
            let (game, variant, play) = loop {
                match rows.next().transpose()? {
                    Some((id, game, variant, play)) if id == l.game => break (game, variant, play),
                    Some((id, ..)) if id < l.game => continue,
                    _ => return Err(not_stored(l.game)),
                }
            };
            out.push(Through::new(game, variant, play, l.mv)?);
        }
        Ok(out)
    }

    /// Every stored game as the statistics see it, in id order (one scan of the games).
    pub(super) fn each_through(
        &self,
        mut f: impl FnMut(&Through) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let mut stmt = self.conn.prepare_cached(sql::THROUGH_BETWEEN)?;
        let mut rows = stmt.query_map([i64::MIN, i64::MAX], through_row)?;
        while let Some((_, game, variant, play)) = rows.next().transpose()? {
            f(&Through::new(
                game,
                variant,
                play,
                super::codec::END_OF_GAME,
            )?)?;
        }
        Ok(())
    }

    /// The statistics of some games (a quiet position's), counted as a busy position's
    /// summary keeps them, and the games themselves.
    pub(super) fn summarize(&self, links: &[Link]) -> Result<(Summary, Vec<Through>), StoreError> {
        let games = self.throughs(links)?;
        let mut summary = Summary::default();
        for (l, g) in links.iter().zip(&games) {
            let facts = g.facts();
            summary.add(l.game, l.mv, &facts, &facts.game_facts())?;
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
    /// use qipu::store::{GameRecord, PositionKey, Store};
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
    /// let start = store.lookup(PositionKey(AnyPosition::new(Variant::Xiangqi).key()), 2)?;
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
    pub fn lookup(&self, key: PositionKey, top: usize) -> Result<PositionStats, StoreError> {
        match self.entry(key)? {
            None => Ok(PositionStats::default()),
            Some(Entry::Busy) => {
                let s = self.busy_summary(key)?;
                let complete = |kept: usize| top <= kept || kept < TOP_KEPT;
                let (best, recent) = if complete(s.top.len()) && complete(s.recent.len()) {
                    let read = |l: &Link| Ok(self.through(l.game, l.mv)?.game);
                    (
                        s.top
                            .iter()
                            .take(top)
                            .map(|b| read(&b.link))
                            .collect::<Result<_, StoreError>>()?,
                        s.recent
                            .iter()
                            .take(top)
                            .map(|r| read(&r.link))
                            .collect::<Result<_, StoreError>>()?,
                    )
                } else {
                    let row = self.busy_row(key)?;
                    let games = self.throughs(&row.links)?;
                    (best_games_of(&games, top), recent_games(games, top))
                };
                Ok(PositionStats {
                    moves: s.moves,
                    openings: sort_openings(s.labels),
                    top: best,
                    recent,
                    history: s.history,
                })
            }
            Some(Entry::Quiet(links)) => {
                let (s, games) = self.summarize(&links)?;
                Ok(PositionStats {
                    moves: s.moves,
                    openings: sort_openings(s.labels),
                    top: best_games_of(&games, top),
                    recent: recent_games(games, top),
                    history: s.history,
                })
            }
        }
    }

    /// [`Store::lookup`] counting only the games that pass `filter` (with an empty filter,
    /// the same answer): the moves, the history and the latest `top` games of those games,
    /// the opening labels of every game through the position (the name is the position's),
    /// and as `top` the candidates for the best games, not ranked and not cut to `top`: a
    /// position of at most [`LIST_MAX`](super::LIST_MAX) games gives every game that
    /// passes; a busier one the first `top` of its kept best games ([`TOP_KEPT`]) that pass
    /// when that many do or they are all its games, else the best `top` of its full lists
    /// (`store::lists`, more than 1,000 games) or of its games' facts rows (at most 1,000,
    /// ranked by a bound of their score until the best are sure); the latest games
    /// likewise. Exact under every filter. A busy position is read in its summary, buckets
    /// and, when needed, the parts of its lists or its games' facts rows; only the listed
    /// games' rows are read (and, with names that are not real, the few the bound cannot
    /// place).
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails or a row is corrupt.
    pub fn lookup_filtered(
        &self,
        key: PositionKey,
        filter: &BucketFilter,
        top: usize,
    ) -> Result<PositionStats, StoreError> {
        if filter.is_empty() {
            return self.lookup(key, top);
        }
        let matcher = filter.matcher();
        match self.entry(key)? {
            None => Ok(PositionStats::default()),
            Some(Entry::Quiet(links)) => {
                // The few games are read once: for the labels, the counts and the lists.
                let (s, games) = self.summarize(&links)?;
                let mut rows: Vec<MoveRow> = Vec::new();
                let mut history = Vec::new();
                let mut passing = Vec::new();
                for (l, t) in links.iter().zip(games) {
                    let g = t.facts().game_facts();
                    if matcher.passes(g.bucket) {
                        add_counted(&mut rows, l.mv, l.game, &g)?;
                        add_history(&mut history, &g);
                        passing.push(t);
                    }
                }
                Ok(PositionStats {
                    moves: rows,
                    openings: sort_openings(s.labels),
                    top: passing.iter().map(|t| t.game.clone()).collect(),
                    recent: recent_games(passing, top),
                    history,
                })
            }
            Some(Entry::Busy) => {
                let s = self.busy_summary(key)?;
                let summed = self.bucket_sums(key, &matcher)?;
                let (best, recent) = if top == 0 {
                    (Vec::new(), Vec::new())
                } else {
                    self.filtered_lists(key, &s, &matcher, top)?
                };
                Ok(PositionStats {
                    moves: summed.rows,
                    openings: sort_openings(s.labels),
                    top: best,
                    recent,
                    history: summed.history,
                })
            }
        }
    }

    /// A busy position's candidates for the best games and its latest `top` games among those
    /// that pass `matcher` (see [`Store::lookup_filtered`]).
    fn filtered_lists(
        &self,
        key: PositionKey,
        s: &Summary,
        matcher: &Matcher,
        top: usize,
    ) -> Result<(Vec<GameThrough>, Vec<GameThrough>), StoreError> {
        let all: u64 = s.moves.iter().map(|r| r.counts.games).sum();
        let read =
            |l: &Link| -> Result<GameThrough, StoreError> { Ok(self.through(l.game, l.mv)?.game) };
        // The kept lists answer when `top` of their games pass, or when they hold every game;
        // else the position's full lists do (a position of more than `LISTS_FROM` games), or
        // its games (one of at most that many).
        let whole = |kept: usize| kept as u64 >= all;
        let kept_best: Vec<&Link> = s
            .top
            .iter()
            .filter(|b| matcher.passes(b.bucket))
            .take(top)
            .map(|b| &b.link)
            .collect();
        let kept_recent: Vec<&Link> = s
            .recent
            .iter()
            .filter(|r| matcher.passes(r.bucket))
            .take(top)
            .map(|r| &r.link)
            .collect();
        let best_ok = kept_best.len() >= top || whole(s.top.len());
        let recent_ok = kept_recent.len() >= top || whole(s.recent.len());
        let listed = if (best_ok && recent_ok) || all <= LISTS_FROM as u64 {
            None
        } else {
            self.listed(key, matcher, top, (!best_ok, !recent_ok))?
        };
        let Some((listed_best, listed_recent)) = listed else {
            // A position of at most `LISTS_FROM` games, or a big one without lists (it
            // cannot be after schema 11): what the kept lists do not answer, its games'
            // facts do.
            let (facts_best, facts_recent) = if best_ok && recent_ok {
                (Vec::new(), Vec::new())
            } else {
                self.lists_from_facts(key, matcher, top, (!best_ok, !recent_ok))?
            };
            let best = if best_ok {
                kept_best.into_iter().map(read).collect::<Result<_, _>>()?
            } else {
                facts_best
            };
            let recent = if recent_ok {
                kept_recent
                    .into_iter()
                    .map(read)
                    .collect::<Result<_, _>>()?
            } else {
                facts_recent
            };
            return Ok((best, recent));
        };
        let of = |it: &Item| {
            read(&Link {
                game: it.id,
                mv: it.mv,
            })
        };
        let best = if best_ok {
            kept_best.into_iter().map(read).collect::<Result<_, _>>()?
        } else {
            listed_best.iter().map(of).collect::<Result<_, _>>()?
        };
        let recent = if recent_ok {
            kept_recent
                .into_iter()
                .map(read)
                .collect::<Result<_, _>>()?
        } else {
            listed_recent.iter().map(of).collect::<Result<_, _>>()?
        };
        Ok((best, recent))
    }

    /// A busy position's best and latest `top` games that pass `matcher` (each list only if
    /// `want` asks for it), from the facts rows of all its games: the latest are ranked by
    /// their facts alone, the best by an upper bound of their score
    /// ([`GameFacts::top_score_bound`]), read fully best bound first until no game left can
    /// beat the `top`-th. Only the games listed (and a few the bound cannot tell apart)
    /// have their rows read.
    fn lists_from_facts(
        &self,
        key: PositionKey,
        matcher: &Matcher,
        top: usize,
        want: (bool, bool),
    ) -> Result<(Vec<GameThrough>, Vec<GameThrough>), StoreError> {
        let links = self.busy_row_links(key)?;
        let passing: Vec<(Link, GameFacts)> = self
            .facts_of(&links)?
            .into_iter()
            .filter(|(_, g)| matcher.passes(g.bucket))
            .collect();
        let read =
            |l: &Link| -> Result<GameThrough, StoreError> { Ok(self.through(l.game, l.mv)?.game) };
        let best = if want.0 {
            let mut bounded: Vec<(std::cmp::Reverse<u64>, i64, u16)> = passing
                .iter()
                .map(|(l, g)| (std::cmp::Reverse(g.top_score_bound()), l.game, l.mv))
                .collect();
            bounded.sort_unstable();
            let mut held: Vec<GameThrough> = Vec::new();
            for &(bound, game, mv) in &bounded {
                // Every game from here on ranks at or below its bound, so below the
                // `top`-th held one once that is better than this bound.
                if top > 0 && held.len() >= top && held[top - 1].top_key() < (bound, game) {
                    break;
                }
                held.push(read(&Link { game, mv })?);
                held.sort_by_cached_key(GameThrough::top_key);
                held.truncate(top);
            }
            held
        } else {
            Vec::new()
        };
        let recent = if want.1 {
            let mut keyed: Vec<((u32, u8, i64), Link)> = passing
                .iter()
                .map(|(l, g)| ((g.month(), g.day, l.game), *l))
                .collect();
            keyed.sort_unstable_by_key(|k| std::cmp::Reverse(k.0));
            keyed.truncate(top);
            keyed
                .iter()
                .map(|(_, l)| read(l))
                .collect::<Result<_, _>>()?
        } else {
            Vec::new()
        };
        Ok((best, recent))
    }

    /// The facts rows of some links' games (sorted by id), like [`Store::throughs`]: many
    /// links close together are read with one scan of their id range.
    fn facts_of(&self, links: &[Link]) -> Result<Vec<(Link, GameFacts)>, StoreError> {
        let (Some(first), Some(last)) = (links.first(), links.last()) else {
            return Ok(Vec::new());
        };
        let span = last.game.abs_diff(first.game).saturating_add(1);
        let decode = |r: &Row<'_>| {
            Ok((
                r.get::<_, i64>(0)?,
                GameFacts::decode(r.get_ref(1)?.as_blob()?),
            ))
        };
        let mut stmt;
        let mut rows = if span > 8 * links.len() as u64 {
            // Scattered games: one statement looks them all up.
            let mut ids = String::with_capacity(links.len() * 8 + 2);
            ids.push('[');
            for (i, l) in links.iter().enumerate() {
                if i > 0 {
                    ids.push(',');
                }
                ids.push_str(&l.game.to_string());
            }
            ids.push(']');
            stmt = self.conn.prepare_cached(sql::GAME_FACTS_OF)?;
            stmt.query_map([ids], decode)?
        } else {
            stmt = self.conn.prepare_cached(sql::GAME_FACTS_BETWEEN)?;
            stmt.query_map([first.game, last.game], decode)?
        };
        let mut out = Vec::with_capacity(links.len());
        for l in links {
            let facts = loop {
                match rows.next().transpose()? {
                    Some((id, facts)) if id == l.game => break facts,
                    Some((id, _)) if id < l.game => continue,
                    _ => return Err(not_stored(l.game)),
                }
            };
            let facts = facts.map_err(|e| match e {
                StoreError::Corrupt(m) => StoreError::Corrupt(format!("game {}: {m}", l.game)),
                other => other,
            })?;
            out.push((*l, facts));
        }
        Ok(out)
    }

    /// How many games went through a position (by key) that pass `filter`: a quiet position's
    /// links (their facts rows with a filter), a busy one's summary, or with a filter one walk
    /// of its buckets' entry of every game.
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails or a row is corrupt.
    pub fn games_at(&self, key: PositionKey, filter: &BucketFilter) -> Result<u64, StoreError> {
        self.count_at(key, filter, None)
    }

    /// [`Store::games_at`] of the position a move leads to, knowing that every one of the
    /// move's `played` games goes through it and that `passing` of them pass `filter`: when
    /// the position holds exactly `played` games (the count kept in its row), they are the
    /// move's, and the answer is `passing` without a walk of its buckets or its games'
    /// facts. One look at the position either way.
    ///
    /// ```
    /// use qipu::formats::{Game, MoveNode, Source};
    /// use qipu::rules::{AnyPosition, Variant};
    /// use qipu::store::{BucketFilter, GameRecord, PositionKey, Store};
    /// let mut store = Store::open_in_memory()?;
    /// let records: Vec<GameRecord> = [("h2e2", "2019-05"), ("h2e2", "2021-01")]
    ///     .iter()
    ///     .enumerate()
    ///     .map(|(i, (line, date))| {
    ///         let mut g = Game::new(Variant::Xiangqi, Source { file: "x".into(), index: i });
    ///         g.moves = vec![MoveNode::new(*line)];
    ///         g.tags.date = Some(date.to_string());
    ///         GameRecord::from_game(&g, 40).unwrap()
    ///     })
    ///     .collect();
    /// store.write_batch(&records)?;
    /// let mut after = AnyPosition::new(Variant::Xiangqi);
    /// after.play("h2e2".parse().unwrap()).unwrap();
    /// let after = PositionKey(after.key());
    /// let since = BucketFilter { since: Some("2020".parse().unwrap()), ..BucketFilter::default() };
    /// // Its 2 games are the move's: the move's count under the filter is the answer.
    /// assert_eq!(store.games_after(after, &since, 2, 1)?, 1);
    /// // Had the move 1 game, the position's other games are counted under the filter.
    /// assert_eq!(store.games_after(after, &since, 1, 0)?, 1);
    /// # Ok::<_, qipu::store::StoreError>(())
    /// ```
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails or a row is corrupt.
    pub fn games_after(
        &self,
        key: PositionKey,
        filter: &BucketFilter,
        played: u64,
        passing: u64,
    ) -> Result<u64, StoreError> {
        self.count_at(key, filter, Some((played, passing)))
    }

    /// [`Store::games_at`], and with `known` = (games, passing) [`Store::games_after`].
    fn count_at(
        &self,
        key: PositionKey,
        filter: &BucketFilter,
        known: Option<(u64, u64)>,
    ) -> Result<u64, StoreError> {
        let Some(entry) = self.entry(key)? else {
            return Ok(0);
        };
        if known.is_some() || filter.is_empty() {
            let all = match &entry {
                Entry::Quiet(links) => links.len() as u64,
                Entry::Busy => self.busy_games(key)?,
            };
            match known {
                Some((games, passing)) if games == all => return Ok(passing),
                _ if filter.is_empty() => return Ok(all),
                _ => {}
            }
        }
        let m = filter.matcher();
        match entry {
            Entry::Quiet(links) => {
                let mut n = 0;
                for l in &links {
                    n += u64::from(m.passes(self.game_facts(l.game)?.bucket));
                }
                Ok(n)
            }
            Entry::Busy => {
                let mut row = self.buckets_row(key)?;
                buckets::total(&mut row, &m).map_err(|e| at_position(key, e))
            }
        }
    }

    /// A busy position's games, the count kept in its summary (nothing else of it decoded).
    fn busy_games(&self, key: PositionKey) -> Result<u64, StoreError> {
        self.read_summary(key, summary::games)
    }

    /// Every move played from a position (by key), plus a row with `mv == None` for the
    /// games that ended there, by move code.
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails or a row is corrupt.
    pub fn position(&self, key: PositionKey) -> Result<Vec<MoveRow>, StoreError> {
        Ok(self.lookup(key, 0)?.moves)
    }

    /// The moves of a position (by key) counting only the games that pass `filter`, plus a
    /// row with `mv == None` for those that ended there, by move code; moves none of whose
    /// games pass are left out. A busy position is answered from its bucket sums (one row,
    /// no game read), a quiet one from the facts of its at most
    /// [`LIST_MAX`](super::LIST_MAX) games. With an empty filter this is [`Store::position`].
    ///
    /// ```
    /// use qipu::formats::{Game, MoveNode, Source};
    /// use qipu::rules::{AnyPosition, Variant};
    /// use qipu::store::{BucketFilter, GameRecord, PositionKey, Store};
    /// let mut store = Store::open_in_memory()?;
    /// let records: Vec<GameRecord> = [("h2e2", "2019-05"), ("c3c4", "2021"), ("h2e2", "2022-01-02")]
    ///     .iter()
    ///     .enumerate()
    ///     .map(|(i, (line, date))| {
    ///         let mut g = Game::new(Variant::Xiangqi, Source { file: "x".into(), index: i });
    ///         g.moves = vec![MoveNode::new(*line)];
    ///         g.tags.date = Some(date.to_string());
    ///         GameRecord::from_game(&g, 40).unwrap()
    ///     })
    ///     .collect();
    /// store.write_batch(&records)?;
    /// let start = PositionKey(AnyPosition::new(Variant::Xiangqi).key());
    /// let since_2020 = BucketFilter { since: Some("2020".parse().unwrap()), ..BucketFilter::default() };
    /// let rows = store.moves_filtered(start, &since_2020)?;
    /// let got: Vec<(String, u64)> =
    ///     rows.iter().map(|r| (r.mv.unwrap().to_string(), r.counts.games)).collect();
    /// assert_eq!(got, [("h2e2".to_string(), 1), ("c3c4".to_string(), 1)]);
    /// # Ok::<_, qipu::store::StoreError>(())
    /// ```
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails or a row is corrupt.
    pub fn moves_filtered(
        &self,
        key: PositionKey,
        filter: &BucketFilter,
    ) -> Result<Vec<MoveRow>, StoreError> {
        if filter.is_empty() {
            return self.position(key);
        }
        let matcher = filter.matcher();
        match self.entry(key)? {
            None => Ok(Vec::new()),
            Some(Entry::Busy) => Ok(self.bucket_sums(key, &matcher)?.rows),
            Some(Entry::Quiet(links)) => {
                let mut rows: Vec<MoveRow> = Vec::new();
                for l in &links {
                    let g = self.game_facts(l.game)?;
                    if matcher.passes(g.bucket) {
                        add_counted(&mut rows, l.mv, l.game, &g)?;
                    }
                }
                Ok(rows)
            }
        }
    }

    /// A game's facts row.
    pub(super) fn game_facts(&self, id: i64) -> Result<GameFacts, StoreError> {
        let mut stmt = self.conn.prepare_cached(sql::GAME_FACTS)?;
        let found = stmt
            .query_row([id], |r| Ok(GameFacts::decode(r.get_ref(0)?.as_blob()?)))
            .optional()?;
        match found {
            Some(g) => g.map_err(|e| match e {
                StoreError::Corrupt(m) => StoreError::Corrupt(format!("game {id}: {m}")),
                other => other,
            }),
            None => Err(not_stored(id)),
        }
    }

    /// The best `limit` games that played `mv` in a position (`None`: that ended there), best
    /// rated first, then latest.
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails or a row is corrupt.
    pub fn games_playing(
        &self,
        key: PositionKey,
        mv: Option<Move>,
        limit: usize,
    ) -> Result<Vec<GameThrough>, StoreError> {
        let Some(row) = self.position_row(key)? else {
            return Ok(Vec::new());
        };
        let code = move_code(mv);
        let links: Vec<Link> = row.links.into_iter().filter(|l| l.mv == code).collect();
        Ok(best_games_of(&self.throughs(&links)?, limit))
    }

    /// Games through a position, best first ([`GameThrough::top_key`]: a known result, real
    /// names, rating, date); at most `limit` of them (`None` = all).
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails or a row is corrupt.
    pub fn games_through(
        &self,
        key: PositionKey,
        limit: Option<usize>,
    ) -> Result<Vec<GameThrough>, StoreError> {
        match limit {
            Some(n) => Ok(self.lookup(key, n)?.top),
            None => {
                let Some(row) = self.position_row(key)? else {
                    return Ok(Vec::new());
                };
                Ok(best_games_of(&self.throughs(&row.links)?, usize::MAX))
            }
        }
    }

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
        self.for_each_position(|key, row| {
            let game = row.links.iter().map(|l| l.game).min();
            let moves = match row.summary {
                Some(s) => s.moves,
                None => self.summarize(&row.links)?.0.moves,
            };
            f(key, game, &moves)
        })
    }

    /// Calls `f` for every position, in key order.
    fn for_each_position(
        &self,
        mut f: impl FnMut(PositionKey, PositionRow) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let mut stmt = self.conn.prepare(sql::ALL_RANGES)?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let start: i64 = r.get(0)?;
            let blob = r.get_ref(1)?.as_blob().map_err(rusqlite::Error::from)?;
            for (key, entry) in ranges::entries(start, blob)? {
                let key = PositionKey::from_rowid(key);
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
            let n: i64 = self
                .conn
                .query_row(sql::COUNT_GAMES, [variant_code(v)], |r| r.get(0))?;
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
            max_ply: self.max_ply()?,
            size_bytes,
            top_events,
        })
    }
}

/// Counts a game (`id`) that played `code` into move rows kept sorted by move code.
pub(super) fn add_counted(
    rows: &mut Vec<MoveRow>,
    code: u16,
    id: i64,
    g: &GameFacts,
) -> Result<usize, StoreError> {
    let i = match rows.binary_search_by_key(&code, |r| move_code(r.mv)) {
        Ok(i) => i,
        Err(i) => {
            let mv = move_from_code(code)?;
            rows.insert(
                i,
                MoveRow {
                    mv,
                    ..MoveRow::default()
                },
            );
            i
        }
    };
    let date = g.date();
    rows[i].count(&Played {
        id,
        result: g.result,
        ratings: g.ratings,
        date: date.as_deref(),
        year: year_of(g.month()),
        termination: g.termination,
    });
    Ok(i)
}

/// Counts a game into a history kept by month (games without a calendar month are left out).
pub(super) fn add_history(history: &mut Vec<MonthCounts>, g: &GameFacts) {
    let mut c = GameCounts::default();
    c.add_game(g.result, g.ratings);
    buckets::add_to_history(history, g.month(), &c);
}

/// The best `n` of some games ([`GameThrough::top_key`]).
fn best_games_of(games: &[Through], n: usize) -> Vec<GameThrough> {
    let mut games: Vec<GameThrough> = games.iter().map(|t| t.game.clone()).collect();
    games.sort_by_cached_key(GameThrough::top_key);
    games.truncate(n);
    games
}

/// The latest `n` of some games: by month code, day, then the greater id (as the summary
/// keeps them).
pub(super) fn recent_games(games: Vec<Through>, n: usize) -> Vec<GameThrough> {
    let mut keyed: Vec<((u32, u8, i64), GameThrough)> = games
        .into_iter()
        .map(|t| {
            let f = t.facts().game_facts();
            ((f.bucket / PER_MONTH, f.day, t.game.id), t.game)
        })
        .collect();
    keyed.sort_unstable_by_key(|k| std::cmp::Reverse(k.0));
    keyed.truncate(n);
    keyed.into_iter().map(|(_, g)| g).collect()
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
