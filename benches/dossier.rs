//! The player dossier's time on a synthetic database (no files needed), or on an existing
//! one: `QIPU_BENCH_DB=path QIPU_BENCH_PLAYER=name cargo bench --bench dossier`.
//!
//! Generates `QIPU_BENCH_GAMES` games (default 10,000) among 200 players, of which one,
//! `Star Player`, plays `QIPU_BENCH_STAR` of them (default 2,000), imports them, and prints
//! the mean time of `explorer::dossier` for the star (default depth 10, min games 2) over
//! five runs after a warm-up. The dossier reads only the player's games (the player index,
//! then each game by id), so its time grows with the player's games, not the database's.

use std::time::Instant;

use qipu::{
    explorer::{dossier, DossierQuery, Filter, DEFAULT_DEPTH, DEFAULT_DOSSIER_MIN_GAMES},
    formats::{Game, MoveNode, Source},
    pipeline::{import, ImportOptions},
    rules::{AnyPosition, Color, Outcome, Variant},
    store::Store,
};

const STAR: &str = "Star Player";

fn generate(n: usize, star: usize) -> Vec<Game> {
    let mut state = 0x9e37_79b9_u64;
    let mut rnd = move |k: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % k as u64) as usize
    };
    let every = (n / star.max(1)).max(1);
    (0..n)
        .map(|i| {
            let mut pos = AnyPosition::new(Variant::Xiangqi);
            let mut g = Game::new(
                Variant::Xiangqi,
                Source {
                    file: "generated".into(),
                    index: i,
                },
            );
            for ply in 0..(40 + rnd(40)) {
                let mut legal = pos.legal_moves().to_vec();
                if legal.is_empty() {
                    break;
                }
                legal.sort();
                let m = legal[rnd(if ply < 8 {
                    legal.len().min(3)
                } else {
                    legal.len()
                })];
                pos.play_unchecked(m);
                g.moves.push(MoveNode::new(m.to_string()));
            }
            let other = format!("Opponent {:03}", rnd(199));
            let (a, b) = if i % every == 0 && i / every < star {
                (STAR.to_string(), other)
            } else {
                (other, format!("Opponent {:03}", rnd(199)))
            };
            let (first, second) = if rnd(2) == 0 { (a, b) } else { (b, a) };
            g.tags.first = Some(first);
            g.tags.second = Some(second);
            g.tags.date = Some(format!("{}-{:02}-01", 1990 + rnd(30), 1 + rnd(12)));
            g.tags.event = Some(format!("Event {}", rnd(50)));
            g.tags.first_rating = Some(2000 + rnd(600) as u32);
            g.tags.second_rating = Some(2000 + rnd(600) as u32);
            g.tags.result = Some(match rnd(3) {
                0 => Outcome::Draw,
                1 => Outcome::Decisive {
                    winner: Color::First,
                },
                _ => Outcome::Decisive {
                    winner: Color::Second,
                },
            });
            g
        })
        .collect()
}

fn time_dossier(store: &Store, name: &str) {
    let q = DossierQuery::new(
        name,
        Filter::default(),
        DEFAULT_DEPTH,
        DEFAULT_DOSSIER_MIN_GAMES,
    )
    .expect("query");
    let d = dossier(store, &q).expect("dossier");
    let runs = 5;
    let start = Instant::now();
    for _ in 0..runs {
        dossier(store, &q).expect("dossier");
    }
    let ms = 1000.0 * start.elapsed().as_secs_f64() / f64::from(runs);
    println!(
        "dossier of {name}: {} games, {} opponents, {} + {} repertoire starts: {ms:.1} ms",
        d.games,
        d.opponents.len(),
        d.repertoire.first.len(),
        d.repertoire.second.len()
    );
}

fn main() {
    if let Some(db) = std::env::var_os("QIPU_BENCH_DB") {
        let store = Store::open_read_only(&db).expect("open database");
        let name = std::env::var("QIPU_BENCH_PLAYER").expect("QIPU_BENCH_PLAYER");
        time_dossier(&store, &name);
        return;
    }
    let var = |k: &str, d: usize| {
        std::env::var(k)
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(d)
    };
    let (n, star) = (
        var("QIPU_BENCH_GAMES", 10_000),
        var("QIPU_BENCH_STAR", 2_000),
    );
    let games = generate(n, star);
    let dir = std::env::temp_dir().join(format!("qipu-bench-dossier-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("bench.db");
    let mut store = Store::open(&path).expect("open database");
    let t = Instant::now();
    import(
        &mut store,
        games.into_iter().map(Ok),
        &ImportOptions::default(),
        |_| {},
    )
    .expect("import");
    println!("imported {n} games in {:.1} s", t.elapsed().as_secs_f64());
    drop(store);
    let store = Store::open_read_only(&path).expect("open database");
    time_dossier(&store, STAR);
    drop(store);
    let _ = std::fs::remove_dir_all(&dir);
}
