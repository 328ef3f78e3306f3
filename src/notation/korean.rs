//! Janggi notations: Korean coordinates as `.gib` records write them (`08마87`, `79楚卒78`,
//! `79卒78`, `71초졸72`, `74상42병`, `74상42타졸`, `85포55장군`, `한수쉼`) and
//! Fairy-Stockfish's Janggi notation (`H02-83`, `Rx01-71+`).
//!
//! A Korean square is a row digit then a file digit, both from Cho's side: rows 1..9 from the
//! top (Han's back rank is 1) and 0 for Cho's back rank; files 1..9 from the left. So qipu's
//! rank is `(10 - row) % 10` and its file is `file - 1`: `08` = h0, `95` = e1, `01` = a0.

use super::NotationError;
use crate::rules::{AnyPosition, Color, Move, Role, Square};

/// The pass as `.gib` records write it.
pub const PASS: &str = "한수쉼";

/// A Korean-coordinate move before resolution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KoreanMove {
    /// `한수쉼`.
    Pass,
    /// A move of a named piece between two squares.
    Step {
        /// Origin square.
        from: Square,
        /// Destination square.
        to: Square,
        /// The piece named, if any (`졸`/`병` and `卒`/`兵` are read as either side's soldier).
        role: Option<Role>,
        /// The side named by `楚`/`초` or `漢`/`한`, if any.
        side: Option<Color>,
    },
}

/// A Korean square from its row and file digits.
pub fn square(row: u8, file: u8) -> Option<Square> {
    if !(1..=9).contains(&file) || row > 9 {
        return None;
    }
    Square::from_coords(file - 1, (10 - row) % 10)
}

/// The row and file digits of a square.
pub fn digits(sq: Square) -> (u8, u8) {
    ((10 - sq.rank()) % 10, sq.file() + 1)
}

pub(crate) fn piece_role(c: char) -> Option<Role> {
    Some(match c {
        '장' | '궁' | '將' | '帥' | '将' => Role::King,
        '차' | '車' | '俥' => Role::Rook,
        '포' | '包' | '砲' | '炮' => Role::Cannon,
        '마' | '馬' | '傌' => Role::Horse,
        '상' | '象' | '相' => Role::Elephant,
        '사' | '士' | '仕' => Role::Advisor,
        '졸' | '병' | '卒' | '兵' => Role::Pawn,
        _ => return None,
    })
}

pub(crate) fn side(c: char) -> Option<Color> {
    match c {
        '楚' | '초' => Some(Color::First),
        '漢' | '한' => Some(Color::Second),
        _ => None,
    }
}

