//! Building and writing a book of a given format in one call: the format picks its key scheme
//! and writer, the file is replaced. The caller brings the games (from files, a database, a
//! test) and reports the [`Written`] summary; this module knows no game source. [`write_merged`]
//! does the same for books merged or converted by [`super::merge`].
//!
//! Every book is written to a temporary file beside the target and renamed over it once
//! complete: an error (or a kill) leaves the old file, or none, never a partial book.

use std::path::{Path, PathBuf};

use super::{
    build,
    eleeye::{self, EleeyeKeys},
    merge::{self, Input, InputSummary, Lost, MergeOptions, Target},
    obk::{self, ObkKeys},
    qipu::{self, QipuKeys},
    BookError, BookGame, BookOptions, BuiltBook, Format, KeyScheme,
};

/// A temporary file beside a target, removed on drop unless [`Staged::commit`] renamed it.
struct Staged {
    tmp: PathBuf,
    target: PathBuf,
    done: bool,
}

impl Staged {
    fn new(target: &Path) -> Staged {
        let name = target
            .file_name()
            .map_or_else(|| "book".into(), |n| n.to_string_lossy().into_owned());
        let tmp = target.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
        Staged {
            tmp,
            target: target.to_path_buf(),
            done: false,
        }
    }

    fn commit(mut self) -> Result<(), BookError> {
        std::fs::rename(&self.tmp, &self.target)?;
        self.done = true;
        Ok(())
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.done {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// Writes a book of a scheme to `out` through a temporary file; `write` gets that file's
/// path and returns the number of records.
fn staged<K>(
    book: &BuiltBook<K>,
    out: &Path,
    write: impl FnOnce(&BuiltBook<K>, &Path) -> Result<usize, BookError>,
) -> Result<usize, BookError> {
    let stage = Staged::new(out);
    let n = write(book, &stage.tmp)?;
    stage.commit()?;
    Ok(n)
}

fn bytes_to(
    path: &Path,
    write: impl FnOnce(&mut Vec<u8>) -> Result<usize, BookError>,
) -> Result<usize, BookError> {
    let mut bytes = Vec::new();
    let n = write(&mut bytes)?;
    std::fs::write(path, &bytes)?;
    Ok(n)
}

/// What [`write_merged`] wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MergeWritten {
    /// Records written.
    pub records: usize,
    /// Distinct positions (keys).
    pub positions: usize,
    /// Per input.
    pub inputs: Vec<InputSummary>,
    /// What the target could not hold.
    pub lost: Lost,
}

/// Merges (or, with one input, converts) books into `out` of `opts.format`, replaced if it
/// exists. See [`super::merge`] for the rule.
///
/// # Errors
/// [`merge::merge`]'s errors; [`BookError::Empty`] when nothing is left to write (no file is
/// written); I/O and SQLite errors.
pub fn write_merged(
    inputs: &[Input<'_>],
    opts: &MergeOptions,
    out: &Path,
) -> Result<MergeWritten, BookError> {
    fn go<S: Target>(
        inputs: &[Input<'_>],
        opts: &MergeOptions,
        out: &Path,
        write: impl FnOnce(&BuiltBook<S::Key>, &Path) -> Result<usize, BookError>,
    ) -> Result<MergeWritten, BookError> {
        let m = merge::merge::<S>(inputs, opts)?;
        if m.book.records.is_empty() {
            return Err(BookError::Empty("no record is left to write".into()));
        }
        let records = staged(&m.book, out, write)?;
        Ok(MergeWritten {
            records,
            positions: m.positions,
            inputs: m.inputs,
            lost: m.lost,
        })
    }
    match opts.format {
        Format::Eleeye => go::<EleeyeKeys>(inputs, opts, out, |b, p| {
            bytes_to(p, |v| eleeye::write(b, v))
        }),
        Format::Obk => go::<ObkKeys>(inputs, opts, out, obk::write),
        Format::Qipu => {
            go::<QipuKeys>(inputs, opts, out, |b, p| bytes_to(p, |v| qipu::write(b, v)))
        }
    }
}

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
/// The builder's errors (a game it cannot replay, an input error passed through),
/// [`BookError::Empty`] when no game came (no file is written), and I/O or SQLite errors
/// writing `out`.
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
            staged(b, out, |b, p| bytes_to(p, |v| eleeye::write(b, v)))
        }),
        Format::Obk => build_and_write::<ObkKeys>(games, opts, |b| staged(b, out, obk::write)),
        Format::Qipu => build_and_write::<QipuKeys>(games, opts, |b| {
            staged(b, out, |b, p| bytes_to(p, |v| qipu::write(b, v)))
        }),
    }
}

fn build_and_write<S: KeyScheme>(
    games: impl Iterator<Item = Result<BookGame, BookError>>,
    opts: &BookOptions,
    write: impl FnOnce(&BuiltBook<S::Key>) -> Result<usize, BookError>,
) -> Result<Written, BookError> {
    let built = build::<S>(games, opts)?;
    if built.games == 0 {
        return Err(BookError::Empty(format!(
            "no {} game to learn from",
            built.variant
        )));
    }
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
