//! `qipu serve`: the HTTP API and the web explorer.

use std::{path::PathBuf, process::ExitCode};

use clap::Args;

use super::CliError;
use crate::web::{Config, Server};

/// Arguments of `qipu serve`.
#[derive(Args, Debug)]
pub struct ServeArgs {
    /// The database, opened read-only (an import may run beside the server). Without it,
    /// `qipu.db` in the current folder is used if present; otherwise only the board and the
    /// position API are served.
    #[arg(long)]
    db: Option<PathBuf>,
    /// Address to listen on; port 0 picks a free port. Only this machine can connect unless
    /// another address is given.
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
}

/// Runs `qipu serve` until the process is stopped.
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
    };
    let server = Server::bind(config)?;
    match &server.config().db {
        Some(db) => eprintln!("qipu serve: database {}", db.display()),
        None => eprintln!("qipu serve: no database (board and position API only)"),
    }
    eprintln!("qipu serve: listening on http://{}/", server.local_addr());
    server.run();
    Ok(ExitCode::SUCCESS)
}
