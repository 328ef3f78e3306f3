//! Building a database past one machine: the map (`qipu emit`) and the load (`qipu load`) around
//! the Spark job of `spark/build.py`, which only groups, counts and sorts.
//!
//! What it owns: the Parquet tables exchanged with the job (their columns are listed in
//! [`GAME_COLUMNS`], [`POSITION_COLUMNS`] and `spark/README.md`), the per-game values the job
//! groups by ([`identity`], [`richness`], [`order_key`]; what a busy position counts of a game
//! comes from `store::wire::counted_facts`), and turning the job's sorted output back into
//! store calls (the busy positions' aggregates as [`BusyPosition`]s). What it may not touch: SQL and blob formats (the store's: games go
//! through [`Store::write_batch`], a fresh database's statistics through
//! [`Store::load_positions`]), reading and replaying games (the readers' [`chunks`] and
//! [`GameRecord::from_game`], as an import does them). It sits beside `pipeline`, below `cli`.
//!
//! ```text
//! qipu emit IN... --out facts/    facts/games/part-*.parquet      one row per game read
//!                                 facts/positions/part-*.parquet  (identity, key, mv) per
//!                                                                 distinct position of a game
//! spark-submit spark/build.py facts/ stats/
//!                                 stats/games/      the kept games with their id, by id
//!                                 stats/positions/  (key, id, mv), by key then id
//!                                 stats/cells/ moves/ labels/ top/ recent/ history/
//!                                                   the busy positions' aggregates, by key
//! qipu load stats/ --db games.db
//! ```

pub mod parquet;

use std::{
    fmt,
    path::{Path, PathBuf},
};

use rayon::prelude::*;

use self::parquet::{col, read_table, ColumnDef, Kind, Row, TableRows, TableWriter, Value};
use crate::{
    formats::{
        chunks, distinct_positions,
        facts::{Mode, Speed, Termination, TimeControl},
        Chunk, ErrorKind, GameError, GameNumbers, Source, Tags,
    },
    pipeline::CHUNK_BYTES,
    rules::{AnyPosition, Move},
    store::{
        copies, wire, BusyPosition, CellRow, GameCounts, GameRecord, MoveTotal, OpeningRow,
        PositionKey, PositionRow, RankedGame, Store, StoreError,
    },
};

/// An error of emit or load, naming the file (and row) it is about.
#[derive(Debug)]
pub struct BulkError(pub String);

impl fmt::Display for BulkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BulkError {}

impl From<StoreError> for BulkError {
    fn from(e: StoreError) -> BulkError {
        BulkError(e.to_string())
    }
}

/// The key games are deduplicated by: games with the same identity are one game, of which
/// the job keeps one copy ([`copies::identity`], as `qipu import` recognises a copy).
pub fn identity(r: &GameRecord) -> u64 {
    copies::identity(r)
}

/// Which copy of a game the job keeps: the greatest richness ([`copies::richness`]), ties by
/// [`tie_break`], then the earliest in the input.
pub fn richness(r: &GameRecord) -> i64 {
    i64::from(copies::richness(&r.tags))
}

/// The tie-break between copies of equal richness, as `qipu import` orders them: the smaller
/// content hash, then the smaller [`copies::header_hash`], each turned from an unsigned into a
/// signed number that sorts the same way (`x ^ 2^63`), since Spark's longs are signed.
pub fn tie_break(r: &GameRecord) -> [i64; 2] {
    let sortable = |x: u64| (x ^ (1 << 63)) as i64;
    [sortable(r.hash), sortable(copies::header_hash(&r.tags))]
}

/// The columns of `facts/games` (and, with `id` in front, of `stats/games`).
pub const GAME_COLUMNS: &[ColumnDef] = &[
    col("identity", Kind::Long, false),
    col("richness", Kind::Long, false),
    col("tie_hash", Kind::Long, false),
    col("tie_header", Kind::Long, false),
    col("order_file", Kind::Text, false),
    col("order_index", Kind::Long, false),
    col("hash", Kind::Long, false),
    col("variant", Kind::Int, false),
    col("source_file", Kind::Text, false),
    col("source_index", Kind::Long, false),
    col("event", Kind::Text, true),
    col("site", Kind::Text, true),
    col("round", Kind::Text, true),
    col("date", Kind::Text, true),
    col("first", Kind::Text, true),
    col("second", Kind::Text, true),
    col("first_rating", Kind::Long, true),
    col("second_rating", Kind::Long, true),
    col("result", Kind::Int, false),
    col("ecco", Kind::Text, true),
    col("opening", Kind::Text, true),
    col("variation", Kind::Text, true),
    col("first_formation", Kind::Text, true),
    col("second_formation", Kind::Text, true),
    col("start_fen", Kind::Text, true),
    col("moves", Kind::Bytes, false),
    col("time_base", Kind::Long, true),
    col("time_increment", Kind::Long, true),
    col("speed", Kind::Int, true),
    col("mode", Kind::Int, true),
    col("termination", Kind::Int, true),
    col("label", Kind::Text, true),
    col("max_ply", Kind::Long, false),
    col("bucket", Kind::Long, false),
    col("month", Kind::Long, false),
    col("day", Kind::Int, false),
    col("year", Kind::Long, true),
    col("history_month", Kind::Long, true),
    col("top_score", Kind::Long, false),
    col("ending", Kind::Int, false),
    // The ply of the bad move a game was cut before (`games.truncated_ply`); null if whole.
    col("truncated_ply", Kind::Long, true),
];

