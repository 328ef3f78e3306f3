//! What the benchmarks over generated games share (included by `mod common;`): a small
//! deterministic generator and games of random legal Xiangqi moves. No files needed.

#![allow(dead_code)]

use qipu::{
    formats::{Game, MoveNode, Source},
    rules::{AnyPosition, Variant},
};

/// A xorshift generator: the same seed gives the same games on every machine.
pub struct XorShift(pub u64);

impl XorShift {
    /// A number below `k` (`k` > 0).
    pub fn below(&mut self, k: usize) -> usize {
        let s = &mut self.0;
        *s ^= *s << 13;
        *s ^= *s >> 7;
        *s ^= *s << 17;
        (*s % k as u64) as usize
    }
}

/// Game `index` of a generated corpus: `plies` random legal moves at most (fewer when the
/// game is over), the first 8 chosen among the `narrow` first legal moves (sorted) so that
/// openings are shared, as in real collections. No tags.
pub fn random_game(rnd: &mut XorShift, index: usize, plies: usize, narrow: usize) -> Game {
    let mut pos = AnyPosition::new(Variant::Xiangqi);
    let mut g = Game::new(
        Variant::Xiangqi,
        Source {
            file: "generated".into(),
            index,
        },
    );
    for ply in 0..plies {
        let mut legal = pos.legal_moves().to_vec();
        if legal.is_empty() {
            break;
        }
        legal.sort();
        let m = legal[rnd.below(if ply < 8 {
            legal.len().min(narrow)
        } else {
            legal.len()
        })];
        pos.play_unchecked(m);
        g.moves.push(MoveNode::new(m.to_string()));
    }
    g
}
