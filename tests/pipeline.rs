//! Import → explore, checked against counts made here, independently of the store and the
//! explorer, over the same games (generated with the rules core from a fixed seed).

use std::collections::BTreeMap;

use qipu::{
    explorer::{json::ExploreJson, line, Query},
    formats::{ErrorKind, Game, GameError, MoveNode, Source},
    pipeline::{import, ImportOptions},
    rules::{AnyPosition, Color, Move, Outcome, Variant},
    store::PositionKey,
    store::Store,
};

use crate::common::Rng;

/// One generated game: what the test knows about it.
#[derive(Clone, Debug)]
pub struct TestGame {
    pub variant: Variant,
    pub moves: Vec<Move>,
    pub first: Option<String>,
    pub second: Option<String>,
    pub date: Option<String>,
    pub ratings: [Option<u32>; 2],
    pub result: Option<Outcome>,
    pub event: Option<String>,
    pub ecco: Option<String>,
}

impl TestGame {
    pub fn to_game(&self, file: &str, index: usize) -> Game {
        let mut g = Game::new(
            self.variant,
            Source {
                file: file.into(),
                index,
            },
        );
        g.moves = self
            .moves
            .iter()
            .map(|m| MoveNode::new(m.to_string()))
            .collect();
        g.tags.first = self.first.clone();
        g.tags.second = self.second.clone();
        g.tags.date = self.date.clone();
        g.tags.first_rating = self.ratings[0];
        g.tags.second_rating = self.ratings[1];
        g.tags.result = self.result;
        g.tags.event = self.event.clone();
        g.tags.ecco = self.ecco.clone();
        g
    }
}

/// `n` games: the first plies chosen among the first three legal moves (so that games share
/// openings and transpose), then random legal moves.
pub fn generate(variant: Variant, n: usize, seed: u64) -> Vec<TestGame> {
    let mut rng = Rng(seed);
    let players = [
        "Lü Qin",
        "Liu Dahua",
        "Hu Ronghua",
        "Xu Yinchuan",
        "Zhao Guorong",
    ];
    let events = ["National Championship", "Five Goats Cup", "Friendly"];
    let eccos = ["C48", "A01", "B24", "E00"];
    (0..n)
        .map(|_| {
            let mut pos = AnyPosition::new(variant);
            let plies = 4 + rng.below(50);
            let mut moves = Vec::new();
            for ply in 0..plies {
                let mut legal = pos.legal_moves().to_vec();
                if legal.is_empty() {
                    break;
                }
                legal.sort();
                let m = if ply < 6 {
                    legal[rng.below(legal.len().min(3))]
                } else {
                    legal[rng.below(legal.len())]
                };
                pos.play_unchecked(m);
                moves.push(m);
                if pos.end().is_some() {
                    break;
                }
            }
            let pick = |rng: &mut Rng, xs: &[&str]| -> Option<String> {
                let i = rng.below(xs.len() + 1);
                xs.get(i).map(|s| s.to_string())
            };
            let date = match rng.below(4) {
                0 => None,
                1 => Some(format!("{}", 2000 + rng.below(10))),
                2 => Some(format!("{}-{:02}", 2000 + rng.below(10), 1 + rng.below(12))),
                _ => Some(format!(
                    "{}-{:02}-{:02}",
                    2000 + rng.below(10),
                    1 + rng.below(12),
                    1 + rng.below(28)
                )),
            };
            let rating = |rng: &mut Rng| (rng.below(3) > 0).then(|| 2000 + rng.below(600) as u32);
            TestGame {
                variant,
                first: pick(&mut rng, &players),
                second: pick(&mut rng, &players),
                date,
                ratings: [rating(&mut rng), rating(&mut rng)],
                result: match rng.below(4) {
                    0 => None,
                    1 => Some(Outcome::Draw),
                    2 => Some(Outcome::Decisive {
                        winner: Color::First,
                    }),
                    _ => Some(Outcome::Decisive {
                        winner: Color::Second,
                    }),
                },
                event: pick(&mut rng, &events),
                ecco: pick(&mut rng, &eccos),
                moves,
            }
        })
        .collect()
}

