//! The `qipu` command line. The only module that knows clap.
//!
//! Owns the arguments, the human and `--json` output and the exit codes; its insides are
//! private to the crate (the binary reaches it through [`crate::run_cli`]). It calls the
//! layers below and never reaches into their internals; nothing below calls it.

mod analyse;
mod book;
mod book_extend;
mod book_tools;
mod compact;
mod convert;
mod emit;
mod explore;
mod export;
mod game_filter;
mod import;
mod load;
mod player;
mod players;
mod position_args;
mod probe;
mod rules_cmds;
mod serve;
mod stats;

use std::{io::Write, process::ExitCode};

use clap::{Parser, Subcommand};

/// The exit codes of every command, shown at the end of `qipu --help` (README says the same).
const EXIT_CODES: &str = "\
Exit codes (every command):
  0  did what was asked
  1  ran, but found or wrote nothing (no game through the position, no book move, no player
     matches, no game to build a book from), or rejected part of the input (a game, a file
     without games, a game kept only up to an unreadable move): the output holds the rest,
     and the summary counts what was rejected
  2  could not run: bad arguments, a missing or unreadable file, a file that is not a qipu
     database or a book of its format, a database error";

/// Xiangqi and Janggi game databases, opening explorer and opening books.
#[derive(Parser, Debug)]
#[command(name = "qipu", version, about, long_about = None, after_help = EXIT_CODES)]
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
    /// Build an engine opening book (BOOK.DAT, .obk or qipu) from game records; or convert,
    /// merge, dump or describe books (`qipu book convert|merge|dump|stats`).
    #[command(args_conflicts_with_subcommands = true)]
    Book(book::BookCommand),
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
    /// A player's dossier: results by side and year, opponents, events, repertoire, weak lines.
    Player(player::PlayerArgs),
    /// The players whose name contains a pattern, most games first.
    Players(players::PlayersArgs),
    /// The map of a Spark build: games and positions as Parquet for spark/build.py.
    Emit(emit::EmitArgs),
    /// Write a database from the output of spark/build.py (fresh, or adding to one).
    Load(load::LoadArgs),
    /// Compact the segments of a database's statistics (`qipu import` does it by itself).
    Compact(compact::CompactArgs),
}

/// Parses the command line, runs it and maps the result to an exit code (the rule at the end
/// of `qipu --help`): a command returns 0 or 1 itself, an error is 2. A closed pipe on stdout
/// counts as success.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Perft(args) => rules_cmds::perft(&args),
        Command::Moves(args) => rules_cmds::moves(&args),
        Command::Import(args) => import::import(&args),
        Command::Book(args) => match &args.tool {
            Some(tool) => book_tools::run(tool),
            None => book::book(&args.build),
        },
        Command::Probe(args) => probe::probe(&args),
        Command::Convert(args) => convert::convert(&args),
        Command::Serve(args) => serve::serve(&args),
        Command::Explore(args) => explore::explore(&args),
        Command::Export(args) => export::export(&args),
        Command::Stats(args) => stats::stats(&args),
        Command::Analyse(args) => analyse::analyse(&args),
        Command::Player(args) => player::player(&args),
        Command::Players(args) => players::players(&args),
        Command::Emit(args) => emit::emit(&args),
        Command::Load(args) => load::load(&args),
        Command::Compact(args) => compact::compact(&args),
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
pub(crate) type CliError = Box<dyn std::error::Error + Send + Sync>;

/// An error with what was being done (`book.obk: …`), keeping the error itself as its
/// [`source`](std::error::Error::source) rather than only its text.
#[derive(Debug)]
pub(crate) struct Context {
    what: String,
    source: CliError,
}

impl Context {
    /// Wraps `source`, displayed after `what` and a colon.
    pub(crate) fn new(what: impl Into<String>, source: impl Into<CliError>) -> Context {
        Context {
            what: what.into(),
            source: source.into(),
        }
    }
}

impl std::fmt::Display for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.what, self.source)
    }
}

impl std::error::Error for Context {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(self.source.as_ref())
    }
}

/// Whether a closed pipe is anywhere in the error's chain of sources (an I/O error of its
/// own, or inside a CSV or JSON writer's error, or a store's). The chain is bounded: an
/// error's sources are finite, and the walk stops after 64 links.
fn is_broken_pipe(err: &CliError) -> bool {
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(err.as_ref());
    for _ in 0..64 {
        let Some(e) = cur else { return false };
        // csv's and serde_json's `source()` skip their own I/O errors: ask them.
        let kind = if let Some(io) = e.downcast_ref::<std::io::Error>() {
            Some(io.kind())
        } else if let Some(json) = e.downcast_ref::<serde_json::Error>() {
            json.io_error_kind()
        } else if let Some(csv::ErrorKind::Io(io)) =
            e.downcast_ref::<csv::Error>().map(csv::Error::kind)
        {
            Some(io.kind())
        } else {
            None
        };
        if kind == Some(std::io::ErrorKind::BrokenPipe) {
            return true;
        }
        cur = e.source();
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Wrapper(std::io::Error);

    impl std::fmt::Display for Wrapper {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "writing failed")
        }
    }

    impl std::error::Error for Wrapper {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }

    fn pipe() -> std::io::Error {
        std::io::Error::from(std::io::ErrorKind::BrokenPipe)
    }

    #[test]
    fn broken_pipe_is_found_anywhere_in_the_chain() {
        assert!(is_broken_pipe(&CliError::from(pipe())));
        assert!(is_broken_pipe(&CliError::from(Wrapper(pipe()))));
        assert!(is_broken_pipe(&CliError::from(csv::Error::from(pipe()))));
        assert!(is_broken_pipe(&CliError::from(serde_json::Error::io(
            pipe()
        ))));
        assert!(is_broken_pipe(&CliError::from(Context::new("out", pipe()))));
        let e = Context::new("a.obk", "bad header");
        assert_eq!(e.to_string(), "a.obk: bad header");
        assert_eq!(
            std::error::Error::source(&e).map(ToString::to_string),
            Some("bad header".to_string())
        );
        let other = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
        assert!(!is_broken_pipe(&CliError::from(Wrapper(other))));
        assert!(!is_broken_pipe(&CliError::from("a message")));
    }
}
