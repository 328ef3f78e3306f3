//! The database file as a careless user and a hostile disk treat it, through the real `qipu`
//! binary: an import killed with SIGKILL keeps what it committed and a rerun completes it to
//! exactly a clean run's database; imports started together into a new file; another
//! program's file, a non-database and a damaged database are refused untouched; a database
//! on storage qipu cannot write is still read by `stats`, `export` and `serve`; a disk that
//! fills during an import keeps and reports what was committed.

use std::{
    io::{Read, Write},
    net::TcpStream,
    os::unix::fs::{MetadataExt, PermissionsExt},
    path::{Path, PathBuf},
    process::{Child, Command, Output, Stdio},
    time::{Duration, Instant},
};

use qipu::store::APPLICATION_ID;

fn qipu() -> Command {
    Command::new(env!("CARGO_BIN_EXE_qipu"))
}

fn run(args: &[&str]) -> Output {
    qipu().args(args).output().unwrap()
}

fn sample() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data")
}

/// A folder for this test under `target/`, emptied.
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("target/test-db-guard")
        .join(format!("{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// What must be equal between two databases holding the same games: `stats --json` without
/// the file size, and the games and positions exported as CSV (with ids).
fn contents(db: &Path, out: &Path) -> (serde_json::Value, String, String) {
    let o = run(&["stats", "--db", s(db), "--json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut stats: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    if let Some(m) = stats.as_object_mut() {
        m.retain(|k, _| !k.contains("bytes") && k != "db");
    }
    let (games, positions) = (out.join("games.csv"), out.join("positions.csv"));
    let o = run(&[
        "export",
        "--db",
        s(db),
        "--games",
        s(&games),
        "--positions",
        s(&positions),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    (
        stats,
        std::fs::read_to_string(games).unwrap(),
        std::fs::read_to_string(positions).unwrap(),
    )
}

fn import(db: &Path, extra: &[&str]) -> Command {
    let mut c = qipu();
    c.args(["import", s(&sample()), "--db", s(db)]).args(extra);
    c.stdout(Stdio::null()).stderr(Stdio::piped());
    c
}

/// Games committed in `db`, read as another process would.
fn committed(db: &Path) -> i64 {
    let open = || -> rusqlite::Result<i64> {
        let c =
            rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)?;
        c.query_row("SELECT count(*) FROM games", [], |r| r.get(0))
    };
    open().unwrap_or(0)
}

#[test]
fn a_killed_import_keeps_its_commits_and_a_rerun_completes_it() {
    let dir = scratch("kill");
    let clean = dir.join("clean.db");
    let st = import(&clean, &[]).status().unwrap();
    assert!(st.code() == Some(0) || st.code() == Some(1), "{st}");
    let want = contents(&clean, &dir);
    let total = committed(&clean);
    assert!(total > 1000, "{total}");
    let mut kept_some = 0;
    // Kill after the first, second, third … commit seen from outside (a commit every 50 ms).
    for point in 1..=4 {
        let db = dir.join(format!("killed{point}.db"));
        let mut child: Child = import(&db, &["--batch-ms", "50"]).spawn().unwrap();
        let mut seen = Vec::new();
        let started = Instant::now();
        let finished = loop {
            if child.try_wait().unwrap().is_some() {
                break true;
            }
            let n = committed(&db);
            if n > 0 && seen.last() != Some(&n) {
                seen.push(n);
            }
            if seen.len() >= point {
                child.kill().unwrap(); // SIGKILL
                break false;
            }
            assert!(started.elapsed() < Duration::from_secs(120));
            std::thread::sleep(Duration::from_millis(5));
        };
        let _ = child.wait();
        let kept = committed(&db);
        if !finished {
            assert!(
                kept >= *seen.last().unwrap(),
                "point {point}: {kept} < {seen:?}"
            );
            if kept < total {
                kept_some += 1;
            }
        }
        // The rerun finishes the job: exactly what a clean run stores.
        let st = import(&db, &[]).status().unwrap();
        assert!(st.code() == Some(0) || st.code() == Some(1), "{st}");
        assert_eq!(contents(&db, &dir), want, "kill point {point} ({seen:?})");
    }
    assert!(kept_some > 0, "no import was killed between two commits");
}

#[test]
fn imports_started_together_into_a_new_database_all_succeed() {
    let dir = scratch("together");
    let data = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/store");
    let clean = dir.join("clean.db");
    // One game of the fixtures is rejected: exit 1.
    assert_eq!(
        run(&["import", s(&data), "--db", s(&clean)]).status.code(),
        Some(1)
    );
    let want = committed(&clean);
    for trial in 0..8 {
        let db = dir.join(format!("t{trial}.db"));
        let children: Vec<Child> = (0..3)
            .map(|_| {
                qipu()
                    .args(["import", s(&data), "--db", s(&db)])
                    .stdout(Stdio::null())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for c in children {
            let o = c.wait_with_output().unwrap();
            assert_eq!(
                o.status.code(),
                Some(1), // one game of the fixtures is rejected
                "trial {trial}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
        }
        assert_eq!(committed(&db), want, "trial {trial}");
    }
}

fn application_id(db: &Path) -> i32 {
    let c = rusqlite::Connection::open(db).unwrap();
    c.query_row("PRAGMA application_id", [], |r| r.get(0))
        .unwrap()
}

#[test]
fn only_qipu_databases_are_written() {
    let dir = scratch("foreign");
    let data = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/store");
    // A new database carries qipu's id.
    let ours = dir.join("ours.db");
    // One game of the fixtures is rejected: exit 1.
    assert_eq!(
        run(&["import", s(&data), "--db", s(&ours)]).status.code(),
        Some(1)
    );
    assert_eq!(application_id(&ours), APPLICATION_ID);
    let refused = |db: &Path, needle: &str| {
        let before = std::fs::read(db).unwrap();
        let o = run(&["import", s(&data), "--db", s(db)]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{}: {err}", db.display());
        assert!(err.contains(needle), "{}: {err}", db.display());
        assert!(err.contains(s(db)), "{err}");
        assert_eq!(
            std::fs::read(db).unwrap(),
            before,
            "{} was changed",
            db.display()
        );
        assert!(!Path::new(&format!("{}-wal", db.display())).exists());
    };
    // Somebody else's SQLite database.
    let theirs = dir.join("theirs.db");
    {
        let c = rusqlite::Connection::open(&theirs).unwrap();
        c.execute_batch("CREATE TABLE contacts (name TEXT); INSERT INTO contacts VALUES ('x');")
            .unwrap();
    }
    refused(&theirs, "not a qipu database (tables contacts)");
    // Another program's id, even with qipu's tables.
    let other_id = dir.join("other-id.db");
    std::fs::copy(&ours, &other_id).unwrap();
    {
        let c = rusqlite::Connection::open(&other_id).unwrap();
        c.pragma_update(None, "application_id", 0x1234).unwrap();
        c.pragma_update(None, "journal_mode", "DELETE").unwrap();
    }
    refused(&other_id, "application id 0x00001234");
    // Not a database at all.
    let text = dir.join("notes.txt");
    std::fs::write(&text, "x".repeat(10_000)).unwrap();
    refused(&text, "is not a qipu database: it is not an SQLite file");
    // A damaged qipu database: the root page of `games` overwritten.
    let damaged = dir.join("damaged.db");
    std::fs::copy(&ours, &damaged).unwrap();
    let (root, page_size) = {
        let c = rusqlite::Connection::open(&damaged).unwrap();
        c.pragma_update(None, "journal_mode", "DELETE").unwrap();
        let root: i64 = c
            .query_row(
                "SELECT rootpage FROM sqlite_schema WHERE name = 'games'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        let size: i64 = c.query_row("PRAGMA page_size", [], |r| r.get(0)).unwrap();
        (root as usize, size as usize)
    };
    let mut bytes = std::fs::read(&damaged).unwrap();
    for b in &mut bytes[(root - 1) * page_size..root * page_size] {
        *b = 0x5a;
    }
    std::fs::write(&damaged, &bytes).unwrap();
    refused(&damaged, "damaged");
    // An older qipu database (no id yet) is accepted and gets the id.
    let older = dir.join("older.db");
    std::fs::copy(&ours, &older).unwrap();
    rusqlite::Connection::open(&older)
        .unwrap()
        .pragma_update(None, "application_id", 0)
        .unwrap();
    let o = run(&["import", s(&data), "--db", s(&older)]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(application_id(&older), APPLICATION_ID);
    assert_eq!(committed(&older), committed(&ours));
}

/// Whether this process may write where the file modes say it may not (root).
fn ignores_file_modes() -> bool {
    std::fs::metadata("/proc/self")
        .map(|m| m.uid() == 0)
        .unwrap_or(false)
}

/// `qipu ARGS` as a user for whom `dir` is read-only: this user if file modes bind it,
/// otherwise `nobody` through `setpriv` (root ignores modes). `None` if neither is possible.
fn reader(args: &[&str]) -> Option<Command> {
    if !ignores_file_modes() {
        let mut c = qipu();
        c.args(args);
        return Some(c);
    }
    let ok = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "true"])
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        return None;
    }
    let mut c = Command::new("setpriv");
    c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(env!("CARGO_BIN_EXE_qipu"))
        .args(args);
    Some(c)
}

#[test]
fn a_database_on_read_only_storage_is_read() {
    let dir = std::env::temp_dir().join(format!("qipu-ro-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (ro, out) = (dir.join("ro"), dir.join("out"));
    std::fs::create_dir_all(&ro).unwrap();
    std::fs::create_dir_all(&out).unwrap();
    let db = ro.join("games.db");
    let st = import(&db, &[]).status().unwrap();
    assert!(st.code() == Some(0) || st.code() == Some(1), "{st}");
    let want = contents(&db, &out);
    // What a copy onto read-only storage holds: the file alone (the read-only opens above
    // left an empty WAL and index beside it).
    for suffix in ["-wal", "-shm"] {
        let side = PathBuf::from(format!("{}{suffix}", db.display()));
        if side.exists() {
            if suffix == "-wal" {
                assert_eq!(
                    std::fs::metadata(&side).unwrap().len(),
                    0,
                    "a WAL with data"
                );
            }
            std::fs::remove_file(side).unwrap();
        }
    }
    for (p, mode) in [(&dir, 0o755), (&out, 0o777), (&db, 0o444), (&ro, 0o555)] {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
    }
    let Some(_) = reader(&["--version"]) else {
        eprintln!("skipped: running as root without setpriv, no read-only user to test with");
        return;
    };
    // The folder is really read-only to the reader.
    let probe = reader(&["import", s(&sample()), "--db", s(&ro.join("new.db"))])
        .unwrap()
        .output()
        .unwrap();
    assert_eq!(
        probe.status.code(),
        Some(2),
        "the reader could write to {}",
        ro.display()
    );
    let output = |args: &[&str]| {
        let o = reader(args).unwrap().output().unwrap();
        assert!(
            o.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        o.stdout
    };
    let mut stats: serde_json::Value =
        serde_json::from_slice(&output(&["stats", "--db", s(&db), "--json"])).unwrap();
    if let Some(m) = stats.as_object_mut() {
        m.retain(|k, _| !k.contains("bytes") && k != "db");
    }
    assert_eq!(stats, want.0);
    let (games, positions) = (out.join("ro-games.csv"), out.join("ro-positions.csv"));
    output(&[
        "export",
        "--db",
        s(&db),
        "--games",
        s(&games),
        "--positions",
        s(&positions),
    ]);
    assert_eq!(std::fs::read_to_string(&games).unwrap(), want.1);
    assert_eq!(std::fs::read_to_string(&positions).unwrap(), want.2);
    let explored = output(&["explore", "--db", s(&db), "--json"]);
    let explored: serde_json::Value = serde_json::from_slice(&explored).unwrap();
    assert!(explored["games"].as_u64().unwrap() > 0, "{explored}");
    // The server starts and answers from it.
    let mut server = reader(&[
        "serve",
        "--db",
        s(&db),
        "--addr",
        "127.0.0.1:0",
        "--threads",
        "1",
    ])
    .unwrap()
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let addr = crate::common::serve_address(&mut server);
    let answer = addr.as_ref().ok().and_then(|addr| {
        let mut c = TcpStream::connect(addr).ok()?;
        c.set_read_timeout(Some(Duration::from_secs(20))).ok()?;
        c.write_all(b"GET /api/explore?variant=xiangqi HTTP/1.1\r\nConnection: close\r\n\r\n")
            .ok()?;
        let mut text = String::new();
        c.read_to_string(&mut text).ok()?;
        Some(text)
    });
    let _ = server.kill();
    let _ = server.wait();
    let answer = answer.unwrap_or_else(|| panic!("serve did not start: {addr:?}"));
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(!Path::new(&format!("{}-shm", db.display())).exists());
    let _ = std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o755));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A small tmpfs mounted for one test and unmounted when dropped.
struct SmallDisk(PathBuf);

impl SmallDisk {
    /// Mounts `size` of tmpfs at `dir`, or `None` where this process may not mount (not
    /// root, no `mount`, a sandbox that forbids it).
    fn mount(dir: &Path, size: &str) -> Option<SmallDisk> {
        std::fs::create_dir_all(dir).ok()?;
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir)
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        ok.then(|| SmallDisk(dir.to_path_buf()))
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

#[test]
fn a_full_disk_keeps_what_was_committed_and_says_so() {
    let dir = scratch("full-disk");
    let Some(disk) = SmallDisk::mount(&dir.join("disk"), "1m") else {
        println!("skipped: cannot mount a tmpfs here (needs root)");
        return;
    };
    // The sample's database is about 1.7 MB: a 1 MiB disk fills part way through.
    let db = disk.0.join("x.db");
    let o = import(&db, &["--batch-games", "100"]).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("full"), "{err}");
    // It says how many games were committed, and exactly those are in the database.
    let said: i64 = err
        .split(" new games")
        .next()
        .and_then(|head| head.split_whitespace().last())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no committed count in: {err}"));
    assert!(said > 0 && said < 2050, "{err}");
    assert_eq!(committed(&db), said, "{err}");
    // Moved to a disk with room, the same import finishes it to exactly a clean import.
    let moved = dir.join("moved.db");
    for ext in ["", "-wal", "-shm"] {
        let from = PathBuf::from(format!("{}{ext}", db.display()));
        if from.exists() {
            std::fs::copy(&from, format!("{}{ext}", moved.display())).unwrap();
        }
    }
    drop(disk);
    assert_eq!(import(&moved, &[]).status().unwrap().code(), Some(0));
    let clean = dir.join("clean.db");
    assert_eq!(import(&clean, &[]).status().unwrap().code(), Some(0));
    let out = dir.join("out");
    std::fs::create_dir_all(&out).unwrap();
    assert!(contents(&moved, &out) == contents(&clean, &out));
}
