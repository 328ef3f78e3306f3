//! Chinese vertical-line notation (`炮二平五`, `馬８進７`, `前马退六`, `一兵平五`, `前兵四平五`,
//! `前九平八`, `二7平6`): simplified, traditional and variant glyphs, Chinese, ASCII, full-width
//! and financial numerals, `上`/`下` for 进/退, stray spaces.

use super::vertical::{describe, Dir, Origin, Vertical, Which};
use super::NotationError;
use crate::rules::{Board, Color, Move, Role};

/// One character of a Chinese move, classified.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tok {
    Piece(Role),
    /// A numeral 1..=9; `true` if it is a Chinese numeral (which can also be a pawn ordinal).
    Num(u8, bool),
    Dir(Dir),
    Pos(Which),
}

fn classify(c: char) -> Option<Tok> {
    use Tok::*;
    Some(match c {
        '帅' | '帥' | '将' | '將' => Piece(Role::King),
        '仕' | '士' => Piece(Role::Advisor),
        '相' | '象' => Piece(Role::Elephant),
        '马' | '馬' | '傌' | '碼' | '码' => Piece(Role::Horse),
        '车' | '車' | '俥' | '硨' | '砗' => Piece(Role::Rook),
        '炮' | '砲' | '包' => Piece(Role::Cannon),
        '兵' | '卒' => Piece(Role::Pawn),
        '进' | '進' | '上' => Dir(super::vertical::Dir::Forward),
        '退' | '下' => Dir(super::vertical::Dir::Backward),
        '平' => Dir(super::vertical::Dir::Sideways),
        '前' => Pos(Which::Front),
        '中' => Pos(Which::Middle),
        '后' | '後' => Pos(Which::Rear),
        '一' | '壹' => Num(1, true),
        '二' | '贰' | '貳' => Num(2, true),
        '三' | '叁' | '參' => Num(3, true),
        '四' | '肆' => Num(4, true),
        '五' | '伍' => Num(5, true),
        '六' | '陆' | '陸' => Num(6, true),
        '七' | '柒' => Num(7, true),
        '八' | '捌' => Num(8, true),
        '九' | '玖' => Num(9, true),
        '1'..='9' => Num(c as u8 - b'0', false),
        '１'..='９' => Num((c as u32 - '０' as u32) as u8, false),
        _ => return None,
    })
}

/// Syntax phase: reads a Chinese move into the vertical-line model.
///
/// # Errors
/// [`NotationError::Syntax`] if the text is not a Chinese move.
///
/// ```
/// use qipu::notation::chinese::parse;
/// use qipu::notation::vertical::{Dir, Origin, Which};
/// let v = parse("炮二平五").unwrap();
/// assert_eq!((v.origin, v.dir, v.num), (Origin::File(2), Dir::Sideways, 5));
/// assert_eq!(parse("後砲平４").unwrap().origin, Origin::Tandem(Which::Rear));
/// assert_eq!(parse("前九平八").unwrap().origin, Origin::OnFile(Which::Front, 9));
/// assert!(parse("C2.5").is_err());
/// ```
pub fn parse(text: &str) -> Result<Vertical, NotationError> {
    let err = || NotationError::Syntax(text.to_string());
    let mut toks = [Tok::Num(0, false); 5];
    let mut n = 0;
    for c in text.chars() {
        if c.is_whitespace() || c == '\u{3000}' {
            continue;
        }
        let t = classify(c).ok_or_else(err)?;
        if n == toks.len() {
            return Err(err());
        }
        toks[n] = t;
        n += 1;
    }
    let ordinal = |t: Tok| match t {
        Tok::Pos(w) => Some(w),
        Tok::Num(k @ 1..=5, _) => Some(Which::Nth(k)),
        _ => None,
    };
    let v = match &toks[..n] {
        [Tok::Piece(r), Tok::Num(f, _), Tok::Dir(d), Tok::Num(x, _)] => Vertical {
            role: Some(*r),
            origin: Origin::File(*f),
            dir: *d,
            num: *x,
        },
        [p, Tok::Piece(r), Tok::Dir(d), Tok::Num(x, _)] => Vertical {
            role: Some(*r),
            origin: Origin::Tandem(ordinal(*p).ok_or_else(err)?),
            dir: *d,
            num: *x,
        },
        [p, Tok::Piece(r), Tok::Num(f, _), Tok::Dir(d), Tok::Num(x, _)] => Vertical {
            role: Some(*r),
            origin: Origin::OnFile(ordinal(*p).ok_or_else(err)?, *f),
            dir: *d,
            num: *x,
        },
        [p, Tok::Num(f, _), Tok::Dir(d), Tok::Num(x, _)] => Vertical {
            role: None,
            origin: Origin::OnFile(ordinal(*p).ok_or_else(err)?, *f),
            dir: *d,
            num: *x,
        },
        _ => return Err(err()),
    };
    Ok(v)
}

