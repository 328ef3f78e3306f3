//! [`Board`]: pieces on squares with occupancy sets and the incrementally updated key.
//! Shared by both games; the rules of movement live in `xiangqi.rs` and `janggi.rs`, the
//! helpers both use in `movegen.rs`. The representation is private: the rest of the crate
//! reads a board through the accessors below, and only `rules/` sees the raw square codes.

use super::{
    setup::Setup,
    tables::NONE,
    types::{Color, Move, Piece, Role, Square, Variant},
    zobrist,
};

/// The board state common to both games. Obtained from a validated position
/// ([`Position::board`](super::Position::board)); it cannot be edited directly.
///
/// ```
/// use qipu::rules::{Color, Position, Role, Square, Xiangqi};
/// let pos = Xiangqi::new();
/// let b = pos.board();
/// let h2 = Square::from_coords(7, 2).unwrap();
/// assert_eq!(b.piece_at(h2).map(|p| p.role), Some(Role::Cannon));
/// assert_eq!(b.occupied(Color::First).count_ones(), 16);
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Board {
    /// Piece code per square (see `types::code`), 0 for empty.
    sq: [u8; 90],
    /// Occupied squares per colour, bit `i` for square `i`.
    occ: [u128; 2],
    /// Square of each general, `NONE` once captured.
    kings: [u8; 2],
    turn: Color,
    key: u64,
    halfmoves: u32,
    fullmoves: u32,
    variant: Variant,
}

impl Board {
    /// Builds the board from a setup without checking legality (callers validate).
    pub(super) fn from_setup(setup: &Setup, variant: Variant) -> Board {
        let mut b = Board {
            sq: [0; 90],
            occ: [0; 2],
            kings: [NONE; 2],
            turn: setup.turn,
            key: 0,
            halfmoves: setup.halfmoves,
            fullmoves: setup.fullmoves.max(1),
            variant,
        };
        for (i, p) in setup.board.iter().enumerate() {
            if let Some(p) = p {
                b.sq[i] = p.code();
                b.occ[p.color.index()] |= 1u128 << i;
                if p.role == Role::King {
                    b.kings[p.color.index()] = i as u8;
                }
            }
        }
        b.key = zobrist::key_of(&b.sq, b.turn, variant);
        b
    }

    /// The raw piece codes of the 90 squares (rules-internal).
    #[inline]
    pub(super) fn squares(&self) -> &[u8; 90] {
        &self.sq
    }

    /// The square index of a side's general (`NONE` if it was captured; rules-internal).
    #[inline]
    pub(super) fn king_index(&self, color: Color) -> usize {
        usize::from(self.kings[color.index()])
    }

    /// The squares a side occupies, bit `i` for square index `i`.
    #[inline]
    pub fn occupied(&self, color: Color) -> u128 {
        self.occ[color.index()]
    }

    /// The game this board belongs to.
    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// The piece on a square.
    #[inline]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        Piece::from_code(self.sq[sq.index()])
    }

    /// Whether `piece` stands on `sq` (one comparison, cheaper than [`Board::piece_at`] when
    /// the piece is known).
    #[inline]
    pub fn has(&self, sq: Square, piece: Piece) -> bool {
        self.sq[sq.index()] == piece.code()
    }

    /// Side to move.
    #[inline]
    pub fn turn(&self) -> Color {
        self.turn
    }

    /// The general of a side (validated positions always have one).
    #[inline]
    pub fn king(&self, color: Color) -> Option<Square> {
        Square::new(self.kings[color.index()])
    }

    /// qipu's 64-bit Zobrist key of this position (pieces, side to move, variant).
    #[inline]
    pub fn key(&self) -> u64 {
        self.key
    }

    /// The key of this board's mirror image (files a–i reversed), without building it: what
    /// `key()` of the mirrored position is.
    pub fn mirror_key(&self) -> u64 {
        let mut squares = [0u8; 90];
        for (i, &c) in self.sq.iter().enumerate() {
            if let Some(sq) = Square::new(i as u8) {
                squares[sq.mirror().index()] = c;
            }
        }
        zobrist::key_of(&squares, self.turn, self.variant)
    }

    /// Plies since the last capture.
    #[inline]
    pub fn halfmoves(&self) -> u32 {
        self.halfmoves
    }

    /// Move number (starts at 1, incremented after the second player's move).
    #[inline]
    pub fn fullmoves(&self) -> u32 {
        self.fullmoves
    }

    /// All pieces with their squares, in square order.
    pub fn pieces(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        self.sq
            .iter()
            .enumerate()
            .filter_map(|(i, &c)| Some((Square::new(i as u8)?, Piece::from_code(c)?)))
    }

    /// An unvalidated copy of this board.
    pub fn to_setup(&self) -> Setup {
        let mut s = Setup::empty();
        for (i, &c) in self.sq.iter().enumerate() {
            s.board[i] = Piece::from_code(c);
        }
        s.turn = self.turn;
        s.halfmoves = self.halfmoves;
        s.fullmoves = self.fullmoves;
        s
    }

    /// FEN of this board.
    pub fn fen(&self) -> String {
        self.to_setup().to_fen()
    }

    /// Whether the two generals stand on one file with nothing between them.
    pub fn generals_face(&self) -> bool {
        let (a, b) = (self.kings[0], self.kings[1]);
        if a == NONE || b == NONE || a % 9 != b % 9 {
            return false;
        }
        let (lo, hi) = if a < b { (a, b) } else { (b, a) };
        let mut s = lo as usize + 9;
        while s < hi as usize {
            if self.sq[s] != 0 {
                return false;
            }
            s += 9;
        }
        true
    }

    /// Plays a move that is known to be legal: updates squares, occupancy, key and counters.
    #[inline]
    pub(super) fn play_unchecked(&mut self, m: Move) {
        let us = self.turn.index();
        if !m.is_pass() {
            let (from, to) = (m.origin_index(), m.target_index());
            let piece = self.sq[from];
            let captured = self.sq[to];
            self.key ^= zobrist::piece_square(piece, from) ^ zobrist::piece_square(piece, to);
            if captured != 0 {
                self.key ^= zobrist::piece_square(captured, to);
                self.occ[1 - us] &= !(1u128 << to);
                self.halfmoves = 0;
            } else {
                self.halfmoves += 1;
            }
            self.occ[us] ^= (1u128 << from) | (1u128 << to);
            self.sq[to] = piece;
            self.sq[from] = 0;
            if piece == Piece::new(self.turn, Role::King).code() {
                self.kings[us] = to as u8;
            }
            if captured != 0 && captured == Piece::new(self.turn.other(), Role::King).code() {
                self.kings[1 - us] = NONE;
            }
        } else {
            self.halfmoves += 1;
        }
        if self.turn == Color::Second {
            self.fullmoves += 1;
        }
        self.turn = self.turn.other();
        self.key ^= zobrist::SECOND_TO_MOVE;
    }
}

impl std::fmt::Debug for Board {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Board({} {})", self.variant, self.fen())
    }
}
