//! The 16×16 mailbox squares and piece indices that ElephantEye's `BOOK.DAT` and BHGUI's `.obk`
//! share.
//!
//! The board occupies files x = 3..=11 (`a`..`i`) and rows y = 3..=12, square `x + 16 * y`;
//! row 3 is the top (Black's back rank, qipu rank 9), row 12 Red's back rank (rank 0). So
//! `a9` = 0x33, `e0` = 0xc7. A piece's index is its role (`K A B N R C P` = 0..6) plus 7 for Black.
//!
//! ```
//! use qipu::book::board16;
//! use qipu::rules::Square;
//! let e0: Square = "e0".parse().unwrap();
//! assert_eq!(board16::square(e0), 0xc7);
//! assert_eq!(board16::from_square(0x33), Some("a9".parse().unwrap()));
//! ```

use crate::rules::{Board, Piece, Square};

/// The 16×16 number of a square.
pub const fn square(sq: Square) -> u8 {
    (sq.file() + 3) + ((9 - sq.rank()) + 3) * 16
}

/// The square of a 16×16 number; `None` off the 9×10 board.
pub const fn from_square(s: u8) -> Option<Square> {
    let (x, y) = (s & 15, s >> 4);
    if x < 3 || x > 11 || y < 3 || y > 12 {
        return None;
    }
    Square::from_coords(x - 3, 12 - y)
}

/// The 16×16 number of the left-right mirror of a square (`x → 14 − x`).
pub const fn mirror(s: u8) -> u8 {
    (s & 0xf0) | (14u8.wrapping_sub(s & 0x0f) & 0x0f)
}

/// ElephantEye's piece index: `K A B N R C P` = 0..6 for Red, 7..13 for Black.
pub const fn piece(p: Piece) -> usize {
    p.role as usize + 7 * p.color as usize
}

/// Every piece of a board as (piece index, 16×16 square), as stored or mirrored left-right.
pub fn pieces(board: &Board, mirrored: bool) -> impl Iterator<Item = (usize, u8)> + '_ {
    board.pieces().map(move |(sq, p)| {
        let sq = if mirrored { sq.mirror() } else { sq };
        (piece(p), square(sq))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squares_round_trip_and_match_the_spec_examples() {
        for i in 0..90u8 {
            let sq = Square::new(i).unwrap();
            assert_eq!(from_square(square(sq)), Some(sq));
            assert_eq!(mirror(square(sq)), square(sq.mirror()));
        }
        let at = |t: &str| square(t.parse().unwrap());
        assert_eq!(
            (at("a9"), at("i9"), at("e0"), at("a0"), at("i0")),
            (0x33, 0x3b, 0xc7, 0xc3, 0xcb)
        );
        assert_eq!(from_square(0x00), None);
        assert_eq!(from_square(0xd3), None);
        assert_eq!(from_square(0x3c), None);
    }
}