const RED_NUM: [char; 9] = ['一', '二', '三', '四', '五', '六', '七', '八', '九'];
const BLACK_NUM: [char; 9] = ['１', '２', '３', '４', '５', '６', '７', '８', '９'];

pub(crate) fn glyph(role: Role, color: Color, traditional: bool) -> char {
    let red = color == Color::First;
    match (role, red, traditional) {
        (Role::King, true, false) => '帅',
        (Role::King, true, true) => '帥',
        (Role::King, false, false) => '将',
        (Role::King, false, true) => '將',
        (Role::Advisor, true, _) => '仕',
        (Role::Advisor, false, _) => '士',
        (Role::Elephant, true, _) => '相',
        (Role::Elephant, false, _) => '象',
        (Role::Horse, _, false) => '马',
        (Role::Horse, _, true) => '馬',
        (Role::Rook, _, false) => '车',
        (Role::Rook, _, true) => '車',
        (Role::Cannon, _, _) => '炮',
        (Role::Pawn, true, _) => '兵',
        (Role::Pawn, false, _) => '卒',
    }
}

/// Renders a legal Xiangqi move in xqbase's Chinese form: Red numerals 一..九, Black
/// full-width １..９, tandems 前/中/后 or 一..五; `None` for a pass or an empty origin.
///
/// ```
/// use qipu::notation::chinese::render;
/// use qipu::rules::{AnyPosition, Variant};
/// let pos = AnyPosition::new(Variant::Xiangqi);
/// let m = "h2e2".parse().unwrap();
/// assert_eq!(render(pos.board(), m, false).unwrap(), "炮二平五");
/// let m = "h0g2".parse().unwrap();
/// assert_eq!(render(pos.board(), m, true).unwrap(), "馬二進三");
/// ```
pub fn render(board: &Board, m: Move, traditional: bool) -> Option<String> {
    let v = describe(board, m)?;
    let color = board.piece_at(m.from()?)?.color;
    let role = v.role?;
    let num = |k: u8| -> char {
        let table = if color == Color::First {
            &RED_NUM
        } else {
            &BLACK_NUM
        };
        table[usize::from(k.clamp(1, 9)) - 1]
    };
    let mut s = String::with_capacity(16);
    match v.origin {
        Origin::File(f) => {
            s.push(glyph(role, color, traditional));
            s.push(num(f));
        }
        Origin::Tandem(w) | Origin::OnFile(w, _) => {
            s.push(match w {
                Which::Front => '前',
                Which::Middle => '中',
                Which::Rear if traditional => '後',
                Which::Rear => '后',
                Which::Nth(k) => RED_NUM[usize::from(k.clamp(1, 9)) - 1],
            });
            s.push(glyph(role, color, traditional));
        }
    }
    s.push(match (v.dir, traditional) {
        (Dir::Forward, false) => '进',
        (Dir::Forward, true) => '進',
        (Dir::Backward, _) => '退',
        (Dir::Sideways, _) => '平',
    });
    s.push(num(v.num));
    Some(s)
}
