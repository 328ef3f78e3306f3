//! ElephantEye `BOOK.DAT` (象眼), read and written bit-exact. Xiangqi only.
//!
//! # Format (frozen by ElephantEye; see `shared/specs/books.md` §1)
//!
//! A flat file of 8-byte records, no header; record count = size / 8. Each record is
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | u32 little-endian | lock: the position's 32-bit Zobrist lock (`dwLock1`), side to move included |
//! | 4 | u16 little-endian | move: `src | dst << 8`, 16×16 squares ([`super::board16`]) |
//! | 6 | u16 little-endian | weight, ≥ 1 |
//!
//! Records are sorted by the lock as an unsigned number; a reader only relies on the records of
//! one lock being adjacent. The writer orders by (lock1, lock0, move) as MAKEBOOK does.
//!
//! **Keys.** The tables come from RC4 with an all-zero key: after the key schedule, each
//! `u32` is 4 output bytes assembled little-endian; each Zobrist entry draws three of them in
//! the order `key`, `lock0`, `lock1`. First the side entry, then `table[piece][square]` for
//! piece 0..14 and every square 0..256 (on the board or not). The lock of a position is the XOR
//! of `table[piece][square].lock1` over its pieces, XORed with the side entry's `lock1` when
//! Black is to move. `lock0` is built the same way; it is not stored, only used to order
//! positions and to choose the stored orientation.
//!
//! **Mirror folding** (MAKEBOOK): a position and its left-right mirror are compared by
//! (lock1, lock0) as unsigned pairs; the smaller is stored, with the move mirrored when the
//! mirror was smaller; a symmetric position stores both the move and its mirror. A reader that
//! finds no record for a position looks up its mirror and mirrors the moves back.
//!
//! **Weights** (MAKEBOOK, [`super::Weights::Eleeye`]): every ply of every game adds win 3 /
//! draw 1 / loss −1 for the side to move; a (position, move) is written when its sum reaches the
//! ratio (4 by default), with weight = sum / ratio. ElephantEye's u16 would wrap above 65,535;
//! qipu clamps weights to 65,535.
//!
//! ```
//! use qipu::book::eleeye;
//! use qipu::rules::{AnyPosition, Move, Variant};
//! let mut pos = AnyPosition::new(Variant::Xiangqi);
//! assert_eq!(eleeye::lock(pos.board()), 0x052656d5);
//! let h2e2: Move = "h2e2".parse()?;
//! assert_eq!(eleeye::encode_move(h2e2), Some(0xa7aa));
//! pos.play(h2e2)?;
//! assert_eq!(eleeye::lock(pos.board()), 0xeb505d7d);
//! # Ok::<_, Box<dyn std::error::Error>>(())
//! ```

use std::{io::Write, sync::OnceLock};

use super::{
    board16,
    build::{BuiltBook, KeyScheme},
    probed::{lookup_with_mirror, ProbeMove, Probed, RawRecord},
    BookError, Format,
};
use crate::rules::{AnyPosition, Board, Color, Move, Variant};

/// Size of a record in bytes.
pub const RECORD_SIZE: usize = 8;

/// ElephantEye's RC4 stream with an all-zero key.
struct Rc4 {
    s: [u8; 256],
    x: u8,
    y: u8,
}

impl Rc4 {
    fn zero_key() -> Rc4 {
        let mut s = [0u8; 256];
        for (i, v) in s.iter_mut().enumerate() {
            *v = i as u8;
        }
        let mut j = 0u8;
        for i in 0..256 {
            // every key byte is 0
            j = j.wrapping_add(s[i]);
            s.swap(i, j as usize);
        }
        Rc4 { s, x: 0, y: 0 }
    }

    fn next_byte(&mut self) -> u8 {
        self.x = self.x.wrapping_add(1);
        self.y = self.y.wrapping_add(self.s[self.x as usize]);
        self.s.swap(self.x as usize, self.y as usize);
        let t = self.s[self.x as usize].wrapping_add(self.s[self.y as usize]);
        self.s[t as usize]
    }

