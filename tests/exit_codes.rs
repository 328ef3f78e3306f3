//! One rule for exit codes, through the binary (issue #30, item 9): 0 did what was asked, 1
//! ran but found or wrote nothing or rejected part of the input, 2 could not run; and every
//! message names the file at fault.

use std::{
    path::{Path, PathBuf},
    process::{Command, Output},
};

fn qipu(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_qipu"))
        .args(args)
        .output()
        .unwrap()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("qipu-exit-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A database of two Xiangqi games (no Janggi game).
fn xiangqi_db(dir: &Path) -> PathBuf {
    let pgn = dir.join("x.pgn");
    std::fs::write(
        &pgn,
        "[Red \"A\"]\n[Black \"B\"]\n1. h2e2 h9g7 1-0\n\n[Red \"C\"]\n[Black \"D\"]\n1. c3c4 h9g7 0-1\n",
    )
    .unwrap();
    let db = dir.join("x.db");
    let o = qipu(&["import", s(&pgn), "--db", s(&db)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    db
}

#[test]
fn the_rule_is_in_the_help() {
    let o = qipu(&["--help"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("Exit codes (every command):"), "{text}");
    for code in ["  0  ", "  1  ", "  2  "] {
        assert!(text.contains(code), "{code} missing: {text}");
    }
}

#[test]
fn a_janggi_book_from_a_database_without_janggi_games_says_so_and_writes_nothing() {
    let dir = scratch("book");
    let db = xiangqi_db(&dir);
    let out = dir.join("j.qbk");
    let o = qipu(&[
        "book",
        "--variant",
        "janggi",
        "--db",
        s(&db),
        "--format",
        "qipu",
        "--out",
        s(&out),
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!("no janggi games in {}", db.display())),
        "{err}"
    );
    assert!(!out.exists(), "a book was written");
    // The same database gives a Xiangqi book: exit 0.
    let o = qipu(&["book", "--db", s(&db), "--format", "qipu", "--out", s(&out)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(out.exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_empty_file_is_counted_as_unread_and_the_exit_code_agrees() {
    let dir = scratch("empty");
    let empty = dir.join("empty.pgn");
    std::fs::write(&empty, "").unwrap();
    let db = dir.join("e.db");
    let o = qipu(&["import", s(&empty), "--db", s(&db)]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{text}");
    assert!(text.contains("0 rejected, 1 file unread"), "{text}");
    let o = qipu(&["import", s(&empty), "--db", s(&db), "--json"]);
    assert_eq!(o.status.code(), Some(1));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (doc["rejected"].as_u64(), doc["files_unread"].as_u64()),
        (Some(0), Some(1))
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_file_that_is_not_a_book_is_named_as_not_a_book_of_that_format() {
    let dir = scratch("probe");
    // Three 8-byte records, the locks 3, 2, 1: the size of a BOOK.DAT, not its order.
    let bytes: Vec<u8> = [3u32, 2, 1]
        .iter()
        .flat_map(|lock| {
            let mut r = lock.to_le_bytes().to_vec();
            r.extend([0, 0, 1, 0]);
            r
        })
        .collect();
    let fake = dir.join("fake.dat");
    std::fs::write(&fake, bytes).unwrap();
    let want = format!("{} is not a BOOK.DAT book", fake.display());
    for args in [
        vec!["probe", "--book", s(&fake)],
        vec!["book", "stats", s(&fake)],
    ] {
        let o = qipu(&args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(&want), "{args:?}: {err}");
    }
    // A qipu database is an SQLite file, but not an .obk book.
    let db = xiangqi_db(&dir);
    let o = qipu(&["probe", "--book", s(&db)]);
    let err = stderr(&o);
    assert!(
        err.contains(&format!("{} is not a .obk book", db.display())),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn every_command_opening_a_database_names_a_file_that_is_not_one() {
    let dir = scratch("notdb");
    let text = dir.join("notes.md");
    std::fs::write(&text, "# notes\n".repeat(2000)).unwrap();
    let want = format!("{} is not a qipu database", text.display());
    let out = dir.join("out.csv");
    let book = dir.join("b.dat");
    let commands: Vec<Vec<&str>> = vec![
        vec!["explore", "--db", s(&text)],
        vec!["stats", "--db", s(&text)],
        vec!["players", "x", "--db", s(&text)],
        vec!["export", "--db", s(&text), "--games", s(&out)],
        vec![
            "book",
            "--db",
            s(&text),
            "--format",
            "eleeye",
            "--out",
            s(&book),
        ],
        vec!["import", s(&text), "--db", s(&text)],
    ];
    for args in commands {
        let o = qipu(&args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(&want), "{args:?}: {err}");
    }
    assert!(!book.exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn nothing_found_is_exit_1() {
    let dir = scratch("found");
    let db = xiangqi_db(&dir);
    let o = qipu(&["players", "nobody-of-that-name", "--db", s(&db)]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let o = qipu(&["players", "A", "--db", s(&db)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // b2e2 was played in neither game.
    let o = qipu(&["explore", "--db", s(&db), "--moves", "b2e2", "--no-board"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let o = qipu(&["explore", "--db", s(&db), "--moves", "h2e2", "--no-board"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}
