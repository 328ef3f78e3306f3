//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use qipu::rules::{AnyPosition, Move, Square};

/// The shared folder (`$QIPU_SHARED` or `../shared` beside the checkout), if present.
pub fn shared_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("QIPU_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared"));
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "skipped: {} not found (these suites run from .ci/run)",
            dir.display()
        );
        None
    }
}

/// A committed fixture under `tests/data`.
pub fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(rel)
}

/// Converts a Fairy-Stockfish move (`h3e3`, `h10g8`, ranks 1–10; the general moving to its
/// own square is the Janggi pass) to a qipu move. Written independently of `qipu::notation`.
pub fn fs_move(text: &str) -> Move {
    let b = text.as_bytes();
    let mut squares = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let file = b[i] - b'a';
        i += 1;
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        let rank: u8 = text[start..i].parse().unwrap();
        squares.push(Square::from_coords(file, rank - 1).unwrap());
    }
    assert_eq!(squares.len(), 2, "bad FS move {text}");
    if squares[0] == squares[1] {
        Move::PASS
    } else {
        Move::new(squares[0], squares[1])
    }
}

/// Reads a JSON-lines file.
pub fn read_jsonl(path: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The address a `qipu serve` child prints on its standard error (`listening on
/// http://ADDR/`), or the last line it printed if it ended first (`Err`).
pub fn serve_address(child: &mut std::process::Child) -> Result<String, String> {
    use std::io::BufRead;
    let stderr = child.stderr.take().ok_or("stderr not piped")?;
    let mut err = std::io::BufReader::new(stderr);
    let mut line = String::new();
    while !line.contains("http://") {
        line.clear();
        if err.read_line(&mut line).map_err(|e| e.to_string())? == 0 {
            return Err(line);
        }
    }
    Ok(line
        .split("http://")
        .nth(1)
        .map(|s| s.trim().trim_end_matches('/').to_string())
        .unwrap_or_default())
}

/// The positions of `tests/data/notation/positions.txt` (every 10th oracle position of both
/// games).
pub fn fixture_positions() -> Vec<AnyPosition> {
    let text = std::fs::read_to_string(fixture("notation/positions.txt")).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let (variant, fen) = l.split_once('\t').unwrap();
            AnyPosition::from_fen(variant.parse().unwrap(), fen).unwrap()
        })
        .collect()
}

/// The positions (`fen` field) of the three oracle position files under `oracle`, and how many
/// of them qipu refuses as positions (a few reached after bikjang), each printed.
pub fn oracle_positions(oracle: &Path) -> (Vec<AnyPosition>, usize) {
    let (mut positions, mut refused) = (Vec::new(), 0);
    for file in [
        "xiangqi-positions.jsonl",
        "xiangqi-endgame-positions.jsonl",
        "janggi-positions.jsonl",
    ] {
        for v in read_jsonl(&oracle.join(file)) {
            let fen = v["fen"].as_str().unwrap();
            let variant = v["variant"].as_str().unwrap().parse().unwrap();
            match AnyPosition::from_fen(variant, fen) {
                Ok(pos) => positions.push(pos),
                Err(e) => {
                    refused += 1;
                    println!("skipped {fen}: {e}");
                }
            }
        }
    }
    (positions, refused)
}