    fn next_u32(&mut self) -> u32 {
        u32::from_le_bytes([
            self.next_byte(),
            self.next_byte(),
            self.next_byte(),
            self.next_byte(),
        ])
    }
}

/// One Zobrist entry: the key (unused by books), lock0 and lock1.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Zobrist {
    /// `dwKey`.
    pub key: u32,
    /// `dwLock0`.
    pub lock0: u32,
    /// `dwLock1`, the lock stored in `BOOK.DAT`.
    pub lock1: u32,
}

struct Tables {
    player: Zobrist,
    table: Vec<[Zobrist; 256]>,
}

fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| {
        let mut rc4 = Rc4::zero_key();
        let mut draw = || Zobrist {
            key: rc4.next_u32(),
            lock0: rc4.next_u32(),
            lock1: rc4.next_u32(),
        };
        let player = draw();
        let table = (0..14)
            .map(|_| {
                let mut row = [Zobrist::default(); 256];
                for z in row.iter_mut() {
                    *z = draw();
                }
                row
            })
            .collect();
        Tables { player, table }
    })
}

/// The side-to-move entry (`zobrPlayer`).
pub fn player_zobrist() -> Zobrist {
    tables().player
}

/// The entry of a piece index (0..14, see [`board16::piece`]) on a 16×16 square; `None` for a
/// piece index out of range.
pub fn piece_zobrist(piece: usize, square: u8) -> Option<Zobrist> {
    tables().table.get(piece).map(|row| row[square as usize])
}

/// (lock1, lock0) of a board, or of its left-right mirror.
pub fn locks(board: &Board, mirrored: bool) -> (u32, u32) {
    let t = tables();
    let (mut l1, mut l0) = (0u32, 0u32);
    for (p, sq) in board16::pieces(board, mirrored) {
        if let Some(row) = t.table.get(p) {
            let z = row[sq as usize];
            l1 ^= z.lock1;
            l0 ^= z.lock0;
        }
    }
    if board.turn() == Color::Second {
        l1 ^= t.player.lock1;
        l0 ^= t.player.lock0;
    }
    (l1, l0)
}

/// The 32-bit lock stored in `BOOK.DAT` for a position.
pub fn lock(board: &Board) -> u32 {
    locks(board, false).0
}

/// ElephantEye's move code `src | dst << 8`; `None` for a pass.
pub fn encode_move(m: Move) -> Option<u16> {
    let (from, to) = (m.from()?, m.to()?);
    Some(u16::from(board16::square(from)) | u16::from(board16::square(to)) << 8)
}

/// Reads an ElephantEye move code; `None` if a square is off the board or both are the same.
pub fn decode_move(code: u16) -> Option<Move> {
    let from = board16::from_square((code & 0xff) as u8)?;
    let to = board16::from_square((code >> 8) as u8)?;
    (from != to).then(|| Move::new(from, to))
}

/// The key scheme of `BOOK.DAT`: (lock1, lock0), compared as MAKEBOOK compares them.
#[derive(Clone, Copy, Debug)]
pub struct EleeyeKeys;

impl KeyScheme for EleeyeKeys {
    type Key = (u32, u32);
    fn supports(variant: Variant) -> bool {
        variant == Variant::Xiangqi
    }
    fn key(pos: &AnyPosition) -> (u32, u32) {
        locks(pos.board(), false)
    }
    fn mirror_key(pos: &AnyPosition) -> (u32, u32) {
        locks(pos.board(), true)
    }
}

/// One record of a `BOOK.DAT`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record {
    /// The position's lock.
    pub lock: u32,
    /// ElephantEye move code.
    pub mv: u16,
    /// Weight.
    pub weight: u16,
}

