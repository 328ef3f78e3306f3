//! WXF / AXF symbolic notation and its dialects: `C2.5`, `C2=5`, `C25`, `H2+3`, `C+-2`,
//! `+C.4`, `++.4`, `Pa.5`, `3+.4`, `33.4`, `+7.6`, `fC5-2`, Fairy-Stockfish's `15=6`, piece letters
//! K A E/B H/N R C P (either case), G/M, digit codes 1–7, full-width characters.
//!
//! Some texts have two readings (`15=6`: a king on file 5, or the front pawn on file 5); every
//! reading is resolved and the legal moves decide.

use super::vertical::{describe, Dir, Origin, Vertical, Which};
use super::NotationError;
use crate::rules::{Board, Move, Role};

/// At most this many readings of one text.
const MAX_READINGS: usize = 4;

/// The readings of a WXF text.
#[derive(Clone, Copy, Debug)]
pub struct Readings {
    len: usize,
    items: [Option<Vertical>; MAX_READINGS],
}

impl Readings {
    fn push(&mut self, v: Vertical) {
        if self.len < MAX_READINGS && !self.items[..self.len].contains(&Some(v)) {
            self.items[self.len] = Some(v);
            self.len += 1;
        }
    }

    /// The readings.
    pub fn iter(&self) -> impl Iterator<Item = &Vertical> {
        self.items[..self.len].iter().flatten()
    }
}

fn letter_role(c: u8) -> Option<Role> {
    Some(match c.to_ascii_uppercase() {
        b'K' | b'1' => Role::King,
        b'A' | b'G' | b'2' => Role::Advisor,
        b'E' | b'B' | b'M' | b'3' => Role::Elephant,
        b'H' | b'N' | b'4' => Role::Horse,
        b'R' | b'5' => Role::Rook,
        b'C' | b'6' => Role::Cannon,
        b'P' | b'7' => Role::Pawn,
        _ => return None,
    })
}

fn marker(c: u8) -> Option<Which> {
    match c {
        b'+' => Some(Which::Front),
        b'-' => Some(Which::Rear),
        b'.' => Some(Which::Middle),
        b'a'..=b'e' => Some(Which::Nth(c - b'a' + 1)),
        _ => None,
    }
}

fn op(c: u8) -> Option<Dir> {
    match c {
        b'+' => Some(Dir::Forward),
        b'-' => Some(Dir::Backward),
        b'.' | b'=' => Some(Dir::Sideways),
        _ => None,
    }
}

fn digit(c: u8) -> Option<u8> {
    (b'1'..=b'9').contains(&c).then(|| c - b'0')
}

/// Folds full-width ASCII (`Ｃ２＝５`) to ASCII and drops spaces; `None` on other non-ASCII.
fn fold(text: &str, buf: &mut [u8; 8]) -> Option<usize> {
    let mut n = 0;
    for c in text.chars() {
        let c = match c {
            '\u{FF01}'..='\u{FF5E}' => char::from_u32(c as u32 - 0xFEE0)?,
            '\u{3000}' => continue,
            c if c.is_whitespace() => continue,
            c if c.is_ascii() => c,
            _ => return None,
        };
        *buf.get_mut(n)? = c as u8;
        n += 1;
    }
    Some(n)
}

