//! The player dossier's time on a synthetic database (no files needed), or on an existing
//! one: `QIPU_BENCH_DB=path QIPU_BENCH_PLAYER=name cargo bench --bench dossier`.
//!
//! Generates `QIPU_BENCH_GAMES` games (default 10,000) among `QIPU_BENCH_PLAYERS` players
//! (default 200), of which one, `Star Player`, plays `QIPU_BENCH_STAR` of them (default
//! 2,000), imports them (printing how much of the import resolving names to persons took:
//! `BatchTimings::persons` against the batches' whole time), and prints p50 and p99 of
//! `explorer::dossier` for the star (default depth 10, min games 2) over `QIPU_BENCH_RUNS`
//! runs (default 20) after a warm-up. With `QIPU_BENCH_KEEP=path` the database is kept
//! there, and reused when it exists (a 1M-game import is done once). The dossier reads only
//! the player's games (the player index, then each game by id), so its time grows with the
//! player's games, not the database's.

use std::time::{Duration, Instant};

use qipu::{
    explorer::{dossier, DossierQuery, Filter, DEFAULT_DEPTH, DEFAULT_DOSSIER_MIN_GAMES},
    formats::Game,
    pipeline::{import, ImportOptions},
    rules::{Color, Outcome},
    store::Store,
};

mod common;

const STAR: &str = "Star Player";

/// Game `i` of `n`, `star` of them the star's, among `players` players.
fn game(rnd: &mut common::XorShift, i: usize, n: usize, star: usize, players: usize) -> Game {
    let every = (n / star.max(1)).max(1);
    let plies = 40 + rnd.below(40);
    let mut g = common::random_game(rnd, i, plies, 3);
    let others = players.saturating_sub(1).max(1);
    let other = format!("Opponent {:03}", rnd.below(others));
    let (a, b) = if i % every == 0 && i / every < star {
        (STAR.to_string(), other)
    } else {
        (other, format!("Opponent {:03}", rnd.below(others)))
    };
    let (first, second) = if rnd.below(2) == 0 { (a, b) } else { (b, a) };
    g.tags.first = Some(first);
    g.tags.second = Some(second);
    g.tags.date = Some(format!(
        "{}-{:02}-01",
        1990 + rnd.below(30),
        1 + rnd.below(12)
    ));
    g.tags.event = Some(format!("Event {}", rnd.below(50)));
    g.tags.first_rating = Some(2000 + rnd.below(600) as u32);
    g.tags.second_rating = Some(2000 + rnd.below(600) as u32);
    g.tags.result = Some(match rnd.below(3) {
        0 => Outcome::Draw,
        1 => Outcome::Decisive {
            winner: Color::First,
        },
        _ => Outcome::Decisive {
            winner: Color::Second,
        },
    });
    g
}

/// The `q` quantile (0–1) of sorted times, nearest rank.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
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
    let runs = var("QIPU_BENCH_RUNS", 20).max(1);
    let mut ms: Vec<f64> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            dossier(store, &q).expect("dossier");
            1000.0 * start.elapsed().as_secs_f64()
        })
        .collect();
    ms.sort_by(f64::total_cmp);
    println!(
        "dossier of {name}: {} games, {} opponents, {} + {} repertoire starts: \
         p50 {:.1} ms, p99 {:.1} ms ({runs} runs)",
        d.games,
        d.opponents.len(),
        d.repertoire.first.len(),
        d.repertoire.second.len(),
        quantile(&ms, 0.5),
        quantile(&ms, 0.99)
    );
}

/// A number from the environment, else `default`.
fn var(k: &str, default: usize) -> usize {
    std::env::var(k)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

fn main() {
    if let Some(db) = std::env::var_os("QIPU_BENCH_DB") {
        let store = Store::open_read_only(&db).expect("open database");
        let name = std::env::var("QIPU_BENCH_PLAYER").expect("QIPU_BENCH_PLAYER");
        time_dossier(&store, &name);
        return;
    }
    let (n, star, players) = (
        var("QIPU_BENCH_GAMES", 10_000),
        var("QIPU_BENCH_STAR", 2_000),
        var("QIPU_BENCH_PLAYERS", 200),
    );
    let keep = std::env::var_os("QIPU_BENCH_KEEP").map(std::path::PathBuf::from);
    let dir = std::env::temp_dir().join(format!("qipu-bench-dossier-{}", std::process::id()));
    let path = keep.clone().unwrap_or_else(|| dir.join("bench.db"));
    if !path.exists() {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("database folder");
        }
        let mut store = Store::open(&path).expect("open database");
        let mut rnd = common::XorShift(0x9e37_79b9);
        let games = (0..n).map(move |i| Ok(game(&mut rnd, i, n, star, players)));
        let t = Instant::now();
        let report = import(&mut store, games, &ImportOptions::default(), |_| {}).expect("import");
        let wall = t.elapsed().as_secs_f64();
        let took: Duration = report.batches.iter().map(|b| b.took).sum();
        let persons: Duration = report.batches.iter().map(|b| b.timings.persons).sum();
        println!(
            "imported {} games ({players} players) in {wall:.1} s (generation included); \
             {} batches written in {:.2} s, resolving persons {:.3} s = {:.2}% of the writes",
            report.imported,
            report.batches.len(),
            took.as_secs_f64(),
            persons.as_secs_f64(),
            100.0 * persons.as_secs_f64() / took.as_secs_f64().max(1e-9)
        );
        store.checkpoint().expect("checkpoint");
    }
    let store = Store::open_read_only(&path).expect("open database");
    time_dossier(&store, STAR);
    drop(store);
    if keep.is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
}
