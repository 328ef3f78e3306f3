//! The user's decisions on persons through the binary (issue #29): `qipu players
//! --decisions` lists them with their origin, `--forget N|NAME` removes one, an unknown name
//! in `--merge`/`--split` names the nearest persons, and a spelling file's first column names
//! the person in `qipu players` and the dossier, even when no game is written so. On the
//! hand-made games of `tests/persons_file.rs`, expected answers worked out by hand.

use crate::{
    common::{import_pgn, pgn_game, run_ok as qipu},
    persons_file::{imported, json, one, persons},
};

#[test]
fn unknown_names_in_merge_and_split_name_the_nearest() {
    let dir = tempfile::tempdir().unwrap();
    let db = imported(dir.path());
    let db = db.to_str().unwrap();
    // 柳大話 is one character from 柳大華 and from 柳大樺 (1 game each, two persons).
    let (ok, _, err) = qipu(&["players", "--merge", "柳大華", "柳大話", "--db", db]);
    assert!(!ok);
    assert!(
        err.contains("--merge: no such player 柳大話; did you mean: "),
        "{err}"
    );
    assert!(
        err.contains("柳大華 (1 game)") && err.contains("柳大樺 (1 game)"),
        "{err}"
    );
    // 楊官林 is one character from the person of 楊官璘 and 楊官麟 (2 games).
    let (ok, _, err) = qipu(&["players", "--split", "楊官林", "--db", db]);
    assert!(!ok);
    assert!(err.contains("--split: no such player 楊官林"), "{err}");
    assert!(err.contains("(2 games)"), "{err}");
    let (ok, _, err) = qipu(&["players", "--split", "nobody", "--db", db]);
    assert!(!ok && !err.contains("did you mean"), "{err}");
    let v = json(&["players", "--decisions", "--db", db, "--json"]);
    assert_eq!(v["decisions"], serde_json::json!([]), "nothing recorded");
}

/// `qipu players --decisions` as (id, kind, person, name, origin).
fn decisions(db: &str) -> Vec<(u64, String, String, String, String)> {
    let v = json(&["players", "--decisions", "--db", db, "--json"]);
    v["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let s = |k: &str| d[k].as_str().unwrap().to_string();
            (
                d["id"].as_u64().unwrap(),
                s("kind"),
                s("person"),
                s("name"),
                s("origin"),
            )
        })
        .collect()
}

#[test]
fn decisions_are_listed_and_forgotten() {
    let dir = tempfile::tempdir().unwrap();
    let db = imported(dir.path());
    let db = db.to_str().unwrap();
    for args in [&["--merge", "柳大華", "柳大樺"][..], &["--split", "楊官麟"]] {
        let mut all = vec!["players", "--db", db];
        all.extend_from_slice(args);
        let (ok, _, err) = qipu(&all);
        assert!(ok, "{err}");
    }
    let file = dir.path().join("mine.tsv");
    std::fs::write(&file, "# mine\n李來群\t李萊群\tLi Laiqun\n").unwrap();
    let f = file.to_str().unwrap();
    let (ok, _, err) = qipu(&["players", "--spellings", f, "--db", db]);
    assert!(ok, "{err}");
    let d = |id, kind: &str, person: &str, name: &str, origin: &str| {
        (
            id,
            kind.to_string(),
            person.to_string(),
            name.to_string(),
            origin.to_string(),
        )
    };
    let line = format!("{f}:2");
    assert_eq!(
        decisions(db),
        vec![
            d(1, "merge", "柳大華", "柳大樺", "--merge"),
            d(2, "split", "楊官麟", "楊官麟", "--split"),
            d(3, "merge", "李來群", "李萊群", &line),
            d(4, "merge", "李來群", "Li Laiqun", &line),
        ]
    );
    let (ok, text, _) = qipu(&["players", "--decisions", "--db", db]);
    assert!(ok);
    assert_eq!(text.lines().count(), 4, "{text}");
    assert!(
        text.contains("merge 柳大樺 into 柳大華 (--merge)"),
        "{text}"
    );
    // 李來群 is the person of two decisions: refused, nothing forgotten.
    let (ok, _, err) = qipu(&["players", "--forget", "李來群", "--db", db]);
    assert!(!ok);
    assert!(
        err.contains("is in decisions 3, 4; give one number"),
        "{err}"
    );
    assert_eq!(decisions(db).len(), 4);
    // By the name it joins: the merge goes, the two are persons again.
    let (ok, _, err) = qipu(&["players", "--forget", "柳大樺", "--db", db]);
    assert!(ok, "{err}");
    assert!(err.contains("forgot decision 1"), "{err}");
    assert_eq!(persons(db, "柳大").len(), 2);
    // By number: the split goes, data/players.tsv joins 楊官麟 again.
    assert_eq!(persons(db, "楊官").len(), 2);
    let (ok, _, err) = qipu(&["players", "--forget", "2", "--db", db]);
    assert!(ok, "{err}");
    assert_eq!(persons(db, "楊官"), one("楊官璘", 2, 2));
    let (ok, _, err) = qipu(&["players", "--forget", "9", "--db", db]);
    assert!(!ok && err.contains("no decision 9"), "{err}");
    let left: Vec<u64> = decisions(db).iter().map(|d| d.0).collect();
    assert_eq!(left, [3, 4]);
}