/// The columns of `facts/positions`: the game's identity, the position's key (the store's
/// signed rowid) and the move code played there (`Move::to_u16`, 65535 = the game ended
/// there).
pub const POSITION_COLUMNS: &[ColumnDef] = &[
    col("identity", Kind::Long, false),
    col("key", Kind::Long, false),
    col("mv", Kind::Int, false),
];

/// A file's place in the order `qipu import` reads its input: the rank of the command-line
/// argument it was found under (zero-padded, so that text order is number order), a 0 byte,
/// the components of its absolute path (relative paths taken from the current folder, `.`
/// and `..` resolved in the text, symbolic links left as they are) joined by a 0 byte (so
/// that text order is the component order of a folder walk), then 1 and the rank of the
/// member within its archive (0 for a plain file). The key follows the order of the
/// arguments, as the import does, and does not depend on the folder emit runs in or on how a
/// path is spelled: shards emitted apart (each with `--input-rank`, the place of its first
/// argument in the whole list) concatenate to one emit, and the ids are those of the import
/// of the same arguments in the same order (see `spark/README.md`).
///
/// ```
/// use qipu::bulk::order_key;
/// assert!(order_key(0, "a/b.pgn", 0) < order_key(0, "a-c/d.pgn", 0)); // "a" before "a-c"
/// assert!(order_key(0, "x.zip", 2) < order_key(0, "x.zip", 10));
/// assert_eq!(order_key(3, "a/./c/../b.pgn", 0), order_key(3, "a/b.pgn", 0));
/// assert!(order_key(1, "z.pgn", 0) < order_key(2, "a.pgn", 0)); // the arguments' order first
/// assert!(order_key(9, "z.pgn", 0) < order_key(10, "a.pgn", 0));
/// ```
pub fn order_key(rank: u32, path: &str, member: u32) -> String {
    let given = Path::new(path);
    let absolute = std::path::absolute(given).unwrap_or_else(|_| given.to_path_buf());
    let mut parts: Vec<String> = Vec::new();
    for c in absolute.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                if parts.len() > 1 {
                    parts.pop();
                }
            }
            c => parts.push(c.as_os_str().to_string_lossy().into_owned()),
        }
    }
    format!("{rank:010}\0{}\u{1}{member:010}", parts.join("\0"))
}

/// Order keys of the files chunks come from, in reading order: a file on disk is its own
/// path; a member `archive:inner` (an archive on disk, then `:` and the member's name) takes
/// its archive's path and its rank among the archive's members as the reader gives them
/// (sorted by name, as the text of the name sorts). `rank` is the place of the argument the
/// files are read under.
#[derive(Default)]
struct FileOrder {
    rank: u32,
    last: String,
    key: String,
    archive: Option<String>,
    member: u32,
}

impl FileOrder {
    fn of(&mut self, rank: u32, file: &str) -> &str {
        if file != self.last || rank != self.rank {
            self.last = file.to_string();
            self.rank = rank;
            let archive = if Path::new(file).is_file() {
                None
            } else {
                file.match_indices(':')
                    .map(|(i, _)| &file[..i])
                    .find(|prefix| Path::new(prefix).is_file())
            };
            self.key = match archive {
                Some(a) => {
                    if self.archive.as_deref() != Some(a) {
                        self.archive = Some(a.to_string());
                        self.member = 0;
                    }
                    self.member = self.member.saturating_add(1);
                    order_key(rank, a, self.member)
                }
                None => {
                    self.archive = None;
                    order_key(rank, file, 0)
                }
            };
        }
        &self.key
    }
}

