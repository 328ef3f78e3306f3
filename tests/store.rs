//! The store on disk: schema versions, read-only handles, bad data; and the `qipu import` /
//! `qipu explore` commands end to end, including an import killed mid-way.

use qipu::{
    formats::{Game, MoveNode, Source},
    rules::{AnyPosition, Variant},
    store::{GameRecord, PositionKey, Store, StoreError, SCHEMA_VERSION},
};

fn game(moves: &str) -> GameRecord {
    let mut g = Game::new(Variant::Xiangqi, Source::default());
    g.moves = moves.split_whitespace().map(MoveNode::new).collect();
    GameRecord::from_game(&g, 40).unwrap()
}

#[test]
fn schema_version_is_recorded_and_newer_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.db");
    {
        let mut s = Store::open(&path).unwrap();
        s.fix_max_ply(40).unwrap();
        s.write_batch(&[game("h2e2 h9g7")]).unwrap();
    }
    let conn = rusqlite::Connection::open(&path).unwrap();
    let v: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(v, SCHEMA_VERSION);
    let mode: String = conn
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    // Reopening applies nothing and keeps the data.
    let s = Store::open_read_only(&path).unwrap();
    assert_eq!(s.stats().unwrap().games[0].games, 1);
    drop(s);
    conn.pragma_update(None, "user_version", SCHEMA_VERSION + 1)
        .unwrap();
    drop(conn);
    assert!(matches!(Store::open(&path), Err(StoreError::Schema(_))));
    assert!(matches!(
        Store::open_read_only(&path),
        Err(StoreError::Schema(_))
    ));
}

/// A schema-1 database (three statistics tables, before `positions`) and a schema-2 one (a
/// `positions` row per position) keep only their games through the migrations: the
/// statistics are rebuilt from them, equal to a fresh import's, and the games keep their
/// source files.
#[test]
fn schema_1_database_is_migrated_with_its_statistics_rebuilt() {
    let dir = tempfile::tempdir().unwrap();
    let zip = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/wukong/Hu_Ronghua_1391_UCI_games.pgn.zip");
    let fresh = dir.path().join("fresh.db");
    let mut store = Store::open(&fresh).unwrap();
    let report = qipu::pipeline::import(
        &mut store,
        qipu::formats::read_path(&zip),
        &qipu::pipeline::ImportOptions::default(),
        |_| {},
    )
    .unwrap();
    assert_eq!(
        (
            report.imported + report.duplicates + report.merged,
            report.rejected
        ),
        (1391, 0)
    );
    drop(store);

    let old = dir.path().join("old.db");
    let conn = rusqlite::Connection::open(&old).unwrap();
    conn.execute_batch(include_str!("../schema/001_init.sql"))
        .unwrap();
    conn.execute("ATTACH ?1 AS cur", [fresh.to_str().unwrap()])
        .unwrap();
    conn.execute_batch(
        "INSERT INTO games SELECT g.id, g.hash, g.variant, s.path, g.source_index, g.event, \
         g.site, g.round, g.date, g.first, g.second, g.first_rating, g.second_rating, \
         g.result, g.ecco, g.opening, g.variation, g.first_formation, g.second_formation, \
         g.start_fen, g.plies, g.moves FROM cur.games g JOIN cur.sources s ON s.id = g.source; \
         INSERT INTO meta SELECT * FROM cur.meta; DETACH cur; PRAGMA user_version = 1;",
    )
    .unwrap();
    drop(conn);
    // The same games at schema 2, with stale positions rows that must not survive, nor their
    // pages.
    let v2 = dir.path().join("v2.db");
    std::fs::copy(&old, &v2).unwrap();
    let conn = rusqlite::Connection::open(&v2).unwrap();
    conn.execute_batch(include_str!("../schema/002_positions.sql"))
        .unwrap();
    conn.execute_batch("INSERT INTO positions VALUES (7, NULL, x'0100'); PRAGMA user_version = 2;")
        .unwrap();
    drop(conn);

    let dump = |path: &std::path::Path| {
        let s = Store::open_read_only(path).unwrap();
        let mut rows = Vec::new();
        s.for_each_position_move(|k, r| {
            rows.push((k, r.clone()));
            Ok(())
        })
        .unwrap();
        let start = qipu::rules::AnyPosition::new(Variant::Xiangqi).key();
        // Games by their source, not their id: the migration keeps the ids of the copies it
        // keeps (`store::copies`), where a fresh import numbers the kept ones without gaps.
        let top: Vec<qipu::formats::Source> = s
            .lookup(PositionKey(start), 20)
            .unwrap()
            .top
            .iter()
            .map(|g| s.game(g.id).unwrap().unwrap().source)
            .collect();
        let games: Vec<_> = s
            .games(Variant::Xiangqi)
            .map(|g| {
                let g = g.unwrap();
                (g.source, g.moves)
            })
            .collect();
        let stats = s.stats().unwrap();
        (rows, top, stats.positions, games, stats.size_bytes / 4096)
    };
    let want = dump(&fresh);
    assert!(want.0.len() > 30_000 && want.1.len() == 20 && want.3.len() as u64 == report.imported);
    for db in [&old, &v2] {
        assert!(Store::open_read_only(db).is_err(), "too old to read");
        drop(Store::open(db).unwrap());
        // Equal statistics and games, and the file no larger (the upgrade vacuums it).
        let got = dump(db);
        assert!(got.0 == want.0 && got.1 == want.1 && got.2 == want.2 && got.3 == want.3);
        assert!(got.4 <= want.4 + 2, "{} pages, fresh {}", got.4, want.4);
        // And it gives its free pages back on request from now on (2 = incremental).
        let conn = rusqlite::Connection::open(db).unwrap();
        let mode: i64 = conn
            .query_row("PRAGMA auto_vacuum", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, 2, "{}", db.display());
    }
}

