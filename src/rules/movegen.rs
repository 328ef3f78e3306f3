//! Move-generation helpers both games share: rays, table steps, the horse's leg, the
//! legality filter that tests only the moves able to expose the general, and the setup checks
//! common to Xiangqi and Janggi. Each game's own pieces and attacks stay in `xiangqi.rs` and
//! `janggi.rs`. Like the rest of `rules/`, this knows nothing outside the module.

use super::{
    board::Board,
    position::{MoveList, PositionError},
    setup::Setup,
    tables::{Steps, HORSE_FROM, NONE, RAYS, RAY_LEN},
    types::{code, Color, Move, Piece, Role, Square},
};

/// The next piece (internal code, 0 if none) along the orthogonal ray `d` from `k`, looking
/// from the ray's `start`-th square on, and the index just after it.
#[inline]
pub(super) fn next_on_ray(sq: &[u8; 90], k: usize, d: usize, start: usize) -> (u8, usize) {
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

/// Whether a horse of `them` attacks `k` through the leg `leg` (any leg if `None`).
#[inline]
pub(super) fn horse_attack(sq: &[u8; 90], k: usize, them: usize, leg: Option<usize>) -> bool {
    let horse = code(them, Role::Horse);
    let h = &HORSE_FROM[k];
    (0..h.len as usize).any(|i| {
        let l = h.block[i][0] as usize;
        leg.is_none_or(|x| x == l) && sq[h.to[i] as usize] == horse && sq[l] == 0
    })
}

/// The orthogonal ray of `k` that contains `x`, if any.
#[inline]
pub(super) fn direction(k: usize, x: usize) -> Option<usize> {
    if k % 9 == x % 9 {
        Some(if x > k { 0 } else { 1 })
    } else if k / 9 == x / 9 {
        Some(if x > k { 2 } else { 3 })
    } else {
        None
    }
}

/// Pushes the moves of a chariot along one ray: empty squares, then the first occupied one
/// if it holds an enemy piece.
#[inline]
pub(super) fn slide(ray: &[u8], sq: &[u8; 90], own: u128, from: Square, list: &mut MoveList) {
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
pub(super) fn steps<const N: usize>(
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

/// Removes the pseudo-legal moves that leave the mover's general attacked.
///
/// `legal_after(board, king)` is the full test on the board after a move; `uncovered(board,
/// king, square)` tests only the attacks whose path crosses one square. When the mover is not
/// in check, a move that does not touch the general can only expose it along lines through
/// its two squares, and one that touches none of the general's sensitive squares not at all.
pub(super) fn filter_legal(
    b: &Board,
    list: &mut MoveList,
    in_check: bool,
    sensitive: &[u128; 90],
    must_test_all: bool,
    legal_after: impl Fn(&[u8; 90], usize) -> bool,
    uncovered: impl Fn(&[u8; 90], usize, usize) -> bool,
) {
    let king = b.king_index(b.turn());
    let sens = sensitive[king];
    let full = in_check || must_test_all;
    let mut work = *b.squares();
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

fn in_own_palace(sq: Square, color: Color) -> bool {
    let ranks = if color == Color::First { 0..=2 } else { 7..=9 };
    (3..=5).contains(&sq.file()) && ranks.contains(&sq.rank())
}

/// Checks shared by both games: exactly one general per side, inside its palace. Other
/// pieces may stand anywhere (real endgame studies do odd things, and nothing breaks).
pub(super) fn validate_common(setup: &Setup) -> Result<(), PositionError> {
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
