//! The [`Position`] trait shared by both games, the move list, errors and game outcomes.

use std::fmt;

use super::{
    board::Board,
    setup::{FenError, Setup},
    types::{Color, Move, Variant},
};

/// A fixed-capacity list of moves (no allocation).
#[derive(Clone)]
pub struct MoveList {
    len: usize,
    moves: [Move; MoveList::CAPACITY],
}

impl MoveList {
    /// More than the most moves any legal position of either game has.
    pub const CAPACITY: usize = 256;

    /// An empty list.
    #[inline]
    pub fn new() -> MoveList {
        MoveList {
            len: 0,
            moves: [Move::PASS; Self::CAPACITY],
        }
    }

    #[inline]
    pub(crate) fn push(&mut self, m: Move) {
        if self.len < Self::CAPACITY {
            self.moves[self.len] = m;
            self.len += 1;
        }
    }

    #[inline]
    pub(crate) fn swap_remove(&mut self, i: usize) {
        self.len -= 1;
        self.moves[i] = self.moves[self.len];
    }

    /// The moves.
    #[inline]
    pub fn as_slice(&self) -> &[Move] {
        &self.moves[..self.len]
    }

    /// Number of moves.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are none.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether the list holds the move.
    pub fn contains(&self, m: Move) -> bool {
        self.as_slice().contains(&m)
    }

    /// Sorts by canonical text order (`a0a1` < … < `pass`).
    pub fn sort(&mut self) {
        self.moves[..self.len].sort_by_key(|m| m.to_string());
    }
}

impl Default for MoveList {
    fn default() -> Self {
        MoveList::new()
    }
}

impl std::ops::Deref for MoveList {
    type Target = [Move];
    fn deref(&self) -> &[Move] {
        self.as_slice()
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = std::slice::Iter<'a, Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl fmt::Debug for MoveList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.as_slice().iter().map(|m| m.to_string()))
            .finish()
    }
}

/// Why a [`Setup`] is not a legal position of a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionError {
    /// The FEN itself could not be read.
    Fen(FenError),
    /// A side has no general.
    MissingKing(Color),
    /// A side has more than one general.
    TooManyKings(Color),
    /// A general stands outside its palace.
    KingOutsidePalace(Color),
    /// The side that just moved is in check (its general could be taken).
    OppositeCheck,
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side = |c: &Color| match c {
            Color::First => "the first player (Red/Cho)",
            Color::Second => "the second player (Black/Han)",
        };
        match self {
            PositionError::Fen(e) => write!(f, "{e}"),
            PositionError::MissingKing(c) => {
                write!(f, "illegal position: {} has no general", side(c))
            }
            PositionError::TooManyKings(c) => {
                write!(f, "illegal position: {} has more than one general", side(c))
            }
            PositionError::KingOutsidePalace(c) => {
                write!(
                    f,
                    "illegal position: the general of {} is outside its palace",
                    side(c)
                )
            }
            PositionError::OppositeCheck => {
                write!(f, "illegal position: the side not to move is in check")
            }
        }
    }
}

impl std::error::Error for PositionError {}

impl From<FenError> for PositionError {
    fn from(e: FenError) -> Self {
        PositionError::Fen(e)
    }
}

/// A move that is not legal in the position it was played in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IllegalMove {
    /// The move.
    pub mv: Move,
    /// FEN of the position.
    pub fen: String,
}

impl fmt::Display for IllegalMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "illegal move {} in {}", self.mv, self.fen)
    }
}

impl std::error::Error for IllegalMove {}

/// The result of a finished game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// One side won.
    Decisive {
        /// The winner.
        winner: Color,
    },
    /// Nobody won.
    Draw,
}

impl Outcome {
    /// The PGN result string (`1-0`, `0-1`, `1/2-1/2`), first player first.
    pub fn pgn(self) -> &'static str {
        match self {
            Outcome::Decisive {
                winner: Color::First,
            } => "1-0",
            Outcome::Decisive {
                winner: Color::Second,
            } => "0-1",
            Outcome::Draw => "1/2-1/2",
        }
    }
}