/// Game ids best first: higher mean known rating, then later date, then smaller id.
pub(crate) fn independent_order(games: &[qipu::store::GameThrough]) -> Vec<i64> {
    let date_number = |d: &Option<String>| -> u64 {
        let d = d.as_deref().unwrap_or("");
        let mut p = d.split('-').map(|x| x.parse::<u64>().unwrap_or(0));
        p.next().unwrap_or(0) * 10_000 + p.next().unwrap_or(0) * 100 + p.next().unwrap_or(0)
    };
    let mut keyed: Vec<(u64, u64, i64)> = games
        .iter()
        .map(|g| {
            let known: Vec<u64> = [g.first_rating, g.second_rating]
                .into_iter()
                .flatten()
                .map(u64::from)
                .collect();
            let mean = if known.is_empty() {
                0
            } else {
                known.iter().sum::<u64>() / known.len() as u64
            };
            (mean, date_number(&g.date), g.id)
        })
        .collect();
    keyed.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
    keyed.iter().map(|k| k.2).collect()
}

/// The explorer's top-games order: games with a known result first, then those with real
/// names on both sides (not missing, not `?`, not the `红方棋手`/`黑方棋手` placeholders), each
/// group in [`independent_order`].
pub(crate) fn explorer_order(games: &[qipu::store::GameThrough]) -> Vec<i64> {
    let unreal = |n: &Option<String>| {
        let n = n.as_deref().unwrap_or("").trim();
        n.is_empty() || n.chars().all(|c| c == '?') || ["红方棋手", "黑方棋手"].contains(&n)
    };
    let group = |id: i64| {
        let g = games.iter().find(|g| g.id == id).unwrap();
        (g.result.is_none(), unreal(&g.first) || unreal(&g.second))
    };
    let mut order = independent_order(games);
    order.sort_by_key(|&id| group(id)); // stable: keeps the rating/date order in a group
    order
}

/// The best games through the start position of the bundled ccpd sample (679 games, more
/// than a summary keeps): the summary's list and the full count agree with an order computed
/// here from the games' results, names, ratings and dates ([`explorer_order`]: the store
/// keeps them in the explorer's order).
#[test]
fn best_games_from_the_summary_and_from_all_games_agree() {
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/ccpd");
    let mut store = Store::open_in_memory().unwrap();
    qipu::pipeline::import_chunks(
        &mut store,
        qipu::formats::chunks(&data),
        &qipu::pipeline::ImportOptions::default(),
        |_| {},
    )
    .unwrap();
    let start = qipu::rules::AnyPosition::new(Variant::Xiangqi).key();
    let all = store.games_through(PositionKey(start), None).unwrap();
    assert!(all.len() > qipu::store::TOP_KEPT + 100, "{}", all.len());
    let ids = |v: &[qipu::store::GameThrough]| v.iter().map(|g| g.id).collect::<Vec<_>>();
    let expected = explorer_order(&all);
    assert_eq!(ids(&all), expected);
    for n in [1, 10, qipu::store::TOP_KEPT, qipu::store::TOP_KEPT + 50] {
        let top = store.lookup(PositionKey(start), n).unwrap().top;
        assert_eq!(ids(&top), expected[..n], "top {n}");
    }
    // Each best game comes with the move it played in the start position.
    let first = &store.lookup(PositionKey(start), 1).unwrap().top[0];
    assert_eq!(first.mv, all[0].mv);
    assert!(first.mv.is_some());

    // The best games through a move (given in Chinese notation): those of the games through
    // the position that played it, in the order computed here; with `mirror`, also those of
    // the mirrored position that played the mirrored move.
    let after = |m: &str| {
        let mut p = qipu::rules::AnyPosition::new(Variant::Xiangqi);
        p.play_unchecked(m.parse().unwrap());
        p.key()
    };
    let playing = |key: u64, m: &str| -> Vec<qipu::store::GameThrough> {
        let m: qipu::rules::Move = m.parse().unwrap();
        let through = store.games_through(PositionKey(key), None).unwrap();
        through.into_iter().filter(|g| g.mv == Some(m)).collect()
    };
    let right = playing(after("h2e2"), "h9g7");
    let mut both = right.clone();
    both.extend(playing(after("b2e2"), "b9c7"));
    for (mirror, games) in [(false, right), (true, both)] {
        let l = qipu::explorer::line(Variant::Xiangqi, None, &["h2e2".to_string()], None).unwrap();
        let q = qipu::explorer::Query::new(
            l,
            qipu::explorer::Filter::default(),
            mirror,
            0,
            30,
            Some("马８进７"),
        )
        .unwrap();
        let got: Vec<i64> = qipu::explorer::explore(&store, &q)
            .unwrap()
            .top_games
            .iter()
            .map(|g| g.id)
            .collect();
        let mut want = explorer_order(&games);
        want.truncate(30);
        assert_eq!(got.len(), 30);
        assert_eq!(got, want, "mirror {mirror}");
    }
}

#[test]
fn read_only_refuses_a_foreign_file_and_cannot_write() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("other.db");
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute_batch("CREATE TABLE t (x)")
        .unwrap();
    assert!(matches!(
        Store::open_read_only(&path),
        Err(StoreError::Schema(_))
    ));
    let good = dir.path().join("good.db");
    drop(Store::open(&good).unwrap());
    let mut ro = Store::open_read_only(&good).unwrap();
    assert!(ro.write_batch(&[game("h2e2")]).is_err());
}

