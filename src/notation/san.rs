//! Algebraic notation as Fairy-Stockfish/pychess (`Che3`, `Hg8`, `Cfxf10`, `Ade2`) and
//! XBoard write it: an optional piece letter (none for a pawn), optional origin file and/or
//! rank, optional `x`/`-`, the destination, optional `+`/`#`. Ranks are 1–10 or 0–9; the
//! caller's rank base decides, else the reading that is legal.

use super::coord::RankBase;
use super::NotationError;
use crate::rules::{AnyPosition, Move, Role};

/// A SAN move before resolution; ranks as written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct San {
    /// The piece (a missing letter means a pawn).
    pub role: Role,
    /// Origin file 0..9, if given.
    pub from_file: Option<u8>,
    /// Origin rank as written, if given.
    pub from_rank: Option<u8>,
    /// Destination file 0..9.
    pub to_file: u8,
    /// Destination rank as written.
    pub to_rank: u8,
}

/// Reads a rank of one or two digits (`0`..`10`) ending at `end` (exclusive) backwards.
fn rank_back(b: &[u8], end: usize) -> Option<(u8, usize)> {
    let last = *b.get(end.checked_sub(1)?)?;
    if !last.is_ascii_digit() {
        return None;
    }
    if last == b'0' && end >= 2 && b.get(end - 2) == Some(&b'1') {
        // `10` unless the `1` is itself... a file letter always precedes a rank, so a `1`
        // before the `0` belongs to the rank.
        return Some((10, end - 2));
    }
    Some((last - b'0', end - 1))
}

impl San {
    /// Syntax phase.
    ///
    /// # Errors
    /// [`NotationError::Syntax`] if the text is not algebraic notation.
    ///
    /// ```
    /// use qipu::notation::san::San;
    /// let s = San::parse("Cfxf10").unwrap();
    /// assert_eq!((s.from_file, s.to_file, s.to_rank), (Some(5), 5, 10));
    /// assert!(San::parse("C2.5").is_err());
    /// ```
    pub fn parse(text: &str) -> Result<San, NotationError> {
        let err = || NotationError::Syntax(text.to_string());
        let t = text.trim().trim_end_matches(['+', '#', '!', '?']);
        let b = t.as_bytes();
        let (to_rank, mut end) = rank_back(b, b.len()).ok_or_else(err)?;
        let to_file = match end.checked_sub(1).and_then(|i| b.get(i)) {
            Some(c @ b'a'..=b'i') => c - b'a',
            _ => return Err(err()),
        };
        end -= 1;
        let mut start = 0;
        let role = match b.first() {
            Some(&c) if c.is_ascii_uppercase() && end > 0 => {
                start = 1;
                Role::from_char(c as char).ok_or_else(err)?
            }
            _ => Role::Pawn,
        };
        if end > start && matches!(b[end - 1], b'x' | b'-') {
            end -= 1;
        }
        let mid = &b[start..end];
        let (from_file, from_rank) = match mid {
            [] => (None, None),
            [f @ b'a'..=b'i'] => (Some(f - b'a'), None),
            [f @ b'a'..=b'i', rest @ ..] => {
                let (r, i) = rank_back(rest, rest.len()).ok_or_else(err)?;
                if i != 0 {
                    return Err(err());
                }
                (Some(f - b'a'), Some(r))
            }
            rest => {
                let (r, i) = rank_back(rest, rest.len()).ok_or_else(err)?;
                if i != 0 {
                    return Err(err());
                }
                (None, Some(r))
            }
        };
        Ok(San {
            role,
            from_file,
            from_rank,
            to_file,
            to_rank,
        })
    }

    /// The ranks written force a base if one is 0 or 10.
    pub fn forced_base(&self) -> Option<RankBase> {
        let ranks = [Some(self.to_rank), self.from_rank];
        if ranks.contains(&Some(0)) {
            Some(RankBase::Zero)
        } else if ranks.contains(&Some(10)) {
            Some(RankBase::One)
        } else {
            None
        }
    }

    /// The unique legal move under one rank base.
    ///
    /// # Errors
    /// [`NotationError::Illegal`] or [`NotationError::Ambiguous`].
    pub fn resolve_in(
        &self,
        pos: &AnyPosition,
        base: RankBase,
        text: &str,
    ) -> Result<Move, NotationError> {
        let shift = match base {
            RankBase::Zero => 0,
            RankBase::One => 1,
        };
        let illegal = || NotationError::Illegal(text.to_string());
        let to_rank = self.to_rank.checked_sub(shift).ok_or_else(illegal)?;
        let from_rank = match self.from_rank {
            Some(r) => Some(r.checked_sub(shift).ok_or_else(illegal)?),
            None => None,
        };
        let board = pos.board();
        let mut found = None;
        for &m in pos.legal_moves().iter() {
            let (Some(from), Some(to)) = (m.from(), m.to()) else {
                continue;
            };
            if to.file() != self.to_file
                || to.rank() != to_rank
                || self.from_file.is_some_and(|f| f != from.file())
                || from_rank.is_some_and(|r| r != from.rank())
                || board.piece_at(from).map(|p| p.role) != Some(self.role)
            {
                continue;
            }
            if found.is_some() {
                return Err(NotationError::Ambiguous(text.to_string()));
            }
            found = Some(m);
        }
        found.ok_or_else(illegal)
    }
}
