//! Filtered counts against a scan: `Store::moves_filtered` (bucket sums for busy positions,
//! game facts for quiet ones) must equal what this file counts by replaying every stored game
//! itself, for every filter and combinations; and a schema-3 file made by the last schema-3
//! build migrates to the same statistics as a fresh import.

use std::collections::{BTreeMap, HashMap};

use qipu::{
    formats::{
        facts::{Mode, Speed, TimeControl},
        names::fold,
        read_path, Game,
    },
    pipeline::{import, ImportOptions},
    rules::{AnyPosition, Color, Move, Outcome, Variant},
    store::{BucketFilter, MoveRow, PositionKey, Store, StoredGame},
};

use crate::common::{fixture, Rng};

/// Gives a game varied facts: dates of every precision (and none), zero, one or two ratings,
/// a clock or a stated speed (or none), a mode (or none).
fn vary(g: &mut Game, mix: &mut Rng) {
    let t = &mut g.tags;
    let y = 1990 + mix.below(36);
    t.date = match mix.below(6) {
        0 => None,
        1 => Some(format!("{y}")),
        2 => Some(format!("{y}-{:02}", 1 + mix.below(12))),
        _ => Some(format!(
            "{y}-{:02}-{:02}",
            1 + mix.below(12),
            1 + mix.below(28)
        )),
    };
    let mut rating = || (mix.below(4) > 0).then(|| 800 + mix.below(2000) as u32);
    t.first_rating = rating();
    t.second_rating = rating();
    match mix.below(4) {
        0 => {
            t.time_control = Some(TimeControl {
                base_secs: [60, 180, 600, 1800][mix.below(4)],
                increment_secs: mix.below(3) as u32,
            });
            t.speed = None;
        }
        1 => t.speed = Some(Speed::ALL[mix.below(4)]),
        _ => {}
    }
    t.mode = match mix.below(3) {
        0 => Some(Mode::Rated),
        1 => Some(Mode::Casual),
        _ => None,
    };
    if mix.below(5) == 0 {
        t.result = None;
    }
}

/// The bundled sample with varied facts, imported at depth 40.
fn sample_store() -> Store {
    store_of(&[fixture("../../data")])
}

/// The games of some paths, with varied facts, imported at depth 40.
fn store_of(paths: &[std::path::PathBuf]) -> Store {
    let mut mix = Rng(12);
    let games: Vec<Game> = paths
        .iter()
        .flat_map(|p| read_path(p))
        .filter_map(Result::ok)
        .map(|mut g| {
            vary(&mut g, &mut mix);
            g
        })
        .collect();
    assert!(games.len() > 2000, "the sample has {} games", games.len());
    let mut store = Store::open_in_memory().unwrap();
    // Small batches: positions also turn busy from games already stored (read back from
    // their rows), not only from the games of one batch.
    let options = ImportOptions {
        batch_games: 300,
        ..ImportOptions::default()
    };
    import(&mut store, games.into_iter().map(Ok), &options, |_| {}).unwrap();
    store
}

/// What the oracle needs of a stored game.
struct Scanned {
    date: Option<String>,
    ratings: [Option<u32>; 2],
    speed: Option<Speed>,
    mode: Option<Mode>,
    result: Option<Outcome>,
}

/// The filter as the oracle applies it, written from the rules in `schema/README.md`, not
/// from the store's code.
fn passes(f: &BucketFilter, g: &Scanned) -> bool {
    if f.since.is_some() || f.until.is_some() {
        let Some(d) = g.date.as_deref() else {
            return false;
        };
        // Compare on the common prefix: a partial date is kept unless certainly outside.
        let cmp = |bound: String| {
            let n = d.len().min(bound.len());
            d[..n].cmp(&bound[..n])
        };
        if f.since.is_some_and(|s| cmp(s.to_string()).is_lt()) {
            return false;
        }
        if f.until.is_some_and(|u| cmp(u.to_string()).is_gt()) {
            return false;
        }
    }
    if f.min_rating.is_some() || f.max_rating.is_some() {
        let known: Vec<u32> = g.ratings.iter().flatten().copied().collect();
        if known.is_empty() {
            return false;
        }
        let mean = known.iter().sum::<u32>() as f64 / known.len() as f64;
        // Bands: <1000, then 200 wide from 1000, 2600 and more the last.
        let band = |r: f64| -> i32 {
            if r < 1000.0 {
                0
            } else {
                (((r - 1000.0) / 200.0).floor() as i32 + 1).min(9)
            }
        };
        if f.min_rating
            .is_some_and(|m| band(mean) < band(f64::from(m)))
        {
            return false;
        }
        if f.max_rating
            .is_some_and(|m| band(mean) > band(f64::from(m)))
        {
            return false;
        }
    }
    if !f.speeds.is_empty() && !g.speed.is_some_and(|s| f.speeds.contains(&s)) {
        return false;
    }
    if !f.modes.is_empty() && !g.mode.is_some_and(|m| f.modes.contains(&m)) {
        return false;
    }
    true
}