/// What `qipu emit` did.
#[derive(Debug, Default)]
pub struct EmitReport {
    /// Games read (replayable or not).
    pub games_read: u64,
    /// Game rows written.
    pub emitted: u64,
    /// Position rows written.
    pub positions: u64,
    /// Games that could not be read or replayed.
    pub rejected: u64,
    /// Every error: rejected games and unreadable files (`game == None`).
    pub errors: Vec<GameError>,
    /// The games kept up to a bad move (also emitted), each one's error.
    pub truncated: Vec<GameError>,
}

/// A name for this run's part files that another machine's run does not take.
fn run_name() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    h.write_u32(std::process::id());
    format!("part-{:016x}.parquet", h.finish())
}

fn game_row(r: &GameRecord, order_file: &str) -> Vec<Value> {
    let t = &r.tags;
    let c = wire::counted_facts(r);
    let text = |s: &Option<String>| Value::text(s.as_deref());
    let small = |v: Option<u8>| Value::int(v.map(i64::from));
    vec![
        Value::Int(identity(r) as i64),
        Value::Int(richness(r)),
        Value::Int(tie_break(r)[0]),
        Value::Int(tie_break(r)[1]),
        Value::text(Some(order_file)),
        Value::Int(r.source.index as i64),
        Value::Int(r.hash as i64),
        Value::Int(wire::variant_code(r.variant)),
        Value::text(Some(&r.source.file)),
        Value::Int(r.source.index as i64),
        text(&t.event),
        text(&t.site),
        text(&t.round),
        text(&t.date),
        text(&t.first),
        text(&t.second),
        Value::int(t.first_rating.map(i64::from)),
        Value::int(t.second_rating.map(i64::from)),
        Value::Int(wire::result_code(r.result)),
        text(&t.ecco),
        text(&t.opening),
        text(&t.variation),
        text(&t.first_formation),
        text(&t.second_formation),
        text(&r.start_fen),
        Value::Bytes(wire::pack_moves(&r.moves)),
        Value::int(t.time_control.map(|c| i64::from(c.base_secs))),
        Value::int(t.time_control.map(|c| i64::from(c.increment_secs))),
        small(t.speed.map(Speed::code)),
        small(t.mode.map(Mode::code)),
        small(t.termination.map(Termination::code)),
        text(&r.opening_label),
        Value::Int(r.max_ply as i64),
        Value::Int(i64::from(c.bucket)),
        Value::Int(i64::from(c.month)),
        Value::Int(i64::from(c.day)),
        Value::int(c.year.map(i64::from)),
        Value::int(c.history_month.map(i64::from)),
        // At most 99,999 × 10^8 + 99,999,999: a long.
        Value::Int(i64::try_from(c.top_score).unwrap_or(i64::MAX)),
        Value::Int(i64::from(c.ending)),
        Value::int(r.truncated_ply().map(|p| p as i64)),
    ]
}

/// A game row back as the record `qipu import` would have stored (its positions listed by
/// replaying its moves when `with_positions`).
fn record_of(row: &Row<'_>, with_positions: bool) -> Result<GameRecord, BulkError> {
    let int = |name: &str| row.need_int(name);
    let small = |name: &str| -> Result<Option<u8>, BulkError> {
        row.int(name)?
            .map(|v| u8::try_from(v).map_err(|_| row.error(name, "out of range")))
            .transpose()
    };
    let rating = |name: &str| -> Result<Option<u32>, BulkError> {
        row.int(name)?
            .map(|v| u32::try_from(v).map_err(|_| row.error(name, "out of range")))
            .transpose()
    };
    let variant = wire::variant_from_code(int("variant")?)
        .ok_or_else(|| row.error("variant", "unknown code"))?;
    let moves = row
        .bytes("moves")?
        .and_then(|b| wire::unpack_moves(&b))
        .ok_or_else(|| row.error("moves", "not a packed move list"))?;
    let max_ply = usize::try_from(int("max_ply")?).map_err(|_| row.error("max_ply", "negative"))?;
    let secs = |name: &str| -> Result<Option<u32>, BulkError> { rating(name) };
    let time_control = match (secs("time_base")?, secs("time_increment")?) {
        (Some(base_secs), Some(increment_secs)) => Some(TimeControl {
            base_secs,
            increment_secs,
        }),
        _ => None,
    };
    let start_fen = row.text("start_fen")?;
    let tags = Tags {
        event: row.text("event")?,
        site: row.text("site")?,
        round: row.text("round")?,
        date: row.text("date")?,
        first: row.text("first")?,
        second: row.text("second")?,
        first_rating: rating("first_rating")?,
        second_rating: rating("second_rating")?,
        ecco: row.text("ecco")?,
        opening: row.text("opening")?,
        variation: row.text("variation")?,
        first_formation: row.text("first_formation")?,
        second_formation: row.text("second_formation")?,
        time_control,
        speed: small("speed")?.and_then(Speed::from_code),
        mode: small("mode")?.and_then(Mode::from_code),
        termination: small("termination")?.and_then(Termination::from_code),
        ..Tags::default()
    };
    let positions = if with_positions {
        let start = match &start_fen {
            None => AnyPosition::new(variant),
            Some(f) => AnyPosition::from_fen(variant, f)
                .map_err(|e| row.error("start_fen", &e.to_string()))?,
        };
        distinct_positions(&start, &moves, max_ply)
            .into_iter()
            .map(|(k, m)| (PositionKey(k), m))
            .collect()
    } else {
        Vec::new()
    };
    Ok(GameRecord {
        variant,
        hash: int("hash")? as u64,
        source: Source {
            file: row
                .text("source_file")?
                .ok_or_else(|| row.error("source_file", "null"))?,
            index: usize::try_from(int("source_index")?)
                .map_err(|_| row.error("source_index", "negative"))?,
        },
        tags,
        result: wire::result_from_code(int("result")?),
        start_fen,
        moves,
        max_ply,
        positions,
        opening_label: row.text("label")?,
        truncated: truncated(row)?,
    })
}

