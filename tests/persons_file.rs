//! `qipu players --suggest`, the spelling file (`--spellings FILE`) and the user's decisions
//! (`--merge A B`, `--split NAME`), through the binary on hand-made games whose expected
//! answers are worked out by hand in the comments.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{import_pgn, pgn_game, run_ok as qipu};

/// (Red, Black, date, event) of the hand-made games.
const GAMES: &[(&str, &str, &str, &str)] = &[
    // 李來群 and 李萊群 read `li lai qun`, never meet, share 王嘉良 and 全國賽.
    ("李來群", "王嘉良", "1956.05.01", "全國賽"),
    ("王嘉良", "李來群", "1960.05.01", "全國賽"),
    ("李萊群", "王嘉良", "1957.05.01", "全國賽"),
    // 柳大華 (1990) and 柳大樺 (2000) read `liu da hua`, never meet, share nothing.
    ("柳大華", "胡榮華", "1990.01.01", "甲級聯賽"),
    ("呂欽", "柳大樺", "2000.01.01", "個人賽"),
    // 趙國榮 and 趙國容 read `zhao guo rong` but met: never proposed.
    ("趙國榮", "趙國容", "1985.01.01", "個人賽"),
    ("胡榮華", "呂欽", "1985.01.01", "個人賽"),
    // 楊官璘 / 楊官麟: one line of qipu's data/players.tsv.
    ("楊官璘", "胡榮華", "2001.01.01", "個人賽"),
    ("楊官麟", "呂欽", "2002.01.01", "個人賽"),
];

fn pgn() -> String {
    GAMES
        .iter()
        .map(|(red, black, date, event)| {
            pgn_game(
                &[
                    ("Event", event),
                    ("Date", date),
                    ("Red", red),
                    ("Black", black),
                ],
                "h2e2 h9g7",
                "1-0",
            )
        })
        .collect()
}

/// A database of `GAMES`, imported by the binary.
pub(crate) fn imported(dir: &Path) -> PathBuf {
    import_pgn(dir, &pgn(), &[])
}

pub(crate) fn json(args: &[&str]) -> Value {
    let (ok, out, err) = qipu(args);
    assert!(ok, "{args:?}: {err}");
    serde_json::from_str(&out).unwrap()
}

#[test]
fn suggest_proposes_homophones_that_never_met() {
    let dir = tempfile::tempdir().unwrap();
    let db = imported(dir.path());
    let db = db.to_str().unwrap();
    let v = json(&["players", "--suggest", "--db", db, "--json"]);
    let s = v["suggestions"].as_array().unwrap();
    // Two pairs: 趙國榮 / 趙國容 met, 楊官璘 / 楊官麟 are one person by data/players.tsv,
    // 胡榮華 and 呂欽 read like no one else.
    assert_eq!(s.len(), 2, "{v}");
    // Years that fit and shared evidence first.
    assert_eq!(s[0]["reading"], "li lai qun");
    assert_eq!(s[0]["a"]["name"], "李來群");
    assert_eq!(s[0]["a"]["games"], 2);
    assert_eq!(
        (
            s[0]["a"]["first_year"].as_u64(),
            s[0]["a"]["last_year"].as_u64()
        ),
        (Some(1956), Some(1960))
    );
    assert_eq!(s[0]["b"]["name"], "李萊群");
    assert_eq!(s[0]["b"]["games"], 1);
    assert_eq!(s[0]["b"]["first_year"], 1957);
    assert_eq!(s[0]["shared_opponents"], 1, "王嘉良");
    assert_eq!(s[0]["shared_events"], 1, "全國賽");
    assert_eq!(s[0]["years_fit"], true);
    // 1 game each: the tie goes to the first name in text order (柳大華 < 柳大樺).
    assert_eq!(s[1]["reading"], "liu da hua");
    let names = [
        s[1]["a"]["name"].as_str().unwrap(),
        s[1]["b"]["name"].as_str().unwrap(),
    ];
    let mut sorted = names;
    sorted.sort_unstable();
    assert_eq!(sorted, ["柳大樺", "柳大華"]);
    assert_eq!(s[1]["shared_opponents"], 0);
    assert_eq!(s[1]["shared_events"], 0);
    assert_eq!(s[1]["years_fit"], false, "1990 and 2000");
    // Proposed, never applied: 李萊群 is still a person of their own.
    let p = json(&["players", "李", "--db", db, "--json"]);
    assert_eq!(p["players"].as_array().unwrap().len(), 2, "{p}");
    let (ok, text, _) = qipu(&["players", "--suggest", "--db", db]);
    assert!(ok);
    assert_eq!(text.lines().count(), 2, "{text}");
    assert!(
        text.lines().next().unwrap().contains("reads li lai qun"),
        "{text}"
    );
    assert!(!text.contains("趙國"), "{text}");
}