#[test]
fn a_spelling_file_names_the_person_in_players_and_the_dossier() {
    let dir = tempfile::tempdir().unwrap();
    // 楊官麟 (2 games) and 楊官嶙 (1 game), never 楊官璘: data/players.tsv's line
    // `楊官璘 楊官麟 楊官嶙 …` makes them one person named 楊官璘, a name of no game.
    let games = [
        ("楊官麟", "胡榮華"),
        ("呂欽", "楊官麟"),
        ("楊官嶙", "王嘉良"),
        ("李來群", "王嘉良"),
        ("李萊群", "柳大華"),
        ("李萊群", "柳大華"),
    ];
    let pgn: String = games
        .iter()
        .enumerate()
        .map(|(i, (red, black))| {
            // A date each: no game is a duplicate of another.
            let date = format!("2001.01.{:02}", i + 1);
            pgn_game(
                &[("Red", red), ("Black", black), ("Date", &date)],
                "h2e2 h9g7",
                "1-0",
            )
        })
        .collect();
    let db = import_pgn(dir.path(), &pgn, &[]);
    let db = db.to_str().unwrap();
    assert_eq!(persons(db, "楊官"), one("楊官璘", 3, 2));
    let (ok, text, _) = qipu(&["players", "楊官", "--db", db]);
    assert!(ok);
    assert!(
        text.contains("楊官璘  (also: 楊官麟 2, 楊官嶙 1)"),
        "{text}"
    );
    let dossier = |name: &str| json(&["player", name, "--db", db, "--json"]);
    let d = dossier("楊官嶙");
    assert_eq!(
        (d["player"].as_str(), d["games"].as_u64()),
        (Some("楊官璘"), Some(3))
    );
    // The user's file: the first column names the person though 李萊群 has more games,
    // and though it is no stored name.
    let file = dir.path().join("mine.tsv");
    std::fs::write(&file, "Li Laiqun\t李來群\t李萊群\n").unwrap();
    let (ok, _, err) = qipu(&["players", "--spellings", file.to_str().unwrap(), "--db", db]);
    assert!(ok, "{err}");
    assert_eq!(persons(db, "李"), one("Li Laiqun", 3, 2));
    assert_eq!(dossier("李來群")["player"], "Li Laiqun");
    // Split off, 李來群 is named by itself; the rest of the line still names 李萊群's.
    let (ok, _, err) = qipu(&["players", "--split", "李來群", "--db", db]);
    assert!(ok, "{err}");
    let mut got = persons(db, "李");
    got.sort();
    assert_eq!(
        got,
        vec![
            ("Li Laiqun".to_string(), 2, 1),
            ("李來群".to_string(), 1, 1)
        ]
    );
    assert_eq!(dossier("李來群")["player"], "李來群");
}
