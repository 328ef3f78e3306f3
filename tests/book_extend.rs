//! `qipu book extend` through the binary: a fake UCI engine (`tests/data/engine/fake-uci.sh`
//! with `QIPU_FAKE_PLAY=shuttle`: each side's a-file chariot steps out of its corner and
//! back) continues a hand-made book's lines, and every engine move expected is worked out by
//! hand below; a run stopped by `--max-searches` or by the engine dying, run again, gives the
//! same bytes and asks the engine only what the database lacks; bad engines and Janggi into
//! BOOK.DAT leave no file. One test runs the real Fairy-Stockfish where it is installed.

use std::{
    collections::BTreeSet,
    path::{Path, PathBuf},
    process::{Command, Output},
};

use qipu::rules::{AnyPosition, Move, Variant};

use crate::common::{
    book_of, fake_engine, fs_move, janggi_book, pgn_of, qipu_ok, real_engine, scratch,
};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The book's games (weights = games, positions as reached): after h2e2 h9g7 (ply 2), after
/// h2e2 b9c7 h0g2 (ply 3) and after c3c4 (ply 1) the lines end. No move touches the a-file.
const GAMES: &[(&str, usize, &str)] = &[
    ("h2e2 h9g7", 2, "1-0"),
    ("h2e2 b9c7 h0g2", 1, "0-1"),
    ("c3c4", 1, "1/2-1/2"),
];

/// A scratch folder with the book (`b.qbk`) and the fake engine.
fn setup(name: &str) -> (PathBuf, PathBuf, PathBuf) {
    let dir = scratch("book-extend", name);
    let book = book_of(&dir, "b.qbk", "qipu", &pgn_of(GAMES), &["--mirror", "keep"]);
    let fake = fake_engine(&dir);
    (dir, book, fake)
}

/// `qipu book extend BOOK --engine ENGINE --depth 1 --plies N --out OUT --json EXTRA` with
/// the shuttling fake engine and `env`.
fn extend(
    book: &Path,
    engine: &Path,
    out: &Path,
    plies: u32,
    extra: &[&str],
    env: &[(&str, &str)],
) -> Output {
    let plies = plies.to_string();
    Command::new(env!("CARGO_BIN_EXE_qipu"))
        .args(["book", "extend", s(book), "--engine", s(engine)])
        .args([
            "--depth",
            "1",
            "--plies",
            plies.as_str(),
            "--out",
            s(out),
            "--json",
        ])
        .args(extra)
        .env("QIPU_FAKE_PLAY", "shuttle")
        .envs(env.iter().copied())
        .output()
        .unwrap()
}