/// 42 distinct two-ply games: the start position is busy (it has a summary row).
fn busy_start() -> Vec<GameRecord> {
    let firsts = ["h2e2", "b2e2", "c3c4", "g3g4", "h0g2", "b0c2"];
    let replies = ["h9g7", "b9c7", "c6c5", "g6g5", "h7e7", "b7e7", "a9a8"];
    firsts
        .iter()
        .flat_map(|f| replies.iter().map(move |r| game(&format!("{f} {r}"))))
        .collect()
}

/// Each source file is stored once, and only if a game stored comes from it.
#[test]
fn source_files_are_stored_once_and_only_with_their_games() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.db");
    let from = |file: &str, moves: &[&str]| -> Vec<GameRecord> {
        moves
            .iter()
            .enumerate()
            .map(|(i, m)| {
                let mut r = game(m);
                r.source = Source {
                    file: file.into(),
                    index: i,
                };
                r
            })
            .collect()
    };
    let mut s = Store::open(&path).unwrap();
    s.write_batch(&from("a.pgn", &["h2e2", "c3c4", "b2e2"]))
        .unwrap();
    // The same games from another path: duplicates, the path is not kept.
    assert_eq!(
        s.write_batch(&from("b.pgn", &["h2e2", "c3c4"]))
            .unwrap()
            .imported,
        0
    );
    // A new game from a third path, then from the first again.
    assert_eq!(
        s.write_batch(&from("c.pgn", &["h2e2", "g3g4"]))
            .unwrap()
            .imported,
        1
    );
    assert_eq!(
        s.write_batch(&from("a.pgn", &["b0c2"])).unwrap().imported,
        1
    );
    drop(s);
    let conn = rusqlite::Connection::open(&path).unwrap();
    let paths: Vec<String> = conn
        .prepare("SELECT path FROM sources ORDER BY id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(paths, ["a.pgn", "c.pgn"]);
    let s = Store::open_read_only(&path).unwrap();
    let files: Vec<(String, usize)> = s
        .games(Variant::Xiangqi)
        .map(|g| {
            let g = g.unwrap();
            (g.source.file, g.source.index)
        })
        .collect();
    let want = [
        ("a.pgn", 0),
        ("a.pgn", 1),
        ("a.pgn", 2),
        ("c.pgn", 1),
        ("a.pgn", 0),
    ];
    assert_eq!(files, want.map(|(f, i)| (f.to_string(), i)));
}

#[test]
fn corrupt_rows_are_errors_not_panics() {
    let dir = tempfile::tempdir().unwrap();
    let start = qipu::rules::AnyPosition::new(Variant::Xiangqi).key();
    let q = crate::pipeline::line_query(Variant::Xiangqi, &[]);
    // A bad move list and a truncated range row, a summary of an unknown format, a summary
    // cut short, a busy position without its row, and links to games that are not stored.
    let damage = [
        "UPDATE games SET moves = x'ffffff'; UPDATE position_ranges SET entries = x'0180';",
        "UPDATE positions SET summary = x'02';",
        "UPDATE positions SET summary = x'020105';",
        "DELETE FROM positions;",
        "DELETE FROM games;",
    ];
    for (i, sql) in damage.iter().enumerate() {
        let path = dir.path().join(format!("c{i}.db"));
        {
            let mut s = Store::open(&path).unwrap();
            assert_eq!(s.write_batch(&busy_start()).unwrap().imported, 42);
            assert_eq!(s.position(PositionKey(start)).unwrap().len(), 6, "{sql}");
        }
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch(sql).unwrap();
        drop(conn);
        let s = Store::open_read_only(&path).unwrap();
        if i == 0 {
            assert!(matches!(s.game(1), Err(StoreError::Corrupt(_))));
            assert!(s.games(Variant::Xiangqi).next().unwrap().is_err());
        }
        match s.position(PositionKey(start)) {
            Err(StoreError::Corrupt(m)) => {
                // A damaged blob names its position.
                assert!(i == 4 || m.contains(&format!("{start:016x}")), "{m}");
            }
            Ok(_) if i == 4 => {} // the summary alone answers the moves
            other => panic!("{sql}: {other:?}"),
        }
        assert!(s.games_through(PositionKey(start), None).is_err(), "{sql}");
        assert!(qipu::explorer::explore(&s, &q).is_err(), "{sql}");
        assert!(s.stats().is_err() || i == 4, "{sql}");
        // The positions after one move are quiet (at most seven games).
        let after = {
            let mut p = qipu::rules::AnyPosition::new(Variant::Xiangqi);
            p.play("h2e2".parse().unwrap()).unwrap();
            p.key()
        };
        assert!(
            s.games_through(PositionKey(after), None).is_err() || i == 1 || i == 2 || i == 3,
            "{sql}"
        );
    }
}

