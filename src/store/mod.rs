//! The SQLite store: games and position→move statistics. The only module that knows SQL.
//!
//! Where things are: the values it takes and answers in `model.rs` (no SQL, no blob; how a
//! game is counted in `model/counts.rs`); each blob format in its own file with its frozen
//! layout (`links.rs`, `summary.rs`, `ranges.rs`, `lists.rs`, `codec.rs` for moves, results
//! and the content hash; the buckets in `buckets.rs`, which writes them in
//! `buckets/encode.rs`, walks their parts in `buckets/walk.rs`, answers from them in
//! `buckets/sum.rs` and keeps the old formats only the migrations read in
//! `buckets/legacy.rs`); every SQL statement in `sql.rs`; reading a position's rows in
//! `read.rs`, the questions about a position in `read/position.rs`, stored games and
//! whole-database reads in `read/games.rs`; writing batches in `write.rs` (what a batch
//! reports in `write/outcome.rs`), the segments' tables in `segments.rs` and their compaction in
//! `compact.rs`, the bulk load in `load.rs` (its value codes for files
//! outside a database in `load/wire.rs`), migrations in `migrate.rs`. The store does not
//! replay games: the pipeline hands it finished [`GameRecord`]s (built by
//! `GameRecord::from_game` in `pipeline/record.rs`). It may use `formats` and `rules`
//! (values, and replaying stored games in a migration), never the pipeline, the explorer or
//! anything above.
//!
//! The schema lives in `schema/*.sql` (forward migrations, applied in order; `PRAGMA
//! user_version` is the number of the last one applied) and is described in `schema/README.md`.
//! The database runs in WAL mode; every import batch is one transaction holding its games
//! *and* their statistics, so a killed import leaves a consistent database and re-running it
//! finishes the job exactly (games already stored are recognised by their content hash).
//!
//! ```
//! use qipu::store::{GameRecord, Store};
//! use qipu::formats::{Game, MoveNode, Source};
//! use qipu::rules::Variant;
//!
//! let mut store = Store::open_in_memory()?;
//! let mut game = Game::new(Variant::Xiangqi, Source::default());
//! game.moves = vec![MoveNode::new("h2e2"), MoveNode::new("h9g7")];
//! let record = GameRecord::from_game(&game, 40).unwrap();
//! let outcome = store.write_batch(&[record])?;
//! assert_eq!(outcome.imported, 1);
//! assert_eq!(store.max_ply()?, Some(40));
//! let start = qipu::store::PositionKey(qipu::rules::AnyPosition::new(Variant::Xiangqi).key());
//! let rows = store.position(start)?;
//! assert_eq!(rows.len(), 1);
//! assert_eq!(rows[0].mv.unwrap().to_string(), "h2e2");
//! # Ok::<_, qipu::store::StoreError>(())
//! ```

mod buckets;
mod codec;
mod compact;
pub mod copies;
mod decisions;
mod dossier;
pub mod evals;
mod filter;
mod game_facts;
mod guard;
mod links;
mod lists;
mod load;
mod migrate;
mod model;
mod persons;
mod players;
mod ranges;
mod read;
mod segments;
mod sql;
mod suggest;
mod summary;
mod varint;
mod write;

use std::{collections::HashMap, fmt, path::Path};

use rusqlite::{Connection, OpenFlags};

pub use codec::{content_hash, END_OF_GAME};
pub use compact::{CompactOutcome, COMPACT_FACTOR};
pub use decisions::Decision;
pub use dossier::{PersonGame, PersonName};
pub use filter::{band_floor, rating_band, BucketFilter, Month};
pub use guard::{APPLICATION_ID, WAL_KEPT_BYTES};
pub use load::{wire, BusyPosition, CellRow, LoadOutcome, MoveTotal, PositionRow, RankedGame};
pub use model::{
    is_real_name, top_score, DbStats, GameCounts, GameRecord, GameThrough, MonthCounts, MoveRow,
    OpeningRow, Played, PlayerCounts, PlayerRow, PositionKey, PositionStats, StoredGame,
    VariantCount, ENDINGS,
};
pub use persons::{PersonsOutcome, Spelling};
pub use read::GamesIter;
pub use segments::SEGMENT_GAMES;
pub use suggest::{SuggestedPerson, Suggestion};
pub use summary::{LIST_MAX, TOP_KEPT};
pub use write::{BatchBytes, BatchOutcome, BatchTimings};