/// What the test expects for a position: per move (None = game ended), games and results.
#[derive(Default, Debug, PartialEq, Eq)]
pub struct Expected {
    pub games: u64,
    pub first_wins: u64,
    pub draws: u64,
    pub second_wins: u64,
    pub moves: BTreeMap<String, (u64, u64, u64, u64)>,
    pub top: Vec<usize>,
}

/// Counts, over `games`, those that reach the position `key` within `max_ply` plies, once
/// per game, with the move played on the last visit. Independent of qipu's store.
pub fn expected(
    games: &[TestGame],
    key: u64,
    max_ply: usize,
    keep: impl Fn(&TestGame) -> bool,
) -> Expected {
    let mut e = Expected::default();
    for g in games.iter().filter(|g| keep(g)) {
        let mut pos = AnyPosition::new(g.variant);
        let mut last: Option<Option<Move>> = None;
        for (ply, &m) in g.moves.iter().enumerate() {
            if max_ply != 0 && ply >= max_ply {
                break;
            }
            if pos.key() == key {
                last = Some(Some(m));
            }
            pos.play_unchecked(m);
        }
        if (max_ply == 0 || g.moves.len() < max_ply) && pos.key() == key {
            last = Some(None);
        }
        let Some(mv) = last else { continue };
        let (fw, d, sw) = match g.result {
            Some(Outcome::Decisive {
                winner: Color::First,
            }) => (1, 0, 0),
            Some(Outcome::Draw) => (0, 1, 0),
            Some(Outcome::Decisive {
                winner: Color::Second,
            }) => (0, 0, 1),
            None => (0, 0, 0),
        };
        e.games += 1;
        e.first_wins += fw;
        e.draws += d;
        e.second_wins += sw;
        if let Some(m) = mv {
            let t = e.moves.entry(m.to_string()).or_default();
            t.0 += 1;
            t.1 += fw;
            t.2 += d;
            t.3 += sw;
        }
    }
    e
}

pub fn observed(x: &ExploreJson) -> Expected {
    Expected {
        games: x.games,
        first_wins: x.first_wins,
        draws: x.draws,
        second_wins: x.second_wins,
        moves: x
            .moves
            .iter()
            .map(|m| {
                (
                    m.mv.clone(),
                    (
                        m.counts.games,
                        m.counts.first_wins,
                        m.counts.draws,
                        m.counts.second_wins,
                    ),
                )
            })
            .collect(),
        top: Vec::new(),
    }
}

/// The first copy of each game (same moves, players and date count as one), with its index:
/// what an import stores.
fn first_copies(games: &[TestGame]) -> Vec<(usize, &TestGame)> {
    let mut seen = std::collections::HashSet::new();
    games
        .iter()
        .enumerate()
        .filter(|(_, g)| seen.insert((&g.moves, &g.first, &g.second, &g.date)))
        .collect()
}

fn inputs(games: &[TestGame]) -> Vec<Result<Game, GameError>> {
    games
        .iter()
        .enumerate()
        .map(|(i, g)| Ok(g.to_game("generated.pgn", i)))
        .collect()
}

fn query(moves: &[Move]) -> Query {
    let texts: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
    line_query(Variant::Xiangqi, &texts)
}

/// The unfiltered query of the position after `moves` (any notation).
pub fn line_query(variant: Variant, moves: &[String]) -> Query {
    Query::at(line(variant, None, moves, None).unwrap())
}

/// Runs a query and returns its JSON form (the contract the CLI and the API print).
pub fn explore(store: &Store, q: &Query) -> Result<ExploreJson, qipu::explorer::Error> {
    qipu::explorer::explore(store, q).map(|a| ExploreJson::from(&a))
}

fn key_after(moves: &[Move]) -> u64 {
    let mut pos = AnyPosition::new(Variant::Xiangqi);
    for &m in moves {
        pos.play_unchecked(m);
    }
    pos.key()
}

