//! The vocabulary of the board: variants, colours, roles, pieces, squares and moves.

use std::fmt;

/// The two games qipu knows.
///
/// ```
/// use qipu::rules::Variant;
/// assert_eq!("janggi".parse::<Variant>(), Ok(Variant::Janggi));
/// assert_eq!(Variant::Xiangqi.name(), "xiangqi");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Variant {
    /// Chinese chess (象棋).
    Xiangqi,
    /// Korean chess (장기).
    Janggi,
}

impl Variant {
    /// Both variants, Xiangqi first.
    pub const ALL: [Variant; 2] = [Variant::Xiangqi, Variant::Janggi];

    /// The lower-case name used on the command line and in JSON.
    pub const fn name(self) -> &'static str {
        match self {
            Variant::Xiangqi => "xiangqi",
            Variant::Janggi => "janggi",
        }
    }

    /// The standard start position as FEN (for Janggi, the setup Fairy-Stockfish uses:
    /// horse inside the elephant on both wings for both sides).
    pub const fn start_fen(self) -> &'static str {
        match self {
            Variant::Xiangqi => {
                "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
            }
            Variant::Janggi => {
                "rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR w - - 0 1"
            }
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Variant {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "xiangqi" | "xq" | "chinese" => Ok(Variant::Xiangqi),
            "janggi" | "jg" | "korean" => Ok(Variant::Janggi),
            other => Err(format!(
                "unknown variant `{other}` (expected xiangqi or janggi)"
            )),
        }
    }
}

/// The side: `First` moves first (Red in Xiangqi, Cho 초 in Janggi; upper case and `w` in FEN,
/// at the bottom, ranks 0–2 are its palace); `Second` is Black in Xiangqi and Han 한 in Janggi.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    /// Red (Xiangqi) or Cho (Janggi).
    First = 0,
    /// Black (Xiangqi) or Han (Janggi).
    Second = 1,
}

impl Color {
    /// Both colours, first player first.
    pub const ALL: [Color; 2] = [Color::First, Color::Second];

    /// The other side.
    #[inline]
    pub const fn other(self) -> Color {
        match self {
            Color::First => Color::Second,
            Color::Second => Color::First,
        }
    }

    /// `0` for the first player, `1` for the second.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The FEN side-to-move letter, `w` or `b`.
    pub const fn fen_char(self) -> char {
        match self {
            Color::First => 'w',
            Color::Second => 'b',
        }
    }
}

/// What a piece is, independent of its colour. Janggi's guard (사) is an `Advisor`, its
/// chariot (차) a `Rook` and its soldier (졸/병) a `Pawn`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    /// 帥/將, 궁 — the general.
    King = 0,
    /// 仕/士, 사 — advisor or guard.
    Advisor = 1,
    /// 相/象, 상 — elephant.
    Elephant = 2,
    /// 馬/傌, 마 — horse.
    Horse = 3,
    /// 車/俥, 차 — chariot.
    Rook = 4,
    /// 炮/砲/包, 포 — cannon.
    Cannon = 5,
    /// 兵/卒, 졸/병 — soldier.
    Pawn = 6,
}

impl Role {
    /// Every role, in the order of their indices.
    pub const ALL: [Role; 7] = [
        Role::King,
        Role::Advisor,
        Role::Elephant,
        Role::Horse,
        Role::Rook,
        Role::Cannon,
        Role::Pawn,
    ];

    /// The lower-case FEN letter (`k a b n r c p`).
    pub const fn char(self) -> char {
        match self {
            Role::King => 'k',
            Role::Advisor => 'a',
            Role::Elephant => 'b',
            Role::Horse => 'n',
            Role::Rook => 'r',
            Role::Cannon => 'c',
            Role::Pawn => 'p',
        }
    }

    /// Reads a FEN letter of either case; `e`/`h` are accepted for elephant/horse.
    pub const fn from_char(c: char) -> Option<Role> {
        match c.to_ascii_lowercase() {
            'k' => Some(Role::King),
            'a' => Some(Role::Advisor),
            'b' | 'e' => Some(Role::Elephant),
            'n' | 'h' => Some(Role::Horse),
            'r' => Some(Role::Rook),
            'c' => Some(Role::Cannon),
            'p' => Some(Role::Pawn),
            _ => None,
        }
    }
}

/// A coloured piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    /// Whose piece it is.
    pub color: Color,
    /// What it is.
    pub role: Role,
}

