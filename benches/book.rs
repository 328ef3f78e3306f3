//! Book benchmarks: build time and size for every format from the whole shared corpus (the
//! reference readings of every shared game: Xiangqi for BOOK.DAT/.obk/qipu, Janggi for qipu),
//! and probes per second. Without `../shared`, self-made playouts stand in.
//!
//! `cargo bench --bench book` (sizes and counts are printed on stderr).

use std::{
    io::Read,
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

use criterion::{criterion_group, criterion_main, Criterion};
use qipu::book::{
    build,
    eleeye::{self, EleeyeKeys},
    obk::{self, ObkKeys},
    qipu::{self as qbook, QipuKeys},
    Book, BookError, BookGame, BookOptions, Format,
};
use qipu::rules::{AnyPosition, Color, Move, Outcome, Square, Variant};

fn shared() -> Option<PathBuf> {
    let dir = std::env::var_os("QIPU_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared"));
    dir.is_dir().then_some(dir)
}

/// A Fairy-Stockfish move (ranks 1–10; king to itself = pass).
fn fs_move(text: &str) -> Option<Move> {
    let split = text[1..].find(|c: char| c.is_ascii_alphabetic())? + 1;
    let sq = |t: &str| {
        let file = t.as_bytes().first()?.checked_sub(b'a')?;
        let rank: u8 = t.get(1..)?.parse().ok()?;
        Square::from_coords(file, rank.checked_sub(1)?)
    };
    let (from, to) = (sq(&text[..split])?, sq(&text[split..])?);
    Some(if from == to {
        Move::PASS
    } else {
        Move::new(from, to)
    })
}

fn reference(shared: &Path, name: &str, variant: Variant) -> Vec<BookGame> {
    let mut text = String::new();
    let Ok(file) = std::fs::File::open(shared.join("reference").join(name)) else {
        return Vec::new();
    };
    if flate2::read::GzDecoder::new(file)
        .read_to_string(&mut text)
        .is_err()
    {
        return Vec::new();
    }
    text.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["status"] == "ok")
        .filter_map(|v| {
            let start = AnyPosition::from_fen(variant, v["fen"].as_str()?).ok()?;
            let moves: Option<Vec<Move>> = v["moves"]
                .as_array()?
                .iter()
                .map(|m| fs_move(m.as_str()?))
                .collect();
            let result = match v["result"].as_str() {
                Some("1-0") => Some(Outcome::Decisive {
                    winner: Color::First,
                }),
                Some("0-1") => Some(Outcome::Decisive {
                    winner: Color::Second,
                }),
                Some("1/2-1/2") => Some(Outcome::Draw),
                _ => None,
            };
            // keep only games that replay (the builder rejects the stream at the first bad one)
            let mut pos = start.clone();
            let moves = moves?;
            for &m in &moves {
                pos.play(m).ok()?;
            }
            Some(BookGame {
                start,
                moves,
                result,
            })
        })
        .collect()
}

fn playouts(variant: Variant, n: usize) -> Vec<BookGame> {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    (0..n)
        .map(|_| {
            let start = AnyPosition::new(variant);
            let mut pos = start.clone();
            let mut moves = Vec::new();
            for _ in 0..80 {
                let legal = pos.legal_moves();
                if legal.is_empty() {
                    break;
                }
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let m = legal[(seed % 4) as usize % legal.len()];
                pos.play_unchecked(m);
                moves.push(m);
            }
            BookGame {
                start,
                moves,
                result: Some(Outcome::Draw),
            }
        })
        .collect()
}

fn corpus() -> (Vec<BookGame>, Vec<BookGame>) {
    match shared() {
        Some(s) => {
            let mut xq = reference(&s, "xiangqi-ccpd.jsonl.gz", Variant::Xiangqi);
            xq.extend(reference(
                &s,
                "xiangqi-wukong-hu-ronghua.jsonl.gz",
                Variant::Xiangqi,
            ));
            xq.extend(reference(
                &s,
                "xiangqi-eleeye-ccgc.jsonl.gz",
                Variant::Xiangqi,
            ));
            let jg = reference(&s, "janggi-gib.jsonl.gz", Variant::Janggi);
            (xq, jg)
        }
        None => (
            playouts(Variant::Xiangqi, 2000),
            playouts(Variant::Janggi, 2000),
        ),
    }
}