/// Default depth limit: 40 plies (20 moves each) covers the opening and early middlegame. A
/// database records the limit it was built with ([`Store::max_ply`]); the import and the
/// CLI use this one unless told otherwise.
pub const DEFAULT_MAX_PLY: usize = 40;

/// Schema version this build reads and writes (the number of files in `schema/`).
pub const SCHEMA_VERSION: i64 = migrate::MIGRATIONS.len() as i64;

/// A database error.
#[derive(Debug)]
pub enum StoreError {
    /// SQLite failed (I/O, locking, corruption, constraint).
    Sqlite(rusqlite::Error),
    /// The file's schema cannot be used by this build (too new, or read-only and too old).
    Schema(String),
    /// A stored value is not what qipu writes (e.g. a bad move code).
    Corrupt(String),
    /// An import asked for a setting that contradicts the database (e.g. another `max_ply`).
    Setting(String),
    /// A schema migration failed: the migration's name, and SQLite's error.
    Migration {
        /// The migration (`schema/` file name without `.sql`).
        name: &'static str,
        /// SQLite's error.
        source: rusqlite::Error,
    },
    /// SQLite found the file damaged: its path, and SQLite's error.
    Damaged {
        /// The database file.
        path: std::path::PathBuf,
        /// SQLite's error.
        source: rusqlite::Error,
    },
    /// A stored game's start position does not read: the game's id, and why.
    StartPosition {
        /// The game's id.
        game: i64,
        /// Why the stored FEN is not a position.
        source: crate::rules::PositionError,
    },
    /// A caller's callback failed (e.g. writing the CSV of an export): what it was doing,
    /// and its error.
    Callback {
        /// What the callback was doing (`writing CSV`).
        doing: &'static str,
        /// Its error.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::Sqlite(e) => write!(f, "database: {e}"),
            StoreError::Schema(m) | StoreError::Corrupt(m) | StoreError::Setting(m) => {
                write!(f, "database: {m}")
            }
            StoreError::Migration { name, source } => {
                write!(f, "database: migration {name}: {source}")
            }
            StoreError::Damaged { path, source } => write!(
                f,
                "database: {} is damaged ({source}); restore a copy or import into a new file",
                path.display()
            ),
            StoreError::StartPosition { game, source } => {
                write!(f, "database: game {game}: start position: {source}")
            }
            StoreError::Callback { doing, source } => write!(f, "database: {doing}: {source}"),
        }
    }
}

impl std::error::Error for StoreError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StoreError::Sqlite(e)
            | StoreError::Migration { source: e, .. }
            | StoreError::Damaged { source: e, .. } => Some(e),
            StoreError::StartPosition { source, .. } => Some(source),
            StoreError::Callback { source, .. } => Some(source.as_ref()),
            StoreError::Schema(_) | StoreError::Corrupt(_) | StoreError::Setting(_) => None,
        }
    }
}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> StoreError {
        StoreError::Sqlite(e)
    }
}

/// How much of the file a read-only connection maps into memory (`PRAGMA mmap_size`; SQLite
/// caps it at its own limit, 2 GiB on Linux, and reads the rest as before). Mapped pages
/// come from the operating system's page cache, which every connection of the process
/// shares, without a copy and without SQLite's page cache: this build's SQLite keeps one
/// page cache for all connections (`SQLITE_ENABLE_MEMORY_MANAGEMENT`), behind one mutex, and
/// `serve`'s workers queued on it (at 1M games, 16 connections: 1,163 → 515 µs of server
/// CPU a request). Pages still in the `-wal` file are read as before.
const READ_MMAP_BYTES: i64 = 1 << 40;

