//! `qipu players --suggest`, the spelling file (`--spellings FILE`) and the user's decisions
//! (`--merge A B`, `--split NAME`), through the binary on hand-made games whose expected
//! answers are worked out by hand in the comments.

use std::{
    path::{Path, PathBuf},
    process::Command,
};

use serde_json::Value;

/// (Red, Black, date, event) of the hand-made games.
const GAMES: &[(&str, &str, &str, &str)] = &[
    // 楊官璘 and 楊官麟 read `yang guan lin`, never meet, share 王嘉良 and 全國賽.
    ("楊官璘", "王嘉良", "1956.05.01", "全國賽"),
    ("王嘉良", "楊官璘", "1960.05.01", "全國賽"),
    ("楊官麟", "王嘉良", "1957.05.01", "全國賽"),
    // 卜鳳波 (1990) and 卜風波 (2000) read `bu feng bo`, never meet, share nothing.
    ("卜鳳波", "胡榮華", "1990.01.01", "甲級聯賽"),
    ("呂欽", "卜風波", "2000.01.01", "個人賽"),
    // 趙國榮 and 趙國容 read `zhao guo rong` but met: never proposed.
    ("趙國榮", "趙國容", "1985.01.01", "個人賽"),
    ("胡榮華", "呂欽", "1985.01.01", "個人賽"),
];

fn pgn() -> String {
    GAMES
        .iter()
        .map(|(red, black, date, event)| {
            format!(
                "[Event \"{event}\"]\n[Date \"{date}\"]\n[Red \"{red}\"]\n[Black \"{black}\"]\n\
                 [Result \"1-0\"]\n\n1. h2e2 h9g7 1-0\n\n"
            )
        })
        .collect()
}

fn qipu(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_qipu"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A database of `GAMES`, imported by the binary.
fn imported(dir: &Path) -> PathBuf {
    let file = dir.join("hand.pgn");
    std::fs::write(&file, pgn()).unwrap();
    let db = dir.join("hand.db");
    let (ok, _, err) = qipu(&[
        "import",
        file.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    db
}

fn json(args: &[&str]) -> Value {
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
    // Two pairs: 趙國榮 / 趙國容 met, 胡榮華 and 呂欽 read like no one else.
    assert_eq!(s.len(), 2, "{v}");
    // Years that fit and shared evidence first.
    assert_eq!(s[0]["reading"], "yang guan lin");
    assert_eq!(s[0]["a"]["name"], "楊官璘");
    assert_eq!(s[0]["a"]["games"], 2);
    assert_eq!(
        (
            s[0]["a"]["first_year"].as_u64(),
            s[0]["a"]["last_year"].as_u64()
        ),
        (Some(1956), Some(1960))
    );
    assert_eq!(s[0]["b"]["name"], "楊官麟");
    assert_eq!(s[0]["b"]["games"], 1);
    assert_eq!(s[0]["b"]["first_year"], 1957);
    assert_eq!(s[0]["shared_opponents"], 1, "王嘉良");
    assert_eq!(s[0]["shared_events"], 1, "全國賽");
    assert_eq!(s[0]["years_fit"], true);
    // 1 game each: the tie goes to the first name in text order (卜鳳波 < 卜風波).
    // 卜 reads bǔ or bo; the pinyin crate's usual reading is either.
    let reading = s[1]["reading"].as_str().unwrap();
    assert!(["bu feng bo", "bo feng bo"].contains(&reading), "{reading}");
    let names = [
        s[1]["a"]["name"].as_str().unwrap(),
        s[1]["b"]["name"].as_str().unwrap(),
    ];
    let mut sorted = names;
    sorted.sort_unstable();
    assert_eq!(sorted, ["卜風波", "卜鳳波"]);
    assert_eq!(s[1]["shared_opponents"], 0);
    assert_eq!(s[1]["shared_events"], 0);
    assert_eq!(s[1]["years_fit"], false, "1990 and 2000");
    // Proposed, never applied: 楊官麟 is still a person of their own.
    let p = json(&["players", "楊官", "--db", db, "--json"]);
    assert_eq!(p["players"].as_array().unwrap().len(), 2, "{p}");
    let (ok, text, _) = qipu(&["players", "--suggest", "--db", db]);
    assert!(ok);
    assert_eq!(text.lines().count(), 2, "{text}");
    assert!(
        text.lines().next().unwrap().contains("reads yang guan lin"),
        "{text}"
    );
    assert!(!text.contains("趙國"), "{text}");
}
