//! `qipu analyse` end to end: the real engine (Fairy-Stockfish, skipped with a message where
//! it is not installed) on both games, a kill -9 mid-run and its resumption, the scores
//! against the engine's own answer, the sign of a chariot blunder, and a fake engine for
//! hangs, crashes and garbage.

use std::{
    collections::{BTreeMap, BTreeSet, HashMap},
    io::{BufRead, BufReader, Write},
    path::{Path, PathBuf},
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use qipu::{
    formats::{facts::Score, Game, MoveNode, Source},
    pipeline::{import, ImportOptions},
    rules::{AnyPosition, JanggiRules, Move, Variant},
    store::Store,
};

use crate::common::{fake_engine, fixture, real_engine as engine};

/// A game from canonical moves; `tag` keeps otherwise equal games apart.
fn game(variant: Variant, moves: &[&str], tag: usize) -> Game {
    let mut g = Game::new(variant, Source::default());
    g.moves = moves.iter().map(|m| MoveNode::new(*m)).collect();
    g.tags.first = Some(format!("player {tag}"));
    g
}

/// Xiangqi games through the position after h0g2 h9g7 i0i1 b9c7, where i1h1 drops the
/// chariot to the h7 cannon (h2 is the screen, nothing guards h1), plus some others.
fn xiangqi_games() -> Vec<Vec<&'static str>> {
    let base = ["h0g2", "h9g7", "i0i1", "b9c7"];
    let with = |rest: &[&'static str]| base.iter().chain(rest).copied().collect::<Vec<_>>();
    vec![
        with(&["i1h1", "h7h1"]),
        with(&["b0c2", "a9a8"]),
        with(&["b0c2", "h7h3"]),
        with(&["b2e2", "a9a8"]),
        vec!["h2e2", "h9g7", "h0g2"],
        vec!["h2e2", "h9g7", "b0c2"],
        vec!["h2e2", "b9c7"],
        vec!["c3c4", "g6g5"],
    ]
}

/// Janggi games chosen from the legal moves (no passes), branching at every ply.
fn janggi_games() -> Vec<Vec<String>> {
    (0..6)
        .map(|g| {
            let mut pos = AnyPosition::new(Variant::Janggi).with_janggi_rules(JanggiRules::SERVER);
            let mut out = Vec::new();
            for ply in 0..4 {
                let mut moves: Vec<Move> = pos
                    .legal_moves()
                    .iter()
                    .copied()
                    .filter(|m| !m.is_pass())
                    .collect();
                moves.sort_by_key(|m| m.to_u16());
                let pick = [g / 3, g / 2, g, g + 1][ply];
                let m = moves[(pick * 7 + ply) % moves.len()];
                pos.play(m).unwrap();
                out.push(m.to_string());
            }
            out
        })
        .collect()
}

/// All test games, in one list.
fn all_games(janggi: bool) -> Vec<(Variant, Vec<String>)> {
    let mut out: Vec<(Variant, Vec<String>)> = xiangqi_games()
        .into_iter()
        .map(|g| (Variant::Xiangqi, g.into_iter().map(String::from).collect()))
        .collect();
    if janggi {
        out.extend(janggi_games().into_iter().map(|g| (Variant::Janggi, g)));
    }
    out
}

fn make_db(path: &Path, janggi: bool) {
    let games: Vec<_> = all_games(janggi)
        .iter()
        .enumerate()
        .map(|(i, (v, moves))| {
            let moves: Vec<&str> = moves.iter().map(String::as_str).collect();
            Ok(game(*v, &moves, i))
        })
        .collect();
    let mut store = Store::open(path).unwrap();
    let report = import(
        &mut store,
        games.into_iter(),
        &ImportOptions::default(),
        |_| {},
    )
    .unwrap();
    assert_eq!(report.rejected, 0);
}

/// The positions with at least `min_games` games within `max_ply` plies and the moves played
/// there, counted from the game lists (not from the store): key → (position, moves).
fn expected_positions(
    games: &[(Variant, Vec<String>)],
    min_games: usize,
    max_ply: usize,
) -> BTreeMap<u64, (AnyPosition, BTreeSet<Move>)> {
    let mut through: HashMap<u64, (AnyPosition, BTreeSet<usize>, BTreeSet<Move>)> = HashMap::new();
    for (gi, (v, moves)) in games.iter().enumerate() {
        let mut pos = AnyPosition::new(*v).with_janggi_rules(JanggiRules::SERVER);
        for ply in 0..=max_ply.min(moves.len()) {
            let e = through
                .entry(pos.key())
                .or_insert_with(|| (pos.clone(), BTreeSet::new(), BTreeSet::new()));
            e.1.insert(gi);
            if let Some(m) = moves.get(ply) {
                let m: Move = m.parse().unwrap();
                e.2.insert(m);
                pos.play(m).unwrap();
            }
        }
    }
    through
        .into_iter()
        .filter(|(_, (_, g, _))| g.len() >= min_games)
        .map(|(k, (p, _, m))| (k, (p, m)))
        .collect()
}

fn qipu() -> Command {
    Command::new(env!("CARGO_BIN_EXE_qipu"))
}

fn analyse_json(
    db: &Path,
    engine: &Path,
    extra: &[&str],
    env: &[(&str, &str)],
) -> (i32, serde_json::Value) {
    let mut cmd = qipu();
    cmd.arg("analyse")
        .arg("--db")
        .arg(db)
        .arg("--engine")
        .arg(engine)
        .args(extra)
        .arg("--json");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let doc = serde_json::from_str(&stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {stdout}\nstderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().unwrap_or(-1), doc)
}

/// Every stored row: evals (key, move code, cp, mate, depth) and best moves (key, move, depth).
type Dump = (
    BTreeSet<(i64, i64, Option<i64>, Option<i64>, i64)>,
    BTreeSet<(i64, Option<i64>, i64)>,
);

fn dump(db: &Path) -> Dump {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut evals = BTreeSet::new();
    let mut stmt = conn
        .prepare("SELECT key, mv, cp, mate, depth FROM evals")
        .unwrap();
    let rows = stmt
        .query_map([], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
        })
        .unwrap();
    for r in rows {
        evals.insert(r.unwrap());
    }
    let mut best = BTreeSet::new();
    let mut stmt = conn
        .prepare("SELECT key, mv, depth FROM eval_best")
        .unwrap();
    for r in stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
    {
        best.insert(r.unwrap());
    }
    (evals, best)
}

