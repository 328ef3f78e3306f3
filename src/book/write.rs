//! Building and writing a book of a given format in one call: the format picks its key scheme
//! and writer, the file is replaced. The caller brings the games (from files, a database, a
//! test) and reports the [`Written`] summary; this module knows no game source.

use std::path::Path;

use super::{
    build,
    eleeye::{self, EleeyeKeys},
    obk::{self, ObkKeys},
    qipu::{self, QipuKeys},
    BookError, BookGame, BookOptions, BuiltBook, Format, KeyScheme,
};

/// What [`write()`] put into a book.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Written {
    /// Games the builder used.
    pub games: usize,
    /// Distinct positions (book keys) in the book.
    pub positions: usize,
    /// Records (position, move) written.
    pub records: usize,
    /// Moves (position and move as played) left out because the engine scored them below
    /// `EngineEvals::min_cp`.
    pub dropped_by_eval: usize,
    /// Entries left out under `Weights::Engine` for want of a score.
    pub unscored: usize,
}

/// Builds the book of `format` from `games` under `opts` and writes it to `out` (replaced if
/// it exists).
///
/// # Errors
/// The builder's errors (a game it cannot replay, an input error passed through) and I/O or
/// SQLite errors writing `out`.
///
/// ```
/// use qipu::book::{self, Book, BookGame, BookOptions, Format};
/// use qipu::rules::{AnyPosition, Move, Outcome, Variant};
/// let games = (0..2).map(|_| Ok(BookGame {
///     start: AnyPosition::new(Variant::Xiangqi),
///     moves: vec!["h2e2".parse::<Move>().unwrap()],
///     result: Some(Outcome::Draw),
/// }));
/// let dir = tempfile::tempdir()?;
/// let out = dir.path().join("book.qbk");
/// let written = book::write(Format::Qipu, games, &BookOptions::for_format(Format::Qipu), &out)?;
/// assert_eq!((written.games, written.positions), (2, 1));
/// let probed = Book::open(&out)?.probe(&AnyPosition::new(Variant::Xiangqi))?;
/// assert_eq!(probed.moves.len(), 2); // h2e2 and its mirror b2e2
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
pub fn write(
    format: Format,
    games: impl Iterator<Item = Result<BookGame, BookError>>,
    opts: &BookOptions,
    out: &Path,
) -> Result<Written, BookError> {
    match format {
        Format::Eleeye => build_and_write::<EleeyeKeys>(games, opts, |b| {
            let mut bytes = Vec::new();
            let n = eleeye::write(b, &mut bytes)?;
            std::fs::write(out, &bytes)?;
            Ok(n)
        }),
        Format::Obk => build_and_write::<ObkKeys>(games, opts, |b| obk::write(b, out)),
        Format::Qipu => build_and_write::<QipuKeys>(games, opts, |b| {
            let mut bytes = Vec::new();
            let n = qipu::write(b, &mut bytes)?;
            std::fs::write(out, &bytes)?;
            Ok(n)
        }),
    }
}

fn build_and_write<S: KeyScheme>(
    games: impl Iterator<Item = Result<BookGame, BookError>>,
    opts: &BookOptions,
    write: impl FnOnce(&BuiltBook<S::Key>) -> Result<usize, BookError>,
) -> Result<Written, BookError> {
    let built = build::<S>(games, opts)?;
    let mut positions = 0;
    let mut last = None;
    for r in &built.records {
        if last != Some(r.key) {
            positions += 1;
            last = Some(r.key);
        }
    }
    let records = write(&built)?;
    Ok(Written {
        games: built.games,
        positions,
        records,
        dropped_by_eval: built.dropped_by_eval,
        unscored: built.unscored,
    })
}