/// The summary of a successful run.
fn summary(o: &Output) -> serde_json::Value {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// One row of `qipu book dump`, the columns used here.
#[derive(Debug, serde::Deserialize)]
struct Row {
    fen: String,
    iccs: String,
    weight: i64,
    games: Option<u32>,
    engine: u8,
}

/// (board and side to move, move, weight, games) of a book's rows: those an engine chose, and
/// the others.
type Rows = BTreeSet<(String, String, i64, Option<u32>)>;

fn rows(book: &Path) -> (Rows, Rows) {
    let text = qipu_ok(&["book", "dump", s(book)]);
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let (mut engine, mut others) = (Rows::new(), Rows::new());
    for row in r.deserialize::<Row>() {
        let row = row.unwrap();
        let ident = row.fen.split(' ').take(2).collect::<Vec<_>>().join(" ");
        let entry = (ident, row.iccs, row.weight, row.games);
        if row.engine == 1 {
            engine.insert(entry);
        } else {
            others.insert(entry);
        }
    }
    (engine, others)
}

/// The engine rows expected: for each line, the book's moves to its end, then the engine's
/// moves, each of weight 1 and no game (qipu's format reads zero counts as none).
fn expected(lines: &[(&str, &str)]) -> Rows {
    let mut out = Rows::new();
    for (book_moves, engine_moves) in lines {
        let mut pos = AnyPosition::new(Variant::Xiangqi);
        for m in book_moves.split_whitespace() {
            pos.play(m.parse::<Move>().unwrap()).unwrap();
        }
        for m in engine_moves.split_whitespace() {
            let ident = pos.fen().split(' ').take(2).collect::<Vec<_>>().join(" ");
            out.insert((ident, m.to_string(), 1, None));
            pos.play(m.parse::<Move>().unwrap()).unwrap();
        }
    }
    out
}

/// (plies, lines' ends before it, lines extended to it, plies added, the lines as (book
/// moves, engine moves)).
type Case = (u32, u64, u64, u64, Vec<(&'static str, &'static str)>);

/// The lines' ends get the engine's moves up to the target ply, and no further: with
/// `--plies 2` only the line ending at ply 1; with 4 every line to ply 4; with 6 the c3c4 line
/// stops after four moves (its chariots back home: the position after c3c4 again) while the
/// others reach ply 6. The book's own rows stay as they were.
#[test]
fn lines_are_continued_to_the_target_ply() {
    let (dir, book, fake) = setup("plies");
    let (none, book_rows) = rows(&book);
    assert!(none.is_empty());
    // start h2e2 3 games, c3c4 1; after h2e2: h9g7 2, b9c7 1; after h2e2 b9c7: h0g2 1
    assert_eq!(book_rows.len(), 5);
    let cases: [Case; 3] = [
        (2, 1, 1, 1, vec![("c3c4", "a9a8")]),
        (
            4,
            3,
            3,
            6,
            vec![
                ("c3c4", "a9a8 a0a1 a8a9"),
                ("h2e2 h9g7", "a0a1 a9a8"),
                ("h2e2 b9c7 h0g2", "a9a8"),
            ],
        ),
        (
            6,
            3,
            2,
            11,
            vec![
                ("c3c4", "a9a8 a0a1 a8a9 a1a0"),
                ("h2e2 h9g7", "a0a1 a9a8 a1a0 a8a9"),
                ("h2e2 b9c7 h0g2", "a9a8 a0a1 a8a9"),
            ],
        ),
    ];
    for (plies, ends, to_target, added, lines) in cases {
        let out = dir.join(format!("x{plies}.qbk"));
        let v = summary(&extend(&book, &fake, &out, plies, &[], &[]));
        assert_eq!(v["line_ends"], ends, "{plies}: {v}");
        assert_eq!(v["lines_extended"], ends, "{plies}: {v}");
        assert_eq!(v["lines_to_target"], to_target, "{plies}: {v}");
        assert_eq!(v["plies_added"], added, "{plies}: {v}");
        assert_eq!(v["searches_new"], added, "{plies}: {v}");
        assert_eq!(v["searches_cached"], 0, "{plies}: {v}");
        assert_eq!(v["records"], 5 + added, "{plies}: {v}");
        let (engine, others) = rows(&out);
        assert_eq!(engine, expected(&lines), "{plies}");
        assert_eq!(others, book_rows, "{plies}");
    }
    // into BOOK.DAT: the engine moves weigh 1 (the mark is not kept); the one after c3c4
    let dat = dir.join("x.dat");
    let o = extend(&book, &fake, &dat, 2, &["--format", "eleeye"], &[]);
    let v = summary(&o);
    assert_eq!(
        (v["format"].as_str(), v["engine_marks_not_kept"].as_u64()),
        (Some("eleeye"), Some(1))
    );
    let text = qipu_ok(&["probe", "--book", s(&dat), "--moves", "c3c4", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let moves = v["moves"].as_array().unwrap();
    // a9a8 or, folded, its mirror image i9i8 (qipu probes both)
    assert_eq!(moves.len(), 1, "{v}");
    assert_eq!(moves[0]["weight"], 1, "{v}");
}

/// The fake engine's log: one line per search answered.
fn searches(log: &Path) -> usize {
    std::fs::read_to_string(log).map_or(0, |t| t.lines().count())
}

/// A run stopped by `--max-searches`, then run again on the same database, writes the bytes
/// of an uninterrupted run, asking the engine only for the searches not yet stored; a third
/// run asks nothing. So does a run whose engine died mid-way; and a run without a database.
#[test]
fn an_interrupted_run_run_again_gives_the_same_book() {
    let (dir, book, fake) = setup("rerun");
    let same = |a: &Path, b: &Path| {
        assert_eq!(std::fs::read(a).unwrap(), std::fs::read(b).unwrap());
    };
    let (a_db, b_db, c_db) = (dir.join("a.db"), dir.join("b.db"), dir.join("c.db"));
    let whole = dir.join("whole.qbk");
    summary(&extend(&book, &fake, &whole, 4, &["--db", s(&a_db)], &[]));
    // no database: the same
    let plain = dir.join("plain.qbk");
    summary(&extend(&book, &fake, &plain, 4, &[], &[]));
    same(&whole, &plain);

    // stopped after 2 searches: exit 1, no book; then the 4 others; then none
    let log = dir.join("b.log");
    let log_env = [("QIPU_FAKE_LOG", s(&log))];
    let out = dir.join("b-out.qbk");
    let b = ["--db", s(&b_db), "--max-searches", "2"];
    let o = extend(&book, &fake, &out, 4, &b, &log_env);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("--max-searches"), "{err}");
    assert!(!out.exists());
    assert_eq!(searches(&log), 2);
    // (answered from the database, new searches, searches logged in all)
    for (cached, new, logged) in [(2, 4, 6), (6, 0, 6)] {
        let v = summary(&extend(&book, &fake, &out, 4, &b[..2], &log_env));
        let counts = (v["searches_cached"].as_u64(), v["searches_new"].as_u64());
        assert_eq!(counts, (Some(cached), Some(new)), "{v}");
        assert_eq!(searches(&log), logged);
        same(&whole, &out);
    }

    // the engine dies in the position after h2e2 h9g7: exit 2 naming it, no book, and what
    // it had answered before is stored
    let c = ["--db", s(&c_db)];
    let out = dir.join("c-out.qbk");
    let p2 = "rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR w";
    let crash = [("QIPU_FAKE_MODE", "crash"), ("QIPU_FAKE_ON", p2)];
    let o = extend(&book, &fake, &out, 4, &c, &crash);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains(s(&fake)) && err.contains(p2), "{err}");
    assert!(!out.exists());
    let v = summary(&extend(&book, &fake, &out, 4, &c, &[]));
    let cached = v["searches_cached"].as_u64().unwrap();
    assert!(cached >= 1, "{v}");
    assert_eq!(cached + v["searches_new"].as_u64().unwrap(), 6, "{v}");
    same(&whole, &out);
    // no temporary file left behind
    assert!(strays(&dir, "").is_empty(), "{:?}", strays(&dir, ""));
}

/// The files of `dir` whose names start with `.` (temporary files) or with `prefix` (if not
/// empty).
fn strays(dir: &Path, prefix: &str) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.') || (!prefix.is_empty() && n.starts_with(prefix)))
        .collect()
}