/// A busy position's games are read by one scan of their id range; a game missing from the
/// middle of it is an error naming the game, not a shorter list.
#[test]
fn a_game_missing_under_a_busy_position_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.db");
    let records: Vec<GameRecord> = (0..300)
        .map(|i| {
            let mut r = game("h2e2 h9g7");
            r.tags.first = Some(format!("player {i}"));
            r.hash ^= i as u64 + 1;
            r
        })
        .collect();
    let start = qipu::rules::AnyPosition::new(Variant::Xiangqi).key();
    {
        let mut s = Store::open(&path).unwrap();
        assert_eq!(s.write_batch(&records).unwrap().imported, 300);
        let all = s.games_through(PositionKey(start), None).unwrap();
        assert_eq!(all.len(), 300);
        assert_eq!(
            all.iter()
                .filter(|g| g.first.as_deref() == Some("player 7"))
                .count(),
            1
        );
    }
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute("DELETE FROM games WHERE id = 150", [])
        .unwrap();
    drop(conn);
    let s = Store::open_read_only(&path).unwrap();
    match s.games_through(PositionKey(start), None) {
        Err(StoreError::Corrupt(m)) => assert!(m.contains("game 150"), "{m}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn explorer_rejects_bad_queries() {
    use qipu::explorer::{line, Filter, Query};
    let s = Store::open_in_memory().unwrap();
    let texts = |v: &[&str]| v.iter().map(|t| t.to_string()).collect::<Vec<_>>();
    assert!(qipu::explorer::parse_variant("chess").is_err());
    assert!(line(Variant::Xiangqi, Some("not a fen"), &[], None).is_err());
    assert!(line(Variant::Xiangqi, None, &texts(&["h2e2", "h2e2"]), None).is_err());
    assert!(qipu::explorer::parse_side("left").is_err());
    let start = || line(Variant::Xiangqi, None, &[], None).unwrap();
    let side_alone = Filter {
        side: Some(qipu::rules::Color::First),
        ..Filter::default()
    };
    assert!(Query::new(start(), side_alone, false, 0, 10, None).is_err());
    assert!(Query::new(start(), Filter::default(), false, 0, 10, Some("h2h8")).is_err());
    // An empty database answers with zero games, and says so.
    let e = crate::pipeline::explore(&s, &Query::at(start())).unwrap();
    assert_eq!((e.games, e.moves.len(), e.opening), (0, 0, None));
    assert_eq!(e.no_games.as_deref(), Some("empty_database"));
}

mod cli {
    use std::{
        path::{Path, PathBuf},
        process::{Command, Stdio},
        time::{Duration, Instant},
    };

    use qipu::{rules::Variant, store::Store};
    use serde_json::Value;

    use crate::common::fixture;

    fn qipu(args: &[&str]) -> (i32, Value) {
        let out = Command::new(env!("CARGO_BIN_EXE_qipu"))
            .args(args)
            .output()
            .unwrap();
        let code = out.status.code().unwrap_or(-1);
        let json = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
        (code, json)
    }

    fn explore(db: &str, extra: &[&str]) -> Value {
        let mut args = vec!["explore", "--db", db, "--json"];
        args.extend_from_slice(extra);
        let (code, v) = qipu(&args);
        assert_eq!(code, 0, "explore {extra:?}");
        v
    }

    /// (move, games, first_wins, draws, second_wins) of every move in an explore answer.
    fn moves(v: &Value) -> Vec<(String, u64, u64, u64, u64)> {
        v["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                (
                    m["move"].as_str().unwrap().to_string(),
                    m["games"].as_u64().unwrap(),
                    m["first_wins"].as_u64().unwrap(),
                    m["draws"].as_u64().unwrap(),
                    m["second_wins"].as_u64().unwrap(),
                )
            })
            .collect()
    }

    fn totals(v: &Value) -> [u64; 4] {
        ["games", "first_wins", "draws", "second_wins"].map(|k| v[k].as_u64().unwrap())
    }

    fn mv(m: &str, g: u64, f: u64, d: u64, s: u64) -> (String, u64, u64, u64, u64) {
        (m.to_string(), g, f, d, s)
    }

    /// The fixtures' expected numbers are worked out by hand in `tests/data/store/README.md`'s
    /// terms: five distinct legal games (g1–g5), one duplicate, one illegal game.
    #[test]
    fn import_then_explore_the_fixtures() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("f.db");
        let db = db.to_str().unwrap();
        let src = fixture("store");
        // --strict: the illegal game is rejected whole (else it is kept up to its bad move:
        // tests/truncated.rs).
        let import = || {
            qipu(&[
                "import",
                src.to_str().unwrap(),
                "--db",
                db,
                "--json",
                "--strict",
            ])
        };
        let (code, report) = import();
        assert_eq!(code, 1, "one game is rejected");
        assert_eq!(report["files"], 3);
        assert_eq!(report["games_read"], 7);
        assert_eq!(report["imported"], 5);
        assert_eq!(report["duplicates"], 1);
        assert_eq!(report["rejected"], 1);
        let err = &report["errors"][0];
        assert!(err["file"].as_str().unwrap().ends_with("c.pgn"));
        assert_eq!(
            (err["game"].as_u64(), err["ply"].as_u64()),
            (Some(0), Some(3))
        );
        assert!(err["reason"].as_str().unwrap().contains("h2h9"));

        let start = explore(db, &[]);
        assert_eq!(totals(&start), [5, 2, 1, 2]);
        assert_eq!(
            moves(&start),
            vec![
                mv("h2e2", 2, 1, 1, 0),
                mv("b2e2", 1, 1, 0, 0),
                mv("c3c4", 1, 0, 0, 1),
                mv("f0e1", 1, 0, 0, 1),
            ]
        );
        // Three of the five games are tagged B00: short of the two thirds that name a position.
        assert!(start["opening"].is_null(), "{}", start["opening"]);
        assert_eq!(start["moves"][0]["notation"]["wxf"], "C2.5");
        // The side playing the move (Red: 2400 in a.pgn game 1, game 2 unrated) and its
        // opponent (Black: 2300).
        assert_eq!(start["moves"][0]["avg_rating"], 2400.0);
        assert_eq!(start["moves"][0]["avg_opponent_rating"], 2300.0);
        assert_eq!(start["moves"][0]["last_date"], "2001-05-02");
        assert_eq!(start["key"].as_str().unwrap().len(), 16);
        let top: Vec<&str> = start["top_games"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["date"].as_str().unwrap())
            .collect();
        assert_eq!(
            top,
            [
                "2001-05-01",
                "2003-01-12",
                "2003-01-10",
                "2001-05-03",
                "2001-05-02"
            ]
        );
        assert_eq!(start["top_games"][0]["first"], "Alpha");
        assert_eq!(start["top_games"][0]["result"], "1-0");

        // After 炮二平五 (any notation in): Black to move, score for Black.
        let after = explore(db, &["--moves", "炮二平五"]);
        // Both games through 炮二平五 are tagged B00, but one ply is not B00's line (中炮局 is
        // told apart by Black's reply: 2 plies, `data/ecco-depth.tsv`): no name yet.
        assert!(after["opening"].is_null(), "{}", after["opening"]);
        let reply = explore(db, &["--moves", "炮二平五", "马８进７"]);
        assert_eq!(reply["opening"]["ecco"], "B00");
        assert_eq!(reply["opening"]["name"], "中炮局");
        assert_eq!(
            moves(&after),
            vec![mv("b9c7", 1, 0, 1, 0), mv("h9g7", 1, 1, 0, 0)]
        );
        let scores: Vec<f64> = after["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["score"].as_f64().unwrap())
            .collect();
        assert_eq!(scores, [0.5, 0.0]);

        // g1 and g2 transpose after four plies; g2 ends there.
        let t = explore(db, &["--moves", "h2e2", "b9c7", "h0g2", "h9g7"]);
        assert_eq!(totals(&t), [2, 1, 1, 0]);
        assert_eq!(moves(&t), vec![mv("i0h0", 1, 1, 0, 0)]);

        // Mirror: b2e2 (g5, answered h9g7 = mirrored b9c7) joins h2e2.
        let m = explore(db, &["--moves", "h2e2", "--mirror"]);
        assert_eq!(totals(&m), [3, 2, 1, 0]);
        assert_eq!(
            moves(&m),
            vec![mv("b9c7", 2, 1, 1, 0), mv("h9g7", 1, 1, 0, 0)]
        );

        // Filters.
        // Alpha has Black in g2 (Gamma–Alpha, h2e2, draw) and g4 (Delta–Alpha, f0e1, 0-1).
        let f = explore(db, &["--player", "alpha", "--side", "second"]);
        assert_eq!(
            moves(&f),
            vec![mv("f0e1", 1, 0, 0, 1), mv("h2e2", 1, 0, 1, 0)]
        );
        let f = explore(db, &["--since", "2003"]);
        assert_eq!(totals(&f), [2, 1, 0, 1]);
        let f = explore(db, &["--min-rating", "2300"]);
        assert_eq!(moves(&f), vec![mv("h2e2", 1, 1, 0, 0)]);
        let f = explore(db, &["--event", "club", "--limit", "1"]);
        assert_eq!(totals(&f), [2, 1, 0, 1]);
        assert_eq!(moves(&f).len(), 1);

        // Re-import: nothing changes.
        let (code, again) = import();
        assert_eq!(code, 1);
        assert_eq!(
            (again["imported"].as_u64(), again["duplicates"].as_u64()),
            (Some(0), Some(6))
        );
        assert_eq!(explore(db, &[]), start);

        // Human output, export and stats run.
        let out = Command::new(env!("CARGO_BIN_EXE_qipu"))
            .args(["explore", "--db", db])
            .output()
            .unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            text.contains("炮二平五") && text.contains("5 games"),
            "{text}"
        );
        let games_csv = dir.path().join("g.csv");
        let pos_csv = dir.path().join("p.csv");
        let (code, _) = qipu(&[
            "export",
            "--db",
            db,
            "--games",
            games_csv.to_str().unwrap(),
            "--positions",
            pos_csv.to_str().unwrap(),
        ]);
        assert_eq!(code, 0);
        let mut r = csv::Reader::from_path(&games_csv).unwrap();
        assert_eq!(r.records().count(), 5);
        let mut r = csv::Reader::from_path(&pos_csv).unwrap();
        let rows: Vec<csv::StringRecord> = r.records().map(|r| r.unwrap()).collect();
        let start_rows: u64 = rows
            .iter()
            .filter(|r| &r[0] == start["key"].as_str().unwrap())
            .map(|r| r[2].parse::<u64>().unwrap())
            .sum();
        assert_eq!(start_rows, 5);
        let (code, stats) = qipu(&["stats", "--db", db, "--json"]);
        assert_eq!(code, 0);
        assert_eq!(stats["games"]["xiangqi"], 5);
        assert_eq!(stats["max_ply"], 40);
    }

    #[test]
    fn fatal_errors_exit_2() {
        let (code, _) = qipu(&["import", "/no/such/path", "--db", "/tmp/never.db"]);
        assert_eq!(code, 2);
        let (code, _) = qipu(&["explore", "--db", "/no/such.db"]);
        assert_eq!(code, 2);
    }

    /// Everything a database says, in a form that does not depend on row ids.
    fn dump(db: &Path) -> (Vec<String>, Vec<String>) {
        let s = Store::open_read_only(db).unwrap();
        let mut rows = Vec::new();
        s.for_each_position_move(|k, r| {
            rows.push(format!("{k} {r:?}"));
            Ok(())
        })
        .unwrap();
        let mut games: Vec<String> = Variant::ALL
            .iter()
            .flat_map(|&v| s.games(v).map(|g| g.unwrap()))
            .map(|g| format!("{:?} {:?} {:?}", g.moves, g.tags, g.result))
            .collect();
        games.sort();
        (rows, games)
    }

    fn count_games(db: &Path) -> Option<u64> {
        let s = Store::open_read_only(db).ok()?;
        s.stats()
            .ok()
            .map(|st| st.games.iter().map(|v| v.games).sum())
    }

    /// Kills a real `qipu import` child after its first committed batches, runs the same
    /// import again, and compares with a clean import of the bundled sample.
    #[test]
    fn killed_import_then_rerun_equals_clean_import() {
        let data: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR")).join("data");
        let dir = tempfile::tempdir().unwrap();
        let clean = dir.path().join("clean.db");
        let (code, report) = qipu(&[
            "import",
            data.to_str().unwrap(),
            "--db",
            clean.to_str().unwrap(),
            "--json",
        ]);
        assert_eq!(code, 0, "{report}");
        let total = count_games(&clean).unwrap();
        assert!(total > 1000);

        let mut killed_mid_way = false;
        for attempt in 0..5 {
            let db = dir.path().join(format!("killed{attempt}.db"));
            let mut child = Command::new(env!("CARGO_BIN_EXE_qipu"))
                .args([
                    "import",
                    data.to_str().unwrap(),
                    "--db",
                    db.to_str().unwrap(),
                ])
                .args(["--batch-games", "20"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            let started = Instant::now();
            let at_kill = loop {
                if let Some(n) = count_games(&db).filter(|&n| n > 0) {
                    // Let it run into the middle of a later batch, then kill -9.
                    std::thread::sleep(Duration::from_millis(3 * attempt));
                    child.kill().unwrap();
                    break n;
                }
                if started.elapsed() > Duration::from_secs(60)
                    || child.try_wait().unwrap().is_some()
                {
                    break total;
                }
                std::thread::sleep(Duration::from_millis(2));
            };
            child.wait().unwrap();
            let after_kill = count_games(&db).unwrap_or(0);
            if at_kill >= total || after_kill >= total {
                continue; // finished before the kill: try again, killing sooner
            }
            killed_mid_way = true;
            let (code, _) = qipu(&[
                "import",
                data.to_str().unwrap(),
                "--db",
                db.to_str().unwrap(),
            ]);
            assert_eq!(code, 0);
            assert_eq!(
                dump(&db),
                dump(&clean),
                "kill after {after_kill} of {total} games"
            );
            break;
        }
        assert!(
            killed_mid_way,
            "the import always finished before it could be killed"
        );
    }
}

mod shared {
    use std::{
        collections::HashSet,
        io::{BufRead, BufReader},
        path::Path,
        process::Command,
        time::Instant,
    };

    use qipu::{
        rules::{AnyPosition, Color, Move, Outcome, Variant},
        store::Store,
    };
    use serde_json::Value;

    use crate::{
        common::{fs_move, shared_dir},
        pipeline::{expected, explore, line_query, observed, TestGame},
    };

    fn import(paths: &[&Path], db: &Path, extra: &[&str]) -> (i32, Value) {
        let out = Command::new(env!("CARGO_BIN_EXE_qipu"))
            .arg("import")
            .args(paths)
            .args(["--db", db.to_str().unwrap(), "--json"])
            .args(extra)
            .output()
            .unwrap();
        let v = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
        (out.status.code().unwrap_or(-1), v)
    }

    /// `[Name "value"]` headers of a Big5 PGN, decoded here without qipu's readers.
    fn headers(path: &Path) -> Vec<(String, String)> {
        let bytes = std::fs::read(path).unwrap();
        let (text, _, _) = encoding_rs::BIG5.decode(&bytes);
        text.lines()
            .filter_map(|l| {
                let l = l.trim().strip_prefix('[')?.strip_suffix(']')?;
                let (name, rest) = l.split_once(' ')?;
                Some((name.to_string(), rest.trim().trim_matches('"').to_string()))
            })
            .collect()
    }

    /// The Asian Cup games of the bundled sample, read from the shared reference file (an
    /// independent reading: FEN + moves in Fairy-Stockfish squares + result), counted by
    /// `expected` and compared with `qipu import` + `explore` over the same PGN files.
    #[test]
    #[ignore = "needs ../shared (run by .ci/run)"]
    fn explore_equals_the_reference_reading_of_the_sample() {
        let Some(shared) = shared_dir() else { return };
        let src = shared.join("data/xiangqi/ccpd/Dataset/對局/大師對局/以賽事分類/亞洲杯");
        let reference = shared.join("reference/xiangqi-ccpd.jsonl.gz");
        let gz = flate2::read::GzDecoder::new(std::fs::File::open(reference).unwrap());
        let mut seen = HashSet::new();
        let mut games = Vec::new();
        for line in BufReader::new(gz).lines() {
            let r: Value = serde_json::from_str(&line.unwrap()).unwrap();
            let file = r["file"].as_str().unwrap();
            if !file.contains("/亞洲杯/") || r["status"] != "ok" {
                continue;
            }
            let h = headers(&shared.join(file));
            let tag = |n: &str| h.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone());
            let moves: Vec<Move> = r["moves"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| fs_move(m.as_str().unwrap()))
                .collect();
            let result = match r["result"].as_str() {
                Some("1-0") => Some(Outcome::Decisive {
                    winner: Color::First,
                }),
                Some("0-1") => Some(Outcome::Decisive {
                    winner: Color::Second,
                }),
                Some("1/2-1/2") => Some(Outcome::Draw),
                _ => None,
            };
            // qipu's rule for one game (schema README): 30 plies or more, the same start,
            // moves and result; a shorter game also the same players and date.
            let id = if moves.len() >= 30 {
                (moves.clone(), None, None, None, format!("{result:?}"))
            } else {
                let r = format!("{result:?}");
                (moves.clone(), tag("Red"), tag("Black"), tag("Date"), r)
            };
            if !seen.insert(id) {
                continue;
            }
            games.push(TestGame {
                variant: Variant::Xiangqi,
                moves,
                first: None,
                second: None,
                date: None,
                ratings: [None, None],
                result,
                event: None,
                ecco: None,
            });
        }
        assert!(games.len() > 500, "{} games", games.len());
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("asian-cup.db");
        let (code, report) = import(&[&src], &db, &[]);
        assert_eq!(code, 0, "{report}");
        assert_eq!(report["imported"].as_u64(), Some(games.len() as u64));
        let store = Store::open_read_only(&db).unwrap();
        let mut probes = vec![Vec::new()];
        for g in games.iter().step_by(25) {
            for n in [1, 2, 4, 8, 16, 30] {
                if n <= g.moves.len() {
                    probes.push(g.moves[..n].to_vec());
                }
            }
        }
        for line in &probes {
            let mut pos = AnyPosition::new(Variant::Xiangqi);
            for &m in line {
                pos.play_unchecked(m);
            }
            let want = expected(&games, pos.key(), 40, |_| true);
            let texts: Vec<String> = line.iter().map(|m| m.to_string()).collect();
            let q = line_query(Variant::Xiangqi, &texts);
            let got = explore(&store, &q).unwrap();
            assert_eq!(observed(&got), want, "after {line:?}");
        }
        println!(
            "{} positions checked against the reference reading",
            probes.len()
        );
    }

    fn raw_size(dir: &Path) -> u64 {
        let mut total = 0;
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                total += raw_size(&p);
            } else {
                total += e.metadata().map(|m| m.len()).unwrap_or(0);
            }
        }
        total
    }

    /// Imports every collection in `../shared/data` into one database and prints games/s,
    /// peak memory, database size and lookup time.
    #[test]
    #[ignore = "needs ../shared (run by .ci/run)"]
    fn whole_shared_corpus_import() {
        let Some(shared) = shared_dir() else { return };
        let data = shared.join("data");
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("all.db");
        let (code, r) = import(&[&data], &db, &[]);
        assert!(code == 0 || code == 1, "fatal: {r}");
        let mib = |v: &Value| v.as_f64().unwrap_or(0.0) / 1048576.0;
        let raw = raw_size(&data) as f64 / 1048576.0;
        println!(
            "whole corpus: {} games read, {} imported, {} duplicates, {} rejected, {} errors; \
             {:.1} s = {:.0} games/s; peak memory {:.0} MiB; database {:.1} MiB (raw input {:.1} MiB)",
            r["games_read"],
            r["imported"],
            r["duplicates"],
            r["rejected"],
            r["errors"].as_array().map_or(0, Vec::len),
            r["seconds"].as_f64().unwrap_or(0.0),
            r["games_per_second"].as_f64().unwrap_or(0.0),
            mib(&r["peak_rss_bytes"]),
            mib(&r["db_bytes"]),
            raw
        );
        assert!(r["imported"].as_u64().unwrap() > 40_000);
        assert!(mib(&r["peak_rss_bytes"]) < 1024.0);

        let store = Store::open_read_only(&db).unwrap();
        let mut lines = Vec::new();
        for v in Variant::ALL {
            for g in store.games(v).step_by(50).take(200) {
                let g = g.unwrap();
                if g.start_fen != v.start_fen() {
                    continue;
                }
                for n in [0, 4, 10, 20] {
                    if n <= g.moves.len() {
                        let moves: Vec<String> =
                            g.moves[..n].iter().map(|m| m.to_string()).collect();
                        lines.push(line_query(v, &moves));
                    }
                }
            }
        }
        let t = Instant::now();
        for q in &lines {
            explore(&store, q).unwrap();
        }
        let per = t.elapsed().as_secs_f64() / lines.len() as f64;
        println!(
            "explorer: {} lookups, {:.3} ms each ({:.0} lookups/s)",
            lines.len(),
            per * 1000.0,
            1.0 / per
        );
    }
}

