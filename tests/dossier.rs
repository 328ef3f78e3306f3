//! The player dossier (issue #29 item 3), through the binary and the router, on hand-made
//! PGN games with five spellings of 胡榮華: every number is counted here from `GAMES` as
//! written (results per side, by year, events, opponents, the repertoire's moves at plies 1
//! and 2, the weakest line), never taken from the code under test. Also: an unknown name is
//! exit 2 and 404 with the nearest names; bad parameters are 400; `--pgn` reads back through
//! `qipu import` and `qipu convert`.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
    sync::Arc,
};

use qipu::web::{route, Config, Worker};
use serde_json::Value;

use crate::common::{import_file, import_pgn, pgn_game, run as qipu};

/// A hand-made game: Red, Black, moves, result, date, event, Red's and Black's rating.
pub(crate) struct G {
    red: &'static str,
    black: &'static str,
    moves: &'static str,
    result: &'static str,
    date: &'static str,
    event: &'static str,
    ratings: (Option<u32>, Option<u32>),
}

const fn g(
    red: &'static str,
    black: &'static str,
    moves: &'static str,
    result: &'static str,
    date: &'static str,
    event: &'static str,
    ratings: (Option<u32>, Option<u32>),
) -> G {
    G {
        red,
        black,
        moves,
        result,
        date,
        event,
        ratings,
    }
}

const GAMES: &[G] = &[
    g(
        "胡榮華",
        "呂欽",
        "h2e2 h9g7 h0g2",
        "1-0",
        "2001.03.01",
        "Cup A",
        (Some(2500), Some(2450)),
    ),
    g(
        "上海胡榮華",
        "許銀川",
        "h2e2 h9g7 b0c2",
        "0-1",
        "2001.07.01",
        "Cup A",
        (Some(2510), Some(2520)),
    ),
    g(
        "HU RongHua",
        "趙國榮",
        "h2e2 b9c7",
        "1/2-1/2",
        "2002.01.05",
        "Cup B",
        (None, None),
    ),
    g(
        "廣東呂欽",
        "中國胡榮華",
        "h2e2 h9g7",
        "0-1",
        "2002.04.01",
        "Cup B",
        (Some(2460), Some(2505)),
    ),
    g(
        "胡荣华",
        "許銀川",
        "c3c4 h9g7",
        "1-0",
        "2003.02.02",
        "League",
        (Some(2520), None),
    ),
    g(
        "呂欽",
        "胡榮華",
        "c3c4 c6c5",
        "1-0",
        "2003.05.05",
        "League",
        (None, None),
    ),
    g(
        "許銀川",
        "上海胡榮華",
        "h2e2 h9g7 h0g2",
        "1/2-1/2",
        "2003.09.09",
        "Cup A",
        (None, Some(2490)),
    ),
    g(
        "胡榮華",
        "趙國榮",
        "h2e2 h9g7 h0g2 i9h9",
        "0-1",
        "2004.01.01",
        "Cup B",
        (None, None),
    ),
    g(
        "呂欽",
        "許銀川",
        "h2e2 h9g7",
        "1-0",
        "2004.02.02",
        "Cup B",
        (None, None),
    ),
    g(
        "胡榮華",
        "呂欽",
        "h2e2 h9g7 b0c2",
        "1-0",
        "",
        "",
        (None, None),
    ),
];

/// The spellings of 胡榮華 in `GAMES`, by hand.
const HU: &[&str] = &["胡榮華", "上海胡榮華", "HU RongHua", "中國胡榮華", "胡荣华"];
/// The spellings of 呂欽; the person is named 呂欽 (its most games).
const LU: &[&str] = &["呂欽", "廣東呂欽"];

fn pgn(games: &[G]) -> String {
    let mut out = String::new();
    for (i, g) in games.iter().enumerate() {
        let (round, ratings) = (
            i.to_string(),
            [g.ratings.0, g.ratings.1].map(|r| r.map(|r| r.to_string()).unwrap_or_default()),
        );
        out.push_str(&pgn_game(
            &[
                ("Round", &round),
                ("Red", g.red),
                ("Black", g.black),
                ("Date", g.date),
                ("Event", g.event),
                ("RedElo", &ratings[0]),
                ("BlackElo", &ratings[1]),
            ],
            g.moves,
            g.result,
        ));
    }
    out
}

/// A database of `GAMES`, imported by the binary.
pub(crate) fn imported(dir: &Path) -> PathBuf {
    import_pgn(dir, &pgn(GAMES), &[])
}