/// (book, engine, flags, environment, the file the error must name).
type BadRun<'a> = (
    &'a Path,
    &'a Path,
    &'a [&'a str],
    &'a [(&'a str, &'a str)],
    &'a Path,
);

/// An engine that is not there, one that dies at once, and a Janggi book into BOOK.DAT: a
/// clear error naming the culprit, exit 2, no output file.
#[test]
fn bad_engines_and_janggi_into_book_dat_leave_no_file() {
    let (dir, book, fake) = setup("bad");
    let out = dir.join("out.qbk");
    let missing = dir.join("no-such-engine");
    let crash = [("QIPU_FAKE_MODE", "crash"), ("QIPU_FAKE_ON", "fen")];
    let janggi = janggi_book(&dir);
    let into_dat = ["--format", "eleeye"];
    let cases: [BadRun; 3] = [
        (&book, &missing, &[], &[], &missing),
        (&book, &fake, &[], &crash, &fake),
        (&janggi, &fake, &into_dat, &[], &janggi),
    ];
    for (input, engine, flags, env, culprit) in cases {
        let o = extend(input, engine, &out, 4, flags, env);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.contains(s(culprit)), "{err}");
        assert!(!out.exists());
    }
    let left = strays(&dir, "out");
    assert!(left.is_empty(), "{left:?}");
}

/// The move Fairy-Stockfish chooses in a position, asked here in a session of its own
/// (Threads 1, Hash 16, a new game, a fixed depth), as a qipu move.
fn engine_choice(engine: &Path, fen: &str, depth: u32) -> Move {
    use std::io::{BufRead, BufReader, Write};
    let mut child = Command::new(engine)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let setup = "uci\nsetoption name UCI_Variant value xiangqi\nsetoption name Threads value 1\n\
                 setoption name Hash value 16\nucinewgame\n";
    write!(stdin, "{setup}position fen {fen}\ngo depth {depth}\n").unwrap();
    stdin.flush().unwrap();
    let mut best = None;
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let line = line.unwrap();
        if let Some(rest) = line.strip_prefix("bestmove ") {
            best = rest.split_whitespace().next().map(fs_move);
            break;
        }
    }
    writeln!(stdin, "quit").unwrap();
    let _ = child.wait();
    best.unwrap()
}

/// Fairy-Stockfish continues the lines: each engine move is the one it chooses when asked
/// alone, the run spends nearly all its time in the engine, and a run again on the database
/// asks nothing and writes the same bytes.
#[test]
fn fairy_stockfish_continues_the_lines() {
    let Some(engine) = real_engine() else { return };
    let dir = scratch("book-extend", "real");
    let book = book_of(&dir, "b.qbk", "qipu", &pgn_of(GAMES), &["--mirror", "keep"]);
    let out = dir.join("x.qbk");
    let db = dir.join("x.db");
    let args = |out: &Path| {
        vec![
            "book".to_string(),
            "extend".into(),
            s(&book).into(),
            "--engine".into(),
            s(&engine).into(),
            "--depth".into(),
            "6".into(),
            "--plies".into(),
            "4".into(),
            "--db".into(),
            s(&db).into(),
            "--json".into(),
            "--out".into(),
            s(out).into(),
        ]
    };
    let run = |out: &Path| {
        let a = args(out);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        let v: serde_json::Value = serde_json::from_str(&qipu_ok(&a)).unwrap();
        v
    };
    let v = run(&out);
    println!("extend with {}: {v}", engine.display());
    assert_eq!(v["line_ends"], 3, "{v}");
    let added = v["plies_added"].as_u64().unwrap();
    assert!(added >= 3, "{v}");
    assert!(v["engine_share"].as_f64().unwrap() > 0.5, "{v}");
    let (engine_rows, _) = rows(&out);
    assert_eq!(engine_rows.len() as u64, added);
    for (ident, mv, weight, _) in &engine_rows {
        let fen = format!("{ident} - - 0 1");
        assert_eq!(*weight, 1);
        assert_eq!(engine_choice(&engine, &fen, 6).to_string(), *mv, "{fen}");
    }
    let again = dir.join("again.qbk");
    let v = run(&again);
    assert_eq!(v["searches_new"], 0, "{v}");
    assert_eq!(v["searches_cached"].as_u64(), Some(added), "{v}");
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&again).unwrap());
}
