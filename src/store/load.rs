//! The bulk writer of `qipu load`: a fresh database's position statistics written in one pass
//! from rows already reduced and sorted elsewhere (the Spark job of `spark/build.py`), with
//! the store's own encoders (`links`, `ranges`, `summary`, `buckets`); and the store's value
//! codes for files that carry games outside a database ([`wire`]). No blob layout and no
//! counting rule is written here: a quiet position is packed by `ranges::Packer`; a busy one
//! arrives counted ([`BusyPosition`]: the cells of its buckets, its move totals, labels, best
//! and latest games and history, each as the job summed them) and is checked against its
//! links, put into the store's in-memory `Summary` and `Buckets` and stored by
//! `write::write_busy`.
//!
//! The games themselves go through [`Store::write_batch`] (records without positions, ids in
//! the job's order), and an incremental load into a database that already has games goes
//! through it whole: the same per-position merge as an import.

use rusqlite::{Transaction, TransactionBehavior};

use super::{
    buckets::{Buckets, Cell, ALL_GAMES},
    codec::END_OF_GAME,
    filter::calendar_month,
    links::{move_from_code, Link},
    model::{GameCounts, MonthCounts, MoveRow, OpeningRow, PositionKey, ENDINGS},
    ranges::Packer,
    sql,
    summary::{Best, Recent, Summary, LIST_MAX, TOP_KEPT},
    Store, StoreError,
};

pub mod wire;

/// How many quiet entries are packed before their range rows are written.
const FLUSH_ENTRIES: usize = 200_000;

/// One link of the sorted stream `qipu load` reads: a position, a game through it (by id)
/// and the move code it played there ([`super::END_OF_GAME`] when it ended there).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PositionRow {
    /// The position.
    pub key: PositionKey,
    /// The game's id.
    pub game: i64,
    /// `Move::to_u16`, or [`super::END_OF_GAME`].
    pub mv: u16,
}

/// The games of one move of a busy position in one bucket (month, band, speed, mode), as
/// the job reduced them: one cell of the position's buckets blob.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CellRow {
    /// The move code; 65535 for the games that ended here, 65534 for every game through
    /// the position.
    pub mv: u16,
    /// The bucket (`wire::counted_facts`' `bucket`).
    pub bucket: u32,
    /// Games, results and rating sums.
    pub counts: GameCounts,
    /// The smallest and greatest day of the month of the cell's games (0 = no day).
    pub first_day: u8,
    /// See `first_day`.
    pub last_day: u8,
    /// Of the games on `first_day`, the smallest id.
    pub first_game: i64,
    /// The move 65535 only: its games by termination code (0 unknown), codes with games.
    pub endings: Vec<(u64, u64)>,
}

/// The games of one move of a busy position (a move row of its summary), as the job
/// reduced them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MoveTotal {
    /// The move code (65535 for the games that ended here).
    pub mv: u16,
    /// Games, results and rating sums.
    pub counts: GameCounts,
    /// The smallest date as stored, and of its games the smallest id.
    pub first_date: Option<String>,
    /// See `first_date`.
    pub first_game: Option<i64>,
    /// The greatest date as stored.
    pub last_date: Option<String>,
    /// The sum of the years of the games with a known year, and their number.
    pub year_sum: u64,
    /// See `year_sum`.
    pub dated: u64,
    /// The move 65535 only: its games by termination code (0 unknown), codes with games.
    pub endings: Vec<(u64, u64)>,
}

/// One of a busy position's best (by `top_score`, then the smaller id) or latest (by month,
/// day, then the greater id) games.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RankedGame {
    /// The game's id.
    pub game: i64,
    /// The move it played here.
    pub mv: u16,
    /// Its bucket.
    pub bucket: u32,
    /// Its `top_score` (best games) or its day (latest games).
    pub score: u64,
}

