//! Import and lookup throughput on generated games (no files needed), or lookups on an
//! existing database: `QIPU_BENCH_DB=path cargo bench --bench store`.
//!
//! Prints games/s for the import pipeline (replay + keys + SQLite writes, from games already
//! in memory) and explorer lookups/s (unfiltered `explorer::explore` of positions taken
//! from the stored games).

use std::time::Instant;

use qipu::{
    explorer::{explore, line, Query},
    formats::Game,
    pipeline::{import, ImportOptions},
    rules::Variant,
    store::Store,
};

mod common;

fn generate(n: usize) -> Vec<Game> {
    let mut rnd = common::XorShift(0x1234_5678);
    (0..n)
        .map(|i| {
            let plies = 60 + rnd.below(60);
            common::random_game(&mut rnd, i, plies, 4)
        })
        .collect()
}

fn lookups(store: &Store, lines: &[Vec<String>]) {
    let start = Instant::now();
    let mut n = 0u64;
    let mut games = 0u64;
    for moves in lines {
        // Reading the line is part of a lookup, as it was when `explore` parsed it.
        let Ok(l) = line(Variant::Xiangqi, None, moves, None) else {
            continue;
        };
        if let Ok(e) = explore(store, &Query::at(l)) {
            games += e.counts.games;
        }
        n += 1;
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "explorer: {n} lookups in {secs:.3} s = {:.0} lookups/s ({:.3} ms each; {games} games seen)",
        n as f64 / secs,
        1000.0 * secs / n as f64
    );
}

fn main() {
    if let Some(db) = std::env::var_os("QIPU_BENCH_DB") {
        let store = Store::open_read_only(&db).expect("open database");
        let mut lines = Vec::new();
        for g in store.games(Variant::Xiangqi).take(2000).flatten() {
            if g.start_fen != Variant::Xiangqi.start_fen() {
                continue;
            }
            for n in [0, 2, 6, 12, 20] {
                if n <= g.moves.len() {
                    lines.push(g.moves[..n].iter().map(|m| m.to_string()).collect());
                }
            }
        }
        lookups(&store, &lines);
        return;
    }
    let n: usize = std::env::var("QIPU_BENCH_GAMES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20_000);
    let games = generate(n);
    let dir = std::env::temp_dir().join(format!("qipu-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("bench.db");
    let mut store = Store::open(&path).expect("open database");
    let lines: Vec<Vec<String>> = games
        .iter()
        .step_by(10)
        .flat_map(|g| {
            [0, 2, 6, 12, 20].map(|k| g.moves.iter().take(k).map(|m| m.text.clone()).collect())
        })
        .collect();
    let t = Instant::now();
    let recs: Vec<_> = games
        .iter()
        .filter_map(|g| qipu::store::GameRecord::from_game(g, 40).ok())
        .collect();
    println!(
        "replay + keys alone (1 thread): {:.0} games/s",
        games.len() as f64 / t.elapsed().as_secs_f64()
    );
    let mut mem = Store::open_in_memory().expect("memory store");
    let t = Instant::now();
    for chunk in recs.chunks(20_000) {
        mem.write_batch(chunk).expect("write");
    }
    println!(
        "SQLite writes alone (in-memory db): {:.0} games/s",
        recs.len() as f64 / t.elapsed().as_secs_f64()
    );
    drop((mem, recs));
    let start = Instant::now();
    let report = import(
        &mut store,
        games.into_iter().map(Ok),
        &ImportOptions::default(),
        |_| {},
    )
    .expect("import");
    let secs = start.elapsed().as_secs_f64();
    let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    println!(
        "import (generated, in memory → SQLite, max-ply 40): {} games in {secs:.2} s = {:.0} games/s, db {:.1} MiB",
        report.imported,
        report.imported as f64 / secs,
        size as f64 / 1048576.0
    );
    lookups(&store, &lines);
    drop(store);
    let _ = std::fs::remove_dir_all(&dir);
}