/// Positions to check: the start, and the positions after 1..=12 plies of a few games.
fn probe_lines(games: &[TestGame]) -> Vec<Vec<Move>> {
    let mut lines = vec![Vec::new()];
    for g in games.iter().step_by(37) {
        for n in [1, 2, 3, 5, 8, 12] {
            if n <= g.moves.len() {
                lines.push(g.moves[..n].to_vec());
            }
        }
    }
    lines
}

#[test]
fn explorer_numbers_equal_an_independent_count() {
    let games = generate(Variant::Xiangqi, 400, 7);
    let mut store = Store::open_in_memory().unwrap();
    let opts = ImportOptions {
        max_ply: 20,
        batch_games: 64, // several transactions
        chunk_games: 16,
        ..ImportOptions::default()
    };
    let report = import(&mut store, inputs(&games).into_iter(), &opts, |_| {}).unwrap();
    assert_eq!(report.games_read, 400);
    assert_eq!(report.rejected, 0);
    assert_eq!(report.imported + report.duplicates, 400);

    // Games that are exact copies (same moves, players, date) are counted once.
    let distinct: Vec<TestGame> = first_copies(&games)
        .into_iter()
        .map(|(_, g)| g.clone())
        .collect();
    assert_eq!(report.imported, distinct.len() as u64);

    let start = explore(&store, &query(&[])).unwrap();
    let h2e2 = start.moves.iter().find(|m| m.mv == "h2e2");
    if let Some(m) = h2e2 {
        assert_eq!(m.notation["wxf"], "C2.5");
        assert_eq!(m.notation["chinese"], "炮二平五");
    }
    for m in &start.moves {
        assert!(m.notation.contains_key("wxf") && m.notation.contains_key("chinese"));
    }
    let mut checked = 0;
    for line in probe_lines(&games) {
        let key = key_after(&line);
        let want = expected(&distinct, key, 20, |_| true);
        let got = explore(&store, &query(&line)).unwrap();
        assert_eq!(observed(&got), want, "position after {line:?}");
        assert_eq!(got.key, format!("{key:016x}"));
        checked += want.games;
    }
    assert!(
        checked > 400,
        "the probes should cover many games, got {checked}"
    );
}

#[test]
fn filters_equal_an_independent_count() {
    let games = generate(Variant::Xiangqi, 300, 11);
    let mut store = Store::open_in_memory().unwrap();
    let opts = ImportOptions {
        max_ply: 0,
        ..ImportOptions::default()
    };
    import(&mut store, inputs(&games).into_iter(), &opts, |_| {}).unwrap();
    let distinct: Vec<TestGame> = first_copies(&games)
        .into_iter()
        .map(|(_, g)| g.clone())
        .collect();
    for line in probe_lines(&games).into_iter().take(12) {
        let key = key_after(&line);
        // Player on a side.
        let mut q = query(&line);
        q.filter.player = Some("hu ronghua".into());
        q.filter.side = Some(Color::Second);
        let want = expected(&distinct, key, 0, |g| {
            g.second.as_deref() == Some("Hu Ronghua")
        });
        assert_eq!(observed(&explore(&store, &q).unwrap()), want);
        // Ratings 2300 to 2500 name the bands 2200–2399 and 2400–2599 (200 wide from 1000):
        // the mean of the known ratings, rounded down, from 2200 to 2599 (at least one known).
        let mut q = query(&line);
        q.filter.min_rating = Some(2300);
        q.filter.max_rating = Some(2500);
        let want = expected(&distinct, key, 0, |g| {
            let known: Vec<u32> = g.ratings.iter().flatten().copied().collect();
            !known.is_empty() && {
                let mean = known.iter().sum::<u32>() / known.len() as u32;
                (2200..=2599).contains(&mean)
            }
        });
        assert_eq!(observed(&explore(&store, &q).unwrap()), want);
        // Date range 2003..=2005 (by year: every generated date starts with its year).
        let mut q = query(&line);
        q.filter.since = Some("2003".parse().unwrap());
        q.filter.until = Some("2005".parse().unwrap());
        let want = expected(&distinct, key, 0, |g| {
            g.date
                .as_deref()
                .and_then(|d| d[..4].parse::<u32>().ok())
                .is_some_and(|y| (2003..=2005).contains(&y))
        });
        assert_eq!(observed(&explore(&store, &q).unwrap()), want);
        // Event substring.
        let mut q = query(&line);
        q.filter.event = Some("goats".into());
        let want = expected(&distinct, key, 0, |g| {
            g.event.as_deref() == Some("Five Goats Cup")
        });
        assert_eq!(observed(&explore(&store, &q).unwrap()), want);
    }
}

