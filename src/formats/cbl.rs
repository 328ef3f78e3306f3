//! CCBridge (象棋桥) CBL libraries: a header (magic, UTF-16LE library name) followed by an
//! index and then CBR records, each starting on a 4096-byte block boundary; a long record
//! runs on into the following blocks. Every block that starts with the CBR magic is a record;
//! records with an empty board and no moves are section headings and are skipped, so a
//! game's [`Source::index`] is its record index in the library.
//!
//! ```
//! use qipu::formats::cbl;
//! let bytes = std::fs::read("tests/data/binfmt/two_games.cbl").unwrap();
//! assert!(cbl::sniff(&bytes));
//! let games = cbl::read("two_games.cbl", &bytes);
//! assert_eq!(games.len(), 2);
//! assert_eq!(games[1].as_ref().unwrap().source.index, 1);
//! ```

use super::cbr;
use super::error::{ErrorKind, GameError};
use super::game::{Game, Source};

/// The 16-byte magic of a CBL library.
pub const MAGIC: &[u8; 16] = b"CCBridgeLibrary\0";

const BLOCK: usize = 4096;

/// Whether the bytes start with the CBL magic.
///
/// ```
/// assert!(qipu::formats::cbl::sniff(b"CCBridgeLibrary\0"));
/// ```
pub fn sniff(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC)
}

/// The library name stored in the header, if any.
pub fn library_name(bytes: &[u8]) -> Option<String> {
    let raw = bytes.get(64..64 + 512)?;
    let name = cbr::utf16(raw);
    let t = name.trim();
    (!t.is_empty()).then(|| t.to_string())
}

/// Reads every game of a library, in file order. A library with no record at all is one
/// error.
pub fn read(file: &str, bytes: &[u8]) -> Vec<Result<Game, GameError>> {
    let whole = Source {
        file: file.to_string(),
        index: 0,
    };
    if !sniff(bytes) {
        return vec![Err(GameError {
            game: None,
            ..GameError::new(
                &whole,
                ErrorKind::Malformed("not a CBL library (no `CCBridgeLibrary` magic)".into()),
            )
        })];
    }
    // Records start on 4096-byte boundaries counted from the first one.
    let first = bytes
        .windows(cbr::MAGIC.len())
        .position(|w| w == cbr::MAGIC);
    let Some(first) = first else {
        return vec![Err(GameError {
            game: None,
            ..GameError::new(
                &whole,
                ErrorKind::Malformed("CBL library contains no CBR record".into()),
            )
        })];
    };
    let starts: Vec<usize> = (first..bytes.len())
        .step_by(BLOCK)
        .filter(|&p| bytes[p..].starts_with(cbr::MAGIC))
        .collect();
    let mut out = Vec::with_capacity(starts.len());
    for (index, &start) in starts.iter().enumerate() {
        let end = starts.get(index + 1).copied().unwrap_or(bytes.len());
        let source = Source {
            file: file.to_string(),
            index,
        };
        let game = cbr::read_record(&source, &bytes[start..end]);
        // Libraries use records with an empty board and no moves as section headings
        // (their title names the section); they are not games. The indices of the games
        // stay the record indices.
        if let Ok(g) = &game {
            let empty_board = g
                .start_fen
                .as_deref()
                .is_some_and(|f| f.starts_with("9/9/9/9/9/9/9/9/9/9 "));
            if empty_board && g.moves.is_empty() {
                continue;
            }
        }
        out.push(game);
    }
    out
}
