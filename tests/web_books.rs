//! `/api/probe` with a book's W/D/L (issue #32 item 5): a qipu book and an `.obk` built here
//! from six hand-made games, whose counts below are counted by hand from the games, and a
//! `BOOK.DAT`, which stores weights only (every count `null`).

use std::{path::PathBuf, sync::Arc};

use qipu::{
    book::{build, obk, qipu as qbook, BookGame, BookOptions, Format},
    rules::{AnyPosition, Color, Move, Outcome, Variant},
    web::{route, Config, Worker},
};
use serde_json::{json, Value};

/// The games: moves from the start and result.
const GAMES: &[(&str, Option<Outcome>)] = &[
    (
        "h2e2 h9g7 b0c2",
        Some(Outcome::Decisive {
            winner: Color::First,
        }),
    ),
    (
        "h2e2 h9g7",
        Some(Outcome::Decisive {
            winner: Color::Second,
        }),
    ),
    (
        "h2e2 h9g7",
        Some(Outcome::Decisive {
            winner: Color::Second,
        }),
    ),
    ("h2e2 b9c7", Some(Outcome::Draw)),
    (
        "c3c4",
        Some(Outcome::Decisive {
            winner: Color::Second,
        }),
    ),
    ("h2e2 h9g7", None),
];

fn games() -> impl Iterator<Item = Result<BookGame, qipu::book::BookError>> {
    GAMES.iter().map(|(moves, result)| {
        Ok(BookGame {
            start: AnyPosition::new(Variant::Xiangqi),
            moves: moves
                .split(' ')
                .map(|m| m.parse::<Move>().unwrap())
                .collect(),
            result: *result,
        })
    })
}

fn dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("target/test-web-books")
        .join(std::process::id().to_string());
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The qipu book of [`GAMES`] (every move kept; mirrors merged, the format's default).
pub fn qipu_book(name: &str) -> PathBuf {
    let built = build::<qbook::QipuKeys>(games(), &BookOptions::everything(Format::Qipu)).unwrap();
    let mut bytes = Vec::new();
    qbook::write(&built, &mut bytes).unwrap();
    let path = dir().join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// The `.obk` of [`GAMES`] (every move kept; positions as reached, the format's default).
fn obk_book(name: &str) -> PathBuf {
    let built = build::<obk::ObkKeys>(games(), &BookOptions::everything(Format::Obk)).unwrap();
    let path = dir().join(name);
    let _ = std::fs::remove_file(&path);
    obk::write(&built, &path).unwrap();
    path
}

fn probe(book: PathBuf, query: &str) -> Value {
    let config = Config {
        books: vec![("B".to_string(), book)],
        ..Config::default()
    };
    let mut worker = Worker::open(Arc::new(config)).unwrap();
    let r = route(&mut worker, "GET", &format!("/api/probe?{query}"));
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    serde_json::from_slice(&r.body).unwrap()
}

/// The move `mv` of an answer: games, wins, draws, losses (JSON, `null` kept) and score.
fn counts(v: &Value, mv: &str) -> (Value, Option<f64>) {
    let m = v["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["move"] == mv)
        .unwrap_or_else(|| panic!("no {mv} in {v}"));
    (
        json!([m["games"], m["wins"], m["draws"], m["losses"]]),
        m["score"].as_f64(),
    )
}

fn close(a: Option<f64>, b: f64) -> bool {
    a.is_some_and(|a| (a - b).abs() < 1e-9)
}

/// After 1. h2e2, Black to move: h9g7 in games 1, 2, 3 and 6 — Black won 2 and 3, lost 1,
/// game 6 has no result; b9c7 in game 4, drawn. After 1. h2e2 h9g7, Red to move: b0c2 in
/// game 1, won.
fn assert_hand_counts(book: PathBuf, games_stored: bool) {
    let g = |n: u32| if games_stored { json!(n) } else { Value::Null };
    let v = probe(book.clone(), "moves=h2e2");
    let (c, score) = counts(&v, "h9g7");
    assert_eq!(c, json!([g(4), 2, 0, 1]));
    assert!(close(score, 2.0 / 3.0), "{score:?}");
    let (c, score) = counts(&v, "b9c7");
    assert_eq!(c, json!([g(1), 0, 1, 0]));
    assert!(close(score, 0.5), "{score:?}");
    let v = probe(book, "moves=h2e2,h9g7");
    let (c, score) = counts(&v, "b0c2");
    assert_eq!(c, json!([g(1), 1, 0, 0]));
    assert!(close(score, 1.0), "{score:?}");
}

/// The book's facts of an answer.
fn facts(v: &Value) -> Value {
    json!([
        v["format"],
        v["variant"],
        v["records"],
        v["positions"],
        v["mirror_merged"]
    ])
}

#[test]
fn a_qipu_book_gives_games_and_wdl_of_the_side_to_move() {
    let book = qipu_book("W.qbk");
    assert_hand_counts(book.clone(), true);
    // Records: the start holds h2e2, c3c4 and their mirror images b2e2, g3g4 (the start is
    // symmetric), after h2e2 h9g7 and b9c7, after h2e2 h9g7 b0c2: 7 in 3 positions.
    let v = probe(book.clone(), "");
    assert_eq!(facts(&v), json!(["qipu", "xiangqi", 7, 3, true]));
    // The CLI reports the same facts (computed once, by Book::facts).
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_qipu"))
        .args(["probe", "--json", "--book"])
        .arg(&book)
        .output()
        .unwrap();
    let cli: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(facts(&cli), facts(&v));
}

#[test]
fn an_obk_gives_wdl_and_no_games_count() {
    let book = obk_book("W.obk");
    // `.obk` stores wins, draws and losses, not the games (null).
    assert_hand_counts(book.clone(), false);
    // Positions as reached: start (h2e2, c3c4), after h2e2 (h9g7, b9c7), after h2e2 h9g7
    // (b0c2): 5 records in 3 positions; whether mirrors are merged is not known.
    let v = probe(book, "");
    assert_eq!(facts(&v), json!(["obk", "xiangqi", 5, 3, null]));
    let (c, score) = counts(&v, "c3c4");
    assert_eq!(c, json!([null, 0, 0, 1]));
    assert!(close(score, 0.0), "{score:?}");
}

#[test]
fn a_book_dat_gives_weights_and_null_counts() {
    let v = probe(crate::web::eleeye_book("WDL.DAT"), "");
    // c3c4 and its mirror g3g4 under the one key of the symmetric start.
    assert_eq!(facts(&v), json!(["eleeye", "xiangqi", 2, 1, true]));
    for mv in ["c3c4", "g3g4"] {
        let (c, score) = counts(&v, mv);
        assert_eq!(c, json!([null, null, null, null]));
        assert_eq!(score, None);
        let m = v["moves"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["move"] == mv)
            .unwrap();
        assert_eq!((m["weight"].as_i64(), &m["score"]), (Some(1), &Value::Null));
    }
}