/// Asks the engine directly (not through qipu's engine module) for `go depth N searchmoves M`
/// from a clean state: the score it prints last.
fn engine_says(engine: &Path, variant: Variant, fen: &str, mv: &str, depth: u32) -> Score {
    let mut child = Command::new(engine)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(
        stdin,
        "uci\nsetoption name Threads value 1\nsetoption name UCI_Variant value {}\nucinewgame\nposition fen {fen}\ngo depth {depth} searchmoves {mv}",
        variant.name()
    )
    .unwrap();
    stdin.flush().unwrap();
    let mut last = None;
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let line = line.unwrap();
        let w: Vec<&str> = line.split_whitespace().collect();
        if w.first() == Some(&"bestmove") {
            assert_eq!(w.get(1), Some(&mv), "{line}");
            break;
        }
        if w.first() == Some(&"info") && !w.contains(&"lowerbound") && !w.contains(&"upperbound") {
            if let Some(i) = w.iter().position(|x| *x == "score") {
                let n: i32 = w[i + 2].parse().unwrap();
                last = Some(if w[i + 1] == "cp" {
                    Score::Cp(n)
                } else {
                    Score::Mate(n)
                });
            }
        }
    }
    let _ = writeln!(stdin, "quit");
    let _ = child.wait();
    last.unwrap()
}

/// Fairy-Stockfish's spelling of a move (ranks 1–10), written here independently.
fn fs_text(m: Move) -> String {
    let t = m.to_string();
    let b = t.as_bytes();
    format!(
        "{}{}{}{}",
        b[0] as char,
        b[1] - b'0' + 1,
        b[2] as char,
        b[3] - b'0' + 1
    )
}

#[test]
fn real_engine_scores_every_played_move_of_both_games() {
    let Some(engine) = engine() else { return };
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("a.db");
    make_db(&db, true);
    let (code, doc) = analyse_json(
        &db,
        &engine,
        &[
            "--depth",
            "5",
            "--min-games",
            "2",
            "--max-ply",
            "4",
            "--jobs",
            "2",
        ],
        &[],
    );
    assert_eq!(code, 0, "{doc}");
    let expected = expected_positions(&all_games(true), 2, 4);
    assert!(expected
        .values()
        .any(|(p, _)| p.variant() == Variant::Janggi));
    assert_eq!(doc["positions"], expected.len(), "{doc}");
    assert_eq!(doc["analysed"], expected.len(), "{doc}");
    assert_eq!(doc["failed"], 0);
    let store = Store::open_read_only(&db).unwrap();
    let mut scored = 0;
    for (key, (pos, played)) in &expected {
        let evals = store.evals_at(*key).unwrap();
        let stored: BTreeSet<Move> = evals.iter().map(|e| e.mv).collect();
        assert!(
            played.is_subset(&stored),
            "{}: {played:?} vs {stored:?}",
            pos.fen()
        );
        let best = store.engine_best(*key).unwrap().expect("a best move");
        assert_eq!(best.depth, 5);
        let b = best.mv.expect("positions of these games have moves");
        assert!(pos.is_legal(b), "{}: best {b}", pos.fen());
        // Everything stored is a played move or the engine's choice, each at depth 5.
        assert!(stored.iter().all(|m| played.contains(m) || *m == b));
        assert!(evals
            .iter()
            .all(|e| e.depth == 5 && e.engine.starts_with("Fairy-Stockfish")));
        assert_eq!(evals.iter().filter(|e| e.best).count(), 1);
        scored += stored.len();
    }
    assert_eq!(doc["evals_written"], scored);
    // A second run finds everything stored and searches nothing.
    let (code, again) = analyse_json(
        &db,
        &engine,
        &["--depth", "5", "--min-games", "2", "--max-ply", "4"],
        &[],
    );
    assert_eq!(code, 0);
    assert_eq!(
        (again["already_stored"].clone(), again["searches"].clone()),
        (doc["positions"].clone(), 0.into())
    );
    // A shallower one changes nothing, a deeper one replaces.
    let before = dump(&db);
    analyse_json(
        &db,
        &engine,
        &["--depth", "3", "--min-games", "2", "--max-ply", "4"],
        &[],
    );
    assert_eq!(dump(&db), before);
    let (_, deeper) = analyse_json(
        &db,
        &engine,
        &["--depth", "6", "--min-games", "3", "--max-ply", "1"],
        &[],
    );
    assert!(deeper["evals_written"].as_u64().unwrap() > 0, "{deeper}");
    let start = AnyPosition::new(Variant::Xiangqi).key();
    let store = Store::open_read_only(&db).unwrap();
    let played = &expected[&start].1;
    let evals = store.evals_at(start).unwrap();
    assert!(evals
        .iter()
        .filter(|e| played.contains(&e.mv))
        .all(|e| e.depth == 6));
    assert_eq!(store.engine_best(start).unwrap().unwrap().depth, 6);
}

