//! qipu's Zobrist keys: 64 bits over pieces, side to move and variant.
//!
//! The tables in `zobrist_table.rs` were generated once by `scripts/gen-zobrist.py` and are
//! frozen: databases and qipu books store these keys, so **changing a value is a breaking
//! change**. `tests/data/rules/zobrist.csv` pins keys of real move sequences, and the tests check
//! that the incrementally updated key always equals the key computed from scratch.
//!
//! ```
//! use qipu::rules::{Position, Xiangqi, Janggi};
//! // The two games never share a key, even for the same board.
//! assert_ne!(Xiangqi::new().key(), Janggi::new().key());
//! ```

use super::{
    types::{Color, Variant},
    zobrist_table::{PIECE_SQUARE, SECOND_TO_MOVE as SIDE, VARIANT_SALT},
};

/// XORed into the key when the second player is to move.
pub(crate) const SECOND_TO_MOVE: u64 = SIDE;

/// Key contribution of a piece (internal code 1..=14) on a square.
#[inline]
pub(crate) fn piece_square(code: u8, sq: usize) -> u64 {
    PIECE_SQUARE[(code as usize).wrapping_sub(1) % 14][sq]
}

/// The key computed from scratch.
pub(crate) fn key_of(squares: &[u8; 90], turn: Color, variant: Variant) -> u64 {
    let mut key = VARIANT_SALT[variant as usize];
    for (i, &c) in squares.iter().enumerate() {
        if c != 0 {
            key ^= piece_square(c, i);
        }
    }
    if turn == Color::Second {
        key ^= SECOND_TO_MOVE;
    }
    key
}