fn filters() -> Vec<BucketFilter> {
    let m = |s: &str| Some(s.parse().unwrap());
    let f = BucketFilter::default;
    let mut out = vec![
        BucketFilter {
            since: m("2010"),
            ..f()
        },
        BucketFilter {
            since: m("2010-06"),
            ..f()
        },
        BucketFilter {
            until: m("1999-12"),
            ..f()
        },
        BucketFilter {
            since: m("2000-03"),
            until: m("2005"),
            ..f()
        },
        BucketFilter {
            min_rating: Some(2000),
            ..f()
        },
        BucketFilter {
            min_rating: Some(2450),
            ..f()
        },
        BucketFilter {
            max_rating: Some(1199),
            ..f()
        },
        BucketFilter {
            min_rating: Some(1200),
            max_rating: Some(1800),
            ..f()
        },
        BucketFilter {
            speeds: vec![Speed::Blitz],
            ..f()
        },
        BucketFilter {
            speeds: vec![Speed::Bullet, Speed::Classical],
            ..f()
        },
        BucketFilter {
            modes: vec![Mode::Rated],
            ..f()
        },
        BucketFilter {
            modes: vec![Mode::Casual],
            ..f()
        },
    ];
    let singles = out.clone();
    // Every pair of single filters of different dimensions, and a few of all four.
    for (i, a) in singles.iter().enumerate() {
        for b in &singles[i + 1..] {
            let both = BucketFilter {
                since: a.since.or(b.since),
                until: a.until.or(b.until),
                min_rating: a.min_rating.or(b.min_rating),
                max_rating: a.max_rating.or(b.max_rating),
                speeds: [a.speeds.clone(), b.speeds.clone()].concat(),
                modes: [a.modes.clone(), b.modes.clone()].concat(),
            };
            out.push(both);
        }
    }
    out.push(BucketFilter {
        since: m("2000"),
        min_rating: Some(1400),
        speeds: vec![Speed::Rapid, Speed::Blitz],
        modes: vec![Mode::Rated],
        ..f()
    });
    out
}

/// Counts, by replaying every stored game, each filter's move rows at the positions asked.
fn oracle(
    store: &Store,
    positions: &[PositionKey],
    filters: &[BucketFilter],
    keep: impl Fn(&StoredGame) -> bool,
) -> Vec<HashMap<PositionKey, BTreeMap<u16, MoveRow>>> {
    let wanted: std::collections::HashSet<u64> = positions.iter().map(|k| k.0).collect();
    let mut out = vec![HashMap::new(); filters.len()];
    for variant in Variant::ALL {
        for g in store.games(variant) {
            let g = g.unwrap();
            if !keep(&g) {
                continue;
            }
            let t = &g.tags;
            let facts = Scanned {
                date: t.date.clone(),
                ratings: [t.first_rating, t.second_rating],
                speed: t.speed.or(t.time_control.map(|c| c.speed())),
                mode: t.mode,
                result: g.result,
            };
            // Each distinct position within 40 plies once, with the move of its last visit.
            let mut seen: Vec<(u64, Option<Move>)> = Vec::new();
            let mut pos = AnyPosition::from_fen(variant, &g.start_fen).unwrap();
            let mut visit = |key: u64, mv: Option<Move>| match seen.iter_mut().find(|s| s.0 == key)
            {
                Some(s) => s.1 = mv,
                None => seen.push((key, mv)),
            };
            for &m in g.moves.iter().take(40) {
                visit(pos.key(), Some(m));
                pos.play_unchecked(m);
            }
            if g.moves.len() < 40 {
                visit(pos.key(), None);
            }
            for (key, mv) in seen {
                if !wanted.contains(&key) {
                    continue;
                }
                for (i, f) in filters.iter().enumerate() {
                    if !passes(f, &facts) {
                        continue;
                    }
                    let code = mv.map_or(u16::MAX, Move::to_u16);
                    let row = out[i]
                        .entry(PositionKey(key))
                        .or_insert_with(BTreeMap::new)
                        .entry(code)
                        .or_insert_with(|| MoveRow {
                            mv,
                            ..MoveRow::default()
                        });
                    count(row, &facts);
                }
            }
        }
    }
    out
}

