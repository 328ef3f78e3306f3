//! [`GameError`]: why a game (or a whole file) could not be read or replayed, and where —
//! file, game, ply, offending token and, for text records, the byte offset of the game.
//!
//! Owns the error's kinds ([`ErrorKind`]) and their wording; the readers and
//! [`super::replay`] choose the kind, the callers (folder walk, import report, CLI) decide
//! by kind, never by a message's text. Knows nothing of the store or the CLI.

use std::fmt;

use super::game::Source;
use crate::{notation::NotationError, rules::PositionError};

/// What is wrong with a game or a record. The message ([`fmt::Display`]) is derived from
/// the kind; [`ErrorKind::name`] is its stable name in the import report.
///
/// ```
/// use qipu::formats::ErrorKind;
/// assert_eq!(ErrorKind::Empty.to_string(), "empty file");
/// assert_eq!(ErrorKind::NotARecord.name(), "not_a_record");
/// assert!(ErrorKind::NotARecord.is_not_a_record());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The input is not a game record in any supported format.
    NotARecord,
    /// The file is empty (or only white space).
    Empty,
    /// A Tygem Go record (`.gib`), not a Janggi one.
    GoRecord,
    /// A file, folder or archive member could not be read (the message says what and why).
    Unreadable(String),
    /// Refused by one of the readers' limits (size, compression ratio, nesting, length).
    Refused(String),
    /// The record's bytes or text are broken or inconsistent.
    Malformed(String),
    /// Something qipu does not read or write (a coordinate system, a target format).
    Unsupported(String),
    /// The game's start position is not a legal position.
    BadStart(Box<PositionError>),
    /// A move of the main line cannot be read, is ambiguous or is illegal.
    BadMove(NotationError),
}

impl ErrorKind {
    /// The kind's stable name, as written in the `kind` column of the import report and the
    /// `kind` field of `qipu import --json`.
    pub fn name(&self) -> &'static str {
        match self {
            ErrorKind::NotARecord => "not_a_record",
            ErrorKind::Empty => "empty",
            ErrorKind::GoRecord => "go_record",
            ErrorKind::Unreadable(_) => "unreadable",
            ErrorKind::Refused(_) => "refused",
            ErrorKind::Malformed(_) => "malformed",
            ErrorKind::Unsupported(_) => "unsupported",
            ErrorKind::BadStart(_) => "bad_start",
            ErrorKind::BadMove(NotationError::Syntax(_)) => "unreadable_move",
            ErrorKind::BadMove(NotationError::Illegal(_)) => "illegal_move",
            ErrorKind::BadMove(NotationError::Ambiguous(_)) => "ambiguous_move",
        }
    }

    /// Whether the input is simply not a game record (or empty): what a folder walk may skip
    /// in silence when the file does not carry a record's extension.
    pub fn is_not_a_record(&self) -> bool {
        matches!(self, ErrorKind::NotARecord | ErrorKind::Empty)
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::NotARecord => f.write_str("not a game record in any supported format"),
            ErrorKind::Empty => f.write_str("empty file"),
            ErrorKind::GoRecord => f.write_str("a Tygem Go record (.gib), not Janggi"),
            ErrorKind::Unreadable(m)
            | ErrorKind::Refused(m)
            | ErrorKind::Malformed(m)
            | ErrorKind::Unsupported(m) => f.write_str(m),
            ErrorKind::BadStart(e) => write!(f, "bad start position: {e}"),
            ErrorKind::BadMove(e) => write!(f, "{e}"),
        }
    }
}

/// A game that could not be read or replayed, or a file that could not be read at all
/// (`game: None`): where, and what kind of failure.
///
/// ```
/// use qipu::formats::{ErrorKind, GameError, Source};
/// let source = Source { file: "a.pgn".into(), index: 2 };
/// let e = GameError::new(&source, ErrorKind::Malformed("bad tag".into())).at_offset(120);
/// assert_eq!(e.to_string(), "a.pgn, game 3: bad tag (at byte 120 of the text)");
/// assert_eq!(e.reason(), "bad tag");
/// let f = GameError::file("notes.txt", ErrorKind::NotARecord);
/// assert_eq!(f.game, None);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameError {
    /// File path (`archive.zip:inner/path` inside zips).
    pub file: String,
    /// 0-based game index in the file (`None` when the whole file failed).
    pub game: Option<usize>,
    /// 1-based ply of the offending move, if a move is at fault.
    pub ply: Option<usize>,
    /// The offending text, if any.
    pub token: Option<String>,
    /// For text records: the byte offset in the file's decoded text where the game (its
    /// first tag, or its line) starts. (Files are read up to 2 GiB: 32 bits hold it, and
    /// keep the error small.)
    pub offset: Option<u32>,
    /// What is wrong.
    pub kind: ErrorKind,
}

impl GameError {
    /// An error about a whole game.
    pub fn new(source: &Source, kind: ErrorKind) -> GameError {
        GameError {
            file: source.file.clone(),
            game: Some(source.index),
            ply: None,
            token: None,
            offset: None,
            kind,
        }
    }

    /// An error about a whole file (or folder, or archive member).
    pub fn file(file: &str, kind: ErrorKind) -> GameError {
        GameError {
            file: file.to_string(),
            game: None,
            ply: None,
            token: None,
            offset: None,
            kind,
        }
    }

    /// The same error, at a byte offset of the text (none beyond 4 GiB).
    #[must_use]
    pub fn at_offset(self, offset: usize) -> GameError {
        GameError {
            offset: u32::try_from(offset).ok(),
            ..self
        }
    }

    /// The same error, at a ply (1-based) and its move text.
    #[must_use]
    pub fn at_ply(self, ply: usize, token: &str) -> GameError {
        GameError {
            ply: Some(ply),
            token: Some(token.to_string()),
            ..self
        }
    }

    /// What is wrong, in words (the kind's message).
    pub fn reason(&self) -> String {
        self.kind.to_string()
    }
}

impl fmt::Display for GameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(g) = self.game {
            write!(f, ", game {}", g + 1)?;
        }
        if let Some(p) = self.ply {
            write!(f, ", ply {p}")?;
        }
        if let Some(t) = &self.token {
            write!(f, " `{t}`")?;
        }
        write!(f, ": {}", self.kind)?;
        if let Some(o) = self.offset {
            write!(f, " (at byte {o} of the text)")?;
        }
        Ok(())
    }
}

impl std::error::Error for GameError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            ErrorKind::BadStart(e) => Some(e.as_ref()),
            ErrorKind::BadMove(e) => Some(e),
            _ => None,
        }
    }
}

/// A reader's own description of a broken record.
impl From<String> for ErrorKind {
    fn from(message: String) -> ErrorKind {
        ErrorKind::Malformed(message)
    }
}

/// See the `String` conversion.
impl From<&str> for ErrorKind {
    fn from(message: &str) -> ErrorKind {
        ErrorKind::Malformed(message.to_string())
    }
}