/// A truncated game's mark, back from its row: the ply it was cut before (its error's
/// reason is not emitted). The column is absent from the output of an emit of before it:
/// such games are whole.
fn truncated(row: &Row<'_>) -> Result<Option<Box<GameError>>, BulkError> {
    let ply = match row.int("truncated_ply") {
        Ok(p) => p,
        Err(_) if !row.has("truncated_ply") => None,
        Err(e) => return Err(e),
    };
    let Some(ply) = ply else { return Ok(None) };
    let ply = usize::try_from(ply).map_err(|_| row.error("truncated_ply", "negative"))?;
    let source = Source {
        file: row.text("source_file")?.unwrap_or_default(),
        index: usize::try_from(row.need_int("source_index")?).unwrap_or(0),
    };
    let e = GameError {
        ply: Some(ply),
        ..GameError::new(
            &source,
            ErrorKind::Malformed("kept up to the move before this ply".into()),
        )
    };
    Ok(Some(Box::new(e)))
}

/// `qipu emit`: reads every input as `qipu import` does (files, folders, zips, in the same
/// order), replays each game to `max_ply` and writes `out/games/` and `out/positions/`
/// (one new part file each, beside any already there). Rejected games are in the report's
/// `errors`; with `keep_prefix` a game with a bad move is kept up to it, as `qipu import`
/// keeps it ([`GameRecord::from_game_or_prefix`]), and listed in `truncated`. `first_rank` is
/// the place of `paths[0]` among the arguments of the whole input (0 unless this emit is a
/// shard of a larger one: see [`order_key`]).
///
/// # Errors
/// [`BulkError`] if the output cannot be written.
pub fn emit(
    paths: &[PathBuf],
    out: &Path,
    max_ply: usize,
    first_rank: u32,
    keep_prefix: bool,
) -> Result<EmitReport, BulkError> {
    let name = run_name();
    let mut tables = Vec::new();
    for (dir, table, columns) in [
        ("games", "qipu_game", GAME_COLUMNS),
        ("positions", "qipu_position", POSITION_COLUMNS),
    ] {
        let dir = out.join(dir);
        std::fs::create_dir_all(&dir).map_err(|e| BulkError(format!("{}: {e}", dir.display())))?;
        tables.push(TableWriter::create(&dir.join(&name), table, columns)?);
    }
    let (Some(mut position_table), Some(mut game_table)) = (tables.pop(), tables.pop()) else {
        return Err(BulkError("no table".into()));
    };
    let mut report = EmitReport::default();
    let mut numbers = GameNumbers::default();
    let mut order = FileOrder::default();
    let ranks = (0u32..).map(|i| first_rank.saturating_add(i));
    let mut input = paths
        .iter()
        .zip(ranks)
        .flat_map(|(p, rank)| chunks(p).map(move |c| (rank, c)))
        .peekable();
    while input.peek().is_some() {
        // A round of chunks, read and replayed in parallel, kept in input order.
        let mut round: Vec<(u32, Chunk)> = Vec::new();
        let mut bytes = 0;
        while bytes < 4 * CHUNK_BYTES {
            let Some(p) = input.next() else { break };
            bytes += p.1.size().max(1);
            round.push(p);
        }
        type Read = (u32, Chunk, Vec<Result<GameRecord, GameError>>);
        let done: Vec<Read> = round
            .into_par_iter()
            .map(|(rank, p)| {
                let records = p
                    .read()
                    .into_iter()
                    .map(|g| {
                        g.and_then(|g| {
                            if keep_prefix {
                                GameRecord::from_game_or_prefix(&g, max_ply)
                            } else {
                                GameRecord::from_game(&g, max_ply)
                            }
                        })
                    })
                    .collect();
                (rank, p, records)
            })
            .collect();
        for (rank, chunk, mut items) in done {
            numbers.place(&chunk, &mut items);
            for item in items {
                match item {
                    Ok(r) => {
                        report.games_read += 1;
                        report.emitted += 1;
                        if let Some(e) = &r.truncated {
                            let mut e = GameError::clone(e);
                            e.game = Some(r.source.index);
                            report.truncated.push(e);
                        }
                        let key = order.of(rank, &r.source.file);
                        game_table.push(game_row(&r, key))?;
                        let id = identity(&r) as i64;
                        for &(k, mv) in &r.positions {
                            position_table.push(vec![
                                Value::Int(id),
                                Value::Int(k.to_rowid()),
                                Value::Int(i64::from(
                                    mv.map_or(crate::store::END_OF_GAME, Move::to_u16),
                                )),
                            ])?;
                            report.positions += 1;
                        }
                    }
                    Err(e) => {
                        if e.game.is_some() {
                            report.games_read += 1;
                            report.rejected += 1;
                        }
                        report.errors.push(e);
                    }
                }
            }
        }
    }
    game_table.finish()?;
    position_table.finish()?;
    Ok(report)
}

