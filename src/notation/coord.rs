//! Coordinate notations: canonical/UCCI `h2e2` (ranks 0–9), ICCS `H2-E2`, Fairy-Stockfish UCI
//! `h3e3`/`h10g8` (ranks 1–10, pass as the general moving to its own square), and the pass
//! spellings `pass`, `0000`, `@@@@`.

use super::NotationError;
use crate::rules::{AnyPosition, Move, Role, Square};

/// Which rank numbering a coordinate text uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RankBase {
    /// Ranks 0–9 (ICCS, UCCI, Pikafish, qipu's canonical form).
    Zero,
    /// Ranks 1–10 (Fairy-Stockfish, pychess).
    One,
}

/// A coordinate move as written, before resolution: files 0–8 and ranks as written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CoordMove {
    /// An explicit pass (`pass`, `0000`, `@@@@`).
    Pass,
    /// From and to as (file, written rank).
    Squares {
        /// Origin file and written rank.
        from: (u8, u8),
        /// Destination file and written rank.
        to: (u8, u8),
    },
}

impl CoordMove {
    /// Syntax phase: reads `h2e2`, `H2-E2`, `h10g8`, `pass`, `0000`, `@@@@`.
    ///
    /// # Errors
    /// [`NotationError::Syntax`] if the text is not a coordinate move.
    ///
    /// ```
    /// use qipu::notation::coord::CoordMove;
    /// assert_eq!(CoordMove::parse("H2-E2").unwrap(), CoordMove::Squares { from: (7, 2), to: (4, 2) });
    /// assert_eq!(CoordMove::parse("h10g8").unwrap(), CoordMove::Squares { from: (7, 10), to: (6, 8) });
    /// assert!(CoordMove::parse("炮二平五").is_err());
    /// ```
    pub fn parse(text: &str) -> Result<CoordMove, NotationError> {
        let t = text.trim();
        if matches!(t, "pass" | "PASS" | "Pass" | "0000" | "@@@@") {
            return Ok(CoordMove::Pass);
        }
        let err = || NotationError::Syntax(text.to_string());
        let b = t.as_bytes();
        let mut i = 0;
        let square = |i: &mut usize| -> Option<(u8, u8)> {
            let f = b.get(*i)?.to_ascii_lowercase();
            if !(b'a'..=b'i').contains(&f) {
                return None;
            }
            *i += 1;
            let d0 = *b.get(*i)?;
            if !d0.is_ascii_digit() {
                return None;
            }
            *i += 1;
            let mut rank = d0 - b'0';
            if rank == 1 && b.get(*i) == Some(&b'0') {
                // `10` only when the next byte would otherwise start nothing valid:
                // "h10g8" vs "a1" + "0..."? A file letter always follows a square.
                rank = 10;
                *i += 1;
            }
            Some((f - b'a', rank))
        };
        let from = square(&mut i).ok_or_else(err)?;
        if b.get(i) == Some(&b'-') {
            i += 1;
        }
        let to = square(&mut i).ok_or_else(err)?;
        if i != b.len() {
            return Err(err());
        }
        Ok(CoordMove::Squares { from, to })
    }

    /// The rank base this text forces, if any (a `0` rank means 0–9, a `10` rank means 1–10).
    pub fn forced_base(self) -> Option<RankBase> {
        match self {
            CoordMove::Pass => None,
            CoordMove::Squares { from, to } => {
                if from.1 == 0 || to.1 == 0 {
                    Some(RankBase::Zero)
                } else if from.1 == 10 || to.1 == 10 {
                    Some(RankBase::One)
                } else {
                    None
                }
            }
        }
    }