/// The records of a built book in file order: sorted by (lock1, lock0, move code), weights
/// clamped to 65,535.
///
/// # Errors
/// [`BookError::Unsupported`] for a pass (Janggi) move.
pub fn records(book: &BuiltBook<(u32, u32)>) -> Result<Vec<Record>, BookError> {
    let mut out = Vec::with_capacity(book.records.len());
    for r in &book.records {
        let mv = encode_move(r.mv)
            .ok_or_else(|| BookError::Unsupported(format!("move {} in BOOK.DAT", r.mv)))?;
        out.push((r.key, mv, u16::try_from(r.weight).unwrap_or(u16::MAX)));
    }
    out.sort_unstable();
    Ok(out
        .into_iter()
        .map(|((lock1, _), mv, weight)| Record {
            lock: lock1,
            mv,
            weight,
        })
        .collect())
}

/// Writes a built book as `BOOK.DAT`; returns the number of records.
///
/// # Errors
/// I/O errors, and [`records`]'s.
pub fn write(book: &BuiltBook<(u32, u32)>, out: &mut impl Write) -> Result<usize, BookError> {
    let recs = records(book)?;
    let mut bytes = Vec::with_capacity(recs.len() * RECORD_SIZE);
    for r in &recs {
        bytes.extend_from_slice(&r.lock.to_le_bytes());
        bytes.extend_from_slice(&r.mv.to_le_bytes());
        bytes.extend_from_slice(&r.weight.to_le_bytes());
    }
    out.write_all(&bytes)?;
    Ok(recs.len())
}

/// A `BOOK.DAT` read into memory.
#[derive(Clone, Debug)]
pub struct EleeyeBook {
    records: Vec<Record>,
}

impl EleeyeBook {
    /// Whether bytes look like a `BOOK.DAT`: a non-empty whole number of records, sorted by lock.
    pub fn looks_like(bytes: &[u8]) -> bool {
        !bytes.is_empty() && Self::from_bytes(bytes).is_ok()
    }

    /// Reads a book.
    ///
    /// # Errors
    /// [`BookError::NotFormat`] if the size is not a multiple of 8 or the locks are not
    /// sorted (every `BOOK.DAT` is sorted by lock: such a file is not one).
    pub fn from_bytes(bytes: &[u8]) -> Result<EleeyeBook, BookError> {
        let not = |why: String| BookError::NotFormat {
            format: super::Format::Eleeye,
            why,
        };
        if bytes.len() % RECORD_SIZE != 0 {
            return Err(not(format!(
                "its size {} is not a multiple of {RECORD_SIZE}",
                bytes.len()
            )));
        }
        let mut records = Vec::with_capacity(bytes.len() / RECORD_SIZE);
        for (i, c) in bytes.chunks_exact(RECORD_SIZE).enumerate() {
            let r = Record {
                lock: u32::from_le_bytes([c[0], c[1], c[2], c[3]]),
                mv: u16::from_le_bytes([c[4], c[5]]),
                weight: u16::from_le_bytes([c[6], c[7]]),
            };
            if records.last().is_some_and(|p: &Record| p.lock > r.lock) {
                return Err(not(format!(
                    "its 8-byte record {i} is out of lock order (a BOOK.DAT is sorted by lock)"
                )));
            }
            records.push(r);
        }
        Ok(EleeyeBook { records })
    }

    /// The records in file order.
    pub fn records(&self) -> &[Record] {
        &self.records
    }

    /// Every record that names a move on the board, as a [`RawRecord`] (the lock widened to
    /// `u64`), in file order; the second value counts the records whose move code is not one.
    pub fn raw_records(&self) -> (Vec<RawRecord>, usize) {
        let out: Vec<RawRecord> = self
            .records
            .iter()
            .filter_map(|r| {
                Some(RawRecord {
                    keyed: Format::Eleeye,
                    key: u64::from(r.lock),
                    entry: ProbeMove {
                        mv: decode_move(r.mv)?,
                        weight: i64::from(r.weight),
                        counts: None,
                        engine: false,
                    },
                })
            })
            .collect();
        let unreadable = self.records.len() - out.len();
        (out, unreadable)
    }