#[test]
fn top_games_are_best_rated_then_latest_and_the_start_is_not_named() {
    let games = generate(Variant::Xiangqi, 200, 3);
    let mut store = Store::open_in_memory().unwrap();
    import(
        &mut store,
        inputs(&games).into_iter(),
        &ImportOptions::default(),
        |_| {},
    )
    .unwrap();
    let mut q = query(&[]);
    q.top_games = 5;
    let got = explore(&store, &q).unwrap();
    // Independent ordering over all distinct games (every game goes through the start).
    let mut distinct = first_copies(&games);
    let mean = |g: &TestGame| {
        let k: Vec<u32> = g.ratings.iter().flatten().copied().collect();
        if k.is_empty() {
            0
        } else {
            k.iter().sum::<u32>() / k.len() as u32
        }
    };
    let num = |d: &Option<String>| -> u64 {
        let Some(d) = d else { return 0 };
        let p: Vec<u64> = d.split('-').map(|x| x.parse().unwrap()).collect();
        p[0] * 10_000 + p.get(1).unwrap_or(&0) * 100 + p.get(2).unwrap_or(&0)
    };
    // A known result first, then both names known, then rating, then date.
    let flags = |g: &TestGame| (g.result.is_none(), g.first.is_none() || g.second.is_none());
    distinct.sort_by(|a, b| {
        flags(a.1)
            .cmp(&flags(b.1))
            .then(mean(b.1).cmp(&mean(a.1)))
            .then(num(&b.1.date).cmp(&num(&a.1.date)))
            .then(a.0.cmp(&b.0))
    });
    let want: Vec<(Option<String>, Option<String>)> = distinct[..5]
        .iter()
        .map(|(_, g)| (g.first.clone(), g.date.clone()))
        .collect();
    let have: Vec<(Option<String>, Option<String>)> = got
        .top_games
        .iter()
        .map(|g| (g.first.clone(), g.date.clone()))
        .collect();
    assert_eq!(have, want);

    // The start is not named, whatever its games' labels agree on: no ECCO class is 0 plies
    // deep (the naming rule itself is tested on real games in `tests/openings.rs`).
    assert!(distinct.iter().any(|(_, g)| g.ecco.is_some()));
    assert_eq!(got.opening, None);
}

#[test]
fn reimport_is_a_no_op_and_bad_games_are_reported() {
    let games = generate(Variant::Janggi, 120, 5);
    let mut input = inputs(&games);
    let mut bad = games[0].to_game("bad.gib", 0);
    bad.moves.push(MoveNode::new("zz99")); // not a move
    input.push(Ok(bad));
    input.push(Err(GameError::file(
        "broken.gib",
        ErrorKind::Malformed("cannot decode".into()),
    )));
    let mut store = Store::open_in_memory().unwrap();
    let first = import(
        &mut store,
        input.clone().into_iter(),
        &ImportOptions::default(),
        |_| {},
    )
    .unwrap();
    assert_eq!(first.rejected, 1);
    assert_eq!(first.errors.len(), 2);
    assert_eq!(first.files, 3);
    let bad_err = first.errors.iter().find(|e| e.file == "bad.gib").unwrap();
    assert_eq!(bad_err.ply, Some(games[0].moves.len() + 1));
    assert_eq!(bad_err.game, Some(0));

    let before = dump_positions(&store);
    let again = import(
        &mut store,
        input.into_iter(),
        &ImportOptions::default(),
        |_| {},
    )
    .unwrap();
    assert_eq!(again.imported, 0);
    assert_eq!(again.duplicates, first.imported + first.duplicates);
    assert_eq!(dump_positions(&store), before);
    let stats = store.stats().unwrap();
    assert_eq!(stats.games[1].games, first.imported);

    // A different depth limit would mix statistics: refused.
    let other = ImportOptions {
        max_ply: 10,
        ..ImportOptions::default()
    };
    assert!(import(&mut store, Vec::new().into_iter(), &other, |_| {}).is_err());
}

