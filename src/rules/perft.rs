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

/// Perft split by root move, sorted by move text.
pub fn divide<P: Position>(pos: &P, depth: u32) -> Vec<(Move, u64)> {
    let mut out: Vec<(Move, u64)> = pos
        .legal_moves()
        .iter()
        .map(|&m| {
            let mut child = pos.clone();
            child.play_unchecked(m);
            (
                m,
                if depth == 0 {
                    1
                } else {
                    perft(&child, depth - 1, true)
                },
            )
        })
        .collect();
    out.sort_by_key(|(m, _)| m.to_string());
    out
}