/// Adds a game to a row by hand (not with `MoveRow::add_game`).
fn count(row: &mut MoveRow, g: &Scanned) {
    let c = &mut row.counts;
    c.games += 1;
    match g.result {
        Some(Outcome::Decisive {
            winner: Color::First,
        }) => c.first_wins += 1,
        Some(Outcome::Decisive {
            winner: Color::Second,
        }) => c.second_wins += 1,
        Some(Outcome::Draw) => c.draws += 1,
        None => {}
    }
    for r in g.ratings.iter().flatten() {
        c.rating_sum += u64::from(*r);
        c.rating_count += 1;
    }
    if let Some(d) = &g.date {
        if row.first_date.as_ref().is_none_or(|f| d < f) {
            row.first_date = Some(d.clone());
        }
        if row.last_date.as_ref().is_none_or(|l| d > l) {
            row.last_date = Some(d.clone());
        }
    }
}

/// For each variant: the start, every position after one ply and six after two, and the
/// positions some games reach at plies 6, 10 and 20 (quiet ones among them).
fn positions_of(store: &Store) -> Vec<PositionKey> {
    let mut out = Vec::new();
    for variant in Variant::ALL {
        let start = AnyPosition::new(variant);
        out.push(PositionKey(start.key()));
        for r in store.position(PositionKey(start.key())).unwrap() {
            let Some(m) = r.mv else { continue };
            let mut p = start.clone();
            p.play_unchecked(m);
            out.push(PositionKey(p.key()));
            for r2 in store.position(PositionKey(p.key())).unwrap().iter().take(6) {
                let Some(m2) = r2.mv else { continue };
                let mut q = p.clone();
                q.play_unchecked(m2);
                out.push(PositionKey(q.key()));
            }
        }
        for g in store.games(variant).step_by(97) {
            let g = g.unwrap();
            let mut p = AnyPosition::from_fen(variant, &g.start_fen).unwrap();
            for (ply, &m) in g.moves.iter().enumerate().take(21) {
                if [6, 10, 20].contains(&ply) {
                    out.push(PositionKey(p.key()));
                }
                p.play_unchecked(m);
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

fn check(store: &Store, positions: &[PositionKey]) {
    let filters = filters();
    let want = oracle(store, positions, &filters, |_| true);
    let mut busy_checked = 0;
    let mut nonempty = 0;
    for (i, f) in filters.iter().enumerate() {
        for &key in positions {
            let got = store.moves_filtered(key, f).unwrap();
            let expected: Vec<MoveRow> = want[i]
                .get(&key)
                .map(|rows| rows.values().cloned().collect())
                .unwrap_or_default();
            assert_eq!(got, expected, "filter {f:?} at {key}");
            nonempty += usize::from(!got.is_empty());
            let total: u64 = store
                .position(key)
                .unwrap()
                .iter()
                .map(|r| r.counts.games)
                .sum();
            busy_checked += usize::from(total > 32);
        }
    }
    assert!(
        busy_checked > 10 * filters.len(),
        "busy positions: {busy_checked}"
    );
    assert!(
        nonempty > positions.len(),
        "filters that kept games: {nonempty}"
    );
}

#[test]
fn filtered_counts_equal_a_scan_of_the_sample() {
    let store = sample_store();
    let positions = positions_of(&store);
    assert!(positions.len() > 100, "{} positions", positions.len());
    check(&store, &positions);
    // An empty filter is the unfiltered answer.
    let start = PositionKey(AnyPosition::new(Variant::Xiangqi).key());
    assert_eq!(
        store
            .moves_filtered(start, &BucketFilter::default())
            .unwrap(),
        store.position(start).unwrap()
    );
}

#[test]
fn a_schema_3_file_migrates_to_what_a_fresh_import_stores() {
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("old.db");
    std::fs::copy(fixture("migrate/schema3.db"), &old).unwrap();
    let migrated = Store::open(&old).unwrap();
    assert_eq!(migrated.max_ply().unwrap(), Some(40));
    let mut fresh = Store::open_in_memory().unwrap();
    let games: Vec<_> = ["hu80.pgn", "a.pgn", "b.pgn"]
        .iter()
        .flat_map(|f| read_path(&fixture(&format!("migrate/{f}"))))
        .collect();
    import(
        &mut fresh,
        games.into_iter(),
        &ImportOptions::default(),
        |_| {},
    )
    .unwrap();
    let dump = |s: &Store| {
        let mut rows = Vec::new();
        s.for_each_position_move(|k, r| {
            rows.push((k, r.clone()));
            Ok(())
        })
        .unwrap();
        rows
    };
    let (a, b) = (dump(&migrated), dump(&fresh));
    assert!(a.len() > 1000);
    assert_eq!(a, b);
    let (sa, sb) = (migrated.stats().unwrap(), fresh.stats().unwrap());
    assert_eq!(
        (sa.games, sa.positions, sa.position_games),
        (sb.games, sb.positions, sb.position_games)
    );
    // The buckets and facts rows were rebuilt too: filtered answers agree.
    let start = PositionKey(AnyPosition::new(Variant::Xiangqi).key());
    let f = BucketFilter {
        until: Some("2999".parse().unwrap()),
        ..BucketFilter::default()
    };
    assert!(a.iter().any(|(k, _)| *k == start));
    for (k, _) in a.iter().step_by(7) {
        assert_eq!(
            migrated.moves_filtered(*k, &f).unwrap(),
            fresh.moves_filtered(*k, &f).unwrap()
        );
    }
    let no_date = BucketFilter {
        modes: vec![Mode::Rated],
        ..BucketFilter::default()
    };
    assert!(migrated.moves_filtered(start, &no_date).unwrap().is_empty());
    let all: u64 = migrated
        .position(start)
        .unwrap()
        .iter()
        .map(|r| r.counts.games)
        .sum();
    assert!(all > 32, "the start is busy: {all} games");
}

#[test]
fn player_moves_equal_a_scan_of_the_players_games() {
    let store = sample_store();
    let positions = positions_of(&store);
    let top = store.players("", 4).unwrap();
    assert_eq!(top.len(), 4);
    assert!(top[0].games >= top[3].games && top[3].games > 20, "{top:?}");
    let filters = [
        BucketFilter::default(),
        BucketFilter {
            since: Some("2005".parse().unwrap()),
            ..BucketFilter::default()
        },
        BucketFilter {
            min_rating: Some(1600),
            modes: vec![Mode::Rated],
            ..BucketFilter::default()
        },
    ];
    let mut kept = 0;
    for p in &top {
        // Asked with other spacing and case: the folded name matches.
        let asked = format!(" {} ", p.name.to_uppercase());
        for side in [None, Some(Color::First), Some(Color::Second)] {
            let who = fold(&p.name);
            let plays = |g: &StoredGame| {
                let is = |n: &Option<String>| n.as_deref().is_some_and(|n| fold(n) == who);
                match side {
                    None => is(&g.tags.first) || is(&g.tags.second),
                    Some(Color::First) => is(&g.tags.first),
                    Some(Color::Second) => is(&g.tags.second),
                }
            };
            let want = oracle(&store, &positions, &filters, plays);
            for (i, f) in filters.iter().enumerate() {
                for &key in &positions {
                    let got = store.player_moves(&asked, side, key, f).unwrap();
                    let expected: Vec<MoveRow> = want[i]
                        .get(&key)
                        .map(|rows| rows.values().cloned().collect())
                        .unwrap_or_default();
                    assert_eq!(got, expected, "{asked} {side:?} {f:?} at {key}");
                    kept += got.len();
                }
            }
        }
    }
    assert!(kept > 100, "rows kept: {kept}");
    // A part of the name finds them.
    let part: String = top[0].name.chars().skip(1).take(2).collect();
    let found = store.players(&part, 50).unwrap();
    assert!(found.iter().any(|p| p == &top[0]), "{found:?}");
    assert!(store
        .players("no such player anywhere", 5)
        .unwrap()
        .is_empty());
}

#[test]
#[ignore = "needs ../shared (run by .ci/run)"]
fn filtered_and_player_counts_equal_a_scan_of_the_shared_corpus() {
    let Some(shared) = crate::common::shared_dir() else {
        panic!("no ../shared");
    };
    let store = store_of(&[
        shared.join("data/xiangqi/ccpd"),
        shared.join("data/janggi/gib"),
    ]);
    let positions = positions_of(&store);
    assert!(positions.len() > 500, "{} positions", positions.len());
    check(&store, &positions);
    let top = store.players("", 3).unwrap();
    let filters = [
        BucketFilter::default(),
        BucketFilter {
            since: Some("2010-06".parse().unwrap()),
            max_rating: Some(2199),
            ..BucketFilter::default()
        },
    ];
    for p in &top {
        let who = fold(&p.name);
        let plays = |g: &StoredGame| {
            [&g.tags.first, &g.tags.second]
                .iter()
                .any(|n| n.as_deref().is_some_and(|n| fold(n) == who))
        };
        let want = oracle(&store, &positions, &filters, plays);
        for (i, f) in filters.iter().enumerate() {
            for &key in &positions {
                let got = store.player_moves(&p.name, None, key, f).unwrap();
                let expected: Vec<MoveRow> = want[i]
                    .get(&key)
                    .map(|rows| rows.values().cloned().collect())
                    .unwrap_or_default();
                assert_eq!(got, expected, "{} {f:?} at {key}", p.name);
            }
        }
    }
}