/// What `qipu load` did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LoadReport {
    /// Whether the database was written fresh (else the games were added incrementally).
    pub fresh: bool,
    /// Games of the job's output.
    pub games: u64,
    /// New games stored.
    pub imported: u64,
    /// Games already in the database (incremental load).
    pub duplicates: u64,
    /// Positions written (fresh load).
    pub positions: u64,
    /// (position, game) links written (fresh load).
    pub links: u64,
}

/// Games per [`Store::write_batch`] of a load.
const LOAD_BATCH: usize = 20_000;

/// `qipu load`: writes the job's output `dir` (`games/`, `positions/` and the busy
/// positions' reduced statistics, see [`BUSY_TABLES`]) into `store`. A store without games
/// is written fresh: the games in the job's id order, then every position in one pass
/// ([`Store::load_positions`]), a busy one from the job's sums. A store with games gets the
/// new ones as an import batch would add them (deduplicated by content hash, ids after the
/// stored ones, positions merged): their positions are listed again by replaying their
/// moves.
///
/// # Errors
/// [`BulkError`] if a file is unreadable or not the job's output (ids out of order, a
/// missing column), or the store fails.
pub fn load(dir: &Path, store: &mut Store) -> Result<LoadReport, BulkError> {
    let fresh = store.has_no_games()?;
    let mut report = LoadReport {
        fresh,
        ..LoadReport::default()
    };
    let mut batch: Vec<GameRecord> = Vec::with_capacity(LOAD_BATCH);
    let mut write = |batch: &mut Vec<GameRecord>,
                     report: &mut LoadReport|
     -> Result<(), BulkError> {
        let out = store.write_batch(batch)?;
        if fresh && out.duplicates > 0 {
            return Err(BulkError(format!(
                "{}: a game repeats (same content hash): not the deduplicated output of spark/build.py",
                dir.join("games").display()
            )));
        }
        report.imported += out.imported;
        report.duplicates += out.duplicates;
        batch.clear();
        Ok(())
    };
    read_table(&dir.join("games"), |row| {
        let id = row.need_int("id")?;
        report.games += 1;
        if id != report.games as i64 {
            return Err(row.error(
                "id",
                &format!(
                    "{id} where {} was due: games must come by id, 1, 2, …",
                    report.games
                ),
            ));
        }
        batch.push(record_of(row, !fresh)?);
        if batch.len() >= LOAD_BATCH {
            write(&mut batch, &mut report)?;
        }
        Ok(())
    })?;
    if !batch.is_empty() {
        write(&mut batch, &mut report)?;
    }
    if fresh {
        let out = load_positions(dir, store, report.games)?;
        report.positions = out.positions;
        report.links = out.links;
    }
    store.checkpoint()?;
    Ok(report)
}

/// The folders of `stats/` that hold the busy positions' reduced statistics, each sorted by
/// position key: `cells` (the buckets' cells), `moves` (the summary's move rows), `labels`,
/// `top` and `recent` (best and latest games, by rank) and `history` (games per month).
pub const BUSY_TABLES: [&str; 6] = ["cells", "moves", "labels", "top", "recent", "history"];

