//! Filtered counts against a scan: `Store::moves_filtered` (bucket sums for busy positions,
//! game facts for quiet ones) must equal what this file counts by replaying every stored game
//! itself, for every filter and combinations; and a schema-3 file made by the last schema-3
//! build migrates to the same statistics as a fresh import.

use std::collections::{BTreeMap, HashMap};

use qipu::{
    explorer::{explore, Filter, PartialDate, Query, EXPLORE_RULES},
    formats::{
        facts::{Mode, Speed, TimeControl},
        names::fold,
        read_path, Game,
    },
    notation::Line,
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
    let mut store = Store::open_in_memory().unwrap();
    import_into(&mut store, paths);
    store
}

/// Imports the games of some paths, with varied facts, at depth 40.
fn import_into(store: &mut Store, paths: &[std::path::PathBuf]) {
    import_in_parts(store, paths, &[1]);
}

/// [`import_into`] as imports one after the other, one per share of `shares` (a share of
/// the games in proportion), each of the next games (the same
/// games, in the same order), each counted in a segment of its own (sealed after it).
fn import_in_parts(store: &mut Store, paths: &[std::path::PathBuf], shares: &[usize]) {
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
    // Small batches: positions also turn busy from games already stored (read back from
    // their rows), not only from the games of one batch.
    let options = ImportOptions {
        batch_games: 300,
        ..ImportOptions::default()
    };
    let total: usize = shares.iter().sum();
    let n = games.len();
    let mut games = games.into_iter();
    for (i, share) in shares.iter().enumerate() {
        let take = if i + 1 == shares.len() {
            n
        } else {
            n * share / total
        };
        let part: Vec<Game> = games.by_ref().take(take).collect();
        import(store, part.into_iter().map(Ok), &options, |_| {}).unwrap();
        if shares.len() > 1 {
            store.seal_segment().unwrap();
        }
    }
}

/// The bundled sample imported as four imports, each sealed: four segments.
fn sample_in_segments() -> Store {
    let mut store = Store::open_in_memory().unwrap();
    import_in_parts(&mut store, &[fixture("../../data")], &[1, 1, 1, 1]);
    store
}

/// The bundled sample as four imports of unequal size, each sealed, compacted into one
/// segment: the first holds most games (its busiest positions keep full lists), the others
/// few (positions quiet in each are busy in all).
fn sample_compacted() -> (Store, qipu::store::CompactOutcome) {
    let mut store = Store::open_in_memory().unwrap();
    import_in_parts(&mut store, &[fixture("../../data")], &[10, 1, 1, 2]);
    assert_eq!(store.stats().unwrap().segments, 4);
    let done = store.compact().unwrap();
    (store, done)
}

/// What the oracle needs of a stored game.
struct Scanned {
    id: i64,
    date: Option<String>,
    ratings: [Option<u32>; 2],
    speed: Option<Speed>,
    mode: Option<Mode>,
    result: Option<Outcome>,
    termination: Option<qipu::formats::facts::Termination>,
    /// The side of the player a player's oracle follows (`None` for another oracle).
    player: Option<Color>,
    /// Whether both players have real names (`store::is_real_name`).
    real_names: bool,
}

