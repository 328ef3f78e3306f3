//! Top games (#14.7b): one ranking for every best-games list — a known result first, then real
//! names on both sides, then the mean known rating, then the later date, then the smaller id —
//! and the forward migration (schema 8) that ranks the kept lists of an older file again.

use qipu::{
    explorer::{explore, line, Filter, Query},
    formats::read_path,
    pipeline::{import, ImportOptions},
    rules::{AnyPosition, Variant},
    store::{GameThrough, PositionKey, Store},
};

use crate::common::fixture;

const FILES: [&str; 4] = ["hu80.pgn", "a.pgn", "b.pgn", "top.pgn"];

/// The ranking written in the tests from its statement ([`crate::store::explorer_order`]:
/// known result, real names, mean known rating, date as a number, smaller id), or, `false`,
/// the ranking before it (rating and date only, [`crate::store::independent_order`]).
fn rank(games: &[GameThrough], with_result_and_names: bool) -> Vec<i64> {
    if with_result_and_names {
        crate::store::explorer_order(games)
    } else {
        crate::store::independent_order(games)
    }
}

fn fresh() -> Store {
    let mut store = Store::open_in_memory().unwrap();
    let games: Vec<_> = FILES
        .iter()
        .flat_map(|f| read_path(&fixture(&format!("migrate/{f}"))))
        .collect();
    import(
        &mut store,
        games.into_iter(),
        &ImportOptions::default(),
        |_| {},
    )
    .unwrap();
    store
}

/// A schema-7 file (made by the build before this ranking) keeps its busy positions' best
/// games by rating and date: on open they are ranked again, and every position then answers
/// as a fresh import, in the ranking computed here.
#[test]
fn a_schema_7_file_ranks_its_kept_best_games_again() {
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("old.db");
    std::fs::copy(fixture("migrate/schema7-top.db"), &old).unwrap();
    assert!(Store::open_read_only(&old).is_err(), "too old to read");
    let migrated = Store::open(&old).unwrap();
    let fresh = fresh();
    let mut keys = Vec::new();
    fresh
        .for_each_position_move(|k, _| {
            keys.push(k);
            Ok(())
        })
        .unwrap();
    keys.dedup();
    for k in &keys {
        assert_eq!(
            migrated.lookup(*k, 100).unwrap(),
            fresh.lookup(*k, 100).unwrap(),
            "{k}"
        );
    }
    let start = PositionKey(AnyPosition::new(Variant::Xiangqi).key());
    let all = fresh.games_through(start, None).unwrap();
    assert!(all.len() > 80, "{} games", all.len());
    let want = rank(&all, true);
    // The fixture is one the old ranking orders otherwise (a rated `? - ? *` first).
    assert_ne!(want[..10], rank(&all, false)[..10]);
    let top = migrated.lookup(start, 10).unwrap().top;
    assert_eq!(top.iter().map(|g| g.id).collect::<Vec<_>>(), want[..10]);
    // The 6 games with a known result lead (5 of a.pgn, b.pgn and top.pgn with real names,
    // then `红方棋手 - 黑方棋手`), before the rated `Epsilon - Zeta *` and `? - ? *`.
    let known: Vec<bool> = top.iter().map(|g| g.result.is_some()).collect();
    assert_eq!(known, [[true; 6].as_slice(), &[false; 4]].concat());
    assert_eq!(top[5].first.as_deref(), Some("红方棋手"));
}

/// The explorer ranks its top games the same way without a filter (the kept list) and with
/// one (every game that passes): the games of `Placeholder Cup` under an event filter, and all
/// games through the start position without one.
#[test]
fn filtered_and_unfiltered_top_games_rank_alike() {
    let store = fresh();
    let start = PositionKey(AnyPosition::new(Variant::Xiangqi).key());
    let all = store.games_through(start, None).unwrap();
    let ids = |f: Filter| -> Vec<i64> {
        let mut q = Query::at(line(Variant::Xiangqi, None, &[], None).unwrap());
        q.filter = f;
        q.top_games = 100;
        let a = explore(&store, &q).unwrap();
        a.top_games.iter().map(|g| g.id).collect()
    };
    assert_eq!(ids(Filter::default()), rank(&all, true));
    let cup: Vec<GameThrough> = all
        .iter()
        .filter(|g| g.event.as_deref() == Some("Placeholder Cup"))
        .cloned()
        .collect();
    assert_eq!(cup.len(), 4);
    let got = ids(Filter {
        event: Some("placeholder".into()),
        ..Filter::default()
    });
    assert_eq!(got, rank(&cup, true));
    // Known results first: Eta - Theta (0-1, 2019) and 红方棋手 - 黑方棋手 (1-0, 2021) lead the
    // rated Epsilon - Zeta * and ? - ? * (a `?` is read as no name).
    let names: Vec<Option<String>> = got
        .iter()
        .map(|id| all.iter().find(|g| g.id == *id).unwrap().first.clone())
        .collect();
    assert_eq!(
        names,
        [Some("Eta"), Some("红方棋手"), Some("Epsilon"), None].map(|n| n.map(str::to_string))
    );
}
