//! A game with one bad move keeps its moves before it (issue #30, item 10), through the
//! binary: the positions it reached are counted, its result kept, the game is marked
//! truncated in the database and counted apart; `--strict` rejects it whole; importing the
//! same file again changes nothing; a database of schema 15 migrates.

use std::{
    path::{Path, PathBuf},
    process::{Command, Output},
};

use serde_json::Value;

/// Three games, written by hand. The second one's fifth ply `h2h9` is illegal: Black's
/// cannon on h7 stands between h2 and h9, and a cannon jumps a screen only to capture, but h9
/// is empty since ply 2 (`h9g7`). Its first 4 plies are good.
const PGN: &str = "\
[Red \"Good One\"]\n[Black \"B1\"]\n[Result \"1-0\"]\n1. h2e2 h9g7 2. h0g2 i9h9 1-0\n\n\
[Red \"Cut\"]\n[Black \"B2\"]\n[Result \"0-1\"]\n1. c3c4 h9g7 2. b0c2 b9c7 3. h2h9 g6g5 0-1\n\n\
[Red \"Good Two\"]\n[Black \"B3\"]\n[Result \"1/2-1/2\"]\n1. b2e2 b9c7 1/2-1/2\n";

fn qipu(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_qipu"))
        .args(args)
        .output()
        .unwrap()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn setup(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join(format!("{name}.pgn"));
    std::fs::write(&pgn, PGN).unwrap();
    (dir, pgn)
}

fn import_json(pgn: &Path, db: &Path, extra: &[&str]) -> (Option<i32>, Value) {
    let mut args = vec!["import", s(pgn), "--db", s(db), "--json"];
    args.extend_from_slice(extra);
    let o = qipu(&args);
    let v = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&o.stderr)));
    (o.status.code(), v)
}

/// `explore --json` after `moves`: (games, first wins, draws, second wins, [(move, games)]).
fn explore(db: &Path, moves: &[&str]) -> (u64, u64, u64, u64, Vec<(String, u64)>) {
    let mut args = vec!["explore", "--db", s(db), "--json"];
    if !moves.is_empty() {
        args.push("--moves");
        args.extend_from_slice(moves);
    }
    let o = qipu(&args);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let n = |k: &str| v[k].as_u64().unwrap();
    (
        n("games"),
        n("first_wins"),
        n("draws"),
        n("second_wins"),
        crate::common::move_rows(&v, "games"),
    )
}

/// Every games row as text, to compare a database before and after a re-import.
fn games_rows(db: &Path) -> Vec<String> {
    let c = rusqlite::Connection::open(db).unwrap();
    let mut st = c
        .prepare("SELECT id, first, plies, result, truncated_ply, hash FROM games ORDER BY id")
        .unwrap();
    st.query_map([], |r| {
        Ok(format!(
            "{}|{:?}|{}|{}|{:?}|{}",
            r.get::<_, i64>(0)?,
            r.get::<_, Option<String>>(1)?,
            r.get::<_, i64>(2)?,
            r.get::<_, i64>(3)?,
            r.get::<_, Option<i64>>(4)?,
            r.get::<_, i64>(5)?
        ))
    })
    .unwrap()
    .collect::<Result<_, _>>()
    .unwrap()
}

fn truncated_ply_of(db: &Path, first: &str) -> Option<i64> {
    let c = rusqlite::Connection::open(db).unwrap();
    c.query_row(
        "SELECT truncated_ply FROM games WHERE first = ?1",
        [first],
        |r| r.get(0),
    )
    .unwrap()
}

fn row(m: &str, g: u64) -> (String, u64) {
    (m.to_string(), g)
}

