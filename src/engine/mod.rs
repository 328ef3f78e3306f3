//! Talking to one UCI engine process (Fairy-Stockfish, Pikafish, …): spawn it, shake hands
//! with a time limit, set options and the variant, and run searches (`position fen … `,
//! `go depth N | movetime MS [searchmoves M]`), reading `info … score … pv …` and `bestmove`.
//!
//! This module owns the protocol and the process; it knows nothing of databases, of which
//! positions to analyse, or of thread pools (see `crate::analysis`). The one thread it starts
//! is a line reader per engine process: safe Rust has no other way to read a pipe with a time
//! limit. Every failure is an [`EngineError`] that names the engine and, during a search, the
//! position (its FEN): an engine that hangs (time limit), dies (end of its output), or answers
//! nonsense (a line or a move it cannot mean) never panics or blocks the caller.
//!
//! Moves are written as the engine expects: Fairy-Stockfish (an engine with a `UCI_Variant`
//! option) counts ranks 1–10 and passes by moving the general to its own square; other engines
//! count ranks 0–9 (UCCI/Pikafish style).
//!
//! ```no_run
//! use std::time::{Duration, Instant};
//! use qipu::engine::{Engine, EngineSpec, Limit};
//! use qipu::rules::{AnyPosition, Variant};
//!
//! let mut engine = Engine::start(&EngineSpec::new("/usr/games/fairy-stockfish"))?;
//! let pos = AnyPosition::new(Variant::Xiangqi);
//! let deadline = Instant::now() + Duration::from_secs(30);
//! let found = engine.search(&pos, Limit::Depth(8), None, deadline)?;
//! println!("{} {:?} at depth {}", found.best.unwrap(), found.score, found.depth);
//! # Ok::<_, qipu::engine::EngineError>(())
//! ```

use std::{
    fmt,
    io::{BufRead, BufReader, Read, Write},
    path::PathBuf,
    process::{Child, ChildStdin, Command, Stdio},
    sync::mpsc::{self, Receiver, RecvTimeoutError},
    thread,
    time::{Duration, Instant},
};

pub use crate::formats::facts::Score;
use crate::{
    notation::coord::{render_fs_uci, CoordMove, RankBase},
    rules::{AnyPosition, Move, Variant},
};

/// The longest line an engine may write; a longer one is garbage.
const MAX_LINE: usize = 64 << 10;
/// How many lines an engine may write for one command before it counts as babbling.
const MAX_LINES: usize = 100_000;

/// How to start an engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineSpec {
    /// The executable.
    pub path: PathBuf,
    /// UCI options to set after the handshake (`setoption name N value V`), in order.
    pub options: Vec<(String, String)>,
    /// How long the handshake (`uci` … `uciok`, then `isready` … `readyok`) may take.
    pub handshake: Duration,
}

impl EngineSpec {
    /// An engine with no options and a 10 s handshake limit.
    pub fn new(path: impl Into<PathBuf>) -> EngineSpec {
        EngineSpec {
            path: path.into(),
            options: Vec::new(),
            handshake: Duration::from_secs(10),
        }
    }