/// A schema-11 file (moves as u16 codes, a UNIQUE index on the content hash; made by main at
/// 4c414d2, the last build that wrote it, see `tests/data/migrate/README.md`) migrates on
/// open: every game reads back with the moves the old file held (read here from its u16
/// codes, not through the store), the moves are written as piece codes (an odd-length blob of
/// format 2, about half the bytes), the hash index is gone, and every position answers as a
/// fresh import of the same files does.
#[test]
fn a_schema_11_file_repacks_its_moves_and_drops_the_hash_index() {
    use qipu::rules::Move;
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("old.db");
    std::fs::copy(crate::common::fixture("migrate/schema11.db"), &old).unwrap();
    let (before, old_bytes) = {
        let conn = rusqlite::Connection::open(&old).unwrap();
        let mut stmt = conn
            .prepare("SELECT id, moves FROM games ORDER BY id")
            .unwrap();
        let rows: Vec<(i64, Vec<Move>)> = stmt
            .query_map([], |r| {
                let blob: Vec<u8> = r.get(1)?;
                assert_eq!(blob.len() % 2, 0);
                let moves = blob
                    .chunks_exact(2)
                    .map(|c| Move::from_u16(u16::from_le_bytes([c[0], c[1]])).unwrap())
                    .collect();
                Ok((r.get(0)?, moves))
            })
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        let bytes: i64 = conn
            .query_row("SELECT sum(length(moves)) FROM games", [], |r| r.get(0))
            .unwrap();
        (rows, bytes)
    };
    assert!(before.len() > 80);
    let migrated = Store::open(&old).unwrap();
    let mut after = Vec::new();
    for v in Variant::ALL {
        for g in migrated.games(v) {
            let g = g.unwrap();
            after.push((g.id, g.moves));
        }
    }
    after.sort_by_key(|g| g.0);
    assert_eq!(after, before);
    {
        let conn = rusqlite::Connection::open(&old).unwrap();
        let v: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(v, SCHEMA_VERSION);
        let (odd_format_2, bytes): (i64, i64) = conn
            .query_row(
                "SELECT sum(length(moves) % 2 = 1 AND substr(moves, 1, 1) = x'02'), \
                 sum(length(moves)) FROM games",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        assert_eq!(odd_format_2, before.len() as i64);
        assert!(bytes * 10 < old_bytes * 6, "{bytes} of {old_bytes}");
        let indexes: Vec<String> = conn
            .prepare(
                "SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'games' \
                 ORDER BY name",
            )
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(indexes, ["games_fen_starts", "games_identity"]);
    }
    // The answers are a fresh import's.
    let mut fresh = Store::open_in_memory().unwrap();
    let games: Vec<_> = ["hu80.pgn", "a.pgn", "b.pgn"]
        .iter()
        .flat_map(|f| qipu::formats::read_path(&crate::common::fixture(&format!("migrate/{f}"))))
        .collect();
    qipu::pipeline::import(
        &mut fresh,
        games.into_iter(),
        &qipu::pipeline::ImportOptions::default(),
        |_| {},
    )
    .unwrap();
    let mut rows = 0;
    migrated
        .for_each_position_move(|k, r| {
            rows += 1;
            assert!(fresh.lookup(k, 10)?.moves.contains(r), "{k}");
            Ok(())
        })
        .unwrap();
    let (sa, sb) = (migrated.stats().unwrap(), fresh.stats().unwrap());
    assert!(rows > 1000);
    assert_eq!(
        (sa.games, sa.positions, sa.position_games, sa.position_moves),
        (sb.games, sb.positions, sb.position_games, sb.position_moves)
    );
    for v in Variant::ALL {
        let x: Vec<_> = migrated.games(v).map(|g| g.unwrap()).collect();
        let y: Vec<_> = fresh.games(v).map(|g| g.unwrap()).collect();
        assert_eq!(x.len(), y.len());
        for (x, y) in x.iter().zip(&y) {
            assert_eq!((&x.moves, &x.tags, x.result), (&y.moves, &y.tags, y.result));
        }
    }
}

/// `has_games` keeps its answer only while the database is unchanged: a game written through
/// the same handle, or committed by another one, is seen at the next call.
#[test]
fn has_games_sees_writes_of_this_handle_and_of_another() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.db");
    let mut writer = Store::open(&path).unwrap();
    writer.fix_max_ply(40).unwrap();
    let reader = Store::open_read_only(&path).unwrap();
    assert!(!writer.has_games(Variant::Xiangqi).unwrap());
    assert!(!reader.has_games(Variant::Xiangqi).unwrap());
    writer.write_batch(&[game("h2e2 h9g7")]).unwrap();
    assert!(writer.has_games(Variant::Xiangqi).unwrap(), "own write");
    assert!(
        reader.has_games(Variant::Xiangqi).unwrap(),
        "another handle's commit"
    );
    assert!(!writer.has_games(Variant::Janggi).unwrap());
    assert!(!reader.has_games(Variant::Janggi).unwrap());
}

