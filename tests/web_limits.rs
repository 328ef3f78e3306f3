//! `qipu serve` against slow and hostile clients, and what it lets other origins see: slowloris
//! connections are closed within the head timeout while other clients are answered, a full
//! server answers 503, malformed requests get 400 and a close, no CORS header unless asked
//! for, and source paths without their folders unless asked for.

use std::{
    io::{BufRead, BufReader, Read, Write},
    net::{SocketAddr, TcpStream},
    path::PathBuf,
    thread,
    time::{Duration, Instant},
};

use qipu::{
    formats::{Game, MoveNode, Source},
    rules::Variant,
    store::{GameRecord, Store},
    web::{Config, Server, Timeouts},
};

fn start(config: Config) -> SocketAddr {
    crate::common::start_server(config)
}

fn short_timeouts() -> Timeouts {
    Timeouts {
        head: Duration::from_secs(2),
        body: Duration::from_secs(2),
        idle: Duration::from_secs(1),
        write: Duration::from_secs(2),
    }
}

/// Sends raw bytes and reads everything until the server closes (at most 10 s).
fn raw(addr: SocketAddr, bytes: &[u8]) -> (String, bool) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(12))).unwrap();
    let _ = s.write_all(bytes);
    let mut out = Vec::new();
    let closed = s.read_to_end(&mut out).is_ok();
    (String::from_utf8_lossy(&out).into_owned(), closed)
}

/// Status and lower-cased head of one `GET` with `Connection: close`.
fn get(addr: SocketAddr, target: &str) -> (u16, String, String) {
    let (text, _) = raw(
        addr,
        format!("GET {target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n").as_bytes(),
    );
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, head.to_ascii_lowercase(), body.to_string())
}

#[test]
fn slowloris_connections_are_closed_while_others_are_answered() {
    let limits = short_timeouts();
    let addr = start(Config {
        max_connections: 64,
        timeouts: limits,
        ..Config::default()
    });
    let started = Instant::now();
    let mut slow: Vec<TcpStream> = (0..48)
        .map(|_| {
            let s = TcpStream::connect(addr).unwrap();
            s.set_nonblocking(true).unwrap();
            s
        })
        .collect();
    let mut closed_after: Vec<Option<Duration>> = vec![None; slow.len()];
    let mut answers = Vec::new();
    // One header byte per connection every 400 ms for 5 s (the head timeout is 2 s), and a
    // normal request in between.
    for round in 0..13 {
        for (i, s) in slow.iter_mut().enumerate() {
            if closed_after[i].is_some() {
                continue;
            }
            let byte = b"GET / HTTP/1.1\r\nX: y"[round % 20];
            let mut buf = [0u8; 512];
            let gone = match s.read(&mut buf) {
                Ok(n) => {
                    // An answer (408) or the end: the server closed it.
                    if n > 0 {
                        let text = String::from_utf8_lossy(&buf[..n]);
                        assert!(text.starts_with("HTTP/1.1 408"), "{text}");
                    }
                    true
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    s.write_all(&[byte]).is_err()
                }
                Err(_) => true,
            };
            if gone {
                closed_after[i] = Some(started.elapsed());
            }
        }
        let (status, _, _) = get(addr, "/api/position?moves=h2e2");
        answers.push(status);
        thread::sleep(Duration::from_millis(400));
    }
    assert!(answers.iter().all(|&s| s == 200), "{answers:?}");
    for (i, t) in closed_after.iter().enumerate() {
        let t = t.unwrap_or_else(|| panic!("slow connection {i} still open after 5 s"));
        // Closed at the head timeout, not before (give the checks above a second).
        assert!(t >= limits.head, "connection {i} closed after {t:?}");
        assert!(
            t < limits.head + Duration::from_millis(1500),
            "connection {i}: {t:?}"
        );
    }
}

#[test]
fn a_full_server_closes_its_oldest_idle_connection_for_a_newcomer() {
    let addr = start(Config {
        max_connections: 2,
        timeouts: short_timeouts(),
        ..Config::default()
    });
    let mut a = TcpStream::connect(addr).unwrap();
    thread::sleep(Duration::from_millis(50));
    let b = TcpStream::connect(addr).unwrap();
    thread::sleep(Duration::from_millis(200));
    // Full: the newcomer is answered, and the oldest idle connection (`a`) makes room,
    // closed at once without an answer.
    let since = Instant::now();
    let (status, head, _) = get(addr, "/api/status");
    assert_eq!(status, 200, "{head}");
    a.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut out = Vec::new();
    a.read_to_end(&mut out).unwrap();
    assert!(out.is_empty(), "{}", String::from_utf8_lossy(&out));
    assert!(
        since.elapsed() < Duration::from_secs(1),
        "{:?}",
        since.elapsed()
    );
    // `b` is still open, and closed without an answer at the head timeout.
    let mut b = b;
    b.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut out = Vec::new();
    b.read_to_end(&mut out).unwrap();
    assert!(out.is_empty(), "{}", String::from_utf8_lossy(&out));
    assert!(
        since.elapsed() >= Duration::from_millis(1500),
        "{:?}",
        since.elapsed()
    );
    thread::sleep(Duration::from_millis(100));
    assert_eq!(get(addr, "/api/status").0, 200);
    // A kept-alive connection is closed after the idle timeout.
    let s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut w = s.try_clone().unwrap();
    let mut r = BufReader::new(s);
    w.write_all(b"GET /api/status HTTP/1.1\r\n\r\n").unwrap();
    let mut line = String::new();
    r.read_line(&mut line).unwrap();
    assert!(line.starts_with("HTTP/1.1 200"), "{line}");
    let since = Instant::now();
    let mut rest = Vec::new();
    r.read_to_end(&mut rest).unwrap();
    assert!(since.elapsed() < Duration::from_secs(5));
}