    /// The options as one text, `Name=Value` joined by `, ` (what the database stores).
    pub fn options_text(&self) -> String {
        self.options
            .iter()
            .map(|(n, v)| format!("{n}={v}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// How long a search runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// `go depth N`.
    Depth(u32),
    /// `go movetime MS`.
    MoveTime(u64),
}

/// What a search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Search {
    /// The engine's move (`None`: `bestmove (none)`, no legal move).
    pub best: Option<Move>,
    /// The score of the last complete `info` line, from the side to move's view.
    pub score: Score,
    /// The depth of that line.
    pub depth: u32,
    /// Its principal variation, as far as it reads as legal moves.
    pub pv: Vec<Move>,
    /// The search time the engine reported (`time`, ms), 0 when it said none.
    pub time_ms: u64,
}

/// What went wrong.
#[derive(Debug)]
pub enum ErrorKind {
    /// The executable could not be started.
    Spawn(std::io::Error),
    /// It started but does not speak UCI (why).
    NotAnEngine(String),
    /// No answer before the deadline (what was awaited); the process was killed.
    Timeout(&'static str),
    /// The process ended (its output closed) while an answer was awaited.
    Died(&'static str),
    /// A line that cannot be meant (the line, and why).
    Garbage(String, &'static str),
    /// An option the engine does not have.
    UnknownOption(String),
    /// Writing to the engine failed.
    Io(std::io::Error),
    /// The engine cannot play this game (no `UCI_Variant` option: Xiangqi only).
    Unsupported(Variant),
}

/// An engine failure, naming the engine and, during a search, the position.
#[derive(Debug)]
pub struct EngineError {
    /// The engine's path.
    pub engine: PathBuf,
    /// The position searched (FEN), if the error happened during a search.
    pub position: Option<String>,
    /// What happened.
    pub kind: ErrorKind,
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "engine {}", self.engine.display())?;
        if let Some(p) = &self.position {
            write!(f, ", position `{p}`")?;
        }
        match &self.kind {
            ErrorKind::Spawn(e) => write!(f, ": cannot start it: {e}"),
            ErrorKind::NotAnEngine(why) => write!(f, ": not a UCI engine: {why}"),
            ErrorKind::Timeout(what) => write!(f, ": no `{what}` in time (killed)"),
            ErrorKind::Died(what) => write!(f, ": the process ended while waiting for {what}"),
            ErrorKind::Garbage(line, why) => write!(f, ": {why}: `{line}`"),
            ErrorKind::UnknownOption(n) => write!(f, ": it has no option `{n}`"),
            ErrorKind::Io(e) => write!(f, ": cannot write to it: {e}"),
            ErrorKind::Unsupported(v) => {
                write!(
                    f,
                    ": it has no UCI_Variant option, so it plays xiangqi only, not {v}"
                )
            }
        }
    }
}

impl std::error::Error for EngineError {}

/// A running UCI engine. Dropping it kills the process.
#[derive(Debug)]
pub struct Engine {
    path: PathBuf,
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<Line>,
    name: String,
    options: Vec<String>,
    rank_base: RankBase,
    variant: Option<Variant>,
}

/// What the reader thread passes on.
#[derive(Debug)]
enum Line {
    Text(String),
    TooLong,
}

fn read_lines(out: impl Read, tx: mpsc::Sender<Line>) {
    let mut reader = BufReader::new(out);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        // At most MAX_LINE + 1 bytes: a longer line is reported, and the thread stops.
        let n = match (&mut reader)
            .take(MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut buf)
        {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        let line = if n > MAX_LINE && buf.last() != Some(&b'\n') {
            Line::TooLong
        } else {
            let text = String::from_utf8_lossy(&buf);
            Line::Text(text.trim_end_matches(['\r', '\n']).to_string())
        };
        let stop = matches!(line, Line::TooLong);
        if tx.send(line).is_err() || stop {
            return;
        }
    }
}

impl Engine {
    /// Starts the engine, shakes hands (`uci` → `uciok`), sets the options and waits until it
    /// is ready. Fails at once for a path that is not an executable or a process that ends or
    /// echoes its input; within `spec.handshake` for one that says nothing sensible.
    ///
    /// # Errors
    /// [`EngineError`]: spawn failure, not an engine, timeout, unknown option.
    pub fn start(spec: &EngineSpec) -> Result<Engine, EngineError> {
        let err = |kind| EngineError {
            engine: spec.path.clone(),
            position: None,
            kind,
        };
        if spec.path.is_dir() {
            return Err(err(ErrorKind::NotAnEngine("it is a directory".into())));
        }
        // A bare name that is a file here means that file, not a search of `PATH`.
        let program = if spec.path.components().count() == 1 && spec.path.is_file() {
            PathBuf::from(".").join(&spec.path)
        } else {
            spec.path.clone()
        };
        let mut child = Command::new(program)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| err(ErrorKind::Spawn(e)))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(err(ErrorKind::NotAnEngine(
                "no pipes to the process".into(),
            )));
        };
        let (tx, lines) = mpsc::channel();
        thread::Builder::new()
            .name("engine-reader".into())
            .spawn(move || read_lines(stdout, tx))
            .map_err(|e| err(ErrorKind::Spawn(e)))?;
        let mut engine = Engine {
            path: spec.path.clone(),
            child,
            stdin,
            lines,
            name: String::new(),
            options: Vec::new(),
            rank_base: RankBase::Zero,
            variant: None,
        };
        engine.handshake(spec)?;
        Ok(engine)
    }

    fn handshake(&mut self, spec: &EngineSpec) -> Result<(), EngineError> {
        let deadline = Instant::now() + spec.handshake;
        self.send("uci", None).map_err(|mut e| {
            if let ErrorKind::Died(_) = e.kind {
                e.kind = ErrorKind::NotAnEngine("the process ended before reading `uci`".into());
            }
            e
        })?;
        let mut said_anything_uci = false;
        let mut uciok = false;
        for _ in 0..MAX_LINES {
            let line = match self.next_line("uciok", deadline, None) {
                Ok(l) => l,
                Err(mut e) => {
                    if !said_anything_uci {
                        if let ErrorKind::Died(_) | ErrorKind::Timeout(..) = e.kind {
                            e.kind = ErrorKind::NotAnEngine(format!(
                                "no `uciok` answer to `uci` ({})",
                                match e.kind {
                                    ErrorKind::Died(_) => "the process ended".to_string(),
                                    _ => format!("{:.1} s", spec.handshake.as_secs_f64()),
                                }
                            ));
                        }
                    }
                    return Err(e);
                }
            };
            let mut words = line.split_whitespace();
            match words.next() {
                Some("uciok") => {
                    uciok = true;
                    break;
                }
                Some("uci") => {
                    return Err(self.error(
                        None,
                        ErrorKind::NotAnEngine("it echoes its input (`uci`)".into()),
                    ))
                }
                Some("id") => {
                    said_anything_uci = true;
                    if words.next() == Some("name") {
                        self.name = words.collect::<Vec<_>>().join(" ");
                    }
                }
                Some("option") => {
                    said_anything_uci = true;
                    if let Some(name) = option_name(&line) {
                        self.options.push(name);
                    }
                }
                _ => {} // banners, `info string`, copyright lines
            }
        }
        if !uciok {
            self.kill();
            return Err(self.error(
                None,
                ErrorKind::NotAnEngine(format!("{MAX_LINES} lines without `uciok`")),
            ));
        }
        if self.name.is_empty() {
            self.name = self
                .path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| "engine".into());
        }
        if self.has_option("UCI_Variant") {
            self.rank_base = RankBase::One;
        }
        for (name, value) in &spec.options {
            self.send_option(name, value)?;
        }
        self.ready(deadline, None)
    }