#[test]
fn mirror_merges_the_mirrored_position() {
    let games = generate(Variant::Xiangqi, 200, 9);
    let mut store = Store::open_in_memory().unwrap();
    import(
        &mut store,
        inputs(&games).into_iter(),
        &ImportOptions::default(),
        |_| {},
    )
    .unwrap();
    // After one first-player move, the position and its mirror are different positions.
    let m: Move = games[0].moves[0];
    let plain = explore(&store, &query(&[m])).unwrap();
    let mirrored = explore(&store, &query(&[m.mirror()])).unwrap();
    let mut q = query(&[m]);
    q.mirror = true;
    let both = explore(&store, &q).unwrap();
    if m.mirror() != m {
        assert_eq!(both.games, plain.games + mirrored.games);
        for mv in &mirrored.moves {
            let back = mv.mv.parse::<Move>().unwrap().mirror().to_string();
            let own = plain
                .moves
                .iter()
                .find(|x| x.mv == back)
                .map_or(0, |x| x.counts.games);
            let merged = both.moves.iter().find(|x| x.mv == back).unwrap();
            assert_eq!(merged.counts.games, own + mv.counts.games);
        }
    }
}

/// Everything a database says about its positions: every (key, move row), the best games of
/// each busy position, and the counts of `qipu stats`.
fn dump_positions(store: &Store) -> (Vec<(u64, qipu::store::MoveRow)>, Vec<Vec<i64>>, u64) {
    let mut rows = Vec::new();
    store
        .for_each_position_move(|k, r| {
            rows.push((k.0, r.clone()));
            Ok(())
        })
        .unwrap();
    let mut keys: Vec<u64> = rows.iter().map(|r| r.0).collect();
    keys.dedup();
    let tops = keys
        .iter()
        .step_by(11)
        .map(|&k| {
            store
                .lookup(PositionKey(k), 5)
                .unwrap()
                .top
                .iter()
                .map(|g| g.id)
                .collect()
        })
        .collect();
    (rows, tops, store.stats().unwrap().position_games)
}

