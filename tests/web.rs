//! `qipu serve`: every route over real HTTP on a free port, including the errors.

use std::{
    io::{BufRead, BufReader, Read, Write},
    net::{SocketAddr, TcpStream},
    process::{Command, Stdio},
    sync::OnceLock,
    thread,
    time::Duration,
};

use qipu::web::{Config, Server};
use serde_json::Value;

/// The server shared by the tests of this file (started once, on a free port).
fn server() -> SocketAddr {
    static ADDR: OnceLock<SocketAddr> = OnceLock::new();
    *ADDR.get_or_init(|| {
        let server = Server::bind(Config {
            addr: "127.0.0.1:0".to_string(),
            ..Config::default()
        })
        .expect("bind");
        let addr = server.local_addr();
        thread::spawn(move || server.run());
        addr
    })
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
    let stream = TcpStream::connect(server()).unwrap();
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
    let a = get(target);
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
            "GET /api/position?moves={moves} HTTP/1.1\r\nHost: x\r\n\r\n"
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
    let mut line = String::new();
    BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .split("http://")
        .nth(1)
        .map(|s| s.trim().trim_end_matches('/').to_string())
        .unwrap_or_default();
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
