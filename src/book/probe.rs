//! Reading any book back: format detection from the content and the [`Book`] enum that
//! dispatches a probe to the format's reader. The answer types and the lookup every reader
//! shares live in `probed.rs`, so that the format modules do not depend on this one.
//!
//! ```no_run
//! use qipu::book::Book;
//! use qipu::rules::{AnyPosition, Variant};
//! let book = Book::open("BOOK.DAT".as_ref())?;
//! for m in book.probe(&AnyPosition::new(Variant::Xiangqi))?.moves {
//!     println!("{} {}", m.mv, m.weight);
//! }
//! # Ok::<_, qipu::book::BookError>(())
//! ```

use std::{fs, io::Read, path::Path};

use super::{
    eleeye::EleeyeBook,
    obk::{self, ObkBook},
    qipu::{self, QipuBook},
    BookError, Format, Probed, RawRecord,
};
use crate::rules::{AnyPosition, Variant};

/// What a book is, as `qipu probe --json` and `/api/probe` report it beside the moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct BookFacts {
    /// The format's name ([`Format::name`]).
    pub format: &'static str,
    /// The game of the book's positions.
    pub variant: &'static str,
    /// Records (position and move) the file holds.
    pub records: usize,
    /// Distinct position keys (a mirror-merged book stores a position and its mirror image
    /// under one key).
    pub positions: usize,
    /// See [`Book::mirror_merged`] (`None`: not known, `.obk`).
    pub mirror_merged: Option<bool>,
}

/// An open book of any format.
#[derive(Debug)]
pub enum Book {
    /// ElephantEye `BOOK.DAT`.
    Eleeye(EleeyeBook),
    /// BHGUI `.obk`.
    Obk(ObkBook),
    /// qipu's own format.
    Qipu(QipuBook),
}

/// Recognises a book from its first bytes and its size: the qipu magic, the SQLite header, or
/// else a `BOOK.DAT` (a whole number of 8-byte records sorted by lock).
pub fn detect(bytes: &[u8]) -> Option<Format> {
    if bytes.starts_with(qipu::MAGIC) {
        Some(Format::Qipu)
    } else if bytes.starts_with(obk::SQLITE_MAGIC) {
        Some(Format::Obk)
    } else if EleeyeBook::looks_like(bytes) {
        Some(Format::Eleeye)
    } else {
        None
    }
}

impl Book {
    /// Opens a book file, recognising its format from the content.
    ///
    /// # Errors
    /// I/O errors, [`BookError::UnknownFormat`], and the format's own errors for a corrupt file.
    pub fn open(path: &Path) -> Result<Book, BookError> {
        let mut head = [0u8; 16];
        let n = fs::File::open(path)?.read(&mut head)?;
        if head[..n].starts_with(obk::SQLITE_MAGIC) {
            return Ok(Book::Obk(ObkBook::open(path)?));
        }
        let bytes = fs::read(path)?;
        Book::from_bytes(&bytes)
    }

    /// Reads a book held in memory (`BOOK.DAT` or qipu; `.obk` needs a file).
    ///
    /// # Errors
    /// [`BookError::UnknownFormat`] and the format's own errors.
    pub fn from_bytes(bytes: &[u8]) -> Result<Book, BookError> {
        if bytes.starts_with(qipu::MAGIC) {
            Ok(Book::Qipu(QipuBook::from_bytes(bytes.to_vec())?))
        } else if bytes.starts_with(obk::SQLITE_MAGIC) {
            Err(BookError::Unsupported(
                "an .obk book must be opened from a file".into(),
            ))
        } else if !bytes.is_empty() && bytes.len() % 8 == 0 {
            Ok(Book::Eleeye(EleeyeBook::from_bytes(bytes)?))
        } else {
            Err(BookError::UnknownFormat)
        }
    }

    /// The format.
    pub fn format(&self) -> Format {
        match self {
            Book::Eleeye(_) => Format::Eleeye,
            Book::Obk(_) => Format::Obk,
            Book::Qipu(_) => Format::Qipu,
        }
    }

    /// The game of the book's positions (Xiangqi for `BOOK.DAT` and `.obk`).
    pub fn variant(&self) -> Variant {
        match self {
            Book::Qipu(q) => q.header().variant,
            Book::Eleeye(_) | Book::Obk(_) => Variant::Xiangqi,
        }
    }

    /// Whether the book folds each position with its mirror image: always for `BOOK.DAT`
    /// (MAKEBOOK does), as the header says for qipu, never known for `.obk` (`None`; qipu
    /// reads such books as positions as reached, and looks the mirror up when a position has
    /// no record).
    pub fn mirror_merged(&self) -> Option<bool> {
        match self {
            Book::Eleeye(_) => Some(true),
            Book::Obk(_) => None,
            Book::Qipu(q) => Some(q.header().mirror_merged),
        }
    }

    /// The book's format, game, size and mirror folding.
    ///
    /// # Errors
    /// SQLite errors (`.obk`).
    pub fn facts(&self) -> Result<BookFacts, BookError> {
        let (records, positions) = self.size()?;
        Ok(BookFacts {
            format: self.format().name(),
            variant: self.variant().name(),
            records,
            positions,
            mirror_merged: self.mirror_merged(),
        })
    }

    /// Records and distinct positions (keys).
    ///
    /// # Errors
    /// SQLite errors (`.obk`).
    pub fn size(&self) -> Result<(usize, usize), BookError> {
        match self {
            Book::Eleeye(b) => {
                let r = b.records();
                let keys = 1 + r.windows(2).filter(|w| w[0].lock != w[1].lock).count();
                Ok((r.len(), if r.is_empty() { 0 } else { keys }))
            }
            Book::Obk(b) => b.size(),
            Book::Qipu(q) => {
                let h = q.header();
                Ok((h.records as usize, h.positions as usize))
            }
        }
    }

    /// Every record the book holds, as stored (no position known), with the number of
    /// records whose move (or key) this version cannot read.
    ///
    /// # Errors
    /// SQLite errors (`.obk`).
    pub fn raw_records(&self) -> Result<(Vec<RawRecord>, usize), BookError> {
        match self {
            Book::Eleeye(b) => Ok(b.raw_records()),
            Book::Obk(b) => b.raw_records(),
            Book::Qipu(q) => Ok((q.raw_records().collect(), q.unreadable())),
        }
    }

    /// The book moves of a position: as it stands, else as its mirror image; legal moves
    /// only, heaviest first.
    ///
    /// # Errors
    /// A position of a game the book does not hold; a corrupt record.
    pub fn probe(&self, pos: &AnyPosition) -> Result<Probed, BookError> {
        match self {
            Book::Eleeye(b) => b.probe(pos),
            Book::Obk(b) => b.probe(pos),
            Book::Qipu(b) => b.probe(pos),
        }
    }
}