impl Scanned {
    fn of(g: &StoredGame, player: Option<Color>) -> Scanned {
        let t = &g.tags;
        Scanned {
            id: g.id,
            date: t.date.clone(),
            ratings: [t.first_rating, t.second_rating],
            speed: t.speed.or(t.time_control.map(|c| c.speed())),
            mode: t.mode,
            result: g.result,
            termination: t.termination,
            player,
            real_names: qipu::store::is_real_name(t.first.as_deref())
                && qipu::store::is_real_name(t.second.as_deref()),
        }
    }
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

/// Each distinct position of a game within 40 plies once, with the move of its last visit
/// (`None`: the game ended there).
fn seen_positions(variant: Variant, g: &StoredGame) -> Vec<(u64, Option<Move>)> {
    let mut seen: Vec<(u64, Option<Move>)> = Vec::new();
    let mut pos = AnyPosition::from_fen(variant, &g.start_fen).unwrap();
    let mut visit = |key: u64, mv: Option<Move>| match seen.iter_mut().find(|s| s.0 == key) {
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
    seen
}

/// Counts, by replaying every stored game, each filter's move rows at the positions asked;
/// `keep` says which games count (and, for a player's oracle, the side the player had).
fn oracle(
    store: &Store,
    positions: &[PositionKey],
    filters: &[BucketFilter],
    keep: impl Fn(&StoredGame) -> Option<Option<Color>>,
) -> Vec<HashMap<PositionKey, BTreeMap<u16, MoveRow>>> {
    let wanted: std::collections::HashSet<u64> = positions.iter().map(|k| k.0).collect();
    let mut out = vec![HashMap::new(); filters.len()];
    for variant in Variant::ALL {
        for g in store.games(variant) {
            let g = g.unwrap();
            let Some(player) = keep(&g) else {
                continue;
            };
            let facts = Scanned::of(&g, player);
            for (key, mv) in seen_positions(variant, &g) {
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

/// Adds a game to a row by hand (not with `MoveRow::add_game` or `MoveRow::count`).
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
    if let Some(r) = g.ratings[0] {
        c.first_rating_sum += u64::from(r);
        c.first_rating_count += 1;
    }
    if let Some(d) = &g.date {
        // The earliest date, and of the games of that date the smallest id.
        let earlier = match &row.first_date {
            None => true,
            Some(f) => d < f || (d == f && row.first_game.is_none_or(|id| g.id < id)),
        };
        if earlier {
            row.first_date = Some(d.clone());
            row.first_game = Some(g.id);
        }
        if row.last_date.as_ref().is_none_or(|l| d > l) {
            row.last_date = Some(d.clone());
        }
        row.year_sum += d[..4].parse::<u64>().unwrap();
        row.dated += 1;
    }
    if row.mv.is_none() {
        let code = g.termination.map_or(0, |t| usize::from(t.code()));
        row.endings[code] += 1;
    }
    if let Some(side) = g.player {
        let p = &mut row.player;
        p.games += 1;
        match g.result {
            Some(Outcome::Draw) => p.draws += 1,
            Some(Outcome::Decisive { winner }) if winner == side => p.wins += 1,
            Some(Outcome::Decisive { .. }) => p.losses += 1,
            None => {}
        }
        let opponent = if side == Color::First {
            g.ratings[1]
        } else {
            g.ratings[0]
        };
        if let Some(r) = opponent {
            p.opponent_rating_sum += u64::from(r);
            p.opponent_rating_count += 1;
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
    let want = oracle(store, positions, &filters, |_| Some(None));
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
            // Every spelling of the person (the games are counted here, by scan).
            let who: Vec<String> = p.spellings.iter().map(|s| fold(&s.name)).collect();
            let plays = |g: &StoredGame| {
                let is = |n: &Option<String>| n.as_deref().is_some_and(|n| who.contains(&fold(n)));
                let (first, second) = (is(&g.tags.first), is(&g.tags.second));
                match side {
                    None if first => Some(Some(Color::First)),
                    None if second => Some(Some(Color::Second)),
                    Some(Color::First) if first => Some(Some(Color::First)),
                    Some(Color::Second) if second => Some(Some(Color::Second)),
                    _ => None,
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
        shared.join("data/xiangqi/elephantchess"),
    ]);
    let positions = positions_of(&store);
    assert!(positions.len() > 500, "{} positions", positions.len());
    check(&store, &positions);
    check_explorer(&store, 1000);
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
        // A name stands for its person: every spelling the person has (tests/persons.rs
        // checks which names are one person; this test checks the counts of their games).
        let who: std::collections::HashSet<String> =
            p.spellings.iter().map(|s| fold(&s.name)).collect();
        assert!(who.contains(&fold(&p.name)), "{p:?}");
        let plays = |g: &StoredGame| {
            let is = |n: &Option<String>| n.as_deref().is_some_and(|n| who.contains(&fold(n)));
            if is(&g.tags.first) {
                Some(Some(Color::First))
            } else if is(&g.tags.second) {
                Some(Some(Color::Second))
            } else {
                None
            }
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

/// Every figure the explorer adds to the counts (first date and game, mean ratings of the
/// mover and the opponent, mean year, games through the position a move leads to, the games
/// that ended here and how, the history by month, the latest games) equals what a scan of
/// the games counts, under every single filter and a few combinations, at the start of each
/// variant and after each first move.
/// Four imports (four segments) answer every question as one import does, and as a scan
/// of the games: the sums, the best and the latest games, the candidates of a filter, the
/// games after a move, every position's moves in key order, and the database's figures.
#[test]
fn four_imports_answer_as_one_import_and_as_a_scan() {
    let one = sample_store();
    let four = sample_in_segments();
    assert_eq!(one.stats().unwrap().segments, 1);
    let (s1, s4) = (one.stats().unwrap(), four.stats().unwrap());
    assert_eq!(s4.segments, 4);
    assert_eq!(
        (s4.games, s4.positions, s4.position_moves, s4.position_games),
        (s1.games, s1.positions, s1.position_moves, s1.position_games)
    );
    let positions = positions_of(&one);
    assert_eq!(positions, positions_of(&four));
    let filters = filters();
    let mut through_several = 0;
    for &key in &positions {
        assert_eq!(four.lookup(key, 10).unwrap(), one.lookup(key, 10).unwrap());
        assert_eq!(four.position(key).unwrap(), one.position(key).unwrap());
        assert_eq!(
            four.games_through(key, Some(25)).unwrap(),
            one.games_through(key, Some(25)).unwrap()
        );
        let rows = one.position(key).unwrap();
        for r in rows.iter().take(3) {
            assert_eq!(
                four.games_playing(key, r.mv, 7).unwrap(),
                one.games_playing(key, r.mv, 7).unwrap()
            );
        }
        through_several += usize::from(rows.iter().map(|r| r.counts.games).sum::<u64>() > 100);
        for f in &filters {
            assert_eq!(
                four.games_at(key, f).unwrap(),
                one.games_at(key, f).unwrap()
            );
            let (a, b) = (
                four.lookup_filtered(key, f, 5).unwrap(),
                one.lookup_filtered(key, f, 5).unwrap(),
            );
            // The candidates for the best games are each segment's own (the explorer ranks
            // them: `explorer_answers_of_four_imports_equal_a_scan`).
            assert_eq!(
                (&a.moves, &a.openings, &a.history, &a.recent),
                (&b.moves, &b.openings, &b.history, &b.recent),
                "{f:?} at {key}"
            );
        }
    }
    assert!(
        through_several >= 10,
        "positions of over 100 games: {through_several}"
    );
    let every = |store: &Store| {
        let mut all = Vec::new();
        store
            .for_each_position_moves(|key, _, rows| {
                all.push((key, rows.to_vec()));
                Ok(())
            })
            .unwrap();
        all
    };
    let all = every(&one);
    assert!(all.len() > 10_000, "{} positions", all.len());
    assert_eq!(every(&four), all);
    check(&four, &positions);
}

/// Four segments compacted into one answer every question exactly as one import does (the
/// best games under a filter too: one segment's candidates are the import's), and as a
/// scan of the games.
#[test]
fn four_segments_compacted_answer_as_one_import_and_as_a_scan() {
    let one = sample_store();
    let (compacted, done) = sample_compacted();
    assert_eq!(
        (done.segments, done.compactions, done.segments_after),
        (4, 1, 1)
    );
    assert!(done.promoted > 0, "{done:?}");
    let (s1, sc) = (one.stats().unwrap(), compacted.stats().unwrap());
    assert_eq!(sc.segments, 1);
    assert_eq!(
        (sc.games, sc.positions, sc.position_moves, sc.position_games),
        (s1.games, s1.positions, s1.position_moves, s1.position_games)
    );
    assert_eq!(done.positions, s1.positions);
    let positions = positions_of(&one);
    assert_eq!(positions, positions_of(&compacted));
    let filters = filters();
    for &key in &positions {
        assert_eq!(
            compacted.lookup(key, 100).unwrap(),
            one.lookup(key, 100).unwrap()
        );
        assert_eq!(compacted.position(key).unwrap(), one.position(key).unwrap());
        assert_eq!(
            compacted.games_through(key, Some(25)).unwrap(),
            one.games_through(key, Some(25)).unwrap()
        );
        for f in &filters {
            assert_eq!(
                compacted.lookup_filtered(key, f, 5).unwrap(),
                one.lookup_filtered(key, f, 5).unwrap(),
                "{f:?} at {key}"
            );
        }
    }
    check(&compacted, &positions);
    check_explorer(&compacted, 300);
    // Nothing left to compact: a second call changes nothing.
    let mut compacted = compacted;
    let again = compacted.compact().unwrap();
    assert_eq!((again.segments, again.segments_after), (0, 1));
}

#[test]
fn explorer_answers_of_four_imports_equal_a_scan() {
    check_explorer(&sample_in_segments(), 300);
}

#[test]
fn explorer_answers_equal_a_scan_of_the_sample() {
    check_explorer(&sample_store(), 300);
}

/// A game as the explorer's oracle scans it: its variant, facts and positions.
type ScannedGame = (Variant, Scanned, Vec<(u64, Option<Move>)>);

/// The explorer's figures at the start of each variant, after each first move and three
/// replies to it, against a scan of every game; at least `min_moves` move lines checked.
fn check_explorer(store: &Store, min_moves: usize) {
    let mut games: Vec<ScannedGame> = Vec::new();
    for variant in Variant::ALL {
        for g in store.games(variant) {
            let g = g.unwrap();
            games.push((variant, Scanned::of(&g, None), seen_positions(variant, &g)));
        }
    }
    let mut all = filters();
    all.truncate(14);
    all.push(BucketFilter::default());
    let mut checked_moves = 0;
    let mut transposed = 0;
    let mut big_checked = 0;
    let mut mid_checked = 0;
    for variant in Variant::ALL {
        let start = Line::start(variant, EXPLORE_RULES);
        let mut lines = vec![start.clone()];
        for r in store.position(PositionKey(start.position.key())).unwrap() {
            let Some(m) = r.mv else { continue };
            let one = qipu::explorer::line(variant, None, &[m.to_string()], None).unwrap();
            // And three replies to each first move: their moves reach positions of three
            // plies, which other move orders reach too.
            for r2 in store
                .position(PositionKey(one.position.key()))
                .unwrap()
                .iter()
                .take(3)
            {
                if let Some(m2) = r2.mv {
                    let moves = [m.to_string(), m2.to_string()];
                    lines.push(qipu::explorer::line(variant, None, &moves, None).unwrap());
                }
            }
            lines.push(one);
        }
        let asked: std::collections::HashSet<u64> =
            lines.iter().map(|l| l.position.key()).collect();
        // Every game through each position asked, whatever the filter.
        let mut everyone: HashMap<u64, Vec<&Scanned>> = HashMap::new();
        for (v, g, seen) in &games {
            for s in seen
                .iter()
                .filter(|s| *v == variant && asked.contains(&s.0))
            {
                everyone.entry(s.0).or_default().push(g);
            }
        }
        for f in &all {
            // Games through each position among those that pass, and at the positions asked
            // the games with the move they played there.
            let mut reach: HashMap<u64, u64> = HashMap::new();
            let mut at: HashMap<u64, Vec<(&Scanned, Option<Move>)>> = HashMap::new();
            for (v, g, seen) in &games {
                if *v == variant && passes(f, g) {
                    for s in seen {
                        *reach.entry(s.0).or_default() += 1;
                        if asked.contains(&s.0) {
                            at.entry(s.0).or_default().push((g, s.1));
                        }
                    }
                }
            }
            for line in &lines {
                let mut q = Query::at(line.clone());
                q.filter = Filter::from(f);
                q.min_games = 0;
                let a = explore(store, &q).unwrap();
                let key = line.position.key();
                let through: &[(&Scanned, Option<Move>)] =
                    at.get(&key).map_or(&[], |v| v.as_slice());
                assert_eq!(a.counts.games, through.len() as u64, "{f:?}");
                // The history: per calendar month, from the first to the last, zeros between.
                let mut months: BTreeMap<(u16, u8), [u64; 4]> = BTreeMap::new();
                for (g, _) in through {
                    let Some(d) = g.date.as_deref().filter(|d| d.len() >= 7) else {
                        continue;
                    };
                    let e = months
                        .entry((d[..4].parse().unwrap(), d[5..7].parse().unwrap()))
                        .or_default();
                    e[0] += 1;
                    match g.result {
                        Some(Outcome::Decisive {
                            winner: Color::First,
                        }) => e[1] += 1,
                        Some(Outcome::Draw) => e[2] += 1,
                        Some(Outcome::Decisive { .. }) => e[3] += 1,
                        None => {}
                    }
                }
                let got: BTreeMap<(u16, u8), [u64; 4]> = a
                    .history
                    .iter()
                    .map(|h| {
                        (
                            (h.year, h.month),
                            [h.games, h.first_wins, h.draws, h.second_wins],
                        )
                    })
                    .collect();
                let span = |m: &BTreeMap<(u16, u8), [u64; 4]>| {
                    m.first_key_value().zip(m.last_key_value()).map(|(a, b)| {
                        (i32::from(b.0 .0) - i32::from(a.0 .0)) * 12 + i32::from(b.0 .1)
                            - i32::from(a.0 .1)
                            + 1
                    })
                };
                assert_eq!(
                    Some(a.history.len() as i32).filter(|n| *n > 0),
                    span(&months)
                );
                let nonzero: BTreeMap<_, _> = got.into_iter().filter(|e| e.1[0] > 0).collect();
                assert_eq!(nonzero, months, "history {f:?}");
                // The games that ended here and how.
                let mut how = [0u64; qipu::store::ENDINGS];
                for (g, mv) in through {
                    if mv.is_none() {
                        how[g.termination.map_or(0, |t| usize::from(t.code()))] += 1;
                    }
                }
                assert_eq!(a.ended.how, how, "{f:?}");
                assert_eq!(a.ended.counts.games, how.iter().sum::<u64>());
                // The top games: the best `top_games` of every game that passes, a known
                // result first, then real names on both sides, then rating and date.
                let order = |g: &Scanned| {
                    // The names only matter as real or not (judged above by is_real_name).
                    let names = if g.real_names {
                        [Some("first"), Some("second")]
                    } else {
                        [None, None]
                    };
                    let score =
                        qipu::store::top_score(g.result, names, g.ratings, g.date.as_deref());
                    (std::cmp::Reverse(score), g.id)
                };
                let mut pool: Vec<&Scanned> = everyone.get(&key).cloned().unwrap_or_default();
                let passing: std::collections::HashSet<i64> =
                    through.iter().map(|(g, _)| g.id).collect();
                pool.retain(|g| passing.contains(&g.id));
                pool.sort_by_key(|g| (g.result.is_none(), !g.real_names, order(g)));
                let want: Vec<i64> = pool.iter().take(q.top_games).map(|g| g.id).collect();
                let got: Vec<i64> = a.top_games.iter().map(|g| g.id).collect();
                assert_eq!(got, want, "top games {f:?}");
                // The latest games: the first `top_games` of the scan's order, whatever the
                // position's size.
                let mut latest: Vec<(&Option<String>, i64)> =
                    through.iter().map(|(g, _)| (&g.date, g.id)).collect();
                latest.sort_by(|x, y| y.cmp(x));
                let ids: Vec<i64> = a.recent_games.iter().map(|g| g.id).collect();
                let want: Vec<i64> = latest.iter().map(|x| x.1).take(q.top_games).collect();
                assert_eq!(ids, want, "recent {f:?}");
                // Positions of more than 100 games where fewer than `top_games` of the 100
                // best or of the 100 latest pass (the summary's kept lists cannot tell):
                // answered from their full lists (more than 1,000 games) or from their
                // games' facts rows, reading only the winners (at most 1,000).
                let all = everyone.get(&key).cloned().unwrap_or_default();
                if all.len() > qipu::store::TOP_KEPT && through.len() > q.top_games {
                    let kept_passing = |mut v: Vec<&Scanned>, latest: bool| {
                        if latest {
                            v.sort_by(|x, y| (&y.date, y.id).cmp(&(&x.date, x.id)));
                        } else {
                            v.sort_by_key(|g| order(g));
                        }
                        v.truncate(qipu::store::TOP_KEPT);
                        v.iter().filter(|g| passing.contains(&g.id)).count()
                    };
                    let big = all.len() > 1000;
                    if kept_passing(all.clone(), false) < q.top_games
                        || kept_passing(all, true) < q.top_games
                    {
                        // More than 1,000 games: the full lists; fewer: the games' facts.
                        *if big {
                            &mut big_checked
                        } else {
                            &mut mid_checked
                        } += 1;
                    }
                }
                for m in &a.moves {
                    let played: Vec<&Scanned> = through
                        .iter()
                        .filter(|(_, mv)| *mv == Some(m.mv))
                        .map(|(g, _)| *g)
                        .collect();
                    assert_eq!(m.counts.games, played.len() as u64);
                    let first = played
                        .iter()
                        .filter_map(|g| g.date.as_ref().map(|d| (d, g.id)))
                        .min();
                    assert_eq!(m.first_date.as_ref(), first.map(|x| x.0));
                    assert_eq!(m.first_game.as_ref().map(|g| g.id), first.map(|x| x.1));
                    let years: Vec<f64> = played
                        .iter()
                        .filter_map(|g| g.date.as_ref().map(|d| d[..4].parse::<f64>().unwrap()))
                        .collect();
                    let mean =
                        |v: &[f64]| (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64);
                    let close = |a: Option<f64>, b: Option<f64>| match (a, b) {
                        (Some(a), Some(b)) => (a - b).abs() < 1e-6,
                        (a, b) => a.is_none() && b.is_none(),
                    };
                    assert!(
                        close(m.avg_year, mean(&years)),
                        "{:?} {:?}",
                        m.avg_year,
                        mean(&years)
                    );
                    let mover = usize::from(line.position.turn() != Color::First);
                    let rated = |side: usize| -> Vec<f64> {
                        played
                            .iter()
                            .filter_map(|g| g.ratings[side].map(f64::from))
                            .collect()
                    };
                    let json = qipu::explorer::json::ExploreJson::from(&a);
                    let mj = json
                        .moves
                        .iter()
                        .find(|j| j.mv == m.mv.to_string())
                        .unwrap();
                    assert!(close(mj.avg_rating, mean(&rated(mover))));
                    assert!(close(mj.avg_opponent_rating, mean(&rated(1 - mover))));
                    // Games through the position the move leads to, by any move order.
                    let mut child = line.position.clone();
                    child.play(m.mv).unwrap();
                    let after = reach.get(&child.key()).copied().unwrap_or(0);
                    let want = (after >= m.counts.games).then_some(after);
                    assert_eq!(m.games_after, want, "games after {} {f:?}", m.mv);
                    transposed += usize::from(after > m.counts.games);
                    assert_eq!(mj.transposed, after > 2 * m.counts.games);
                    checked_moves += 1;
                }
            }
        }
    }
    assert!(checked_moves > min_moves, "moves checked: {checked_moves}");
    assert!(
        big_checked > 0,
        "no position of more than 1,000 games checked"
    );
    assert!(
        mid_checked > 0,
        "no position of 101 to 1,000 games whose kept lists a filter empties checked"
    );
    assert!(
        transposed > 0,
        "no move leads to a position reached another way"
    );
}

/// `min_games` folds the moves of too few games played (decided or not) into one row, and
/// `novelties` lists the moves first played on or after a date (the rest folded); the Wilson
/// interval brackets the score.
#[test]
fn others_novelties_and_intervals_follow_the_query() {
    let store = sample_store();
    let start = Line::start(Variant::Xiangqi, EXPLORE_RULES);
    let all = {
        let mut q = Query::at(start.clone());
        q.min_games = 0;
        explore(&store, &q).unwrap()
    };
    let mut q = Query::at(start.clone());
    q.min_games = 20;
    let folded = explore(&store, &q).unwrap();
    let small: Vec<_> = all.moves.iter().filter(|m| m.counts.games < 20).collect();
    assert!(!small.is_empty() && small.len() < all.moves.len());
    let others = folded.others.unwrap();
    assert_eq!(others.moves, small.len());
    assert_eq!(
        others.counts.games,
        small.iter().map(|m| m.counts.games).sum::<u64>()
    );
    assert_eq!(folded.moves.len() + small.len(), all.moves.len());
    assert_eq!(folded.counts, all.counts, "the totals keep every move");
    let since: PartialDate = "2015".parse().unwrap();
    q.min_games = 0;
    q.novelties = Some(since);
    let new = explore(&store, &q).unwrap();
    let want: Vec<_> = all
        .moves
        .iter()
        .filter(|m| m.first_date.as_deref().is_some_and(|d| d[..4] >= *"2015"))
        .map(|m| m.mv)
        .collect();
    assert_eq!(new.moves.iter().map(|m| m.mv).collect::<Vec<_>>(), want);
    let folded_old = new.others.map_or(0, |o| o.moves);
    assert_eq!(
        want.len() + folded_old,
        all.moves.len(),
        "the older moves are folded"
    );
    let json = qipu::explorer::json::ExploreJson::from(&all);
    for m in &json.moves {
        if let (Some(s), Some(lo), Some(hi)) = (m.score, m.score_low, m.score_high) {
            assert!(lo <= s && s <= hi && 0.0 <= lo && hi <= 1.0, "{m:?}");
        }
    }
}

/// A schema-9 file (no full lists: the last build before schema 11 wrote none; made here by
/// taking them off a fresh file) gets the full lists of its positions of more than 1,000
/// games on open (schema 11), and answers every filter at the start position and after each
/// first move as a fresh import does (which `explorer_answers_equal_a_scan_of_the_sample`
/// checks against a scan), the filters the kept lists cannot answer among them.
#[test]
fn a_schema_9_file_gets_its_full_lists() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    let sample = [fixture("../../data")];
    import_into(&mut Store::open(&path).unwrap(), &sample);
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        let lists: i64 = conn
            .query_row("SELECT count(*) FROM position_lists", [], |r| r.get(0))
            .unwrap();
        assert!(lists > 0, "no position of more than 1,000 games");
        // What schemas 15 to 18 added comes off too: a real schema-9 file has none.
        conn.execute_batch(
            "DROP TABLE position_lists; DROP INDEX players_person; \
             ALTER TABLE players DROP COLUMN person; ALTER TABLE games DROP COLUMN \
             truncated_ply; DROP TABLE person_rules; DROP TABLE segments; PRAGMA user_version = 9;",
        )
        .unwrap();
    }
    assert!(Store::open_read_only(&path).is_err());
    let migrated = Store::open(&path).unwrap();
    let fresh = sample_store();
    let start = PositionKey(AnyPosition::new(Variant::Xiangqi).key());
    let mut keys = vec![start];
    keys.extend(
        fresh
            .position(start)
            .unwrap()
            .iter()
            .filter_map(|r| r.mv)
            .map(|m| {
                let mut p = AnyPosition::new(Variant::Xiangqi);
                p.play(m).unwrap();
                PositionKey(p.key())
            }),
    );
    let mut short = 0;
    for k in &keys {
        for f in filters() {
            let (a, b) = (
                migrated.lookup_filtered(*k, &f, 10).unwrap(),
                fresh.lookup_filtered(*k, &f, 10).unwrap(),
            );
            assert_eq!(a, b, "{k} {f:?}");
            let kept = fresh.lookup(*k, 100).unwrap();
            let passing = fresh.games_at(*k, &f).unwrap();
            // Fewer of the 100 latest kept pass than the answer lists.
            let kept_latest = kept
                .recent
                .iter()
                .filter(|g| a.recent.iter().any(|r| r.id == g.id))
                .count();
            if passing >= 10 && kept_latest < a.recent.len() {
                short += 1;
                assert_eq!(a.recent.len(), 10, "{k} {f:?}");
            }
        }
    }
    assert!(short > 0, "no filter the kept lists could not answer");
}

/// A schema-5 file (summary format 2, buckets format 1) gets its busy positions' blobs
/// rebuilt on open, and then answers exactly as a fresh import of the same games: every
/// position's lookup (history and latest games included) and filtered counts.
#[test]
fn a_schema_5_file_migrates_its_busy_blobs() {
    migrates_like_a_fresh_import("migrate/schema5.db");
}

/// A schema-7 file (buckets format 2, made by the last build that wrote it) gets its busy
/// positions' buckets re-encoded on open (format 3) and answers as a fresh import does.
#[test]
fn a_schema_7_file_migrates_its_buckets() {
    migrates_like_a_fresh_import("migrate/schema7.db");
}

/// A schema-9 file (buckets format 3: every cell body in full, made by the last build that
/// wrote it) gets its busy positions' buckets re-encoded on open (format 4: a cell of one
/// game in a compact body) and answers as a fresh import does.
#[test]
fn a_schema_9_file_migrates_its_buckets() {
    migrates_like_a_fresh_import("migrate/schema9.db");
}

/// A schema-11 file (buckets format 4: the entry of every game, move code 65534, with its
/// cells; summary format 3: the best games' scores in full) gets its busy positions' buckets
/// re-encoded on open in format 5 (without those cells; a position of at most 1,000 games
/// without the entry at all) and its summaries in format 4 (scores as ranks), and answers as
/// a fresh import does.
#[test]
fn a_schema_11_file_migrates_its_busy_blobs_to_buckets_5_and_summary_4() {
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("old.db");
    std::fs::copy(fixture("migrate/schema11.db"), &old).unwrap();
    // (buckets format, bytes; summary format, bytes) of every busy position.
    let formats = |path: &std::path::Path| -> Vec<[(u8, usize); 2]> {
        let conn = rusqlite::Connection::open(path).unwrap();
        let mut stmt = conn
            .prepare("SELECT buckets, summary FROM positions ORDER BY key")
            .unwrap();
        let rows = stmt
            .query_map([], |r| {
                let (b, s): (Vec<u8>, Vec<u8>) = (r.get(0)?, r.get(1)?);
                Ok([(b[0], b.len()), (s[0], s.len())])
            })
            .unwrap();
        rows.collect::<Result<_, _>>().unwrap()
    };
    let before = formats(&old);
    assert!(before.len() >= 2 && before.iter().all(|b| b[0].0 == 4 && b[1].0 == 3));
    drop(Store::open(&old).unwrap());
    let after = formats(&old);
    assert_eq!(after.len(), before.len());
    for (a, b) in after.iter().zip(&before) {
        assert_eq!((a[0].0, a[1].0), (5, 4));
        assert!(a[0].1 < b[0].1, "{} bytes, format 4: {}", a[0].1, b[0].1);
        assert!(a[1].1 < b[1].1, "{} bytes, format 3: {}", a[1].1, b[1].1);
    }
    migrates_like_a_fresh_import("migrate/schema11.db");
}

/// Opens a copy of an old fixture (migrating it) and compares every position's answers,
/// unfiltered and under filters of dates, of ratings and of both, with a fresh import.
fn migrates_like_a_fresh_import(file: &str) {
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("old.db");
    std::fs::copy(fixture(file), &old).unwrap();
    // Read-only, the old file is refused until it is upgraded.
    assert!(Store::open_read_only(&old).is_err());
    let migrated = Store::open(&old).unwrap();
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
    let mut keys = Vec::new();
    fresh
        .for_each_position_move(|k, _| {
            keys.push(k);
            Ok(())
        })
        .unwrap();
    keys.dedup();
    let filters = [
        BucketFilter {
            since: Some("2000".parse().unwrap()),
            ..BucketFilter::default()
        },
        BucketFilter {
            min_rating: Some(2000),
            ..BucketFilter::default()
        },
        BucketFilter {
            until: Some("1995-06".parse().unwrap()),
            max_rating: Some(2400),
            ..BucketFilter::default()
        },
    ];
    let mut busy = 0;
    for k in &keys {
        let (a, b) = (
            migrated.lookup(*k, 10).unwrap(),
            fresh.lookup(*k, 10).unwrap(),
        );
        assert_eq!(a, b, "{k}");
        busy += usize::from(a.moves.iter().map(|r| r.counts.games).sum::<u64>() > 32);
        for f in &filters {
            assert_eq!(
                migrated.lookup_filtered(*k, f, 10).unwrap(),
                fresh.lookup_filtered(*k, f, 10).unwrap()
            );
            assert_eq!(
                migrated.games_at(*k, f).unwrap(),
                fresh.games_at(*k, f).unwrap()
            );
        }
    }
    assert!(busy >= 2, "busy positions: {busy}");
    let start = PositionKey(AnyPosition::new(Variant::Xiangqi).key());
    let s = migrated.lookup(start, 10).unwrap();
    assert!(!s.history.is_empty() && !s.recent.is_empty());
}