/// `qipu player NAME --json` with more flags.
fn player(db: &Path, name: &str, extra: &[&str]) -> Value {
    let mut args = vec!["player", name, "--db", db.to_str().unwrap(), "--json"];
    args.extend_from_slice(extra);
    let (code, out, err) = qipu(&args);
    assert_eq!(code, Some(0), "{err}");
    serde_json::from_str(&out).unwrap()
}

/// A game of 胡榮華 as the test counts it: his side (0 Red, 1 Black), his score (1, ½, 0),
/// the opponent's person, his own rating.
pub(crate) struct Mine<'a> {
    /// 0 Red, 1 Black.
    pub(crate) side: usize,
    score: f64,
    opponent: &'a str,
    year: Option<u16>,
    rating: Option<u32>,
    game: &'a G,
}

pub(crate) fn mine(keep: impl Fn(&G) -> bool) -> Vec<Mine<'static>> {
    let mut out = Vec::new();
    for g in GAMES.iter().filter(|g| keep(g)) {
        let side = if HU.contains(&g.red) {
            0
        } else if HU.contains(&g.black) {
            1
        } else {
            continue;
        };
        let red_score = match g.result {
            "1-0" => 1.0,
            "0-1" => 0.0,
            _ => 0.5,
        };
        let opp = if side == 0 { g.black } else { g.red };
        out.push(Mine {
            side,
            score: if side == 0 {
                red_score
            } else {
                1.0 - red_score
            },
            opponent: if LU.contains(&opp) { "呂欽" } else { opp },
            year: g.date.get(..4).and_then(|y| y.parse().ok()),
            rating: if side == 0 { g.ratings.0 } else { g.ratings.1 },
            game: g,
        });
    }
    out
}

/// (games, wins, draws, losses) of some games.
pub(crate) fn wdl<'a>(games: impl Iterator<Item = &'a Mine<'a>>) -> (u64, u64, u64, u64) {
    let mut c = (0, 0, 0, 0);
    for m in games {
        c.0 += 1;
        match m.score {
            1.0 => c.1 += 1,
            0.0 => c.3 += 1,
            _ => c.2 += 1,
        }
    }
    c
}

fn wdl_of(v: &Value) -> (u64, u64, u64, u64) {
    let n = |k: &str| v[k].as_u64().unwrap();
    (n("games"), n("wins"), n("draws"), n("losses"))
}

