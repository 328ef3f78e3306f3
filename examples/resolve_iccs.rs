//! ICCS move resolution, for instruction counts (`scripts/bench-seams.sh` runs it under
//! callgrind): every legal move of every Xiangqi fixture position
//! (tests/data/notation/positions.txt) is rendered in ICCS once, then read back and
//! resolved to a legal move `rounds` times (the first argument, default 20). Prints the
//! moves resolved; the cost of one is the difference of two runs' counts divided by the
//! difference of their moves. Uses only API that also existed before the seams (e4cded2).

use qipu::notation::{parse_move, render, Notation};
use qipu::rules::{AnyPosition, Variant};
use std::hint::black_box;

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(20);
    let positions: Vec<AnyPosition> = include_str!("../tests/data/notation/positions.txt")
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_once('\t'))
        .filter(|(v, _)| v.parse::<Variant>().ok() == Some(Variant::Xiangqi))
        .filter_map(|(_, fen)| AnyPosition::from_fen(Variant::Xiangqi, fen).ok())
        .collect();
    let mut cases = Vec::new();
    for (i, p) in positions.iter().enumerate() {
        for &m in p.legal_moves().iter() {
            cases.push((i, render(p, m, Notation::Iccs), m));
        }
    }
    let mut resolved = 0usize;
    for _ in 0..rounds {
        for (i, text, m) in &cases {
            resolved += usize::from(parse_move(&positions[*i], black_box(text)) == Ok(*m));
        }
    }
    assert_eq!(resolved, rounds * cases.len(), "a move did not read back");
    println!("{resolved}");
}
