//! Reading any book back: format detection from the content, and the lookup shared by every
//! format (the position as it stands, else its mirror image; moves filtered by legality, which
//! also drops the moves of hash collisions).
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
    BookError, Format,
};
use crate::rules::{AnyPosition, Move};

/// Game counts stored with a move (`.obk` and qipu books), from the mover's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Counts {
    /// Games that played the move (`None` when the format does not store it).
    pub games: Option<u32>,
    /// Won by the mover.
    pub wins: u32,
    /// Drawn.
    pub draws: u32,
    /// Lost by the mover.
    pub losses: u32,
}

/// One book move of a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProbeMove {
    /// The move, in the orientation of the probed position.
    pub mv: Move,
    /// Its weight (`.obk` scores may be negative).
    pub weight: i64,
    /// Game counts, where the format stores them.
    pub counts: Option<Counts>,
}

/// The answer to a probe.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Probed {
    /// Whether the moves were found under the mirror image of the position.
    pub mirrored: bool,
    /// Legal book moves, heaviest first (ties in stored order).
    pub moves: Vec<ProbeMove>,
}

/// Looks a position up as it stands (`lookup(false)`) and, if that yields no legal move, as its
/// mirror image (`lookup(true)`, whose moves are in the mirrored orientation and are mirrored
/// back here).
///
/// # Errors
/// Those of `lookup`.
pub(crate) fn lookup_with_mirror(
    pos: &AnyPosition,
    mut lookup: impl FnMut(bool) -> Result<Vec<ProbeMove>, BookError>,
) -> Result<Probed, BookError> {
    let mut legal = None;
    for mirrored in [false, true] {
        let found = lookup(mirrored)?;
        if found.is_empty() {
            continue;
        }
        let legal = legal.get_or_insert_with(|| pos.legal_moves());
        let mut moves: Vec<ProbeMove> = found
            .into_iter()
            .map(|m| ProbeMove {
                mv: if mirrored { m.mv.mirror() } else { m.mv },
                ..m
            })
            .filter(|m| legal.contains(m.mv))
            .collect();
        if !moves.is_empty() {
            moves.sort_by_key(|m| std::cmp::Reverse(m.weight));
            return Ok(Probed { mirrored, moves });
        }
    }
    Ok(Probed::default())
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
