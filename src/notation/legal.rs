//! A single-move legality test for Xiangqi, so that resolving one written move does not need
//! the position's whole legal-move list: the move's shape is checked here, the safety of the
//! general by the rules core's attack test. A test compares it with `legal_moves` for every
//! origin/destination pair of the reference positions.

use crate::rules::{Board, Color, Move, Role};

#[inline]
fn at(sq: &[u8; 90], f: i8, r: i8) -> u8 {
    if (0..9).contains(&f) && (0..10).contains(&r) {
        sq[(r * 9 + f) as usize]
    } else {
        0
    }
}

#[inline]
fn color_of(c: u8) -> Option<Color> {
    match c {
        1..=7 => Some(Color::First),
        8..=14 => Some(Color::Second),
        _ => None,
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

/// Whether a move is legal in a Xiangqi position.
pub(crate) fn xiangqi(board: &Board, m: Move) -> bool {
    let (Some(from), Some(to)) = (m.from(), m.to()) else {
        return false;
    };
    let sq = &board.sq;
    let us = board.turn();
    let moved = sq[from.index()];
    let captured = sq[to.index()];
    if color_of(moved) != Some(us) || color_of(captured) == Some(us) {
        return false;
    }
    let role = Role::ALL[usize::from((moved - 1) % 7)];
    let (f0, r0) = (from.file() as i8, from.rank() as i8);
    let (f1, r1) = (to.file() as i8, to.rank() as i8);
    let (df, dr) = (f1 - f0, r1 - r0);
    let fwd = match us {
        Color::First => 1,
        Color::Second => -1,
    };
    let shape = match role {
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
            (df == 0) != (dr == 0)
                && between(sq, (f0, r0), (f1, r1)) == if captured == 0 { 0 } else { 1 }
        }
        Role::Pawn => {
            let crossed = match us {
                Color::First => r0 >= 5,
                Color::Second => r0 <= 4,
            };
            (df == 0 && dr == fwd) || (dr == 0 && df.abs() == 1 && crossed)
        }
    };
    if !shape {
        return false;
    }
    let mut after = *sq;
    after[to.index()] = moved;
    after[from.index()] = 0;
    let Some(king) = (if role == Role::King {
        Some(to)
    } else {
        board.king(us)
    }) else {
        return false;
    };
    !crate::rules::xiangqi_attacked(&after, king.index(), us.other().index())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{AnyPosition, Square, Variant};

    /// Every origin/destination pair of a position: the direct test agrees with the list.
    fn agrees(pos: &AnyPosition) -> usize {
        let legal = pos.legal_moves();
        let mut n = 0;
        for a in 0..90u8 {
            for b in 0..90u8 {
                let (Some(f), Some(t)) = (Square::new(a), Square::new(b)) else {
                    continue;
                };
                if f == t {
                    continue;
                }
                let m = Move::new(f, t);
                assert_eq!(
                    xiangqi(pos.board(), m),
                    legal.contains(m),
                    "{m} in {}",
                    pos.fen()
                );
                n += 1;
            }
        }
        n
    }

    #[test]
    fn direct_test_matches_legal_moves_on_fixtures() {
        let text = include_str!("../../tests/data/notation/positions.txt");
        let mut n = 0;
        for line in text.lines().filter(|l| l.starts_with("xiangqi\t")) {
            let fen = &line["xiangqi\t".len()..];
            let pos = AnyPosition::from_fen(Variant::Xiangqi, fen).unwrap();
            n += agrees(&pos);
        }
        assert!(n > 1_000_000);
    }

    #[test]
    #[ignore = "needs ../shared (run by .ci/run)"]
    fn direct_test_matches_legal_moves_on_all_oracle_positions() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/oracle");
        let dir = std::env::var_os("QIPU_SHARED")
            .map(|s| std::path::PathBuf::from(s).join("oracle"))
            .unwrap_or(dir);
        if !dir.is_dir() {
            eprintln!("skipping: ../shared not found");
            return;
        }
        for file in ["xiangqi-positions.jsonl", "xiangqi-endgame-positions.jsonl"] {
            let text = std::fs::read_to_string(dir.join(file)).unwrap();
            for line in text.lines() {
                let v: serde_json::Value = serde_json::from_str(line).unwrap();
                if let Ok(pos) = AnyPosition::from_fen(Variant::Xiangqi, v["fen"].as_str().unwrap())
                {
                    agrees(&pos);
                }
            }
        }
    }
}
