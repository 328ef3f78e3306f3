//! Opening books: the ElephantEye book shipped with every XQWLight port probed through qipu,
//! MAKEBOOK's record counts on the CCGC games, round trips games → book → probe for every
//! format (expected values counted here, from FENs, independently of the book code), an
//! independent `.obk` reader, and corrupt input.

use std::{
    collections::{BTreeMap, HashMap, HashSet},
    io::Read,
    path::{Path, PathBuf},
    process::Command,
};

use qipu::book::{
    build,
    eleeye::{self, EleeyeKeys},
    obk::{self, ObkKeys},
    qipu::{self as qbook, QipuKeys},
    Book, BookGame, BookOptions, ForSide, Format, MirrorMode, Weights,
};
use qipu::rules::{AnyPosition, Color, Move, Outcome, Setup, Square, Variant};

use crate::common::{fs_move, shared_dir, EVERY_MOVE};

fn tmp(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("book-tests");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn outcome(result: &str) -> Option<Outcome> {
    match result {
        "1-0" => Some(Outcome::Decisive {
            winner: Color::First,
        }),
        "0-1" => Some(Outcome::Decisive {
            winner: Color::Second,
        }),
        "1/2-1/2" => Some(Outcome::Draw),
        _ => None,
    }
}

/// The games of a reference file (start FEN + FS moves + result).
fn reference_games(shared: &Path, name: &str, variant: Variant) -> Vec<BookGame> {
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(shared.join("reference").join(name)).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    text.lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["status"] == "ok")
        .map(|v| BookGame {
            start: AnyPosition::from_fen(variant, v["fen"].as_str().unwrap()).unwrap(),
            moves: v["moves"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| fs_move(m.as_str().unwrap()))
                .collect(),
            result: v["result"].as_str().and_then(outcome),
        })
        .collect()
}

/// Self-made games: deterministic pseudo-random playouts that favour a few moves, so that
/// positions recur across games, and random results.
fn playouts(variant: Variant, games: usize, plies: usize) -> Vec<BookGame> {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64 ^ variant as u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    (0..games)
        .map(|_| {
            let start = AnyPosition::new(variant);
            let mut pos = start.clone();
            let mut moves = Vec::new();
            for _ in 0..plies {
                let mut legal = pos.legal_moves().to_vec();
                if legal.is_empty() {
                    break;
                }
                legal.sort();
                let r = next();
                let i = if r % 4 != 0 {
                    (r >> 8) as usize % 3
                } else {
                    (r >> 8) as usize % legal.len()
                };
                let m = legal[i.min(legal.len() - 1)];
                pos.play(m).unwrap();
                moves.push(m);
            }
            let result = match next() % 4 {
                0 => Some(Outcome::Draw),
                1 => None,
                2 => Some(Outcome::Decisive {
                    winner: Color::First,
                }),
                _ => Some(Outcome::Decisive {
                    winner: Color::Second,
                }),
            };
            BookGame {
                start,
                moves,
                result,
            }
        })
        .collect()
}

/// Board + side to move: the position's identity for the expected counts.
fn ident(pos: &AnyPosition) -> String {
    let fen = pos.fen();
    fen.split(' ').take(2).collect::<Vec<_>>().join(" ")
}