#[test]
fn a_game_with_a_bad_move_keeps_the_plies_before_it() {
    let (dir, pgn) = setup("t");
    let db = dir.path().join("t.db");
    let report = dir.path().join("r.csv");
    let (code, v) = import_json(&pgn, &db, &["--report", s(&report)]);
    // Part of the input (the cut game's tail) was not read: exit 1.
    assert_eq!(code, Some(1), "{v}");
    assert_eq!(
        (
            &v["games_read"],
            &v["imported"],
            &v["rejected"],
            &v["truncated"]
        ),
        (
            &Value::from(3),
            &Value::from(3),
            &Value::from(0),
            &Value::from(1)
        )
    );
    let t = &v["truncated_games"][0];
    assert!(t["file"].as_str().unwrap().ends_with("t.pgn"), "{t}");
    assert_eq!((t["game"].as_u64(), t["ply"].as_u64()), (Some(1), Some(5)));
    assert_eq!(t["token"], "h2h9");
    // The report: a row of the second game (numbered from 1), ply 5, its fate.
    let csv = std::fs::read_to_string(&report).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "file,game,ply,token,kind,reason,offset,fate");
    assert_eq!(lines.len(), 2, "{csv}");
    let cells: Vec<&str> = lines[1].split(',').collect();
    assert!(cells[0].ends_with("t.pgn"));
    assert_eq!((cells[1], cells[2], cells[3]), ("2", "5", "h2h9"));
    assert_eq!(cells[7], "truncated");
    // In the database: cut before ply 5; the whole games are not marked.
    assert_eq!(truncated_ply_of(&db, "Cut"), Some(5));
    assert_eq!(truncated_ply_of(&db, "Good One"), None);
    assert_eq!(truncated_ply_of(&db, "Good Two"), None);
    // Counted by hand: the start has the three games (1-0, 0-1, ½), one per first move.
    assert_eq!(
        explore(&db, &[]),
        (
            3,
            1,
            1,
            1,
            vec![row("b2e2", 1), row("c3c4", 1), row("h2e2", 1)]
        )
    );
    // The cut game's 4 plies: each position it reached counts it, with its result (0-1).
    assert_eq!(explore(&db, &["c3c4"]), (1, 0, 0, 1, vec![row("h9g7", 1)]));
    assert_eq!(
        explore(&db, &["c3c4", "h9g7", "b0c2"]),
        (1, 0, 0, 1, vec![row("b9c7", 1)])
    );
    // After ply 4 no move is counted: h2h9 was never read.
    assert_eq!(
        explore(&db, &["c3c4", "h9g7", "b0c2", "b9c7"]),
        (1, 0, 0, 1, vec![])
    );
    // `qipu stats` counts it among the games and apart.
    let o = qipu(&["stats", "--json", "--db", s(&db)]);
    let st: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (&st["games"]["xiangqi"], &st["truncated_games"]),
        (&Value::from(3), &Value::from(1)),
        "{st}"
    );
    // The summary line says it too.
    let o = qipu(&["import", s(&pgn), "--db", s(&dir.path().join("u.db"))]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("0 rejected, 1 truncated"), "{text}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("ply 5") && err.contains("first 4 plies kept"),
        "{err}"
    );
}

#[test]
fn importing_the_same_file_again_changes_nothing() {
    let (dir, pgn) = setup("again");
    let db = dir.path().join("a.db");
    import_json(&pgn, &db, &[]);
    let rows = games_rows(&db);
    let start = explore(&db, &[]);
    let cut = explore(&db, &["c3c4", "h9g7", "b0c2"]);
    let (_, v) = import_json(&pgn, &db, &[]);
    assert_eq!(
        (v["imported"].as_u64(), v["duplicates"].as_u64()),
        (Some(0), Some(3))
    );
    assert_eq!(games_rows(&db), rows);
    assert_eq!(rows.len(), 3);
    assert_eq!(explore(&db, &[]), start);
    assert_eq!(explore(&db, &["c3c4", "h9g7", "b0c2"]), cut);
}

