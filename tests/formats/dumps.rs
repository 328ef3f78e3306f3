//! Move-list dumps (one game a line) made from real games by `make_dumps.py` in
//! `tests/data/dumps/`, read through `read_bytes` (recognised by content) and
//! checked line by line against the script's own reading of the source PGN.

use qipu::formats::{read_bytes, read_path, replay, Game};
use serde_json::Value;

use crate::common::fixture;

fn expected() -> Value {
    let text = std::fs::read_to_string(fixture("dumps/expected.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn game_id(g: &Game) -> Option<&str> {
    g.tags
        .raw
        .iter()
        .find(|(n, _)| n == "GameId")
        .map(|(_, v)| v.as_str())
}

fn check(name: &str) {
    let bytes = std::fs::read(fixture(&format!("dumps/{name}"))).unwrap();
    let text = String::from_utf8(bytes.clone()).unwrap();
    let got = read_bytes(name, &bytes);
    let exp = expected();
    let exp = exp[name].as_array().unwrap();
    assert_eq!(got.len(), exp.len(), "{name}: one game (or error) per line");
    for (i, (g, e)) in got.iter().zip(exp).enumerate() {
        let line = e["line"].as_u64().unwrap() as usize;
        let line_start: usize = text
            .split_inclusive('\n')
            .take(line - 1)
            .map(str::len)
            .sum();
        match g {
            Ok(g) => {
                assert_eq!(g.source.index, i, "{name} line {line}");
                assert_eq!(game_id(g), e["id"].as_str(), "{name} line {line}");
                let r = replay(g).unwrap_or_else(|err| panic!("{name} line {line}: {err}"));
                let moves: Vec<String> = r.moves.iter().map(ToString::to_string).collect();
                let want: Vec<String> = e["moves"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|m| m.as_str().unwrap().to_string())
                    .collect();
                assert_eq!(moves, want, "{name} line {line}");
                if let Some(result) = e["result"].as_str() {
                    let tag = g.tags.raw.iter().find(|(n, _)| n == "Result");
                    assert_eq!(tag.map(|(_, v)| v.as_str()), Some(result));
                    assert_eq!(g.tags.result.is_some(), result != "*", "{name} line {line}");
                }
            }
            Err(err) => {
                let why = e["error"]
                    .as_str()
                    .unwrap_or_else(|| panic!("{name} line {line}: {err}"));
                assert_eq!(err.game, Some(i), "{err}");
                assert_eq!(err.reason(), format!("line {line}: {why}"), "{err}");
                assert_eq!(err.kind.name(), "malformed");
                assert_eq!(err.offset.map(|o| o as usize), Some(line_start), "{err}");
                assert_eq!(err.ply, e["ply"].as_u64().map(|p| p as usize), "{err}");
                assert_eq!(err.token.as_deref(), e["token"].as_str(), "{err}");
            }
        }
    }
}

#[test]
fn semicolon_separated_with_ids_header_and_bad_lines() {
    check("semicolon.txt");
}

#[test]
fn tab_separated_upper_case_iccs_with_results() {
    check("tab.txt");
}

#[test]
fn comma_separated_without_ids_ranks_from_one() {
    check("no-id.txt");
}

#[test]
fn a_folder_of_dumps_reads_every_line() {
    let games: Vec<_> = read_path(&fixture("dumps")).collect();
    // expected.json is JSON, not a record: skipped in the walk.
    let exp = expected();
    let lines: usize = exp
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_array().unwrap().len())
        .sum();
    assert_eq!(games.len(), lines);
}

#[test]
fn one_game_over_several_lines_stays_one_game() {
    let g = read_bytes("m.txt", b"h2e2 h9g7\nh0g2 i9h9\n");
    assert_eq!(g.len(), 1);
    assert_eq!(g[0].as_ref().unwrap().moves.len(), 4);
}

#[test]
fn imported_dump_exports_to_standard_output() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("d.db");
    let qipu = env!("CARGO_BIN_EXE_qipu");
    let import = std::process::Command::new(qipu)
        .arg("import")
        .arg(fixture("dumps/tab.txt"))
        .arg("--db")
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(import.status.code(), Some(0), "{import:?}");
    let out = std::process::Command::new(qipu)
        .args(["export", "--games", "-", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let mut r = csv::Reader::from_reader(out.stdout.as_slice());
    let col = r
        .headers()
        .unwrap()
        .iter()
        .position(|h| h == "moves")
        .unwrap();
    let mut got: Vec<String> = r.records().map(|x| x.unwrap()[col].to_string()).collect();
    let exp = expected();
    let mut want: Vec<String> = exp["tab.txt"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let moves: Vec<&str> = e["moves"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m.as_str().unwrap())
                .collect();
            moves.join(" ")
        })
        .collect();
    got.sort();
    want.sort();
    assert_eq!(got, want);
}