    /// `setoption` for an option the engine has, in its own spelling.
    fn send_option(&mut self, name: &str, value: &str) -> Result<(), EngineError> {
        let Some(real) = self
            .options
            .iter()
            .find(|o| o.eq_ignore_ascii_case(name))
            .cloned()
        else {
            return Err(self.error(None, ErrorKind::UnknownOption(name.to_string())));
        };
        self.send(&format!("setoption name {real} value {value}"), None)
    }

    /// Whether the engine named this option in its handshake (any case).
    pub fn has_option(&self, name: &str) -> bool {
        self.options.iter().any(|o| o.eq_ignore_ascii_case(name))
    }

    /// Sets an option the engine has (`setoption name N value V`, then `isready`), e.g. to fix
    /// `Threads` and `Hash` after a start with the user's options.
    ///
    /// # Errors
    /// [`ErrorKind::UnknownOption`] for an option it does not have; no `readyok` by
    /// `deadline`, or a dead engine.
    pub fn set_option(
        &mut self,
        name: &str,
        value: &str,
        deadline: Instant,
    ) -> Result<(), EngineError> {
        self.send_option(name, value)?;
        self.ready(deadline, None)
    }

    /// The engine's name (`id name …`, else the file name).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The engine's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Whether moves are written with ranks 1–10 (Fairy-Stockfish) rather than 0–9.
    pub fn rank_base(&self) -> RankBase {
        self.rank_base
    }

    fn error(&self, position: Option<&str>, kind: ErrorKind) -> EngineError {
        EngineError {
            engine: self.path.clone(),
            position: position.map(str::to_string),
            kind,
        }
    }

    fn send(&mut self, command: &str, position: Option<&str>) -> Result<(), EngineError> {
        writeln!(self.stdin, "{command}")
            .and_then(|()| self.stdin.flush())
            .map_err(|e| {
                if e.kind() == std::io::ErrorKind::BrokenPipe {
                    self.error(position, ErrorKind::Died("it to read a command"))
                } else {
                    self.error(position, ErrorKind::Io(e))
                }
            })
    }

