//! CCBridge (象棋桥) formats in one entry point: CBF XML records ([`super::cbf`]), CBR binary
//! records v1/v2 ([`super::cbr`]) and CBL libraries of many CBR records ([`super::cbl`]).
//!
//! ```
//! use qipu::formats::ccbridge;
//! let bytes = std::fs::read("tests/data/binfmt/two_games.cbl").unwrap();
//! assert!(ccbridge::sniff(&bytes));
//! assert_eq!(ccbridge::read("two_games.cbl", &bytes).len(), 2);
//! ```

use super::error::{ErrorKind, GameError};
use super::game::{Game, Source};
use super::{cbf, cbl, cbr};

/// Whether the bytes are any CCBridge format (CBR, CBL or CBF), by content.
pub fn sniff(bytes: &[u8]) -> bool {
    cbr::sniff(bytes) || cbl::sniff(bytes) || cbf::sniff(bytes)
}

/// Reads a CCBridge file of any of the three kinds.
pub fn read(file: &str, bytes: &[u8]) -> Vec<Result<Game, GameError>> {
    if cbl::sniff(bytes) {
        cbl::read(file, bytes)
    } else if cbr::sniff(bytes) {
        cbr::read(file, bytes)
    } else if cbf::sniff(bytes) {
        cbf::read(file, bytes)
    } else {
        let source = Source {
            file: file.to_string(),
            index: 0,
        };
        vec![Err(GameError {
            game: None,
            ..GameError::new(
                &source,
                ErrorKind::Malformed("not a CCBridge file (CBR, CBL or CBF)".into()),
            )
        })]
    }
}
