//! Xiangqi (Chinese chess): move generation, check, flying general, game end.

use super::{
    board::Board,
    position::{EndReason, GameEnd, MoveList, Outcome, Position, PositionError},
    setup::Setup,
    tables::*,
    types::{Color, Move, Piece, Role, Square, Variant},
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

const fn code(color: usize, role: Role) -> u8 {
    1 + role as u8 + 7 * color as u8
}

/// The next piece (internal code, 0 if none) along the orthogonal ray `d` from `k`, looking
/// from the ray's `start`-th square on, and the index just after it.
#[inline]
pub(crate) fn next_on_ray(sq: &[u8; 90], k: usize, d: usize, start: usize) -> (u8, usize) {
    let ray = &RAYS[k][d][..RAY_LEN[k][d] as usize];
    let mut i = start;
    while i < ray.len() {
        let p = sq[ray[i] as usize];
        i += 1;
        if p != 0 {
            return (p, i);
        }
    }
    (0, i)
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

/// Whether a horse of `them` attacks `k` through the leg `leg` (any leg if `None`).
#[inline]
pub(crate) fn horse_attack(sq: &[u8; 90], k: usize, them: usize, leg: Option<usize>) -> bool {
    let horse = code(them, Role::Horse);
    let h = &HORSE_FROM[k];
    (0..h.len as usize).any(|i| {
        let l = h.block[i][0] as usize;
        leg.is_none_or(|x| x == l) && sq[h.to[i] as usize] == horse && sq[l] == 0
    })
}

/// Whether the square `k` is attacked by `them`.
pub(crate) fn attacked(sq: &[u8; 90], k: usize, them: usize) -> bool {
    if (0..4).any(|d| ray_attack(sq, k, d, them)) || horse_attack(sq, k, them, None) {
        return true;
    }
    let pawn = code(them, Role::Pawn);
    let p = &XQ_PAWN_FROM[them][k];
    (0..p.len as usize).any(|i| sq[p.to[i] as usize] == pawn)
}

/// Whether `them` attacks `k` by a line or leap that passes over the square `x`: the only
/// attacks a move can uncover or create when it changes nothing but `x`.
pub(crate) fn attacked_through(sq: &[u8; 90], k: usize, them: usize, x: usize) -> bool {
    direction(k, x).is_some_and(|d| ray_attack(sq, k, d, them))
        || (HORSE_LEGS[k] & (1u128 << x) != 0 && horse_attack(sq, k, them, Some(x)))
}

/// The orthogonal ray of `k` that contains `x`, if any.
#[inline]
pub(crate) fn direction(k: usize, x: usize) -> Option<usize> {
    if k % 9 == x % 9 {
        Some(if x > k { 0 } else { 1 })
    } else if k / 9 == x / 9 {
        Some(if x > k { 2 } else { 3 })
    } else {
        None
    }
}

/// Appends every pseudo-legal move of the side to move.
/// The pseudo-legal moves of the side to move's pieces among `pieces` (a square set).
fn pseudo_moves(b: &Board, pieces: u128, list: &mut MoveList) {
    let us = b.turn.index();
    let sq = &b.sq;
    let own = b.occ[us];
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
        let role = (sq[from] - 1) % 7;
        match role {
            0 => steps(&XQ_KING[us][from], sq, own, fsq, list),
            1 => steps(&XQ_ADVISOR[us][from], sq, own, fsq, list),
            2 => steps(&XQ_ELEPHANT[us][from], sq, own, fsq, list),
            3 => steps(&HORSE[from], sq, own, fsq, list),
            4 => {
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
            5 => {
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
            _ => steps(&XQ_PAWN[us][from], sq, own, fsq, list),
        }
    }
}

/// Pushes the moves of a chariot along one ray: empty squares, then the first occupied one
/// if it holds an enemy piece.
#[inline]
pub(crate) fn slide(ray: &[u8], sq: &[u8; 90], own: u128, from: Square, list: &mut MoveList) {
    for &to in ray {
        if own & (1u128 << to) == 0 {
            if let Some(t) = Square::new(to) {
                list.push(Move::new(from, t));
            }
        }
        if sq[to as usize] != 0 {
            break;
        }
    }
}

/// Pushes the table steps whose blocking squares are empty and whose target is not our own.
#[inline]
pub(crate) fn steps<const N: usize>(
    t: &Steps<N>,
    sq: &[u8; 90],
    own: u128,
    from: Square,
    list: &mut MoveList,
) {
    for i in 0..t.len as usize {
        let to = t.to[i];
        let [b0, b1] = t.block[i];
        if own & (1u128 << to) != 0 {
            continue;
        }
        if (b0 != NONE && sq[b0 as usize] != 0) || (b1 != NONE && sq[b1 as usize] != 0) {
            continue;
        }
        if let Some(to) = Square::new(to) {
            list.push(Move::new(from, to));
        }
    }
}

impl Xiangqi {
    fn in_check(&self) -> bool {
        let us = self.board.turn.index();
        attacked(&self.board.sq, self.board.kings[us] as usize, 1 - us)
    }
}

/// Removes the pseudo-legal moves that leave the mover's general attacked.
///
/// `legal_after(board, king)` is the full test on the board after a move; `uncovered(board,
/// king, square)` tests only the attacks whose path crosses one square. When the mover is not
/// in check, a move that does not touch the general can only expose it along lines through
/// its two squares, and one that touches none of the general's sensitive squares not at all.
pub(crate) fn filter_legal(
    b: &Board,
    list: &mut MoveList,
    in_check: bool,
    sensitive: &[u128; 90],
    must_test_all: bool,
    legal_after: impl Fn(&[u8; 90], usize) -> bool,
    uncovered: impl Fn(&[u8; 90], usize, usize) -> bool,
) {
    let us = b.turn.index();
    let king = b.kings[us] as usize;
    let sens = sensitive[king];
    let full = in_check || must_test_all;
    let mut work = b.sq;
    let mut i = 0;
    while i < list.len() {
        let m = list.as_slice()[i];
        if m.is_pass() {
            i += 1;
            continue;
        }
        let (from, to) = (m.origin_index(), m.target_index());
        let king_moves = from == king;
        if !full && !king_moves && (sens >> from) & 1 == 0 && (sens >> to) & 1 == 0 {
            i += 1;
            continue;
        }
        let (moved, captured) = (work[from], work[to]);
        work[to] = moved;
        work[from] = 0;
        let ok = if full || king_moves {
            legal_after(&work, if king_moves { to } else { king })
        } else {
            !uncovered(&work, king, from) && !uncovered(&work, king, to)
        };
        work[from] = moved;
        work[to] = captured;
        if ok {
            i += 1;
        } else {
            list.swap_remove(i);
        }
    }
}

impl Xiangqi {
    /// The legal moves of the pieces among `pieces` (a square set).
    #[inline]
    fn legal_moves_of(&self, pieces: u128) -> MoveList {
        let mut list = MoveList::new();
        pseudo_moves(&self.board, pieces, &mut list);
        let them = self.board.turn.other().index();
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

impl Position for Xiangqi {
    const VARIANT: Variant = Variant::Xiangqi;

    fn from_setup(setup: &Setup) -> Result<Self, PositionError> {
        validate_common(setup)?;
        let pos = Xiangqi {
            board: Board::from_setup(setup, Variant::Xiangqi),
        };
        let them = pos.board.turn.other().index();
        if attacked(&pos.board.sq, pos.board.kings[them] as usize, 1 - them) {
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

    /// Only the moved piece's moves are generated and tested.
    fn is_legal(&self, m: Move) -> bool {
        m.from()
            .is_some_and(|from| self.legal_moves_of(1 << from.index()).contains(m))
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
                winner: self.board.turn.other(),
            },
        })
    }
}

fn in_own_palace(sq: Square, color: Color) -> bool {
    let ranks = if color == Color::First { 0..=2 } else { 7..=9 };
    (3..=5).contains(&sq.file()) && ranks.contains(&sq.rank())
}

/// Checks shared by both games: exactly one general per side, inside its palace. Other
/// pieces may stand anywhere (real endgame studies do odd things, and nothing breaks).
pub(crate) fn validate_common(setup: &Setup) -> Result<(), PositionError> {
    for color in Color::ALL {
        let mut kings = setup
            .board
            .iter()
            .enumerate()
            .filter(|(_, p)| **p == Some(Piece::new(color, Role::King)))
            .filter_map(|(i, _)| Square::new(i as u8));
        match (kings.next(), kings.next()) {
            (None, _) => return Err(PositionError::MissingKing(color)),
            (Some(_), Some(_)) => return Err(PositionError::TooManyKings(color)),
            (Some(k), None) if !in_own_palace(k, color) => {
                return Err(PositionError::KingOutsidePalace(color))
            }
            _ => {}
        }
    }
    Ok(())
}
