//! The move table hides nothing: at every position the bundled sample reaches within a few
//! plies, the listed moves plus "others" hold every move played there and every game, under
//! every limit and minimum, checked against a replay of the sample's games made here (not
//! with the explorer's or the store's counting).

use std::collections::{BTreeMap, HashMap};

use qipu::{
    explorer::{explore, Query, EXPLORE_RULES},
    formats::read_path,
    notation::Line,
    pipeline::{import, ImportOptions},
    rules::{AnyPosition, Move, Variant},
    store::Store,
};

use crate::common::fixture;

/// How deep the scan walks each game.
const PLIES: usize = 6;

/// One position the scan met: a line that reaches it, and the games per move played there
/// (each game once per position, with the move of its last visit, as the store counts).
struct Seen {
    line: Vec<Move>,
    start_fen: String,
    variant: Variant,
    moves: BTreeMap<String, u64>,
}

/// Replays every stored game's first plies and counts, per position, each move's games.
fn scan(store: &Store) -> HashMap<u64, Seen> {
    let mut out: HashMap<u64, Seen> = HashMap::new();
    for variant in Variant::ALL {
        for g in store.games(variant) {
            let g = g.unwrap();
            let mut pos = AnyPosition::from_fen(variant, &g.start_fen).unwrap();
            // The position → (line to it, move of the last visit) of this game.
            let mut visits: Vec<(u64, Vec<Move>, Move)> = Vec::new();
            for (ply, &m) in g.moves.iter().enumerate().take(PLIES) {
                let key = pos.key();
                match visits.iter_mut().find(|v| v.0 == key) {
                    Some(v) => v.2 = m,
                    None => visits.push((key, g.moves[..ply].to_vec(), m)),
                }
                pos.play_unchecked(m);
            }
            for (key, line, m) in visits {
                let seen = out.entry(key).or_insert_with(|| Seen {
                    line,
                    start_fen: g.start_fen.clone(),
                    variant,
                    moves: BTreeMap::new(),
                });
                *seen.moves.entry(m.to_string()).or_default() += 1;
            }
        }
    }
    out
}

/// The bundled sample plus wukong's Hu Ronghua file, whose games have no result (so that
/// some moves are played by no decided game).
fn sample() -> Store {
    let games: Vec<_> = read_path(&fixture("../../data"))
        .chain(read_path(&fixture("wukong")))
        .filter_map(Result::ok)
        .collect();
    assert!(games.len() > 4000, "the sample has {} games", games.len());
    let mut store = Store::open_in_memory().unwrap();
    import(
        &mut store,
        games.into_iter().map(Ok),
        &ImportOptions::default(),
        |_| {},
    )
    .unwrap();
    store
}

/// Listed moves plus "others" equal the position's moves and games, at every position of
/// the scan, for limits 0 (all), 1, 2, 5 and minimums 0, 1, 3, 50; with the default minimum
/// and no limit every move played is listed, those whose games have no result among them.
#[test]
fn listed_moves_and_others_add_up_everywhere() {
    let store = sample();
    let seen = scan(&store);
    assert!(seen.len() > 500, "only {} positions", seen.len());
    let mut unresolved_listed = 0;
    for s in seen.values() {
        let start = AnyPosition::from_fen(s.variant, &s.start_fen)
            .unwrap()
            .with_janggi_rules(EXPLORE_RULES);
        let texts: Vec<String> = s.line.iter().map(Move::to_string).collect();
        let line = Line::parse(s.variant, Some(&start.fen()), &texts, EXPLORE_RULES).unwrap();
        let moves = s.moves.len();
        let games: u64 = s.moves.values().sum();
        for limit in [0, 1, 2, 5] {
            for min_games in [0, 1, 3, 50] {
                let mut q = Query::at(line.clone());
                q.limit = limit;
                q.min_games = min_games;
                q.top_games = 0;
                let a = explore(&store, &q).unwrap();
                let (o_moves, o_games) = a.others.map_or((0, 0), |o| (o.moves, o.counts.games));
                let listed: u64 = a.moves.iter().map(|m| m.counts.games).sum();
                let at = format!("{:?} limit {limit} min {min_games}", texts);
                assert_eq!(a.moves.len() + o_moves, moves, "moves at {at}");
                assert_eq!(listed + o_games, games, "games at {at}");
                if limit > 0 {
                    assert!(a.moves.len() <= limit, "{at}");
                }
                assert!(a.moves.iter().all(|m| m.counts.games >= min_games), "{at}");
                if limit == 0 && min_games <= 1 {
                    assert_eq!(a.moves.len(), moves, "a move is hidden at {at}");
                    for m in &a.moves {
                        assert_eq!(Some(&m.counts.games), s.moves.get(&m.mv.to_string()));
                        let c = m.counts;
                        if c.first_wins + c.draws + c.second_wins == 0 {
                            unresolved_listed += 1;
                        }
                    }
                }
            }
        }
    }
    // The games without results (the wukong file) play moves no decided game does.
    assert!(
        unresolved_listed > 0,
        "no move without a decided game was checked"
    );
}
