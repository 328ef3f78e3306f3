//! `qipu serve`: every route over real HTTP on a free port, including the errors.

use std::{
    io::{BufRead, BufReader, Read, Write},
    net::{SocketAddr, TcpStream},
    path::PathBuf,
    process::{Command, Stdio},
    sync::OnceLock,
    thread,
    time::Duration,
};

use qipu::{
    formats::{Game, MoveNode, Source},
    rules::{Outcome, Variant},
    store::{GameRecord, Store},
    web::{Config, Server},
};
use serde_json::{json, Value};

/// Starts a server on a free port.
fn start(db: Option<PathBuf>) -> SocketAddr {
    let server = Server::bind(Config {
        addr: "127.0.0.1:0".to_string(),
        db,
        ..Config::default()
    })
    .expect("bind");
    let addr = server.local_addr();
    thread::spawn(move || server.run());
    addr
}

/// The server without a database shared by the tests of this file.
fn server() -> SocketAddr {
    static ADDR: OnceLock<SocketAddr> = OnceLock::new();
    *ADDR.get_or_init(|| start(None))
}

/// The server over [`test_db`].
fn db_server() -> SocketAddr {
    static ADDR: OnceLock<SocketAddr> = OnceLock::new();
    *ADDR.get_or_init(|| start(Some(test_db("explore"))))
}

struct G {
    variant: Variant,
    moves: &'static str,
    first: &'static str,
    second: &'static str,
    ratings: Option<(u32, u32)>,
    result: Option<Outcome>,
    date: &'static str,
    event: &'static str,
}

const RED: Option<Outcome> = Some(Outcome::Decisive {
    winner: qipu::rules::Color::First,
});
const BLACK: Option<Outcome> = Some(Outcome::Decisive {
    winner: qipu::rules::Color::Second,
});
const DRAW: Option<Outcome> = Some(Outcome::Draw);

/// The games of the test database; the expected statistics below are counted by hand from
/// this table.
const GAMES: &[G] = &[
    G {
        variant: Variant::Xiangqi,
        moves: "h2e2 h9g7 h0g2",
        first: "呂欽",
        second: "柳大華",
        ratings: Some((2600, 2550)),
        result: RED,
        date: "2007-01",
        event: "A Cup",
    },
    G {
        variant: Variant::Xiangqi,
        moves: "h2e2 h9g7 b0c2",
        first: "許銀川",
        second: "呂欽",
        ratings: Some((2650, 2600)),
        result: DRAW,
        date: "2008-05",
        event: "B Open",
    },
    G {
        variant: Variant::Xiangqi,
        moves: "h2e2 b9c7",
        first: "Ann",
        second: "Bo",
        ratings: None,
        result: BLACK,
        date: "2010",
        event: "Club",
    },
    G {
        variant: Variant::Xiangqi,
        moves: "c3c4",
        first: "Cy",
        second: "Di",
        ratings: None,
        result: RED,
        date: "1999",
        event: "Club",
    },
    G {
        variant: Variant::Janggi,
        moves: "h0g2 h9g7",
        first: "Kim",
        second: "Lee",
        ratings: None,
        result: BLACK,
        date: "2020-02-02",
        event: "Seoul",
    },
];

fn record(g: &G) -> GameRecord {
    let mut game = Game::new(g.variant, Source::default());
    game.moves = g.moves.split(' ').map(MoveNode::new).collect();
    game.tags.first = Some(g.first.into());
    game.tags.second = Some(g.second.into());
    game.tags.first_rating = g.ratings.map(|r| r.0);
    game.tags.second_rating = g.ratings.map(|r| r.1);
    game.tags.result = g.result;
    game.tags.date = Some(g.date.into());
    game.tags.event = Some(g.event.into());
    GameRecord::from_game(&game, 0).unwrap()
}