/// Syntax phase: every reading of a WXF text.
///
/// # Errors
/// [`NotationError::Syntax`] if the text has no WXF reading.
///
/// ```
/// use qipu::notation::wxf::parse;
/// use qipu::notation::vertical::{Dir, Origin, Which};
/// let r = parse("C2.5").unwrap();
/// let v = r.iter().next().unwrap();
/// assert_eq!((v.origin, v.dir, v.num), (Origin::File(2), Dir::Sideways, 5));
/// assert_eq!(parse("+C.4").unwrap().iter().next().unwrap().origin, Origin::Tandem(Which::Front));
/// assert_eq!(parse("15=6").unwrap().iter().count(), 2);
/// assert!(parse("h2e2").is_err());
/// ```
pub fn parse(text: &str) -> Result<Readings, NotationError> {
    let err = || NotationError::Syntax(text.to_string());
    let mut buf = [0u8; 8];
    let n = fold(text, &mut buf).ok_or_else(err)?;
    let b = &buf[..n];
    let mut r = Readings {
        len: 0,
        items: [None; MAX_READINGS],
    };
    // `fC5-2`: f/m/b (front/middle/back) before the letter, with the file kept.
    if let [q @ (b'f' | b'm' | b'b'), l, f, o, x] = *b {
        if let (Some(role), Some(f), Some(dir), Some(num)) = (
            letter_role(l).filter(|_| l.is_ascii_uppercase()),
            digit(f),
            op(o),
            digit(x),
        ) {
            let which = match q {
                b'f' => Which::Front,
                b'm' => Which::Middle,
                _ => Which::Rear,
            };
            r.push(Vertical {
                role: Some(role),
                origin: Origin::OnFile(which, f),
                dir,
                num,
            });
            return Ok(r);
        }
    }
    let (c0, c1, dir, num) = match *b {
        [c0, c1, o, x] => (c0, c1, op(o).ok_or_else(err)?, digit(x).ok_or_else(err)?),
        // `C25`: the traverse written without a symbol.
        [c0, c1, x] if digit(c1).is_some() => (c0, c1, Dir::Sideways, digit(x).ok_or_else(err)?),
        _ => return Err(err()),
    };
    let mk = |role, origin| Vertical {
        role,
        origin,
        dir,
        num,
    };
    // Piece first: `C2.5`, `C+-2`, `Pa.5`, also digit piece codes `62.5`.
    if let Some(role) = letter_role(c0) {
        if let Some(f) = digit(c1) {
            r.push(mk(Some(role), Origin::File(f)));
        } else if let Some(w) = marker(c1) {
            r.push(mk(Some(role), Origin::Tandem(w)));
        }
    }
    // Marker first: `+C.4`, `-P+1`.
    if let (Some(w @ (Which::Front | Which::Rear | Which::Middle)), Some(role)) = (
        marker(c0),
        letter_role(c1).filter(|_| c1.is_ascii_alphabetic()),
    ) {
        r.push(mk(Some(role), Origin::Tandem(w)));
    }
    // `++.4` / `--.4`: the frontmost / rearmost of many pawns.
    if c0 == c1 && matches!(c0, b'+' | b'-') {
        let w = if c0 == b'+' {
            Which::Front
        } else {
            Which::Rear
        };
        r.push(mk(Some(Role::Pawn), Origin::Tandem(w)));
    }
    // Pawns on two doubled files: `3+.4`, `3-.4`, `33.4` (the file digit replaces the letter).
    if let Some(f) = digit(c0) {
        match c1 {
            b'+' => r.push(mk(Some(Role::Pawn), Origin::OnFile(Which::Front, f))),
            b'-' => r.push(mk(Some(Role::Pawn), Origin::OnFile(Which::Rear, f))),
            _ if c1 == c0 => r.push(mk(Some(Role::Pawn), Origin::OnFile(Which::Middle, f))),
            _ => {}
        }
        // Fairy-Stockfish: index among the pawns of the file, then the file: `15=6`.
        if let (1..=5, Some(file)) = (f, digit(c1)) {
            r.push(mk(Some(Role::Pawn), Origin::OnFile(Which::Nth(f), file)));
        }
    }
    // 东萍: `+7.6` = the front pawn on file 7.
    if let (Some(w @ (Which::Front | Which::Rear)), Some(f)) = (marker(c0), digit(c1)) {
        r.push(mk(Some(Role::Pawn), Origin::OnFile(w, f)));
    }
    if r.len == 0 {
        return Err(err());
    }
    Ok(r)
}

/// Renders a legal Xiangqi move in WXF with xqbase's tandem markers: letters K A E H R C P,
/// `.` for traverse, `+`/`.`/`-` or `a`..`e` after the letter for tandem pieces.
///
/// ```
/// use qipu::notation::wxf::render;
/// use qipu::rules::{AnyPosition, Variant};
/// let pos = AnyPosition::new(Variant::Xiangqi);
/// assert_eq!(render(pos.board(), "h2e2".parse().unwrap()).unwrap(), "C2.5");
/// assert_eq!(render(pos.board(), "h0g2".parse().unwrap()).unwrap(), "H2+3");
/// ```
pub fn render(board: &Board, m: Move) -> Option<String> {
    let v = describe(board, m)?;
    let letter = match v.role? {
        Role::King => 'K',
        Role::Advisor => 'A',
        Role::Elephant => 'E',
        Role::Horse => 'H',
        Role::Rook => 'R',
        Role::Cannon => 'C',
        Role::Pawn => 'P',
    };
    let mut s = String::with_capacity(4);
    s.push(letter);
    match v.origin {
        Origin::File(f) => s.push((b'0' + f) as char),
        Origin::Tandem(w) | Origin::OnFile(w, _) => s.push(match w {
            Which::Front => '+',
            Which::Middle => '.',
            Which::Rear => '-',
            Which::Nth(k) => (b'a' + k.clamp(1, 5) - 1) as char,
        }),
    }
    s.push(match v.dir {
        Dir::Forward => '+',
        Dir::Backward => '-',
        Dir::Sideways => '.',
    });
    s.push((b'0' + v.num) as char);
    Some(s)
}
