//! Reading: what is stored of one position (its range entry, its busy row's blobs, read
//! whole or in parts) and the games behind its links, as the statistics see them; the
//! counting helpers the other readers share. The answers built from them are in
//! `read/position.rs` (the questions about a position: moves, labels, games, counts under a
//! filter) and `read/games.rs` (stored games, every position, database statistics). No blob
//! layout here: each blob is decoded by its own file.

use std::{borrow::Cow, ops::Range};

use rusqlite::{OptionalExtension, Row};

use super::{
    buckets::{self, Source as BlobSource},
    codec::{result_from_code, variant_from_code},
    filter::{year_of, Matcher, PER_MONTH},
    game_facts::GameFacts,
    links::{decode_links, move_code, move_from_code, Link},
    model::{GameCounts, GameThrough, MonthCounts, MoveRow, Played, PositionKey},
    ranges::{self, Entry},
    sql,
    summary::{Facts, Summary},
    Store, StoreError,
};
use crate::formats::facts::{Mode, Speed, Termination};

mod every;
mod games;
mod merge;
mod position;

pub use games::GamesIter;
pub(super) use merge::{merge_months, merge_moves};

fn count(v: i64) -> u64 {
    u64::try_from(v).unwrap_or(0)
}

fn rating(v: Option<i64>) -> Option<u32> {
    v.and_then(|r| u32::try_from(r).ok())
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
        let tables = self.tables();
        self.blob_row((tables.positions_table(), c"buckets"), key)?
            .ok_or_else(|| {
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
        let mut stmt = self.conn.prepare_cached(&self.q(sql::RANGE_AT))?;
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
        let (summary, links, _buckets) = self.busy_blobs(key)?;
        PositionRow::decode(key, summary.as_deref(), &links)
    }

    /// A busy position's row as stored (summary, links, buckets), undecoded: what a merge
    /// of new counts into it, or of segments, starts from.
    pub(super) fn busy_blobs(&self, key: PositionKey) -> Result<BusyBlobs, StoreError> {
        let mut stmt = self.conn.prepare_cached(&self.q(sql::BUSY_ROW))?;
        let raw: Option<BusyBlobs> = stmt
            .query_row([key.to_rowid()], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .optional()?;
        raw.ok_or_else(|| {
            StoreError::Corrupt(format!("position {key} is marked busy but has no row"))
        })
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
        let mut stmt = self.conn.prepare_cached(&self.q(sql::BUSY_SUMMARY))?;
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
        let mut stmt = self.conn.prepare_cached(&self.q(sql::BUSY_LINKS))?;
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
