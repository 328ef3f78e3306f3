//! [`AnyPosition`]: a position of either game, for code that handles mixed inputs.

use super::{
    board::Board,
    janggi::{Janggi, JanggiRules},
    position::{GameEnd, IllegalMove, MoveList, Position, PositionError},
    setup::Setup,
    types::{Color, Move, Variant},
    xiangqi::Xiangqi,
};

/// A Xiangqi or Janggi position, dispatching to the game's own rules.
///
/// ```
/// use qipu::rules::{AnyPosition, Variant};
/// let pos = AnyPosition::new(Variant::Janggi);
/// assert_eq!(pos.legal_moves().len(), 32);
/// assert_eq!(pos.variant(), Variant::Janggi);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum AnyPosition {
    /// A Xiangqi position.
    Xiangqi(Xiangqi),
    /// A Janggi position.
    Janggi(Janggi),
}

macro_rules! dispatch {
    ($self:expr, $p:ident => $e:expr) => {
        match $self {
            AnyPosition::Xiangqi($p) => $e,
            AnyPosition::Janggi($p) => $e,
        }
    };
}

impl AnyPosition {
    /// The start position of a game.
    pub fn new(variant: Variant) -> AnyPosition {
        match variant {
            Variant::Xiangqi => AnyPosition::Xiangqi(Xiangqi::new()),
            Variant::Janggi => AnyPosition::Janggi(Janggi::new()),
        }
    }

    /// Validates a setup for a game (Janggi under its default, tournament rules).
    ///
    /// # Errors
    /// [`PositionError`] if the setup is not a legal position.
    pub fn from_setup(variant: Variant, setup: &Setup) -> Result<AnyPosition, PositionError> {
        Ok(match variant {
            Variant::Xiangqi => AnyPosition::Xiangqi(Xiangqi::from_setup(setup)?),
            Variant::Janggi => AnyPosition::Janggi(Janggi::from_setup(setup)?),
        })
    }

    /// Reads and validates a FEN for a game.
    ///
    /// # Errors
    /// [`PositionError`] for bad syntax or an illegal position.
    pub fn from_fen(variant: Variant, fen: &str) -> Result<AnyPosition, PositionError> {
        AnyPosition::from_setup(variant, &Setup::from_fen(fen)?)
    }

    /// Sets the Janggi rule set (no effect on Xiangqi).
    pub fn with_janggi_rules(mut self, rules: JanggiRules) -> AnyPosition {
        if let AnyPosition::Janggi(p) = &mut self {
            p.set_rules(rules);
        }
        self
    }

    /// The game.
    pub fn variant(&self) -> Variant {
        match self {
            AnyPosition::Xiangqi(_) => Variant::Xiangqi,
            AnyPosition::Janggi(_) => Variant::Janggi,
        }
    }

    /// The board.
    pub fn board(&self) -> &Board {
        dispatch!(self, p => p.board())
    }

    /// Every legal move.
    pub fn legal_moves(&self) -> MoveList {
        dispatch!(self, p => p.legal_moves())
    }

    /// Whether the side to move is in check.
    pub fn is_check(&self) -> bool {
        dispatch!(self, p => p.is_check())
    }

    /// Side to move.
    pub fn turn(&self) -> Color {
        self.board().turn()
    }

    /// qipu's Zobrist key.
    pub fn key(&self) -> u64 {
        self.board().key()
    }

    /// FEN of the position.
    pub fn fen(&self) -> String {
        self.board().fen()
    }

    /// Whether a move is legal (one move tested, no move list built for Xiangqi).
    #[inline]
    pub fn is_legal(&self, m: Move) -> bool {
        dispatch!(self, p => p.is_legal(m))
    }

    /// Plays a move without checking it.
    pub fn play_unchecked(&mut self, m: Move) {
        dispatch!(self, p => p.play_unchecked(m))
    }

    /// Plays a legal move.
    ///
    /// # Errors
    /// [`IllegalMove`]; the position is unchanged.
    pub fn play(&mut self, m: Move) -> Result<(), IllegalMove> {
        dispatch!(self, p => p.play(m))
    }

    /// How the game ended, if it did (see [`Position::end`]).
    pub fn end(&self) -> Option<GameEnd> {
        dispatch!(self, p => p.end())
    }
}