/// Many small batches (each merging into range rows written before it, cutting them when they
/// grow, and turning quiet positions busy) give exactly the statistics of one batch, and the
/// range rows stay small.
#[test]
fn small_batches_merge_to_what_one_batch_writes() {
    let games = generate(Variant::Xiangqi, 500, 23);
    let dir = tempfile::tempdir().unwrap();
    let db = |name: &str, batch_games: usize| {
        let path = dir.path().join(name);
        let mut store = Store::open(&path).unwrap();
        let opts = ImportOptions {
            max_ply: 0,
            batch_games,
            chunk_games: 5,
            ..ImportOptions::default()
        };
        let report = import(&mut store, inputs(&games).into_iter(), &opts, |_| {}).unwrap();
        assert_eq!(report.rejected, 0);
        (store, path)
    };
    let (one, _) = db("one.db", 1_000_000);
    let (many, path) = db("many.db", 7);
    let want = dump_positions(&one);
    assert!(want.0.len() > 10_000, "{} rows", want.0.len());
    assert!(dump_positions(&many) == want);
    // The start position's games were counted by a summary built across batches.
    let start = AnyPosition::new(Variant::Xiangqi).key();
    let first_copies = first_copies(&games).len() as u64;
    let counted: u64 = many
        .position(PositionKey(start))
        .unwrap()
        .iter()
        .map(|r| r.counts.games)
        .sum();
    assert_eq!(counted, first_copies);

    let conn = rusqlite::Connection::open(&path).unwrap();
    let (rows, longest): (i64, i64) = conn
        .query_row(
            "SELECT count(*), max(length(entries)) FROM position_ranges",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    let busy: i64 = conn
        .query_row("SELECT count(*) FROM positions", [], |r| r.get(0))
        .unwrap();
    assert!(
        rows > 100 && longest < 2_000,
        "{rows} rows, longest {longest} bytes"
    );
    assert!(busy > 5, "{busy} busy positions");
}

/// Given the input's size, a batch that could go for the time waits when the rest of the
/// input is small and goes last; only the size caps cut it. Without it, batches go whenever
/// the writer is idle. Both store the same.
#[test]
fn a_batch_waits_for_a_small_rest_of_the_input_and_goes_last() {
    let games = generate(Variant::Xiangqi, 300, 29);
    let run = |input_bytes: Option<u64>, batch_games: usize| {
        let mut store = Store::open_in_memory().unwrap();
        let opts = ImportOptions {
            max_ply: 0,
            batch_games,
            chunk_games: 5,
            batch_time: std::time::Duration::ZERO,
            input_bytes,
            ..ImportOptions::default()
        };
        let report = import(&mut store, inputs(&games).into_iter(), &opts, |_| {}).unwrap();
        let cuts: Vec<(usize, &str)> = report.batches.iter().map(|b| (b.games, b.why)).collect();
        assert_eq!(cuts.iter().map(|c| c.0).sum::<usize>(), 300, "{cuts:?}");
        for b in &report.batches {
            assert!(b.began >= b.sent, "{b:?}");
        }
        (cuts, dump_positions(&store))
    };
    // Games handed over one by one come in no chunk: 0 bytes read of 0 leave 0 to read,
    // never more than twice a batch, so every batch waits for the end of the input.
    let (cuts, waited) = run(Some(0), 1_000_000);
    assert_eq!(cuts, [(300, "last")]);
    let (cuts, capped) = run(Some(0), 64);
    assert_eq!(
        cuts,
        [
            (64, "full"),
            (64, "full"),
            (64, "full"),
            (64, "full"),
            (44, "last")
        ]
    );
    // No size: the first game goes at once to the idle writer.
    let (cuts, eager) = run(None, 1_000_000);
    assert!(cuts.len() >= 2 && cuts[0] == (1, "time"), "{cuts:?}");
    assert!(waited == capped && waited == eager);
}

#[test]
fn stored_games_stream_back_exactly() {
    let games = generate(Variant::Janggi, 50, 13);
    let mut store = Store::open_in_memory().unwrap();
    import(
        &mut store,
        inputs(&games).into_iter(),
        &ImportOptions::default(),
        |_| {},
    )
    .unwrap();
    let back: Vec<_> = store
        .games(Variant::Janggi)
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    let distinct: Vec<&TestGame> = first_copies(&games).into_iter().map(|(_, g)| g).collect();
    assert_eq!(back.len(), distinct.len());
    for (s, g) in back.iter().zip(&distinct) {
        assert_eq!(s.moves, g.moves);
        assert_eq!(s.result, g.result);
        assert_eq!(s.tags.first, g.first);
        assert_eq!(s.start_fen, Variant::Janggi.start_fen());
        assert_eq!(store.game(s.id).unwrap().as_ref(), Some(s));
    }
    assert_eq!(store.game(1_000_000).unwrap(), None);
}

#[test]
fn moves_carry_wxf_chinese_and_korean_notation() {
    let mut xq = Game::new(Variant::Xiangqi, Source::default());
    xq.moves = ["h2e2", "h9g7"].iter().map(|m| MoveNode::new(*m)).collect();
    let mut jg = Game::new(Variant::Janggi, Source::default());
    jg.moves = vec![MoveNode::new("h0g2")];
    let mut store = Store::open_in_memory().unwrap();
    import(
        &mut store,
        vec![Ok(xq), Ok(jg)].into_iter(),
        &ImportOptions::default(),
        |_| {},
    )
    .unwrap();
    let start = explore(&store, &query(&[])).unwrap();
    assert_eq!(start.moves[0].notation["wxf"], "C2.5");
    assert_eq!(start.moves[0].notation["chinese"], "炮二平五");
    // Any notation in, the reply to 炮二平五 is Black's 马８进７ (full-width digit).
    let q = line_query(Variant::Xiangqi, &["炮二平五".to_string()]);
    let reply = explore(&store, &q).unwrap();
    assert_eq!(reply.moves[0].mv, "h9g7");
    assert_eq!(reply.moves[0].notation["chinese"], "马８进７");
    assert_eq!(reply.moves[0].notation["wxf"], "H8+7");
    let q = line_query(Variant::Janggi, &[]);
    let janggi = explore(&store, &q).unwrap();
    assert_eq!(janggi.moves[0].notation["korean"], "08마87");
    assert!(!janggi.moves[0].notation.contains_key("wxf"));
}

/// A database that fails in the middle of an import (a trigger refuses the third batch's
/// positions): the import returns the error instead of hanging, and the database keeps the
/// batches committed before, whole.
#[test]
fn a_failing_writer_stops_the_import_with_its_error() {
    let games = generate(Variant::Xiangqi, 300, 11);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fail.db");
    let mut store = Store::open(&path).unwrap();
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(
        "CREATE TRIGGER refuse BEFORE INSERT ON games WHEN (SELECT count(*) FROM games) >= 100 \
         BEGIN SELECT RAISE(ABORT, 'disk says no'); END;",
    )
    .unwrap();
    drop(conn);
    let opts = ImportOptions {
        batch_games: 50,
        chunk_games: 10,
        ..ImportOptions::default()
    };
    let err = import(&mut store, inputs(&games).into_iter(), &opts, |_| {}).unwrap_err();
    assert!(err.to_string().contains("disk says no"), "{err}");
    let stats = store.stats().unwrap();
    assert_eq!(stats.games[0].games, 100);
    // Every stored game's positions are counted, and only theirs.
    let start = AnyPosition::new(Variant::Xiangqi).key();
    let total: u64 = store
        .position(PositionKey(start))
        .unwrap()
        .iter()
        .map(|r| r.counts.games)
        .sum();
    assert_eq!(total, 100);
}

/// Games of unknown result (`*`) count as games but not as statistics: `decided` says how many
/// results are known, the score rests on them alone and is `null` when there are none.
#[test]
fn unknown_results_are_not_statistics() {
    let game = |moves: &str, result: Option<Outcome>| {
        let mut g = Game::new(Variant::Xiangqi, Source::default());
        g.moves = moves.split(' ').map(MoveNode::new).collect();
        g.tags.result = result;
        g.tags.first = Some(format!("P{moves}{result:?}"));
        Ok(g)
    };
    let red = Some(Outcome::Decisive {
        winner: Color::First,
    });
    let games = vec![
        game("h2e2 h9g7", red),
        game("h2e2 b9c7", None),
        game("h2e2 h7e7", None),
        game("c3c4", None),
    ];
    let mut store = Store::open_in_memory().unwrap();
    import(
        &mut store,
        games.into_iter(),
        &ImportOptions::default(),
        |_| {},
    )
    .unwrap();
    let v = explore(&store, &query(&[])).unwrap();
    assert_eq!((v.games, v.decided, v.first_wins), (4, 1, 1));
    let h2e2 = v.moves.iter().find(|m| m.mv == "h2e2").unwrap();
    assert_eq!((h2e2.counts.games, h2e2.counts.decided), (3, 1));
    assert_eq!(h2e2.score, Some(1.0), "one decided game, won by Red");
    let c3c4 = v.moves.iter().find(|m| m.mv == "c3c4").unwrap();
    assert_eq!(
        (c3c4.counts.games, c3c4.counts.decided, c3c4.score),
        (1, 0, None)
    );
    let json = serde_json::to_value(&v).unwrap();
    assert_eq!(json["moves"][1]["score"], serde_json::Value::Null);
}

/// The README's `qipu explore` examples are the real output: each ```` ``` ```` block that
/// starts with `$ qipu explore` is run over the bundled sample and must print the rest of the
/// block exactly.
#[test]
fn readme_explorer_examples_are_the_real_output() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let qipu = env!("CARGO_BIN_EXE_qipu");
    let import = std::process::Command::new(qipu)
        .args([
            "import",
            root.join("data").to_str().unwrap(),
            "--db",
            "sample.db",
        ])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(import.status.code(), Some(0), "{import:?}");
    // The fenced blocks, without their fences.
    let mut blocks = Vec::new();
    let mut open: Option<String> = None;
    for line in readme.lines() {
        if line.starts_with("```") {
            match open.take() {
                Some(b) => blocks.push(b),
                None => open = Some(String::new()),
            }
        } else if let Some(b) = &mut open {
            b.push_str(line);
            b.push('\n');
        }
    }
    let mut checked = 0;
    for block in &blocks {
        let Some(rest) = block.strip_prefix("$ qipu explore ") else {
            continue;
        };
        let (command, want) = rest.split_once('\n').unwrap();
        let out = std::process::Command::new(qipu)
            .arg("explore")
            .args(command.split_whitespace())
            .current_dir(dir.path())
            .output()
            .unwrap();
        // No game through the position is "nothing found": exit 1 (the rule of every command).
        let found = !want.lines().any(|l| l.starts_with("0 games,"));
        assert_eq!(
            out.status.code(),
            Some(if found { 0 } else { 1 }),
            "{command}"
        );
        assert_eq!(String::from_utf8(out.stdout).unwrap(), want, "{command}");
        checked += 1;
    }
    assert!(checked >= 3, "only {checked} examples found");
}

