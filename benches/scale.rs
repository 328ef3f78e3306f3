//! The scale benchmark's engine (run by `scripts/bench-scale.sh`): a seeded synthetic corpus
//! made by qipu's own rules, and the store's filtered lookups timed on it.
//!
//! ```text
//! cargo bench --bench scale -- pgn  N SEED OUT.pgn [FROM]
//!                                        the corpus as ICCS PGN (for `qipu import`): games
//!                                        FROM..FROM+N (FROM 0 by default), so that the steps
//!                                        of `bench-scale.sh --steps` are new games
//! cargo bench --bench scale -- load N SEED DB        the same games imported from memory, with
//!                                                    their speed and mode set (see below)
//! cargo bench --bench scale -- query DB [REPS] [moves]
//!                                        p50/p99 of the library calls: the store's filtered
//!                                        counts, then whole explores (every figure of the
//!                                        answer: top and latest games, first games, games
//!                                        after each move, history); with `moves` the
//!                                        filtered counts alone
//! ```
//!
//! A game: a real opening (the first 4–20 plies of a game of the bundled sample, `data/`)
//! continued by random legal moves to 40–140 plies; a date from 1990 to 2026 (a tenth of them
//! a year or a month only); two of 50,000 players, each with a fixed rating (a tenth
//! unrated); a clock from bullet to classical; rated (70%) or casual; a random result. Game
//! `i` of seed `s` is the same in `pgn` and `load`. `load` exists because the PGN reader of
//! this build does not yet read `TimeControl` or a mode: it gives the games those facts
//! directly, so the speed and mode filters are measured on real buckets.

use std::{io::Write, time::Instant};

use qipu::{
    explorer::{explore, Filter, Query, EXPLORE_RULES},
    formats::{
        facts::{Mode, Speed, TimeControl},
        read_path, Game, MoveNode, Source,
    },
    notation::Line,
    pipeline::{import, ImportOptions},
    rules::{AnyPosition, Color, Move, Outcome, Variant},
    store::{BucketFilter, PositionKey, Store},
};
use rayon::prelude::*;

/// splitmix64 over (seed, game, draw): every game is drawn independently of the others.
struct Rng(u64);

impl Rng {
    fn new(seed: u64, game: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ game.wrapping_mul(0xd1b5_4a32_d192_ed03))
    }
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

const PLAYERS: u64 = 50_000;
const CLOCKS: [(u32, u32); 6] = [(60, 0), (180, 2), (300, 3), (600, 5), (900, 10), (1800, 30)];

/// The opening lines of the bundled sample (its Xiangqi games, first 20 plies).
fn openings() -> Vec<Vec<Move>> {
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data");
    let mut out: Vec<Vec<Move>> = read_path(&data)
        .filter_map(Result::ok)
        .filter(|g| g.variant == Variant::Xiangqi)
        .filter_map(|g| qipu::formats::replay(&g).ok())
        // The sample's files name the standard start in a FEN tag: keep every game from it.
        .filter(|r| r.start.key() == AnyPosition::new(Variant::Xiangqi).key())
        .map(|r| r.moves.into_iter().take(20).collect::<Vec<_>>())
        .filter(|m| m.len() >= 4)
        .collect();
    if out.is_empty() {
        eprintln!(
            "no Xiangqi game from the standard start in {}",
            data.display()
        );
        std::process::exit(2);
    }
    out.sort();
    out
}

fn player_rating(p: u64) -> Option<u32> {
    let mut r = Rng::new(7, p);
    (r.below(10) > 0).then(|| 900 + r.below(1800) as u32)
}

