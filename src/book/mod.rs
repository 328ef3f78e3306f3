//! Opening books for engines and GUIs: ElephantEye `BOOK.DAT` ([`eleeye`]), BHGUI `.obk`
//! ([`obk`]) and qipu's own format for both games ([`qipu`]). Each format module carries its
//! frozen on-disk spec; `docs/book-format.md` restates them.
//!
//! Building: [`build`] replays a stream of [`BookGame`]s under a format's [`KeyScheme`] and
//! selects moves by [`BookOptions`]; the format's `write` stores the result, and [`write()`]
//! does both for a [`Format`] chosen at run time. Reading: [`Book`] recognises the format from
//! the content and probes positions; [`Contents`] reads one whole, for [`merge`] (and
//! convert), and [`extend`] grows its lines with the moves a caller chooses (an engine's, in
//! `qipu book extend`). The module takes games from any iterator and never knows the store,
//! the pipeline or the CLI.
//!
//! ```
//! use qipu::book::{build, eleeye::{self, EleeyeKeys}, Book, BookGame, BookOptions, Format};
//! use qipu::rules::{AnyPosition, Move, Outcome, Variant};
//! let games = (0..4).map(|_| Ok(BookGame {
//!     start: AnyPosition::new(Variant::Xiangqi),
//!     moves: vec!["c3c4".parse::<Move>().unwrap()],
//!     result: Some(Outcome::Draw),
//! }));
//! let built = build::<EleeyeKeys>(games, &BookOptions::for_format(Format::Eleeye))?;
//! let mut bytes = Vec::new();
//! eleeye::write(&built, &mut bytes)?;
//! let book = Book::from_bytes(&bytes)?;
//! let probed = book.probe(&AnyPosition::new(Variant::Xiangqi))?;
//! let moves: Vec<String> = probed.moves.iter().map(|m| format!("{} {}", m.mv, m.weight)).collect();
//! assert_eq!(moves, ["c3c4 1", "g3g4 1"]);
//! # Ok::<_, qipu::book::BookError>(())
//! ```

pub mod board16;
mod build;
mod contents;
pub mod eleeye;
pub mod extend;
pub mod merge;
pub mod obk;
mod obk_table;
pub mod pgn;
mod probe;
mod probed;
pub mod qipu;
mod write;

use std::fmt;

pub use build::{
    build, engine_weight, select, BookGame, BookOptions, BookRecord, BuiltBook, EngineEvals,
    EvalScores, ForSide, KeyScheme, MirrorMode, MoveStats, RecordFlags, Weights,
};
pub use contents::{format_key, mirror_position, start_positions, Contents, Index, Node};
pub use probe::{detect, Book, BookFacts};
pub use probed::{Counts, ProbeMove, Probed, RawRecord};
pub use write::{write, write_merged, MergeWritten, Written};

/// The on-disk book formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// ElephantEye `BOOK.DAT`.
    Eleeye,
    /// BHGUI `.obk` (SQLite).
    Obk,
    /// qipu's own format.
    Qipu,
}

impl Format {
    /// The name used on the command line and in JSON.
    pub const fn name(self) -> &'static str {
        match self {
            Format::Eleeye => "eleeye",
            Format::Obk => "obk",
            Format::Qipu => "qipu",
        }
    }

    /// The name a reader knows the format by (`BOOK.DAT`, `.obk`, `qipu`), for messages.
    pub const fn label(self) -> &'static str {
        match self {
            Format::Eleeye => "BOOK.DAT",
            Format::Obk => ".obk",
            Format::Qipu => "qipu",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Everything that can go wrong building, writing or reading a book.
#[derive(Debug)]
pub enum BookError {
    /// Reading or writing a file.
    Io(std::io::Error),
    /// SQLite (`.obk`).
    Sql(rusqlite::Error),
    /// A game the builder cannot use: 0-based index in the input, 1-based ply, reason.
    Build {
        /// Index of the game in the input stream.
        game: usize,
        /// Ply of the offending move, if a move is at fault.
        ply: Option<usize>,
        /// What is wrong.
        reason: String,
    },
    /// Input for the builder could not be read (e.g. a database row).
    Input(String),
    /// Input for the builder could not be read, because of another layer's error (a
    /// database's, a stored start position's), kept as the [`source`](std::error::Error::source)
    /// and displayed as it is.
    Upstream(Box<dyn std::error::Error + Send + Sync>),
    /// The file is not a book of any known format.
    UnknownFormat,
    /// The file was read as a book of this format (by its size or its SQLite header) and is
    /// not one: why.
    NotFormat {
        /// The format it was read as.
        format: Format,
        /// Why it is not a book of that format.
        why: String,
    },
    /// The book is damaged.
    Corrupt(String),
    /// Something the format cannot hold or the reader cannot do.
    Unsupported(String),
    /// Nothing to write: no game to learn from, no record left (no file is written).
    Empty(String),
}

impl BookError {
    pub(crate) fn build(game: usize, ply: Option<usize>, reason: String) -> BookError {
        BookError::Build { game, ply, reason }
    }
}

impl fmt::Display for BookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BookError::Io(e) => write!(f, "{e}"),
            BookError::Sql(e) => write!(f, "SQLite: {e}"),
            BookError::Build { game, ply, reason } => {
                write!(f, "game {}", game + 1)?;
                if let Some(p) = ply {
                    write!(f, ", ply {p}")?;
                }
                write!(f, ": {reason}")
            }
            BookError::Input(e) => write!(f, "{e}"),
            BookError::Upstream(e) => write!(f, "{e}"),
            BookError::UnknownFormat => {
                f.write_str("not a book of a known format (BOOK.DAT, .obk, qipu)")
            }
            BookError::NotFormat { format, why } => {
                write!(f, "not a {} book: {why}", format.label())
            }
            BookError::Corrupt(e) => write!(f, "corrupt book: {e}"),
            BookError::Unsupported(e) => write!(f, "not supported: {e}"),
            BookError::Empty(e) => write!(f, "{e}: no book written"),
        }
    }
}

impl std::error::Error for BookError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            BookError::Io(e) => Some(e),
            BookError::Sql(e) => Some(e),
            BookError::Upstream(e) => Some(e.as_ref()),
            BookError::Build { .. }
            | BookError::Input(_)
            | BookError::UnknownFormat
            | BookError::NotFormat { .. }
            | BookError::Corrupt(_)
            | BookError::Unsupported(_)
            | BookError::Empty(_) => None,
        }
    }
}

impl From<std::io::Error> for BookError {
    fn from(e: std::io::Error) -> Self {
        BookError::Io(e)
    }
}

impl From<rusqlite::Error> for BookError {
    fn from(e: rusqlite::Error) -> Self {
        BookError::Sql(e)
    }
}
