//! `qipu book convert|merge|dump|stats` through the binary, on books built here from
//! hand-made games (every expected weight, count and summary figure worked out by hand in the
//! comments) and on ElephantEye's shipped book: byte-identical round trips, the merge rule of
//! `src/book/merge.rs`, mirror images counted once, the summaries, and bad input leaving no
//! output file behind.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
};

use qipu::{
    book::mirror_position,
    rules::{AnyPosition, Move, Variant},
};

use crate::common::{
    self, book_of, convert_book, janggi_book, pgn_of as pgn, qipu, qipu_ok, shared_dir, EVERY_MOVE,
};

/// A fresh scratch folder for one test.
fn scratch(name: &str) -> PathBuf {
    common::scratch("book-tools", name)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `qipu book PGN --tree` into a qipu book at `out`: every line of the PGN's tree a game,
/// [`EVERY_MOVE`], with `extra` flags.
fn tree_book(pgn: &Path, out: &Path, extra: &[&str]) {
    let mut args = vec!["book", s(pgn), "--tree", "--format", "qipu"];
    args.extend_from_slice(&EVERY_MOVE);
    args.extend_from_slice(&["--out", s(out)]);
    args.extend_from_slice(extra);
    qipu_ok(&args);
}

/// One row of `qipu book dump`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Deserialize)]
struct Row {
    fen: String,
    key: String,
    iccs: String,
    notation: String,
    weight: i64,
    games: Option<u32>,
    wins: Option<u32>,
    draws: Option<u32>,
    losses: Option<u32>,
}

const COLUMNS: [&str; 10] = [
    "fen", "key", "iccs", "notation", "weight", "games", "wins", "draws", "losses", "engine",
];

/// `qipu book dump BOOK ARGS` read as CSV (the header checked).
fn dump(book: &Path, extra: &[&str]) -> Vec<Row> {
    let mut args = vec!["book", "dump", s(book)];
    args.extend_from_slice(extra);
    let text = qipu_ok(&args);
    let mut r = csv::Reader::from_reader(text.as_bytes());
    assert_eq!(r.headers().unwrap().iter().collect::<Vec<_>>(), COLUMNS);
    r.deserialize().map(|row| row.unwrap()).collect()
}

/// The dump's rows by (board and side to move, move).
fn by_move(rows: &[Row]) -> BTreeMap<(String, String), Row> {
    rows.iter()
        .map(|r| {
            let board: Vec<&str> = r.fen.split(' ').take(2).collect();
            ((board.join(" "), r.iccs.clone()), r.clone())
        })
        .collect()
}

/// `(iccs, weight, games, wins, draws, losses)` of the rows of one position, sorted.
type Line = (
    String,
    i64,
    Option<u32>,
    Option<u32>,
    Option<u32>,
    Option<u32>,
);

fn at(rows: &[Row], fen_prefix: &str) -> Vec<Line> {
    let mut v: Vec<Line> = rows
        .iter()
        .filter(|r| r.fen.starts_with(fen_prefix))
        .map(|r| (r.iccs.clone(), r.weight, r.games, r.wins, r.draws, r.losses))
        .collect();
    v.sort();
    v
}

const START: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w";
/// After h2e2 (Red's right cannon to the centre).
const AFTER_H2E2: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b";
/// After b2e2, the mirror image of AFTER_H2E2.
const AFTER_B2E2: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/4C2C1/9/RNBAKABNR b";

fn line(mv: &str, weight: i64, counts: Option<(u32, u32, u32, u32)>) -> Line {
    (
        mv.to_string(),
        weight,
        counts.map(|c| c.0),
        counts.map(|c| c.1),
        counts.map(|c| c.2),
        counts.map(|c| c.3),
    )
}

/// Book A (positions as reached): h2e2 h9g7 six times (Red wins), c3c4 twice (draws).
fn games_a() -> String {
    pgn(&[("h2e2 h9g7", 6, "1-0"), ("c3c4", 2, "1/2-1/2")])
}

/// Book B: h2e2 once, g3g4 three times, all Black wins.
fn games_b() -> String {
    pgn(&[("h2e2", 1, "0-1"), ("g3g4", 3, "0-1")])
}

fn assert_same_bytes(a: &Path, b: &Path) {
    let (x, y) = (std::fs::read(a).unwrap(), std::fs::read(b).unwrap());
    assert!(
        x == y,
        "{} ({} bytes) and {} ({} bytes) differ",
        a.display(),
        x.len(),
        b.display(),
        y.len()
    );
}

/// (board and side to move, move, weight) of each row, a position and its mirror image
/// written as the smaller of the two (books that fold mirror images may store either).
fn canonical(rows: Vec<Row>) -> Vec<(String, String, i64)> {
    let ident = |p: &AnyPosition| p.fen().split(' ').take(2).collect::<Vec<_>>().join(" ");
    let mut v: Vec<_> = rows
        .into_iter()
        .map(|r| {
            let pos = AnyPosition::from_fen(Variant::Xiangqi, &r.fen).unwrap();
            let mv: Move = r.iccs.parse().unwrap();
            let own = (ident(&pos), mv.to_string());
            let image = mirror_position(&pos).map(|m| (ident(&m), mv.mirror().to_string()));
            let (fen, mv) = image.filter(|i| *i < own).unwrap_or(own);
            (fen, mv, r.weight)
        })
        .collect();
    v.sort();
    v
}

/// BOOK.DAT → qipu → BOOK.DAT and .obk → qipu → .obk give the files back byte for byte, on
/// books built here; the qipu copy holds the same (position, move, weight) rows.
#[test]
fn convert_round_trips_are_byte_identical() {
    let dir = scratch("round-trip");
    let games = pgn(&[
        ("h2e2 h9g7 h0g2 i9h9", 3, "1-0"),
        ("h2e2 b9c7 b0c2", 2, "0-1"),
        ("c3c4 c6c5 b0c2", 2, "1/2-1/2"),
        ("b2d2 h9g7", 1, "1-0"),
    ]);
    for (format, name) in [("eleeye", "b.dat"), ("obk", "b.obk")] {
        let book = book_of(&dir, name, format, &games, &[]);
        let q = dir.join(format!("{name}.qbk"));
        let back = dir.join(format!("back-{name}"));
        convert_book(&book, "qipu", &q);
        convert_book(&q, format, &back);
        assert_same_bytes(&book, &back);
        let (orig, conv) = (dump(&book, &[]), dump(&q, &[]));
        assert!(!orig.is_empty());
        assert_eq!(canonical(orig), canonical(conv), "{format}");
    }
}

/// ElephantEye's shipped book: BOOK.DAT → qipu → BOOK.DAT is the same file, and so is the
/// book merged with itself (weights kept).
#[test]
#[ignore = "needs ../shared (run by .ci/run)"]
fn elephanteye_book_round_trips_and_merges_with_itself() {
    let Some(shared) = shared_dir() else { return };
    let book = shared.join("data/books/eleeye-BOOK.DAT");
    let dir = scratch("eleeye");
    let q = dir.join("e.qbk");
    let back = dir.join("back.dat");
    convert_book(&book, "qipu", &q);
    convert_book(&q, "eleeye", &back);
    assert_same_bytes(&book, &back);
    let twice = dir.join("twice.dat");
    let b = s(&book);
    qipu_ok(&[
        "book",
        "merge",
        b,
        b,
        "--format",
        "eleeye",
        "--out",
        s(&twice),
    ]);
    assert_same_bytes(&book, &twice);
    // 96,648 bytes of 8-byte records
    let v: serde_json::Value =
        serde_json::from_str(&qipu_ok(&["book", "stats", b, "--json"])).unwrap();
    assert_eq!(v["records"], 96_648 / 8);
    // dump --pgn read again (mirror images folded, as in BOOK.DAT): the positions and moves
    // of every record reached from the start
    let pgn = dir.join("e.pgn");
    std::fs::write(&pgn, qipu_ok(&["book", "dump", b, "--pgn"])).unwrap();
    let again = dir.join("again.qbk");
    tree_book(&pgn, &again, &[]);
    let moves = |rows: Vec<Row>| -> Vec<(String, String)> {
        let reached: Vec<Row> = rows.into_iter().filter(|r| !r.fen.is_empty()).collect();
        canonical(reached)
            .into_iter()
            .map(|(f, m, _)| (f, m))
            .collect()
    };
    let (orig, back) = (moves(dump(&book, &[])), moves(dump(&again, &[])));
    assert_eq!(orig.len(), 3932);
    assert_eq!(orig, back);
}

/// A book merged with itself: the same rows, the same weights, games and W/D/L doubled.
#[test]
fn merge_with_itself_keeps_weights_and_doubles_the_games() {
    let dir = scratch("self");
    let games = pgn(&[
        ("h2e2 h9g7 h0g2", 3, "1-0"),
        ("h2e2 b9c7", 1, "1/2-1/2"),
        ("c3c4 c6c5", 2, "0-1"),
    ]);
    let book = book_of(&dir, "a.qbk", "qipu", &games, &[]);
    let out = dir.join("twice.qbk");
    let b = s(&book);
    qipu_ok(&["book", "merge", b, b, "--format", "qipu", "--out", s(&out)]);
    let (before, after) = (by_move(&dump(&book, &[])), by_move(&dump(&out, &[])));
    assert!(before.len() >= 5, "{before:?}");
    assert_eq!(
        before.keys().collect::<Vec<_>>(),
        after.keys().collect::<Vec<_>>()
    );
    let double = |v: Option<u32>| v.map(|v| 2 * v);
    for (k, r) in &before {
        let m = &after[k];
        assert_eq!(m.weight, r.weight, "{k:?}");
        assert_eq!(
            (m.games, m.wins, m.draws, m.losses),
            (
                double(r.games),
                double(r.wins),
                double(r.draws),
                double(r.losses)
            ),
            "{k:?}"
        );
    }
}

/// `qipu book merge A B --json`: the summary's per-input (read, kept, merged, dropped).
fn merge_summary(args: &[&str]) -> Vec<[u64; 4]> {
    let v: serde_json::Value = serde_json::from_str(&qipu_ok(args)).unwrap();
    v["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| ["read", "kept", "merged", "dropped"].map(|k| i[k].as_u64().unwrap()))
        .collect()
}

/// Two books of known weights merged by the rule of `src/book/merge.rs`, with and without
/// `--weight` and `--min-weight`; the summary counts worked out by hand.
#[test]
fn merge_of_two_books_follows_the_weight_rule() {
    let dir = scratch("two");
    let keep = ["--mirror", "keep"];
    let a = book_of(&dir, "a.qbk", "qipu", &games_a(), &keep);
    let b = book_of(&dir, "b.qbk", "qipu", &games_b(), &keep);
    // A: start h2e2 6, c3c4 2 (total 8); after h2e2: h9g7 6. Three records.
    // B: start h2e2 1, g3g4 3 (total 4). Two records.
    assert_eq!(dump(&a, &[]).len(), 3);
    assert_eq!(dump(&b, &[]).len(), 2);
    let out = dir.join("ab.qbk");
    let (pa, pb) = (s(&a), s(&b));
    let run = |extra: &[&str]| {
        let mut args = vec!["book", "merge", pa, pb, "--format", "qipu"];
        args.extend_from_slice(&["--out", s(&out), "--json"]);
        args.extend_from_slice(extra);
        merge_summary(&args)
    };
    // factors 1, 1: S = (8 + 4) / 2 = 6;
    // h2e2 (6/8 + 1/4) / 2 × 6 = 3; c3c4 (2/8) / 2 × 6 = 0.75 → 1; g3g4 (3/4) / 2 × 6 = 2.25 → 2;
    // after h2e2 only A: h9g7 keeps 6. Games and W/D/L add up.
    assert_eq!(run(&[]), [[3, 2, 1, 0], [2, 1, 1, 0]]);
    let rows = dump(&out, &[]);
    assert_eq!(
        at(&rows, START),
        [
            line("c3c4", 1, Some((2, 0, 2, 0))),
            line("g3g4", 2, Some((3, 0, 0, 3))),
            line("h2e2", 3, Some((7, 6, 0, 1))),
        ]
    );
    // W/D/L are the side to move's: Black lost the six games
    assert_eq!(at(&rows, AFTER_H2E2), [line("h9g7", 6, Some((6, 0, 0, 6)))]);
    // --weight B=3: Σf = 4, S = (8 + 3 × 4) / 4 = 5;
    // h2e2 (6/8 + 3 × 1/4) / 4 × 5 = 1.875 → 2; c3c4 (2/8) / 4 × 5 = 0.3125 → 0, written as
    // the least weight 1; g3g4 (3 × 3/4) / 4 × 5 = 2.8125 → 3
    let factor = format!("{pb}=3");
    run(&["--weight", &factor]);
    let w: Vec<(String, i64)> = at(&dump(&out, &[]), START)
        .into_iter()
        .map(|l| (l.0, l.1))
        .collect();
    assert_eq!(
        w,
        [("c3c4".into(), 1), ("g3g4".into(), 3), ("h2e2".into(), 2)]
    );
    // --min-weight 2 (factors 1): c3c4 (1) dropped from A
    assert_eq!(run(&["--min-weight", "2"]), [[3, 1, 1, 1], [2, 1, 1, 0]]);
    let moves: Vec<String> = dump(&out, &[]).into_iter().map(|r| r.iccs).collect();
    assert_eq!(moves.len(), 3);
    assert!(!moves.contains(&"c3c4".to_string()), "{moves:?}");
    // --min-weight 7 leaves nothing: an error, no file
    std::fs::remove_file(&out).unwrap();
    let mut args = vec![
        "book",
        "merge",
        pa,
        pb,
        "--format",
        "qipu",
        "--out",
        s(&out),
    ];
    args.extend_from_slice(&["--min-weight", "7"]);
    let o = qipu(&args);
    assert!(!o.status.success());
    assert!(!out.exists());
}

/// A mirror-merged book and a book of positions as reached: after h2e2 and after b2e2 are
/// one entry of the merged result, its games the sum of the games of both, not more.
#[test]
fn merge_of_a_mirror_merged_and_a_plain_book_counts_a_mirror_image_once() {
    let dir = scratch("mirror");
    // M, mirror merged: h2e2 h9g7 twice (Red wins). The start is symmetric: h2e2 2 and its
    // image b2e2 2; after h2e2 (or its image after b2e2): h9g7 (b9c7) 2.
    let m = book_of(
        &dir,
        "m.qbk",
        "qipu",
        &pgn(&[("h2e2 h9g7", 2, "1-0")]),
        &["--mirror", "merge"],
    );
    // P, as reached: h2e2 h9g7 once and b2e2 b9c7 once (draws): four records.
    let p = book_of(
        &dir,
        "p.qbk",
        "qipu",
        &pgn(&[("h2e2 h9g7", 1, "1/2-1/2"), ("b2e2 b9c7", 1, "1/2-1/2")]),
        &["--mirror", "keep"],
    );
    assert_eq!(dump(&m, &[]).len(), 3);
    assert_eq!(dump(&p, &[]).len(), 4);
    let out = dir.join("mp.qbk");
    let summary = merge_summary(&[
        "book",
        "merge",
        s(&m),
        s(&p),
        "--format",
        "qipu",
        "--out",
        s(&out),
        "--json",
    ]);
    // merged result (mirror merged, since M is): start h2e2, b2e2; one entry for after
    // h2e2/b2e2. Each of M's three is shared with P; P's four records meet there too.
    assert_eq!(summary, [[3, 0, 3, 0], [4, 0, 3, 0]]);
    let rows = dump(&out, &[]);
    assert_eq!(rows.len(), 3, "{rows:?}");
    // start: M's h2e2 2 of 4, P's (as reached, symmetric: each move counts for its image
    // too) h2e2 2 of 4 → weight 2; games 2 (M) + 1 + 1 (P's h2e2 and its image b2e2)
    assert_eq!(
        at(&rows, START),
        [
            line("b2e2", 2, Some((4, 2, 2, 0))),
            line("h2e2", 2, Some((4, 2, 2, 0))),
        ]
    );
    // after h2e2 / b2e2: M's 2 games (Black lost) and P's 1 + 1 (draws), in whichever
    // orientation is stored
    let reply: Vec<Line> = at(&rows, AFTER_H2E2)
        .into_iter()
        .chain(at(&rows, AFTER_B2E2))
        .collect();
    assert_eq!(reply.len(), 1, "{rows:?}");
    assert!(["h9g7", "b9c7"].contains(&reply[0].0.as_str()));
    assert_eq!(
        (reply[0].1, reply[0].2, reply[0].3, reply[0].4),
        (2, Some(4), Some(0), Some(2))
    );
}

/// `qipu book dump` and `stats` of a hand-made book: one CSV row per record, the columns
/// as documented, `--depth` and `--min-weight`; stats' positions, records, depth, main line.
#[test]
fn dump_and_stats_of_a_hand_made_book() {
    let dir = scratch("dump");
    let a = book_of(&dir, "a.qbk", "qipu", &games_a(), &["--mirror", "keep"]);
    let rows = dump(&a, &[]);
    // the three records of book A, W/D/L of the games
    assert_eq!(
        at(&rows, START),
        [
            line("c3c4", 2, Some((2, 0, 2, 0))),
            line("h2e2", 6, Some((6, 6, 0, 0)))
        ]
    );
    // W/D/L are the side to move's: Black lost the six games
    assert_eq!(at(&rows, AFTER_H2E2), [line("h9g7", 6, Some((6, 0, 0, 6)))]);
    assert_eq!(rows.len(), 3);
    let h2e2 = rows.iter().find(|r| r.iccs == "h2e2").unwrap();
    assert_eq!(h2e2.notation, "炮二平五");
    assert_eq!(h2e2.key.len(), 16);
    // --depth 0: the start only; --min-weight 3: c3c4 left out
    assert_eq!(dump(&a, &["--depth", "0"]).len(), 2);
    let heavy: Vec<String> = dump(&a, &["--min-weight", "3"])
        .into_iter()
        .map(|r| r.iccs)
        .collect();
    assert_eq!(heavy, ["h2e2", "h9g7"]);
    let v: serde_json::Value =
        serde_json::from_str(&qipu_ok(&["book", "stats", s(&a), "--json"])).unwrap();
    // positions: the start and after h2e2 (after c3c4 holds no move); depth 1
    assert_eq!(
        (&v["positions"], &v["entries"], &v["records"], &v["depth"]),
        (&2.into(), &3.into(), &3.into(), &1.into())
    );
    assert_eq!(v["main_lines"][0]["moves"], "h2e2 h9g7");
    assert_eq!(v["main_lines"][1]["moves"], "c3c4");
}

/// A failed convert or merge: non-zero exit, the bad input named, no output file.
fn fails_naming(args: &[&str], bad: &Path, out: &Path) {
    let o = qipu(args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "qipu {args:?} succeeded");
    assert!(err.contains(s(bad)), "qipu {args:?}: {err}");
    assert!(!out.exists(), "qipu {args:?} left {}", out.display());
}

/// Truncated books, foreign files and a Janggi book into BOOK.DAT: a clear error naming
/// the file, and no output file left behind (nor a temporary one).
#[test]
fn bad_input_fails_naming_the_file_and_leaves_no_output() {
    let dir = scratch("bad");
    let games = games_a();
    let good = book_of(&dir, "good.qbk", "qipu", &games, &[]);
    let mut bad = Vec::new();
    for (format, name) in [("eleeye", "b.dat"), ("obk", "b.obk"), ("qipu", "b.qbk")] {
        let book = book_of(&dir, name, format, &games, &[]);
        let bytes = std::fs::read(&book).unwrap();
        // a BOOK.DAT record is 8 bytes, a qipu one longer: 3 bytes off ends one in the middle
        let cut = if format == "obk" {
            bytes.len() / 2
        } else {
            bytes.len() - 3
        };
        let t = dir.join(format!("truncated-{name}"));
        std::fs::write(&t, &bytes[..cut]).unwrap();
        bad.push(t);
    }
    let foreign = dir.join("games.pgn");
    std::fs::write(&foreign, &games).unwrap();
    bad.push(foreign);
    let readme = dir.join("README");
    std::fs::write(&readme, "A book? No, a README.\n".repeat(40)).unwrap();
    bad.push(readme);
    let out = dir.join("out.qbk");
    for b in &bad {
        let convert = [
            "book",
            "convert",
            s(b),
            "--format",
            "qipu",
            "--out",
            s(&out),
        ];
        fails_naming(&convert, b, &out);
        let merge = [
            "book",
            "merge",
            s(&good),
            s(b),
            "--format",
            "eleeye",
            "--out",
            s(&out),
        ];
        fails_naming(&merge, b, &out);
        fails_naming(&["book", "dump", s(b)], b, &out);
    }
    // a Janggi book into BOOK.DAT (or .obk): only qipu books hold Janggi positions
    let janggi = janggi_book(&dir);
    for format in ["eleeye", "obk"] {
        let out = dir.join(format!("janggi.{format}"));
        let convert = [
            "book",
            "convert",
            s(&janggi),
            "--format",
            format,
            "--out",
            s(&out),
        ];
        fails_naming(&convert, &janggi, &out);
    }
    // nothing left in the folder but the inputs
    let mut left: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| {
            n.starts_with("out") || n.starts_with('.') || n == "janggi.eleeye" || n == "janggi.obk"
        })
        .collect();
    left.sort();
    assert!(left.is_empty(), "{left:?}");
}

/// A BOOK.DAT record no line from the start reaches (MAKEBOOK kept it, not the moves leading
/// to it) merges with another book's entry for the same position, as ElephantEye, which keys
/// a position by its lock alone, reads them: one record, not two of the same lock and move.
#[test]
fn a_loose_book_dat_record_merges_with_the_position_another_book_reaches() {
    let dir = scratch("loose");
    // Two move orders to one position Q (after h2e2 h9g7 b0c2 or b0c2 h9g7 h2e2), both won
    // by Black: under MAKEBOOK's weights every move before Q sums -1 or +3 (< the ratio 4),
    // i9h9 at Q sums 3 + 3 = 6: weight 6 / 4 = 1, Q's only record, reached by no line.
    let orders = [
        ("h2e2 h9g7 b0c2 i9h9", 1, "0-1"),
        ("b0c2 h9g7 h2e2 i9h9", 1, "0-1"),
    ];
    let file = dir.join("orders.pgn");
    std::fs::write(&file, pgn(&orders)).unwrap();
    let a = dir.join("a.dat");
    qipu_ok(&["book", s(&file), "--format", "eleeye", "--out", s(&a)]);
    let v: serde_json::Value =
        serde_json::from_str(&qipu_ok(&["book", "stats", s(&a), "--json"])).unwrap();
    assert_eq!(
        (v["records"].as_u64(), v["unreached"].as_u64()),
        (Some(1), Some(1))
    );
    // B: the first order once, every move: the start's h2e2 and its mirror b2e2, h9g7,
    // b0c2, and i9h9 at Q
    let b = book_of(&dir, "b.dat", "eleeye", &pgn(&orders[..1]), &[]);
    let out = dir.join("ab.dat");
    let merge = ["book", "merge", s(&a), s(&b), "--format", "eleeye"];
    let text = qipu_ok(&[&merge[..], &["--out", s(&out), "--json"]].concat());
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["records"], 5, "{v}");
    let counts = |i: usize| {
        let x = &v["inputs"][i];
        (x["read"].as_u64(), x["kept"].as_u64(), x["merged"].as_u64())
    };
    assert_eq!(counts(0), (Some(1), Some(0), Some(1)), "{v}");
    assert_eq!(counts(1), (Some(5), Some(4), Some(1)), "{v}");
    // Q holds i9h9 once, weight 1 (each input's only move there, normalised: 1)
    let rows = dump(&out, &[]);
    let at_q: Vec<_> = rows
        .iter()
        .filter(|r| r.iccs == "i9h9" || r.iccs == "a9b9")
        .collect();
    assert_eq!(at_q.len(), 1, "{rows:?}");
    assert_eq!(at_q[0].weight, 1);
}