    /// The next line, or an error (and the process killed) at the deadline or its end.
    fn next_line(
        &mut self,
        awaited: &'static str,
        deadline: Instant,
        position: Option<&str>,
    ) -> Result<String, EngineError> {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(left) {
            Ok(Line::Text(t)) => Ok(t),
            Ok(Line::TooLong) => {
                self.kill();
                Err(self.error(
                    position,
                    ErrorKind::Garbage(
                        format!("{MAX_LINE}+ bytes without a line end"),
                        "a line too long",
                    ),
                ))
            }
            Err(RecvTimeoutError::Timeout) => {
                self.kill();
                Err(self.error(position, ErrorKind::Timeout(awaited)))
            }
            Err(RecvTimeoutError::Disconnected) => {
                self.kill();
                Err(self.error(position, ErrorKind::Died(awaited)))
            }
        }
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    fn ready(&mut self, deadline: Instant, position: Option<&str>) -> Result<(), EngineError> {
        self.send("isready", position)?;
        for _ in 0..MAX_LINES {
            if self.next_line("readyok", deadline, position)?.trim() == "readyok" {
                return Ok(());
            }
        }
        Err(self.error(
            position,
            ErrorKind::Garbage("…".into(), "endless output instead of `readyok`"),
        ))
    }

    /// Selects the game (`UCI_Variant`), if the engine has that option and it changes; an
    /// engine without it is taken to play Xiangqi only.
    ///
    /// # Errors
    /// [`EngineError`] if the engine does not answer `isready` in time, or cannot play the
    /// game.
    pub fn set_variant(&mut self, variant: Variant, deadline: Instant) -> Result<(), EngineError> {
        if self.variant == Some(variant) {
            return Ok(());
        }
        if self.has_option("UCI_Variant") {
            self.send(
                &format!("setoption name UCI_Variant value {}", variant.name()),
                None,
            )?;
            self.ready(deadline, None)?;
        } else if variant != Variant::Xiangqi {
            return Err(self.error(None, ErrorKind::Unsupported(variant)));
        }
        self.variant = Some(variant);
        Ok(())
    }

    /// Writes a move as this engine reads it.
    pub fn move_text(&self, pos: &AnyPosition, m: Move) -> String {
        match self.rank_base {
            RankBase::One => render_fs_uci(pos, m).unwrap_or_else(|| "0000".into()),
            RankBase::Zero => m.to_string(),
        }
    }

    fn read_move(&self, pos: &AnyPosition, text: &str) -> Option<Move> {
        let m = CoordMove::parse(text).ok()?.to_move(self.rank_base, pos)?;
        pos.is_legal(m).then_some(m)
    }

    /// Searches a position from a clean state (`ucinewgame`, so that the result does not
    /// depend on earlier searches), optionally restricted to one move (`searchmoves`). The
    /// FEN sent has its move counters reset (`0 1`): qipu keys positions without them.
    ///
    /// # Errors
    /// [`EngineError`] naming the position: timeout at `deadline` (the process is killed),
    /// death, a line or move that makes no sense (`bestmove` not legal, not the one move asked
    /// for, no score).
    pub fn search(
        &mut self,
        pos: &AnyPosition,
        limit: Limit,
        only: Option<Move>,
        deadline: Instant,
    ) -> Result<Search, EngineError> {
        let fen = engine_fen(pos);
        let at = Some(fen.as_str());
        self.set_variant(pos.variant(), deadline)
            .map_err(|e| EngineError {
                position: Some(fen.clone()),
                ..e
            })?;
        // No `isready` round trip: the engine reads its commands in order, and the answer to
        // `go` comes after the clearing is done.
        self.send("ucinewgame", at)?;
        self.send(&format!("position fen {fen}"), at)?;
        let mut go = match limit {
            Limit::Depth(d) => format!("go depth {d}"),
            Limit::MoveTime(ms) => format!("go movetime {ms}"),
        };
        if let Some(m) = only {
            go.push_str(" searchmoves ");
            go.push_str(&self.move_text(pos, m));
        }
        self.send(&go, at)?;
        let mut last: Option<(Score, u32, Vec<Move>, u64)> = None;
        for _ in 0..MAX_LINES {
            let line = self.next_line("bestmove", deadline, at)?;
            let mut words = line.split_whitespace();
            match words.next() {
                Some("info") => match parse_info(&line) {
                    Ok(Some(info)) => {
                        let pv = self.read_pv(pos, &info.pv);
                        last = Some((info.score, info.depth, pv, info.time_ms));
                    }
                    Ok(None) => {}
                    Err(why) => {
                        self.kill();
                        return Err(self.error(at, ErrorKind::Garbage(line, why)));
                    }
                },
                Some("bestmove") => {
                    let text = words.next().unwrap_or("");
                    let best = if text == "(none)" {
                        None
                    } else {
                        match self.read_move(pos, text) {
                            Some(m) => Some(m),
                            None => {
                                self.kill();
                                return Err(self.error(
                                    at,
                                    ErrorKind::Garbage(line, "`bestmove` is not a legal move"),
                                ));
                            }
                        }
                    };
                    if only.is_some() && best != only {
                        self.kill();
                        return Err(self.error(
                            at,
                            ErrorKind::Garbage(line, "`bestmove` is not the one move searched"),
                        ));
                    }
                    let Some((score, depth, pv, time_ms)) = last else {
                        self.kill();
                        return Err(self.error(
                            at,
                            ErrorKind::Garbage(line, "`bestmove` without any scored `info` line"),
                        ));
                    };
                    return Ok(Search {
                        best,
                        score,
                        depth,
                        pv,
                        time_ms,
                    });
                }
                _ => {}
            }
        }
        self.kill();
        Err(self.error(
            at,
            ErrorKind::Garbage("…".into(), "endless output without `bestmove`"),
        ))
    }

    fn read_pv(&self, pos: &AnyPosition, pv: &[&str]) -> Vec<Move> {
        let mut p = pos.clone();
        let mut out = Vec::new();
        for t in pv.iter().take(64) {
            match self.read_move(&p, t) {
                Some(m) => {
                    p.play_unchecked(m);
                    out.push(m);
                }
                None => break,
            }
        }
        out
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.stdin.flush();
        let until = Instant::now() + Duration::from_millis(200);
        while Instant::now() < until {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            thread::sleep(Duration::from_millis(5));
        }
        self.kill();
    }
}

/// The FEN sent to an engine: qipu's FEN with the move counters reset, since positions are
/// keyed without them.
pub fn engine_fen(pos: &AnyPosition) -> String {
    let fen = pos.fen();
    let mut fields = fen.split_whitespace();
    let board = fields.next().unwrap_or("");
    let turn = fields.next().unwrap_or("w");
    format!("{board} {turn} - - 0 1")
}

fn option_name(line: &str) -> Option<String> {
    let rest = line
        .strip_prefix("option")?
        .trim_start()
        .strip_prefix("name")?;
    let end = rest.find(" type ").unwrap_or(rest.len());
    let name = rest[..end].trim();
    (!name.is_empty()).then(|| name.to_string())
}

/// The scored content of an `info` line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Info<'a> {
    /// `depth`.
    pub depth: u32,
    /// `score cp N` or `score mate N`.
    pub score: Score,
    /// `time`, ms (0 if absent).
    pub time_ms: u64,
    /// The `pv` words.
    pub pv: Vec<&'a str>,
}

