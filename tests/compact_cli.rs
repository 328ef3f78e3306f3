//! `qipu compact` and the compaction `qipu import` runs after its last batch, through the
//! binary: four sealed segments become one, and the explorer answers as one import of the
//! same games does.

use std::{
    path::{Path, PathBuf},
    process::Command,
};

fn qipu(args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_qipu"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

fn json(args: &[&str]) -> serde_json::Value {
    let (ok, out) = qipu(args);
    assert!(ok, "qipu {args:?} failed: {out}");
    serde_json::from_str(&out).unwrap()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Four files of twelve games each, every game through the start and `h2e2` (so that the
/// start is quiet in each file's segment, 12 games, and busy in all, 48), with other
/// replies and players.
fn files(dir: &Path) -> Vec<PathBuf> {
    let replies = ["h9g7", "b9c7", "h7e7", "c6c5"];
    (0..4)
        .map(|f| {
            let mut pgn = String::new();
            for g in 0..12 {
                let result = ["1-0", "0-1", "1/2-1/2"][(f + g) % 3];
                pgn.push_str(&format!(
                    "[Red \"R{f}-{g}\"]\n[Black \"B{g}\"]\n[Date \"20{:02}.0{}.1{}\"]\n\
                     1. h2e2 {} 2. h0g2 {result}\n\n",
                    10 + f,
                    1 + g % 9,
                    g % 10,
                    replies[(f + g) % 4],
                ));
            }
            let path = dir.join(format!("part{f}.pgn"));
            std::fs::write(&path, pgn).unwrap();
            path
        })
        .collect()
}

fn segments(db: &Path) -> u64 {
    json(&["stats", "--db", s(db), "--json"])["segments"]
        .as_u64()
        .unwrap()
}

/// The file's `auto_vacuum` mode (2 = incremental), free pages and size in bytes.
fn pages(db: &Path) -> (i64, i64, u64) {
    let conn = rusqlite::Connection::open(db).unwrap();
    let one = |q: &str| conn.query_row(q, [], |r| r.get::<_, i64>(0)).unwrap();
    let mode = one("PRAGMA auto_vacuum");
    let free = one("PRAGMA freelist_count");
    drop(conn);
    (mode, free, std::fs::metadata(db).unwrap().len())
}

fn answers(db: &Path) -> Vec<serde_json::Value> {
    [vec![], vec!["--moves", "h2e2"], vec!["--since", "2012"]]
        .iter()
        .map(|extra| {
            let mut args = vec!["explore", "--db", s(db), "--json", "--top-games", "20"];
            args.extend(extra.iter().copied());
            json(&args)
        })
        .collect()
}

#[test]
fn four_sealed_imports_compact_into_one_segment_that_answers_as_one_import() {
    let dir = std::env::temp_dir().join(format!("qipu-compact-cli-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let files = files(&dir);
    let one = dir.join("one.db");
    let mut args = vec!["import", "--db", s(&one), "--json"];
    args.extend(files.iter().map(|f| s(f)));
    assert_eq!(json(&args)["imported"], 48);
    assert_eq!(segments(&one), 1);
    let want = answers(&one);
    assert_eq!(want[0]["games"], 48, "{}", want[0]);

    // Compacted by the import that seals the fourth segment.
    let auto = dir.join("auto.db");
    for (i, f) in files.iter().enumerate() {
        let r = json(&["import", "--db", s(&auto), "--seal", "--json", s(f)]);
        let compacted = r["compaction"]["segments_compacted"].as_u64();
        assert_eq!(compacted, Some(if i == 3 { 4 } else { 0 }), "{r}");
    }
    assert_eq!(segments(&auto), 1);
    assert_eq!(answers(&auto), want);

    // Left as written, then `qipu compact`.
    let later = dir.join("later.db");
    for f in &files {
        json(&[
            "import",
            "--db",
            s(&later),
            "--seal",
            "--no-compact",
            "--json",
            s(f),
        ]);
    }
    assert_eq!(segments(&later), 4);
    assert_eq!(answers(&later), want, "four segments answer as one");
    let (mode, _, before) = pages(&later);
    assert_eq!(mode, 2, "a new file gives its free pages back on request");
    let done = json(&["compact", "--db", s(&later), "--json"]);
    assert_eq!(
        (
            &done["segments_compacted"],
            &done["segments"],
            &done["promoted"]
        ),
        (&4.into(), &1.into(), &2.into()),
        "{done}"
    );
    assert_eq!(segments(&later), 1);
    assert_eq!(answers(&later), want);
    // The four segments' pages are given back: none is left free, and the file is smaller
    // than the four segments were (the start's rows, four of them, are one now).
    let (_, free, after) = pages(&later);
    let released = done["bytes_released"].as_u64().unwrap();
    assert_eq!(free, 0, "{done}");
    assert!(
        released > 0 && after < before,
        "{done}: {before} -> {after}"
    );
    let again = json(&["compact", "--db", s(&later), "--json"]);
    assert_eq!(again["compactions"], 0);
    // Pages left free (as by a release killed after its compaction's commit) are given back
    // by the next run, though it has nothing to compact.
    let conn = rusqlite::Connection::open(&later).unwrap();
    conn.execute_batch(
        "CREATE TABLE scratch (b BLOB); INSERT INTO scratch VALUES (zeroblob(1000000));
         DROP TABLE scratch; PRAGMA wal_checkpoint(TRUNCATE);",
    )
    .unwrap();
    drop(conn);
    assert!(pages(&later).1 > 200, "the scratch table's pages are free");
    let rerun = json(&["compact", "--db", s(&later), "--json"]);
    assert_eq!(rerun["compactions"], 0);
    assert!(
        rerun["bytes_released"].as_u64().unwrap() > 800_000,
        "{rerun}"
    );
    assert_eq!(pages(&later).1, 0);
    assert_eq!(answers(&later), want);
    let _ = std::fs::remove_dir_all(&dir);
}