#[test]
fn stored_scores_are_the_engines_own_and_a_dropped_chariot_is_far_below() {
    let Some(engine) = engine() else { return };
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("x.db");
    make_db(&db, false);
    let depth = 7;
    let (code, doc) = analyse_json(
        &db,
        &engine,
        &[
            "--depth",
            "7",
            "--min-games",
            "4",
            "--max-ply",
            "4",
            "--jobs",
            "1",
            "--option",
            "Threads=1",
        ],
        &[],
    );
    assert_eq!(code, 0, "{doc}");
    let mut pos = AnyPosition::new(Variant::Xiangqi);
    for m in ["h0g2", "h9g7", "i0i1", "b9c7"] {
        pos.play(m.parse().unwrap()).unwrap();
    }
    let store = Store::open_read_only(&db).unwrap();
    let evals = store.evals_at(pos.key()).unwrap();
    let fen = format!("{} - - 0 1", pos.fen().split(" - ").next().unwrap());
    let cp = |s: Score| match s {
        Score::Cp(c) => c,
        Score::Mate(m) => panic!("unexpected mate {m}"),
    };
    for e in &evals {
        let direct = engine_says(&engine, Variant::Xiangqi, &fen, &fs_text(e.mv), depth);
        assert_eq!(e.score, direct, "{} at {fen}", e.mv);
        assert_eq!(e.options, "Threads=1");
    }
    let blunder: Move = "i1h1".parse().unwrap();
    let lost = cp(evals.iter().find(|e| e.mv == blunder).unwrap().score);
    let others: Vec<i32> = evals
        .iter()
        .filter(|e| e.mv != blunder)
        .map(|e| cp(e.score))
        .collect();
    assert!(others.len() >= 2);
    // A chariot is worth about 9 pawns in Fairy-Stockfish's xiangqi; losing it for nothing
    // must cost the mover several hundred centipawns against every other move.
    assert!(
        others.iter().all(|o| lost < o - 300),
        "chariot loss {lost} vs {others:?}"
    );
    assert!(lost < -300);
}

#[test]
fn killed_run_resumed_stores_what_an_uninterrupted_run_stores() {
    let Some(engine) = engine() else { return };
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "--depth",
        "7",
        "--min-games",
        "1",
        "--max-ply",
        "3",
        "--jobs",
        "1",
    ];
    let clean = dir.path().join("clean.db");
    make_db(&clean, true);
    let (code, doc) = analyse_json(&clean, &engine, &args, &[]);
    assert_eq!(code, 0, "{doc}");
    let want = dump(&clean);
    let total = want.1.len();
    assert_eq!(doc["positions"], total);
    let mut killed_mid_way = false;
    for attempt in 0..4 {
        let db = dir.path().join(format!("killed{attempt}.db"));
        make_db(&db, true);
        let mut child = qipu()
            .arg("analyse")
            .arg("--db")
            .arg(&db)
            .arg("--engine")
            .arg(&engine)
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Kill -9 once a few positions are stored (earlier on each retry).
        let stored_before_kill = (total / (3 + attempt)).max(1);
        let deadline = Instant::now() + Duration::from_secs(120);
        let at_kill = loop {
            let n = dump(&db).1.len();
            if n >= stored_before_kill || Instant::now() > deadline {
                child.kill().unwrap();
                break n;
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        child.wait().unwrap();
        let after_kill = dump(&db);
        if at_kill >= total || after_kill.1.len() >= total {
            continue;
        }
        killed_mid_way = true;
        // Nothing stored is half a position: each stored best move has its scores.
        for (key, best, _) in &after_kill.1 {
            if let Some(b) = best {
                assert!(after_kill.0.iter().any(|(k, m, ..)| k == key && m == b));
            }
        }
        let (code, doc) = analyse_json(&db, &engine, &args, &[]);
        assert_eq!(code, 0, "{doc}");
        assert_eq!(
            doc["already_stored"].as_u64().unwrap() as usize,
            after_kill.1.len(),
            "{doc}"
        );
        assert_eq!(
            dump(&db),
            want,
            "resumed run differs from the uninterrupted one"
        );
        break;
    }
    assert!(killed_mid_way, "every run finished before the kill");
}

/// A small Xiangqi database for the fake engine, which misbehaves in the position after h2e2
/// (the only one whose FEN holds `1C2C4/9/RNBAKABNR b`).
fn fake_setup() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("f.db");
    make_db(&db, false);
    let fake = fake_engine(dir.path());
    (dir, db, fake)
}