/// Reads an `info` line: `Ok(None)` for lines without a complete score (`info string`,
/// `currmove`, bound-only scores, other `multipv` lines), `Err` for one that cannot be meant.
///
/// # Errors
/// Why the line is garbage (a number that is not one, a score without a number).
///
/// ```
/// use qipu::engine::{parse_info, Score};
/// let i = parse_info("info depth 8 seldepth 9 multipv 1 score cp -28 nodes 14520 time 52 pv b10c8 h1g3")
///     .unwrap().unwrap();
/// assert_eq!((i.depth, i.score, i.time_ms, i.pv), (8, Score::Cp(-28), 52, vec!["b10c8", "h1g3"]));
/// assert_eq!(parse_info("info depth 3 score mate -2 pv a1a2").unwrap().unwrap().score, Score::Mate(-2));
/// assert!(parse_info("info string variant xiangqi").unwrap().is_none());
/// assert!(parse_info("info depth x score cp 1").is_err());
/// ```
pub fn parse_info(line: &str) -> Result<Option<Info<'_>>, &'static str> {
    let mut words = line.split_whitespace();
    if words.next() != Some("info") {
        return Ok(None);
    }
    let (mut depth, mut score, mut time_ms, mut pv) = (None, None, 0, Vec::new());
    let mut bound = false;
    let mut multipv = 1;
    while let Some(w) = words.next() {
        match w {
            "string" => return Ok(None),
            "depth" => depth = Some(number(words.next())?),
            "time" => time_ms = number(words.next())?,
            "multipv" => multipv = number(words.next())?,
            "score" => {
                let kind = words.next();
                let n: i64 = number(words.next())?;
                let n = i32::try_from(n).map_err(|_| "a score out of range")?;
                score = Some(match kind {
                    Some("cp") => Score::Cp(n),
                    Some("mate") => Score::Mate(n),
                    _ => return Err("a score that is neither `cp` nor `mate`"),
                });
            }
            "lowerbound" | "upperbound" => bound = true,
            "pv" => {
                pv = words.by_ref().collect();
            }
            // Words with one number after them that we do not use.
            "seldepth" | "nodes" | "nps" | "tbhits" | "hashfull" | "currmovenumber" | "cpuload"
            | "sbhits" => {
                let _: u64 = number(words.next())?;
            }
            _ => {}
        }
    }
    match (depth, score) {
        (Some(depth), Some(score)) if !bound && multipv == 1 => Ok(Some(Info {
            depth,
            score,
            time_ms,
            pv,
        })),
        _ => Ok(None),
    }
}