fn out_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-book");
    let _ = std::fs::create_dir_all(&dir);
    dir
}

fn benches(c: &mut Criterion) {
    let (xq, jg) = corpus();
    let plies: usize = xq.iter().map(|g| g.moves.len()).sum();
    eprintln!(
        "corpus: {} Xiangqi games ({plies} plies), {} Janggi games",
        xq.len(),
        jg.len()
    );
    let dir = out_dir();
    fn input(games: &[BookGame]) -> impl Iterator<Item = Result<BookGame, BookError>> + '_ {
        games.iter().cloned().map(Ok)
    }

    // One timed build per format with the sizes, then criterion samples.
    let t = Instant::now();
    let ee = build::<EleeyeKeys>(input(&xq), &BookOptions::for_format(Format::Eleeye))
        .expect("eleeye build");
    let mut bytes = Vec::new();
    eleeye::write(&ee, &mut bytes).expect("eleeye write");
    eprintln!(
        "eleeye: {} records, {} bytes, {:.2?} (weights eleeye, ratio 4)",
        ee.records.len(),
        bytes.len(),
        t.elapsed()
    );
    std::fs::write(dir.join("BOOK.DAT"), &bytes).expect("write BOOK.DAT");

    let t = Instant::now();
    let ob = build::<ObkKeys>(input(&xq), &BookOptions::for_format(Format::Obk)).expect("obk");
    let obk_path = dir.join("corpus.obk");
    obk::write(&ob, &obk_path).expect("obk write");
    eprintln!(
        "obk: {} records, {} bytes, {:.2?}",
        ob.records.len(),
        std::fs::metadata(&obk_path).map(|m| m.len()).unwrap_or(0),
        t.elapsed()
    );

    for (name, games) in [("xiangqi", &xq), ("janggi", &jg)] {
        let t = Instant::now();
        let q = build::<QipuKeys>(input(games), &BookOptions::for_format(Format::Qipu))
            .expect("qipu build");
        let mut bytes = Vec::new();
        qbook::write(&q, &mut bytes).expect("qipu write");
        eprintln!(
            "qipu {name}: {} records, {} bytes, {:.2?}",
            q.records.len(),
            bytes.len(),
            t.elapsed()
        );
        std::fs::write(dir.join(format!("{name}.qbk")), &bytes).expect("write qbk");
    }

    let mut g = c.benchmark_group("build");
    g.sample_size(10).measurement_time(Duration::from_secs(20));
    let small: Vec<BookGame> = xq.iter().take(5000).cloned().collect();
    g.bench_function("eleeye 5000 games", |b| {
        b.iter(|| build::<EleeyeKeys>(input(&small), &BookOptions::for_format(Format::Eleeye)))
    });
    g.bench_function("qipu 5000 games", |b| {
        b.iter(|| build::<QipuKeys>(input(&small), &BookOptions::for_format(Format::Qipu)))
    });
    g.finish();

    // Probes: every position of the first 200 games, through each format.
    let mut positions = Vec::new();
    for game in xq.iter().take(200) {
        let mut pos = game.start.clone();
        for &m in game.moves.iter().take(40) {
            positions.push(pos.clone());
            pos.play_unchecked(m);
        }
    }
    let mut g = c.benchmark_group("probe");
    for (label, path) in [
        ("eleeye", dir.join("BOOK.DAT")),
        ("obk", obk_path.clone()),
        ("qipu", dir.join("xiangqi.qbk")),
    ] {
        let book = Book::open(&path).expect("open book");
        let t = Instant::now();
        let found = positions
            .iter()
            .filter(|p| book.probe(p).map(|r| !r.moves.is_empty()).unwrap_or(false))
            .count();
        let secs = t.elapsed().as_secs_f64();
        eprintln!(
            "probe {label}: {} positions, {found} found, {:.0} probes/s",
            positions.len(),
            positions.len() as f64 / secs
        );
        g.bench_function(label, |b| {
            let mut i = 0;
            b.iter(|| {
                i = (i + 1) % positions.len();
                book.probe(&positions[i])
            })
        });
    }
    g.finish();
}

criterion_group!(book_benches, benches);
criterion_main!(book_benches);
