//! The `qipu` command line. The only module that knows clap.

mod analyse;
mod book;
mod convert;
mod emit;
mod explore;
mod export;
mod import;
mod load;
mod players;
mod position_args;
mod probe;
mod rules_cmds;
mod serve;
mod stats;

use std::{io::Write, process::ExitCode};

use clap::{Parser, Subcommand};

/// Xiangqi and Janggi game databases, opening explorer and opening books.
#[derive(Parser, Debug)]
#[command(name = "qipu", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Count the leaves of the legal-move tree (the last line of output is the bare count).
    Perft(rules_cmds::PerftArgs),
    /// Print the legal moves of a position, sorted, on one line.
    Moves(rules_cmds::MovesArgs),
    /// Read game files, folders and zip archives into a database.
    Import(import::ImportArgs),
    /// Build an engine opening book (BOOK.DAT, .obk or qipu) from game records.
    Book(book::BookArgs),
    /// Read a book back: the moves stored for a position (BOOK.DAT, .obk or qipu).
    Probe(probe::ProbeArgs),
    /// Rewrite game records of any supported format as UTF-8 PGN (or .gib for Janggi).
    Convert(convert::ConvertArgs),
    /// Serve the HTTP JSON API and the web explorer page.
    Serve(serve::ServeArgs),
    /// Statistics of a position and of every move played from it.
    Explore(explore::ExploreArgs),
    /// CSV of games and of position statistics.
    Export(export::ExportArgs),
    /// What is in a database.
    Stats(stats::StatsArgs),
    /// Score the moves of the database's opening tree with a UCI engine.
    Analyse(analyse::AnalyseArgs),
    /// The players whose name contains a pattern, most games first.
    Players(players::PlayersArgs),
    /// The map of a Spark build: games and positions as Parquet for spark/build.py.
    Emit(emit::EmitArgs),
    /// Write a database from the output of spark/build.py (fresh, or adding to one).
    Load(load::LoadArgs),
}

/// Parses the command line, runs it and maps the result to an exit code: 0 success, 1 partial
/// failure reported by the command, 2 fatal error. A closed pipe on stdout counts as success.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Perft(args) => rules_cmds::perft(&args),
        Command::Moves(args) => rules_cmds::moves(&args),
        Command::Import(args) => import::import(&args),
        Command::Book(args) => book::book(&args),
        Command::Probe(args) => probe::probe(&args),
        Command::Convert(args) => convert::convert(&args),
        Command::Serve(args) => serve::serve(&args),
        Command::Explore(args) => explore::explore(&args),
        Command::Export(args) => export::export(&args),
        Command::Stats(args) => stats::stats(&args),
        Command::Analyse(args) => analyse::analyse(&args),
        Command::Players(args) => players::players(&args),
        Command::Emit(args) => emit::emit(&args),
        Command::Load(args) => load::load(&args),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            if is_broken_pipe(&err) {
                return ExitCode::SUCCESS;
            }
            let _ = std::io::stdout().flush();
            eprintln!("qipu: {err}");
            ExitCode::from(2)
        }
    }
}

/// Errors of a command, displayed as one line.
pub type CliError = Box<dyn std::error::Error + Send + Sync>;

fn is_broken_pipe(err: &CliError) -> bool {
    err.downcast_ref::<std::io::Error>()
        .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
}
