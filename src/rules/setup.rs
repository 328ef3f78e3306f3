//! [`Setup`]: a board that is not necessarily legal, and FEN reading and writing.

use std::fmt;

use super::types::{Color, Piece, Role, Square};

/// A position that has not been validated: pieces on squares, the side to move and the
/// counters. Readers produce a `Setup`; [`Position::from_setup`](super::Position::from_setup)
/// (for [`Xiangqi`](super::Xiangqi) or [`Janggi`](super::Janggi)) turns it into a legal position.
///
/// ```
/// use qipu::rules::{Setup, Variant};
/// let setup = Setup::from_fen(Variant::Xiangqi.start_fen()).unwrap();
/// assert_eq!(setup.to_fen(), Variant::Xiangqi.start_fen());
/// // Two-field FENs and `r` for Red are accepted:
/// let short = Setup::from_fen("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR r").unwrap();
/// assert_eq!(short, setup);
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Setup {
    /// Pieces by square index (`rank * 9 + file`).
    pub board: [Option<Piece>; 90],
    /// Side to move.
    pub turn: Color,
    /// Plies since the last capture (FEN field 5).
    pub halfmoves: u32,
    /// Move number, starting at 1, incremented after the second player moves (FEN field 6).
    pub fullmoves: u32,
}

/// Why a FEN could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FenError {
    /// The text is empty.
    Empty,
    /// The board part does not have 10 ranks.
    RankCount(usize),
    /// A rank does not add up to 9 files.
    RankWidth {
        /// Rank as written, counted from the top, 1-based.
        rank: usize,
    },
    /// A character that is neither a piece letter nor a digit.
    BadChar(char),
    /// The side-to-move field is not `w`, `r` or `b`.
    BadTurn(String),
    /// A counter is not a number.
    BadCounter(String),
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FenError::Empty => write!(f, "invalid FEN: empty"),
            FenError::RankCount(n) => write!(f, "invalid FEN: {n} ranks instead of 10"),
            FenError::RankWidth { rank } => {
                write!(
                    f,
                    "invalid FEN: rank {rank} (from the top) is not 9 files wide"
                )
            }
            FenError::BadChar(c) => write!(f, "invalid FEN: unexpected character `{c}`"),
            FenError::BadTurn(s) => write!(f, "invalid FEN: side to move `{s}` is not w, r or b"),
            FenError::BadCounter(s) => write!(f, "invalid FEN: counter `{s}` is not a number"),
        }
    }
}

impl std::error::Error for FenError {}

impl Setup {
    /// An empty board, first player to move.
    pub const fn empty() -> Setup {
        Setup {
            board: [None; 90],
            turn: Color::First,
            halfmoves: 0,
            fullmoves: 1,
        }
    }