    /// The records stored under a lock.
    pub fn find(&self, lock: u32) -> &[Record] {
        let lo = self.records.partition_point(|r| r.lock < lock);
        let hi = self.records.partition_point(|r| r.lock <= lock);
        self.records.get(lo..hi).unwrap_or(&[])
    }

    /// The book moves of a position: its own records, or else its mirror's (moves mirrored
    /// back), keeping only legal moves, heaviest first.
    ///
    /// # Errors
    /// [`BookError::Unsupported`] for a Janggi position.
    pub fn probe(&self, pos: &AnyPosition) -> Result<Probed, BookError> {
        if pos.variant() != Variant::Xiangqi {
            return Err(BookError::Unsupported(
                "BOOK.DAT holds Xiangqi positions only".into(),
            ));
        }
        lookup_with_mirror(pos, |mirrored| {
            let lock = locks(pos.board(), mirrored).0;
            Ok(self
                .find(lock)
                .iter()
                .filter_map(|r| {
                    Some(ProbeMove {
                        mv: decode_move(r.mv)?,
                        weight: i64::from(r.weight),
                        counts: None,
                        engine: false,
                    })
                })
                .collect())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn z(k: u32, l0: u32, l1: u32) -> Zobrist {
        Zobrist {
            key: k,
            lock0: l0,
            lock1: l1,
        }
    }

    #[test]
    fn rc4_tables_match_the_spec_vectors() {
        assert_eq!(player_zobrist(), z(0x418918de, 0x3a5d37a3, 0x671e068a));
        assert_eq!(
            piece_zobrist(0, 0xc7),
            Some(z(0xbb99fe32, 0x1690781b, 0xffa2bed5))
        );
        assert_eq!(
            piece_zobrist(7, 0x37),
            Some(z(0x92cedc56, 0xcacb6c36, 0xd1effb75))
        );
        assert_eq!(piece_zobrist(14, 0), None);
    }

    #[test]
    fn locks_of_the_spec_positions() {
        let mut pos = AnyPosition::new(Variant::Xiangqi);
        let (l1, l0) = locks(pos.board(), false);
        assert_eq!((l1, l0), (0x052656d5, 0x8f899c24));
        assert_eq!(locks(pos.board(), true), (l1, l0));
        pos.play("h2e2".parse().unwrap()).unwrap();
        assert_eq!(locks(pos.board(), false), (0xeb505d7d, 0xeabc90f8));
        assert_eq!(locks(pos.board(), true), (0x5396644f, 0x607386e9));
        let mut b2e2 = AnyPosition::new(Variant::Xiangqi);
        b2e2.play("b2e2".parse().unwrap()).unwrap();
        assert_eq!(locks(b2e2.board(), false), (0x5396644f, 0x607386e9));
    }

    #[test]
    fn move_codes() {
        let m = |t: &str| t.parse::<Move>().unwrap();
        assert_eq!(encode_move(m("h2e2")), Some(0xa7aa));
        assert_eq!(encode_move(m("h9g7")), Some(0x593a));
        assert_eq!(decode_move(0xa7aa), Some(m("h2e2")));
        assert_eq!(decode_move(0x593a), Some(m("h9g7")));
        assert_eq!(encode_move(Move::PASS), None);
        assert_eq!(decode_move(0x0000), None);
        assert_eq!(decode_move(0xc7c7), None);
    }

    #[test]
    fn corrupt_books_are_errors() {
        assert!(EleeyeBook::from_bytes(&[0; 7]).is_err());
        let mut two = vec![2, 0, 0, 0, 0xaa, 0xa7, 1, 0];
        two.extend_from_slice(&[1, 0, 0, 0, 0xaa, 0xa7, 1, 0]);
        assert!(EleeyeBook::from_bytes(&two).is_err());
        assert!(!EleeyeBook::looks_like(&[]));
        two.swap(0, 8);
        let book = EleeyeBook::from_bytes(&two).unwrap();
        assert_eq!(book.find(2).len(), 1);
        assert_eq!(book.find(3).len(), 0);
    }
}
