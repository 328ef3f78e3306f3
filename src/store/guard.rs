//! What a file must be before qipu writes to it, and how a database on storage qipu cannot
//! write is read. Owns the application id, the check before writing, the retry of a schema
//! creation that raced another process, and the immutable fallback of a read-only open; it
//! never runs the migrations itself (that is [`super::migrate`]) nor touches a table's rows.
//!
//! - **Whose file**: every database qipu creates carries [`APPLICATION_ID`] in its header
//!   (`PRAGMA application_id`). A file without it is accepted only if it is empty (a new
//!   database) or holds an older qipu schema (`user_version` > 0 and qipu's `games` and `meta`
//!   tables); the id is then set. Anything else is refused before a byte is written.
//! - **Sound**: `PRAGMA quick_check` (every page and index entry, no cross-check of indexes
//!   against tables) runs before an import writes to an existing file; a damaged one is
//!   refused.
//! - **Read-only storage**: a WAL database needs its `-shm` (and `-wal`) files beside it even to
//!   be read. When they cannot be created (a read-only folder or mount), the file is opened
//!   `immutable=1`: SQLite then takes no locks and reads the file alone, which is right for a
//!   file nobody can change.

use std::path::Path;

use rusqlite::{Connection, ErrorCode, OpenFlags};

use super::StoreError;

/// `PRAGMA application_id` of a qipu database: the ASCII bytes `Qipu` (0x51697075).
pub const APPLICATION_ID: i32 = i32::from_be_bytes(*b"Qipu");

/// What the WAL is cut back to after a checkpoint (`PRAGMA journal_size_limit`); SQLite
/// checkpoints after every commit that leaves the WAL over 1,000 pages (4 MiB), so between
/// checkpoints the WAL holds about one import batch.
pub const WAL_KEPT_BYTES: i64 = 64 << 20;

/// What an existing file is, by its header and tables.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Owner {
    /// No tables, no version, no id: a new (or empty) database.
    Nobody,
    /// Carries qipu's id.
    Qipu,
    /// An older qipu database, from before the id (it gets it now).
    OlderQipu,
}

/// A clear message for a file that is not a database or is damaged; other errors as they are.
fn describe(path: &Path, e: rusqlite::Error) -> StoreError {
    match e.sqlite_error_code() {
        Some(ErrorCode::NotADatabase) => StoreError::Schema(format!(
            "{} is not a qipu database: it is not an SQLite file",
            path.display()
        )),
        Some(ErrorCode::DatabaseCorrupt) => StoreError::Damaged {
            path: path.to_path_buf(),
            source: e,
        },
        _ => StoreError::Sqlite(e),
    }
}

/// Whose the file behind `conn` is; refuses a file that is not qipu's, naming it.
///
/// # Errors
/// [`StoreError::Schema`] for another program's database or a non-database file,
/// [`StoreError::Corrupt`] if the file cannot be read.
pub(super) fn owner(conn: &Connection, path: &Path) -> Result<Owner, StoreError> {
    let read = || -> Result<(i32, i64, Vec<String>), rusqlite::Error> {
        // One snapshot: another process may be creating the schema right now.
        let _snapshot = conn.unchecked_transaction()?;
        let id: i32 = conn.query_row("PRAGMA application_id", [], |r| r.get(0))?;
        let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        let mut stmt = conn.prepare(
            "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
        )?;
        let tables = stmt
            .query_map([], |r| r.get(0))?
            .collect::<Result<Vec<String>, _>>()?;
        Ok((id, version, tables))
    };
    let (id, version, tables) = read().map_err(|e| describe(path, e))?;
    let has = |t: &str| tables.iter().any(|n| n == t);
    if id == APPLICATION_ID {
        return Ok(Owner::Qipu);
    }
    if id == 0 && version == 0 && tables.is_empty() {
        return Ok(Owner::Nobody);
    }
    if id == 0 && version > 0 && has("games") && has("meta") {
        return Ok(Owner::OlderQipu);
    }
    let what = if id != 0 {
        format!("application id {id:#010x}")
    } else {
        let mut listed: Vec<&str> = tables.iter().map(String::as_str).take(5).collect();
        if tables.len() > 5 {
            listed.push("…");
        }
        format!("tables {}", listed.join(", "))
    };
    Err(StoreError::Schema(format!(
        "{} is not a qipu database ({what})",
        path.display()
    )))
}