/// Syntax phase for Korean coordinates.
///
/// # Errors
/// [`NotationError::Syntax`] if the text is not a Korean-coordinate move.
///
/// ```
/// use qipu::notation::korean::{parse, KoreanMove};
/// use qipu::rules::Role;
/// match parse("08마87").unwrap() {
///     KoreanMove::Step { from, to, role, .. } => {
///         assert_eq!((from.to_string(), to.to_string()), ("h0".into(), "g2".into()));
///         assert_eq!(role, Some(Role::Horse));
///     }
///     KoreanMove::Pass => unreachable!(),
/// }
/// assert_eq!(parse("한수쉼").unwrap(), KoreanMove::Pass);
/// assert!(parse("85포55장군").is_ok());
/// assert!(parse("炮二平五").is_err());
/// ```
pub fn parse(text: &str) -> Result<KoreanMove, NotationError> {
    let err = || NotationError::Syntax(text.to_string());
    let t = text.trim();
    if t == PASS {
        return Ok(KoreanMove::Pass);
    }
    let mut it = t.chars().filter(|c| !c.is_whitespace()).peekable();
    let dig = |c: Option<char>| c.and_then(|c| c.to_digit(10)).map(|d| d as u8);
    let from = square(
        dig(it.next()).ok_or_else(err)?,
        dig(it.next()).ok_or_else(err)?,
    )
    .ok_or_else(err)?;
    let mut who = None;
    if let Some(c) = it.peek().copied().and_then(side) {
        // `楚` alone may also name the general; a piece letter normally follows.
        who = Some(c);
        it.next();
    }
    let role = match it.peek().copied().and_then(piece_role) {
        Some(r) => {
            it.next();
            Some(r)
        }
        None if who.is_some() => Some(Role::King),
        None => return Err(err()),
    };
    let to = square(
        dig(it.next()).ok_or_else(err)?,
        dig(it.next()).ok_or_else(err)?,
    )
    .ok_or_else(err)?;
    // Suffixes: capture marker 타, a side, the captured piece, then 장군 (check) or 멍군.
    let rest: String = it.collect();
    let mut r = rest.as_str();
    for suffix in ["장군", "멍군"] {
        if let Some(x) = r.strip_suffix(suffix) {
            r = x;
            break;
        }
    }
    let mut cs = r.chars();
    let mut c = cs.next();
    if c == Some('타') {
        c = cs.next();
    }
    if c.and_then(side).is_some() {
        c = cs.next();
    }
    if let Some(c) = c {
        piece_role(c).ok_or_else(err)?;
    }
    if cs.next().is_some() {
        return Err(err());
    }
    Ok(KoreanMove::Step {
        from,
        to,
        role,
        side: who,
    })
}

impl KoreanMove {
    /// Resolution: the legal move, after checking the named piece (and side, if named)
    /// against the board.
    ///
    /// # Errors
    /// [`NotationError::Illegal`] if the piece does not match or the move is not legal.
    pub fn resolve(self, pos: &AnyPosition, text: &str) -> Result<Move, NotationError> {
        let illegal = || NotationError::Illegal(text.to_string());
        let m = match self {
            KoreanMove::Pass => Move::PASS,
            KoreanMove::Step {
                from,
                to,
                role,
                side,
            } => {
                let p = pos.board().piece_at(from).ok_or_else(illegal)?;
                if role.is_some_and(|r| r != p.role) || side.is_some_and(|s| s != p.color) {
                    return Err(illegal());
                }
                if from == to {
                    if p.role != Role::King {
                        return Err(illegal());
                    }
                    Move::PASS
                } else {
                    Move::new(from, to)
                }
            }
        };
        if pos.is_legal(m) {
            Ok(m)
        } else {
            Err(illegal())
        }
    }
}

/// Hangul and Hanja piece names.
pub(crate) fn name(role: Role, color: Color, hanja: bool) -> &'static str {
    let cho = color == Color::First;
    match (role, hanja) {
        (Role::King, false) => "장",
        (Role::Rook, false) => "차",
        (Role::Cannon, false) => "포",
        (Role::Horse, false) => "마",
        (Role::Elephant, false) => "상",
        (Role::Advisor, false) => "사",
        (Role::Pawn, false) if cho => "졸",
        (Role::Pawn, false) => "병",
        (Role::King, true) => "將",
        (Role::Rook, true) => "車",
        (Role::Cannon, true) => "包",
        (Role::Horse, true) => "馬",
        (Role::Elephant, true) => "象",
        (Role::Advisor, true) => "士",
        (Role::Pawn, true) if cho => "卒",
        (Role::Pawn, true) => "兵",
    }
}