impl Piece {
    /// A new piece.
    pub const fn new(color: Color, role: Role) -> Piece {
        Piece { color, role }
    }

    /// The FEN letter: upper case for the first player.
    pub const fn char(self) -> char {
        let c = self.role.char();
        match self.color {
            Color::First => c.to_ascii_uppercase(),
            Color::Second => c,
        }
    }

    /// Reads a FEN letter (`e`/`h` accepted as elephant/horse).
    pub const fn from_char(c: char) -> Option<Piece> {
        match Role::from_char(c) {
            Some(role) => Some(Piece {
                color: if c.is_ascii_uppercase() {
                    Color::First
                } else {
                    Color::Second
                },
                role,
            }),
            None => None,
        }
    }

    /// Compact code 1..=14 used on the internal board (0 is an empty square).
    #[inline]
    pub(super) const fn code(self) -> u8 {
        code(self.color.index(), self.role)
    }

    /// Inverse of [`Piece::code`]; `None` for 0 or out of range.
    #[inline]
    pub(super) const fn from_code(code: u8) -> Option<Piece> {
        if code == 0 || code > 14 {
            return None;
        }
        Some(Piece {
            color: if code > 7 {
                Color::Second
            } else {
                Color::First
            },
            role: role_of(code),
        })
    }
}

// The board's piece code, written here only: `1 + role + 7 * colour` (1..=7 the first
// player's, 8..=14 the second's, 0 an empty square). Everything else goes through these.

/// The board code of the piece of colour index `color` (0 or 1) and `role`.
#[inline]
pub(super) const fn code(color: usize, role: Role) -> u8 {
    1 + role as u8 + 7 * color as u8
}

/// The role of a non-empty board code (1..=14).
#[inline]
pub(super) const fn role_of(code: u8) -> Role {
    Role::ALL[(code.wrapping_sub(1) % 7) as usize]
}

/// The colour of a non-empty board code, `None` for an empty square.
#[inline]
pub(super) const fn color_of(code: u8) -> Option<Color> {
    match code {
        1..=7 => Some(Color::First),
        8..=14 => Some(Color::Second),
        _ => None,
    }
}

/// One of the 90 points of the 9×10 board.
///
/// Squares are numbered `rank * 9 + file`: file 0 is `a` (the first player's left), rank 0 is
/// the first player's back rank. The text form is the canonical coordinate form, ranks `0`–`9`.
///
/// ```
/// use qipu::rules::Square;
/// let sq = Square::from_coords(7, 2).unwrap();
/// assert_eq!(sq.to_string(), "h2");
/// assert_eq!(sq.mirror().to_string(), "b2");
/// assert_eq!("e9".parse::<Square>().unwrap().rank(), 9);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// Number of squares on the board.
    pub const COUNT: usize = 90;

    /// A square from its index 0..90.
    #[inline]
    pub const fn new(index: u8) -> Option<Square> {
        if (index as usize) < Self::COUNT {
            Some(Square(index))
        } else {
            None
        }
    }

    /// A square from file 0..9 (`a`..`i`) and rank 0..10.
    #[inline]
    pub const fn from_coords(file: u8, rank: u8) -> Option<Square> {
        if file < 9 && rank < 10 {
            Some(Square(rank * 9 + file))
        } else {
            None
        }
    }

    /// Index 0..90.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// File 0..9, `a` = 0.
    #[inline]
    pub const fn file(self) -> u8 {
        self.0 % 9
    }

    /// Rank 0..10 from the first player's side.
    #[inline]
    pub const fn rank(self) -> u8 {
        self.0 / 9
    }

    /// The square reflected left-right (file `a` ↔ `i`).
    #[inline]
    pub const fn mirror(self) -> Square {
        Square(self.rank() * 9 + 8 - self.file())
    }

    /// The square seen from the other side (rotated by 180°).
    #[inline]
    pub const fn flip(self) -> Square {
        Square(89 - self.0)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.file()) as char, self.rank())
    }
}

impl std::str::FromStr for Square {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let b = s.as_bytes();
        if b.len() == 2 {
            let file = b[0].to_ascii_lowercase().wrapping_sub(b'a');
            let rank = b[1].wrapping_sub(b'0');
            if let Some(sq) = Square::from_coords(file, rank) {
                return Ok(sq);
            }
        }
        Err(format!("invalid square `{s}` (expected a0..i9)"))
    }
}

