//! The store on disk: schema versions, read-only handles, bad data; and the `qipu import` /
//! `qipu explore` commands end to end, including an import killed mid-way.

use qipu::{
    formats::{Game, MoveNode, Source},
    rules::Variant,
    store::{GameRecord, Store, StoreError, SCHEMA_VERSION},
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

#[test]
fn corrupt_rows_are_errors_not_panics() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.db");
    {
        let mut s = Store::open(&path).unwrap();
        s.write_batch(&[game("h2e2 h9g7")]).unwrap();
    }
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(
        "UPDATE games SET moves = x'ffffff'; UPDATE moves SET mv = 70000; \
         UPDATE position_games SET mv = -5;",
    )
    .unwrap();
    drop(conn);
    let s = Store::open_read_only(&path).unwrap();
    assert!(matches!(s.game(1), Err(StoreError::Corrupt(_))));
    assert!(s.games(Variant::Xiangqi).next().unwrap().is_err());
    let start = qipu::rules::AnyPosition::new(Variant::Xiangqi).key();
    assert!(matches!(s.position(start), Err(StoreError::Corrupt(_))));
    assert!(s.games_through(start, None).is_err());
    let q = qipu::explorer::Query {
        variant: "xiangqi".into(),
        ..Default::default()
    };
    assert!(qipu::explorer::explore(&s, &q).is_err());
}

#[test]
fn explorer_rejects_bad_queries() {
    let s = Store::open_in_memory().unwrap();
    let bad = |q: qipu::explorer::Query| {
        matches!(
            qipu::explorer::explore(&s, &q),
            Err(qipu::explorer::Error::Query(_))
        )
    };
    let q = |f: &dyn Fn(&mut qipu::explorer::Query)| {
        let mut q = qipu::explorer::Query {
            variant: "xiangqi".into(),
            ..Default::default()
        };
        f(&mut q);
        q
    };
    assert!(bad(q(&|q| q.variant = "chess".into())));
    assert!(bad(q(&|q| q.fen = Some("not a fen".into()))));
    assert!(bad(q(&|q| q.moves = vec!["h2e2".into(), "h2e2".into()])));
    assert!(bad(q(&|q| {
        q.player = Some("x".into());
        q.side = Some("left".into());
    })));
    // An empty database answers with zero games.
    let e = qipu::explorer::explore(&s, &q(&|_| {})).unwrap();
    assert_eq!((e.games, e.moves.len(), e.opening), (0, 0, None));
}
