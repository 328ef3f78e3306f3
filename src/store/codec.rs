//! Small value codecs: variants, results, packed move lists and the content hash.

use crate::rules::{Color, Move, Outcome, Variant};

/// The `mv` code meaning "the game ended in this position" (not a valid [`Move`] code).
pub const END_OF_GAME: u16 = 0xffff;

pub(super) fn variant_code(v: Variant) -> i64 {
    match v {
        Variant::Xiangqi => 0,
        Variant::Janggi => 1,
    }
}

pub(super) fn variant_from_code(c: i64) -> Option<Variant> {
    match c {
        0 => Some(Variant::Xiangqi),
        1 => Some(Variant::Janggi),
        _ => None,
    }
}

pub(super) fn result_code(r: Option<Outcome>) -> i64 {
    match r {
        None => 0,
        Some(Outcome::Decisive {
            winner: Color::First,
        }) => 1,
        Some(Outcome::Draw) => 2,
        Some(Outcome::Decisive {
            winner: Color::Second,
        }) => 3,
    }
}

pub(super) fn result_from_code(c: i64) -> Option<Outcome> {
    match c {
        1 => Some(Outcome::Decisive {
            winner: Color::First,
        }),
        2 => Some(Outcome::Draw),
        3 => Some(Outcome::Decisive {
            winner: Color::Second,
        }),
        _ => None,
    }
}

/// Moves as little-endian u16 codes.
pub(super) fn pack_moves(moves: &[Move]) -> Vec<u8> {
    moves
        .iter()
        .flat_map(|m| m.to_u16().to_le_bytes())
        .collect()
}

/// The inverse of [`pack_moves`]; `None` if a code is not a move.
pub(super) fn unpack_moves(blob: &[u8]) -> Option<Vec<Move>> {
    if blob.len() % 2 != 0 {
        return None;
    }
    blob.chunks_exact(2)
        .map(|c| Move::from_u16(u16::from_le_bytes([c[0], c[1]])))
        .collect()
}

/// FNV-1a over bytes, finished with a splitmix64 mix: stable across builds and platforms
/// (unlike `std`'s hasher), so stored hashes stay valid.
pub(super) struct StableHasher(u64);

impl StableHasher {
    pub(super) fn new() -> StableHasher {
        StableHasher(0xcbf2_9ce4_8422_2325)
    }
    pub(super) fn bytes(&mut self, b: &[u8]) {
        for &x in b {
            self.0 ^= u64::from(x);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    fn field(&mut self, s: Option<&str>) {
        match s {
            None => self.bytes(&[0]),
            Some(s) => {
                self.bytes(&[1]);
                self.bytes(&(s.len() as u64).to_le_bytes());
                self.bytes(s.as_bytes());
            }
        }
    }
    pub(super) fn finish(self) -> u64 {
        let mut z = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// The content hash of a game, for duplicate detection: variant, start position (as FEN of
/// the board and side to move), the moves, the players and date when known, and the result
/// (since schema 6: so that two records of one hash are always the same game by
/// `store::copies`'s rule too).
///
/// ```
/// use qipu::rules::{Move, Outcome, Variant};
/// use qipu::store::content_hash;
/// let m: Move = "h2e2".parse().unwrap();
/// let a = content_hash(Variant::Xiangqi, "start", &[m], Some("A"), None, None, None);
/// assert_eq!(a, content_hash(Variant::Xiangqi, "start", &[m], Some("A"), None, None, None));
/// assert_ne!(a, content_hash(Variant::Xiangqi, "start", &[m], Some("B"), None, None, None));
/// assert_ne!(a, content_hash(Variant::Janggi, "start", &[m], Some("A"), None, None, None));
/// assert_ne!(a, content_hash(Variant::Xiangqi, "start", &[m], Some("A"), None, None, Some(Outcome::Draw)));
/// ```
pub fn content_hash(
    variant: Variant,
    start: &str,
    moves: &[Move],
    first: Option<&str>,
    second: Option<&str>,
    date: Option<&str>,
    result: Option<Outcome>,
) -> u64 {
    let mut h = StableHasher::new();
    h.bytes(variant.name().as_bytes());
    h.field(Some(start));
    h.bytes(&(moves.len() as u64).to_le_bytes());
    for m in moves {
        h.bytes(&m.to_u16().to_le_bytes());
    }
    h.field(first);
    h.field(second);
    h.field(date);
    h.bytes(&[result_code(result) as u8]);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_round_trip_and_garbage_is_rejected() {
        let moves: Vec<Move> = ["h2e2", "h9g7", "pass"]
            .iter()
            .map(|s| s.parse().unwrap())
            .collect();
        assert_eq!(unpack_moves(&pack_moves(&moves)), Some(moves));
        assert_eq!(unpack_moves(&[1]), None);
        assert_eq!(unpack_moves(&[0xff, 0xff]), None);
    }

    #[test]
    fn results_round_trip() {
        for r in [
            None,
            Some(Outcome::Draw),
            Some(Outcome::Decisive {
                winner: Color::First,
            }),
            Some(Outcome::Decisive {
                winner: Color::Second,
            }),
        ] {
            assert_eq!(result_from_code(result_code(r)), r);
        }
    }
}