/// Streams `stats/positions` into [`Store::load_positions`]: a reader thread decodes the
/// Parquet files (column by column, row groups on every core: `parquet::read_int_columns`)
/// while the store writes; the busy positions' tables are read beside it.
fn load_positions(
    dir: &Path,
    store: &mut Store,
    games: u64,
) -> Result<crate::store::LoadOutcome, BulkError> {
    let busy = BusyReader::open(dir)?;
    let positions = dir.join("positions");
    let (tx, rx) = std::sync::mpsc::sync_channel::<Result<Vec<PositionRow>, BulkError>>(8);
    std::thread::scope(|s| {
        let reader = s.spawn(move || {
            let read = parquet::read_int_columns(&positions, &["key", "id", "mv"], |group| {
                let [keys, ids, moves] = &group.columns[..] else {
                    return Err(BulkError("three columns asked, not three read".into()));
                };
                let mut chunk = Vec::with_capacity(keys.len());
                for (i, ((&key, &game), &mv)) in keys.iter().zip(ids).zip(moves).enumerate() {
                    let mv = u16::try_from(mv).map_err(|_| {
                        BulkError(format!(
                            "{} row {}: mv: not a move code",
                            group.file,
                            group.first_row + i as u64
                        ))
                    })?;
                    chunk.push(PositionRow {
                        key: PositionKey::from_rowid(key),
                        game,
                        mv,
                    });
                }
                tx.send(Ok(chunk))
                    .map_err(|_| BulkError("the store stopped".into()))
            });
            if let Err(e) = read {
                let _ = tx.send(Err(e));
            }
        });
        let rows = rx.into_iter().flat_map(|chunk| match chunk {
            Ok(rows) => rows.into_iter().map(Ok).collect::<Vec<_>>(),
            Err(e) => vec![Err(StoreError::Corrupt(e.0))],
        });
        let out = store.load_positions(
            games,
            rows,
            busy.map(|b| b.map_err(|e| StoreError::Corrupt(e.0))),
        );
        drop(reader);
        out.map_err(BulkError::from)
    })
}

/// One table of [`BUSY_TABLES`], taken key by key.
struct Keyed {
    rows: std::iter::Peekable<TableRows>,
}

impl Keyed {
    /// The rows of position `key`, which must come next if the table has any.
    fn take(&mut self, key: i64) -> Result<Vec<parquet::OwnedRow>, BulkError> {
        let mut out = Vec::new();
        loop {
            match self.rows.peek() {
                Some(Ok(row)) if row.view().need_int("key")? == key => {}
                Some(Ok(_)) | None => return Ok(out),
                Some(Err(_)) => {}
            }
            match self.rows.next() {
                Some(Ok(row)) => out.push(row),
                Some(Err(e)) => return Err(e),
                None => return Ok(out),
            }
        }
    }

    /// The key of the next row, if any.
    fn next_key(&mut self) -> Result<Option<i64>, BulkError> {
        match self.rows.peek() {
            None => Ok(None),
            Some(Ok(row)) => row.view().need_int("key").map(Some),
            Some(Err(e)) => Err(BulkError(e.0.clone())),
        }
    }
}

/// The busy positions of the job's output, one [`BusyPosition`] per key of `cells/` in
/// order, with the rows of the other tables of [`BUSY_TABLES`] of the same key; a row of
/// another table whose key has no cells is an error.
struct BusyReader {
    tables: Vec<Keyed>,
    names: Vec<std::path::PathBuf>,
}

impl BusyReader {
    fn open(dir: &Path) -> Result<BusyReader, BulkError> {
        let mut tables = Vec::new();
        let mut names = Vec::new();
        for name in BUSY_TABLES {
            let path = dir.join(name);
            tables.push(Keyed {
                rows: TableRows::open(&path)?.peekable(),
            });
            names.push(path);
        }
        Ok(BusyReader { tables, names })
    }

