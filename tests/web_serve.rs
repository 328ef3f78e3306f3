//! What `qipu serve` gives an API client beyond the answers: compression when asked,
//! `ETag`/`If-None-Match`, `/api/health`, the access log, graceful shutdown on SIGTERM,
//! connections that cost no thread, and a client holding many connections that cannot shut
//! the others out.

use std::{
    io::{BufRead, BufReader, Read, Write},
    net::{SocketAddr, TcpStream},
    path::PathBuf,
    process::{Child, Command, Stdio},
    thread,
    time::{Duration, Instant},
};

use qipu::web::{Config, Timeouts};

/// Status, headers (lower-case names) and body of one answer read from `r`.
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
}

fn read_answer(r: &mut impl BufRead) -> Answer {
    let mut line = String::new();
    r.read_line(&mut line).unwrap();
    let status = line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status line: {line:?}"));
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
    let chunked = headers
        .iter()
        .any(|(k, v)| k == "transfer-encoding" && v == "chunked");
    let len: usize = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .map_or(0, |(_, v)| v.parse().unwrap());
    let mut body = vec![0; len];
    r.read_exact(&mut body).unwrap();
    if chunked {
        loop {
            let mut size = String::new();
            r.read_line(&mut size).unwrap();
            let size = usize::from_str_radix(size.trim(), 16).unwrap();
            let mut chunk = vec![0; size + 2];
            r.read_exact(&mut chunk).unwrap();
            body.extend_from_slice(&chunk[..size]);
            if size == 0 {
                break;
            }
        }
    }
    Answer {
        status,
        headers,
        body,
    }
}

/// One `GET` with extra header lines, on a connection of its own.
fn get(addr: SocketAddr, target: &str, extra: &str) -> Answer {
    let s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let mut w = s.try_clone().unwrap();
    write!(
        w,
        "GET {target} HTTP/1.1\r\nHost: localhost\r\n{extra}Connection: close\r\n\r\n"
    )
    .unwrap();
    read_answer(&mut BufReader::new(s))
}

#[test]
fn answers_are_compressed_with_gzip_or_brotli_when_asked() {
    let addr = crate::common::start_server(Config::default());
    let target = "/api/position?moves=h2e2,h9g7";
    let plain = get(addr, target, "");
    assert_eq!(plain.status, 200);
    assert_eq!(plain.header("content-encoding"), None);
    let gz = get(addr, target, "Accept-Encoding: gzip\r\n");
    assert_eq!(gz.header("content-encoding"), Some("gzip"));
    assert!(gz.body.len() < plain.body.len());
    let mut unzipped = Vec::new();
    flate2::read::GzDecoder::new(&gz.body[..])
        .read_to_end(&mut unzipped)
        .unwrap();
    assert_eq!(unzipped, plain.body);
    let br = get(addr, target, "Accept-Encoding: br;q=1, gzip;q=0.5\r\n");
    assert_eq!(br.header("content-encoding"), Some("br"));
    let mut unbrotli = Vec::new();
    brotli_decompressor::Decompressor::new(&br.body[..], 4096)
        .read_to_end(&mut unbrotli)
        .unwrap();
    assert_eq!(unbrotli, plain.body);
    assert_eq!(br.header("content-type"), plain.header("content-type"));
}

#[test]
fn an_etag_carries_the_database_version_and_a_match_is_304() {
    let db = crate::web::test_db("etag");
    let addr = crate::common::start_server(Config {
        db: Some(db.clone()),
        ..Config::default()
    });
    let first = get(addr, "/api/status", "");
    let tag = first.header("etag").expect("an ETag").to_string();
    let again = get(addr, "/api/status", &format!("If-None-Match: {tag}\r\n"));
    assert_eq!(again.status, 304);
    assert!(again.body.is_empty());
    assert_eq!(again.header("etag"), Some(tag.as_str()));
    let other = get(addr, "/api/status", "If-None-Match: \"0-0\"\r\n");
    assert_eq!((other.status, other.body), (200, first.body.clone()));
    // The database changes (its files do): the same body gets another tag.
    let mut store = qipu::store::Store::open(&db).unwrap();
    let mut game = qipu::formats::Game::new(
        qipu::rules::Variant::Xiangqi,
        qipu::formats::Source {
            file: "more.pgn".into(),
            index: 0,
        },
    );
    game.moves = vec![qipu::formats::MoveNode::new("c3c4")];
    let record = qipu::store::GameRecord::from_game(&game, 0).unwrap();
    store.write_batch(&[record]).unwrap();
    drop(store);
    thread::sleep(Duration::from_millis(400));
    let changed = get(addr, "/api/status", &format!("If-None-Match: {tag}\r\n"));
    assert_eq!(changed.status, 200);
    assert_eq!(changed.body, first.body);
    assert_ne!(changed.header("etag"), Some(tag.as_str()));
}

