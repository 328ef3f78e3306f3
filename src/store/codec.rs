//! Small value codecs: variants, results, packed move lists (the `games.moves` line and the
//! plain u16 list) and the content hash.

use super::ranges::{BitReader, BitWriter};
use crate::rules::{AnyPosition, Color, Move, Outcome, Role, Square, Variant};

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

/// The `games.moves` format byte of a line of piece codes: each move as the moving piece's
/// index and its destination by the piece's role (see [`pack_line`]).
const LINE_PIECE_CODES: u8 = 2;
/// The `games.moves` format byte of a line of u16 codes, for a line with a move the piece
/// codes cannot write (no own piece on its from-square, or a step its piece does not take).
const LINE_CODES: u8 = 1;

/// The longest line written as piece codes (a move can take few bits, so a corrupt count is
/// bounded by this, not by the blob's length).
const MAX_CODED: usize = 1 << 16;

/// Bits an index among `n` choices takes: 0 for one choice, else ⌈log₂ n⌉.
fn index_bits(n: usize) -> u32 {
    if n <= 1 {
        0
    } else {
        usize::BITS - (n - 1).leading_zeros()
    }
}

const ORTH1: [(i8, i8); 4] = [(0, 1), (0, -1), (1, 0), (-1, 0)];
const DIAG1: [(i8, i8); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];
const DIAG2: [(i8, i8); 4] = [(2, 2), (2, -2), (-2, 2), (-2, -2)];
const HORSE: [(i8, i8); 8] = [
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
];
const JANGGI_ELEPHANT: [(i8, i8); 8] = [
    (2, 3),
    (3, 2),
    (3, -2),
    (2, -3),
    (-2, -3),
    (-3, -2),
    (-3, 2),
    (-2, 3),
];

/// How a piece's destination is written: the (file, rank) steps it may take, by code (one
/// table, then another), and for a rook or cannon first its line (codes 0–8 a file of its
/// rank, 9–18 a rank of its file), the steps after.
struct Reach {
    line: bool,
    steps: [&'static [(i8, i8)]; 2],
}

impl Reach {
    fn of(janggi: bool, role: Role) -> Reach {
        let (line, steps): (bool, [&'static [(i8, i8)]; 2]) = match (janggi, role) {
            (false, Role::King | Role::Pawn) => (false, [&ORTH1, &[]]),
            (false, Role::Advisor) => (false, [&DIAG1, &[]]),
            (false, Role::Elephant) => (false, [&DIAG2, &[]]),
            (_, Role::Horse) => (false, [&HORSE, &[]]),
            (false, Role::Rook | Role::Cannon) => (true, [&[], &[]]),
            (true, Role::King | Role::Advisor | Role::Pawn) => (false, [&ORTH1, &DIAG1]),
            (true, Role::Elephant) => (false, [&JANGGI_ELEPHANT, &[]]),
            (true, Role::Rook | Role::Cannon) => (true, [&DIAG1, &DIAG2]),
        };
        Reach { line, steps }
    }

    fn steps(&self) -> impl Iterator<Item = &(i8, i8)> {
        self.steps[0].iter().chain(self.steps[1])
    }

    fn codes(&self) -> usize {
        usize::from(self.line) * 19 + self.steps[0].len() + self.steps[1].len()
    }

    fn code_of(&self, from: Square, to: Square) -> Option<usize> {
        let base = if self.line {
            if to.rank() == from.rank() {
                return Some(usize::from(to.file()));
            }
            if to.file() == from.file() {
                return Some(9 + usize::from(to.rank()));
            }
            19
        } else {
            0
        };
        let d = (
            to.file() as i8 - from.file() as i8,
            to.rank() as i8 - from.rank() as i8,
        );
        self.steps().position(|&s| s == d).map(|i| base + i)
    }

    fn target(&self, from: Square, code: usize) -> Option<Square> {
        let code = if self.line {
            match code {
                0..9 => return Square::from_coords(code as u8, from.rank()),
                9..19 => return Square::from_coords(from.file(), code as u8 - 9),
                _ => code - 19,
            }
        } else {
            code
        };
        let (df, dr) = *self.steps().nth(code)?;
        let f = u8::try_from(from.file() as i8 + df).ok()?;
        let r = u8::try_from(from.rank() as i8 + dr).ok()?;
        Square::from_coords(f, r)
    }
}

/// What the line codec follows of a position: each square's piece and the side to move
/// (no legality: a move is written by where its piece stands and where it goes).
struct Squares {
    role: [Option<Role>; 90],
    /// Occupancy by colour: `[first, second]`, bit = square index.
    by: [u128; 2],
    second_to_move: bool,
    janggi: bool,
}

impl Squares {
    fn of(start: &AnyPosition) -> Squares {
        let board = start.board();
        let mut s = Squares {
            role: [None; 90],
            by: [0; 2],
            second_to_move: board.turn() == Color::Second,
            janggi: start.variant() == Variant::Janggi,
        };
        for (sq, p) in board.pieces() {
            s.role[sq.index()] = Some(p.role);
            s.by[usize::from(p.color == Color::Second)] |= 1u128 << sq.index();
        }
        s
    }