    /// The move this text denotes under a rank base, without checking legality. A general
    /// moving to its own square is the pass.
    pub fn to_move(self, base: RankBase, pos: &AnyPosition) -> Option<Move> {
        match self {
            CoordMove::Pass => Some(Move::PASS),
            CoordMove::Squares { from, to } => {
                let shift = match base {
                    RankBase::Zero => 0,
                    RankBase::One => 1,
                };
                let f = Square::from_coords(from.0, from.1.checked_sub(shift)?)?;
                let t = Square::from_coords(to.0, to.1.checked_sub(shift)?)?;
                if f == t {
                    let piece = pos.board().piece_at(f)?;
                    return (piece.role == Role::King && piece.color == pos.turn())
                        .then_some(Move::PASS);
                }
                Some(Move::new(f, t))
            }
        }
    }

    /// Resolution: the legal move this text denotes. With no `base` given, the rank base is
    /// taken from the text if it forces one, else 0–9 if that reading is legal, else 1–10.
    ///
    /// # Errors
    /// [`NotationError::Illegal`] if no reading is a legal move.
    pub fn resolve(
        self,
        pos: &AnyPosition,
        base: Option<RankBase>,
        text: &str,
    ) -> Result<Move, NotationError> {
        let bases: &[RankBase] = match base.or(self.forced_base()) {
            Some(RankBase::Zero) => &[RankBase::Zero],
            Some(RankBase::One) => &[RankBase::One],
            None => &[RankBase::Zero, RankBase::One],
        };
        bases
            .iter()
            .filter_map(|&b| self.to_move(b, pos))
            .find(|&m| super::is_legal(pos, m))
            .ok_or_else(|| NotationError::Illegal(text.to_string()))
    }
}

/// Parses and resolves a coordinate move in one step.
///
/// # Errors
/// [`NotationError::Syntax`] or [`NotationError::Illegal`].
///
/// ```
/// use qipu::notation::coord::parse_coord;
/// use qipu::rules::{AnyPosition, Variant};
/// let pos = AnyPosition::new(Variant::Xiangqi);
/// assert_eq!(parse_coord(&pos, "h3e3", None).unwrap().to_string(), "h2e2");
/// assert_eq!(parse_coord(&pos, "H2-E2", None).unwrap().to_string(), "h2e2");
/// let jg = AnyPosition::new(Variant::Janggi);
/// assert!(parse_coord(&jg, "e2e2", None).unwrap().is_pass()); // Fairy-Stockfish pass
/// ```
pub fn parse_coord(
    pos: &AnyPosition,
    text: &str,
    base: Option<RankBase>,
) -> Result<Move, NotationError> {
    CoordMove::parse(text)?.resolve(pos, base, text)
}

/// Writes a move in ICCS (`H2-E2`); a pass is `pass`.
///
/// ```
/// use qipu::notation::coord::render_iccs;
/// assert_eq!(render_iccs("h2e2".parse().unwrap()), "H2-E2");
/// ```
pub fn render_iccs(m: Move) -> String {
    match (m.from(), m.to()) {
        (Some(f), Some(t)) => {
            let sq = |s: Square| format!("{}{}", (b'A' + s.file()) as char, s.rank());
            format!("{}-{}", sq(f), sq(t))
        }
        _ => m.to_string(),
    }
}

/// Writes a move as Fairy-Stockfish's UCI does (ranks 1–10); a pass is the general moving to
/// its own square. `None` for a pass when the side to move has no general.
///
/// ```
/// use qipu::notation::coord::render_fs_uci;
/// use qipu::rules::{AnyPosition, Move, Variant};
/// let pos = AnyPosition::new(Variant::Janggi);
/// assert_eq!(render_fs_uci(&pos, "h0g2".parse().unwrap()).unwrap(), "h1g3");
/// assert_eq!(render_fs_uci(&pos, Move::PASS).unwrap(), "e2e2");
/// ```
pub fn render_fs_uci(pos: &AnyPosition, m: Move) -> Option<String> {
    let (f, t) = match (m.from(), m.to()) {
        (Some(f), Some(t)) => (f, t),
        _ => {
            let k = pos.board().king(pos.turn())?;
            (k, k)
        }
    };
    let sq = |s: Square| format!("{}{}", (b'a' + s.file()) as char, s.rank() + 1);
    Some(format!("{}{}", sq(f), sq(t)))
}