/// Renders a move in Korean coordinates: `08마87` (Hangul) or `08楚馬87` (Hanja with the side,
/// as Kakao records write it); a pass is `한수쉼`. `None` if the origin square is empty.
///
/// ```
/// use qipu::notation::korean::render;
/// use qipu::rules::{AnyPosition, Move, Variant};
/// let pos = AnyPosition::new(Variant::Janggi);
/// assert_eq!(render(&pos, "h0g2".parse().unwrap(), false).unwrap(), "08마87");
/// assert_eq!(render(&pos, "a3b3".parse().unwrap(), true).unwrap(), "71楚卒72");
/// assert_eq!(render(&pos, Move::PASS, false).unwrap(), "한수쉼");
/// ```
pub fn render(pos: &AnyPosition, m: Move, hanja: bool) -> Option<String> {
    let (Some(from), Some(to)) = (m.from(), m.to()) else {
        return Some(PASS.to_string());
    };
    let p = pos.board().piece_at(from)?;
    let (fr, ff) = digits(from);
    let (tr, tf) = digits(to);
    let side = match (hanja, p.color) {
        (false, _) => "",
        (true, Color::First) => "楚",
        (true, Color::Second) => "漢",
    };
    Some(format!(
        "{fr}{ff}{side}{}{tr}{tf}",
        name(p.role, p.color, hanja)
    ))
}

/// A move in Fairy-Stockfish's Janggi notation before resolution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FsJanggi {
    /// The piece letter's role.
    pub role: Role,
    /// Origin square.
    pub from: Square,
    /// Destination square (equal to `from` for a pass).
    pub to: Square,
}

/// Syntax phase for Fairy-Stockfish's Janggi notation: piece letter, origin, `-` (or `x` for a
/// capture), destination, optional `+`/`#`: `H02-83`, `R01x71+`.
///
/// # Errors
/// [`NotationError::Syntax`] if the text is not in this notation.
///
/// ```
/// use qipu::notation::korean::parse_fs;
/// let m = parse_fs("H02-83").unwrap();
/// assert_eq!((m.from.to_string(), m.to.to_string()), ("b0".into(), "c2".into()));
/// assert!(parse_fs("C2.5").is_err());
/// ```
pub fn parse_fs(text: &str) -> Result<FsJanggi, NotationError> {
    let err = || NotationError::Syntax(text.to_string());
    let t = text.trim().trim_end_matches(['+', '#']);
    let b = t.as_bytes();
    let [l, r0, f0, sep, r1, f1] = *b else {
        return Err(err());
    };
    if !l.is_ascii_uppercase() || !matches!(sep, b'-' | b'x') {
        return Err(err());
    }
    let role = crate::rules::Role::from_char(l as char).ok_or_else(err)?;
    let d = |c: u8| c.is_ascii_digit().then(|| c - b'0');
    let from = square(d(r0).ok_or_else(err)?, d(f0).ok_or_else(err)?).ok_or_else(err)?;
    let to = square(d(r1).ok_or_else(err)?, d(f1).ok_or_else(err)?).ok_or_else(err)?;
    Ok(FsJanggi { role, from, to })
}

impl FsJanggi {
    /// Resolution: the legal move (a general onto its own square is the pass).
    ///
    /// # Errors
    /// [`NotationError::Illegal`] if the piece does not match or the move is not legal.
    pub fn resolve(self, pos: &AnyPosition, text: &str) -> Result<Move, NotationError> {
        KoreanMove::Step {
            from: self.from,
            to: self.to,
            role: Some(self.role),
            side: Some(pos.turn()),
        }
        .resolve(pos, text)
    }
}

/// Renders a move in Fairy-Stockfish's Janggi notation (`H02-83`, `R01x71`, `+` on check).
///
/// ```
/// use qipu::notation::korean::render_fs;
/// use qipu::rules::{AnyPosition, Variant};
/// let pos = AnyPosition::new(Variant::Janggi);
/// assert_eq!(render_fs(&pos, "b0c2".parse().unwrap()).unwrap(), "H02-83");
/// ```
pub fn render_fs(pos: &AnyPosition, m: Move) -> Option<String> {
    let from = match m.from() {
        Some(f) => f,
        None => pos.board().king(pos.turn())?,
    };
    let to = m.to().unwrap_or(from);
    let p = pos.board().piece_at(from)?;
    let letter = match p.role {
        Role::King => 'K',
        Role::Advisor => 'A',
        Role::Elephant => 'E',
        Role::Horse => 'H',
        Role::Rook => 'R',
        Role::Cannon => 'C',
        Role::Pawn => 'P',
    };
    let sep = if m.to().is_some() && pos.board().piece_at(to).is_some() {
        'x'
    } else {
        '-'
    };
    let (fr, ff) = digits(from);
    let (tr, tf) = digits(to);
    let mut after = pos.clone();
    after.play(m).ok()?;
    let mark = match (after.is_check(), after.legal_moves().is_empty()) {
        (true, true) => "#",
        (true, false) => "+",
        _ => "",
    };
    Some(format!("{letter}{fr}{ff}{sep}{tr}{tf}{mark}"))
}