#[test]
fn health_answers_without_a_database() {
    let addr = crate::common::start_server(Config::default());
    let a = get(addr, "/api/health", "");
    assert_eq!(a.status, 200);
    assert_eq!(a.body, br#"{"ok":true}"#);
}

fn temp_file(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("target/test-web-serve")
        .join(std::process::id().to_string());
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    let _ = std::fs::remove_file(&path);
    path
}

#[test]
fn the_access_log_has_one_line_per_request_with_status_and_time() {
    let log = temp_file("access.log");
    let addr = crate::common::start_server(Config {
        log: Some(log.clone()),
        ..Config::default()
    });
    assert_eq!(get(addr, "/api/status", "").status, 200);
    assert_eq!(get(addr, "/nope?x=1", "").status, 404);
    let deadline = Instant::now() + Duration::from_secs(5);
    let text = loop {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        if text.lines().count() >= 2 || Instant::now() > deadline {
            break text;
        }
        thread::sleep(Duration::from_millis(20));
    };
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(lines[0].contains("\"GET /api/status\" 200 "), "{text}");
    assert!(lines[1].contains("\"GET /nope?x=1\" 404 "), "{text}");
    for l in lines {
        assert!(l.contains(" 127.0.0.1:"), "{l}");
        let ms = l.rsplit(' ').next().unwrap();
        let ms: f64 = ms.strip_suffix("ms").unwrap().parse().unwrap();
        assert!((0.0..5000.0).contains(&ms), "{l}");
    }
}

/// `qipu serve` as a process, with its stderr read on a thread (so it never blocks).
fn spawn_serve(args: &[&str]) -> (Child, SocketAddr) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_qipu"))
        .args(["serve", "--addr", "127.0.0.1:0"])
        .args(args)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    thread::spawn(move || {
        let mut sent = false;
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if !sent && line.contains("http://") {
                let addr = line.split("http://").nth(1).unwrap_or_default();
                let _ = tx.send(addr.trim().trim_end_matches('/').to_string());
                sent = true;
            }
        }
    });
    let addr = rx.recv_timeout(Duration::from_secs(20)).unwrap();
    (child, addr.parse().unwrap())
}

fn wait_exit(child: &mut Child, within: Duration) -> Option<std::process::ExitStatus> {
    let deadline = Instant::now() + within;
    while Instant::now() < deadline {
        if let Some(status) = child.try_wait().unwrap() {
            return Some(status);
        }
        thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}

#[test]
fn sigterm_lets_the_request_in_flight_finish_then_exits_0() {
    let (mut child, addr) = spawn_serve(&["--threads", "1"]);
    // A request in flight: its head has come, its body has not.
    let s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let mut w = s.try_clone().unwrap();
    w.write_all(b"POST /api/status HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\n\r\n")
        .unwrap();
    // And an idle one, which the shutdown closes.
    let mut idle = TcpStream::connect(addr).unwrap();
    idle.set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    thread::sleep(Duration::from_millis(300));
    let term = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(term.success());
    thread::sleep(Duration::from_millis(300));
    let mut out = Vec::new();
    assert_eq!(idle.read_to_end(&mut out).unwrap(), 0);
    assert_eq!(
        child.try_wait().unwrap(),
        None,
        "exited with a request in flight"
    );
    w.write_all(b"hello").unwrap();
    let a = read_answer(&mut BufReader::new(s));
    assert_eq!(a.status, 405);
    let status = wait_exit(&mut child, Duration::from_secs(10)).expect("still running");
    assert!(status.success(), "{status:?}");
}

#[cfg(target_os = "linux")]
fn threads_of(child: &Child) -> usize {
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("Threads:"))
        .and_then(|n| n.trim().parse().ok())
        .unwrap()
}

#[cfg(target_os = "linux")]
#[test]
fn held_connections_cost_no_thread() {
    let (mut child, addr) = spawn_serve(&["--threads", "2"]);
    assert_eq!(get(addr, "/api/position", "").status, 200);
    let before = threads_of(&child);
    // 300 connections, each sending a request and holding the connection open after it.
    let held: Vec<BufReader<TcpStream>> = (0..300)
        .map(|_| {
            let s = TcpStream::connect(addr).unwrap();
            s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
            let mut w = s.try_clone().unwrap();
            w.write_all(b"GET /api/position HTTP/1.1\r\nHost: localhost\r\n\r\n")
                .unwrap();
            BufReader::new(s)
        })
        .collect();
    let mut held = held;
    for r in &mut held {
        assert_eq!(read_answer(r).status, 200);
    }
    let during = threads_of(&child);
    drop(held);
    let _ = child.kill();
    let _ = child.wait();
    // The main thread, the event loop (at most 2) and the two workers.
    assert!(
        during <= 5,
        "{during} threads with 300 connections ({before} before)"
    );
}

#[test]
fn a_client_holding_many_connections_does_not_shut_the_others_out() {
    let addr = crate::common::start_server(Config {
        max_connections: 64,
        timeouts: Timeouts {
            head: Duration::from_secs(20),
            ..Timeouts::default()
        },
        ..Config::default()
    });
    // Four times the limit held open without a byte sent.
    let held: Vec<TcpStream> = (0..256)
        .map(|_| TcpStream::connect(addr).unwrap())
        .collect();
    thread::sleep(Duration::from_millis(200));
    for _ in 0..20 {
        let since = Instant::now();
        assert_eq!(get(addr, "/api/position?moves=h2e2", "").status, 200);
        assert!(since.elapsed() < Duration::from_secs(2));
    }
    drop(held);
}
