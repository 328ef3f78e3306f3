//! The vertical-line model shared by Chinese (`炮二平五`) and WXF (`C2.5`) notation: which piece
//! (by its own file number or by its place among same-type pieces), the direction, and a number
//! that is a step count or a destination file. Resolution matches this model against the board
//! and the legal moves directly; `describe` picks the xqbase form of a move.

use super::is_legal;
use crate::rules::{AnyPosition, Board, Color, Move, Piece, Role, Square};

/// Direction of a vertical-line move, seen from the mover.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dir {
    /// 进 / `+`: towards the opponent.
    Forward,
    /// 退 / `-`: back towards the own side.
    Backward,
    /// 平 / `.` `=`: along the rank.
    Sideways,
}

/// Which of several same-type pieces is meant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Which {
    /// 前 / `+`: the one furthest forward.
    Front,
    /// 中 / `.`: the middle one of three (or of five).
    Middle,
    /// 后 / `-`: the one furthest back.
    Rear,
    /// 一..五 / `a`..`e`: the n-th (1-based) in the xqbase order.
    Nth(u8),
}

/// How the moving piece is identified.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Origin {
    /// By the mover's own file number 1..=9 (counted from the mover's right).
    File(u8),
    /// By its place among the same-type pieces standing on files that hold two or more.
    Tandem(Which),
    /// By its place among the same-type pieces on the given own file number.
    OnFile(Which, u8),
}

/// A vertical-line move before resolution.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Vertical {
    /// The piece type; `None` when the writer dropped it (`前九平八`, `二7平6`).
    pub role: Option<Role>,
    /// Which piece moves.
    pub origin: Origin,
    /// The direction.
    pub dir: Dir,
    /// Steps (forward/backward for king, rook, cannon, pawn) or destination file 1..=9.
    pub num: u8,
}

/// The board file (0 = `a`) of a mover's own file number 1..=9.
#[inline]
pub(crate) fn board_file(color: Color, n: u8) -> u8 {
    match color {
        Color::First => 9 - n,
        Color::Second => n - 1,
    }
}

/// The mover's own file number 1..=9 of a board file.
#[inline]
pub(crate) fn own_file(color: Color, file: u8) -> u8 {
    match color {
        Color::First => 9 - file,
        Color::Second => file + 1,
    }
}

/// Sort key of a rank: smaller is further forward for the mover.
#[inline]
fn front_key(color: Color, rank: u8) -> u8 {
    match color {
        Color::First => 9 - rank,
        Color::Second => rank,
    }
}

/// The pieces that may be written with a tandem marker.
const TANDEM_ROLES: [Role; 4] = [Role::Horse, Role::Rook, Role::Cannon, Role::Pawn];

#[inline]
fn is_straight(role: Role) -> bool {
    matches!(role, Role::King | Role::Rook | Role::Cannon | Role::Pawn)
}

/// Small fixed list of squares (at most 5 pieces of one type take part in a tandem).
#[derive(Clone, Copy)]
struct Group {
    len: usize,
    squares: [Square; 10],
}

/// Filler for unused slots (evaluated at compile time).
const A0: Square = match Square::new(0) {
    Some(s) => s,
    None => panic!("square 0 exists"),
};

impl Group {
    fn new() -> Group {
        Group {
            len: 0,
            squares: [A0; 10],
        }
    }
    fn push(&mut self, s: Square) {
        if self.len < self.squares.len() {
            self.squares[self.len] = s;
            self.len += 1;
        }
    }
    fn as_slice(&self) -> &[Square] {
        &self.squares[..self.len]
    }
}

/// The squares of each board file as a square set (bit `rank * 9 + file`).
const FILE_SETS: [u128; 9] = {
    let mut sets = [0u128; 9];
    let mut i = 0;
    while i < 90 {
        sets[i % 9] |= 1u128 << i;
        i += 1;
    }
    sets
};