const FAKE_ARGS: [&str; 10] = [
    "--depth",
    "1",
    "--min-games",
    "1",
    "--max-ply",
    "2",
    "--jobs",
    "2",
    "--timeout",
    "2",
];

#[test]
fn a_hanging_crashing_or_babbling_engine_fails_its_position_only() {
    let (_dir, db, fake) = fake_setup();
    let expected = expected_positions(&all_games(false), 1, 2);
    let bad_fen = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 0 1";
    for (mode, says) in [
        ("hang", "no `bestmove` in time"),
        ("crash", "the process ended"),
        ("garbage", "`bestmove` is not a legal move"),
    ] {
        let _ = std::fs::remove_file(&db);
        make_db(&db, false);
        let (code, doc) = analyse_json(
            &db,
            &fake,
            &FAKE_ARGS,
            &[
                ("QIPU_FAKE_MODE", mode),
                ("QIPU_FAKE_ON", "1C2C4/9/RNBAKABNR b"),
            ],
        );
        assert_eq!(code, 1, "{mode}: {doc}");
        assert_eq!(doc["positions"], expected.len());
        assert_eq!(doc["failed"], 1, "{mode}: {doc}");
        assert_eq!(
            doc["analysed"].as_u64().unwrap() as usize,
            expected.len() - 1,
            "{mode}"
        );
        let err = &doc["errors"][0];
        assert_eq!(err["fen"], bad_fen, "{mode}");
        let reason = err["reason"].as_str().unwrap();
        assert!(
            reason.contains(says) && reason.contains(bad_fen),
            "{mode}: {reason}"
        );
        // The others are stored; a rerun with a sound engine does the failed one only.
        let store = Store::open_read_only(&db).unwrap();
        let with_best = expected
            .keys()
            .filter(|k| store.engine_best(**k).unwrap().is_some())
            .count();
        assert_eq!(with_best, expected.len() - 1, "{mode}");
        drop(store);
        let (code, doc) = analyse_json(&db, &fake, &FAKE_ARGS, &[]);
        assert_eq!(code, 0, "{mode}: {doc}");
        assert_eq!(
            (doc["analysed"].as_u64(), doc["already_stored"].as_u64()),
            (Some(1), Some(expected.len() as u64 - 1))
        );
    }
}

#[test]
fn a_path_that_is_no_engine_fails_at_once_with_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("n.db");
    make_db(&db, false);
    let text = dir.path().join("notes.txt");
    std::fs::write(&text, "not an engine\n").unwrap();
    for (engine, says) in [
        (PathBuf::from("/bin/true"), "not a UCI engine"),
        (PathBuf::from("/bin/cat"), "echoes its input"),
        (dir.path().join("missing"), "cannot start it"),
        (text, "cannot start it"),
        (dir.path().to_path_buf(), "it is a directory"),
    ] {
        let out = qipu()
            .args(["analyse", "--db"])
            .arg(&db)
            .arg("--engine")
            .arg(&engine)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{}: {stderr}", engine.display());
        assert!(
            stderr.contains(says) && stderr.contains(&*engine.to_string_lossy()),
            "{stderr}"
        );
    }
    // An option the engine lacks is refused before any work.
    let fake = fake_engine(dir.path());
    let out = qipu()
        .args(["analyse", "--db"])
        .arg(&db)
        .arg("--engine")
        .arg(&fake)
        .args(["--option", "Nonsense=3"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no option `Nonsense`"));
    assert_eq!(
        Store::open_read_only(&db).unwrap().eval_counts().unwrap(),
        (0, 0)
    );
}

/// `qipu book --db DB --json --out OUT ARGS` (it must succeed), then the book's start
/// position: the summary and the moves with their weights.
fn book_at_start(
    db: &Path,
    out: &Path,
    args: &[&str],
) -> (serde_json::Value, BTreeMap<String, u64>) {
    let built = succeeds(
        qipu()
            .args(["book", "--json", "--db"])
            .arg(db)
            .arg("--out")
            .arg(out)
            .args(args),
    );
    let probe = qipu()
        .args(["probe", "--json", "--book"])
        .arg(out)
        .output()
        .unwrap();
    let probed: serde_json::Value = serde_json::from_slice(&probe.stdout).unwrap();
    let moves = probed["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["move"].as_str().unwrap().to_string(),
                m["weight"].as_u64().unwrap(),
            )
        })
        .collect();
    (serde_json::from_slice(&built.stdout).unwrap(), moves)
}

