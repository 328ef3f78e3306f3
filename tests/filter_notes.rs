//! Filters the aggregates answer more coarsely than they were given say so (issue #30,
//! item 8): a day counts as its month, a rating as its band of 200. Through the binary on a
//! hand-made collection whose counts are written here by hand.

use std::path::Path;
use std::process::Command;

/// Three games: two in March 2010 (the 5th and the 20th), one on 2 April; rated 1850, 1950
/// and 2100 on both sides.
const GAMES: &str = "[Red \"A\"]\n[Black \"B\"]\n[Date \"2010.03.05\"]\n[RedElo \"1850\"]\n[BlackElo \"1850\"]\n1. h2e2 h9g7 1-0\n\n\
[Red \"A\"]\n[Black \"C\"]\n[Date \"2010.03.20\"]\n[RedElo \"1950\"]\n[BlackElo \"1950\"]\n1. h2e2 h9g7 0-1\n\n\
[Red \"B\"]\n[Black \"C\"]\n[Date \"2010.04.02\"]\n[RedElo \"2100\"]\n[BlackElo \"2100\"]\n1. h2e2 b9c7 1/2-1/2\n";

fn explore(db: &Path, filter: &[&str]) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_qipu"))
        .args(["explore", "--db", db.to_str().unwrap(), "--json"])
        .args(filter)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn notes(doc: &serde_json::Value) -> Vec<String> {
    doc["notes"]
        .as_array()
        .map(|a| a.iter().map(|n| n.as_str().unwrap().to_string()).collect())
        .unwrap_or_default()
}

#[test]
fn a_filter_read_coarser_than_given_says_how() {
    let dir = std::env::temp_dir().join(format!("qipu-filter-notes-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let pgn = dir.join("g.pgn");
    std::fs::write(&pgn, GAMES).unwrap();
    let db = dir.join("g.db");
    let st = Command::new(env!("CARGO_BIN_EXE_qipu"))
        .args([
            "import",
            pgn.to_str().unwrap(),
            "--db",
            db.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );

    // A day: the whole of March counts, so the game of the 5th is in, and the note says so.
    let day = explore(&db, &["--since", "2010-03-12"]);
    assert_eq!(day["games"], 3);
    let n = notes(&day);
    assert_eq!(n.len(), 1, "{n:?}");
    assert!(
        n[0].starts_with("since 2010-03-12 counts the whole month"),
        "{n:?}"
    );
    assert!(n[0].contains("from 2010-03 on"), "{n:?}");

    // The same filter given as a month is taken as written: no note.
    let month = explore(&db, &["--since", "2010-03"]);
    assert_eq!(month["games"], 3);
    assert!(notes(&month).is_empty(), "{:?}", notes(&month));
    assert!(explore(&db, &["--since", "2010-04"])["games"] == 1);

    // An until day inside April counts to the end of April.
    let until = explore(&db, &["--until", "2010-04-01"]);
    assert_eq!(until["games"], 3);
    assert!(
        notes(&until)[0].contains("to the end of 2010-04"),
        "{:?}",
        notes(&until)
    );

    // A rating inside a band: 1850 counts from 1800, so all three games pass; 1800 itself
    // is a band floor and gets no note.
    let rated = explore(&db, &["--min-rating", "1850"]);
    assert_eq!(rated["games"], 3);
    let n = notes(&rated);
    assert_eq!(n.len(), 1, "{n:?}");
    assert!(
        n[0].contains("min_rating 1850 counts its whole band"),
        "{n:?}"
    );
    assert!(n[0].contains("from 1800 on"), "{n:?}");
    assert!(notes(&explore(&db, &["--min-rating", "1800"])).is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_terminal_prints_the_notes_after_the_totals() {
    let dir = std::env::temp_dir().join(format!("qipu-filter-notes-cli-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let pgn = dir.join("g.pgn");
    std::fs::write(&pgn, GAMES).unwrap();
    let db = dir.join("g.db");
    let bin = env!("CARGO_BIN_EXE_qipu");
    assert!(Command::new(bin)
        .args([
            "import",
            pgn.to_str().unwrap(),
            "--db",
            db.to_str().unwrap()
        ])
        .output()
        .unwrap()
        .status
        .success());
    let out = Command::new(bin)
        .args([
            "explore",
            "--db",
            db.to_str().unwrap(),
            "--until",
            "2010-03-31",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    let totals = lines
        .iter()
        .position(|l| l.starts_with("2 games"))
        .expect("totals line");
    assert!(
        lines[totals + 1].starts_with("note: until 2010-03-31 counts the whole month"),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