/// Game `i`: its moves and tags (speed and mode included).
fn game(openings: &[Vec<Move>], seed: u64, i: u64) -> Game {
    let mut r = Rng::new(seed, i);
    let mut g = Game::new(
        Variant::Xiangqi,
        Source {
            file: "synthetic".into(),
            index: i as usize,
        },
    );
    let opening = &openings[r.below(openings.len() as u64) as usize];
    let prefix = (4 + r.below(17) as usize).min(opening.len());
    let length = 40 + r.below(101) as usize;
    let mut pos = AnyPosition::new(Variant::Xiangqi);
    for ply in 0..length {
        let m = if let Some(&m) = opening.get(ply).filter(|_| ply < prefix) {
            m
        } else {
            let legal = pos.legal_moves();
            if legal.is_empty() {
                break;
            }
            legal.as_slice()[r.below(legal.len() as u64) as usize]
        };
        pos.play_unchecked(m);
        g.moves.push(MoveNode::new(m.to_string()));
    }
    let t = &mut g.tags;
    let year = 1990 + r.below(37);
    t.date = Some(match r.below(10) {
        0 => format!("{year}"),
        1 => format!("{year}-{:02}", 1 + r.below(12)),
        _ => format!("{year}-{:02}-{:02}", 1 + r.below(12), 1 + r.below(28)),
    });
    let (a, b) = (r.below(PLAYERS), r.below(PLAYERS));
    t.first = Some(format!("player{a}"));
    t.second = Some(format!("player{b}"));
    t.first_rating = player_rating(a);
    t.second_rating = player_rating(b);
    let (base, inc) = CLOCKS[r.below(CLOCKS.len() as u64) as usize];
    let clock = TimeControl {
        base_secs: base,
        increment_secs: inc,
    };
    t.time_control = Some(clock);
    t.speed = Some(clock.speed());
    t.mode = Some(if r.below(10) < 7 {
        Mode::Rated
    } else {
        Mode::Casual
    });
    t.event = Some(format!("Synthetic {year}"));
    t.result = Some(match r.below(3) {
        0 => Outcome::Decisive {
            winner: Color::First,
        },
        1 => Outcome::Draw,
        _ => Outcome::Decisive {
            winner: Color::Second,
        },
    });
    g
}

fn pgn_of(g: &Game, out: &mut String) {
    use std::fmt::Write as _;
    let t = &g.tags;
    let date = t.date.as_deref().unwrap_or("????").replace('-', ".");
    let result = t.result.map_or("*", Outcome::pgn);
    let _ = writeln!(out, "[Event \"{}\"]", t.event.as_deref().unwrap_or("?"));
    let _ = writeln!(out, "[Date \"{date}\"]");
    let _ = writeln!(out, "[Red \"{}\"]", t.first.as_deref().unwrap_or("?"));
    let _ = writeln!(out, "[Black \"{}\"]", t.second.as_deref().unwrap_or("?"));
    for (tag, r) in [("RedElo", t.first_rating), ("BlackElo", t.second_rating)] {
        if let Some(r) = r {
            let _ = writeln!(out, "[{tag} \"{r}\"]");
        }
    }
    if let Some(c) = t.time_control {
        let _ = writeln!(out, "[TimeControl \"{c}\"]");
    }
    if let Some(m) = t.mode {
        let _ = writeln!(out, "[Mode \"{}\"]", m.name());
    }
    let _ = writeln!(out, "[Result \"{result}\"]\n");
    for (i, m) in g.moves.iter().enumerate() {
        if i % 2 == 0 {
            let _ = write!(out, "{}. ", i / 2 + 1);
        }
        let _ = write!(out, "{} ", m.text);
    }
    let _ = writeln!(out, "{result}\n");
}

/// Games `from..to`, made in parallel.
fn chunk(openings: &[Vec<Move>], seed: u64, from: u64, to: u64) -> Vec<Game> {
    (from..to)
        .into_par_iter()
        .map(|i| game(openings, seed, i))
        .collect()
}