/// A small deterministic generator (splitmix64).
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number below `n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Binds `qipu serve`'s server on a free loopback port with `config`, runs it on a thread
/// and returns its address.
pub fn start_server(config: qipu::web::Config) -> std::net::SocketAddr {
    let server = qipu::web::Server::bind(qipu::web::Config {
        addr: "127.0.0.1:0".to_string(),
        ..config
    })
    .expect("bind");
    let addr = server.local_addr();
    std::thread::spawn(move || server.run());
    addr
}

/// A fresh scratch folder `area/name` under the target's temporary folder.
pub fn scratch(area: &str, name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(area).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs the qipu binary.
pub fn qipu(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_qipu"))
        .args(args)
        .output()
        .unwrap()
}

/// Runs qipu and wants success; its stdout.
pub fn qipu_ok(args: &[&str]) -> String {
    let o = qipu(args);
    assert!(
        o.status.success(),
        "qipu {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

/// A PGN of `copies` games of each (moves in ICCS, result).
pub fn pgn_of(games: &[(&str, usize, &str)]) -> String {
    let mut out = String::new();
    for &(moves, copies, result) in games {
        let mut text = String::new();
        for (i, m) in moves.split_whitespace().enumerate() {
            if i % 2 == 0 {
                text.push_str(&format!("{}. ", i / 2 + 1));
            }
            text.push_str(m);
            text.push(' ');
        }
        for _ in 0..copies {
            out.push_str(&format!("[Result \"{result}\"]\n{text}{result}\n\n"));
        }
    }
    out
}

/// The `qipu book` flags that take every move of every game: whole games (`--max-ply 0`), a
/// move played once is enough (`--min-games 1`).
pub const EVERY_MOVE: [&str; 4] = ["--max-ply", "0", "--min-games", "1"];

/// `qipu book` of the PGN text `games` (written to `dir/name.pgn`) into `dir/name`: weights
/// = games, [`EVERY_MOVE`], with `extra` flags.
pub fn book_of(dir: &Path, name: &str, format: &str, games: &str, extra: &[&str]) -> PathBuf {
    let file = dir.join(format!("{name}.pgn"));
    std::fs::write(&file, games).unwrap();
    let out = dir.join(name);
    let (file, out_text) = (file.to_str().unwrap(), out.to_str().unwrap());
    let mut args = vec!["book", file, "--format", format, "--weights", "games"];
    args.extend_from_slice(&EVERY_MOVE);
    args.extend_from_slice(&["--out", out_text]);
    args.extend_from_slice(extra);
    qipu_ok(&args);
    out
}

/// `qipu book convert INPUT --format FORMAT --out OUT`, wanting success.
pub fn convert_book(input: &Path, format: &str, out: &Path) {
    let (input, out) = (input.to_str().unwrap(), out.to_str().unwrap());
    qipu_ok(&["book", "convert", input, "--format", format, "--out", out]);
}

/// A qipu book of the Janggi games of `tests/data/formats/janggi-pychess.pgn` (moves of one
/// game or more) at `dir/janggi.qbk`.
pub fn janggi_book(dir: &Path) -> PathBuf {
    let pgn = fixture("formats/janggi-pychess.pgn");
    let out = dir.join("janggi.qbk");
    let (pgn_text, out_text) = (pgn.to_str().unwrap(), out.to_str().unwrap());
    let mut args = vec!["book", pgn_text, "--variant", "janggi", "--format", "qipu"];
    args.extend_from_slice(&["--min-games", "1", "--out", out_text]);
    qipu_ok(&args);
    out
}

/// The fake UCI engine `tests/data/engine/fake-uci.sh`, copied to `dir` and made executable
/// (a checkout may lose the mode bit).
pub fn fake_engine(dir: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let to = dir.join("fake-uci.sh");
    std::fs::copy(fixture("engine/fake-uci.sh"), &to).unwrap();
    std::fs::set_permissions(&to, std::fs::Permissions::from_mode(0o755)).unwrap();
    to
}

/// The real engine (`$QIPU_ENGINE`, else /usr/games/fairy-stockfish), or `None` with a
/// message saying the test is skipped.
pub fn real_engine() -> Option<PathBuf> {
    let path = std::env::var_os("QIPU_ENGINE")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/games/fairy-stockfish"));
    if path.is_file() {
        Some(path)
    } else {
        eprintln!(
            "skipped: no UCI engine at {} (apt-get install fairy-stockfish; .ci/run installs it)",
            path.display()
        );
        None
    }
}

/// Runs the qipu binary ([`qipu`]): (exit code, standard output, standard error).
pub fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let out = qipu(args);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// [`run`] with whether it exited 0 for the code.
pub fn run_ok(args: &[&str]) -> (bool, String, String) {
    let (code, out, err) = run(args);
    (code == Some(0), out, err)
}

/// One hand-made PGN game: the tags with a value (in order), the result tag, the moves
/// (ICCS, space-separated) numbered, the result.
pub fn pgn_game(tags: &[(&str, &str)], moves: &str, result: &str) -> String {
    let mut out = String::new();
    for (tag, value) in tags.iter().filter(|t| !t.1.is_empty()) {
        out.push_str(&format!("[{tag} \"{value}\"]\n"));
    }
    let moves: Vec<String> = moves
        .split_whitespace()
        .enumerate()
        .map(|(j, m)| {
            if j % 2 == 0 {
                format!("{}. {m}", j / 2 + 1)
            } else {
                m.to_string()
            }
        })
        .collect();
    out.push_str(&format!(
        "[Result \"{result}\"]\n\n{} {result}\n\n",
        moves.join(" ")
    ));
    out
}

/// Imports a PGN file into a database by the binary (`extra`: more import flags), which
/// must exit 0.
pub fn import_file(file: &Path, db: &Path, extra: &[&str]) {
    let mut args = vec![
        "import",
        file.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let (code, _, err) = run(&args);
    assert_eq!(code, Some(0), "{err}");
}

/// A database `hand.db` in `dir` of a PGN text (written to `hand.pgn`), imported by the
/// binary (`extra`: more import flags).
pub fn import_pgn(dir: &Path, pgn: &str, extra: &[&str]) -> PathBuf {
    let file = dir.join("hand.pgn");
    std::fs::write(&file, pgn).unwrap();
    let db = dir.join("hand.db");
    import_file(&file, &db, extra);
    db
}

/// The `moves` rows of an answer as (move, the number under `key`), sorted.
pub fn move_rows(v: &serde_json::Value, key: &str) -> Vec<(String, u64)> {
    let mut rows: Vec<(String, u64)> = v["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["move"].as_str().unwrap().to_string(),
                m[key].as_u64().unwrap(),
            )
        })
        .collect();
    rows.sort();
    rows
}