/// An open qipu database.
#[derive(Debug)]
pub struct Store {
    conn: Connection,
    /// The `sources` table by path, read at the first batch an import writes.
    sources: Option<HashMap<String, i64>>,
    /// The segment whose tables the statistics statements address (`store::segments`).
    tables: std::cell::RefCell<std::sync::Arc<segments::Tables>>,
    /// Every player's name by the keys the person rules compare, kept between an import's
    /// batches (`store::persons`): read from the table at the first batch, then kept up to
    /// date with each batch's names, and dropped when a batch fails.
    name_index: std::cell::RefCell<Option<crate::formats::persons::NameIndex>>,
}

impl Store {
    fn on(conn: Connection) -> Store {
        // Each segment's statements are statements of their own.
        conn.set_prepared_statement_cache_capacity(256);
        Store {
            conn,
            sources: None,
            tables: std::cell::RefCell::new(std::sync::Arc::new(segments::Tables::of(1))),
            name_index: std::cell::RefCell::default(),
        }
    }

    /// Opens (creating it if needed) a database for reading and writing, in WAL mode, and
    /// applies pending migrations. An existing file must be qipu's and sound (see
    /// `store::guard`) before anything is written to it; several processes may create the same
    /// new database at once.
    ///
    /// # Errors
    /// [`StoreError`] if the file cannot be opened, is not a qipu database, is damaged, or its
    /// schema is newer than this build.
    pub fn open(path: impl AsRef<Path>) -> Result<Store, StoreError> {
        let path = path.as_ref();
        let conn = Connection::open(path)?;
        conn.busy_timeout(std::time::Duration::from_secs(10))?;
        let owner = guard::owner(&conn, path).map_err(|e| match e {
            StoreError::Schema(m) => StoreError::Schema(format!(
                "{m}: qipu writes only to its own databases; give --db a new file name"
            )),
            e => e,
        })?;
        if owner == guard::Owner::Nobody {
            guard::free_pages_on_request(&conn)?;
        } else {
            guard::quick_check(&conn, path)?;
        }
        guard::enter_wal(&conn)?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        // After a checkpoint the WAL is cut back to this size (it keeps its largest size
        // otherwise).
        conn.pragma_update(None, "journal_size_limit", guard::WAL_KEPT_BYTES)?;
        conn.pragma_update(None, "cache_size", -262_144)?; // 256 MiB
        conn.pragma_update(None, "temp_store", "MEMORY")?;
        let store = Store::on(conn);
        guard::migrate_racing(&store.conn, || migrate::migrate(&store))?;
        guard::claim(&store.conn)?;
        Ok(store)
    }

    /// Opens an existing database read-only (for `explore`, `export`, `serve`). Several
    /// read-only handles may be open while an import writes. On storage where the `-wal` and
    /// `-shm` files cannot be created (a read-only folder or mount), the file is read
    /// immutable: alone, without locks.
    ///
    /// # Errors
    /// [`StoreError`] if the file is missing, not a qipu database, or of another schema
    /// version.
    pub fn open_read_only(path: impl AsRef<Path>) -> Result<Store, StoreError> {
        let path = path.as_ref();
        let ready = |conn: Connection| -> Result<Connection, StoreError> {
            conn.busy_timeout(std::time::Duration::from_secs(10))?;
            // First whose the file is: a file that is not a database is named as such.
            guard::owner(&conn, path)?;
            conn.pragma_update(None, "cache_size", -65_536)?;
            conn.pragma_update(None, "mmap_size", READ_MMAP_BYTES)?;
            migrate::check_read_only(&conn)?;
            Ok(conn)
        };
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        match ready(conn) {
            Ok(conn) => Ok(Store::on(conn)),
            Err(e) if guard::needs_immutable(&e) && path.is_file() => {
                Ok(Store::on(ready(guard::open_immutable(path)?)?))
            }
            Err(e) => Err(e),
        }
    }