fn number<T: std::str::FromStr>(w: Option<&str>) -> Result<T, &'static str> {
    w.and_then(|w| w.parse().ok())
        .ok_or("a number that is not one")
}

/// The score of a move from the mover's view, given the score of the position it leads to
/// from the view of the side to move there: centipawns change sign; "mated in n" there is
/// "mate in n + 1" here (this move comes first), "mate in n" there is "mated in n" here.
///
/// ```
/// use qipu::engine::{score_before, Score};
/// assert_eq!(score_before(Score::Cp(35)), Score::Cp(-35));
/// assert_eq!(score_before(Score::Mate(0)), Score::Mate(1)); // the move mates
/// assert_eq!(score_before(Score::Mate(-2)), Score::Mate(3));
/// assert_eq!(score_before(Score::Mate(3)), Score::Mate(-3));
/// ```
pub fn score_before(after: Score) -> Score {
    match after {
        Score::Cp(cp) => Score::Cp(cp.saturating_neg()),
        Score::Mate(n) if n <= 0 => Score::Mate(n.saturating_neg().saturating_add(1)),
        Score::Mate(n) => Score::Mate(-n),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn info_lines() {
        let i = parse_info(
            "info depth 10 seldepth 14 multipv 1 score cp 27 lowerbound nodes 5 pv a1a2",
        );
        assert_eq!(i, Ok(None), "bound scores are not final");
        assert_eq!(
            parse_info("info depth 10 multipv 2 score cp 27 pv a1a2"),
            Ok(None)
        );
        assert_eq!(
            parse_info("info depth 5 currmove h3e3 currmovenumber 1"),
            Ok(None)
        );
        assert!(parse_info("info depth 5 score cp").is_err());
        assert!(parse_info("info depth 5 score centi 5").is_err());
        assert!(parse_info("info depth 5 score cp 99999999999").is_err());
        let i = parse_info("info depth 1 score cp 0").unwrap().unwrap();
        assert!(i.pv.is_empty());
    }

    #[test]
    fn options_are_named_up_to_their_type() {
        assert_eq!(
            option_name("option name Skill Level type spin default 20 min -20 max 20").as_deref(),
            Some("Skill Level")
        );
        assert_eq!(
            option_name("option name Clear Hash type button").as_deref(),
            Some("Clear Hash")
        );
        assert_eq!(option_name("option type spin"), None);
    }

    #[test]
    fn fen_counters_are_reset() {
        let mut pos = AnyPosition::new(Variant::Xiangqi);
        pos.play("h2e2".parse().unwrap()).unwrap();
        assert_eq!(
            engine_fen(&pos),
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 0 1"
        );
    }
}