/// The mover's pieces of `role` on a board file, front to back: the mover's occupied squares
/// of the file, walked from the front, those holding the role kept.
fn on_file(board: &Board, color: Color, role: Role, file: u8) -> Group {
    let piece = Piece::new(color, role);
    let mut bits = board.occupied(color) & FILE_SETS[usize::from(file.min(8))];
    let mut g = Group::new();
    while bits != 0 {
        // The first player's front is the top of the board (high squares), the second's the
        // bottom.
        let i = match color {
            Color::First => 127 - bits.leading_zeros(),
            Color::Second => bits.trailing_zeros(),
        };
        bits &= !(1u128 << i);
        if let Some(s) = Square::new(i as u8) {
            if board.has(s, piece) {
                g.push(s);
            }
        }
    }
    g
}

/// The mover's pieces of `role` on files holding two or more of them, in xqbase order: own
/// file number ascending (from the mover's right), then front to back. Also returns how many
/// such files there are.
fn tandem_list(board: &Board, color: Color, role: Role) -> (Group, usize) {
    let mut all = Group::new();
    let mut files = 0;
    for n in 1..=9u8 {
        let g = on_file(board, color, role, board_file(color, n));
        if g.len >= 2 {
            files += 1;
            for &s in g.as_slice() {
                all.push(s);
            }
        }
    }
    (all, files)
}

/// Picks `which` from a front-to-back list of pieces on one file.
fn pick(g: &[Square], which: Which) -> Option<Square> {
    match which {
        Which::Front => g.first().copied(),
        Which::Rear => g.last().copied(),
        Which::Middle => match g.len() {
            3 => g.get(1).copied(),
            5 => g.get(2).copied(),
            _ => None,
        },
        Which::Nth(k) => g.get(usize::from(k).checked_sub(1)?).copied(),
    }
}

/// The destination of `role` from `from` for a direction and number, by geometry alone.
fn destination(color: Color, role: Role, from: Square, dir: Dir, num: u8) -> Option<Square> {
    if !(1..=9).contains(&num) {
        return None;
    }
    let fwd: i8 = match color {
        Color::First => 1,
        Color::Second => -1,
    };
    let (f, r) = (from.file() as i8, from.rank() as i8);
    match dir {
        Dir::Sideways => {
            if !is_straight(role) {
                return None;
            }
            let tf = board_file(color, num) as i8;
            (tf != f).then(|| Square::from_coords(tf as u8, r as u8))?
        }
        Dir::Forward | Dir::Backward => {
            let sign = if dir == Dir::Forward { fwd } else { -fwd };
            if is_straight(role) {
                let tr = r + sign * num as i8;
                if !(0..10).contains(&tr) {
                    return None;
                }
                Square::from_coords(f as u8, tr as u8)
            } else {
                let tf = board_file(color, num) as i8;
                let df = (tf - f).abs();
                let dr = match (role, df) {
                    (Role::Horse, 1) => 2,
                    (Role::Horse, 2) => 1,
                    (Role::Elephant, 2) => 2,
                    (Role::Advisor, 1) => 1,
                    _ => return None,
                };
                let tr = r + sign * dr;
                if !(0..10).contains(&tr) {
                    return None;
                }
                Square::from_coords(tf as u8, tr as u8)
            }
        }
    }
}

/// Up to a few distinct legal moves that a text matches.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Matches {
    len: usize,
    moves: [Move; 4],
}

impl Matches {
    pub(crate) fn new() -> Matches {
        Matches {
            len: 0,
            moves: [Move::PASS; 4],
        }
    }
    pub(crate) fn add(&mut self, m: Move) {
        if self.moves[..self.len].contains(&m) {
            return;
        }
        if self.len < self.moves.len() {
            self.moves[self.len] = m;
            self.len += 1;
        }
    }
    pub(crate) fn len(&self) -> usize {
        self.len
    }
    pub(crate) fn first(&self) -> Option<Move> {
        (self.len > 0).then_some(self.moves[0])
    }
}