/// At most this long is spent on [`quick_check`]; a bigger file is checked in part (the
/// check walks the tables in order). It reads about 110 MiB/s here: 0.39 s for the 42 MiB
/// database of the whole shared corpus, so 3 s cover about 300 MiB.
pub const QUICK_CHECK_BUDGET: std::time::Duration = std::time::Duration::from_secs(3);

/// `PRAGMA quick_check`: the file's pages and indexes are well-formed (within
/// [`QUICK_CHECK_BUDGET`]).
///
/// # Errors
/// [`StoreError::Corrupt`] naming the file and the first problems found.
pub(super) fn quick_check(conn: &Connection, path: &Path) -> Result<(), StoreError> {
    let (stop, stopped) = std::sync::mpsc::channel::<()>();
    let interrupt = conn.get_interrupt_handle();
    let timer = std::thread::spawn(move || {
        if let Err(std::sync::mpsc::RecvTimeoutError::Timeout) =
            stopped.recv_timeout(QUICK_CHECK_BUDGET)
        {
            interrupt.interrupt();
        }
    });
    let checked = (|| -> Result<Vec<String>, rusqlite::Error> {
        let mut stmt = conn.prepare("PRAGMA quick_check(5)")?;
        let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
        rows.collect()
    })();
    // The timer must be gone before the next statement, which it could interrupt otherwise.
    drop(stop);
    let _ = timer.join();
    let problems = match checked {
        Err(e) if e.sqlite_error_code() == Some(ErrorCode::OperationInterrupted) => return Ok(()),
        other => other.map_err(|e| describe(path, e))?,
    };
    if problems.len() == 1 && problems[0] == "ok" {
        return Ok(());
    }
    Err(StoreError::Corrupt(format!(
        "{} is damaged (quick_check: {}); restore a copy or import into a new file",
        path.display(),
        problems.join("; ")
    )))
}

/// Marks the file as qipu's (after its schema is in place).
pub(super) fn claim(conn: &Connection) -> Result<(), StoreError> {
    let id: i32 = conn.query_row("PRAGMA application_id", [], |r| r.get(0))?;
    if id != APPLICATION_ID {
        conn.pragma_update(None, "application_id", APPLICATION_ID)?;
    }
    Ok(())
}

/// Puts the file in WAL mode. Switching a new file to WAL needs it alone for a moment, and
/// SQLite answers "busy" at once (without waiting) when another process opening the same new
/// file holds it: try again for up to ten seconds, like any other lock.
///
/// # Errors
/// [`StoreError::Sqlite`] when the file stays busy, or for any other failure.
pub(super) fn enter_wal(conn: &Connection) -> Result<(), StoreError> {
    let start = std::time::Instant::now();
    for attempt in 1u64.. {
        match conn.pragma_update(None, "journal_mode", "WAL") {
            Err(e)
                if e.sqlite_error_code() == Some(ErrorCode::DatabaseBusy)
                    && start.elapsed() < std::time::Duration::from_secs(10) =>
            {
                std::thread::sleep(std::time::Duration::from_millis(5 * attempt.min(20)));
            }
            other => return Ok(other?),
        }
    }
    Ok(())
}

/// How many free pages [`release_free_pages`] gives back per transaction (256 MiB of 4 KiB
/// pages): the WAL holds at most that many moved pages before the checkpoint that follows.
const RELEASE_PAGES: u64 = 65_536;

/// Makes a new, still empty file give its free pages back on request (`PRAGMA auto_vacuum =
/// INCREMENTAL`; SQLite accepts it only before the first table, or with a `VACUUM`).
pub(super) fn free_pages_on_request(conn: &Connection) -> Result<(), StoreError> {
    conn.pragma_update(None, "auto_vacuum", "INCREMENTAL")?;
    Ok(())
}

/// Gives the file's free pages back to the file system (`PRAGMA incremental_vacuum`: pages
/// from the end of the file move into the free ones, and the file is cut), [`RELEASE_PAGES`]
/// at a time, each step its own transaction followed by a checkpoint; returns the bytes
/// released. A file made before `auto_vacuum` was set keeps its free pages (a later write
/// reuses them). An interrupted release leaves a sound file with some pages still free.
///
/// # Errors
/// [`StoreError::Sqlite`] if SQLite fails.
pub(super) fn release_free_pages(conn: &Connection) -> Result<u64, StoreError> {
    let pragma = |name: &str| -> Result<u64, StoreError> {
        let n: i64 = conn.query_row(&format!("PRAGMA {name}"), [], |r| r.get(0))?;
        Ok(n.max(0) as u64)
    };
    // 2 = INCREMENTAL.
    if pragma("auto_vacuum")? != 2 {
        return Ok(0);
    }
    let page = pragma("page_size")?;
    let start = pragma("freelist_count")?;
    let mut free = start;
    // Each step frees up to RELEASE_PAGES pages, or stops.
    for _ in 0..=start / RELEASE_PAGES {
        if free == 0 {
            break;
        }
        let mut step = conn.prepare(&format!("PRAGMA incremental_vacuum({RELEASE_PAGES})"))?;
        let mut rows = step.query([])?;
        while rows.next()?.is_some() {}
        drop(rows);
        conn.query_row(super::sql::CHECKPOINT, [], |_| Ok(()))?;
        let left = pragma("freelist_count")?;
        if left >= free {
            break;
        }
        free = left;
    }
    Ok(start.saturating_sub(free) * page)
}