/// A move in letters and digits around a piece name, as some Kakao records write Janggi moves
/// (`i3卒h3`, with a captured piece after the destination: `d6兵d5卒`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lettered {
    /// The squares as written.
    pub squares: super::coord::CoordMove,
    /// The piece named before the destination: the one that moves.
    pub role: Role,
    /// The piece named after the destination, if any: the one taken there.
    pub captured: Option<Role>,
}

/// Syntax phase for squares in letters and digits around a piece name (`i3卒h3`), with an
/// optional captured piece after the destination (`d6兵d5卒`, `h7包h3卒`) and an optional
/// check or answer mark after that (`e6象g3卒장군`, `a0車a8장군`, `…멍군`); `None` if the
/// text does not have that shape.
///
/// ```
/// use qipu::notation::korean::parse_lettered;
/// use qipu::rules::Role;
/// let l = parse_lettered("i3卒h3").unwrap();
/// assert_eq!((l.role, l.captured), (Role::Pawn, None));
/// let l = parse_lettered("h7包h3卒").unwrap();
/// assert_eq!((l.role, l.captured), (Role::Cannon, Some(Role::Pawn)));
/// let l = parse_lettered("e6象g3卒장군").unwrap();
/// assert_eq!((l.role, l.captured), (Role::Elephant, Some(Role::Pawn)));
/// let l = parse_lettered("a0車a8장군").unwrap();
/// assert_eq!((l.role, l.captured), (Role::Rook, None));
/// assert!(parse_lettered("08마87").is_none());
/// ```
pub fn parse_lettered(text: &str) -> Option<Lettered> {
    let t = text.trim();
    // A check (`장군`) or its answer (`멍군`) says nothing about the move itself.
    let t = ["장군", "멍군"]
        .iter()
        .find_map(|mark| t.strip_suffix(mark))
        .unwrap_or(t)
        .trim_end();
    let first = t.find(|c: char| !c.is_ascii())?;
    let (head, rest) = t.split_at(first);
    if !head.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return None;
    }
    let (role, tail) = named_piece(rest)?;
    // The destination in ASCII, then optionally the captured piece.
    let cut = tail.find(|c: char| !c.is_ascii()).unwrap_or(tail.len());
    let (dest, after) = tail.split_at(cut);
    let captured = if after.is_empty() {
        None
    } else {
        match named_piece(after)? {
            (r, "") => Some(r),
            _ => return None,
        }
    };
    let mut coords = String::with_capacity(8);
    coords.push_str(head);
    coords.push_str(dest);
    Some(Lettered {
        squares: super::coord::CoordMove::parse(&coords).ok()?,
        role,
        captured,
    })
}

/// A piece name with an optional side before it (`卒`, `楚卒`) at the start of `text`: its
/// role and the text after it.
fn named_piece(text: &str) -> Option<(Role, &str)> {
    let mut chars = text.char_indices();
    let (i, c) = chars.next()?;
    let (i, c) = if side(c).is_some() {
        chars.next()?
    } else {
        (i, c)
    };
    let role = piece_role(c)?;
    Some((role, &text[i + c.len_utf8()..]))
}