    /// The piece on a square.
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.board[sq.index()]
    }

    /// Reads a FEN: ranks from the top (rank 9) down, 9 files each; then side to move
    /// (`w`/`r` = first player, `b` = second), optionally `- -` and two counters.
    ///
    /// # Errors
    /// A [`FenError`] naming what is wrong; never panics.
    pub fn from_fen(fen: &str) -> Result<Setup, FenError> {
        let mut fields = fen.split_ascii_whitespace();
        let board_text = fields.next().ok_or(FenError::Empty)?;
        let mut setup = Setup::empty();
        let ranks: Vec<&str> = board_text.split('/').collect();
        if ranks.len() != 10 {
            return Err(FenError::RankCount(ranks.len()));
        }
        for (row, text) in ranks.iter().enumerate() {
            let rank = 9 - row as u8;
            let mut file: u32 = 0;
            let mut digits: u32 = 0;
            for c in text.chars() {
                if let Some(d) = c.to_digit(10) {
                    digits = digits * 10 + d;
                    if digits > 9 {
                        return Err(FenError::RankWidth { rank: row + 1 });
                    }
                    continue;
                }
                file += std::mem::take(&mut digits);
                let piece = Piece::from_char(c).ok_or(FenError::BadChar(c))?;
                let sq = Square::from_coords(file as u8, rank)
                    .filter(|_| file < 9)
                    .ok_or(FenError::RankWidth { rank: row + 1 })?;
                setup.board[sq.index()] = Some(piece);
                file += 1;
            }
            file += digits;
            if file != 9 {
                return Err(FenError::RankWidth { rank: row + 1 });
            }
        }
        if let Some(turn) = fields.next() {
            setup.turn = match turn {
                "w" | "W" | "r" | "R" => Color::First,
                "b" | "B" => Color::Second,
                other => return Err(FenError::BadTurn(other.to_string())),
            };
        }
        let rest: Vec<&str> = fields.collect();
        // Fields 3 and 4 are `- -` in practice; some writers drop them and keep the counters.
        let counters: &[&str] = match rest.len() {
            0 | 1 => &[],
            2 if rest[0] != "-" => &rest[..],
            _ => &rest[2..rest.len().min(4)],
        };
        let parse = |s: &str| {
            s.parse::<u32>()
                .map_err(|_| FenError::BadCounter(s.to_string()))
        };
        if let Some(h) = counters.first() {
            setup.halfmoves = parse(h)?;
        }
        if let Some(f) = counters.get(1) {
            setup.fullmoves = parse(f)?.max(1);
        }
        Ok(setup)
    }

    /// Writes the board part of the FEN (ranks from the top).
    pub fn board_fen(&self) -> String {
        let mut out = String::with_capacity(48);
        for row in 0..10u8 {
            let rank = 9 - row;
            let mut empty = 0;
            for file in 0..9u8 {
                match self.board[(rank * 9 + file) as usize] {
                    Some(p) => {
                        if empty > 0 {
                            out.push((b'0' + empty) as char);
                            empty = 0;
                        }
                        out.push(p.char());
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                out.push((b'0' + empty) as char);
            }
            if rank > 0 {
                out.push('/');
            }
        }
        out
    }

    /// Writes the full six-field FEN.
    pub fn to_fen(&self) -> String {
        format!(
            "{} {} - - {} {}",
            self.board_fen(),
            self.turn.fen_char(),
            self.halfmoves,
            self.fullmoves
        )
    }

    /// The setup reflected left-right.
    pub fn mirror(&self) -> Setup {
        let mut out = self.clone();
        for i in 0..90u8 {
            let sq = Square::new(i).map(Square::mirror);
            if let Some(sq) = sq {
                out.board[sq.index()] = self.board[i as usize];
            }
        }
        out
    }

    /// Number of pieces of a colour and role.
    pub fn count(&self, color: Color, role: Role) -> usize {
        self.board
            .iter()
            .filter(|p| **p == Some(Piece::new(color, role)))
            .count()
    }
}

impl fmt::Debug for Setup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Setup({})", self.to_fen())
    }
}

impl std::str::FromStr for Setup {
    type Err = FenError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Setup::from_fen(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_garbage_with_reasons() {
        assert_eq!(Setup::from_fen(""), Err(FenError::Empty));
        assert_eq!(Setup::from_fen("9/9 w"), Err(FenError::RankCount(2)));
        assert!(matches!(
            Setup::from_fen("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABN w"),
            Err(FenError::RankWidth { rank: 10 })
        ));
        assert!(matches!(
            Setup::from_fen("rnbakabnrr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w"),
            Err(FenError::RankWidth { rank: 1 })
        ));
        assert_eq!(
            Setup::from_fen("rnbakabnx/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w"),
            Err(FenError::BadChar('x'))
        );
        assert!(matches!(
            Setup::from_fen("9/9/9/9/9/9/9/9/9/9 x"),
            Err(FenError::BadTurn(_))
        ));
        assert!(matches!(
            Setup::from_fen("9/9/9/9/9/9/9/9/9/9 w - - x 1"),
            Err(FenError::BadCounter(_))
        ));
        assert!(Setup::from_fen("99/9/9/9/9/9/9/9/9/9 w").is_err());
    }

    #[test]
    fn reads_aliases_and_counters() {
        let s = Setup::from_fen("rhea1aehr/4k4/9/9/9/9/9/9/4K4/RHEA1AEHR b - - 7 12").unwrap();
        assert_eq!(s.turn, Color::Second);
        assert_eq!((s.halfmoves, s.fullmoves), (7, 12));
        assert!(s.to_fen().starts_with("rnba1abnr/4k4/"));
        let t = Setup::from_fen("4k4/9/9/9/9/9/9/9/9/4K4 w 3 9").unwrap();
        assert_eq!((t.halfmoves, t.fullmoves), (3, 9));
    }
}