#[test]
fn malformed_requests_get_400_and_a_close() {
    let addr = start(Config::default());
    for junk in [
        &b"GET /\xe7\x82\xae HTTP/1.1\r\nHost: x\r\n\r\n"[..],
        b"GET /api/position?moves=\xff HTTP/1.1\r\n\r\n",
        b"\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03\r\n\r\n",
        b"\x00\x01\x02 garbage\r\n\r\n",
        b"GET / HTTP/9.9\r\n\r\n",
        b"GET / HTTP/1.1\r\nBad Header\r\n\r\n",
    ] {
        let (text, closed) = raw(addr, junk);
        assert!(
            text.starts_with("HTTP/1.1 400 "),
            "{:?}: {text:?}",
            String::from_utf8_lossy(junk)
        );
        assert!(
            text.to_ascii_lowercase().contains("connection: close"),
            "{text}"
        );
        assert!(
            closed,
            "{:?}: the connection stayed open",
            String::from_utf8_lossy(junk)
        );
    }
    // HTTP/2's preface on this HTTP/1 server is closed at once (hyper answers nothing); empty
    // lines before a request are ignored (RFC 9112, 2.2), so these wait for one, at most
    // the head timeout (10 s here).
    for (junk, within) in [
        (&b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"[..], 2),
        (b"\r\n\r\n", 11),
    ] {
        let since = Instant::now();
        let (text, closed) = raw(addr, junk);
        assert!(
            text.is_empty() || text.starts_with("HTTP/1.1 400 "),
            "{text}"
        );
        assert!(closed && since.elapsed() < Duration::from_secs(within));
    }
    // Garbage without a line end is refused at its first byte (400), not waited for; a
    // request line longer than the head limit is 414 or 431.
    let since = Instant::now();
    let (text, closed) = raw(addr, &vec![0xAB; 64 * 1024]);
    assert!(text.starts_with("HTTP/1.1 400 "), "{text:?}");
    assert!(closed && since.elapsed() < Duration::from_secs(2));
    let long = format!("GET /{} HTTP/1.1\r\n", "a".repeat(64 * 1024));
    let (text, closed) = raw(addr, long.as_bytes());
    assert!(
        text.starts_with("HTTP/1.1 414 ") || text.starts_with("HTTP/1.1 431 "),
        "{text:?}"
    );
    assert!(closed);
    // A body is read (and dropped) and the next request on the connection is answered.
    let (text, _) = raw(
        addr,
        b"POST /api/status HTTP/1.1\r\nContent-Length: 5\r\n\r\nhelloGET /api/status HTTP/1.1\r\nConnection: close\r\n\r\n",
    );
    assert!(text.starts_with("HTTP/1.1 405 "), "{text}");
    assert_eq!(text.matches("HTTP/1.1 ").count(), 2, "{text}");
    assert!(text.contains("HTTP/1.1 200 OK"), "{text}");
}

#[test]
fn same_origin_unless_one_origin_is_allowed() {
    let addr = start(Config::default());
    let (status, head, _) = get(addr, "/api/status");
    assert_eq!(status, 200);
    assert!(!head.contains("access-control-allow-origin"), "{head}");
    let addr = start(Config {
        cors: Some("https://example.org".into()),
        ..Config::default()
    });
    let (_, head, _) = get(addr, "/api/position");
    assert!(
        head.contains("\r\naccess-control-allow-origin: https://example.org\r\n"),
        "{head}"
    );
    let bad = Server::bind(Config {
        addr: "127.0.0.1:0".into(),
        cors: Some("https://example.org\r\nX-Evil: 1".into()),
        ..Config::default()
    });
    assert!(bad.unwrap_err().to_string().contains("--cors"));
}

fn db_with_a_private_path() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("target/test-web-limits")
        .join(std::process::id().to_string());
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("paths.db");
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    let mut store = Store::open(&path).unwrap();
    let source = Source {
        file: "/home/someone/private/games/2020.zip:round 1/a.pgn".into(),
        index: 3,
    };
    let mut game = Game::new(Variant::Xiangqi, source);
    game.moves = vec![MoveNode::new("h2e2"), MoveNode::new("h9g7")];
    let record = GameRecord::from_game(&game, 0).unwrap();
    assert_eq!(store.write_batch(&[record]).unwrap().imported, 1);
    path
}

#[test]
fn source_paths_keep_their_folders_private() {
    let db = db_with_a_private_path();
    let source = |show_paths: bool| {
        let addr = start(Config {
            db: Some(db.clone()),
            show_paths,
            ..Config::default()
        });
        let (status, _, body) = get(addr, "/api/games/1");
        assert_eq!(status, 200, "{body}");
        let v: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(v["source"]["index"], 3);
        v["source"]["file"].as_str().unwrap().to_string()
    };
    assert_eq!(source(false), "2020.zip:round 1/a.pgn");
    assert_eq!(
        source(true),
        "/home/someone/private/games/2020.zip:round 1/a.pgn"
    );
}