/// Why a game is over.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EndReason {
    /// The side to move is in check and has no legal move.
    Checkmate,
    /// The side to move is not in check and has no legal move (it loses in both games).
    Stalemate,
    /// Janggi: the generals faced each other on two consecutive plies.
    Bikjang,
    /// Janggi: both players passed in a row.
    DoublePass,
    /// The same position occurred for the third time (see [`History`](super::History)).
    Repetition,
    /// 100 plies without a capture (see [`History`](super::History)).
    MoveLimit,
}

/// A finished game: why, and who won.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GameEnd {
    /// Why the game is over.
    pub reason: EndReason,
    /// Who won.
    pub outcome: Outcome,
}

/// What both games' positions can do. Implemented by [`Xiangqi`](super::Xiangqi) and
/// [`Janggi`](super::Janggi); [`AnyPosition`](super::AnyPosition) wraps either.
///
/// ```
/// use qipu::rules::{Position, Xiangqi, Move};
/// let mut pos = Xiangqi::new();
/// assert_eq!(pos.legal_moves().len(), 44);
/// pos.play("h2e2".parse::<Move>().unwrap()).unwrap();
/// assert_eq!(pos.fen(), "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1");
/// assert!(pos.play(Move::PASS).is_err()); // Xiangqi has no pass
/// ```
pub trait Position: Clone + fmt::Debug + Send + Sync + 'static {
    /// The game.
    const VARIANT: Variant;

    /// Validates a setup.
    ///
    /// # Errors
    /// [`PositionError`] when a general is missing, misplaced, or the side not to move is in check.
    fn from_setup(setup: &Setup) -> Result<Self, PositionError>;

    /// The pieces, side to move, counters and key.
    fn board(&self) -> &Board;

    /// Every legal move (empty when the game has ended by a rule that stops play).
    fn legal_moves(&self) -> MoveList;

    /// Whether the side to move is in check.
    fn is_check(&self) -> bool;

    /// Plays a move without checking it. Playing an illegal move leaves an unspecified
    /// (but memory-safe) position.
    fn play_unchecked(&mut self, m: Move);

    /// Whether the game ended by a rule of the position itself (checkmate, stalemate, the
    /// Janggi bikjang and double-pass endings). Repetition needs the history: see
    /// [`History`](super::History).
    fn end(&self) -> Option<GameEnd>;

    /// The standard start position.
    fn new() -> Self {
        match Setup::from_fen(Self::VARIANT.start_fen()).map_err(PositionError::from) {
            Ok(s) => {
                Self::from_setup(&s).unwrap_or_else(|_| unreachable!("start position is legal"))
            }
            Err(_) => unreachable!("start FEN is valid"),
        }
    }

    /// Reads a FEN and validates it.
    ///
    /// # Errors
    /// [`PositionError::Fen`] for bad syntax, other variants for illegal positions.
    fn from_fen(fen: &str) -> Result<Self, PositionError> {
        Self::from_setup(&Setup::from_fen(fen)?)
    }

    /// Side to move.
    fn turn(&self) -> Color {
        self.board().turn()
    }

    /// qipu's Zobrist key.
    fn key(&self) -> u64 {
        self.board().key()
    }

    /// FEN of the position.
    fn fen(&self) -> String {
        self.board().fen()
    }

    /// Whether a move is legal here.
    fn is_legal(&self, m: Move) -> bool {
        self.legal_moves().contains(m)
    }

    /// Plays a move after checking that it is legal.
    ///
    /// # Errors
    /// [`IllegalMove`]; the position is unchanged.
    fn play(&mut self, m: Move) -> Result<(), IllegalMove> {
        if self.is_legal(m) {
            self.play_unchecked(m);
            Ok(())
        } else {
            Err(IllegalMove {
                mv: m,
                fen: self.fen(),
            })
        }
    }
}