    fn read(&mut self, key: i64) -> Result<BusyPosition, BulkError> {
        let mut got = Vec::with_capacity(BUSY_TABLES.len());
        for t in &mut self.tables {
            got.push(t.take(key)?);
        }
        let mut b = BusyPosition {
            key: PositionKey::from_rowid(key),
            ..BusyPosition::default()
        };
        for row in &got[0] {
            let r = row.view();
            b.cells.push(CellRow {
                mv: code(&r, "mv")?,
                bucket: narrow(&r, "bucket")?,
                counts: counts(&r)?,
                first_day: narrow(&r, "first_day")?,
                last_day: narrow(&r, "last_day")?,
                first_game: r.need_int("first_game")?,
                endings: r.pairs("endings")?,
            });
        }
        for row in &got[1] {
            let r = row.view();
            b.moves.push(MoveTotal {
                mv: code(&r, "mv")?,
                counts: counts(&r)?,
                first_date: r.text("first_date")?,
                first_game: r.int("first_game")?,
                last_date: r.text("last_date")?,
                year_sum: uint(&r, "year_sum")?,
                dated: uint(&r, "dated")?,
                endings: r.pairs("endings")?,
            });
        }
        for row in &got[2] {
            let r = row.view();
            b.labels.push(OpeningRow {
                label: r.text("label")?.ok_or_else(|| r.error("label", "null"))?,
                games: uint(&r, "games")?,
            });
        }
        for (i, rows) in [&got[3], &got[4]].into_iter().enumerate() {
            for row in rows {
                let r = row.view();
                let g = RankedGame {
                    game: r.need_int("id")?,
                    mv: code(&r, "mv")?,
                    bucket: narrow(&r, "bucket")?,
                    score: uint(&r, if i == 0 { "score" } else { "day" })?,
                };
                if i == 0 { &mut b.top } else { &mut b.recent }.push(g);
            }
        }
        for row in &got[5] {
            let r = row.view();
            b.history.push((
                narrow(&r, "month")?,
                [
                    uint(&r, "games")?,
                    uint(&r, "first_wins")?,
                    uint(&r, "draws")?,
                    uint(&r, "second_wins")?,
                ],
            ));
        }
        Ok(b)
    }
}

impl Iterator for BusyReader {
    type Item = Result<BusyPosition, BulkError>;

    fn next(&mut self) -> Option<Self::Item> {
        match self.tables[0].next_key() {
            Err(e) => Some(Err(e)),
            Ok(Some(key)) => Some(self.read(key)),
            Ok(None) => {
                // Rows left in another table have a key without cells.
                for (t, name) in self.tables.iter_mut().zip(&self.names).skip(1) {
                    match t.next_key() {
                        Ok(None) => {}
                        Ok(Some(k)) => {
                            return Some(Err(BulkError(format!(
                                "{}: rows of position {} which has no cells (or out of key order)",
                                name.display(),
                                PositionKey::from_rowid(k)
                            ))))
                        }
                        Err(e) => return Some(Err(e)),
                    }
                }
                None
            }
        }
    }
}

/// A non-negative integer column.
fn uint(r: &Row<'_>, name: &str) -> Result<u64, BulkError> {
    u64::try_from(r.need_int(name)?).map_err(|_| r.error(name, "negative"))
}

/// An integer column that fits `T`.
fn narrow<T: TryFrom<i64>>(r: &Row<'_>, name: &str) -> Result<T, BulkError> {
    T::try_from(r.need_int(name)?).map_err(|_| r.error(name, "out of range"))
}

/// A move code column.
fn code(r: &Row<'_>, name: &str) -> Result<u16, BulkError> {
    narrow(r, name)
}