    fn own(&self) -> u128 {
        self.by[usize::from(self.second_to_move)]
    }

    /// Choices of the piece to move: the own pieces, and in Janggi the pass after them.
    fn pieces(&self) -> usize {
        self.own().count_ones() as usize + usize::from(self.janggi)
    }

    fn play(&mut self, from: Square, to: Square) {
        let (f, t) = (from.index(), to.index());
        let side = usize::from(self.second_to_move);
        self.role[t] = self.role[f].take();
        self.by[side] = self.by[side] & !(1u128 << f) | 1u128 << t;
        self.by[1 - side] &= !(1u128 << t);
        self.second_to_move = !self.second_to_move;
    }

    /// (piece choice, its count; destination code, its count) of a move, `None` if it
    /// cannot be written so.
    fn code(&self, m: Move) -> Option<(usize, usize, usize, usize)> {
        let pieces = self.pieces();
        if m.is_pass() {
            return self.janggi.then_some((pieces - 1, pieces, 0, 1));
        }
        let (from, to) = (m.from()?, m.to()?);
        let own = self.own();
        if own >> from.index() & 1 == 0 {
            return None;
        }
        let reach = Reach::of(self.janggi, self.role[from.index()]?);
        let piece = (own & ((1u128 << from.index()) - 1)).count_ones() as usize;
        Some((piece, pieces, reach.code_of(from, to)?, reach.codes()))
    }
}

/// Writes an index among `choices` in ⌈log₂ choices⌉ bits.
fn put_index(w: &mut BitWriter, value: usize, choices: usize) {
    w.put(value as u64, index_bits(choices));
}

/// Reads what [`put_index`] wrote; `None` past the end or for an index out of range.
fn get_index(r: &mut BitReader<'_>, choices: usize) -> Option<usize> {
    let v = usize::try_from(r.get(index_bits(choices))?).ok()?;
    (v < choices).then_some(v)
}

fn codes_blob(moves: &[Move]) -> Vec<u8> {
    let mut out = vec![LINE_CODES];
    out.extend(pack_moves(moves));
    odd(out)
}

/// A main line as the `games.moves` blob (schema 12): the format byte 2, varint plies, then
/// each move as the piece it moves and where it goes, in bits from the lowest of each byte
/// up, padded with 0 bits to a whole byte:
///
/// - the piece: its index among the side to move's pieces in square order (`a0`, `b0`, …,
///   `i9`), in ⌈log₂ n⌉ bits for n choices; in Janggi the pass is the choice after the
///   last piece;
/// - where it goes (none for a pass), by the piece's role in ⌈log₂ n⌉ bits for its n
///   codes: a rook or cannon a file of its rank (0–8) or a rank of its file (9–18), then in
///   Janggi the palace diagonals (1,1) (1,−1) (−1,1) (−1,−1) (2,2) (2,−2) (−2,2) (−2,−2);
///   the other pieces the index of their (file, rank) step: Xiangqi king and pawn
///   (0,1) (0,−1) (1,0) (−1,0), advisor the four (±1,±1) and elephant the four (±2,±2) in
///   that order, horse (1,2) (2,1) (2,−1) (1,−2) (−1,−2) (−2,−1) (−2,1) (−1,2) in both
///   games, Janggi king, advisor and pawn the four orthogonal then the four diagonal steps,
///   Janggi elephant (2,3) (3,2) (3,−2) (2,−3) (−2,−3) (−3,−2) (−3,2) (−2,3).
///
/// No legality is tested (writing and reading follow the pieces only, a few nanoseconds a
/// ply): about 7.5 bits a ply instead of 16. A line with a move that cannot be written so
/// (no own piece on its square, a step its piece does not take) is the format byte 1 and
/// the moves as u16 codes. The blob's length is always odd (a 0 byte is added to an even
/// one): a blob of even length is the u16 list of schemas 1–11 ([`pack_moves`]), which
/// [`unpack_line`] reads too.
pub(super) fn pack_line(start: &AnyPosition, moves: &[Move]) -> Vec<u8> {
    if moves.len() > MAX_CODED {
        return codes_blob(moves);
    }
    let mut w = BitWriter::default();
    let mut sq = Squares::of(start);
    for &m in moves {
        let Some((piece, pieces, to, tos)) = sq.code(m) else {
            return codes_blob(moves);
        };
        put_index(&mut w, piece, pieces);
        put_index(&mut w, to, tos);
        if let (Some(f), Some(t)) = (m.from(), m.to()) {
            sq.play(f, t);
        } else {
            sq.second_to_move = !sq.second_to_move;
        }
    }
    let mut out = vec![LINE_PIECE_CODES];
    super::varint::put(&mut out, moves.len() as u64);
    out.extend(w.finish());
    odd(out)
}

/// The square index of the `n`-th (from 0) set bit of `bits`, lowest first; `None` if it
/// has `n` or fewer set bits.
fn nth_set_bit(mut bits: u128, n: usize) -> Option<u8> {
    for _ in 0..n {
        if bits == 0 {
            return None;
        }
        bits &= bits - 1;
    }
    (bits != 0).then(|| bits.trailing_zeros() as u8)
}

fn odd(mut blob: Vec<u8>) -> Vec<u8> {
    if blob.len() % 2 == 0 {
        blob.push(0);
    }
    blob
}

/// The inverse of [`pack_line`] (a blob of even length: [`unpack_moves`]); `None` if the
/// blob is not a line from `start`.
pub(super) fn unpack_line(start: &AnyPosition, blob: &[u8]) -> Option<Vec<Move>> {
    if blob.len() % 2 == 0 {
        return unpack_moves(blob);
    }
    match blob[0] {
        LINE_CODES => unpack_moves(&blob[1..]),
        LINE_PIECE_CODES => {
            let mut r = super::varint::Reader::new(&blob[1..], "moves");
            let plies: usize = r.int().ok()?;
            if plies > MAX_CODED {
                return None;
            }
            let mut bits = BitReader::new(&blob[1 + r.offset()..]);
            let mut moves = Vec::with_capacity(plies);
            let mut sq = Squares::of(start);
            for _ in 0..plies {
                let pieces = sq.pieces();
                let piece = get_index(&mut bits, pieces)?;
                if sq.janggi && piece == pieces - 1 {
                    moves.push(Move::PASS);
                    sq.second_to_move = !sq.second_to_move;
                    continue;
                }
                let from = Square::new(nth_set_bit(sq.own(), piece)?)?;
                let reach = Reach::of(sq.janggi, sq.role[from.index()]?);
                let to = reach.target(from, get_index(&mut bits, reach.codes())?)?;
                moves.push(Move::new(from, to));
                sq.play(from, to);
            }
            Some(moves)
        }
        _ => None,
    }
}

/// A stored game's `games.moves` blob from its variant, start FEN (`None`: the standard
/// start) and moves ([`pack_line`]; u16 codes if the start cannot be read).
pub(super) fn stored_blob(variant: Variant, fen: Option<&str>, moves: &[Move]) -> Vec<u8> {
    let start = match fen {
        None => AnyPosition::new(variant),
        Some(f) => match AnyPosition::from_fen(variant, f) {
            Ok(p) => p,
            Err(_) => return codes_blob(moves),
        },
    };
    pack_line(&start, moves)
}

/// The moves of a stored game from its variant, start FEN (`None`: the standard start) and
/// `games.moves` blob; `None` if the start or the blob is bad.
pub(super) fn stored_line(variant: Variant, fen: Option<&str>, blob: &[u8]) -> Option<Vec<Move>> {
    let start = match fen {
        None => AnyPosition::new(variant),
        Some(f) => AnyPosition::from_fen(variant, f).ok()?,
    };
    unpack_line(&start, blob)
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

    /// A line of random legal moves, from a seeded generator (not from the codec).
    fn random_line(variant: Variant, seed: u64, plies: usize) -> Vec<Move> {
        let mut pos = AnyPosition::new(variant);
        let mut x = seed;
        let mut line = Vec::new();
        for _ in 0..plies {
            let legal = pos.legal_moves();
            if legal.is_empty() {
                break;
            }
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let m = legal.as_slice()[(x >> 33) as usize % legal.len()];
            pos.play_unchecked(m);
            line.push(m);
        }
        line
    }

    #[test]
    fn lines_round_trip_in_about_a_byte_a_ply() {
        for variant in Variant::ALL {
            let mut bytes = 0;
            let mut plies = 0;
            for seed in 0..50 {
                let line = random_line(variant, seed, 120);
                let blob = stored_blob(variant, None, &line);
                assert_eq!(blob[0], LINE_PIECE_CODES);
                assert_eq!(blob.len() % 2, 1);
                assert_eq!(stored_line(variant, None, &blob), Some(line.clone()));
                bytes += blob.len();
                plies += line.len();
            }
            // At most 4 bits for the piece (5 with Janggi's pass) and 5 for where it goes,
            // most moves fewer: under 8.5 bits a ply with the header.
            assert!(
                bytes * 16 < plies * 17,
                "{variant:?}: {bytes} bytes for {plies} plies"
            );
        }
        let empty = stored_blob(Variant::Xiangqi, None, &[]);
        assert_eq!(
            stored_line(Variant::Xiangqi, None, &empty),
            Some(Vec::new())
        );
    }

    #[test]
    fn a_line_with_an_illegal_move_is_kept_as_codes_and_old_blobs_still_read() {
        let line: Vec<Move> = ["h2e2", "h2e2", "h9g7"]
            .iter()
            .map(|s| s.parse().unwrap())
            .collect();
        let blob = stored_blob(Variant::Xiangqi, None, &line);
        assert_eq!(blob[0], LINE_CODES);
        assert_eq!(
            stored_line(Variant::Xiangqi, None, &blob),
            Some(line.clone())
        );
        // Schema 11's u16 list (even length) reads as before.
        assert_eq!(
            stored_line(Variant::Xiangqi, None, &pack_moves(&line)),
            Some(line.clone())
        );
        // A custom start: the piece codes count from it.
        let fen = "4k4/9/9/9/9/9/9/9/4A4/3AK4 w";
        let start = AnyPosition::from_fen(Variant::Xiangqi, fen).unwrap();
        let m = start.legal_moves().as_slice()[0];
        let blob = stored_blob(Variant::Xiangqi, Some(fen), &[m]);
        assert_eq!(blob[0], LINE_PIECE_CODES);
        assert_eq!(
            stored_line(Variant::Xiangqi, Some(fen), &blob),
            Some(vec![m])
        );
        // Garbage is refused, not misread.
        assert_eq!(stored_line(Variant::Xiangqi, None, &[7]), None);
        assert_eq!(
            stored_line(Variant::Xiangqi, None, &[LINE_PIECE_CODES, 9, 0]),
            None
        );
        assert_eq!(
            stored_line(Variant::Xiangqi, None, &[LINE_PIECE_CODES, 0xff]),
            None
        );
    }

    #[test]
    fn nth_set_bit_counts_from_the_lowest_and_stops_at_the_last() {
        let bits: u128 = 0b1011_0100 | 1 << 89;
        assert_eq!(nth_set_bit(bits, 0), Some(2));
        assert_eq!(nth_set_bit(bits, 1), Some(4));
        assert_eq!(nth_set_bit(bits, 3), Some(7));
        assert_eq!(nth_set_bit(bits, 4), Some(89));
        assert_eq!(nth_set_bit(bits, 5), None);
        assert_eq!(nth_set_bit(0, 0), None);
    }

    /// Random bytes after the piece-codes format byte never panic the reader (a debug build
    /// checks every subtraction) and never read more plies than the blob announces.
    #[test]
    fn random_piece_code_blobs_are_read_or_refused_without_panic() {
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for variant in [Variant::Xiangqi, Variant::Janggi] {
            for _ in 0..20_000 {
                let len = 1 + 2 * (next() % 24) as usize;
                let mut blob: Vec<u8> = (0..len).map(|_| next() as u8).collect();
                blob[0] = LINE_PIECE_CODES;
                if let Some(moves) = stored_line(variant, None, &blob) {
                    let plies = super::super::varint::Reader::new(&blob[1..], "moves")
                        .int::<usize>()
                        .unwrap();
                    assert_eq!(moves.len(), plies);
                }
            }
        }
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