/// Per first move (ply 1) and per two moves (ply 2) of one side's games: the games.
fn plies(games: &[Mine<'_>], side: usize) -> (BTreeMap<String, u64>, BTreeMap<String, u64>) {
    let (mut one, mut two) = (BTreeMap::new(), BTreeMap::new());
    for m in games.iter().filter(|m| m.side == side) {
        let mv: Vec<&str> = m.game.moves.split(' ').collect();
        *one.entry(mv[0].to_string()).or_default() += 1;
        if let Some(b) = mv.get(1) {
            *two.entry(format!("{} {b}", mv[0])).or_default() += 1;
        }
    }
    (one, two)
}

/// The same from the dossier's tree.
fn tree_plies(tree: &Value) -> (BTreeMap<String, u64>, BTreeMap<String, u64>) {
    let (mut one, mut two) = (BTreeMap::new(), BTreeMap::new());
    for a in tree["moves"].as_array().unwrap() {
        let ma = a["move"].as_str().unwrap();
        one.insert(ma.to_string(), a["games"].as_u64().unwrap());
        for b in a["moves"].as_array().unwrap() {
            let mb = b["move"].as_str().unwrap();
            two.insert(format!("{ma} {mb}"), b["games"].as_u64().unwrap());
        }
    }
    (one, two)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

/// Checks a dossier against the games `keep` lets through.
fn check(d: &Value, keep: impl Fn(&G) -> bool) {
    let games = mine(keep);
    assert_eq!(d["player"], "胡榮華", "the spelling with the most games");
    assert_eq!(d["games"].as_u64(), Some(games.len() as u64));
    for (side, key) in [(0, "as_first"), (1, "as_second")] {
        assert_eq!(
            wdl_of(&d[key]),
            wdl(games.iter().filter(|m| m.side == side)),
            "{key}"
        );
    }
    // By year: results and the player's own mean rating.
    let mut years: BTreeMap<Option<u16>, Vec<&Mine>> = BTreeMap::new();
    for m in &games {
        years.entry(m.year).or_default().push(m);
    }
    let rows = d["by_year"].as_array().unwrap();
    assert_eq!(rows.len(), years.len());
    for row in rows {
        let year = row["year"].as_u64().map(|y| y as u16);
        let these = &years[&year];
        assert_eq!(wdl_of(row), wdl(these.iter().copied()), "{year:?}");
        let rated: Vec<f64> = these
            .iter()
            .filter_map(|m| m.rating)
            .map(f64::from)
            .collect();
        let mean = (!rated.is_empty()).then(|| rated.iter().sum::<f64>() / rated.len() as f64);
        assert_eq!(row["rating"].as_f64(), mean, "{year:?}");
    }
    // Opponents by person and events.
    for (key, name_of) in [
        (
            "opponents",
            &(|m: &Mine| Some(m.opponent.to_string())) as &dyn Fn(&Mine) -> Option<String>,
        ),
        ("events", &|m: &Mine| {
            (!m.game.event.is_empty()).then(|| m.game.event.to_string())
        }),
    ] {
        let mut by: BTreeMap<String, Vec<&Mine>> = BTreeMap::new();
        for m in &games {
            if let Some(n) = name_of(m) {
                by.entry(n).or_default().push(m);
            }
        }
        let list = d[key].as_array().unwrap();
        assert_eq!(list.len(), by.len(), "{key}");
        let mut last = u64::MAX;
        for row in list {
            let these = &by[row["name"].as_str().unwrap()];
            assert_eq!(wdl_of(row), wdl(these.iter().copied()), "{key} {row}");
            let n = row["games"].as_u64().unwrap();
            assert!(n <= last, "{key}: most games first");
            last = n;
        }
    }
    // The repertoire at plies 1 and 2, each side, with who moved.
    for (side, key) in [(0, "first"), (1, "second")] {
        let trees = d["repertoire"][key].as_array().unwrap();
        let want = plies(&games, side);
        if want.0.is_empty() {
            assert!(trees.is_empty());
            continue;
        }
        assert_eq!(trees.len(), 1, "one start");
        assert_eq!(tree_plies(&trees[0]), want, "{key}");
        let by = trees[0]["moves"][0]["by"].as_str().unwrap();
        assert_eq!(by, if side == 0 { "player" } else { "opponent" });
    }
}

#[test]
fn the_dossier_counts_every_number_from_the_games() {
    let dir = tempfile::tempdir().unwrap();
    let db = imported(dir.path());
    let d = player(&db, "HU RongHua", &["--min-games", "1"]);
    check(&d, |_| true);
    let names: Vec<&str> = d["spellings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    // 胡荣华 is 胡榮華 folded (script): one spelling of the index.
    let mut want: Vec<&str> = HU.iter().copied().filter(|n| *n != "胡荣华").collect();
    let mut got = names.clone();
    want.sort_unstable();
    got.sort_unstable();
    assert_eq!(got, want);
    assert_eq!(d["first_game"]["date"], "2001-03-01");
    assert_eq!(d["first_game"]["opponent"], "呂欽");
    assert_eq!(d["last_game"]["date"], "2004-01-01");
    assert_eq!(d["last_game"]["opponent"], "趙國榮");
    assert_eq!(d["last_game"]["side"], "first");
    // The filters of explore: dates, event, side.
    let since = |g: &G| {
        g.date
            .get(..4)
            .is_some_and(|y| ("2002"..="2003").contains(&y))
    };
    check(
        &player(
            &db,
            "胡荣华",
            &["--min-games", "1", "--since", "2002", "--until", "2003"],
        ),
        since,
    );
    check(
        &player(&db, "上海胡榮華", &["--min-games", "1", "--event", "cup"]),
        |g| g.event.starts_with("Cup"),
    );
    let black = player(&db, "胡榮華", &["--min-games", "1", "--side", "black"]);
    check(&black, |g| HU.contains(&g.black));
    assert_eq!(black["as_first"]["games"], 0);
}

#[test]
fn the_weakest_line_is_the_one_counted_here() {
    let dir = tempfile::tempdir().unwrap();
    let db = imported(dir.path());
    let min = 2;
    let d = player(&db, "胡榮華", &["--min-games", "2"]);
    let games = mine(|_| true);
    // Every line (prefix) of each side with its games and score, against the side's average.
    let mut worst: Option<(f64, u64, Vec<String>)> = None;
    for side in [0, 1] {
        let of: Vec<&Mine> = games.iter().filter(|m| m.side == side).collect();
        let avg = of.iter().map(|m| m.score).sum::<f64>() / of.len() as f64;
        let mut lines: BTreeMap<Vec<String>, (u64, f64)> = BTreeMap::new();
        for m in &of {
            let mv: Vec<String> = m.game.moves.split(' ').map(str::to_string).collect();
            for n in 1..=mv.len() {
                let e = lines.entry(mv[..n].to_vec()).or_default();
                e.0 += 1;
                e.1 += m.score;
            }
        }
        for (line, &(n, sum)) in &lines {
            let parent = if line.len() == 1 {
                of.len() as u64
            } else {
                lines[&line[..line.len() - 1]].0
            };
            let delta = sum / n as f64 - avg;
            if n < min || n == parent || delta >= 0.0 {
                continue;
            }
            let better = worst
                .as_ref()
                .is_none_or(|w| delta < w.0 - 1e-12 || (close(delta, w.0) && n > w.1));
            if better {
                worst = Some((delta, n, line.clone()));
            }
        }
    }
    let (delta, n, line) = worst.expect("the fixture has a weak line");
    let w = &d["weak_lines"][0];
    let moves: Vec<String> = w["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap().to_string())
        .collect();
    assert_eq!(moves, line, "{w}");
    assert_eq!(w["games"].as_u64(), Some(n));
    assert!(close(w["delta"].as_f64().unwrap(), delta), "{w}");
    // With --min-games 2 no listed move has fewer games.
    fn all_at_least(moves: &Value, min: u64) -> bool {
        moves
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m["games"].as_u64().unwrap() >= min && all_at_least(&m["moves"], min))
    }
    for key in ["first", "second"] {
        for t in d["repertoire"][key].as_array().unwrap() {
            assert!(all_at_least(&t["moves"], min));
        }
    }
}

#[test]
fn unknown_names_and_bad_parameters() {
    let dir = tempfile::tempdir().unwrap();
    let db = imported(dir.path());
    let (code, _, err) = qipu(&["player", "胡荣花", "--db", db.to_str().unwrap()]);
    assert_eq!(code, Some(2));
    let games = mine(|_| true).len();
    let message = format!("no such player 胡荣花; did you mean: 胡榮華 ({games} games)");
    assert!(err.contains(&message), "{err}");
    let config = Config {
        db: Some(db.clone()),
        ..Config::default()
    };
    let mut w = Worker::open(Arc::new(config)).unwrap();
    let get = |w: &mut Worker, target: &str| {
        let r = route(w, "GET", target);
        (r.status, serde_json::from_slice::<Value>(&r.body).unwrap())
    };
    let (status, body) = get(&mut w, "/api/player?name=%E8%83%A1%E8%8D%A3%E8%8A%B1");
    assert_eq!(status, 404);
    assert!(body.to_string().contains(&message), "{body}");
    for bad in [
        "/api/player",
        "/api/player?name=x&depth=99",
        "/api/player?name=x&since=yesterday",
        "/api/player?name=x&player=y",
        "/api/player?name=x&min_games=0",
    ] {
        assert_eq!(get(&mut w, bad).0, 400, "{bad}");
    }
    // The API answers what the CLI prints.
    let (status, api) = get(&mut w, "/api/player?name=HU+RongHua&min_games=1&since=2002");
    assert_eq!(status, 200);
    let cli = player(&db, "HU RongHua", &["--min-games", "1", "--since", "2002"]);
    assert_eq!(api, cli);
}

#[test]
fn the_repertoire_pgn_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let db = imported(dir.path());
    let file = dir.path().join("rep.pgn");
    let d = player(
        &db,
        "胡榮華",
        &["--min-games", "1", "--pgn", file.to_str().unwrap()],
    );
    // `qipu convert` keeps every move of the tree (the variations too).
    let (code, text, err) = qipu(&["convert", file.to_str().unwrap(), "--notation", "iccs"]);
    assert_eq!(code, Some(0), "{err}");
    for side in [0, 1] {
        for first in plies(&mine(|_| true), side).0.keys() {
            assert!(text.contains(first.as_str()), "{first} in {text}");
        }
    }
    // `qipu import` reads one game per side: its main line is the most played line.
    let back = dir.path().join("rep.db");
    import_file(&file, &back, &[]);
    let (code, out, err) = qipu(&["explore", "--db", back.to_str().unwrap(), "--json"]);
    assert_eq!(code, Some(0), "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["games"], 2, "{v}");
    let mut firsts: Vec<String> = Vec::new();
    for key in ["first", "second"] {
        let mut at = &d["repertoire"][key][0]["moves"];
        let mut line = Vec::new();
        while let Some(m) = at.as_array().and_then(|a| a.first()) {
            line.push(m["move"].as_str().unwrap().to_string());
            at = &m["moves"];
        }
        firsts.push(line[0].clone());
        // The main line replays in the imported database: its last position has the game.
        let mut args = vec![
            "explore",
            "--db",
            back.to_str().unwrap(),
            "--json",
            "--moves",
        ];
        args.extend(line.iter().map(String::as_str));
        let (code, out, err) = qipu(&args);
        assert_eq!(code, Some(0), "{err}");
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["games"], 1, "{key}: {line:?} {v}");
    }
    let mut got: Vec<String> = v["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["move"].as_str().unwrap().to_string())
        .collect();
    got.sort();
    firsts.sort();
    firsts.dedup();
    assert_eq!(got, firsts);
}

/// Janggi: the formations the player chose with the score of each, one repertoire tree per
/// start, and the rank the name carried each year; counted by hand from four games.
#[test]
fn janggi_formations_ranks_and_starts() {
    use qipu::{
        explorer::{dossier, DossierQuery, Filter},
        formats::{Game, MoveNode, Source},
        rules::{Color, Formations, Outcome, Variant},
        store::{GameRecord, Store},
    };
    // (Cho, Han, Cho's formation, Han's, date, result).
    let games = [
        (
            "타이슨#401 5단",
            "김철수",
            "마상상마",
            "상마마상",
            "2020-05-01",
            Some(Color::First),
        ),
        (
            "타이슨#401 6단",
            "박영희",
            "마상상마",
            "상마마상",
            "2021-03-01",
            Some(Color::Second),
        ),
        (
            "타이슨#401 6단",
            "김철수",
            "상마마상",
            "상마마상",
            "2021-06-01",
            None,
        ),
        (
            "이영수",
            "타이슨#401 6단",
            "마상마상",
            "상마상마",
            "2021-08-01",
            Some(Color::Second),
        ),
    ];
    let records: Vec<GameRecord> = games
        .iter()
        .enumerate()
        .map(|(i, (cho, han, f1, f2, date, winner))| {
            let mut g = Game::new(
                Variant::Janggi,
                Source {
                    file: "j".into(),
                    index: i,
                },
            );
            let pair: Formations = format!("{f1}/{f2}").parse().unwrap();
            g.start_fen = Some(pair.start_fen());
            g.moves = vec![MoveNode::new("a3a4"), MoveNode::new("a6a5")];
            g.tags.first = Some(cho.to_string());
            g.tags.second = Some(han.to_string());
            g.tags.first_formation = Some(f1.to_string());
            g.tags.second_formation = Some(f2.to_string());
            g.tags.date = Some(date.to_string());
            g.tags.result = Some(match winner {
                Some(w) => Outcome::Decisive { winner: *w },
                None => Outcome::Draw,
            });
            GameRecord::from_game(&g, 40).unwrap()
        })
        .collect();
    let mut store = Store::open_in_memory().unwrap();
    store.write_batch(&records).unwrap();
    let q = DossierQuery::new("타이슨#401", Filter::default(), 10, 1).unwrap();
    let d = serde_json::to_value(dossier(&store, &q).unwrap()).unwrap();
    assert_eq!(d["games"], 4);
    // The person is named without the rank of the day.
    assert_eq!(d["player"], "타이슨#401");
    // As Cho: 마상상마 twice (a win, a loss), 상마마상 once (a draw); as Han: 상마상마 once (a win).
    let f = &d["formations"];
    let row = |side: &str, i: usize| {
        let r = &f[side][i];
        (r["name"].as_str().unwrap().to_string(), wdl_of(r))
    };
    assert_eq!(row("first", 0), ("마상상마".to_string(), (2, 1, 0, 1)));
    assert_eq!(row("first", 1), ("상마마상".to_string(), (1, 0, 1, 0)));
    assert_eq!(row("second", 0), ("상마상마".to_string(), (1, 1, 0, 0)));
    assert_eq!(f["first"].as_array().unwrap().len(), 2);
    // One tree per start: the two Cho formation pairs, the one Han pair.
    let trees = |side: &str| d["repertoire"][side].as_array().unwrap().len();
    assert_eq!((trees("first"), trees("second")), (2, 1));
    assert_eq!(d["repertoire"]["first"][0]["games"], 2);
    // The rank the name carried, by year.
    let ranks: Vec<(u64, String)> = d["by_year"]
        .as_array()
        .unwrap()
        .iter()
        .map(|y| {
            (
                y["year"].as_u64().unwrap(),
                y["rank"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        ranks,
        [(2020, "5단".to_string()), (2021, "6단".to_string())]
    );
}
