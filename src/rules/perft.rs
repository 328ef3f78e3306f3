//! Perft: counting the leaves of the legal-move tree, the standard test of a move generator.

use super::{position::Position, types::Move};

/// Leaf count of the legal-move tree to `depth`. With `bulk`, the last ply is counted from
/// the length of the move list instead of playing each move.
///
/// ```
/// use qipu::rules::{perft, Position, Xiangqi};
/// assert_eq!(perft(&Xiangqi::new(), 2, true), 1920);
/// assert_eq!(perft(&Xiangqi::new(), 2, false), 1920);
/// ```
pub fn perft<P: Position>(pos: &P, depth: u32, bulk: bool) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = pos.legal_moves();
    if depth == 1 && bulk {
        return moves.len() as u64;
    }
    let mut total = 0;
    for &m in moves.iter() {
        let mut child = pos.clone();
        child.play_unchecked(m);
        total += perft(&child, depth - 1, bulk);
    }
    total
}

/// Perft split by root move, sorted by move text: each root move with the leaf count of its
/// subtree, so that the counts add up to `perft(pos, depth, bulk)`. Empty at depth 0 (the one
/// leaf is the root itself).
///
/// ```
/// use qipu::rules::{divide, perft, Position, Xiangqi};
/// let pos = Xiangqi::new();
/// let split = divide(&pos, 2, true);
/// assert_eq!(split.len(), 44);
/// assert_eq!(split.iter().map(|(_, n)| n).sum::<u64>(), perft(&pos, 2, true));
/// ```
pub fn divide<P: Position>(pos: &P, depth: u32, bulk: bool) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    let mut out: Vec<(Move, u64)> = pos
        .legal_moves()
        .iter()
        .map(|&m| {
            let mut child = pos.clone();
            child.play_unchecked(m);
            (m, perft(&child, depth - 1, bulk))
        })
        .collect();
    out.sort_by_key(|(m, _)| m.to_string());
    out
}