impl Vertical {
    /// Adds every legal move this reading denotes to `out`.
    pub(crate) fn resolve_into(&self, pos: &AnyPosition, out: &mut Matches) {
        let board = pos.board();
        let color = board.turn();
        let try_from = |role: Role, from: Square, out: &mut Matches| -> bool {
            if let Some(to) = destination(color, role, from, self.dir, self.num) {
                let m = Move::new(from, to);
                if is_legal(pos, m) {
                    out.add(m);
                    return true;
                }
            }
            false
        };
        let roles: &[Role] = match &self.role {
            Some(r) => std::slice::from_ref(r),
            None => &TANDEM_ROLES,
        };
        match self.origin {
            Origin::File(n) => {
                if !(1..=9).contains(&n) {
                    return;
                }
                let file = board_file(color, n);
                for &role in roles {
                    let g = on_file(board, color, role, file);
                    let mut local = Matches::new();
                    for &s in g.as_slice() {
                        try_from(role, s, &mut local);
                    }
                    if local.len() > 1 && role == Role::Pawn && matches!(g.len, 3 | 5) {
                        // WXF: the middle of three (or five) pawns keeps the plain file form.
                        if let Some(mid) = pick(g.as_slice(), Which::Middle) {
                            local = Matches::new();
                            try_from(role, mid, &mut local);
                        }
                    }
                    for &m in &local.moves[..local.len] {
                        out.add(m);
                    }
                }
            }
            Origin::Tandem(which) => {
                for &role in roles {
                    let (list, files) = tandem_list(board, color, role);
                    match which {
                        _ if matches!(which, Which::Nth(_)) || files <= 1 => {
                            if let Some(s) = pick(list.as_slice(), which) {
                                try_from(role, s, out);
                            }
                        }
                        _ => {
                            // Two doubled files and a front/middle/rear marker: each file's
                            // piece is a candidate; the legal moves decide.
                            for n in 1..=9u8 {
                                let g = on_file(board, color, role, board_file(color, n));
                                if g.len >= 2 {
                                    if let Some(s) = pick(g.as_slice(), which) {
                                        try_from(role, s, out);
                                    }
                                }
                            }
                        }
                    }
                }
            }
            Origin::OnFile(which, n) => {
                if !(1..=9).contains(&n) {
                    return;
                }
                let file = board_file(color, n);
                for &role in roles {
                    let g = on_file(board, color, role, file);
                    if g.len >= 2 {
                        if let Some(s) = pick(g.as_slice(), which) {
                            try_from(role, s, out);
                        }
                    }
                }
            }
        }
    }
}

/// The xqbase form of a legal move (`None` for a pass or an empty origin square).
///
/// King, advisor and elephant always use the file; a horse, rook, cannon or pawn standing on a
/// file with another of its kind is named by its place among all such pieces (two → 前/后,
/// three → 前/中/后, four or five → 一..五, counted from the mover's right, front to back).
pub(crate) fn describe(board: &Board, m: Move) -> Option<Vertical> {
    let (from, to) = (m.from()?, m.to()?);
    let piece = board.piece_at(from)?;
    let (color, role) = (piece.color, piece.role);
    let mut origin = Origin::File(own_file(color, from.file()));
    if TANDEM_ROLES.contains(&role) {
        let (list, _) = tandem_list(board, color, role);
        let all = list.as_slice();
        if let Some(i) = all.iter().position(|&s| s == from) {
            origin = Origin::Tandem(match (all.len(), i) {
                (2, 0) | (3, 0) => Which::Front,
                (2, _) | (3, 2) => Which::Rear,
                (3, _) => Which::Middle,
                (_, i) => Which::Nth(i as u8 + 1),
            });
        }
    }
    let fk = front_key(color, to.rank()) as i8 - front_key(color, from.rank()) as i8;
    let dir = match fk {
        0 => Dir::Sideways,
        d if d < 0 => Dir::Forward,
        _ => Dir::Backward,
    };
    let num = if dir == Dir::Sideways || !is_straight(role) {
        own_file(color, to.file())
    } else {
        fk.unsigned_abs()
    };
    Some(Vertical {
        role: Some(role),
        origin,
        dir,
        num,
    })
}