/// (board and side to move, move) of a dump's rows that have a position.
fn tree_of(rows: &[Row]) -> Vec<(String, String)> {
    let mut v: Vec<_> = by_move(rows)
        .into_keys()
        .filter(|(fen, _)| !fen.is_empty())
        .collect();
    v.sort();
    v
}

/// `qipu book dump --pgn` of a book with a transposition and a loop back to the start, read
/// again by `qipu book --tree`: the same positions and moves (weights aside: each line of the
/// PGN counts as one game); `--depth` and `--min-weight` cut the tree as they cut the CSV
/// dump; `qipu import` reads the PGN.
#[test]
fn dump_pgn_read_again_gives_the_same_tree() {
    let dir = scratch("pgn");
    let games = pgn(&[
        // back to the start after four plies: a loop
        ("h2e2 h9g7 e2h2 g7h9", 2, "1-0"),
        ("h2e2 b9c7", 1, "1/2-1/2"),
        // two orders to one position, which holds g6g5 and b9c7
        ("c3c4 c6c5 g3g4 g6g5", 1, "1/2-1/2"),
        ("g3g4 c6c5 c3c4 b9c7", 1, "0-1"),
    ]);
    let keep = ["--mirror", "keep"];
    let book = book_of(&dir, "b.qbk", "qipu", &games, &keep);
    let rows = dump(&book, &[]);
    // start 3, after h2e2 2, the loop's 2, the c3c4 order 2 + the shared position's 2, the
    // g3g4 order 2
    assert_eq!(rows.len(), 13, "{rows:?}");
    let reread = |extra: &[&str], name: &str| -> Vec<(String, String)> {
        let file = dir.join(format!("{name}.pgn"));
        let mut args = vec!["book", "dump", s(&book), "--pgn"];
        args.extend_from_slice(extra);
        let text = qipu_ok(&args);
        std::fs::write(&file, &text).unwrap();
        let out = dir.join(format!("{name}.qbk"));
        tree_book(&file, &out, &keep);
        tree_of(&dump(&out, &[]))
    };
    assert_eq!(reread(&[], "all"), tree_of(&rows));
    // 2 plies of the PGN: the moves of the positions at plies 0 and 1 (the CSV's --depth 1)
    assert_eq!(
        reread(&["--depth", "2"], "depth2"),
        tree_of(&dump(&book, &["--depth", "1"]))
    );
    assert_eq!(
        tree_of(&dump(&book, &["--depth", "1"])).len(),
        3 + 2 + 1 + 1
    );
    // weight 2 or more: h2e2 (3), then h9g7, e2h2, g7h9 (2 each), which returns to the start
    let heavy: Vec<String> = reread(&["--min-weight", "2"], "heavy")
        .into_iter()
        .map(|(_, m)| m)
        .collect();
    let mut want = ["e2h2", "g7h9", "h2e2", "h9g7"];
    want.sort();
    let mut heavy = heavy;
    heavy.sort();
    assert_eq!(heavy, want);
    // the comments: weight and W/D/L of the side to move (h2e2: 2 wins, 1 draw)
    let text = std::fs::read_to_string(dir.join("all.pgn")).unwrap();
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("1. h2e2 {weight 3, games 3, W/D/L 2/1/0}"),
        "{flat}"
    );
    assert!(flat.contains("[Event \"qipu book dump: "), "{flat}");
    let db = dir.join("dump.db");
    let v: serde_json::Value = serde_json::from_str(&qipu_ok(&[
        "import",
        s(&dir.join("all.pgn")),
        "--db",
        s(&db),
        "--json",
    ]))
    .unwrap();
    assert_eq!(v["imported"], 1, "{v}");
}

/// `Board::mirror_key` (what the book walk looks a mirror image up by) is the key of the
/// mirrored position, along a few hundred plies of both games.
#[test]
fn mirror_key_is_the_key_of_the_mirror_image() {
    for variant in [Variant::Xiangqi, Variant::Janggi] {
        let mut pos = AnyPosition::new(variant);
        for ply in 0..300usize {
            let image = mirror_position(&pos).unwrap();
            assert_eq!(pos.board().mirror_key(), image.key(), "{variant} ply {ply}");
            let mut legal = pos.legal_moves().to_vec();
            if legal.is_empty() {
                break;
            }
            legal.sort();
            pos.play(legal[(ply * 7 + 3) % legal.len()]).unwrap();
        }
    }
}
