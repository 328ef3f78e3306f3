//! Errors keep the error underneath them: walking `source()` from a store, book or web
//! error reaches the SQLite or I/O error that caused it, and the messages read as before.
//! A broken pipe under `qipu export` is found through the store's error and exits 0.

use std::{
    error::Error,
    io::Read,
    path::{Path, PathBuf},
    process::{Command, Stdio},
    sync::Arc,
};

use qipu::{
    book::{Book, BookError},
    store::{Store, StoreError},
    web::{ApiError, Config, Worker},
};

/// A folder for this test under `target/`, emptied.
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("target/test-sources")
        .join(format!("{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The first error of type `T` in `e`'s chain (`e` itself included), and how many
/// `source()` steps lead to it. The walk is bounded by the chain's length (at most 16).
fn find<'a, T: Error + 'static>(e: &'a (dyn Error + 'static)) -> Option<(&'a T, usize)> {
    let mut cur = Some(e);
    for depth in 0..16 {
        let here = cur?;
        if let Some(t) = here.downcast_ref::<T>() {
            return Some((t, depth));
        }
        cur = here.source();
    }
    None
}

#[test]
fn a_failed_migration_keeps_sqlites_error() {
    let dir = scratch("migration");
    let path = dir.join("q.db");
    drop(Store::open(&path).unwrap());
    // Back to version 0: the first migration runs again and its CREATE TABLE fails.
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.pragma_update(None, "user_version", 0).unwrap();
    drop(conn);
    let e = Store::open(&path).unwrap_err();
    assert!(
        matches!(
            e,
            StoreError::Migration {
                name: "001_init",
                ..
            }
        ),
        "{e:?}"
    );
    let (sql, depth) = find::<rusqlite::Error>(&e).expect("SQLite's error in the chain");
    assert_eq!(depth, 1);
    assert!(sql.to_string().contains("already exists"), "{sql}");
    // The message is today's: the migration's name, then SQLite's words.
    assert_eq!(
        e.to_string(),
        format!("database: migration 001_init: {sql}")
    );
}

#[test]
fn a_worker_that_cannot_open_its_database_keeps_the_stores_error() {
    let dir = scratch("worker");
    let missing = dir.join("no/such/dir/q.db");
    let config = Config {
        db: Some(missing.clone()),
        ..Config::default()
    };
    let e = Worker::open(Arc::new(config)).unwrap_err();
    let (store, depth) = find::<StoreError>(&e).expect("the store's error in the chain");
    assert_eq!(depth, 1);
    assert!(matches!(store, StoreError::Sqlite(_)), "{store:?}");
    let (_, depth) = find::<rusqlite::Error>(&e).expect("SQLite's error in the chain");
    assert_eq!(depth, 2);
    assert_eq!(
        e.to_string(),
        format!("cannot open {}: {store}", missing.display())
    );
}

#[test]
fn a_worker_that_cannot_open_a_book_keeps_the_io_error() {
    let dir = scratch("book");
    let missing = dir.join("none.obk");
    let config = Config {
        books: vec![("none".to_string(), missing.clone())],
        ..Config::default()
    };
    let e = Worker::open(Arc::new(config)).unwrap_err();
    let (book, depth) = find::<BookError>(&e).expect("the book's error in the chain");
    assert_eq!(depth, 1);
    let (io, depth) = find::<std::io::Error>(&e).expect("the I/O error in the chain");
    assert_eq!((io.kind(), depth), (std::io::ErrorKind::NotFound, 2));
    assert_eq!(
        e.to_string(),
        format!("cannot open book {}: {book}", missing.display())
    );
    // The same error from the book layer itself.
    let direct = Book::open(&missing).unwrap_err();
    assert!(find::<std::io::Error>(&direct).is_some(), "{direct:?}");
}

#[test]
fn a_damaged_file_keeps_sqlites_error() {
    let dir = scratch("damaged");
    let path = dir.join("q.db");
    drop(Store::open(&path).unwrap());
    // The first page's header overwritten past the magic: SQLite calls the file malformed.
    let mut bytes = std::fs::read(&path).unwrap();
    let page_size = 4096.min(bytes.len());
    for b in &mut bytes[100..page_size] {
        *b = 0x5a;
    }
    std::fs::write(&path, &bytes).unwrap();
    // `open` (as an import does) checks whose the file is first, and so finds the damage.
    let e = Store::open(&path).unwrap_err();
    match &e {
        StoreError::Damaged { path: p, .. } => {
            assert_eq!(p, &path);
            let (sql, depth) = find::<rusqlite::Error>(&e).expect("SQLite's error");
            assert_eq!(depth, 1);
            assert_eq!(
                e.to_string(),
                format!(
                    "database: {} is damaged ({sql}); restore a copy or import into a new file",
                    path.display()
                )
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_internal_api_error_keeps_the_stores_error() {
    let sql = rusqlite::Connection::open_in_memory()
        .unwrap()
        .execute("SELECT * FROM nowhere", [])
        .unwrap_err();
    let text = StoreError::Sqlite(sql).to_string();
    let sql = rusqlite::Connection::open_in_memory()
        .unwrap()
        .execute("SELECT * FROM nowhere", [])
        .unwrap_err();
    let e = ApiError::Internal(Box::new(StoreError::Sqlite(sql)));
    assert_eq!(e.to_string(), text);
    assert_eq!(find::<rusqlite::Error>(&e).map(|(_, d)| d), Some(2));
    // The answer's message is the store's text, as it was.
    let reply = e.reply();
    assert_eq!(reply.status, 500);
    let body: serde_json::Value = serde_json::from_slice(&reply.body).unwrap();
    assert_eq!(body["error"], text.as_str());
}

/// `qipu export --games -` into a pipe closed after the first bytes: the CSV writer's
/// broken pipe travels inside the store's error, and the CLI still finds it (exit 0,
/// nothing on stderr).
#[test]
fn export_into_a_closed_pipe_exits_quietly() {
    let dir = scratch("pipe");
    let db = dir.join("q.db");
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("data");
    let qipu = env!("CARGO_BIN_EXE_qipu");
    let o = Command::new(qipu)
        .args(["import", "--json", "--db"])
        .arg(&db)
        .arg(&sample)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // Far more than a pipe holds, so that the export is still writing when it closes.
    let whole = Command::new(qipu)
        .args(["export", "--db"])
        .arg(&db)
        .args(["--games", "-"])
        .output()
        .unwrap();
    assert!(whole.stdout.len() > 4 * 65_536, "{}", whole.stdout.len());
    let mut child = Command::new(qipu)
        .args(["export", "--db"])
        .arg(&db)
        .args(["--games", "-"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 64];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap(); // dropped here: the pipe closes
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.is_empty(), "{err}");
}