/// Everything a busy position (more than [`LIST_MAX`] games) stores beside its links, reduced
/// by the job: each list sorted as named.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BusyPosition {
    /// The position.
    pub key: PositionKey,
    /// By (move, bucket), the entry of every game (65534) included.
    pub cells: Vec<CellRow>,
    /// By move code.
    pub moves: Vec<MoveTotal>,
    /// Opening labels and their games, by label.
    pub labels: Vec<OpeningRow>,
    /// The best [`TOP_KEPT`] games (or all), best first.
    pub top: Vec<RankedGame>,
    /// The latest [`TOP_KEPT`] games (or all), latest first.
    pub recent: Vec<RankedGame>,
    /// The games through the position per calendar month: (month code, games, first
    /// player's wins, draws, second player's wins), by month.
    pub history: Vec<(u32, [u64; 4])>,
}

/// What [`Store::load_positions`] wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LoadOutcome {
    /// Distinct positions.
    pub positions: u64,
    /// Of which busy (more than `LIST_MAX` games: a summary and buckets of their own).
    pub busy: u64,
    /// (position, game) links.
    pub links: u64,
}

impl Store {
    /// Whether the database holds no game yet (a fresh load may write into it).
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails.
    pub fn has_no_games(&self) -> Result<bool, StoreError> {
        let n: i64 = self.conn.query_row(sql::ANY_GAME, [], |r| r.get(0))?;
        Ok(n == 0)
    }

    /// Writes the position statistics of a fresh database in one transaction from `rows`,
    /// sorted by position key (in the signed order of the table, as Spark sorts a `long`)
    /// and then by game id, each (position, game) once, and `busy`: the reduced statistics
    /// of every position with more than [`LIST_MAX`] rows, in the same key order. `games`
    /// is how many games are stored (ids 1 … games).
    ///
    /// # Errors
    /// [`StoreError::Setting`] if the database already has position statistics,
    /// [`StoreError::Corrupt`] if the rows are not sorted, repeat a pair or name a game that
    /// is not stored, or a busy position's statistics are missing, out of order or do not
    /// add up to its links (nothing is written then); [`StoreError`] if SQLite fails or a
    /// row does (the error of the iterator).
    pub fn load_positions<I, B>(
        &mut self,
        games: u64,
        rows: I,
        busy: B,
    ) -> Result<LoadOutcome, StoreError>
    where
        I: IntoIterator<Item = Result<PositionRow, StoreError>>,
        B: IntoIterator<Item = Result<BusyPosition, StoreError>>,
    {
        let any: i64 = self.conn.query_row(sql::ANY_RANGE, [], |r| r.get(0))?;
        if any != 0 {
            return Err(StoreError::Setting(
                "this database already has position statistics: a bulk load writes only a fresh one".into(),
            ));
        }
        let tx = Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)?;
        let mut out = LoadOutcome::default();
        let mut packer = Packer::default();
        let mut packed = 0;
        // The start of the range being packed: the lowest key for the first one, as an
        // import's first range.
        let mut start = i64::MIN;
        let mut group: Vec<Link> = Vec::new();
        let mut key: Option<PositionKey> = None;
        let mut busy = busy.into_iter();
        let flush = |packer: &mut Packer, start: i64| -> Result<(), StoreError> {
            let mut replace = self.conn.prepare_cached(sql::REPLACE_RANGE)?;
            for (s, blob) in packer.rows(start) {
                replace.execute(rusqlite::params![s, blob])?;
            }
            *packer = Packer::default();
            Ok(())
        };
        let mut rows = rows.into_iter();
        loop {
            let row = rows.next().transpose()?;
            let next_key = row.map(|r| r.key);
            if key.is_some() && next_key != key {
                let Some(k) = key else { break };
                if packed >= FLUSH_ENTRIES {
                    flush(&mut packer, start)?;
                    start = k.to_rowid();
                    packed = 0;
                }
                self.load_one(games, k, &group, &mut busy, &mut packer, &mut out)?;
                packed += 1;
                group.clear();
            }
            let Some(row) = row else { break };
            if let Some(k) = key {
                let before = (k.table_order(), group.last().map_or(i64::MIN, |l| l.game));
                if (row.key.table_order(), row.game) <= before {
                    return Err(StoreError::Corrupt(format!(
                        "position rows out of order at position {} game {}: sort them by key, then game id",
                        row.key, row.game
                    )));
                }
            }
            key = Some(row.key);
            group.push(Link {
                game: row.game,
                mv: row.mv,
            });
        }
        if let Some(extra) = busy.next().transpose()? {
            return Err(StoreError::Corrupt(format!(
                "busy statistics for position {} that is not busy (or not in key order)",
                extra.key
            )));
        }
        if packed > 0 {
            flush(&mut packer, start)?;
        }
        // The full lists of the positions of more than 1,000 games (`store::lists`), from
        // the games stored and the links just written.
        self.rebuild_lists()?;
        // Segment 1's tables count every game now (the batches that stored them may have
        // opened later segments, which hold no statistics); it stays open unless full.
        self.conn
            .execute(sql::LOADED_SEGMENT, [super::segments::SEGMENT_GAMES as i64])?;
        self.conn.execute(sql::LOADED_LATER_SEGMENTS, [])?;
        tx.commit()?;
        Ok(out)
    }

    /// One position's links (sorted by id): packed quiet, or stored busy with the next of
    /// the reduced statistics.
    fn load_one(
        &self,
        games: u64,
        key: PositionKey,
        links: &[Link],
        busy: &mut impl Iterator<Item = Result<BusyPosition, StoreError>>,
        packer: &mut Packer,
        out: &mut LoadOutcome,
    ) -> Result<(), StoreError> {
        out.positions += 1;
        out.links += links.len() as u64;
        for l in links {
            if !known_game(l.game, games) {
                return Err(StoreError::Corrupt(format!(
                    "position {key}: game {} is not among the {games} games loaded",
                    l.game
                )));
            }
            move_from_code(l.mv).map_err(|e| {
                StoreError::Corrupt(format!("position {key}, game {}: {e}", l.game))
            })?;
        }
        if links.len() <= LIST_MAX {
            packer.push_links(key.to_rowid(), links);
            return Ok(());
        }
        out.busy += 1;
        let reduced = busy.next().transpose()?.ok_or_else(|| {
            StoreError::Corrupt(format!(
                "position {key} has {} games but no busy statistics",
                links.len()
            ))
        })?;
        if reduced.key != key {
            return Err(StoreError::Corrupt(format!(
                "busy statistics for position {} where those of position {key} ({} games) were due",
                reduced.key,
                links.len()
            )));
        }
        let (summary, buckets) =
            busy_blobs(&reduced, links.len() as u64, games).map_err(|why| {
                StoreError::Corrupt(format!("busy statistics of position {key}: {why}"))
            })?;
        self.write_busy(key, &summary, links, &buckets)?;
        packer.push_busy(key.to_rowid());
        Ok(())
    }
}

