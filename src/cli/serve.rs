//! `qipu serve`: the HTTP API and the web explorer.

use std::{io::Write, path::PathBuf, process::ExitCode, time::Duration};

use clap::Args;

use super::CliError;
use crate::web::{Config, Server, Timeouts};

/// Arguments of `qipu serve`.
#[derive(Args, Debug)]
pub struct ServeArgs {
    /// The database, opened read-only (an import may run beside the server). Without it,
    /// `qipu.db` in the current folder is used if present; otherwise only the board and the
    /// position API are served.
    #[arg(long)]
    db: Option<PathBuf>,
    /// Address to listen on; port 0 picks a free port. Only this machine can connect unless
    /// another address is given; on a loopback address only requests addressed to this
    /// machine (Host localhost, 127.0.0.1 or [::1]) are answered.
    #[arg(long, default_value = "127.0.0.1:8080")]
    addr: String,
    /// Worker threads (each keeps its own read-only database connection).
    #[arg(long, default_value_t = 4)]
    threads: usize,
    /// An opening book (BOOK.DAT, .obk or qipu) served by /api/probe under its file name;
    /// repeatable.
    #[arg(long)]
    book: Vec<PathBuf>,
    /// Memory for cached answers of /api/explore and /api/games, in MiB (0 = no cache).
    #[arg(long, default_value_t = 64)]
    cache_mb: usize,
    /// Let the pages of this one other origin (e.g. `https://example.org`) read the answers
    /// (CORS). Without it only the server's own page can.
    #[arg(long, value_name = "ORIGIN")]
    cors: Option<String>,
    /// Show the full source paths of games in /api/games (by default only file names, so
    /// that the folders of this machine stay private).
    #[arg(long)]
    show_paths: bool,
    /// Most client connections open at once. When full, the oldest idle connection (first
    /// of an address holding over a quarter of them) is closed for a newcomer; only when all
    /// are answering requests is one more answered 503.
    #[arg(long, default_value_t = 4096)]
    max_connections: usize,
    /// Append an access log to FILE: one line per request (time, client, request line,
    /// status, milliseconds).
    #[arg(long, value_name = "FILE")]
    log: Option<PathBuf>,
    /// Seconds a client has to send a request head (and, separately, a body); a kept-alive
    /// connection is closed after half as long without a request.
    #[arg(long, default_value_t = 10)]
    timeout: u64,
}

/// Runs `qipu serve` until SIGTERM or Ctrl-C (requests in flight finish, then exit 0).
pub fn serve(args: &ServeArgs) -> Result<ExitCode, CliError> {
    let db = match &args.db {
        Some(p) if !p.exists() => return Err(format!("{}: no such database", p.display()).into()),
        Some(p) => Some(p.clone()),
        None => Some(PathBuf::from("qipu.db")).filter(|p| p.exists()),
    };
    let mut books: Vec<(String, PathBuf)> = Vec::new();
    for path in &args.book {
        let short = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let name = if short.is_empty() || books.iter().any(|(n, _)| *n == short) {
            path.display().to_string()
        } else {
            short
        };
        books.push((name, path.clone()));
    }
    let config = Config {
        books,
        addr: args.addr.clone(),
        threads: args.threads.clamp(1, 256),
        db,
        cache_bytes: args.cache_mb.min(1 << 20) << 20,
        cors: args.cors.clone(),
        show_paths: args.show_paths,
        max_connections: args.max_connections.clamp(1, 16_384),
        log: args.log.clone(),
        timeouts: {
            let secs = Duration::from_secs(args.timeout.clamp(1, 3600));
            Timeouts {
                head: secs,
                body: secs,
                idle: secs / 2,
                write: secs,
            }
        },
    };
    let server = Server::bind(config)?;
    match &server.config().db {
        Some(db) => eprintln!("qipu serve: database {}", db.display()),
        None => eprintln!("qipu serve: no database (board and position API only)"),
    }
    eprintln!("qipu serve: listening on http://{}/", server.local_addr());
    server.run();
    // Whoever started the server may have stopped reading its messages.
    let _ = writeln!(std::io::stderr(), "qipu serve: stopped");
    Ok(ExitCode::SUCCESS)
}