/// The smallest memory budget (its batches and page cache the smallest) stores what the
/// default stores.
#[test]
fn the_smallest_memory_budget_stores_what_the_default_stores() {
    let games = generate(Variant::Xiangqi, 300, 31);
    let dir = tempfile::tempdir().unwrap();
    let db = |name: &str, memory_bytes: u64| {
        let mut store = Store::open(dir.path().join(name)).unwrap();
        let opts = ImportOptions {
            max_ply: 0,
            memory_bytes,
            chunk_games: 5,
            ..ImportOptions::default()
        };
        let report = import(&mut store, inputs(&games).into_iter(), &opts, |_| {}).unwrap();
        assert_eq!(report.rejected, 0);
        store
    };
    let want = dump_positions(&db("default.db", qipu::pipeline::DEFAULT_MEMORY_BYTES));
    assert!(want.0.len() > 5_000, "{} rows", want.0.len());
    assert!(dump_positions(&db("small.db", qipu::pipeline::MIN_MEMORY_BYTES)) == want);
}

/// `qipu import --memory` below 64 MB is refused before the database is touched; 64 imports.
#[test]
fn import_memory_below_64_mb_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("g.pgn");
    std::fs::write(&pgn, crate::common::pgn_of(&[("h2e2 h9g7", 3, "1-0")])).unwrap();
    let db = dir.path().join("q.db");
    let (pgn_s, db_s) = (pgn.to_str().unwrap(), db.to_str().unwrap());
    let (code, _, err) = crate::common::run(&["import", pgn_s, "--db", db_s, "--memory", "10"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("--memory 10") && err.contains("64 MB"),
        "{err}"
    );
    assert!(!db.exists());
    let small = crate::common::run(&["import", pgn_s, "--db", db_s, "--memory", "64", "--json"]);
    assert_eq!(small.0, Some(0), "{}", small.2);
    let v: serde_json::Value = serde_json::from_str(&small.1).unwrap();
    assert_eq!(
        (v["imported"].as_u64(), v["duplicates"].as_u64()),
        (Some(1), Some(2))
    );
}