/// A game from a FEN start does not go through the variant's start position: `has_games`
/// still sees it (the partial index of schema 13), and only for its own variant.
#[test]
fn has_games_sees_a_game_that_starts_from_a_fen() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.db");
    let mut store = Store::open(&path).unwrap();
    store.fix_max_ply(40).unwrap();
    let mut g = Game::new(Variant::Xiangqi, Source::default());
    g.start_fen =
        Some("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 0 1".into());
    g.moves = "h9g7 h2e2".split_whitespace().map(MoveNode::new).collect();
    store
        .write_batch(&[GameRecord::from_game(&g, 40).unwrap()])
        .unwrap();
    let start = PositionKey(AnyPosition::new(Variant::Xiangqi).key());
    assert!(
        store.position(start).unwrap().is_empty(),
        "not through the start"
    );
    assert!(store.has_games(Variant::Xiangqi).unwrap());
    assert!(!store.has_games(Variant::Janggi).unwrap());
    let conn = rusqlite::Connection::open(&path).unwrap();
    let plans: Vec<String> = conn
        .prepare(
            "EXPLAIN QUERY PLAN SELECT 1 FROM games WHERE variant = 0 AND start_fen IS NOT NULL",
        )
        .unwrap()
        .query_map([], |r| r.get(3))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert!(
        plans.iter().any(|p| p.contains("games_fen_starts")),
        "the partial index answers it: {plans:?}"
    );
}