/// `qipu book` of a PGN file (no database) with `flags`, which need one: refused with exit
/// code 2 and a message containing `says`.
fn book_without_db_refuses(dir: &Path, flags: &[&str], says: &str) {
    let out = qipu()
        .args(["book", "--format", "qipu"])
        .args(flags)
        .arg("--out")
        .arg(dir.join("x.qbk"))
        .arg(fixture("store/a.pgn"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{flags:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(says), "{flags:?}: {stderr}");
}

/// Runs a qipu command that must succeed (else its standard error is shown): its output.
fn succeeds(cmd: &mut Command) -> std::process::Output {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The row of move `m` in an explore answer's `moves`, if listed.
fn move_row<'a>(doc: &'a serde_json::Value, m: &str) -> Option<&'a serde_json::Value> {
    doc["moves"].as_array()?.iter().find(|x| x["move"] == m)
}

#[test]
fn book_min_eval_leaves_out_the_moves_the_engine_scores_low() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("b.db");
    // At the start h0g2, h2e2 and c3c4 were played; the engine likes h2e2, hates c3c4, and
    // has said nothing of h0g2.
    db_with_start_evals(
        &db,
        None,
        &[("h2e2", Score::Cp(30), 10), ("c3c4", Score::Cp(-250), 10)],
    );
    let probe_start = |extra: &[&str]| {
        let mut args = vec!["--format", "qipu", "--min-games", "1"];
        args.extend(extra);
        let (doc, moves) = book_at_start(&db, &dir.path().join("b.qbk"), &args);
        let has = |m: &str| moves.contains_key(m);
        (
            doc["dropped_by_eval"].clone(),
            has("h0g2"),
            has("h2e2"),
            has("c3c4"),
        )
    };
    assert_eq!(probe_start(&[]), (0.into(), true, true, true));
    // The text summary says it too.
    let out = qipu()
        .args(["book", "--db"])
        .arg(&db)
        .args(["--format", "qipu", "--min-eval", "-100", "--out"])
        .arg(dir.path().join("t.qbk"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(text.contains("\n1 moves left out by --min-eval"), "{text}");
    assert_eq!(
        probe_start(&["--min-eval", "-100"]),
        (1.into(), true, true, false)
    );
    assert_eq!(
        probe_start(&["--min-eval", "50"]),
        (2.into(), true, false, false)
    );
    // Without a database there are no scores to go by.
    book_without_db_refuses(dir.path(), &["--min-eval", "0"], "--min-eval needs --db");
}

#[test]
fn book_engine_weights_follow_the_stored_scores_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("w.db");
    // At the start h0g2, h2e2 and c3c4 were played (4, 3 and 1 games): the engine likes
    // c3c4, dislikes h2e2 (against the games' choice), and has said nothing of h0g2.
    db_with_start_evals(
        &db,
        None,
        &[("h2e2", Score::Cp(-40), 10), ("c3c4", Score::Cp(120), 10)],
    );
    // The documented formula, computed here: 1000 / (1 + 10^(-cp/400)), rounded.
    let expect = |cp: f64| (1000.0 / (1.0 + 10f64.powf(-cp / 400.0))).round() as u64;
    for format in ["eleeye", "obk", "qipu"] {
        let (doc, weights) = book_at_start(
            &db,
            &dir.path().join(format!("w.{format}")),
            &[
                "--format",
                format,
                "--weights",
                "engine",
                "--max-ply",
                "1",
                "--min-games",
                "1",
            ],
        );
        let (c3c4, h2e2) = (weights["c3c4"], weights["h2e2"]);
        assert!(
            c3c4 > h2e2,
            "{format}: the engine's preference wins: {weights:?}"
        );
        assert_eq!((c3c4, h2e2), (expect(120.0), expect(-40.0)), "{format}");
        assert!(
            !weights.contains_key("h0g2"),
            "{format}: unscored: {weights:?}"
        );
        // The start is symmetric: books that fold mirrors hold h0g2's mirror b0c2 unscored
        // too, and each scored move's mirror with its score.
        let folded = format != "obk";
        assert_eq!(
            doc["unscored"],
            if folded { 2 } else { 1 },
            "{format}: {doc}"
        );
        if folded {
            assert_eq!((weights["g3g4"], weights["b2e2"]), (c3c4, h2e2), "{format}");
        }
        assert_eq!(
            weights.len(),
            if folded { 4 } else { 2 },
            "{format}: {weights:?}"
        );
    }
    // A game-count book of the same games ranks h2e2 first: the weights did change.
    let (_, games) = book_at_start(
        &db,
        &dir.path().join("g.qbk"),
        &["--format", "qipu", "--max-ply", "1", "--min-games", "1"],
    );
    assert!(games["h2e2"] > games["c3c4"], "{games:?}");
    // Without a database there are no scores.
    book_without_db_refuses(
        dir.path(),
        &["--weights", "engine"],
        "--weights engine needs --db",
    );
}

#[test]
fn explore_shows_each_moves_eval_and_the_engines_choice_even_unplayed() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("e.db");
    // At the start h0g2, h2e2 and c3c4 were played. The engine scored two of them and chose
    // b2e2, which no game played, scoring it too.
    db_with_start_evals(
        &db,
        Some(("b2e2", 12)),
        &[
            ("h2e2", Score::Cp(31), 12),
            ("c3c4", Score::Mate(-4), 12),
            ("b2e2", Score::Cp(40), 12),
        ],
    );
    // `--min-games 0`: the moves without a decided game are listed, not folded.
    let out = succeeds(
        qipu()
            .args(["explore", "--min-games", "0", "--db"])
            .arg(&db)
            .arg("--json"),
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let eval_of = |m: &str| move_row(&doc, m).map(|x| x.get("eval").cloned());
    assert_eq!(
        eval_of("h2e2"),
        Some(Some(
            serde_json::json!({"cp": 31, "mate": null, "depth": 12, "engine": "hand"})
        ))
    );
    assert_eq!(
        eval_of("c3c4"),
        Some(Some(
            serde_json::json!({"cp": null, "mate": -4, "depth": 12, "engine": "hand"})
        ))
    );
    assert_eq!(
        eval_of("h0g2"),
        Some(None),
        "no score stored: no eval field"
    );
    assert_eq!(doc["engine_best"]["move"], "b2e2");
    assert_eq!(doc["engine_best"]["notation"]["wxf"], "C8.5");
    assert_eq!(doc["engine_best"]["eval"]["cp"], 40);
    assert_eq!(doc["engine_best"]["depth"], 12);
    assert_eq!(doc["engine_best"]["played"], false);
    assert_eq!(doc["engine_best"]["engine_move"], "b2e2");
    // The table has the column and the line.
    let text = qipu()
        .args(["explore", "--no-board", "--min-games", "0", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout).into_owned();
    let header = text.lines().find(|l| l.starts_with("move")).unwrap();
    assert!(header.contains(" eval "), "{text}");
    let h2e2 = text.lines().find(|l| l.starts_with("h2e2")).unwrap();
    assert!(h2e2.contains(" +31 "), "{h2e2}");
    let c3c4 = text.lines().find(|l| l.starts_with("c3c4")).unwrap();
    assert!(c3c4.contains(" #-4 "), "{c3c4}");
    assert!(text.contains("engine's choice: b2e2 C8.5"), "{text}");
}

/// The test games' database at `db`, with hand-written scores of start-position moves by an
/// engine called `hand`, and its choice there (move, depth) if given.
fn db_with_start_evals(db: &Path, best: Option<(&str, u32)>, rows: &[(&str, Score, u32)]) {
    use qipu::store::evals::EvalRow;
    make_db(db, false);
    let mut store = Store::open(db).unwrap();
    let engine = store.eval_engine("hand", "").unwrap();
    let rows: Vec<EvalRow> = rows
        .iter()
        .map(|&(m, score, depth)| EvalRow {
            mv: m.parse().unwrap(),
            score,
            depth,
        })
        .collect();
    let best = best.map(|(m, depth)| (Some(m.parse().unwrap()), depth));
    let start = AnyPosition::new(Variant::Xiangqi).key();
    store
        .write_position_evals(engine, start, best, &rows)
        .unwrap();
}

/// The choice is the best scored move searched in the position: a played move that scores
/// better alone than the engine's own pick is the choice, and a choice folded into
/// "others" is still a move played here.
#[test]
fn no_move_beats_the_engines_choice_and_folded_moves_count_as_played() {
    let dir = tempfile::tempdir().unwrap();
    // At the start h0g2 (4 games), h2e2 (3) and c3c4 (1) were played. The engine's search of
    // all moves picked b2e2 at +40, but h2e2 alone scores +104.
    let db = dir.path().join("a.db");
    db_with_start_evals(
        &db,
        Some(("b2e2", 8)),
        &[
            ("b2e2", Score::Cp(40), 8),
            ("h2e2", Score::Cp(104), 8),
            ("h0g2", Score::Cp(30), 8),
            ("c3c4", Score::Cp(12), 8),
        ],
    );
    let json = |db: &Path, extra: &[&str]| -> serde_json::Value {
        let out = succeeds(
            qipu()
                .args(["explore", "--json", "--db"])
                .arg(db)
                .args(extra),
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let doc = json(&db, &[]);
    let best = &doc["engine_best"];
    assert_eq!(
        (
            &best["move"],
            &best["eval"]["cp"],
            &best["played"],
            &best["engine_move"]
        ),
        (&"h2e2".into(), &104.into(), &true.into(), &"b2e2".into())
    );
    for m in doc["moves"].as_array().unwrap() {
        assert!(m["eval"]["cp"].as_i64().unwrap() <= 104, "{m}");
    }
    let text = qipu()
        .args(["explore", "--no-board", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout).into_owned();
    let line = text
        .lines()
        .find(|l| l.starts_with("engine's choice"))
        .unwrap();
    assert!(line.starts_with("engine's choice: h2e2"), "{line}");
    assert!(line.contains("picked b2e2"), "{line}");
    assert!(!line.contains("never played"), "{line}");

    // A mate by c3c4, played once: folded into "others" by --limit 1, still played here.
    let db = dir.path().join("b.db");
    db_with_start_evals(
        &db,
        Some(("b2e2", 8)),
        &[("b2e2", Score::Cp(40), 8), ("c3c4", Score::Mate(3), 8)],
    );
    let doc = json(&db, &["--limit", "1"]);
    let listed: Vec<&str> = doc["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["move"].as_str().unwrap())
        .collect();
    assert_eq!(listed, ["h0g2"]);
    assert_eq!(doc["others"]["moves"], 2);
    let best = &doc["engine_best"];
    assert_eq!(
        (&best["move"], &best["eval"]["mate"], &best["played"]),
        (&"c3c4".into(), &3.into(), &true.into())
    );
}

/// `qipu analyse --json --db DB --records FILE`'s summary (the run must succeed).
fn records_json(db: &Path, records: &Path) -> serde_json::Value {
    let out = succeeds(
        qipu()
            .args(["analyse", "--json", "--db"])
            .arg(db)
            .arg("--records")
            .arg(records),
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// A two-game elephantchess CSV whose lines are hand-written (see the expected scores in
/// `dataset_evaluations_are_stored_without_an_engine`).
const ELEPHANT_CSV: &str = "\
timestamp,move_index,move,game_id,red_player,black_player,outcome,move_analysis,engine_analysis
2026-07-07T08:31:02Z,0,h2e2,a,r,b,RED_WINS,info depth 20 score cp 23 pv b9c7 b0c2,info depth 18 score cp -16 pv h9g7
2026-07-07T08:31:05Z,1,h9g7,a,r,b,RED_WINS,info depth 19 score cp -30 pv h0g2 i9h9,info depth 19 score cp -15 pv h0g2
2026-07-07T08:31:09Z,2,h0g2,a,r,b,RED_WINS,info depth 21 score mate 2 pv b9c7,info depth 20 score cp 40 pv b9c7
2026-07-07T09:00:00Z,0,c3c4,z,r,b,BLACK_WINS,info depth 12 score cp 5 lowerbound pv g6g5,info depth 10 score cp 12 pv g6g5
2026-07-07T09:00:07Z,1,g6g5,z,r,b,BLACK_WINS,,info depth 11 score mate -3 pv c4c5
";

#[test]
fn dataset_evaluations_are_stored_without_an_engine() {
    use qipu::{analysis::records::RECORD_OPTIONS, formats::elephant::ENGINE};
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("pvp.csv");
    std::fs::write(&csv, ELEPHANT_CSV).unwrap();
    let db = dir.path().join("d.db");
    succeeds(qipu().args(["import", "--db"]).arg(&db).arg(&csv));
    let run = || records_json(&db, &csv);
    let doc = run();
    assert_eq!(
        (doc["games"].clone(), doc["with_evals"].clone()),
        (2.into(), 2.into())
    );
    assert_eq!(
        (doc["scores"].clone(), doc["evals_written"].clone()),
        (5.into(), 5.into())
    );
    // Worked by hand from the lines (`move_analysis`: the position after the move, from
    // the side to move there; `engine_analysis`: after the engine's own best move):
    // - h2e2 at the start: Black is +23 after it, so -23 for Red (depth 20);
    // - after h2e2 the engine chose b9c7 (+23 for Black), and h9g7 leaves Red at -30:
    //   +30 for Black (depth 19);
    // - after h9g7 the engine chose h0g2 itself, worth -30 for Red; h0g2 is the last move,
    //   and its own line (Black mates in 2) has no position after it to go to;
    // - c3c4: its line is a lower bound (not read), so the next row's engine line is used:
    //   Red mated in 3 after Black's best reply = Black mates in 4 = c3c4 is mated in 4.
    let m = |t: &str| t.parse::<Move>().unwrap();
    let mut pos = AnyPosition::new(Variant::Xiangqi);
    let start = pos.key();
    pos.play(m("h2e2")).unwrap();
    let k1 = pos.key();
    pos.play(m("h9g7")).unwrap();
    let k2 = pos.key();
    let store = Store::open_read_only(&db).unwrap();
    let at = |key: u64| {
        store
            .evals_at(key)
            .unwrap()
            .into_iter()
            .map(|e| {
                assert_eq!(
                    (e.engine.as_str(), e.options.as_str()),
                    (ENGINE, RECORD_OPTIONS)
                );
                (e.mv.to_string(), e.score, e.depth)
            })
            .collect::<Vec<_>>()
    };
    let sorted = |mut v: Vec<(String, Score, u32)>| {
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v
    };
    assert_eq!(
        sorted(at(start)),
        sorted(vec![
            ("c3c4".into(), Score::Mate(-4), 11),
            ("h2e2".into(), Score::Cp(-23), 20)
        ])
    );
    assert_eq!(
        sorted(at(k1)),
        sorted(vec![
            ("b9c7".into(), Score::Cp(23), 20),
            ("h9g7".into(), Score::Cp(30), 19)
        ])
    );
    assert_eq!(at(k2), vec![("h0g2".into(), Score::Cp(-30), 19)]);
    assert_eq!(store.eval_counts().unwrap(), (5, 0));
    drop(store);
    // Again: nothing deeper, nothing written.
    assert_eq!(run()["evals_written"], 0);
    // explore shows them as each move's eval, with the dataset's engine name.
    let out = qipu()
        .args(["explore", "--json", "--min-games", "0", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let h2e2 = move_row(&doc, "h2e2").unwrap();
    assert_eq!(
        h2e2["eval"],
        serde_json::json!({"cp": -23, "mate": null, "depth": 20, "engine": ENGINE})
    );
    // --records runs no engine and takes no engine flags.
    let out = qipu()
        .args(["analyse", "--db"])
        .arg(&db)
        .args(["--depth", "3", "--records"])
        .arg(&csv)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
#[ignore = "needs ../shared (run by .ci/run)"]
fn the_elephantchess_csv_evaluations_equal_a_python_reading() {
    use qipu::formats::{read_path, replay};
    let Some(shared) = crate::common::shared_dir() else {
        return;
    };
    let csv = shared.join("data/xiangqi/elephantchess/pvp_game_moves_xiangqi_059.csv");
    let oracle = Command::new("python3")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/elephant_evals_oracle.py"))
        .arg(&csv)
        .output()
        .unwrap();
    assert!(
        oracle.status.success(),
        "{}",
        String::from_utf8_lossy(&oracle.stderr)
    );
    let want: Vec<serde_json::Value> = String::from_utf8(oracle.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("e.db");
    Store::open(&db).unwrap();
    assert_eq!(records_json(&db, &csv)["rejected"], 0);
    let store = Store::open_read_only(&db).unwrap();
    assert_eq!(store.eval_counts().unwrap().0, want.len() as u64);
    // Each game's position keys, ply by ply, as qipu replays it.
    let keys: HashMap<String, Vec<u64>> = read_path(&csv)
        .map(|g| {
            let g = g.unwrap();
            let r = replay(&g).unwrap();
            let mut pos = r.start.clone();
            let mut keys = Vec::new();
            for &m in &r.moves {
                keys.push(pos.key());
                pos.play_unchecked(m);
            }
            (g.tags.raw[0].1.clone(), keys)
        })
        .collect();
    let mut checked = 0;
    for w in &want {
        let game = w["game"].as_str().unwrap();
        let key = keys[game][w["ply"].as_u64().unwrap() as usize];
        let mv: Move = w["move"].as_str().unwrap().parse().unwrap();
        let score = match (w["cp"].as_i64(), w["mate"].as_i64()) {
            (Some(cp), None) => Score::Cp(cp as i32),
            (None, Some(n)) => Score::Mate(n as i32),
            other => panic!("oracle row {w}: {other:?}"),
        };
        let got = store
            .evals_at(key)
            .unwrap()
            .into_iter()
            .find(|e| e.mv == mv)
            .unwrap_or_else(|| panic!("no score stored for {w}"));
        assert_eq!(
            (got.score, u64::from(got.depth)),
            (score, w["depth"].as_u64().unwrap()),
            "{w}"
        );
        checked += 1;
    }
    eprintln!(
        "{checked} stored scores equal the Python reading of {}",
        csv.display()
    );
    assert!(checked > 4000, "{checked}");
}

#[test]
fn the_api_answers_each_moves_eval_and_the_engines_choice() {
    use std::io::Read;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("w.db");
    db_with_start_evals(
        &db,
        Some(("b2e2", 12)),
        &[("h2e2", Score::Cp(31), 12), ("b2e2", Score::Cp(40), 12)],
    );
    let addr = crate::common::start_server(qipu::web::Config {
        db: Some(db),
        ..qipu::web::Config::default()
    });
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    write!(
        s,
        "GET /api/explore?min_games=0 HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut all = String::new();
    s.read_to_string(&mut all).unwrap();
    let (head, body) = all.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    let doc: serde_json::Value = serde_json::from_str(body).unwrap();
    let h2e2 = move_row(&doc, "h2e2").unwrap();
    assert_eq!(
        h2e2["eval"],
        serde_json::json!({"cp": 31, "mate": null, "depth": 12, "engine": "hand"})
    );
    // b2e2 was never played here: the engine's choice, with its score.
    assert_eq!(
        (
            doc["engine_best"]["move"].clone(),
            doc["engine_best"]["eval"]["cp"].clone()
        ),
        ("b2e2".into(), 40.into())
    );
}
