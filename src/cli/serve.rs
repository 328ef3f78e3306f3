//! `qipu serve`: the HTTP API and the web explorer.

use std::process::ExitCode;

use clap::Args;

use super::CliError;
use crate::web::{Config, Server};

/// Arguments of `qipu serve`.
#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Address to listen on; port 0 picks a free port. Only this machine can connect unless
    /// another address is given.
    #[arg(long, default_value = "127.0.0.1:8080")]
    addr: String,
    /// Worker threads (each keeps its own read-only database connection).
    #[arg(long, default_value_t = 4)]
    threads: usize,
}

/// Runs `qipu serve` until the process is stopped.
pub fn serve(args: &ServeArgs) -> Result<ExitCode, CliError> {
    let config = Config {
        addr: args.addr.clone(),
        threads: args.threads.clamp(1, 256),
    };
    let server = Server::bind(config)?;
    eprintln!("qipu serve: listening on http://{}/", server.local_addr());
    server.run();
    Ok(ExitCode::SUCCESS)
}
