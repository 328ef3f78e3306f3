//! Errors with kinds and locations: the kind of each failure, byte offsets of text records
//! counted in the file (also across the chunks of a large PGN), the folder walk's skipping
//! decided by kind, and the import report's `kind` column with games numbered from 1.

use qipu::formats::{chunks_of_bytes, read_bytes, read_path, ErrorKind, GameNumbers};

#[test]
fn kinds_of_whole_file_failures() {
    let kind = |name: &str, bytes: &[u8]| {
        let got = read_bytes(name, bytes);
        assert_eq!(got.len(), 1, "{name}");
        let e = got[0].as_ref().unwrap_err().clone();
        assert_eq!(e.game, None, "{name}");
        e.kind
    };
    assert_eq!(kind("a.txt", b"   \n"), ErrorKind::Empty);
    assert_eq!(
        kind("a.txt", b"MIT License\n\nCopyright"),
        ErrorKind::NotARecord
    );
    assert_eq!(
        kind(
            "go.gib",
            b"\\HS\n\\[GAMEBLACKNAME=a\\]\n\\HE\n\\GS\n2 1 0\n\\GE\n"
        ),
        ErrorKind::GoRecord
    );
    assert!(matches!(
        kind("x.zip", b"PK\x03\x04garbage that is no zip"),
        ErrorKind::Malformed(_)
    ));
    // Messages keep their wording.
    assert_eq!(
        ErrorKind::NotARecord.to_string(),
        "not a game record in any supported format"
    );
}

#[test]
fn kinds_of_game_failures_and_their_sources() {
    let text = "[Event \"1\"]\n1. h2e2 h9g7 *\n[Event \"2\"]\n1. h2e2 h2h9 *\n\
                [Event \"3\"]\n[FEN \"9/9/9/9/9/9/9/9/9/9 w\"]\n1. h2e2 *\n";
    let games = read_bytes("k.pgn", text.as_bytes());
    let replayed: Vec<_> = games
        .iter()
        .map(|g| qipu::formats::replay(g.as_ref().unwrap()))
        .collect();
    assert!(replayed[0].is_ok());
    let illegal = replayed[1].as_ref().unwrap_err();
    assert_eq!((illegal.game, illegal.ply), (Some(1), Some(2)));
    assert_eq!(illegal.kind.name(), "illegal_move");
    assert_eq!(illegal.reason(), "illegal move `h2h9`");
    assert!(std::error::Error::source(illegal).is_some());
    let start = replayed[2].as_ref().unwrap_err();
    assert_eq!(start.kind.name(), "bad_start");
    assert!(
        start.reason().starts_with("bad start position: "),
        "{start}"
    );
}

#[test]
fn text_offsets_count_in_the_file_across_chunks() {
    // A game nested too deep, far into a PGN text large enough to be cut into chunks.
    let good = "[Event \"a\"]\n1. h2e2 h9g7 *\n";
    let n = 20_000;
    let mut text = good.repeat(n);
    let bad_at = text.len();
    text.push_str("[Event \"deep\"]\n");
    let movetext_at = text.len();
    text.push_str(&"(".repeat(500));
    text.push_str("h2e2 *\n");
    let chunks = chunks_of_bytes("big.pgn", text.clone().into_bytes());
    assert!(chunks.len() > 1);
    let mut numbers = GameNumbers::default();
    let mut errors = Vec::new();
    for p in &chunks {
        let mut items = p.read();
        numbers.place(p, &mut items);
        errors.extend(items.into_iter().filter_map(Result::err));
    }
    assert_eq!(errors.len(), 1);
    let e = &errors[0];
    assert_eq!(e.game, Some(n));
    assert_eq!(e.kind.name(), "refused");
    let offset = e.offset.unwrap();
    assert_eq!(offset as usize, bad_at, "the game starts at its first tag");
    assert!(movetext_at > bad_at);
    assert!(
        e.to_string()
            .contains(&format!("(at byte {offset} of the text)")),
        "{e}"
    );
}

#[test]
fn folder_walk_skips_by_kind_but_reports_records() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("README"), "Notes about these games.").unwrap();
    std::fs::write(dir.path().join("empty.txt"), "").unwrap();
    std::fs::write(
        dir.path().join("broken.pgn"),
        "no tags, no moves, just prose here",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("go.txt"),
        b"\\HS\n\\[GAMEBLACKNAME=a\\]\n\\HE\n\\GS\n2 1 0\n\\GE\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("ok.pgn"), "1. h2e2 h9g7 *").unwrap();
    let got: Vec<_> = read_path(dir.path()).collect();
    let errors: Vec<_> = got.iter().filter_map(|g| g.as_ref().err()).collect();
    // README and empty.txt are skipped; a .pgn that is not a record and a Go record are not.
    let mut named: Vec<_> = errors
        .iter()
        .map(|e| {
            let file = std::path::Path::new(&e.file)
                .file_name()
                .unwrap()
                .to_str()
                .unwrap();
            (file.to_string(), e.kind.name())
        })
        .collect();
    named.sort();
    assert_eq!(
        named,
        [
            ("broken.pgn".to_string(), "not_a_record"),
            ("go.txt".to_string(), "go_record")
        ]
    );
    assert_eq!(got.iter().filter(|g| g.is_ok()).count(), 1);
}