    /// Runs `f` inside one read transaction: everything it reads is one snapshot of the
    /// database (a commit of another connection meanwhile is not seen half), and the WAL
    /// read lock is taken once, not at every statement (with `serve`'s workers, taking it
    /// was a mutex shared by every connection of the process, a fifth of the CPU of a
    /// request). Inside a transaction already open on this connection, `f` simply runs in
    /// it.
    ///
    /// ```
    /// let store = qipu::store::Store::open_in_memory()?;
    /// let n = store.snapshot(|| store.max_ply())?;
    /// assert_eq!(n, None);
    /// # Ok::<_, qipu::store::StoreError>(())
    /// ```
    ///
    /// # Errors
    /// What `f` returns, or [`StoreError`] (converted) if the transaction cannot be begun
    /// or ended.
    pub fn snapshot<T, E: From<StoreError>>(
        &self,
        f: impl FnOnce() -> Result<T, E>,
    ) -> Result<T, E> {
        if !self.conn.is_autocommit() {
            return f();
        }
        self.conn
            .execute_batch(sql::BEGIN_READ)
            .map_err(|e| E::from(e.into()))?;
        let out = f();
        let end = self.conn.execute_batch(sql::END_READ);
        match (out, end) {
            (Ok(_), Err(e)) => Err(E::from(e.into())),
            (out, _) => out,
        }
    }

    /// A fresh database in memory (tests, doc examples).
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails.
    pub fn open_in_memory() -> Result<Store, StoreError> {
        let store = Store::on(Connection::open_in_memory()?);
        migrate::migrate(&store)?;
        guard::claim(&store.conn)?;
        Ok(store)
    }

    /// The depth limit the database was built with (`Some(0)` = whole games), `None` before
    /// the first import.
    ///
    /// # Errors
    /// [`StoreError`] if the stored value is unreadable.
    pub fn max_ply(&self) -> Result<Option<usize>, StoreError> {
        match self.meta("max_ply")? {
            None => Ok(None),
            Some(v) => v
                .parse()
                .map(Some)
                .map_err(|_| StoreError::Corrupt(format!("meta max_ply = `{v}`"))),
        }
    }

    /// Records the depth limit on the first import; later imports must use the same one,
    /// otherwise the statistics would mix depths.
    ///
    /// # Errors
    /// [`StoreError::Setting`] if the database was built with another limit.
    pub fn fix_max_ply(&mut self, max_ply: usize) -> Result<(), StoreError> {
        if self.max_ply()?.is_none() {
            // Two imports starting on a new file may both get here: the first one's limit
            // stays, and the other is checked against it below.
            self.conn
                .execute(sql::META_SET, ["max_ply", &max_ply.to_string()])?;
        }
        match self.max_ply()? {
            Some(m) if m == max_ply => Ok(()),
            Some(m) => Err(StoreError::Setting(format!(
                "this database was built with --max-ply {m}; import with the same limit or into a new database"
            ))),
            None => Err(StoreError::Corrupt("meta max_ply was not recorded".into())),
        }
    }

    /// Moves the WAL's content into the main file and truncates the WAL (end of an import),
    /// so that the file alone holds the database and its size is the real size.
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails.
    pub fn checkpoint(&self) -> Result<(), StoreError> {
        self.conn.query_row(sql::CHECKPOINT, [], |_| Ok(()))?;
        // No `PRAGMA optimize`: every query goes by rowid, and its statistics tables would
        // take two pages.
        Ok(())
    }

    /// Sizes SQLite's page cache to about `bytes` (the import's share of its memory budget,
    /// [`crate::pipeline::Budget`]).
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails.
    pub fn set_cache_bytes(&self, bytes: u64) -> Result<(), StoreError> {
        // A negative size is in KiB.
        let kib = i64::try_from(bytes >> 10).unwrap_or(i64::MAX);
        self.conn.pragma_update(None, "cache_size", -kib)?;
        Ok(())
    }

    fn meta(&self, name: &str) -> Result<Option<String>, StoreError> {
        use rusqlite::OptionalExtension;
        Ok(self
            .conn
            .query_row(sql::META_GET, [name], |r| r.get(0))
            .optional()?)
    }
}
