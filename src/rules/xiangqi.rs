//! Xiangqi (Chinese chess): move generation, check, flying general, game end, and the direct
//! single-move legality test that resolving a written move uses. The helpers shared with
//! Janggi live in `movegen.rs`.

use super::{
    board::Board,
    movegen::{direction, filter_legal, horse_attack, next_on_ray, slide, steps, validate_common},
    position::{EndReason, GameEnd, MoveList, Outcome, Position, PositionError},
    setup::Setup,
    tables::*,
    types::{code, color_of, role_of, Color, Move, Role, Square, Variant},
};

/// A legal Xiangqi position.
///
/// ```
/// use qipu::rules::{Position, Xiangqi};
/// let pos = Xiangqi::from_fen("4k4/9/9/9/9/9/9/9/4A4/3K5 b").unwrap();
/// // The black general may not step onto the open e-file facing... nothing blocks d-file either.
/// assert!(pos.legal_moves().iter().all(|m| m.to_string() != "e9d9"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Xiangqi {
    board: Board,
}

/// Whether `them` attacks `k` along the orthogonal ray `d` (rook, cannon over one screen,
/// or the enemy general on an open file: the flying-general rule).
#[inline]
fn ray_attack(sq: &[u8; 90], k: usize, d: usize, them: usize) -> bool {
    let (first, i) = next_on_ray(sq, k, d, 0);
    if first == code(them, Role::Rook) || first == code(them, Role::King) {
        return true;
    }
    first != 0 && next_on_ray(sq, k, d, i).0 == code(them, Role::Cannon)
}

/// Whether the square `k` is attacked by `them`. Inline: the legality filter in
/// `movegen.rs` calls it through a closure, possibly from another codegen unit.
#[inline]
fn attacked(sq: &[u8; 90], k: usize, them: usize) -> bool {
    if (0..4).any(|d| ray_attack(sq, k, d, them)) || horse_attack(sq, k, them, None) {
        return true;
    }
    let pawn = code(them, Role::Pawn);
    let p = &XQ_PAWN_FROM[them][k];
    (0..p.len as usize).any(|i| sq[p.to[i] as usize] == pawn)
}

/// Whether `them` attacks `k` by a line or leap that passes over the square `x`: the only
/// attacks a move can uncover or create when it changes nothing but `x`.
#[inline]
fn attacked_through(sq: &[u8; 90], k: usize, them: usize, x: usize) -> bool {
    direction(k, x).is_some_and(|d| ray_attack(sq, k, d, them))
        || (HORSE_LEGS[k] & (1u128 << x) != 0 && horse_attack(sq, k, them, Some(x)))
}

/// The pseudo-legal moves of the side to move's pieces among `pieces` (a square set).
fn pseudo_moves(b: &Board, pieces: u128, list: &mut MoveList) {
    let us = b.turn().index();
    let sq = b.squares();
    let own = b.occupied(b.turn());
    let mut bits = own & pieces;
    while bits != 0 {
        let from = bits.trailing_zeros() as usize;
        bits &= bits - 1;
        let fsq = Square::new(from as u8).unwrap_or_else(|| unreachable!());
        let push = |list: &mut MoveList, to: u8| {
            if let Some(t) = Square::new(to) {
                list.push(Move::new(fsq, t));
            }
        };
        let free = |to: u8| own & (1u128 << to) == 0;
        match role_of(sq[from]) {
            Role::King => steps(&XQ_KING[us][from], sq, own, fsq, list),
            Role::Advisor => steps(&XQ_ADVISOR[us][from], sq, own, fsq, list),
            Role::Elephant => steps(&XQ_ELEPHANT[us][from], sq, own, fsq, list),
            Role::Horse => steps(&HORSE[from], sq, own, fsq, list),
            Role::Rook => {
                for d in 0..4 {
                    slide(
                        &RAYS[from][d][..RAY_LEN[from][d] as usize],
                        sq,
                        own,
                        fsq,
                        list,
                    );
                }
            }
            Role::Cannon => {
                for d in 0..4 {
                    let ray = &RAYS[from][d];
                    let len = RAY_LEN[from][d] as usize;
                    let mut i = 0;
                    while i < len && sq[ray[i] as usize] == 0 {
                        push(list, ray[i]);
                        i += 1;
                    }
                    i += 1;
                    while i < len && sq[ray[i] as usize] == 0 {
                        i += 1;
                    }
                    if i < len && free(ray[i]) {
                        push(list, ray[i]);
                    }
                }
            }
            Role::Pawn => steps(&XQ_PAWN[us][from], sq, own, fsq, list),
        }
    }
}

impl Xiangqi {
    fn in_check(&self) -> bool {
        let us = self.board.turn();
        attacked(
            self.board.squares(),
            self.board.king_index(us),
            us.other().index(),
        )
    }
}

impl Xiangqi {
    /// The legal moves of the pieces among `pieces` (a square set).
    #[inline]
    fn legal_moves_of(&self, pieces: u128) -> MoveList {
        let mut list = MoveList::new();
        pseudo_moves(&self.board, pieces, &mut list);
        let them = self.board.turn().other().index();
        filter_legal(
            &self.board,
            &mut list,
            self.in_check(),
            &XQ_KING_SENSITIVE,
            false,
            |sq, k| !attacked(sq, k, them),
            |sq, k, x| attacked_through(sq, k, them, x),
        );
        list
    }
}