/// `qipu import PGN --db DB --report REPORT`, which must exit 1 (some games rejected);
/// returns its standard error.
fn import_rejecting(
    pgn: &std::path::Path,
    db: &std::path::Path,
    report: &std::path::Path,
) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_qipu"))
        .arg("import")
        .arg(pgn)
        .arg("--db")
        .arg(db)
        .arg("--report")
        .arg(report)
        // a bad move rejects the game whole (else the game is kept up to it: tests/truncated.rs)
        .arg("--strict")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn import_report_has_kinds_and_numbers_games_from_one() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("three.pgn");
    std::fs::write(
        &pgn,
        "[Event \"1\"]\n1. h2e2 h9g7 *\n[Event \"2\"]\n1. h2e2 h2h9 *\n[Event \"3\"]\n1. h2e2 zz *\n",
    )
    .unwrap();
    let report = dir.path().join("report.csv");
    let stderr = import_rejecting(&pgn, &dir.path().join("k.db"), &report);
    assert!(stderr.contains("game 2, ply 2 `h2h9`"), "{stderr}");
    let mut r = csv::Reader::from_path(&report).unwrap();
    assert_eq!(
        r.headers().unwrap().iter().collect::<Vec<_>>(),
        ["file", "game", "ply", "token", "kind", "reason", "offset", "fate"]
    );
    let rows: Vec<Vec<String>> = r
        .records()
        .map(|x| x.unwrap().iter().map(str::to_string).collect())
        .collect();
    let short: Vec<_> = rows
        .iter()
        .map(|r| {
            (
                r[1].as_str(),
                r[2].as_str(),
                r[3].as_str(),
                r[4].as_str(),
                r[5].as_str(),
                r[7].as_str(),
            )
        })
        .collect();
    assert_eq!(
        short,
        [
            (
                "2",
                "2",
                "h2h9",
                "illegal_move",
                "illegal move `h2h9`",
                "rejected"
            ),
            (
                "3",
                "2",
                "zz",
                "unreadable_move",
                "cannot read move `zz`",
                "rejected"
            ),
        ]
    );
}

/// A real record with an illegal move (`ccpd-illegal-move.pgn`, ply 18 `士４進５`): its replay
/// error names the file, game, ply, token and the game's byte offset; the import report fills
/// the `offset` column, also when the game sits far into a large PGN cut into chunks.
#[test]
fn replay_errors_of_a_real_record_carry_its_byte_offset() {
    let fixture = crate::common::fixture("errors/ccpd-illegal-move.pgn");
    let games: Vec<_> = read_path(&fixture).collect();
    assert_eq!(games.len(), 1);
    let e = qipu::formats::replay(games[0].as_ref().unwrap()).unwrap_err();
    assert_eq!((e.game, e.ply), (Some(0), Some(18)));
    assert_eq!(e.token.as_deref(), Some("士４進５"));
    assert_eq!(e.kind.name(), "illegal_move");
    assert_eq!(e.offset, Some(0), "the only game starts the file");
    assert!(e.to_string().contains("(at byte 0 of the text)"), "{e}");

    // The same game behind 2,000 real games of the sample (decoded here from Big5 with
    // encoding_rs, not with qipu's decoder), in one UTF-8 PGN of several chunks, then one
    // more game.
    let big5 = |p: &std::path::Path| {
        let bytes = std::fs::read(p).unwrap();
        let (text, _, bad) = encoding_rs::BIG5.decode(&bytes);
        assert!(!bad, "{}", p.display());
        text.into_owned()
    };
    let sample = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data/ccpd/Dataset/對局/大師對局/以賽事分類/亞洲杯/00000001.pgn");
    let good = big5(&sample);
    let mut text = String::new();
    let n = 2_000;
    for _ in 0..n {
        text.push_str(&good);
        text.push('\n');
    }
    let bad_at = text.len();
    text.push_str(&big5(&fixture));
    text.push('\n');
    text.push_str(&good);
    assert!(text.len() > 2 * qipu::formats::PGN_CHUNK_BYTES);
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("big.pgn");
    std::fs::write(&pgn, &text).unwrap();
    assert!(qipu::formats::chunks(&pgn).count() > 1);
    let report = dir.path().join("report.csv");
    let stderr = import_rejecting(&pgn, &dir.path().join("big.db"), &report);
    let said = format!("game {}, ply 18 `士４進５`", n + 1);
    assert!(stderr.contains(&said), "{stderr}");
    assert!(
        stderr.contains(&format!("(at byte {bad_at} of the text)")),
        "{stderr}"
    );
    let mut r = csv::Reader::from_path(&report).unwrap();
    let rows: Vec<csv::StringRecord> = r.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 1, "{rows:?}");
    let row: Vec<&str> = rows[0].iter().collect();
    let game = (n + 1).to_string();
    let offset = bad_at.to_string();
    assert_eq!(
        (row[1], row[2], row[3], row[4], row[6]),
        (
            game.as_str(),
            "18",
            "士４進５",
            "illegal_move",
            offset.as_str()
        )
    );
    assert!(text[bad_at..].starts_with("[Game \"Chinese Chess\"]"));
    // Without --strict the game is kept up to ply 17, and its error is placed the same way.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_qipu"))
        .arg("import")
        .arg(&pgn)
        .arg("--db")
        .arg(dir.path().join("kept.db"))
        .arg("--json")
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["rejected"], 0);
    let t = &v["truncated_games"][0];
    assert_eq!(
        (t["game"].as_u64(), t["ply"].as_u64(), t["offset"].as_u64()),
        (Some(n as u64), Some(18), Some(bad_at as u64)),
        "{v}"
    );
}