/// The games, results and rating sums of a cell or move row.
fn counts(r: &Row<'_>) -> Result<GameCounts, BulkError> {
    Ok(GameCounts {
        games: uint(r, "games")?,
        first_wins: uint(r, "first_wins")?,
        draws: uint(r, "draws")?,
        second_wins: uint(r, "second_wins")?,
        rating_sum: uint(r, "rating_sum")?,
        rating_count: uint(r, "rating_count")?,
        first_rating_sum: uint(r, "first_rating_sum")?,
        first_rating_count: uint(r, "first_rating_count")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::read_path;

    #[test]
    fn an_emitted_game_reads_back_as_the_record_import_stores() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in");
        std::fs::create_dir_all(input.join("sub")).unwrap();
        let pgn = "[Event \"E\"]\n[Red \"红 A\"]\n[Black \"B\"]\n[Date \"2021.03.04\"]\n[RedElo \"2310\"]\n\
                   [TimeControl \"180+2\"]\n[Result \"1-0\"]\n\n1. h2e2 h9g7 2. h0g2 i9h9 1-0\n\n\
                   [FEN \"rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 0 1\"]\n\n1... h9g7 *\n";
        std::fs::write(input.join("sub/b.pgn"), pgn).unwrap();
        std::fs::write(input.join("a.pgn"), "1. c3c4 *\n").unwrap();
        let out = dir.path().join("facts");
        let report = emit(std::slice::from_ref(&input), &out, 3, 0, true).unwrap();
        assert_eq!((report.emitted, report.rejected), (3, 0));
        let want: Vec<GameRecord> = read_path(&input)
            .map(|g| {
                let mut r = GameRecord::from_game(&g.unwrap(), 3).unwrap();
                r.tags.result = None; // kept as the record's result
                r
            })
            .collect();
        let mut got = Vec::new();
        let mut keys = Vec::new();
        read_table(&out.join("games"), |row| {
            got.push(record_of(row, true)?);
            keys.push((
                row.text("order_file")?.unwrap_or_default(),
                row.need_int("order_index")?,
            ));
            assert_eq!(row.need_int("identity")?, row.need_int("hash")?);
            Ok(())
        })
        .unwrap();
        assert_eq!(got, want);
        // Import order: a.pgn, then sub/b.pgn's two games.
        let mut sorted = keys.clone();
        sorted.sort();
        assert_eq!(keys, sorted);
        let mut positions = 0;
        read_table(&out.join("positions"), |row| {
            assert!(want
                .iter()
                .any(|r| r.hash as i64 == row.need_int("identity").unwrap()
                    && r.positions
                        .iter()
                        .any(|p| p.0.to_rowid() == row.need_int("key").unwrap())));
            positions += 1;
            Ok(())
        })
        .unwrap();
        assert_eq!(
            positions,
            want.iter().map(|r| r.positions.len()).sum::<usize>()
        );
    }

    #[test]
    fn the_order_of_an_emit_is_the_arguments_order_whatever_the_sharding_and_path_spelling() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::create_dir_all(a.join("x")).unwrap();
        std::fs::create_dir_all(&b).unwrap();
        let two =
            |m: &str, n: &str| format!("[Event \"1\"]\n\n1. {m} *\n\n[Event \"2\"]\n\n1. {n} *\n");
        std::fs::write(a.join("x/1.pgn"), two("h2e2 h9g7", "c3c4")).unwrap();
        std::fs::write(a.join("2.pgn"), "1. b2e2 *\n").unwrap();
        std::fs::write(b.join("3.pgn"), two("h0g2", "g3g4")).unwrap();
        // (order key, hash) of each game row of an emit, sorted as the job sorts them.
        let keys = |out: &Path| {
            let mut keys = Vec::new();
            read_table(&out.join("games"), |row| {
                keys.push((
                    row.text("order_file")?.unwrap_or_default(),
                    row.need_int("order_index")?,
                    row.need_int("hash")?,
                ));
                Ok(())
            })
            .unwrap();
            keys.sort();
            keys
        };
        let one = dir.path().join("one");
        emit(&[b.clone(), a.clone()], &one, 10, 0, true).unwrap();
        // Two shards, the second emitted first, each told its first argument's place, with
        // its path spelled another way.
        let shards = dir.path().join("shards");
        emit(&[a.join("x/..")], &shards, 10, 1, true).unwrap();
        emit(&[b.join("./")], &shards, 10, 0, true).unwrap();
        let got = keys(&one);
        assert_eq!(got.len(), 5);
        assert_eq!(got, keys(&shards));
        // The job's order is the import's of the arguments in their order: b/, then a/.
        let want: Vec<i64> = read_path(&b)
            .chain(read_path(&a))
            .map(|g| GameRecord::from_game(&g.unwrap(), 10).unwrap().hash as i64)
            .collect();
        assert_eq!(got.iter().map(|k| k.2).collect::<Vec<_>>(), want);
    }

    #[test]
    fn order_keys_sort_as_the_folder_walk_and_archive_members_follow_their_archive() {
        let dir = tempfile::tempdir().unwrap();
        let path = |name: &str| dir.path().join(name).display().to_string();
        for f in ["a.zip", "a.zip2.pgn", "b.pgn"] {
            std::fs::write(dir.path().join(f), "x").unwrap();
        }
        let mut order = FileOrder::default();
        // The reader's order: a.zip's members (sorted by name), a.zip2.pgn, b.pgn.
        let got: Vec<String> = [
            format!("{}:d-e.pgn", path("a.zip")),
            format!("{}:d/x.pgn", path("a.zip")),
            path("a.zip2.pgn"),
            path("b.pgn"),
        ]
        .iter()
        .map(|f| order.of(0, f).to_string())
        .collect();
        let mut sorted = got.clone();
        sorted.sort();
        assert_eq!(got, sorted);
        assert!(order_key(0, "x/y/z.pgn", 0) < order_key(0, "x/y-z.pgn", 0));
        assert!(order_key(0, "x-y.pgn", 0) > order_key(0, "x/y.pgn", 0));
        // A second argument's files follow the first's, whatever their paths.
        assert!(order_key(0, "z/z.pgn", 9) < order_key(1, "a.pgn", 0));
    }
}