/// Runs `migrate` until the schema is current, again when another process creating or
/// upgrading the same file at the same moment made it fail (a table it was about to create
/// appeared, or the file was locked): each migration is one transaction that also bumps
/// `user_version`, so starting over from the version now read is exact.
///
/// # Errors
/// The migration's error when no other process moved the version on meanwhile.
pub(super) fn migrate_racing(
    conn: &Connection,
    mut migrate: impl FnMut() -> Result<(), StoreError>,
) -> Result<(), StoreError> {
    let version = || -> Result<i64, StoreError> {
        Ok(conn.query_row("PRAGMA user_version", [], |r| r.get(0))?)
    };
    for attempt in 0.. {
        let before = version()?;
        let Err(e) = migrate() else {
            return Ok(());
        };
        let busy = matches!(
            &e,
            StoreError::Sqlite(s) if matches!(
                s.sqlite_error_code(),
                Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)
            )
        );
        if attempt >= 20 || !(busy || version()? != before) {
            return Err(e);
        }
        std::thread::sleep(std::time::Duration::from_millis(20 * (attempt + 1)));
    }
    Ok(())
}

/// The `file:` URI that opens `path` immutable (no locks, no `-wal`/`-shm`).
fn immutable_uri(path: &Path) -> String {
    let mut uri = String::from("file:");
    for c in path.to_string_lossy().chars() {
        match c {
            '%' => uri.push_str("%25"),
            '?' => uri.push_str("%3f"),
            '#' => uri.push_str("%23"),
            c => uri.push(c),
        }
    }
    uri.push_str("?immutable=1");
    uri
}

/// Whether an error of a read-only open means "cannot create the `-shm`/`-wal` files here".
pub(super) fn needs_immutable(e: &StoreError) -> bool {
    matches!(
        e,
        StoreError::Sqlite(s) if matches!(
            s.sqlite_error_code(),
            Some(ErrorCode::CannotOpen | ErrorCode::ReadOnly)
        )
    )
}

/// Opens `path` read-only and immutable: for a database on storage nobody writes to.
///
/// # Errors
/// [`StoreError::Sqlite`] if SQLite cannot open it.
pub(super) fn open_immutable(path: &Path) -> Result<Connection, StoreError> {
    Ok(Connection::open_with_flags(
        immutable_uri(path),
        OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_URI,
    )?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uri_escapes_what_a_uri_would_read() {
        assert_eq!(
            immutable_uri(Path::new("/a b/x?.db#1%")),
            "file:/a b/x%3f.db%231%25?immutable=1"
        );
    }

    #[test]
    fn owners() {
        let p = Path::new("test.db");
        let conn = Connection::open_in_memory().unwrap();
        assert_eq!(owner(&conn, p).unwrap(), Owner::Nobody);
        conn.execute_batch("CREATE TABLE games (x); CREATE TABLE meta (y)")
            .unwrap();
        // Tables but no version: somebody else's.
        assert!(owner(&conn, p)
            .unwrap_err()
            .to_string()
            .contains("tables games, meta"));
        conn.pragma_update(None, "user_version", 2).unwrap();
        assert_eq!(owner(&conn, p).unwrap(), Owner::OlderQipu);
        claim(&conn).unwrap();
        assert_eq!(owner(&conn, p).unwrap(), Owner::Qipu);
        conn.pragma_update(None, "application_id", 7).unwrap();
        let e = owner(&conn, p).unwrap_err().to_string();
        assert!(e.contains("application id 0x00000007"), "{e}");
        let other = Connection::open_in_memory().unwrap();
        other.execute_batch("CREATE TABLE users (id)").unwrap();
        other.pragma_update(None, "user_version", 5).unwrap();
        let e = owner(&other, p).unwrap_err().to_string();
        assert!(e.contains("not a qipu database (tables users)"), "{e}");
    }
}
