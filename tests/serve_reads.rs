//! The read paths `qipu serve` leans on: one snapshot per answer ([`Store::snapshot`]) and
//! the games after a move counted with one look at the position ([`Store::games_after`]).

use qipu::{
    formats::{Game, MoveNode, Source},
    rules::{AnyPosition, Variant},
    store::{BucketFilter, GameRecord, PositionKey, Store, StoreError},
};

fn game(moves: &str, date: &str, index: usize) -> GameRecord {
    let mut g = Game::new(
        Variant::Xiangqi,
        Source {
            file: "t.pgn".into(),
            index,
        },
    );
    g.moves = moves.split_whitespace().map(MoveNode::new).collect();
    g.tags.date = Some(date.to_string());
    GameRecord::from_game(&g, 40).unwrap()
}

fn start() -> PositionKey {
    PositionKey(AnyPosition::new(Variant::Xiangqi).key())
}

fn after(moves: &str) -> PositionKey {
    let mut p = AnyPosition::new(Variant::Xiangqi);
    for m in moves.split_whitespace() {
        p.play(m.parse().unwrap()).unwrap();
    }
    PositionKey(p.key())
}

fn games_at_start(s: &Store) -> Result<u64, StoreError> {
    s.games_at(start(), &BucketFilter::default())
}

/// Inside a snapshot, another handle's commit is not seen; after it, it is. Nested in a
/// transaction of its own connection, a snapshot runs in it.
#[test]
fn a_snapshot_reads_one_version_of_the_database() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.db");
    let mut writer = Store::open(&path).unwrap();
    writer.fix_max_ply(40).unwrap();
    writer
        .write_batch(&[game("h2e2 h9g7", "2020-01-01", 0)])
        .unwrap();
    let reader = Store::open_read_only(&path).unwrap();
    let (before, inside) = reader
        .snapshot(|| {
            let before = games_at_start(&reader)?;
            writer.write_batch(&[game("c3c4", "2021-01-01", 1)])?;
            Ok::<_, StoreError>((before, games_at_start(&reader)?))
        })
        .unwrap();
    assert_eq!((before, inside), (1, 1), "the commit is not seen inside");
    assert_eq!(games_at_start(&reader).unwrap(), 2, "and seen after");
    // An error inside ends the transaction too: the next snapshot begins one.
    let failed: Result<(), StoreError> =
        reader.snapshot(|| Err(StoreError::Corrupt("test".into())));
    assert!(failed.is_err());
    assert_eq!(reader.snapshot(|| games_at_start(&reader)).unwrap(), 2);
    let nested = reader
        .snapshot(|| reader.snapshot(|| games_at_start(&reader)))
        .unwrap();
    assert_eq!(nested, 2);
}

/// When the position after a move holds exactly the move's games, the move's filtered count
/// is the answer (no game read, whatever it is told); when it holds others too (a
/// transposition), they are counted under the filter.
#[test]
fn games_after_trusts_the_move_only_when_the_games_are_the_same() {
    let mut s = Store::open_in_memory().unwrap();
    // h2e2 h9g7 b0c2 and b0c2 h9g7 h2e2 reach the same position.
    s.write_batch(&[
        game("h2e2 h9g7 b0c2", "2019-05-01", 0),
        game("h2e2 h9g7 b0c2", "2021-05-01", 1),
        game("b0c2 h9g7 h2e2", "2022-05-01", 2),
    ])
    .unwrap();
    let since = BucketFilter {
        since: Some("2020".parse().unwrap()),
        ..BucketFilter::default()
    };
    let none = BucketFilter::default();
    // After h2e2: its 2 games and no other.
    let p = after("h2e2");
    assert_eq!(s.games_after(p, &since, 2, 1).unwrap(), 1);
    assert_eq!(
        s.games_after(p, &since, 2, 9).unwrap(),
        9,
        "the move's count is taken as it is told"
    );
    // After the three moves: 3 games, of which the move from h2e2 h9g7 played 2.
    let p = after("h2e2 h9g7 b0c2");
    assert_eq!(s.games_after(p, &since, 2, 9).unwrap(), 2, "counted");
    assert_eq!(s.games_after(p, &none, 2, 9).unwrap(), 3);
    assert_eq!(s.games_after(p, &since, 3, 9).unwrap(), 9);
    assert_eq!(s.games_at(p, &since).unwrap(), 2);
    // A position no game reached.
    assert_eq!(s.games_after(after("c3c4"), &since, 0, 5).unwrap(), 0);
}