/// `target/test-web/PID/NAME`, with no file of that name (nor a WAL of it) left there.
fn fresh_db_path(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("target/test-web")
        .join(format!("{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    path
}

/// A fresh database of [`GAMES`] under `target/`.
pub fn test_db(name: &str) -> PathBuf {
    let path = fresh_db_path(&format!("{name}.db"));
    let mut store = Store::open(&path).unwrap();
    let records: Vec<GameRecord> = GAMES.iter().map(record).collect();
    assert_eq!(store.write_batch(&records).unwrap().imported, 5);
    path
}

/// A response: status, headers (lower-case names), body.
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// Reads one response (with Content-Length) from a connection.
fn read_answer(r: &mut BufReader<TcpStream>) -> Answer {
    let mut line = String::new();
    r.read_line(&mut line).unwrap();
    let status: u16 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        r.read_line(&mut h).unwrap();
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        let (k, v) = h.split_once(':').unwrap();
        headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
    }
    let len: usize = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .map(|(_, v)| v.parse().unwrap())
        .unwrap_or(0);
    let mut body = vec![0; len];
    r.read_exact(&mut body).unwrap();
    Answer {
        status,
        headers,
        body,
    }
}

fn request(method: &str, target: &str) -> Answer {
    request_to(server(), method, target)
}

fn request_to(addr: SocketAddr, method: &str, target: &str) -> Answer {
    let stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let mut w = stream.try_clone().unwrap();
    write!(
        w,
        "{method} {target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut r = BufReader::new(stream);
    if method == "HEAD" {
        let mut a = read_answer_head(&mut r);
        a.body.clear();
        return a;
    }
    read_answer(&mut r)
}

/// Like [`read_answer`] but without reading a body.
fn read_answer_head(r: &mut BufReader<TcpStream>) -> Answer {
    let mut all = String::new();
    r.read_to_string(&mut all).unwrap();
    let (head, body) = all.split_once("\r\n\r\n").unwrap();
    let mut lines = head.lines();
    let status = lines
        .next()
        .unwrap()
        .split_whitespace()
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    Answer {
        status,
        headers,
        body: body.as_bytes().to_vec(),
    }
}

fn get(target: &str) -> Answer {
    request("GET", target)
}

fn assert_error(target: &str, status: u16, needle: &str) {
    assert_error_at(server(), target, status, needle);
}

fn assert_error_at(addr: SocketAddr, target: &str, status: u16, needle: &str) {
    let a = request_to(addr, "GET", target);
    assert_eq!(a.status, status, "{target}: {}", a.text());
    assert!(a
        .header("content-type")
        .unwrap()
        .starts_with("application/json"));
    let v = a.json();
    assert_eq!(v["status"], status);
    let msg = v["error"].as_str().unwrap();
    assert!(msg.contains(needle), "{target}: `{msg}` lacks `{needle}`");
}

const START: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";

#[test]
fn position_start_and_after_moves() {
    let v = get("/api/position").json();
    assert_eq!(v["variant"], "xiangqi");
    assert_eq!(v["fen"], START);
    assert_eq!(v["turn"], "first");
    assert_eq!(v["check"], false);
    assert_eq!(v["end"], Value::Null);
    assert_eq!(v["pieces"].as_array().unwrap().len(), 32);
    // 44 legal first moves in Xiangqi (well-known perft(1)).
    assert_eq!(v["legal"].as_array().unwrap().len(), 44);
    assert!(v["legal"]
        .as_array()
        .unwrap()
        .contains(&Value::from("h2e2")));

    // Cannon to the centre, horse out: worked out by hand.
    let after = "rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR w - - 2 2";
    // WXF `+` must be escaped; Chinese is percent-encoded UTF-8 (炮二平五 馬８進７).
    for moves in [
        "h2e2,h9g7",
        "h2e2+h9g7",
        "H2-E2%20H9-G7",
        "h3e3,h10g8",
        "C2.5,H8%2B7",
        "%E7%82%AE%E4%BA%8C%E5%B9%B3%E4%BA%94,%E9%A6%AC%EF%BC%98%E9%80%B2%EF%BC%97",
    ] {
        let v = get(&format!("/api/position?variant=xiangqi&moves={moves}")).json();
        assert_eq!(v["fen"], after, "{moves}");
        assert_eq!(v["moves"], serde_json::json!(["h2e2", "h9g7"]), "{moves}");
        assert_eq!(v["start_fen"], START);
        assert_eq!(
            v["moves_notation"],
            serde_json::json!([
                {"wxf": "C2.5", "chinese": "炮二平五"},
                {"wxf": "H8+7", "chinese": "马８进７"}
            ])
        );
    }
    let v = get("/api/position").json();
    let legal = v["legal"].as_array().unwrap();
    let notes = v["legal_notation"].as_array().unwrap();
    assert_eq!(legal.len(), notes.len());
    let i = legal.iter().position(|m| m == "b0c2").unwrap();
    assert_eq!(notes[i]["wxf"], "H8+7");
    let v = get("/api/position?variant=janggi").json();
    assert_eq!(v["variant"], "janggi");
    assert_eq!(v["legal"].as_array().unwrap().len(), 32);
    assert!(v["legal"]
        .as_array()
        .unwrap()
        .contains(&Value::from("pass")));
}

#[test]
fn position_check_and_mate() {
    // Black king e9 checked by a rook on e5; d9 faces the red general on d0, e8 is on the
    // rook's file, so f9 is the only move.
    let fen = "4k4/9/9/9/4R4/9/9/9/9/3K5%20b%20-%20-%200%201";
    let v = get(&format!("/api/position?fen={fen}")).json();
    assert_eq!(v["turn"], "second");
    assert_eq!(v["check"], true);
    assert_eq!(v["legal"], serde_json::json!(["e9f9"]));
    // Two rooks on ranks 9 and 8: mate.
    let fen = "R3k4/R8/9/9/9/9/9/9/9/3K5%20b%20-%20-%200%201";
    let v = get(&format!("/api/position?fen={fen}")).json();
    assert_eq!(v["check"], true);
    assert_eq!(v["end"]["reason"], "checkmate");
    assert_eq!(v["end"]["result"], "1-0");
    assert_eq!(v["legal"], serde_json::json!([]));
    // No move after the end.
    assert_error(&format!("/api/position?fen={fen}&moves=e9f9"), 400, "over");
}

#[test]
fn bad_parameters_are_400() {
    assert_error("/api/position?variant=chess", 400, "chess");
    assert_error("/api/position?fen=xyz", 400, "fen");
    assert_error(
        "/api/position?fen=4k4/9/9/9/9/9/9/9/9/9%20w",
        400,
        "general",
    );
    assert_error("/api/position?moves=h2e2,h2e2", 400, "move 2");
    assert_error("/api/position?moves=h2h8", 400, "move 1");
    assert_error("/api/position?moves=zz99", 400, "move 1");
    assert_error(
        "/api/position?colour=red",
        400,
        "unknown parameter `colour`",
    );
    assert_error("/api/position?moves=%ff", 400, "UTF-8");
    assert_error("/api/position?moves=%g0", 400, "escape");
    assert_error("/api/position?variant=xiangqi&variant=janggi", 400, "twice");
    assert_error("/api/position?variant=janggi&rules=fide", 400, "rules");
    let long_fen = "9/".repeat(200);
    assert_error(&format!("/api/position?fen={long_fen}"), 400, "too long");
    let many = vec!["h2e2"; 700].join(",");
    assert_error(&format!("/api/position?moves={many}"), 400, "at most");
    let huge = "x".repeat(10_000);
    assert_error(&format!("/api/position?fen={huge}"), 414, "too long");
    assert_error("/api/status?x=1", 400, "unknown parameter");
}

#[test]
fn unknown_routes_and_methods() {
    assert_error("/nope", 404, "no such route");
    assert_error("/api/", 404, "no such route");
    assert_error("/api/position/extra", 404, "no such route");
    let a = request("POST", "/api/position");
    assert_eq!(a.status, 405);
    assert_eq!(a.header("allow"), Some("GET, HEAD"));
    let a = request("DELETE", "/");
    assert_eq!(a.status, 405);
}

#[test]
fn page_and_assets() {
    let a = get("/");
    assert_eq!(a.status, 200);
    assert!(a.header("content-type").unwrap().starts_with("text/html"));
    let html = a.text();
    assert!(html.contains("<svg id=\"board\""));
    assert!(html.contains("src=\"/app.js\""));
    for (path, kind) in [
        ("/app.js", "text/javascript"),
        ("/style.css", "text/css"),
        ("/favicon.svg", "image/svg+xml"),
    ] {
        let a = get(path);
        assert_eq!(a.status, 200, "{path}");
        assert!(
            a.header("content-type").unwrap().starts_with(kind),
            "{path}"
        );
        // Nothing is fetched from the internet: the only absolute URL is the SVG namespace.
        let text = a.text().replace("http://www.w3.org/2000/svg", "");
        assert!(
            !text.contains("http://") && !text.contains("https://"),
            "{path} refers to the internet"
        );
    }
    // The page's fonts (issue #30 item 12), referred to by the style sheet, and their licence.
    let css = get("/style.css").text();
    for font in ["fonts/qipu-board.woff2", "fonts/qipu-text.woff2"] {
        assert!(
            css.contains(&format!("url({font})")),
            "{font} not in the style sheet"
        );
        let a = get(&format!("/{font}"));
        assert_eq!(a.status, 200, "{font}");
        assert_eq!(a.header("content-type"), Some("font/woff2"));
        assert_eq!(&a.body[..4], b"wOF2", "{font} is not WOFF2");
    }
    let licence = get("/fonts/OFL.txt");
    assert!(licence.text().contains("SIL OPEN FONT LICENSE Version 1.1"));
    let a = request("HEAD", "/");
    assert_eq!(a.status, 200);
    assert!(a.body.is_empty());
    assert_eq!(
        a.header("content-length"),
        Some(html.len().to_string().as_str())
    );
}

#[test]
fn status_route() {
    let v = get("/api/status").json();
    assert_eq!(v["version"], env!("CARGO_PKG_VERSION"));
    assert!(v["database"].is_boolean());
    assert!(v["books"].is_array());
}

#[test]
fn keep_alive_and_concurrency() {
    // Several requests on one connection.
    let stream = TcpStream::connect(server()).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let mut w = stream.try_clone().unwrap();
    let mut r = BufReader::new(stream);
    for moves in ["h2e2", "b2e2", "zz"] {
        write!(
            w,
            "GET /api/position?moves={moves} HTTP/1.1\r\nHost: localhost\r\n\r\n"
        )
        .unwrap();
        let a = read_answer(&mut r);
        assert_eq!(a.status, if moves == "zz" { 400 } else { 200 });
    }
    // Many clients at once.
    let handles: Vec<_> = (0..8)
        .map(|i| {
            thread::spawn(move || {
                for j in 0..25 {
                    let target = if (i + j) % 5 == 0 {
                        "/api/position?moves=h2h8".to_string()
                    } else {
                        "/api/position?moves=h2e2,h9g7".to_string()
                    };
                    let a = get(&target);
                    assert_eq!(a.status, if (i + j) % 5 == 0 { 400 } else { 200 });
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}

#[test]
fn garbage_requests_do_not_break_the_server() {
    for junk in [
        "\r\n\r\n".to_string(),
        "GET\r\n\r\n".to_string(),
        "GET /api/position?moves=%E7%82%AE HTTP/1.1\r\n\r\n".to_string(),
        format!("GET /{} HTTP/1.1\r\n\r\n", "a".repeat(20_000)),
        "GET /api/position HTTP/9.9\r\n\r\n".to_string(),
        "\x00\x01\x02 garbage\r\n\r\n".to_string(),
    ] {
        if let Ok(mut s) = TcpStream::connect(server()) {
            s.set_read_timeout(Some(Duration::from_secs(1))).unwrap();
            let _ = s.write_all(junk.as_bytes());
            let mut sink = Vec::new();
            let _ = s.read_to_end(&mut sink);
        }
    }
    assert_eq!(get("/api/position").status, 200);
}

#[test]
fn cli_serve_binds_a_free_port() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_qipu"))
        .args(["serve", "--addr", "127.0.0.1:0", "--threads", "2"])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let addr = crate::common::serve_address(&mut child).unwrap_or_else(|line| line);
    let line = addr.clone();
    let result = (|| {
        let mut s = TcpStream::connect(&addr).ok()?;
        s.set_read_timeout(Some(Duration::from_secs(20))).ok()?;
        write!(s, "GET /api/status HTTP/1.1\r\nConnection: close\r\n\r\n").ok()?;
        let mut out = String::new();
        s.read_to_string(&mut out).ok()?;
        Some(out)
    })();
    let _ = child.kill();
    let _ = child.wait();
    assert!(addr.starts_with("127.0.0.1:"), "{line}");
    let out = result.expect("no answer from qipu serve");
    assert!(out.starts_with("HTTP/1.1 200"), "{out}");
    assert!(out.contains("\"version\""));
}

fn explore(query: &str) -> Value {
    let a = request_to(db_server(), "GET", &format!("/api/explore?{query}"));
    assert_eq!(a.status, 200, "{query}: {}", a.text());
    a.json()
}

/// (move, games, first_wins, draws, second_wins) of each row.
fn rows(v: &Value) -> Vec<(String, u64, u64, u64, u64)> {
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

fn totals(v: &Value) -> (u64, u64, u64, u64) {
    (
        v["games"].as_u64().unwrap(),
        v["first_wins"].as_u64().unwrap(),
        v["draws"].as_u64().unwrap(),
        v["second_wins"].as_u64().unwrap(),
    )
}

#[test]
fn explore_start_position() {
    let v = explore("variant=xiangqi");
    assert_eq!(v["variant"], "xiangqi");
    assert_eq!(totals(&v), (4, 2, 1, 1));
    assert_eq!(
        rows(&v),
        vec![("h2e2".into(), 3, 1, 1, 1), ("c3c4".into(), 1, 1, 0, 0)]
    );
    let m = &v["moves"][0];
    assert_eq!(m["notation"], json!({"wxf": "C2.5", "chinese": "炮二平五"}));
    // Red to move: (1 win + ½ draw) / 3 games.
    assert!((m["score"].as_f64().unwrap() - 0.5).abs() < 1e-9);
    assert!((v["moves"][1]["score"].as_f64().unwrap() - 1.0).abs() < 1e-9);
    let avg = m["avg_rating"].as_f64().unwrap();
    assert!((2550.0..=2650.0).contains(&avg), "{avg}");
    assert_eq!(v["moves"][1]["avg_rating"], Value::Null);
    let top = v["top_games"].as_array().unwrap();
    assert_eq!(top.len(), 4);
    // The same answer whether or not it came from the cache.
    assert_eq!(explore("variant=xiangqi"), v);
}

#[test]
fn explore_after_moves_and_filters() {
    // Black to move after the central cannon; any notation.
    for moves in ["h2e2", "C2.5", "H2-E2"] {
        let v = explore(&format!("moves={moves}"));
        assert_eq!(totals(&v), (3, 1, 1, 1), "{moves}");
        assert_eq!(
            rows(&v),
            vec![("h9g7".into(), 2, 1, 1, 0), ("b9c7".into(), 1, 0, 0, 1)]
        );
        // Black's score with h9g7: a loss and a draw.
        assert!((v["moves"][0]["score"].as_f64().unwrap() - 0.25).abs() < 1e-9);
        assert_eq!(v["moves"][0]["notation"]["wxf"], "H8+7");
    }
    let v = explore("player=%E5%91%82%E6%AC%BD"); // 呂欽, on either side
    assert_eq!(totals(&v), (2, 1, 1, 0));
    let v = explore("player=%E5%91%82%E6%AC%BD&side=first");
    assert_eq!(totals(&v), (1, 1, 0, 0));
    let v = explore("since=2008");
    assert_eq!(totals(&v), (2, 0, 1, 1));
    let v = explore("until=2007-12");
    assert_eq!(totals(&v), (2, 2, 0, 0));
    let v = explore("limit=1");
    assert_eq!(rows(&v).len(), 1);
    let v = explore("top_games=1");
    assert_eq!(v["top_games"].as_array().unwrap().len(), 1);
    let v = explore("variant=janggi");
    assert_eq!(totals(&v), (1, 0, 0, 1));
    assert_eq!(v["moves"][0]["move"], "h0g2");
    assert!(v["moves"][0]["notation"]["korean"].is_string());
    // A position nobody reached.
    let v = explore("moves=i3i4");
    assert_eq!(totals(&v), (0, 0, 0, 0));
    assert_eq!(rows(&v), vec![]);
}

#[test]
fn explore_errors() {
    let a = db_server();
    assert_error_at(a, "/api/explore?since=2007-13", 400, "since");
    assert_error_at(a, "/api/explore?since=2009&until=2008", 400, "after");
    assert_error_at(a, "/api/explore?side=first", 400, "player");
    assert_error_at(a, "/api/explore?min_rating=-5", 400, "min_rating");
    assert_error_at(a, "/api/explore?limit=99999", 400, "limit");
    assert_error_at(a, "/api/explore?moves=h2h8", 400, "move 1");
    assert_error_at(a, "/api/explore?fen=nonsense", 400, "fen");
    assert_error_at(a, "/api/explore?rating=2000", 400, "unknown parameter");
    // Without a database the routes say so.
    assert_error("/api/explore", 503, "no database");
    assert_error("/api/games/1", 503, "no database");
}

#[test]
fn games_route() {
    let v = explore("variant=xiangqi");
    let mut seen = Vec::new();
    for g in v["top_games"].as_array().unwrap() {
        let id = g["id"].as_i64().unwrap();
        let a = request_to(db_server(), "GET", &format!("/api/games/{id}"));
        assert_eq!(a.status, 200, "{}", a.text());
        let game = a.json();
        assert_eq!(game["id"], id);
        assert_eq!(game["variant"], "xiangqi");
        let first = g["first"].as_str().unwrap();
        let source = GAMES.iter().find(|x| x.first == first).unwrap();
        let moves: Vec<&str> = source.moves.split(' ').collect();
        assert_eq!(game["moves"], json!(moves));
        assert_eq!(game["result"], g["result"]);
        let pgn = game["pgn"].as_str().unwrap();
        assert!(pgn.contains(&format!("[Red \"{first}\"]")), "{pgn}");
        assert!(
            pgn.contains(&format!("[Date \"{}\"]", source.date)),
            "{pgn}"
        );
        assert!(
            pgn.contains("1. H2-E2") || pgn.contains("1. C3-C4"),
            "{pgn}"
        );
        seen.push(first.to_string());
    }
    seen.sort();
    assert_eq!(seen, vec!["Ann", "Cy", "呂欽", "許銀川"]);
    let a = db_server();
    assert_error_at(a, "/api/games/999999", 404, "no game");
    assert_error_at(a, "/api/games/abc", 400, "positive integer");
    assert_error_at(a, "/api/games/0", 400, "positive integer");
    assert_error_at(a, "/api/games/-3", 400, "positive integer");
    assert_error_at(a, "/api/games/", 400, "positive integer");
    assert_error_at(a, "/api/games/1?x=1", 400, "unknown parameter");
    assert_error_at(a, "/api/games/1/moves", 400, "positive integer");
}

#[test]
fn an_import_beside_the_server_shows_up() {
    let db = test_db("beside");
    let addr = start(Some(db.clone()));
    let count = || {
        let a = request_to(addr, "GET", "/api/explore?variant=janggi");
        assert_eq!(a.status, 200);
        a.json()["games"].as_u64().unwrap()
    };
    assert_eq!(count(), 1);
    assert_eq!(
        request_to(addr, "GET", "/api/status").json()["database"],
        true
    );
    // Another process-like writer adds a Janggi game while the server runs.
    let mut writer = Store::open(&db).unwrap();
    let extra = G {
        variant: Variant::Janggi,
        moves: "b0c2",
        first: "Park",
        second: "Choi",
        ratings: None,
        result: RED,
        date: "2021",
        event: "Busan",
    };
    assert_eq!(writer.write_batch(&[record(&extra)]).unwrap().imported, 1);
    // The cache looks at the database files every 250 ms: the new game shows up soon after.
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while count() != 2 {
        assert!(
            std::time::Instant::now() < deadline,
            "the new game never showed up"
        );
        thread::sleep(Duration::from_millis(50));
    }
}

/// An ElephantEye book of four drawn games of 1. c3c4 (weight 4 × 1 / 4 = 1; the start is
/// symmetric, so the mirror move g3g4 is stored too, books.md §1.4), as `target/…/NAME`.
pub fn eleeye_book(name: &str) -> PathBuf {
    use qipu::book::{build, eleeye, eleeye::EleeyeKeys, BookGame, BookOptions, Format};
    use qipu::rules::{AnyPosition, Move};
    let games = (0..4).map(|_| {
        Ok(BookGame {
            start: AnyPosition::new(Variant::Xiangqi),
            moves: vec!["c3c4".parse::<Move>().unwrap()],
            result: Some(Outcome::Draw),
        })
    });
    let built = build::<EleeyeKeys>(games, &BookOptions::for_format(Format::Eleeye)).unwrap();
    let mut bytes = Vec::new();
    eleeye::write(&built, &mut bytes).unwrap();
    let path = fresh_db_path(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn probe_route() {
    let path = eleeye_book("BOOK.DAT");
    let server = Server::bind(Config {
        addr: "127.0.0.1:0".to_string(),
        books: vec![("BOOK.DAT".to_string(), path)],
        ..Config::default()
    })
    .unwrap();
    let addr = server.local_addr();
    thread::spawn(move || server.run());

    let status = request_to(addr, "GET", "/api/status").json();
    assert_eq!(status["books"], json!(["BOOK.DAT"]));
    for target in ["/api/probe", "/api/probe?book=BOOK.DAT&variant=xiangqi"] {
        let v = request_to(addr, "GET", target).json();
        assert_eq!(v["book"], "BOOK.DAT");
        assert_eq!(v["format"], "eleeye");
        let moves = crate::common::move_rows(&v, "weight");
        assert_eq!(moves, vec![("c3c4".into(), 1), ("g3g4".into(), 1)]);
    }
    let v = request_to(addr, "GET", "/api/probe?moves=h2e2").json();
    assert_eq!(v["moves"], json!([]));
    assert_error_at(addr, "/api/probe?book=other.obk", 400, "BOOK.DAT");
    assert_error_at(addr, "/api/probe?moves=h2h8", 400, "move 1");
    assert_error_at(addr, "/api/probe?colour=x", 400, "unknown parameter");
    // A BOOK.DAT holds Xiangqi only.
    assert_error_at(addr, "/api/probe?variant=janggi", 400, "");
    assert_error("/api/probe", 503, "no books");
}

/// One table of explorer queries, each written once as `qipu explore` arguments and once as
/// an `/api/explore` query string: both accept it and print the same JSON, or both refuse it.
#[test]
fn the_cli_and_the_api_accept_the_same_queries() {
    // A Janggi line that continues while the generals face each other (bikjang): legal under
    // the server rules the games are replayed under, refused by the tournament rules.
    const BIKJANG: &str = "e3d3 e6f6 a0a1";
    let ok: &[(&[&str], &str)] = &[
        (&[], ""),
        (&["--variant", "janggi"], "variant=janggi"),
        (&["--variant", "Janggi"], "variant=Janggi"),
        (&["--moves", "h2e2"], "moves=h2e2"),
        (&["--moves", "C2.5", "h9g7"], "moves=C2.5,h9g7"),
        (&["--moves", "h2e2,h9g7"], "moves=h2e2+h9g7"),
        (
            &["--moves", "炮二平五"],
            "moves=%E7%82%AE%E4%BA%8C%E5%B9%B3%E4%BA%94",
        ),
        (&["--player", "呂欽"], "player=%E5%91%82%E6%AC%BD"),
        (
            &["--player", "呂欽", "--side", "red"],
            "player=%E5%91%82%E6%AC%BD&side=red",
        ),
        (
            &["--player", "呂欽", "--side", "Black"],
            "player=%E5%91%82%E6%AC%BD&side=Black",
        ),
        (
            &["--player", "kim", "--side", "cho", "--variant", "janggi"],
            "player=kim&side=cho&variant=janggi",
        ),
        (
            &["--player", "LEE", "--side", "han", "--variant", "janggi"],
            "player=LEE&side=han&variant=janggi",
        ),
        (
            &["--player", "ann", "--side", "first"],
            "player=ann&side=first",
        ),
        (
            &["--player", "Bo", "--side", "second"],
            "player=Bo&side=second",
        ),
        (&["--since", "2008"], "since=2008"),
        (&["--until", "2007-12"], "until=2007-12"),
        (
            &["--since", "2007.01.01", "--until", "2010-03-13"],
            "since=2007.01.01&until=2010-03-13",
        ),
        (&["--min-rating", "2600"], "min_rating=2600"),
        (
            &["--min-rating", "2500", "--max-rating", "2600"],
            "min_rating=2500&max_rating=2600",
        ),
        (&["--event", "cup"], "event=cup"),
        (&["--speed", "blitz,rapid"], "speed=blitz,rapid"),
        (&["--mode", "rated"], "mode=rated"),
        (&["--mirror", "--moves", "h2e2"], "mirror=1&moves=h2e2"),
        (&["--limit", "1"], "limit=1"),
        (&["--top-games", "0"], "top_games=0"),
        (&["--top-games", "1"], "top_games=1"),
        (
            &["--moves", "h2e2", "--top-move", "马８进７"],
            "moves=h2e2&top_move=%E9%A9%AC%EF%BC%98%E8%BF%9B%EF%BC%97",
        ),
        (
            &["--variant", "janggi", "--moves", BIKJANG],
            "variant=janggi&moves=e3d3,e6f6,a0a1",
        ),
        (
            &[
                "--variant",
                "janggi",
                "--rules",
                "server",
                "--moves",
                BIKJANG,
            ],
            "variant=janggi&rules=server&moves=e3d3,e6f6,a0a1",
        ),
        (&["--moves", "i3i4"], "moves=i3i4"),
        // Janggi formations: by letters, by names, with or without the variant; a Janggi
        // FEN without the variant.
        (
            &["--setup", "마상상마/마상상마"],
            "setup=%EB%A7%88%EC%83%81%EC%83%81%EB%A7%88/%EB%A7%88%EC%83%81%EC%83%81%EB%A7%88",
        ),
        (
            &["--setup", "outer/wonangma", "--variant", "janggi"],
            "setup=outer/wonangma&variant=janggi",
        ),
        (
            &["--setup", "left-gwima/right-gwima", "--moves", "e3d3"],
            "setup=left-gwima/right-gwima&moves=e3d3",
        ),
        (
            &["--fen", Variant::Janggi.start_fen()],
            "fen=rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR+w+-+-+0+1",
        ),
        (
            &["--variant", "janggi", "--player", "kim"],
            "variant=janggi&player=kim",
        ),
    ];
    let bad: &[(&[&str], &str)] = &[
        (&["--since", "yesterday"], "since=yesterday"),
        (&["--since", "2010-13"], "since=2010-13"),
        (&["--until", "2010-02-30"], "until=2010-02-30"),
        (
            &["--since", "2009", "--until", "2008"],
            "since=2009&until=2008",
        ),
        (&["--player", "x", "--side", "white"], "player=x&side=white"),
        (&["--side", "red"], "side=red"),
        (
            &["--min-rating", "2600", "--max-rating", "2500"],
            "min_rating=2600&max_rating=2500",
        ),
        (&["--max-rating", "20000"], "max_rating=20000"),
        (&["--min-rating", "-5"], "min_rating=-5"),
        (&["--speed", "hyper"], "speed=hyper"),
        (&["--mode", "ranked"], "mode=ranked"),
        (
            &["--variant", "janggi", "--rules", "kakao"],
            "variant=janggi&rules=kakao",
        ),
        (
            &[
                "--variant",
                "janggi",
                "--rules",
                "tournament",
                "--moves",
                BIKJANG,
            ],
            "variant=janggi&rules=tournament&moves=e3d3,e6f6,a0a1",
        ),
        (&["--variant", "chess"], "variant=chess"),
        (&["--fen", "nonsense"], "fen=nonsense"),
        (&["--moves", "h2h8"], "moves=h2h8"),
        (&["--limit", "100000"], "limit=100000"),
        (&["--top-games", "1000"], "top_games=1000"),
        (
            &["--moves", "h2e2", "--top-move", "h2e2"],
            "moves=h2e2&top_move=h2e2",
        ),
        (&["--setup", "inner"], "setup=inner"),
        (&["--setup", "inner/middle"], "setup=inner/middle"),
        (
            &["--setup", "inner/inner", "--variant", "xiangqi"],
            "setup=inner/inner&variant=xiangqi",
        ),
        (
            &["--setup", "inner/inner", "--fen", Variant::Janggi.start_fen()],
            "setup=inner/inner&fen=rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR+w",
        ),
    ];
    let db = test_db("table");
    let addr = start(Some(db.clone()));
    let cli = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_qipu"))
            .args(["explore", "--json", "--db", db.to_str().unwrap()])
            .args(args)
            .output()
            .unwrap();
        let json = serde_json::from_slice::<Value>(&out.stdout).ok();
        (
            out.status.code(),
            json,
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    for (args, query) in ok {
        let (code, json, err) = cli(args);
        // Exit 1 is "nothing found": an answer of no game (the rule of every command).
        let games = json.as_ref().and_then(|j| j["games"].as_u64());
        let want = if games == Some(0) { 1 } else { 0 };
        assert_eq!(code, Some(want), "{args:?}: {err}");
        let a = request_to(addr, "GET", &format!("/api/explore?{query}"));
        assert_eq!(a.status, 200, "{query}: {}", a.text());
        assert_eq!(json.unwrap(), a.json(), "{args:?} vs {query}");
    }
    for (args, query) in bad {
        let (code, _, err) = cli(args);
        assert_eq!(code, Some(2), "{args:?} was accepted");
        assert!(!err.trim().is_empty(), "{args:?}: no message");
        let a = request_to(addr, "GET", &format!("/api/explore?{query}"));
        assert_eq!(a.status, 400, "{query}: {}", a.text());
    }
    // A name that is no player: exit 2 in the terminal, 404 from the API, the same message
    // naming the nearest player.
    let (code, _, err) = cli(&["--player", "an"]);
    assert_eq!(code, Some(2), "{err}");
    let a = request_to(addr, "GET", "/api/explore?player=an");
    assert_eq!(a.status, 404, "{}", a.text());
    for text in [err, a.text()] {
        assert!(
            text.contains("no such player an; did you mean: Ann (1 game)?"),
            "{text}"
        );
    }
}

/// The answer counts only decided games as statistics, and says why it has no games.
#[test]
fn explore_decided_games_and_empty_answers() {
    // Every game of the test database has a known result.
    let v = explore("variant=xiangqi");
    assert_eq!(
        (v["games"].as_u64(), v["decided"].as_u64()),
        (Some(4), Some(4))
    );
    assert_eq!(v["no_games"], Value::Null);
    let v = explore("moves=i3i4");
    assert_eq!(v["no_games"], "not_reached");
    let v = explore("since=2999");
    assert_eq!(v["no_games"], "filtered");
    // A name that is no player is not "filtered": 404, naming it.
    let a = request_to(db_server(), "GET", "/api/explore?player=nobody");
    assert_eq!(a.status, 404, "{}", a.text());
    assert!(a.text().contains("no such player nobody"), "{}", a.text());
    assert_eq!(explore("top_games=0")["top_games"], json!([]));
    // The Janggi start explored as Xiangqi (the variant said): a legal Xiangqi position that
    // no Xiangqi game reaches, but the Janggi game does.
    let janggi_start = Variant::Janggi.start_fen().replace(' ', "+");
    let v = explore(&format!("variant=xiangqi&fen={janggi_start}"));
    assert_eq!(
        (v["games"].as_u64(), v["variant"].as_str()),
        (Some(0), Some("xiangqi"))
    );
    assert_eq!(v["no_games"], "other_variant");
    // Without the variant, the FEN is read as the game its board belongs to: the Janggi game.
    let v = explore(&format!("fen={janggi_start}"));
    assert_eq!(
        (v["games"].as_u64(), v["variant"].as_str()),
        (Some(1), Some("janggi"))
    );
    // Whole folded names, not substrings: `an` is nobody (404), `ANN` is Ann.
    let a = request_to(db_server(), "GET", "/api/explore?player=an");
    assert_eq!(a.status, 404, "{}", a.text());
    assert_eq!(totals(&explore("player=ANN")), (1, 0, 0, 1));
}

/// Janggi games from three formation pairs, counted by hand: (Cho/Han formations, moves,
/// result). The default pair 마상상마/마상상마 has one game, 상마마상/마상상마 two (a Cho win and a
/// draw), 상마상마/마상마상 one with no known result.
const FORMATION_GAMES: &[(&str, &str, Option<Outcome>)] = &[
    ("마상상마/마상상마", "e3d3 e6f6", BLACK),
    ("상마마상/마상상마", "e3d3 e6f6", RED),
    ("상마마상/마상상마", "a3b3", DRAW),
    ("상마상마/마상마상", "e3d3", None),
];

/// A fresh database of [`FORMATION_GAMES`] under `target/`.
pub fn formation_db() -> PathBuf {
    let path = fresh_db_path("formations.db");
    let mut store = Store::open(&path).unwrap();
    let records: Vec<GameRecord> = FORMATION_GAMES
        .iter()
        .map(|(pair, moves, result)| {
            let mut game = Game::new(Variant::Janggi, Source::default());
            // The start board written out by hand from the formation table (b, c, g, h files).
            let back = |f: &str| -> String {
                let l: Vec<char> = f
                    .chars()
                    .map(|c| if c == '마' { 'N' } else { 'B' })
                    .collect();
                format!("R{}{}A1A{}{}R", l[0], l[1], l[2], l[3])
            };
            let (cho, han) = pair.split_once('/').unwrap();
            game.start_fen = Some(format!(
                "{}/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/{} w - - 0 1",
                back(han).to_lowercase(),
                back(cho)
            ));
            game.moves = moves.split(' ').map(MoveNode::new).collect();
            game.tags.result = *result;
            GameRecord::from_game(&game, 0).unwrap()
        })
        .collect();
    assert_eq!(store.write_batch(&records).unwrap().imported, 4);
    path
}

/// A database without a Janggi game: `variant=janggi` answers no games and an empty
/// formation list (with a filter too), and a Janggi game written beside the server brings the
/// list (counted by hand: the one game, from the default pair) and its game.
#[test]
fn janggi_formations_of_a_database_without_janggi_games() {
    let path = fresh_db_path("xiangqi-only.db");
    let mut store = Store::open(&path).unwrap();
    let xiangqi: Vec<GameRecord> = GAMES
        .iter()
        .filter(|g| g.variant == Variant::Xiangqi)
        .map(record)
        .collect();
    assert_eq!(store.write_batch(&xiangqi).unwrap().imported, 4);
    let addr = start(Some(path.clone()));
    let api = |q: &str| {
        let a = request_to(addr, "GET", &format!("/api/explore?{q}"));
        assert_eq!(a.status, 200, "{q}: {}", a.text());
        a.json()
    };
    for q in [
        "variant=janggi",
        "variant=janggi&since=2000&min_rating=1000",
    ] {
        let v = api(q);
        assert_eq!(v["games"], 0, "{q}");
        assert_eq!(v["no_games"], "empty_database", "{q}");
        assert_eq!(v["formations"], serde_json::json!([]), "{q}");
    }
    let janggi: Vec<GameRecord> = GAMES
        .iter()
        .filter(|g| g.variant == Variant::Janggi)
        .map(record)
        .collect();
    assert_eq!(store.write_batch(&janggi).unwrap().imported, 1);
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    let v = loop {
        let v = api("variant=janggi");
        if v["games"] != 0 {
            break v;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the game never showed up"
        );
        thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(v["games"], 1);
    let listed = v["formations"].as_array().unwrap();
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0]["games"], 1);
}

/// `--variant janggi` alone lists the formation pairs with their games; `--setup` explores
/// one pair's start; the CLI and the API agree.
#[test]
fn janggi_formations_are_listed_and_chosen() {
    let db = formation_db();
    let addr = start(Some(db.clone()));
    let api = |q: &str| {
        let a = request_to(addr, "GET", &format!("/api/explore?{q}"));
        assert_eq!(a.status, 200, "{q}: {}", a.text());
        a.json()
    };
    let v = api("variant=janggi");
    // The default start: one game; the list: three pairs, most games first.
    assert_eq!(v["games"], 1);
    let listed: Vec<(String, u64, u64, u64, u64, u64)> = v["formations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let n = |k: &str| f[k].as_u64().unwrap();
            (
                f["setup"].as_str().unwrap().to_string(),
                n("games"),
                n("decided"),
                n("first_wins"),
                n("draws"),
                n("second_wins"),
            )
        })
        .collect();
    assert_eq!(
        listed,
        vec![
            ("상마마상/마상상마".to_string(), 2, 2, 1, 1, 0),
            ("마상상마/마상상마".to_string(), 1, 1, 0, 0, 1),
            ("상마상마/마상마상".to_string(), 1, 0, 0, 0, 0),
        ]
    );
    assert_eq!(v["formations"][0]["names"], "yanggwima/wonangma");
    // Filters apply to the list too; a move, a FEN or a setup leaves it out.
    let decided: Vec<u64> = api("variant=janggi&since=1900")["formations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["games"].as_u64().unwrap())
        .collect();
    assert!(decided.is_empty(), "games without a date fail a date bound");
    for q in [
        "variant=janggi&moves=e3d3",
        "setup=inner/inner",
        "variant=janggi&fen=rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR+w",
    ] {
        assert!(api(q).get("formations").is_none(), "{q}");
    }
    // One pair chosen by its letters or its names: its two games, the moves played from it.
    let v = api("setup=outer/inner");
    assert_eq!(totals(&v), (2, 1, 1, 0));
    assert_eq!(
        rows(&v),
        vec![("a3b3".into(), 1, 0, 1, 0), ("e3d3".into(), 1, 1, 0, 0)]
    );
    // The CLI prints the same JSON, and the table lists the pairs.
    let cli = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_qipu"))
            .args(["explore", "--no-board", "--db", db.to_str().unwrap()])
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let json: Value = serde_json::from_str(&cli(&["--json", "--variant", "janggi"])).unwrap();
    assert_eq!(json, api("variant=janggi"));
    let json: Value = serde_json::from_str(&cli(&["--json", "--setup", "양귀마/원앙마"])).unwrap();
    assert_eq!(json, api("setup=outer/inner"));
    let table = cli(&["--variant", "janggi"]);
    assert!(table.contains("4 games from 3 pairs"), "{table}");
    let row = table
        .lines()
        .find(|l| l.trim_start().starts_with("상마마상/마상상마"))
        .unwrap_or_else(|| panic!("{table}"));
    assert!(
        row.contains("yanggwima/wonangma") && row.contains(" 2 "),
        "{row}"
    );
}

/// On the real `.gib` corpus: the formation list equals a count of the stored games by the
/// back ranks of their start FENs (read here from the FEN text), and agrees with the games'
/// own `초차림`/`한차림` tags where they have them.
#[test]
#[ignore = "needs ../shared (run by .ci/run)"]
fn formation_counts_equal_a_scan_of_the_gib_corpus() {
    use qipu::{
        explorer::{explore, formation_counts, Query, EXPLORE_RULES},
        formats::read_path,
        notation::Line,
        pipeline::{import, ImportOptions},
    };
    let Some(shared) = crate::common::shared_dir() else {
        panic!("no ../shared");
    };
    let games: Vec<Game> = read_path(&shared.join("data/janggi/gib"))
        .filter_map(Result::ok)
        .collect();
    let mut store = Store::open_in_memory().unwrap();
    import(
        &mut store,
        games.into_iter().map(Ok),
        &ImportOptions::default(),
        |_| {},
    )
    .unwrap();
    // The scan: each stored game's pair from the b, c, g, h files of its two back ranks.
    let mut scan: std::collections::BTreeMap<String, (u64, u64)> = Default::default();
    let mut all = 0u64;
    let mut tagged = 0u64;
    // Games from a board that is no formation pair (handicaps, problems), counted here.
    let mut other = 0u64;
    for g in store.games(Variant::Janggi) {
        let g = g.unwrap();
        all += 1;
        let fields: Vec<&str> = g.start_fen.split(' ').collect();
        let rows: Vec<&str> = fields[0].split('/').collect();
        let middle = "4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4";
        if fields.get(1) != Some(&"w") || rows.len() != 10 || rows[1..9].join("/") != middle {
            other += 1;
            continue;
        }
        let side = |row: &str| -> Option<String> {
            let c: Vec<char> = row.to_ascii_uppercase().chars().collect();
            if c.len() != 9
                || c[0] != 'R'
                || c[3] != 'A'
                || c[4] != '1'
                || c[5] != 'A'
                || c[8] != 'R'
            {
                return None;
            }
            let letters: String = [c[1], c[2], c[6], c[7]]
                .iter()
                .map(|p| match p {
                    'N' => '마',
                    'B' => '상',
                    _ => '?',
                })
                .collect();
            (!letters.contains('?')).then_some(letters)
        };
        let (Some(han), Some(cho)) = (side(rows[0]), side(rows[9])) else {
            other += 1;
            continue;
        };
        let pair = format!("{cho}/{han}");
        if let (Some(c), Some(h)) = (&g.tags.first_formation, &g.tags.second_formation) {
            tagged += 1;
            assert_eq!(format!("{c}/{h}"), pair, "game {} ({:?})", g.id, g.source);
        }
        let e = scan.entry(pair).or_default();
        e.0 += 1;
        e.1 += u64::from(g.result.is_some());
    }
    assert!(
        all > 20_000 && tagged > 10_000,
        "{all} games, {tagged} tagged"
    );
    let q = Query::at(Line::start(Variant::Janggi, EXPLORE_RULES));
    let listed = formation_counts(&store, &q).unwrap();
    let got: std::collections::BTreeMap<String, (u64, u64)> = listed
        .iter()
        .map(|f| (f.setup.clone(), (f.games, f.decided)))
        .collect();
    assert_eq!(got, scan);
    let from_pairs: u64 = listed.iter().map(|f| f.games).sum();
    let default = explore(&store, &q).unwrap().counts.games;
    // The default start (마상상마/마상상마) is one of the pairs: its games are in `from_pairs`.
    eprintln!(
        "{all} Janggi games = {from_pairs} from {} formation pairs (of which {default} from the \
         default start) + {other} from other boards",
        listed.len(),
    );
    assert_eq!(from_pairs + other, all);
    assert_eq!(got.get("마상상마/마상상마").map(|c| c.0), Some(default));
    assert!(from_pairs > 15 * default, "{from_pairs} vs {default}");
}