/// Whether `id` is one of the ids 1 … `games`.
fn known_game(id: i64, games: u64) -> bool {
    u64::try_from(id).is_ok_and(|i| (1..=games).contains(&i))
}

/// Per-code counts as the store's endings array; `None` if a code is unknown or repeated.
fn endings_of(pairs: &[(u64, u64)]) -> Option<[u64; ENDINGS]> {
    let mut out = [0; ENDINGS];
    for &(code, n) in pairs {
        let slot = out.get_mut(usize::try_from(code).ok()?)?;
        if *slot != 0 || n == 0 {
            return None;
        }
        *slot = n;
    }
    Some(out)
}

/// Whether `items` are strictly increasing by `less`.
fn increasing<T>(items: &[T], less: impl Fn(&T, &T) -> bool) -> bool {
    items.windows(2).all(|w| less(&w[0], &w[1]))
}

/// A busy position's reduced statistics as the store's summary and buckets, checked against
/// its `links` games (of `games` stored). The error says what does not hold.
fn busy_blobs(b: &BusyPosition, links: u64, games: u64) -> Result<(Summary, Buckets), String> {
    if !increasing(&b.cells, |a, b| (a.mv, a.bucket) < (b.mv, b.bucket)) {
        return Err("cells not sorted by (move, bucket)".into());
    }
    let mut buckets = Buckets::default();
    for c in &b.cells {
        if c.mv != ALL_GAMES {
            move_from_code(c.mv).map_err(|e| e.to_string())?;
        }
        if c.counts.games == 0 || !known_game(c.first_game, games) {
            return Err(format!(
                "cell ({}, {}) is empty or names an unknown game",
                c.mv, c.bucket
            ));
        }
        let endings = endings_of(&c.endings)
            .filter(|e| c.mv == END_OF_GAME || e.iter().all(|n| *n == 0))
            .ok_or_else(|| format!("cell ({}, {}): bad endings", c.mv, c.bucket))?;
        let cell = Cell {
            bucket: c.bucket,
            counts: c.counts,
            first_day: c.first_day,
            last_day: c.last_day,
            first_game: c.first_game,
            endings,
        };
        if c.mv == ALL_GAMES {
            // Checked, not kept: the buckets hold the moves (format 5 sums them).
            continue;
        }
        match buckets.moves.last_mut() {
            Some((mv, cells)) if *mv == c.mv => cells.push(cell),
            _ => buckets.moves.push((c.mv, vec![cell])),
        }
    }
    let every: u64 = b
        .cells
        .iter()
        .filter(|c| c.mv == ALL_GAMES)
        .map(|c| c.counts.games)
        .sum();
    let moved: u64 = b.moves.iter().map(|m| m.counts.games).sum();
    if every != links || moved != links {
        return Err(format!(
            "{links} links, but {every} games in the cells of every game and {moved} in the move totals"
        ));
    }
    if !increasing(&b.moves, |a, b| a.mv < b.mv) {
        return Err("move totals not sorted by move".into());
    }
    let mut moves = Vec::with_capacity(b.moves.len());
    for m in &b.moves {
        let mv = move_from_code(m.mv).map_err(|e| e.to_string())?;
        let endings = endings_of(&m.endings)
            .filter(|e| mv.is_none() || e.iter().all(|n| *n == 0))
            .ok_or_else(|| format!("move {}: bad endings", m.mv))?;
        if m.first_game.is_some_and(|g| !known_game(g, games)) {
            return Err(format!("move {}: unknown first game", m.mv));
        }
        moves.push(MoveRow {
            mv,
            counts: m.counts,
            first_date: m.first_date.clone(),
            last_date: m.last_date.clone(),
            first_game: m.first_game,
            year_sum: m.year_sum,
            dated: m.dated,
            endings,
            ..MoveRow::default()
        });
    }
    if !increasing(&b.labels, |a, b| a.label < b.label) {
        return Err("labels not sorted".into());
    }
    let kept = usize::try_from(links).map_or(TOP_KEPT, |n| n.min(TOP_KEPT));
    if b.top.len() != kept || b.recent.len() != kept {
        return Err(format!(
            "{} best and {} latest games where {kept} are kept",
            b.top.len(),
            b.recent.len()
        ));
    }
    let ranked = |g: &RankedGame| -> Result<(), String> {
        move_from_code(g.mv).map_err(|e| e.to_string())?;
        if known_game(g.game, games) {
            Ok(())
        } else {
            Err(format!("unknown game {} among the best or latest", g.game))
        }
    };
    let mut top = Vec::with_capacity(kept);
    for g in &b.top {
        ranked(g)?;
        top.push(Best {
            score: g.score,
            link: Link {
                game: g.game,
                mv: g.mv,
            },
            bucket: g.bucket,
        });
    }
    let mut recent = Vec::with_capacity(kept);
    for g in &b.recent {
        ranked(g)?;
        recent.push(Recent {
            link: Link {
                game: g.game,
                mv: g.mv,
            },
            bucket: g.bucket,
            day: u8::try_from(g.score).map_err(|_| "bad day of a latest game".to_string())?,
        });
    }
    if !increasing(&b.history, |a, b| a.0 < b.0) {
        return Err("history not sorted by month".into());
    }
    let mut history = Vec::with_capacity(b.history.len());
    for &(code, [games, first_wins, draws, second_wins]) in &b.history {
        let (year, month) = calendar_month(code)
            .ok_or_else(|| format!("history month {code} is not a calendar month"))?;
        history.push(MonthCounts {
            year,
            month,
            games,
            first_wins,
            draws,
            second_wins,
        });
    }
    let summary = Summary {
        moves,
        labels: b.labels.clone(),
        top,
        recent,
        history,
    };
    Ok((summary, buckets))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    use crate::{
        formats::{
            facts::{Speed, TimeControl},
            Game, MoveNode, Source,
        },
        rules::{AnyPosition, Variant},
        store::{model::GameRecord, BucketFilter},
    };

    /// 100 games from the start: the start and the first plies are busy, later ones quiet;
    /// dated, rated, with clocks.
    fn records() -> Vec<GameRecord> {
        let mut out = Vec::new();
        let mut seed = 7u64;
        let mut next = |n: usize| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            ((seed >> 33) % n as u64) as usize
        };
        for i in 0..100 {
            let mut pos = AnyPosition::new(Variant::Xiangqi);
            let mut g = Game::new(
                Variant::Xiangqi,
                Source {
                    file: "t.pgn".into(),
                    index: i,
                },
            );
            for ply in 0..(3 + next(12)) {
                let legal = pos.legal_moves();
                let m = legal[next(if ply < 2 { 2 } else { legal.len() })];
                g.moves.push(MoveNode::new(m.to_string()));
                pos.play_unchecked(m);
            }
            g.tags.date = Some(format!(
                "{}-{:02}-{:02}",
                2000 + next(20),
                1 + next(12),
                next(29)
            ));
            g.tags.first = Some(format!("P{}", next(5)));
            g.tags.first_rating = (next(3) > 0).then(|| 1000 + next(1600) as u32);
            g.tags.time_control = (next(2) == 0).then_some(TimeControl {
                base_secs: 60 * (1 + next(30) as u32),
                increment_secs: next(5) as u32,
            });
            g.tags.ecco = Some(format!("A{:02}", next(4)));
            out.push(GameRecord::from_game(&g, 40).unwrap());
        }
        out
    }

    /// The job's output, made here: each (position, game id) once, sorted by key then id.
    fn sorted_rows(records: &[GameRecord]) -> Vec<PositionRow> {
        let mut rows: Vec<PositionRow> = records
            .iter()
            .enumerate()
            .flat_map(|(i, r)| {
                r.positions.iter().map(move |&(key, mv)| PositionRow {
                    key,
                    game: i as i64 + 1,
                    mv: mv.map_or(END_OF_GAME, crate::rules::Move::to_u16),
                })
            })
            .collect();
        rows.sort_by_key(|r| (r.key.to_rowid(), r.game));
        rows
    }

    /// The job's reduce of the busy positions, done here the plain way (maps keyed as the
    /// job groups) from the records and their ids 1, 2, ….
    fn reduce(records: &[GameRecord]) -> Vec<BusyPosition> {
        let rows = sorted_rows(records);
        let mut out = Vec::new();
        for group in rows.chunk_by(|a, b| a.key == b.key) {
            if group.len() <= LIST_MAX {
                continue;
            }
            let mut cells: BTreeMap<(u16, u32), (CellRow, BTreeMap<u64, u64>)> = BTreeMap::new();
            let mut moves: BTreeMap<u16, (MoveTotal, BTreeMap<u64, u64>)> = BTreeMap::new();
            let mut labels: BTreeMap<String, u64> = BTreeMap::new();
            let mut history: BTreeMap<u32, [u64; 4]> = BTreeMap::new();
            let mut ranked = Vec::new();
            for row in group {
                let r = &records[row.game as usize - 1];
                let c = wire::counted_facts(r);
                let ratings = [r.tags.first_rating, r.tags.second_rating];
                for mv in [row.mv, ALL_GAMES] {
                    let (cell, ends) = cells.entry((mv, c.bucket)).or_insert((
                        CellRow {
                            mv,
                            bucket: c.bucket,
                            first_day: c.day,
                            last_day: c.day,
                            first_game: row.game,
                            ..CellRow::default()
                        },
                        BTreeMap::new(),
                    ));
                    cell.counts.add_game(r.result, ratings);
                    if (c.day, row.game) < (cell.first_day, cell.first_game) {
                        (cell.first_day, cell.first_game) = (c.day, row.game);
                    }
                    cell.last_day = cell.last_day.max(c.day);
                    if mv == END_OF_GAME {
                        *ends.entry(u64::from(c.ending)).or_default() += 1;
                    }
                }
                let (m, ends) = moves.entry(row.mv).or_insert((
                    MoveTotal {
                        mv: row.mv,
                        ..MoveTotal::default()
                    },
                    BTreeMap::new(),
                ));
                m.counts.add_game(r.result, ratings);
                if let Some(d) = r.tags.date.clone() {
                    let first = (m.first_date.clone(), m.first_game);
                    if first.0.is_none() || (Some(d.clone()), Some(row.game)) < first {
                        (m.first_date, m.first_game) = (Some(d.clone()), Some(row.game));
                    }
                    if m.last_date.as_ref().is_none_or(|l| d > *l) {
                        m.last_date = Some(d);
                    }
                }
                if let Some(y) = c.year {
                    m.year_sum += u64::from(y);
                    m.dated += 1;
                }
                if row.mv == END_OF_GAME {
                    *ends.entry(u64::from(c.ending)).or_default() += 1;
                }
                if let Some(l) = &r.opening_label {
                    *labels.entry(l.clone()).or_default() += 1;
                }
                if let Some(h) = c.history_month {
                    let e = history.entry(h).or_default();
                    let code = wire::result_code(r.result) as usize;
                    e[0] += 1;
                    if code > 0 {
                        e[code] += 1;
                    }
                }
                ranked.push((c, row.game, row.mv));
            }
            let game = |(c, id, mv): &(wire::CountedFacts, i64, u16), score: u64| RankedGame {
                game: *id,
                mv: *mv,
                bucket: c.bucket,
                score,
            };
            ranked.sort_by_key(|(c, id, _)| (std::cmp::Reverse(c.top_score), *id));
            let top = ranked
                .iter()
                .take(TOP_KEPT)
                .map(|g| game(g, g.0.top_score))
                .collect();
            ranked.sort_by_key(|(c, id, _)| std::cmp::Reverse((c.month, c.day, *id)));
            let recent = ranked
                .iter()
                .take(TOP_KEPT)
                .map(|g| game(g, u64::from(g.0.day)))
                .collect();
            let pairs = |m: BTreeMap<u64, u64>| m.into_iter().collect();
            out.push(BusyPosition {
                key: group[0].key,
                cells: cells
                    .into_values()
                    .map(|(c, e)| CellRow {
                        endings: pairs(e),
                        ..c
                    })
                    .collect(),
                moves: moves
                    .into_values()
                    .map(|(m, e)| MoveTotal {
                        endings: pairs(e),
                        ..m
                    })
                    .collect(),
                labels: labels
                    .into_iter()
                    .map(|(label, games)| OpeningRow { label, games })
                    .collect(),
                top,
                recent,
                history: history.into_iter().collect(),
            });
        }
        out
    }

    fn bulk(records: &[GameRecord]) -> (Store, LoadOutcome) {
        let mut store = Store::open_in_memory().unwrap();
        let bare: Vec<GameRecord> = records
            .iter()
            .map(|r| GameRecord {
                positions: Vec::new(),
                ..r.clone()
            })
            .collect();
        store.write_batch(&bare).unwrap();
        let rows = sorted_rows(records);
        let busy = reduce(records);
        let out = store
            .load_positions(
                records.len() as u64,
                rows.into_iter().map(Ok),
                busy.into_iter().map(Ok),
            )
            .unwrap();
        (store, out)
    }

    #[test]
    fn a_bulk_load_answers_as_import_batches() {
        let records = records();
        let mut imported = Store::open_in_memory().unwrap();
        // The import in three batches: busy positions cross LIST_MAX between them.
        for part in records.chunks(40) {
            imported.write_batch(part).unwrap();
        }
        let (loaded, out) = bulk(&records);
        assert!(out.busy >= 2, "{out:?}");
        let a = imported.stats().unwrap();
        let b = loaded.stats().unwrap();
        assert_eq!(
            (a.positions, a.position_moves, a.position_games),
            (b.positions, b.position_moves, b.position_games)
        );
        assert_eq!(out.positions, b.positions);
        let filters = [
            BucketFilter::default(),
            BucketFilter {
                since: Some("2010-03".parse().unwrap()),
                min_rating: Some(1400),
                ..BucketFilter::default()
            },
            BucketFilter {
                speeds: vec![Speed::Blitz, Speed::Rapid],
                ..BucketFilter::default()
            },
        ];
        let mut keys: Vec<PositionKey> = sorted_rows(&records).iter().map(|r| r.key).collect();
        keys.dedup();
        let mut busy_compared = 0;
        for key in keys {
            assert_eq!(
                imported.lookup(key, 100).unwrap(),
                loaded.lookup(key, 100).unwrap()
            );
            // A busy position's blobs byte for byte.
            let blobs = |s: &Store| -> Option<(Vec<u8>, Vec<u8>)> {
                s.conn
                    .query_row(
                        "SELECT summary, buckets FROM positions WHERE key = ?1",
                        [key.to_rowid()],
                        |r| Ok((r.get(0)?, r.get(1)?)),
                    )
                    .ok()
            };
            let (a, b) = (blobs(&imported), blobs(&loaded));
            busy_compared += usize::from(a.is_some());
            assert_eq!(a, b, "{key}");
            for f in &filters {
                assert_eq!(
                    imported.moves_filtered(key, f).unwrap(),
                    loaded.moves_filtered(key, f).unwrap(),
                    "{key} {f:?}"
                );
            }
        }
        assert_eq!(busy_compared as u64, out.busy);
    }

    #[test]
    fn rows_out_of_order_unknown_games_bad_sums_and_a_second_load_are_refused() {
        let records = records();
        let n = records.len() as u64;
        let (mut store, _) = bulk(&records);
        // The database has statistics now.
        assert!(matches!(
            store.load_positions(0, std::iter::empty(), std::iter::empty()),
            Err(StoreError::Setting(_))
        ));
        let mut fresh = Store::open_in_memory().unwrap();
        let load = |fresh: &mut Store, rows: Vec<PositionRow>, busy: Vec<BusyPosition>, games| {
            fresh.load_positions(games, rows.into_iter().map(Ok), busy.into_iter().map(Ok))
        };
        let refused = |err: Result<LoadOutcome, StoreError>, why: &str| {
            assert!(
                matches!(&err, Err(StoreError::Corrupt(m)) if m.contains(why)),
                "{why}: {err:?}"
            );
        };
        let mut rows = sorted_rows(&records);
        rows.swap(0, 1);
        refused(load(&mut fresh, rows, reduce(&records), n), "out of order");
        refused(
            load(&mut fresh, sorted_rows(&records), reduce(&records), 0),
            "not among",
        );
        // A busy position without its sums, sums of a quiet one, sums that do not add up.
        let busy = reduce(&records);
        refused(
            load(&mut fresh, sorted_rows(&records), busy[1..].to_vec(), n),
            "were due",
        );
        let mut extra = busy.clone();
        extra.push(busy[0].clone());
        refused(
            load(&mut fresh, sorted_rows(&records), extra, n),
            "not busy",
        );
        let mut short = busy.clone();
        short[0].cells.pop();
        refused(load(&mut fresh, sorted_rows(&records), short, n), "links");
        let mut few = busy.clone();
        few[0].top.pop();
        refused(load(&mut fresh, sorted_rows(&records), few, n), "kept");
        let mut bad = busy.clone();
        bad[0].cells.swap(0, 1);
        refused(load(&mut fresh, sorted_rows(&records), bad, n), "sorted");
        // Nothing was written by the refused loads.
        assert_eq!(fresh.stats().unwrap().positions, 0);
    }
}