/// The code on file `f`, rank `r`, 0 off the board.
#[inline]
fn at(sq: &[u8; 90], f: i8, r: i8) -> u8 {
    if (0..9).contains(&f) && (0..10).contains(&r) {
        sq[(r * 9 + f) as usize]
    } else {
        0
    }
}

#[inline]
fn in_palace(color: Color, f: i8, r: i8) -> bool {
    (3..=5).contains(&f)
        && match color {
            Color::First => (0..=2).contains(&r),
            Color::Second => (7..=9).contains(&r),
        }
}

/// Pieces strictly between two squares on one rank or file.
#[inline]
fn between(sq: &[u8; 90], (f0, r0): (i8, i8), (f1, r1): (i8, i8)) -> u32 {
    let (df, dr) = ((f1 - f0).signum(), (r1 - r0).signum());
    let (mut f, mut r) = (f0 + df, r0 + dr);
    let mut n = 0;
    while (f, r) != (f1, r1) {
        n += u32::from(at(sq, f, r) != 0);
        f += df;
        r += dr;
    }
    n
}

/// Whether a piece of `role` and colour `us` may move from `from` to `to` by its own rules
/// (palace, river, elephant eye, horse leg, cannon screen), leaving check aside.
#[inline]
fn shape_ok(sq: &[u8; 90], us: Color, role: Role, from: Square, to: Square, capture: bool) -> bool {
    let (f0, r0) = (from.file() as i8, from.rank() as i8);
    let (f1, r1) = (to.file() as i8, to.rank() as i8);
    let (df, dr) = (f1 - f0, r1 - r0);
    match role {
        Role::King => df.abs() + dr.abs() == 1 && in_palace(us, f1, r1),
        Role::Advisor => df.abs() == 1 && dr.abs() == 1 && in_palace(us, f1, r1),
        Role::Elephant => {
            df.abs() == 2
                && dr.abs() == 2
                && at(sq, f0 + df / 2, r0 + dr / 2) == 0
                && match us {
                    Color::First => r1 <= 4,
                    Color::Second => r1 >= 5,
                }
        }
        Role::Horse => match (df.abs(), dr.abs()) {
            (1, 2) => at(sq, f0, r0 + dr / 2) == 0,
            (2, 1) => at(sq, f0 + df / 2, r0) == 0,
            _ => false,
        },
        Role::Rook => (df == 0) != (dr == 0) && between(sq, (f0, r0), (f1, r1)) == 0,
        Role::Cannon => {
            (df == 0) != (dr == 0) && between(sq, (f0, r0), (f1, r1)) == u32::from(capture)
        }
        Role::Pawn => {
            let (fwd, crossed) = match us {
                Color::First => (1, r0 >= 5),
                Color::Second => (-1, r0 <= 4),
            };
            (df == 0 && dr == fwd) || (dr == 0 && df.abs() == 1 && crossed)
        }
    }
}

impl Position for Xiangqi {
    const VARIANT: Variant = Variant::Xiangqi;

    fn from_setup(setup: &Setup) -> Result<Self, PositionError> {
        validate_common(setup)?;
        let pos = Xiangqi {
            board: Board::from_setup(setup, Variant::Xiangqi),
        };
        let them = pos.board.turn().other();
        if attacked(
            pos.board.squares(),
            pos.board.king_index(them),
            them.other().index(),
        ) {
            return Err(PositionError::OppositeCheck);
        }
        Ok(pos)
    }

    #[inline]
    fn board(&self) -> &Board {
        &self.board
    }

    fn legal_moves(&self) -> MoveList {
        self.legal_moves_of(u128::MAX)
    }

    /// The direct test: the move's shape, then the safety of the general on the board after
    /// it, without generating a move list (resolving a written move calls this once per
    /// candidate). `tests/rules.rs` checks it against `legal_moves` for every origin and
    /// destination of the reference positions.
    #[inline]
    fn is_legal(&self, m: Move) -> bool {
        let (Some(from), Some(to)) = (m.from(), m.to()) else {
            return false;
        };
        let b = &self.board;
        let sq = b.squares();
        let us = b.turn();
        let moved = sq[from.index()];
        let captured = sq[to.index()];
        if color_of(moved) != Some(us) || color_of(captured) == Some(us) {
            return false;
        }
        let role = role_of(moved);
        if !shape_ok(sq, us, role, from, to, captured != 0) {
            return false;
        }
        let mut after = *sq;
        after[to.index()] = moved;
        after[from.index()] = 0;
        let king = if role == Role::King {
            to.index()
        } else {
            b.king_index(us)
        };
        king < Square::COUNT && !attacked(&after, king, us.other().index())
    }

    fn is_check(&self) -> bool {
        self.in_check()
    }

    #[inline]
    fn play_unchecked(&mut self, m: Move) {
        self.board.play_unchecked(m);
    }

    fn end(&self) -> Option<GameEnd> {
        if !self.legal_moves().is_empty() {
            return None;
        }
        let reason = if self.in_check() {
            EndReason::Checkmate
        } else {
            EndReason::Stalemate
        };
        Some(GameEnd {
            reason,
            outcome: Outcome::Decisive {
                winner: self.board.turn().other(),
            },
        })
    }
}