fn mirror_ident(pos: &AnyPosition) -> String {
    let m = AnyPosition::from_setup(pos.variant(), &pos.board().to_setup().mirror()).unwrap();
    ident(&m)
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Expect {
    games: u32,
    wins: u32,
    draws: u32,
    losses: u32,
}

/// Expected per (position identity, move): games / wins / draws / losses for the mover, each
/// game counted once; with `merge`, a position also counts its mirror image's moves mirrored.
/// Also returns every position reached before a counted move.
fn expected(
    games: &[BookGame],
    max_ply: usize,
    merge: bool,
    for_side: ForSide,
) -> (HashMap<(String, Move), Expect>, Vec<AnyPosition>) {
    let mut table: HashMap<(String, Move), Expect> = HashMap::new();
    let mut positions = Vec::new();
    let mut seen_pos = HashSet::new();
    for g in games {
        let mut pos = g.start.clone();
        let mut seen = HashSet::new();
        for (ply, &m) in g.moves.iter().enumerate() {
            if max_ply > 0 && ply >= max_ply {
                break;
            }
            let mover = pos.turn();
            let ok = match for_side {
                ForSide::Both => true,
                ForSide::Only(c) => {
                    c == mover
                        && match g.result {
                            Some(Outcome::Draw) => true,
                            Some(Outcome::Decisive { winner }) => winner == c,
                            None => false,
                        }
                }
            };
            if ok {
                let mut keys = vec![(ident(&pos), m)];
                if merge {
                    keys.push((mirror_ident(&pos), m.mirror()));
                }
                for k in keys {
                    if seen.insert(k.clone()) {
                        let e = table.entry(k).or_default();
                        e.games += 1;
                        match g.result {
                            Some(Outcome::Draw) => e.draws += 1,
                            Some(Outcome::Decisive { winner }) if winner == mover => e.wins += 1,
                            Some(_) => e.losses += 1,
                            None => {}
                        }
                    }
                }
                if seen_pos.insert(ident(&pos)) {
                    positions.push(pos.clone());
                }
            }
            pos.play(m).unwrap();
        }
    }
    (table, positions)
}

fn weight_of(e: &Expect, weights: Weights) -> i64 {
    match weights {
        Weights::Games => i64::from(e.games),
        Weights::Score => i64::from(2 * e.wins + e.draws),
        Weights::Wins => i64::from(e.wins),
        Weights::Eleeye => unreachable!("counted per ply, not per game"),
        Weights::Engine => unreachable!("weighed by engine scores, not by games"),
    }
}

fn write_book(format: Format, games: &[BookGame], opts: &BookOptions, name: &str) -> Book {
    let input = || games.iter().cloned().map(Ok);
    match format {
        Format::Eleeye => {
            let built = build::<EleeyeKeys>(input(), opts).unwrap();
            let mut bytes = Vec::new();
            eleeye::write(&built, &mut bytes).unwrap();
            Book::from_bytes(&bytes).unwrap()
        }
        Format::Obk => {
            let built = build::<ObkKeys>(input(), opts).unwrap();
            let path = tmp(name);
            obk::write(&built, &path).unwrap();
            Book::open(&path).unwrap()
        }
        Format::Qipu => {
            let built = build::<QipuKeys>(input(), opts).unwrap();
            let path = tmp(name);
            qbook::write(&built, &mut std::fs::File::create(&path).unwrap()).unwrap();
            Book::open(&path).unwrap()
        }
    }
}

/// The selected moves of a position identity with their weights and counts.
fn wanted(
    table: &HashMap<(String, Move), Expect>,
    id: &str,
    opts: &BookOptions,
    format: Format,
    mirrored: bool,
) -> BTreeMap<String, (i64, Expect)> {
    let mut want = BTreeMap::new();
    for ((p, m), e) in table {
        let w = weight_of(e, opts.weights) / i64::from(opts.ratio);
        let w = if format == Format::Eleeye {
            w.min(65535)
        } else {
            w
        };
        if p == id && e.games >= opts.min_games && w >= 1 {
            let score_ok = opts.min_score == 0 || {
                let n = e.wins + e.draws + e.losses;
                n > 0 && 100 * (2 * e.wins + e.draws) >= 2 * n * opts.min_score
            };
            if score_ok {
                let m = if mirrored { m.mirror() } else { *m };
                want.insert(m.to_string(), (w, *e));
            }
        }
    }
    want
}

/// games → book → probe gives back, for every position, exactly the selected moves with their
/// weights (and counts where the format stores them).
fn round_trip(format: Format, games: &[BookGame], opts: &BookOptions, name: &str) -> usize {
    let book = write_book(format, games, opts, name);
    assert_eq!(book.format(), format);
    let merge = opts.mirror == MirrorMode::Merge;
    let (table, positions) = expected(games, opts.max_ply, merge, opts.for_side);
    let mut checked = 0;
    for pos in &positions {
        let id = ident(pos);
        // As the readers do: the position's own moves, else its mirror image's, mirrored.
        let mut want = wanted(&table, &id, opts, format, false);
        if want.is_empty() {
            want = wanted(&table, &mirror_ident(pos), opts, format, true);
        }
        let probed = book.probe(pos).unwrap();
        let got: BTreeMap<String, (i64, Option<qipu::book::Counts>)> = probed
            .moves
            .iter()
            .map(|m| (m.mv.to_string(), (m.weight, m.counts)))
            .collect();
        assert_eq!(
            got.len(),
            probed.moves.len(),
            "{format}: a move listed twice in {id}"
        );
        let got_w: BTreeMap<_, _> = got.iter().map(|(k, v)| (k.clone(), v.0)).collect();
        let want_w: BTreeMap<_, _> = want.iter().map(|(k, v)| (k.clone(), v.0)).collect();
        assert_eq!(got_w, want_w, "{format} {name}: position {id}");
        for (m, (_, counts)) in &got {
            if let (Some(c), Some((_, e))) = (counts, want.get(m)) {
                assert_eq!((c.wins, c.draws, c.losses), (e.wins, e.draws, e.losses));
                if let Some(g) = c.games {
                    assert_eq!(g, e.games);
                }
            }
        }
        checked += 1;
    }
    checked
}

#[test]
fn round_trip_every_format_on_self_made_games() {
    let games = playouts(Variant::Xiangqi, 120, 30);
    for format in [Format::Eleeye, Format::Obk, Format::Qipu] {
        for mirror in [MirrorMode::Keep, MirrorMode::Merge] {
            let mut opts = BookOptions::everything(format);
            opts.weights = Weights::Games;
            opts.ratio = 1;
            opts.mirror = mirror;
            let n = round_trip(format, &games, &opts, &format!("rt-{format}-{mirror:?}"));
            assert!(n > 1000, "{n} positions");
        }
    }
}

#[test]
fn round_trip_with_selection_options() {
    let games = playouts(Variant::Xiangqi, 150, 24);
    let mut opts = BookOptions::everything(Format::Qipu);
    opts.max_ply = 10;
    opts.min_games = 2;
    opts.weights = Weights::Score;
    round_trip(Format::Qipu, &games, &opts, "sel-score.qbk");
    opts.weights = Weights::Wins;
    opts.min_games = 1;
    opts.min_score = 60;
    opts.for_side = ForSide::Only(Color::Second);
    opts.mirror = MirrorMode::Keep;
    round_trip(Format::Obk, &games, &opts, "sel-wins.obk");
    opts.for_side = ForSide::Only(Color::First);
    opts.weights = Weights::Games;
    opts.ratio = 2;
    opts.min_score = 0;
    round_trip(Format::Eleeye, &games, &opts, "sel-red");
}

#[test]
fn janggi_round_trip_with_passes() {
    let mut games = playouts(Variant::Janggi, 100, 24);
    // Passes at the start and in the middle of some games.
    for g in games.iter_mut().step_by(3) {
        let mut pos = g.start.clone();
        let mut moves = vec![Move::PASS];
        pos.play(Move::PASS).unwrap();
        for &m in &g.moves {
            if pos.play(m).is_err() {
                break;
            }
            moves.push(m);
        }
        g.moves = moves;
    }
    let opts = BookOptions::everything(Format::Qipu);
    assert!(round_trip(Format::Qipu, &games, &opts, "janggi.qbk") > 500);
    let book = write_book(Format::Qipu, &games, &opts, "janggi2.qbk");
    let start = AnyPosition::new(Variant::Janggi);
    assert!(book
        .probe(&start)
        .unwrap()
        .moves
        .iter()
        .any(|m| m.mv == Move::PASS));
    // Janggi does not fit the Xiangqi-only formats.
    assert!(build::<EleeyeKeys>(
        games.iter().cloned().map(Ok),
        &BookOptions::everything(Format::Eleeye)
    )
    .is_err());
}

#[test]
fn illegal_moves_are_reported_with_game_and_ply() {
    let mut games = playouts(Variant::Xiangqi, 3, 10);
    games[2].moves[4] = "a0a9".parse().unwrap();
    let err = build::<QipuKeys>(
        games.into_iter().map(Ok),
        &BookOptions::everything(Format::Qipu),
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("game 3, ply 5: illegal move a0a9"),
        "{err}"
    );
}

#[test]
fn corrupt_books_never_panic() {
    let games = playouts(Variant::Xiangqi, 30, 16);
    let opts = BookOptions::everything(Format::Qipu);
    let built = build::<QipuKeys>(games.iter().cloned().map(Ok), &opts).unwrap();
    let mut q = Vec::new();
    qbook::write(&built, &mut q).unwrap();
    let mut e = Vec::new();
    let mut eopts = BookOptions::everything(Format::Eleeye);
    eopts.ratio = 1;
    let built = build::<EleeyeKeys>(games.iter().cloned().map(Ok), &eopts).unwrap();
    eleeye::write(&built, &mut e).unwrap();
    let start = AnyPosition::new(Variant::Xiangqi);
    let mut seed = 12345u64;
    for bytes in [q, e] {
        for i in 0..400usize {
            let mut b = bytes.clone();
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let at = (seed >> 33) as usize % b.len();
            if i % 2 == 0 {
                b[at] ^= (seed >> 13) as u8 | 1;
            } else {
                b.truncate(at);
            }
            if let Ok(book) = Book::from_bytes(&b) {
                let _ = book.probe(&start);
            }
        }
    }
    // garbage file through the CLI: exit code 2, no panic
    let path = tmp("garbage.bin");
    std::fs::write(&path, b"not a book at all").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_qipu"))
        .args(["probe", "--book"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn probe_cli_reads_a_qipu_book() {
    let games = playouts(Variant::Xiangqi, 20, 8);
    let book = tmp("cli.qbk");
    let built = build::<QipuKeys>(
        games.iter().cloned().map(Ok),
        &BookOptions::everything(Format::Qipu),
    )
    .unwrap();
    qbook::write(&built, &mut std::fs::File::create(&book).unwrap()).unwrap();
    let first = games[0].moves[0].to_string();
    let out = Command::new(env!("CARGO_BIN_EXE_qipu"))
        .args(["probe", "--json", "--book"])
        .arg(&book)
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["format"], "qipu");
    let n = games
        .iter()
        .filter(|g| g.moves[0].to_string() == first)
        .count();
    let m = v["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["move"] == first.as_str())
        .unwrap();
    assert_eq!(m["games"], n);
}

// ---- over ../shared -------------------------------------------------------------------------

fn probe_text(book: &Path, moves: &[&str]) -> Vec<(String, i64)> {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_qipu"));
    cmd.args(["probe", "--book"]).arg(book);
    if !moves.is_empty() {
        cmd.arg("--moves").args(moves);
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    probe_rows(&String::from_utf8(out.stdout).unwrap())
        .into_iter()
        .map(|w| (w[0].clone(), w[1].parse().unwrap()))
        .collect()
}

/// The move rows of `qipu probe`'s text: after the book's facts (`# …` lines) and the header
/// naming the columns (`move weight …`), each row's words.
fn probe_rows(text: &str) -> Vec<Vec<String>> {
    let mut lines = text.lines().skip_while(|l| l.starts_with('#'));
    if let Some(header) = lines.next() {
        assert!(header.starts_with("move "), "no header: {text}");
    }
    lines
        .map(|l| l.split_whitespace().map(str::to_string).collect())
        .collect()
}

#[test]
#[ignore = "needs ../shared (run by .ci/run)"]
fn elephanteye_book_start_position_and_h2e2_replies() {
    let Some(shared) = shared_dir() else { return };
    let path = shared.join("data/books/eleeye-BOOK.DAT");
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(qipu::book::detect(&bytes), Some(Format::Eleeye));
    let start = probe_text(&path, &[]);
    assert_eq!(start.len(), 16, "{start:?}");
    let has = |list: &[(String, i64)], m: &str, w: i64| {
        assert!(
            list.contains(&(m.to_string(), w)),
            "{m} {w} not in {list:?}"
        )
    };
    for (a, b, w) in [
        ("b2e2", "h2e2", 1473),
        ("c3c4", "g3g4", 546),
        ("c0e2", "g0e2", 311),
        ("b0c2", "h0g2", 89),
    ] {
        has(&start, a, w);
        has(&start, b, w);
    }
    assert_eq!(start[0].1, 1473);
    let replies = probe_text(&path, &["h2e2"]);
    let want: Vec<(String, i64)> = [("h9g7", 761), ("b9c7", 172), ("h7e7", 97), ("b7e7", 1)]
        .iter()
        .map(|(m, w)| (m.to_string(), *w))
        .collect();
    assert_eq!(replies, want);
    // The same through the library, and found via the mirror image.
    let book = Book::open(&path).unwrap();
    let mut pos = AnyPosition::new(Variant::Xiangqi);
    pos.play("h2e2".parse().unwrap()).unwrap();
    assert!(book.probe(&pos).unwrap().mirrored);
    // Whole-book facts of books.md §1.6.
    let Book::Eleeye(b) = &book else { panic!() };
    assert_eq!(b.records().len(), 12_081);
    let locks: HashSet<u32> = b.records().iter().map(|r| r.lock).collect();
    assert_eq!(locks.len(), 10_841);
    assert_eq!(b.records().iter().map(|r| r.weight).max(), Some(1473));
}

fn ccgc(shared: &Path) -> Vec<BookGame> {
    let games = reference_games(shared, "xiangqi-eleeye-ccgc.jsonl.gz", Variant::Xiangqi);
    assert_eq!(games.len(), 20);
    games
}

#[test]
#[ignore = "needs ../shared (run by .ci/run)"]
fn makebook_record_counts_on_the_ccgc_games() {
    let Some(shared) = shared_dir() else { return };
    let games = ccgc(&shared);
    let mut opts = BookOptions::everything(Format::Eleeye);
    assert_eq!((opts.weights, opts.ratio), (Weights::Eleeye, 4));
    for (ratio, count) in [(4, 16), (1, 1107)] {
        opts.ratio = ratio;
        let built = build::<EleeyeKeys>(games.iter().cloned().map(Ok), &opts).unwrap();
        let mut bytes = Vec::new();
        assert_eq!(eleeye::write(&built, &mut bytes).unwrap(), count);
        assert_eq!(bytes.len(), 8 * count);
    }
    // Every weight of the ratio-1 book, recounted here from FENs: every ply, repetitions
    // included, a position and its mirror image together (as MAKEBOOK folds them).
    let mut sums: HashMap<(String, Move), i64> = HashMap::new();
    for g in &games {
        let mut pos = g.start.clone();
        for &m in &g.moves {
            let v = match g.result {
                Some(Outcome::Draw) => 1,
                Some(Outcome::Decisive { winner }) if winner == pos.turn() => 3,
                Some(_) => -1,
                None => 0,
            };
            *sums.entry((ident(&pos), m)).or_default() += v;
            *sums.entry((mirror_ident(&pos), m.mirror())).or_default() += v;
            pos.play(m).unwrap();
        }
    }
    opts.ratio = 1;
    let built = build::<EleeyeKeys>(games.iter().cloned().map(Ok), &opts).unwrap();
    let mut bytes = Vec::new();
    eleeye::write(&built, &mut bytes).unwrap();
    let book = Book::from_bytes(&bytes).unwrap();
    let mut checked = 0;
    for g in &games {
        let mut pos = g.start.clone();
        for &m in &g.moves {
            let got: HashMap<Move, i64> = book
                .probe(&pos)
                .unwrap()
                .moves
                .iter()
                .map(|x| (x.mv, x.weight))
                .collect();
            let want: HashMap<Move, i64> = sums
                .iter()
                .filter(|((p, _), s)| *p == ident(&pos) && **s >= 1)
                .map(|((_, mv), s)| (*mv, *s))
                .collect();
            assert_eq!(got, want, "{}", pos.fen());
            checked += 1;
            pos.play(m).unwrap();
        }
    }
    assert!(checked > 1500);
}

#[test]
#[ignore = "needs ../shared (run by .ci/run)"]
fn round_trip_every_format_on_the_ccgc_games() {
    let Some(shared) = shared_dir() else { return };
    let games = ccgc(&shared);
    for format in [Format::Eleeye, Format::Obk, Format::Qipu] {
        let mut opts = BookOptions::everything(format);
        opts.weights = Weights::Score;
        opts.ratio = 1;
        let n = round_trip(format, &games, &opts, &format!("ccgc-{format}"));
        assert!(n > 1500, "{n}");
    }
}

/// vmove, vscore, vwin, vdraw, vlost.
type ObkRow = (i64, i64, i64, i64, i64);

/// An `.obk` reader written from books.md §2 alone: the key from the table file, rows read with
/// plain SQL, keys decoded from INTEGER or REAL storage.
struct ObkReader {
    table: Vec<u64>,
    player: u64,
    rows: HashMap<u64, Vec<ObkRow>>,
}

impl ObkReader {
    fn new(zobrist: &Path, book: &Path) -> ObkReader {
        let text = std::fs::read_to_string(zobrist).unwrap();
        let mut player = 0;
        let mut table = Vec::new();
        for line in text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
        {
            let hex = |s: &str| u64::from_str_radix(s.trim_start_matches("0x"), 16).unwrap();
            match line.strip_prefix("player ") {
                Some(p) => player = hex(p.trim().to_ascii_lowercase().as_str()),
                None => table.push(hex(line.trim())),
            }
        }
        assert_eq!(table.len(), 3584);
        let conn = rusqlite::Connection::open(book).unwrap();
        let mut stmt = conn
            .prepare("SELECT vkey, vmove, vscore, vwin, vdraw, vlost FROM bhobk WHERE vvalid = 1")
            .unwrap();
        let mut rows: HashMap<u64, Vec<_>> = HashMap::new();
        let mut q = stmt.query([]).unwrap();
        while let Some(r) = q.next().unwrap() {
            let keys: Vec<u64> = match r.get_ref(0).unwrap() {
                rusqlite::types::ValueRef::Integer(i) => vec![i as u64, (i as f64).to_bits()],
                rusqlite::types::ValueRef::Real(f) => vec![f.to_bits()],
                other => panic!("vkey {other:?}"),
            };
            let row = (
                r.get(1).unwrap(),
                r.get(2).unwrap(),
                r.get(3).unwrap(),
                r.get(4).unwrap(),
                r.get(5).unwrap(),
            );
            for k in keys {
                rows.entry(k).or_default().push(row);
            }
        }
        ObkReader {
            table,
            player,
            rows,
        }
    }

    fn key(&self, fen: &str) -> u64 {
        let setup = Setup::from_fen(fen).unwrap();
        let mut k = 0;
        for rank in 0..10u8 {
            for file in 0..9u8 {
                let sq = Square::from_coords(file, rank).unwrap();
                if let Some(p) = setup.piece_at(sq) {
                    let idx = "KABNRCPkabnrcp".find(p.char()).unwrap();
                    let fen_row = 9 - rank as usize;
                    k ^= self.table[idx * 256 + 0x33 + fen_row * 16 + file as usize];
                }
            }
        }
        if setup.turn == Color::First {
            k ^= self.player;
        }
        k
    }

    /// (move text, score, win, draw, loss) of a position.
    fn moves(&self, fen: &str) -> Vec<(String, i64, i64, i64, i64)> {
        let sq = |s: i64| {
            let (x, y) = (s & 15, s >> 4);
            format!("{}{}", (b'a' + (x - 3) as u8) as char, 12 - y)
        };
        let mut out: Vec<_> = self
            .rows
            .get(&self.key(fen))
            .into_iter()
            .flatten()
            .map(|&(mv, s, w, d, l)| (format!("{}{}", sq(mv >> 8), sq(mv & 0xff)), s, w, d, l))
            .collect();
        out.sort();
        out
    }
}

#[test]
#[ignore = "needs ../shared (run by .ci/run)"]
fn obk_written_by_qipu_read_by_an_independent_reader() {
    let Some(shared) = shared_dir() else { return };
    let games = ccgc(&shared);
    let opts = BookOptions::everything(Format::Obk);
    assert_eq!(opts.mirror, MirrorMode::Keep);
    let built = build::<ObkKeys>(games.iter().cloned().map(Ok), &opts).unwrap();
    let path = tmp("ccgc.obk");
    obk::write(&built, &path).unwrap();
    let reader = ObkReader::new(&shared.join("specs/obk-zobrist.txt"), &path);
    let start = Variant::Xiangqi.start_fen();
    assert_eq!(reader.key(start), 0x628d04d7c9c144ae);
    assert_eq!(reader.key(start), 7101337512282506414);
    // Start position: every first move with its game counts, from the PGN results.
    let mut want: BTreeMap<String, (i64, i64, i64, i64)> = BTreeMap::new();
    for g in &games {
        let e = want.entry(g.moves[0].to_string()).or_default();
        e.0 += 1;
        match g.result {
            Some(Outcome::Decisive {
                winner: Color::First,
            }) => e.1 += 1,
            Some(Outcome::Draw) => e.2 += 1,
            Some(_) => e.3 += 1,
            None => {}
        }
    }
    let got: BTreeMap<String, (i64, i64, i64, i64)> = reader
        .moves(start)
        .into_iter()
        .map(|(m, s, w, d, l)| (m, (s, w, d, l)))
        .collect();
    assert_eq!(got, want);
    // Every position of every game, including keys >= 2^63 (stored as REAL bit patterns).
    let (table, positions) = expected(&games, 0, false, ForSide::Both);
    let mut high = 0;
    for pos in &positions {
        let fen = pos.fen();
        if reader.key(&fen) >= 1 << 63 {
            high += 1;
        }
        let got: Vec<_> = reader.moves(&fen);
        let mut want: Vec<_> = table
            .iter()
            .filter(|((p, _), _)| *p == ident(pos))
            .map(|((_, m), e)| {
                let (w, d, l) = (i64::from(e.wins), i64::from(e.draws), i64::from(e.losses));
                (m.to_string(), i64::from(e.games), w, d, l)
            })
            .collect();
        want.sort();
        assert_eq!(got, want, "{fen}");
    }
    assert!(high > 100, "{high}");
}

#[test]
#[ignore = "needs ../shared (run by .ci/run)"]
fn makebook_from_the_ccgc_pgn_files_themselves() {
    let Some(shared) = shared_dir() else { return };
    let mut games = Vec::new();
    for game in qipu::formats::read_path(&shared.join("data/xiangqi/eleeye-ccgc")) {
        let game = game.unwrap();
        let replay = qipu::formats::replay(&game).unwrap();
        games.push(BookGame {
            start: replay.start,
            moves: replay.moves,
            result: game.tags.result,
        });
    }
    assert_eq!(games.len(), 20);
    let reference = ccgc(&shared);
    let mut opts = BookOptions::everything(Format::Eleeye);
    for (ratio, count) in [(4, 16), (1, 1107)] {
        opts.ratio = ratio;
        let mut from_pgn = Vec::new();
        let built = build::<EleeyeKeys>(games.iter().cloned().map(Ok), &opts).unwrap();
        assert_eq!(eleeye::write(&built, &mut from_pgn).unwrap(), count);
        // byte-identical to the book of the independent reading of the same games
        let mut from_reference = Vec::new();
        let built = build::<EleeyeKeys>(reference.iter().cloned().map(Ok), &opts).unwrap();
        eleeye::write(&built, &mut from_reference).unwrap();
        assert_eq!(from_pgn, from_reference);
    }
}

fn qipu_cmd(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_qipu"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn book_cli_builds_every_format_from_pgn_files() {
    // Four games written here: two start h2e2 (Red wins both), one c3c4 (draw), one h2e2 that
    // Black wins.
    let dir = tmp("cli-pgn");
    std::fs::create_dir_all(&dir).unwrap();
    let pgn = "[Result \"1-0\"]\n1. h2e2 h9g7 2. h0g2 1-0\n\n\
               [Result \"1-0\"]\n1. h2e2 h9g7 2. h0g2 i9h9 1-0\n\n\
               [Result \"1/2-1/2\"]\n1. c3c4 b9c7 1/2-1/2\n\n\
               [Result \"0-1\"]\n1. h2e2 b9c7 0-1\n";
    std::fs::write(dir.join("games.pgn"), pgn).unwrap();
    let d = dir.to_str().unwrap();
    for (format, file) in [("eleeye", "b.dat"), ("obk", "b.obk"), ("qipu", "b.qbk")] {
        let out = dir.join(file);
        let mut args = vec!["book", d, "--format", format, "--weights", "games"];
        args.extend_from_slice(&EVERY_MOVE);
        args.extend_from_slice(&["--out", out.to_str().unwrap(), "--json"]);
        let o = qipu_cmd(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v["games"], 4);
        let probe = |moves: &[&str]| {
            let mut args = vec!["probe", "--book", out.to_str().unwrap()];
            if !moves.is_empty() {
                args.push("--moves");
                args.extend_from_slice(moves);
            }
            String::from_utf8(qipu_cmd(&args).stdout).unwrap()
        };
        let start: Vec<String> = probe_rows(&probe(&[]))
            .iter()
            .map(|w| w[..2].join(" "))
            .collect();
        if format == "obk" {
            // as reached: h2e2 in 3 games, c3c4 in 1
            assert_eq!(start, ["h2e2 3", "c3c4 1"], "{format}");
        } else {
            // mirror merged: the symmetric start also stores b2e2 and g3g4
            let mut s = start.clone();
            s.sort();
            assert_eq!(s, ["b2e2 3", "c3c4 1", "g3g4 1", "h2e2 3"], "{format}");
        }
        let replies = probe_rows(&probe(&["h2e2"]));
        assert_eq!(replies[0][..2], ["h9g7", "2"], "{format}: {replies:?}");
    }
    // eleeye weights: h2e2 = 3 + 3 - 1 = 5 -> 5 / 4 = 1
    let out = dir.join("e.dat");
    let o = qipu_cmd(&[
        "book",
        d,
        "--format",
        "eleeye",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success());
    let b = Book::open(&out).unwrap();
    let p = b.probe(&AnyPosition::new(Variant::Xiangqi)).unwrap();
    let got: Vec<String> = p
        .moves
        .iter()
        .map(|m| format!("{} {}", m.mv, m.weight))
        .collect();
    assert_eq!(got, ["b2e2 1", "h2e2 1"]);
    // --for red: only Red's moves of games Red won or drew
    let out = dir.join("red.qbk");
    let o = qipu_cmd(&[
        "book",
        d,
        "--format",
        "qipu",
        "--for",
        "red",
        "--mirror",
        "keep",
        "--min-games",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success());
    let b = Book::open(&out).unwrap();
    let mut pos = AnyPosition::new(Variant::Xiangqi);
    let p = b.probe(&pos).unwrap();
    let got: Vec<String> = p
        .moves
        .iter()
        .map(|m| format!("{} {}", m.mv, m.weight))
        .collect();
    assert_eq!(got, ["h2e2 2", "c3c4 1"]);
    pos.play("h2e2".parse().unwrap()).unwrap();
    assert!(b.probe(&pos).unwrap().moves.is_empty());
}

#[test]
#[ignore = "needs ../shared (run by .ci/run)"]
fn book_cli_on_the_ccgc_folder() {
    let Some(shared) = shared_dir() else { return };
    let dir = shared.join("data/xiangqi/eleeye-ccgc");
    for (ratio, bytes) in [("4", 128), ("1", 8856)] {
        let out = tmp(&format!("ccgc-{ratio}.dat"));
        let o = qipu_cmd(&[
            "book",
            dir.to_str().unwrap(),
            "--format",
            "eleeye",
            "--ratio",
            ratio,
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(std::fs::metadata(&out).unwrap().len(), bytes);
    }
}

/// Imports game files into a new database with the import pipeline.
fn import_db(paths: &[&Path], db: &Path) -> u64 {
    let _ = std::fs::remove_file(db);
    let mut store = qipu::store::Store::open(db).unwrap();
    let games = paths
        .iter()
        .flat_map(|p| qipu::formats::read_path(p))
        .collect::<Vec<_>>();
    let report = qipu::pipeline::import(
        &mut store,
        games.into_iter(),
        &qipu::pipeline::ImportOptions::default(),
        |_| {},
    )
    .unwrap();
    report.imported
}

#[test]
fn book_from_the_database_equals_book_from_the_files() {
    let dir = tmp("db-vs-files");
    std::fs::create_dir_all(&dir).unwrap();
    let games = playouts(Variant::Xiangqi, 40, 30);
    let mut pgn = String::new();
    for g in &games {
        let result = g.result.map_or("*", |r| r.pgn());
        pgn.push_str(&format!("[Result \"{result}\"]\n"));
        for (i, m) in g.moves.iter().enumerate() {
            if i % 2 == 0 {
                pgn.push_str(&format!("{}. ", i / 2 + 1));
            }
            pgn.push_str(&format!("{m} "));
        }
        pgn.push_str(&format!("{result}\n\n"));
    }
    std::fs::write(dir.join("games.pgn"), pgn).unwrap();
    let db = dir.join("games.db");
    assert_eq!(import_db(&[&dir.join("games.pgn")], &db), 40);
    for (format, weights) in [("eleeye", "eleeye"), ("qipu", "score"), ("obk", "games")] {
        let from_db = dir.join(format!("db.{format}"));
        let from_files = dir.join(format!("files.{format}"));
        let run = |extra: &[&str], out: &Path| {
            let mut args = vec![
                "book",
                "--format",
                format,
                "--weights",
                weights,
                "--ratio",
                "1",
            ];
            args.extend_from_slice(&EVERY_MOVE);
            args.extend_from_slice(extra);
            args.extend_from_slice(&["--out", out.to_str().unwrap()]);
            let o = qipu_cmd(&args);
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        };
        run(&["--db", db.to_str().unwrap()], &from_db);
        run(&[dir.join("games.pgn").to_str().unwrap()], &from_files);
        if format == "obk" {
            let (a, b) = (
                Book::open(&from_db).unwrap(),
                Book::open(&from_files).unwrap(),
            );
            for g in &games {
                let mut pos = g.start.clone();
                for &m in &g.moves {
                    assert_eq!(a.probe(&pos).unwrap(), b.probe(&pos).unwrap());
                    pos.play(m).unwrap();
                }
            }
        } else {
            assert_eq!(
                std::fs::read(&from_db).unwrap(),
                std::fs::read(&from_files).unwrap(),
                "{format}"
            );
        }
    }
    // games → database → book → probe: every position gives back its moves and weights
    let out = dir.join("rt.qbk");
    let mut args = vec!["book", "--db", db.to_str().unwrap(), "--format", "qipu"];
    args.extend_from_slice(&["--mirror", "keep"]);
    args.extend_from_slice(&EVERY_MOVE);
    args.extend_from_slice(&["--out", out.to_str().unwrap()]);
    let o = qipu_cmd(&args);
    assert!(o.status.success());
    let opts = BookOptions {
        mirror: MirrorMode::Keep,
        ..BookOptions::everything(Format::Qipu)
    };
    let book = Book::open(&out).unwrap();
    let (table, positions) = expected(&games, 0, false, ForSide::Both);
    for pos in &positions {
        let want = wanted(&table, &ident(pos), &opts, Format::Qipu, false);
        let got: BTreeMap<String, (i64, Expect)> = book
            .probe(pos)
            .unwrap()
            .moves
            .iter()
            .map(|m| {
                let c = m.counts.unwrap();
                let e = Expect {
                    games: c.games.unwrap(),
                    wins: c.wins,
                    draws: c.draws,
                    losses: c.losses,
                };
                (m.mv.to_string(), (m.weight, e))
            })
            .collect();
        assert_eq!(got, want);
    }
}

#[test]
#[ignore = "needs ../shared (run by .ci/run)"]
fn book_from_a_database_of_the_ccgc_games() {
    let Some(shared) = shared_dir() else { return };
    let db = tmp("ccgc.db");
    assert_eq!(
        import_db(&[&shared.join("data/xiangqi/eleeye-ccgc")], &db),
        20
    );
    for (ratio, records) in [("4", 16), ("1", 1107)] {
        let out = tmp(&format!("ccgc-db-{ratio}.dat"));
        let o = qipu_cmd(&[
            "book",
            "--db",
            db.to_str().unwrap(),
            "--format",
            "eleeye",
            "--ratio",
            ratio,
            "--out",
            out.to_str().unwrap(),
            "--json",
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v["records"], records);
        assert_eq!(v["games"], 20);
        assert_eq!(std::fs::metadata(&out).unwrap().len(), 8 * records);
    }
}

/// The defaults of `.obk` and qipu books are an engine author's: the first 40 plies, moves of
/// at least two games. Two copies of one 60-ply game give a book line down to ply 40 and no
/// further; a move of a third, single game is left out. ElephantEye books keep MAKEBOOK's
/// whole games (its ratio already drops single-game moves).
#[test]
fn obk_and_qipu_books_default_to_the_opening_and_two_games() {
    let long = playouts(Variant::Xiangqi, 1, 60).remove(0);
    assert_eq!(long.moves.len(), 60);
    let single = BookGame {
        start: AnyPosition::new(Variant::Xiangqi),
        moves: vec!["c3c4".parse().unwrap()],
        result: Some(Outcome::Draw),
    };
    let games = [long.clone(), long.clone(), single];
    for format in [Format::Obk, Format::Qipu] {
        let out = tmp(&format!("defaults.{format}"));
        let opts = BookOptions::for_format(format);
        let written =
            qipu::book::write(format, games.iter().cloned().map(Ok), &opts, &out).unwrap();
        assert_eq!(written.games, 3);
        let book = Book::open(&out).unwrap();
        let mut pos = long.start.clone();
        for (ply, &m) in long.moves.iter().enumerate() {
            let moves: Vec<Move> = book
                .probe(&pos)
                .unwrap()
                .moves
                .iter()
                .map(|p| p.mv)
                .collect();
            if ply < 40 {
                assert!(moves.contains(&m), "{format} ply {ply}: {moves:?}");
            } else {
                assert!(moves.is_empty(), "{format} ply {ply}: {moves:?}");
            }
            if ply == 0 {
                assert!(!moves.iter().any(|m| m.to_string() == "c3c4"), "{format}");
            }
            pos.play(m).unwrap();
        }
    }
    let e = BookOptions::for_format(Format::Eleeye);
    assert_eq!((e.max_ply, e.min_games, e.ratio), (0, 1, 4));
}

/// Probes a book file at the start position after `moves`: "move weight" lines, sorted.
fn probe_sorted(book: &Path, moves: &[&str]) -> Vec<String> {
    let b = Book::open(book).unwrap();
    let mut pos = AnyPosition::new(Variant::Xiangqi);
    for m in moves {
        pos.play(m.parse().unwrap()).unwrap();
    }
    let mut got: Vec<String> = b
        .probe(&pos)
        .unwrap()
        .moves
        .iter()
        .map(|m| format!("{} {}", m.mv, m.weight))
        .collect();
    got.sort();
    got
}

/// `qipu book FILE --format qipu --min-games 1 --json` with `extra` flags (and `--tree`).
fn book_of_file(file: &Path, tree: bool, extra: &[&str], out: &Path) -> std::process::Output {
    let mut args = vec!["book", file.to_str().unwrap(), "--format", "qipu"];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--min-games", "1", "--out", out.to_str().unwrap(), "--json"]);
    if tree {
        args.push("--tree");
    }
    qipu_cmd(&args)
}

/// `qipu book --tree` learns from every line of a record's variation tree (here a PGN with
/// two alternatives: three lines), each line counted as a game; without it, the main line.
#[test]
fn book_tree_takes_every_line_of_the_variations() {
    let dir = tmp("tree");
    std::fs::create_dir_all(&dir).unwrap();
    let pgn =
        "[Result \"1/2-1/2\"]\n1. h2e2 (1. c3c4 c6c5) h9g7 (1... b9c7 2. h0g2) 2. h0g2 1/2-1/2\n";
    let file = dir.join("tree.pgn");
    std::fs::write(&file, pgn).unwrap();
    let build = |tree: bool, out: &Path| -> serde_json::Value {
        let o = book_of_file(&file, tree, &["--mirror", "keep", "--max-ply", "40"], out);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        serde_json::from_slice(&o.stdout).unwrap()
    };
    let out = dir.join("tree.qbk");
    let v = build(true, &out);
    assert_eq!(
        (v["trees"].as_u64(), v["lines"].as_u64()),
        (Some(1), Some(3))
    );
    assert_eq!(v["games"], 3);
    assert_eq!(probe_sorted(&out, &[]), ["c3c4 1", "h2e2 2"]);
    assert_eq!(probe_sorted(&out, &["h2e2"]), ["b9c7 1", "h9g7 1"]);
    assert_eq!(probe_sorted(&out, &["c3c4"]), ["c6c5 1"]);
    assert_eq!(probe_sorted(&out, &["h2e2", "b9c7"]), ["h0g2 1"]);
    let main = dir.join("main.qbk");
    let v = build(false, &main);
    assert_eq!(v["games"], 1);
    assert!(v.get("lines").is_none());
    assert_eq!(probe_sorted(&main, &[]), ["h2e2 1"]);
}

/// The 733 KB opening-tree XQF of ../shared (中炮对屏风马, about 2,575 lines): the main line
/// alone gives a few dozen records, the whole tree thousands.
#[test]
#[ignore = "needs ../shared (run by .ci/run)"]
fn book_tree_of_a_real_opening_tree_file() {
    let Some(shared) = shared_dir() else { return };
    let file = shared.join("data/xiangqi/cchess_c/棋谱文件/疑难文件.xqf/中炮对屏风马.XQF");
    let mut records = Vec::new();
    for tree in [false, true] {
        let out = tmp(&format!("xqf-tree-{tree}.qbk"));
        let o = book_of_file(&file, tree, &["--max-ply", "0"], &out);
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        eprintln!("--tree {tree}: {v}");
        if tree {
            // 2,576 lines, of which three play an illegal move (reported, kept up to the
            // move before it, exit 1: the stderr above names plies 34, 45 and 82)
            let lines = v["lines"].as_u64().unwrap();
            assert!((2_000..=3_000).contains(&lines), "{lines} lines");
            assert_eq!(v["truncated"], 3, "{}", String::from_utf8_lossy(&o.stderr));
            assert_eq!(v["rejected"], 0, "{}", String::from_utf8_lossy(&o.stderr));
            assert_eq!(o.status.code(), Some(1));
        } else {
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        }
        records.push(v["records"].as_u64().unwrap());
    }
    assert!(records[1] > 10 * records[0], "{records:?}");
}

/// A game of `moves` with a header chosen by `i` (dates, ratings, names, events, speeds and
/// modes vary, some missing).
fn tagged_game(
    i: usize,
    variant: Variant,
    start_fen: Option<String>,
    moves: &[Move],
    result: Option<Outcome>,
) -> qipu::formats::Game {
    use qipu::formats::{
        facts::{Mode, Speed},
        Game, MoveNode, Source,
    };
    let mut g = Game::new(variant, Source::default());
    g.start_fen = start_fen;
    g.moves = moves.iter().map(|m| MoveNode::new(m.to_string())).collect();
    let names = ["許銀川", "王天一", "Zhang Qiang", "lee"];
    let t = &mut g.tags;
    t.result = result;
    t.date = (i % 7 != 0).then(|| format!("{}-{:02}-10", 2008 + i % 12, i % 12 + 1));
    if i % 5 != 0 {
        t.first_rating = Some(1500 + (i as u32 * 37) % 1000);
        t.second_rating = (i % 3 != 0).then(|| 1500 + (i as u32 * 53) % 1000);
    }
    t.first = Some(names[i % 4].to_string());
    t.second = Some(names[(i + 1) % 4].to_string());
    t.event = [Some("Asian CUP"), Some("National League"), None][i % 3].map(String::from);
    t.speed = [
        Some(Speed::Blitz),
        Some(Speed::Rapid),
        None,
        Some(Speed::Classical),
    ][i % 4];
    t.mode = [Some(Mode::Rated), Some(Mode::Casual), None][(i / 2) % 3];
    g
}

/// A database of the games.
fn db_of(games: Vec<qipu::formats::Game>, db: &Path) -> u64 {
    let _ = std::fs::remove_file(db);
    let mut store = qipu::store::Store::open(db).unwrap();
    let report = qipu::pipeline::import(
        &mut store,
        games.into_iter().map(Ok),
        &qipu::pipeline::ImportOptions::default(),
        |_| {},
    )
    .unwrap();
    assert_eq!(report.rejected, 0);
    report.imported
}

/// `qipu book --db DB ARGS --json` and the book's bytes.
fn book_bytes(db: &Path, args: &[&str], out: &Path) -> (serde_json::Value, Vec<u8>) {
    let mut all = vec!["book", "--db", db.to_str().unwrap(), "--json", "--out"];
    all.push(out.to_str().unwrap());
    all.extend(args);
    let o = qipu_cmd(&all);
    assert!(
        o.status.success(),
        "{all:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    (
        serde_json::from_slice(&o.stdout).unwrap(),
        std::fs::read(out).unwrap(),
    )
}

#[test]
fn a_filtered_book_equals_the_book_of_a_database_of_only_those_games() {
    use qipu::formats::{
        facts::{Mode, Speed},
        Game,
    };
    // 20-ply games (under the 30 plies at which equal games are merged as copies).
    let games: Vec<Game> = playouts(Variant::Xiangqi, 300, 20)
        .iter()
        .enumerate()
        .map(|(i, g)| tagged_game(i, Variant::Xiangqi, None, &g.moves, g.result))
        .collect();
    let all = tmp("filters-all.db");
    assert_eq!(db_of(games.clone(), &all), 300);
    let mean = |g: &Game| match (g.tags.first_rating, g.tags.second_rating) {
        (Some(a), Some(b)) => Some((a + b) / 2),
        (a, b) => a.or(b),
    };
    let month = |g: &Game| {
        g.tags.date.as_ref().map(|d| {
            let y: u32 = d[..4].parse().unwrap();
            let m: u32 = d[5..7].parse().unwrap();
            (y, m)
        })
    };
    type Keep = Box<dyn Fn(&Game) -> bool>;
    let cases: Vec<(Vec<&str>, Keep)> = vec![
        (
            vec!["--since", "2012", "--until", "2015-06"],
            Box::new(move |g| month(g).is_some_and(|m| ((2012, 1)..=(2015, 6)).contains(&m))),
        ),
        (
            vec!["--min-rating", "1800", "--max-rating", "2199"],
            Box::new(move |g| mean(g).is_some_and(|r| (1800..=2199).contains(&r))),
        ),
        (
            vec!["--player", "許銀川", "--side", "red"],
            Box::new(|g| g.tags.first.as_deref() == Some("許銀川")),
        ),
        (
            vec!["--player", "lee"],
            Box::new(|g| {
                g.tags.first.as_deref() == Some("lee") || g.tags.second.as_deref() == Some("lee")
            }),
        ),
        (
            vec!["--event", "cup"],
            Box::new(|g| g.tags.event.as_deref() == Some("Asian CUP")),
        ),
        (
            vec!["--speed", "blitz,classical", "--mode", "rated"],
            Box::new(|g| {
                matches!(g.tags.speed, Some(Speed::Blitz | Speed::Classical))
                    && g.tags.mode == Some(Mode::Rated)
            }),
        ),
    ];
    for (flags, keep) in &cases {
        let kept: Vec<Game> = games.iter().filter(|g| keep(g)).cloned().collect();
        let n = kept.len();
        assert!(n > 5 && n < 250, "{flags:?}: {n} games: a weak case");
        let only = tmp("filters-only.db");
        assert_eq!(db_of(kept, &only), n as u64);
        for format in ["qipu", "eleeye"] {
            let mut args = vec!["--format", format, "--min-games", "1"];
            let (plain_doc, plain) = book_bytes(&only, &args, &tmp("filters-only.book"));
            args.extend(flags.iter().copied());
            let (doc, filtered) = book_bytes(&all, &args, &tmp("filters-all.book"));
            assert_eq!(doc["games"], n, "{flags:?} {format}");
            assert_eq!(doc["filtered_out"], 300 - n, "{flags:?} {format}");
            assert_eq!(plain_doc["filtered_out"], 0);
            assert!(doc["records"].as_u64().unwrap() > 0);
            assert!(filtered == plain, "{flags:?} {format}: the books differ");
        }
    }
    // A bad filter is refused as explore refuses it.
    let out = tmp("x.qbk");
    for (bad, says) in [
        (["--since", "2010-13"], "bad"),
        (["--side", "red"], "`side` needs `player`"),
    ] {
        let mut args = vec!["book", "--db", all.to_str().unwrap(), "--format", "qipu"];
        args.extend(["--out", out.to_str().unwrap()]);
        args.extend(bad);
        let o = qipu_cmd(&args);
        assert_eq!(o.status.code(), Some(2), "{bad:?}");
        assert!(String::from_utf8_lossy(&o.stderr).contains(says), "{bad:?}");
    }
}

#[test]
fn a_janggi_book_of_one_formation_pair_equals_the_book_of_its_games() {
    use qipu::{explorer::resolve_start, formats::Game, rules::JanggiRules};
    let setups = [
        "마상상마/상마마상",
        "상마마상/상마마상",
        "inner/inner",
        "상마상마/마상마상",
    ];
    let fen_of = |s: &str| resolve_start(None, None, Some(s)).unwrap().1.unwrap();
    let mut games = Vec::new();
    for i in 0..48 {
        let fen = fen_of(setups[i % 4]);
        let mut pos = AnyPosition::from_fen(Variant::Janggi, &fen)
            .unwrap()
            .with_janggi_rules(JanggiRules::SERVER);
        let mut moves = Vec::new();
        for ply in 0..12 {
            let mut legal: Vec<Move> = pos
                .legal_moves()
                .iter()
                .copied()
                .filter(|m| !m.is_pass())
                .collect();
            legal.sort();
            let m = legal[(i / 4 * 7 + ply * 3) % legal.len()];
            pos.play(m).unwrap();
            moves.push(m);
        }
        let result = [
            None,
            Some(Outcome::Draw),
            Some(Outcome::Decisive {
                winner: Color::First,
            }),
        ][i % 3];
        games.push((
            i % 4,
            tagged_game(i, Variant::Janggi, Some(fen), &moves, result),
        ));
    }
    let all = tmp("setups-all.db");
    db_of(games.iter().map(|(_, g)| g.clone()).collect(), &all);
    for (s, setup) in setups.iter().enumerate().take(2) {
        let kept: Vec<Game> = games
            .iter()
            .filter(|(k, _)| *k == s)
            .map(|(_, g)| g.clone())
            .collect();
        let only = tmp("setups-only.db");
        db_of(kept, &only);
        let args = [
            "--format",
            "qipu",
            "--min-games",
            "1",
            "--variant",
            "janggi",
        ];
        let (_, plain) = book_bytes(&only, &args, &tmp("setups-only.qbk"));
        // --setup implies Janggi
        let (doc, filtered) = book_bytes(
            &all,
            &["--format", "qipu", "--min-games", "1", "--setup", setup],
            &tmp("setups-all.qbk"),
        );
        assert_eq!(
            (doc["games"].clone(), doc["filtered_out"].clone()),
            (12.into(), 36.into())
        );
        assert!(filtered == plain, "{setup}: the books differ");
    }
}

/// `qipu probe` names its columns and says what the book is before the moves (issue #30,
/// item 6), in text and JSON: a qipu book of two games `h2e2 h9g7` (1-0, 1/2-1/2), mirror
/// images kept apart, holds 2 positions (the start and the one after h2e2), one entry each.
#[test]
fn probe_says_what_the_book_is_and_names_its_columns() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("two.pgn");
    std::fs::write(
        &pgn,
        "[Event \"a\"]\n1. h2e2 h9g7 1-0\n\n[Event \"b\"]\n1. h2e2 h9g7 1/2-1/2\n",
    )
    .unwrap();
    let book = dir.path().join("two.qbk");
    let o = qipu_cmd(&[
        "book",
        pgn.to_str().unwrap(),
        "--format",
        "qipu",
        "--mirror",
        "keep",
        "--min-games",
        "1",
        "--out",
        book.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = qipu_cmd(&["probe", "--book", book.to_str().unwrap()]);
    let text = String::from_utf8(o.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0], "# qipu book (qipu), xiangqi: 2 positions, 2 records; mirror images kept apart",
        "{text}"
    );
    assert!(lines[1].starts_with("# position rnbakabnr/"), "{text}");
    let header: Vec<&str> = lines[2].split_whitespace().collect();
    assert_eq!(
        header,
        ["move", "weight", "games", "+wins", "=draws", "-losses"]
    );
    // h2e2: two games, one won by the mover (Red), one drawn.
    assert_eq!(
        probe_rows(&text),
        [["h2e2", "2", "2", "+1", "=1", "-0"]
            .map(String::from)
            .to_vec()]
    );
    let o = qipu_cmd(&["probe", "--book", book.to_str().unwrap(), "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (
            &v["format"],
            &v["positions"],
            &v["records"],
            &v["mirror_merged"]
        ),
        (
            &serde_json::json!("qipu"),
            &serde_json::json!(2),
            &serde_json::json!(2),
            &serde_json::json!(false)
        )
    );
}