/// `qipu players PATTERN --json`: (name, games, spellings) of each person.
pub(crate) fn persons(db: &str, pattern: &str) -> Vec<(String, u64, usize)> {
    let v = json(&["players", pattern, "--db", db, "--json"]);
    v["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap().to_string(),
                p["games"].as_u64().unwrap(),
                p["spellings"].as_array().unwrap().len(),
            )
        })
        .collect()
}

pub(crate) fn one(name: &str, games: u64, spellings: usize) -> Vec<(String, u64, usize)> {
    vec![(name.to_string(), games, spellings)]
}

#[test]
fn shipped_spellings_apply_at_import_and_a_split_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let db = imported(dir.path());
    let db = db.to_str().unwrap();
    // data/players.tsv: 楊官璘 (1 game) and 楊官麟 (1 game) are one, named 楊官璘.
    assert_eq!(persons(db, "楊官"), one("楊官璘", 2, 2));
    let (ok, _, err) = qipu(&["players", "--split", "楊官麟", "--db", db]);
    assert!(ok, "{err}");
    let split = vec![("楊官璘".to_string(), 1, 1), ("楊官麟".to_string(), 1, 1)];
    assert_eq!(persons(db, "楊官"), split);
    let (ok, _, err) = qipu(&["players", "--rebuild", "--db", db]);
    assert!(ok, "{err}");
    assert_eq!(persons(db, "楊官"), split, "--rebuild keeps the split");
    // A merge forgets the split.
    let (ok, _, err) = qipu(&["players", "--merge", "楊官麟", "楊官璘", "--db", db]);
    assert!(ok, "{err}");
    assert_eq!(
        persons(db, "楊官"),
        one("楊官麟", 2, 2),
        "named by --merge's first"
    );
}

#[test]
fn merge_is_kept_by_later_imports_and_refused_for_names_that_met() {
    let dir = tempfile::tempdir().unwrap();
    let db = imported(dir.path());
    let db = db.to_str().unwrap();
    let (ok, _, err) = qipu(&["players", "--merge", "柳大華", "柳大樺", "--db", db]);
    assert!(ok, "{err}");
    assert_eq!(persons(db, "柳大"), one("柳大華", 2, 2));
    // One more game of 柳大樺, imported later: still one person, now 3 games.
    let more = dir.path().join("more.pgn");
    std::fs::write(
        &more,
        "[Red \"柳大樺\"]\n[Black \"王嘉良\"]\n[Result \"1-0\"]\n\n1. c3c4 1-0\n\n",
    )
    .unwrap();
    let (ok, _, err) = qipu(&["import", more.to_str().unwrap(), "--db", db]);
    assert!(ok, "{err}");
    assert_eq!(persons(db, "柳大"), one("柳大華", 3, 2));
    // 趙國榮 and 趙國容 met in the sixth game (id 6, the sixth imported).
    let (ok, _, err) = qipu(&["players", "--merge", "趙國榮", "趙國容", "--db", db]);
    assert!(!ok);
    assert!(err.contains("--merge: 趙國榮 and 趙國容"), "{err}");
    assert!(err.contains("game 6 (趙國榮 - 趙國容, 1985"), "{err}");
    assert_eq!(persons(db, "趙國").len(), 2, "nothing changed");
    // A name that is no player.
    let (ok, _, err) = qipu(&["players", "--merge", "柳大華", "柳大話", "--db", db]);
    assert!(!ok);
    assert!(err.contains("no such player 柳大話"), "{err}");
}

#[test]
fn a_spelling_file_applies_in_one_transaction() {
    let dir = tempfile::tempdir().unwrap();
    let db = imported(dir.path());
    let db = db.to_str().unwrap();
    let file = dir.path().join("mine.tsv");
    let f = file.to_str().unwrap();
    let apply = |text: &str| {
        std::fs::write(&file, text).unwrap();
        qipu(&["players", "--spellings", f, "--db", db])
    };
    // A good line, then a line with one name: file:2, and the good line is not applied.
    let (ok, _, err) = apply("李萊群\t李來群\n\n王嘉良\n");
    assert!(!ok);
    assert!(err.contains(&format!("{f}:3: ")), "{err}");
    assert_eq!(persons(db, "李").len(), 2, "nothing changed");
    // A line joining two names that met: refused naming the game and the line.
    let (ok, _, err) = apply("# mine\n李萊群\t李來群\n趙國容\t趙國榮\n");
    assert!(!ok);
    assert!(err.contains(&format!("{f}:3: 趙國容 and 趙國榮")), "{err}");
    assert!(err.contains("game 6 "), "{err}");
    assert_eq!(persons(db, "李").len(), 2, "nothing changed");
    // The good file: one person named by the first column, though 李來群 has more games.
    let (ok, _, err) = apply("# mine\n李萊群\t李來群\n");
    assert!(ok, "{err}");
    assert_eq!(persons(db, "李"), one("李萊群", 3, 2));
    let (ok, _, err) = qipu(&["players", "--rebuild", "--db", db]);
    assert!(ok, "{err}");
    assert_eq!(persons(db, "李"), one("李萊群", 3, 2), "kept by --rebuild");
}
