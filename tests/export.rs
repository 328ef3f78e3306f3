//! `qipu export --positions` (#14.12): each row says where its position is — the variant, a
//! FEN, and a game (by its id in `--games`) that reaches it after `ply` plies — checked against
//! a replay written here on a plain board (a move lifts the piece on its from-square and puts
//! it on its to-square), not with qipu's rules.

use std::{collections::HashMap, path::Path, process::Command};

use qipu::rules::{AnyPosition, Variant};

fn qipu(args: &[&str]) {
    let out = Command::new(env!("CARGO_BIN_EXE_qipu"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.code() == Some(0) || out.status.code() == Some(1),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The board of a FEN as 10 ranks of 9 squares (rank 0 = the first player's back rank), and
/// the side to move.
fn board_of(fen: &str) -> (Vec<Vec<Option<char>>>, String) {
    let mut fields = fen.split(' ');
    let placement = fields.next().unwrap();
    let side = fields.next().unwrap().to_string();
    let mut ranks: Vec<Vec<Option<char>>> = placement
        .split('/')
        .map(|r| {
            let mut rank = Vec::new();
            let mut digits = String::new();
            let flush = |digits: &mut String, rank: &mut Vec<Option<char>>| {
                if !digits.is_empty() {
                    rank.extend(std::iter::repeat_n(None, digits.parse::<usize>().unwrap()));
                    digits.clear();
                }
            };
            for c in r.chars() {
                if c.is_ascii_digit() {
                    digits.push(c);
                } else {
                    flush(&mut digits, &mut rank);
                    rank.push(Some(c));
                }
            }
            flush(&mut digits, &mut rank);
            assert_eq!(rank.len(), 9, "{fen}");
            rank
        })
        .collect();
    ranks.reverse();
    assert_eq!(ranks.len(), 10, "{fen}");
    (ranks, side)
}

/// The board and side after `ply` of `moves` (canonical coordinates, `pass`) from `fen`.
fn replay(fen: &str, moves: &[&str], ply: usize) -> (Vec<Vec<Option<char>>>, String) {
    let (mut board, mut side) = board_of(fen);
    for m in &moves[..ply] {
        if *m != "pass" {
            let b = m.as_bytes();
            let (f0, r0) = ((b[0] - b'a') as usize, (b[1] - b'0') as usize);
            let (f1, r1) = ((b[2] - b'a') as usize, (b[3] - b'0') as usize);
            board[r1][f1] = board[r0][f0].take();
        }
        side = if side == "w" { "b".into() } else { "w".into() };
    }
    (board, side)
}

#[test]
fn positions_csv_says_the_variant_a_fen_and_a_game_that_reaches_each_position() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("x.db");
    let (games_csv, positions_csv) = (dir.path().join("g.csv"), dir.path().join("p.csv"));
    let s = |p: &Path| p.to_str().unwrap().to_string();
    qipu(&[
        "import",
        &s(&root.join("data/ccpd")),
        &s(&root.join("tests/data/formats/games.gib")),
        &s(&root.join("tests/data/formats/janggi-pychess.pgn")),
        "--db",
        &s(&db),
    ]);
    qipu(&[
        "export",
        "--db",
        &s(&db),
        "--games",
        &s(&games_csv),
        "--positions",
        &s(&positions_csv),
    ]);
    // id → (variant, start FEN, moves)
    let mut games: HashMap<String, (String, String, String)> = HashMap::new();
    for r in csv::Reader::from_path(&games_csv).unwrap().deserialize() {
        let r: HashMap<String, String> = r.unwrap();
        games.insert(
            r["id"].clone(),
            (
                r["variant"].clone(),
                r["start_fen"].clone(),
                r["moves"].clone(),
            ),
        );
    }
    let mut r = csv::Reader::from_path(&positions_csv).unwrap();
    let header: Vec<String> = r.headers().unwrap().iter().map(str::to_string).collect();
    assert_eq!(
        header[..9],
        [
            "key",
            "move",
            "games",
            "first_wins",
            "draws",
            "second_wins",
            "avg_rating",
            "first_date",
            "last_date"
        ]
    );
    assert_eq!(header[9..], ["variant", "fen", "game", "ply"]);
    let mut seen: HashMap<String, (String, String, String, String)> = HashMap::new();
    let mut variants: HashMap<String, usize> = HashMap::new();
    let mut deep = 0;
    for row in r.deserialize() {
        let row: HashMap<String, String> = row.unwrap();
        let at = (
            row["variant"].clone(),
            row["fen"].clone(),
            row["game"].clone(),
            row["ply"].clone(),
        );
        // Every row of a position says the same.
        if let Some(before) = seen.get(&row["key"]) {
            assert_eq!(before, &at, "{}", row["key"]);
            continue;
        }
        let (variant, start, moves) = &games[&row["game"]];
        assert_eq!(variant, &row["variant"]);
        let moves: Vec<&str> = moves.split(' ').filter(|m| !m.is_empty()).collect();
        let ply: usize = row["ply"].parse().unwrap();
        assert!(ply <= moves.len());
        deep += usize::from(ply >= 10);
        assert_eq!(
            replay(start, &moves, ply),
            board_of(&row["fen"]),
            "key {} game {} ply {ply}",
            row["key"],
            row["game"]
        );
        // The FEN is the position of the key.
        let v = if variant == "janggi" {
            Variant::Janggi
        } else {
            Variant::Xiangqi
        };
        let key = AnyPosition::from_fen(v, &row["fen"]).unwrap().key();
        assert_eq!(format!("{key:016x}"), row["key"]);
        *variants.entry(variant.clone()).or_default() += 1;
        seen.insert(row["key"].clone(), at);
    }
    assert!(
        variants["xiangqi"] > 10_000 && variants["janggi"] > 10 && deep > 1000,
        "{variants:?}, {deep} positions 10 plies or more in"
    );
}