/// Games `first..first + n` of `seed` as PGN.
fn write_pgn(first: u64, n: u64, seed: u64, path: &str) -> std::io::Result<()> {
    let openings = openings();
    let mut f = std::io::BufWriter::new(std::fs::File::create(path)?);
    let started = Instant::now();
    let end = first + n;
    for from in (first..end).step_by(20_000) {
        let games = chunk(&openings, seed, from, (from + 20_000).min(end));
        let text: Vec<String> = games
            .par_iter()
            .map(|g| {
                let mut s = String::with_capacity(1024);
                pgn_of(g, &mut s);
                s
            })
            .collect();
        for s in text {
            f.write_all(s.as_bytes())?;
        }
    }
    f.flush()?;
    println!(
        "generated {n} games (seed {seed}, from game {first}, {} openings) in {:.1} s",
        openings.len(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

fn load(n: u64, seed: u64, db: &str) -> Result<(), Box<dyn std::error::Error>> {
    let openings = openings();
    let mut store = Store::open(db)?;
    let started = Instant::now();
    let games = (0..n)
        .step_by(20_000)
        .flat_map(|from| chunk(&openings, seed, from, (from + 20_000).min(n)))
        .map(Ok);
    let report = import(&mut store, games, &ImportOptions::default(), |_| {})?;
    store.checkpoint()?;
    let secs = started.elapsed().as_secs_f64();
    let bytes = std::fs::metadata(db)?.len();
    println!(
        "load: {} games in {secs:.1} s = {:.0} games/s (generation included), db {bytes} bytes",
        report.imported,
        report.imported as f64 / secs
    );
    Ok(())
}

/// The most played move of a position, if any.
fn main_move(store: &Store, key: PositionKey) -> Option<Move> {
    let rows = store.position(key).ok()?;
    rows.iter()
        .filter(|r| r.mv.is_some())
        .max_by_key(|r| r.counts.games)
        .and_then(|r| r.mv)
}

/// The times of repeated runs of one call, and the games its last run counted.
struct Runs {
    /// Wall milliseconds, sorted.
    wall: Vec<f64>,
    /// CPU milliseconds of the thread, sorted. On a loaded machine the wall time of a call is
    /// mostly waiting for a core; its CPU time is what it costs.
    cpu: Vec<f64>,
    games: u64,
}

type BenchResult<T> = Result<T, Box<dyn std::error::Error>>;

/// The calling thread's time on a CPU so far (`CLOCK_THREAD_CPUTIME_ID`), in nanoseconds.
fn cpu_ns() -> u64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    u64::try_from(t.tv_sec).unwrap_or(0) * 1_000_000_000 + u64::try_from(t.tv_nsec).unwrap_or(0)
}

/// Runs `f` `reps` times (at least once), timing each run (wall and CPU).
fn timed(reps: usize, mut f: impl FnMut() -> BenchResult<u64>) -> BenchResult<Runs> {
    let (mut wall, mut cpu) = (Vec::with_capacity(reps.max(1)), Vec::new());
    let mut games = 0;
    for _ in 0..reps.max(1) {
        let c = cpu_ns();
        let t = Instant::now();
        games = f()?;
        wall.push(t.elapsed().as_secs_f64() * 1000.0);
        cpu.push(cpu_ns().saturating_sub(c) as f64 / 1e6);
    }
    wall.sort_by(f64::total_cmp);
    cpu.sort_by(f64::total_cmp);
    Ok(Runs { wall, cpu, games })
}

/// The `q` quantile (0–1) of sorted times, nearest rank; NaN for none.
fn quantile(times: &[f64], q: f64) -> f64 {
    if times.is_empty() {
        return f64::NAN;
    }
    times[((times.len() - 1) as f64 * q).round() as usize]
}

/// The header of the tables [`Runs::print`] writes.
fn print_header() {
    println!(
        "{:<8} {:<18} {:>9} {:>10} {:>10} {:>10} {:>10}",
        "position", "filter", "games", "p50 ms", "p99 ms", "cpu p50", "cpu p99"
    );
}

impl Runs {
    /// One row of the tables: position, filter, games, wall p50 and p99, CPU p50 and p99.
    fn print(&self, ply: usize, name: &str) {
        println!(
            "ply {ply:<4} {name:<18} {:>9} {:>10.3} {:>10.3} {:>10.3} {:>10.3}",
            self.games,
            quantile(&self.wall, 0.5),
            quantile(&self.wall, 0.99),
            quantile(&self.cpu, 0.5),
            quantile(&self.cpu, 0.99)
        );
    }
}

/// The library calls timed on `db`; `moves_only`: the store's filtered counts alone.
fn query(db: &str, reps: usize, moves_only: bool) -> Result<(), Box<dyn std::error::Error>> {
    let store = Store::open_read_only(db)?;
    let mut pos = AnyPosition::new(Variant::Xiangqi);
    let mut at = Vec::new();
    let mut lines = Vec::new();
    let mut played: Vec<String> = Vec::new();
    for ply in 0..=10 {
        if [0, 2, 10].contains(&ply) {
            at.push((ply, PositionKey(pos.key())));
            lines.push((
                ply,
                Line::parse(Variant::Xiangqi, None, &played, EXPLORE_RULES)?,
            ));
        }
        let Some(m) = main_move(&store, PositionKey(pos.key())) else {
            break;
        };
        pos.play_unchecked(m);
        played.push(m.to_string());
    }
    let m = |s: &str| s.parse().ok();
    let f = BucketFilter::default;
    let filters: Vec<(&str, BucketFilter)> = vec![
        ("unfiltered", f()),
        (
            "since 2020",
            BucketFilter {
                since: m("2020"),
                ..f()
            },
        ),
        (
            "since 2020-06",
            BucketFilter {
                since: m("2020-06"),
                ..f()
            },
        ),
        (
            "until 1999",
            BucketFilter {
                until: m("1999"),
                ..f()
            },
        ),
        (
            "min-rating 2400",
            BucketFilter {
                min_rating: Some(2400),
                ..f()
            },
        ),
        (
            "speed blitz",
            BucketFilter {
                speeds: vec![Speed::Blitz],
                ..f()
            },
        ),
        (
            "mode rated",
            BucketFilter {
                modes: vec![Mode::Rated],
                ..f()
            },
        ),
        (
            "all four",
            BucketFilter {
                since: m("2010"),
                min_rating: Some(1800),
                speeds: vec![Speed::Rapid, Speed::Classical],
                modes: vec![Mode::Rated],
                ..f()
            },
        ),
    ];
    print_header();
    for (ply, key) in &at {
        for (name, filter) in &filters {
            let runs = timed(reps, || {
                let rows = store.moves_filtered(*key, filter)?;
                Ok(rows.iter().map(|r| r.counts.games).sum())
            })?;
            runs.print(*ply, name);
        }
    }
    if moves_only {
        return Ok(());
    }
    // One player's games (the most frequent name of the corpus) at the same positions.
    let Some(player) = store.players("player", 1)?.into_iter().next() else {
        return Ok(());
    };
    explores(&store, &lines, &filters, &player.name, reps)?;
    for (ply, key) in &at {
        for (name, filter) in filters.iter().take(2) {
            let runs = timed(reps, || {
                let rows = store.player_moves(&player.name, None, *key, filter)?;
                Ok(rows.iter().map(|r| r.counts.games).sum())
            })?;
            runs.print(*ply, &format!("{} {name}", player.name));
        }
    }
    Ok(())
}

/// p50/p99 of whole explores (`qipu::explorer::explore`, ten top and ten latest games, every
/// figure on) at the same positions, under the same filters and one player's.
fn explores(
    store: &Store,
    lines: &[(usize, Line)],
    filters: &[(&str, BucketFilter)],
    player: &str,
    reps: usize,
) -> Result<(), Box<dyn std::error::Error>> {
    println!("whole explores (explorer::explore, {reps} runs each):");
    let mut all: Vec<(String, Filter)> = filters
        .iter()
        .map(|(name, f)| (name.to_string(), Filter::from(f)))
        .collect();
    all.push((
        player.to_string(),
        Filter {
            player: Some(player.to_string()),
            ..Filter::default()
        },
    ));
    print_header();
    for (ply, line) in lines {
        for (name, filter) in &all {
            let mut q = Query::at(line.clone());
            q.filter = filter.clone();
            q.min_games = qipu::explorer::DEFAULT_MIN_GAMES;
            let runs = timed(reps, || Ok(explore(store, &q)?.counts.games))?;
            runs.print(*ply, name);
        }
    }
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // `cargo bench` passes `--bench`; take the words after it.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let num = |i: usize, default: u64| -> u64 {
        args.get(i).and_then(|s| s.parse().ok()).unwrap_or(default)
    };
    match args.first().map(String::as_str) {
        Some("pgn") if args.len() >= 4 => {
            write_pgn(num(4, 0), num(1, 1_000_000), num(2, 1), &args[3])?
        }
        Some("load") if args.len() >= 4 => load(num(1, 1_000_000), num(2, 1), &args[3])?,
        Some("query") if args.len() >= 2 => query(
            &args[1],
            num(2, 200) as usize,
            args.get(3).is_some_and(|a| a == "moves"),
        )?,
        _ => println!(
            "usage: scale pgn N SEED OUT.pgn [FROM] | scale load N SEED DB | scale query DB [REPS] [moves]"
        ),
    }
    Ok(())
}