#[test]
fn strict_rejects_the_game_whole() {
    let (dir, pgn) = setup("strict");
    let db = dir.path().join("s.db");
    let (code, v) = import_json(&pgn, &db, &["--strict"]);
    assert_eq!(code, Some(1));
    assert_eq!(
        (&v["imported"], &v["rejected"], &v["truncated"]),
        (&Value::from(2), &Value::from(1), &Value::from(0))
    );
    assert_eq!(
        (
            v["errors"][0]["game"].as_u64(),
            v["errors"][0]["ply"].as_u64()
        ),
        (Some(1), Some(5))
    );
    // Only the two good games: 1-0 and ½.
    assert_eq!(
        explore(&db, &[]),
        (2, 1, 1, 0, vec![row("b2e2", 1), row("h2e2", 1)])
    );
    let o = qipu(&["stats", "--json", "--db", s(&db)]);
    let st: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(st["truncated_games"], 0, "{st}");
}

#[test]
fn a_schema_15_database_gains_the_column() {
    let (dir, pgn) = setup("old");
    let db = dir.path().join("o.db");
    let good = dir.path().join("good.pgn");
    std::fs::write(&good, PGN.split("\n\n").next().unwrap()).unwrap();
    import_json(&good, &db, &[]);
    {
        // Back to schema 15: no truncated_ply column, no person_rules, no segments.
        let c = rusqlite::Connection::open(&db).unwrap();
        c.execute_batch(
            "ALTER TABLE games DROP COLUMN truncated_ply; DROP TABLE person_rules; \
             DROP TABLE segments; PRAGMA user_version = 15;",
        )
        .unwrap();
    }
    let (code, v) = import_json(&pgn, &db, &[]);
    assert_eq!(code, Some(1), "{v}");
    assert_eq!(
        (v["imported"].as_u64(), v["duplicates"].as_u64()),
        (Some(2), Some(1))
    );
    let c = rusqlite::Connection::open(&db).unwrap();
    let version: i64 = c
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    // Migrated to the newest schema (16 added the column; later ones come on top).
    assert!(version >= 16);
    assert_eq!(version, qipu::store::SCHEMA_VERSION);
    assert_eq!(truncated_ply_of(&db, "Cut"), Some(5));
    assert_eq!(truncated_ply_of(&db, "Good One"), None);
}

/// `qipu book` from the same file learns from the cut game's first 4 plies, as the import
/// keeps them; `--strict` leaves the game out whole. Counted by hand: the good games give 4
/// and 2 records, the cut one c3c4 h9g7 b0c2 b9c7; no two share a (position, move), positions
/// kept as reached.
#[test]
fn a_book_from_files_keeps_the_plies_before_a_bad_move() {
    use qipu::{
        book::Book,
        rules::{AnyPosition, Move, Variant},
    };
    let (dir, pgn) = setup("book");
    for (strict, games, truncated, rejected, records) in [(false, 3, 1, 0, 10), (true, 2, 0, 1, 6)]
    {
        let out = dir.path().join(format!("b-{strict}.qbk"));
        let mut args = vec!["book", s(&pgn), "--format", "qipu", "--mirror", "keep"];
        args.extend_from_slice(&crate::common::EVERY_MOVE);
        args.extend_from_slice(&["--weights", "games", "--json", "--out", s(&out)]);
        if strict {
            args.push("--strict");
        }
        let o = qipu(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        // a game cut or rejected: exit 1, the book written from the rest
        assert_eq!(o.status.code(), Some(1), "{err}");
        let v: Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v["games"], games, "{v}");
        assert_eq!(v["truncated"], truncated, "{v}");
        assert_eq!(v["rejected"], rejected, "{v}");
        assert_eq!(v["records"], records, "{v}");
        assert!(err.contains("h2h9"), "{err}");
        let book = Book::open(&out).unwrap();
        let mut pos = AnyPosition::new(Variant::Xiangqi);
        let mut line = Vec::new();
        for m in ["c3c4", "h9g7", "b0c2", "b9c7"] {
            line.push(
                book.probe(&pos)
                    .unwrap()
                    .moves
                    .iter()
                    .any(|p| p.mv.to_string() == m),
            );
            pos.play(m.parse::<Move>().unwrap()).unwrap();
        }
        assert_eq!(line, [!strict; 4]);
        // nothing after the bad move
        assert!(book.probe(&pos).unwrap().moves.is_empty());
    }
}