/// A move packed into 16 bits: `from | to << 7`.
///
/// The Janggi pass has its own code, [`Move::PASS`] (`0x3fff`), so it never depends on where the
/// general stands; `0` is never a move. Canonical text is `h2e2` (ranks 0–9) or `pass`.
///
/// ```
/// use qipu::rules::{Move, Square};
/// let m: Move = "h2e2".parse().unwrap();
/// assert_eq!(m.from(), Some("h2".parse::<Square>().unwrap()));
/// assert_eq!(Move::from_u16(m.to_u16()), Some(m));
/// assert_eq!(Move::PASS.to_string(), "pass");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move(u16);

impl Move {
    /// The Janggi pass (한수쉼).
    pub const PASS: Move = Move(0x3fff);

    /// A normal move from one square to another.
    #[inline]
    pub const fn new(from: Square, to: Square) -> Move {
        Move(from.0 as u16 | (to.0 as u16) << 7)
    }

    /// Whether this is the pass.
    #[inline]
    pub const fn is_pass(self) -> bool {
        self.0 == Self::PASS.0
    }

    /// Origin square (`None` for the pass).
    #[inline]
    pub const fn from(self) -> Option<Square> {
        if self.is_pass() {
            None
        } else {
            Some(Square((self.0 & 0x7f) as u8))
        }
    }

    /// Destination square (`None` for the pass).
    #[inline]
    pub const fn to(self) -> Option<Square> {
        if self.is_pass() {
            None
        } else {
            Some(Square((self.0 >> 7) as u8))
        }
    }

    #[inline]
    pub(crate) const fn origin_index(self) -> usize {
        (self.0 & 0x7f) as usize
    }

    #[inline]
    pub(crate) const fn target_index(self) -> usize {
        (self.0 >> 7) as usize
    }

    /// The 16-bit code stored in books and databases.
    #[inline]
    pub const fn to_u16(self) -> u16 {
        self.0
    }

    /// Decodes a 16-bit code; `None` if it is not a well-formed move.
    pub const fn from_u16(code: u16) -> Option<Move> {
        if code == Self::PASS.0 {
            return Some(Self::PASS);
        }
        let from = code & 0x7f;
        let to = (code >> 7) & 0x7f;
        if code >> 14 != 0 || from >= 90 || to >= 90 || from == to {
            None
        } else {
            Some(Move(code))
        }
    }

    /// The move reflected left-right.
    pub const fn mirror(self) -> Move {
        if self.is_pass() {
            return self;
        }
        let from = Square((self.0 & 0x7f) as u8).mirror();
        let to = Square((self.0 >> 7) as u8).mirror();
        Move::new(from, to)
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.from(), self.to()) {
            (Some(from), Some(to)) => write!(f, "{from}{to}"),
            _ => f.write_str("pass"),
        }
    }
}

impl std::str::FromStr for Move {
    type Err = String;
    /// Parses the canonical form only (`h2e2`, `pass`); see `notation` for every other form.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s == "pass" {
            return Ok(Move::PASS);
        }
        if s.len() == 4 && s.is_ascii() {
            let from: Square = s[..2].parse()?;
            let to: Square = s[2..].parse()?;
            if from != to {
                return Ok(Move::new(from, to));
            }
        }
        Err(format!("invalid move `{s}` (expected e.g. h2e2 or pass)"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn piece_codes_round_trip() {
        for color in Color::ALL {
            for role in Role::ALL {
                let p = Piece::new(color, role);
                assert_eq!(Piece::from_code(p.code()), Some(p));
                assert_eq!(Piece::from_char(p.char()), Some(p));
            }
        }
        assert_eq!(Piece::from_code(0), None);
        assert_eq!(Piece::from_code(15), None);
    }

    #[test]
    fn move_codes_round_trip_and_reject_garbage() {
        for from in 0..90u8 {
            for to in 0..90u8 {
                let code = from as u16 | (to as u16) << 7;
                let decoded = Move::from_u16(code);
                if from == to {
                    assert_eq!(decoded, None);
                } else {
                    let m = decoded.unwrap();
                    assert_eq!(m.to_string().parse::<Move>(), Ok(m));
                }
            }
        }
        assert_eq!(Move::from_u16(0), None);
        assert_eq!(Move::from_u16(0xffff), None);
        assert_eq!(Move::from_u16(Move::PASS.to_u16()), Some(Move::PASS));
    }
}
