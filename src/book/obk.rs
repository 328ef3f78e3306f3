//! BHGUI `.obk` (兵河五四 GUI book), read and written. Xiangqi only.
//!
//! # Format (frozen by BHGUI; see `shared/specs/books.md` §2)
//!
//! An SQLite 3 database with one table:
//!
//! ```sql
//! CREATE TABLE bhobk(id INTEGER PRIMARY KEY AUTOINCREMENT, vkey INTEGER, vmove INTEGER,
//!     vscore INTEGER, vwin INTEGER, vdraw INTEGER, vlost INTEGER, vvalid INTEGER,
//!     vmemo BLOB, vindex INTEGER);
//! CREATE INDEX idxkey ON bhobk(vkey);
//! ```
//!
//! - `vkey`: 64-bit Zobrist key: the XOR of `TABLE[piece * 256 + square]` over the pieces
//!   (piece `K A B N R C P k a b n r c p` = 0..13, ElephantEye 16×16 squares, see
//!   [`super::board16`]), XORed with `0xA0CE2AF90C452F58` when **Red** is to move. The 3,584
//!   table values are BHGUI's (`shared/specs/obk-zobrist.txt`). A key below 2^63 is stored as an
//!   INTEGER; a key of 2^63 or more as the REAL whose IEEE-754 bits equal the key (the common
//!   generator's convention; SQLite keeps such a value as an INTEGER when it is integral) —
//!   except where those bits are a NaN or ±0, which cannot survive as a REAL: then it is the
//!   signed INTEGER. Readers match `vkey = key as i64 OR vkey = f64::from_bits(key)`.
//! - `vmove`: `from << 8 | to` in 16×16 squares (bytes swapped relative to `BOOK.DAT`).
//! - `vscore`: the weight; `vwin`, `vdraw`, `vlost`: game counts for the side to move;
//!   `vvalid` = 1; `vmemo` NULL, or `qipu: engine move` for a move an engine chose
//!   (`qipu book extend`); `vindex` 0.
//!
//! Positions are stored as reached unless the book was built with mirrors merged; readers look
//! a position up as it stands, then as its mirror image.
//!
//! ```
//! use qipu::book::obk;
//! use qipu::rules::{AnyPosition, Move, Variant};
//! let mut pos = AnyPosition::new(Variant::Xiangqi);
//! assert_eq!(obk::key(pos.board(), false), 0x628d04d7c9c144ae);
//! pos.play("h2e2".parse::<Move>()?)?;
//! assert_eq!(obk::key(pos.board(), false), 11667368640340953070);
//! assert_eq!(obk::encode_move("h2e2".parse()?), Some(0xaaa7));
//! # Ok::<_, Box<dyn std::error::Error>>(())
//! ```

use std::path::Path;

use rusqlite::{params, types::Value, Connection, OpenFlags};

use super::{
    board16,
    build::{BuiltBook, KeyScheme},
    obk_table::{PLAYER, TABLE},
    probed::{lookup_with_mirror, Counts, ProbeMove, Probed, RawRecord},
    BookError, Format,
};
use crate::rules::{AnyPosition, Board, Color, Move, Variant};

/// The first bytes of every SQLite 3 database.
pub const SQLITE_MAGIC: &[u8] = b"SQLite format 3\0";

/// The key of a board, or of its left-right mirror.
pub fn key(board: &Board, mirrored: bool) -> u64 {
    let mut k = 0u64;
    for (p, sq) in board16::pieces(board, mirrored) {
        if let Some(v) = TABLE.get(p * 256 + sq as usize) {
            k ^= v;
        }
    }
    if board.turn() == Color::First {
        k ^= PLAYER;
    }
    k
}

/// `vmove` of a move; `None` for a pass.
pub fn encode_move(m: Move) -> Option<u16> {
    let (from, to) = (m.from()?, m.to()?);
    Some(u16::from(board16::square(from)) << 8 | u16::from(board16::square(to)))
}

/// The move of a `vmove`; `None` if it is not a move on the board.
pub fn decode_move(code: i64) -> Option<Move> {
    let code = u16::try_from(code).ok()?;
    let from = board16::from_square((code >> 8) as u8)?;
    let to = board16::from_square((code & 0xff) as u8)?;
    (from != to).then(|| Move::new(from, to))
}

/// The SQLite value a key is stored as.
pub fn key_value(key: u64) -> Value {
    if key < 1 << 63 {
        return Value::Integer(key as i64);
    }
    let f = f64::from_bits(key);
    if f.is_nan() || f == 0.0 {
        Value::Integer(key as i64)
    } else {
        Value::Real(f)
    }
}

/// The key scheme of `.obk` books.
#[derive(Clone, Copy, Debug)]
pub struct ObkKeys;

impl KeyScheme for ObkKeys {
    type Key = u64;
    fn supports(variant: Variant) -> bool {
        variant == Variant::Xiangqi
    }
    fn key(pos: &AnyPosition) -> u64 {
        key(pos.board(), false)
    }
    fn mirror_key(pos: &AnyPosition) -> u64 {
        key(pos.board(), true)
    }
}

/// Writes a built book as a new `.obk` file (an existing file is replaced); returns the number
/// of records.
///
/// # Errors
/// I/O and SQLite errors; [`BookError::Unsupported`] for a pass move.
pub fn write(book: &BuiltBook<u64>, path: &Path) -> Result<usize, BookError> {
    if path.exists() {
        std::fs::remove_file(path)?;
    }
    let mut conn = Connection::open(path)?;
    conn.execute_batch(
        "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;
         CREATE TABLE bhobk(id INTEGER PRIMARY KEY AUTOINCREMENT, vkey INTEGER, vmove INTEGER,
             vscore INTEGER, vwin INTEGER, vdraw INTEGER, vlost INTEGER, vvalid INTEGER,
             vmemo BLOB, vindex INTEGER);",
    )?;
    let tx = conn.transaction()?;
    {
        let mut insert = tx.prepare(
            "INSERT INTO bhobk(vkey, vmove, vscore, vwin, vdraw, vlost, vvalid, vmemo, vindex)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, 1, ?7, 0)",
        )?;
        for r in &book.records {
            let mv = encode_move(r.mv)
                .ok_or_else(|| BookError::Unsupported(format!("move {} in .obk", r.mv)))?;
            insert.execute(params![
                key_value(r.key),
                mv,
                r.weight,
                r.stats.wins,
                r.stats.draws,
                r.stats.losses,
                r.flags.engine.then_some(ENGINE_MEMO)
            ])?;
        }
    }
    tx.execute_batch("CREATE INDEX idxkey ON bhobk(vkey);")?;
    tx.commit()?;
    Ok(book.records.len())
}

/// An open `.obk` book.
#[derive(Debug)]
pub struct ObkBook {
    conn: Connection,
    query: String,
    counts: bool,
    /// Every valid record, in rowid order.
    all: String,
    /// ` FROM table WHERE valid`.
    from: String,
}

/// The `vmemo` of a record an engine chose (`qipu book extend`).
pub const ENGINE_MEMO: &str = "qipu: engine move";

/// The key a stored `vkey` stands for (the inverse of [`key_value`]).
fn key_of_value(v: &Value) -> Option<u64> {
    match *v {
        Value::Integer(i) => Some(i as u64),
        Value::Real(f) => Some(f.to_bits()),
        _ => None,
    }
}

fn quote(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

fn as_i64(v: &Value) -> Option<i64> {
    match *v {
        Value::Integer(i) => Some(i),
        Value::Real(f) if f.is_finite() => Some(f as i64),
        _ => None,
    }
}

impl ObkBook {
    /// Opens a book read-only: the table `bhobk`, or else the first table with `vkey`, `vmove`
    /// and `vscore` columns.
    ///
    /// # Errors
    /// SQLite errors; [`BookError::NotFormat`] when no such table exists.
    pub fn open(path: &Path) -> Result<ObkBook, BookError> {
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        let mut tables: Vec<String> = conn
            .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")?
            .query_map([], |row| row.get(0))?
            .collect::<Result<_, _>>()?;
        if let Some(i) = tables.iter().position(|t| t == "bhobk") {
            tables.swap(0, i);
        }
        for table in tables {
            let cols: Vec<String> = conn
                .prepare(&format!("PRAGMA table_info({})", quote(&table)))?
                .query_map([], |row| row.get::<_, String>(1))?
                .collect::<Result<_, _>>()?;
            let has = |c: &str| cols.iter().any(|x| x.eq_ignore_ascii_case(c));
            if !(has("vkey") && has("vmove") && has("vscore")) {
                continue;
            }
            let counts = has("vwin") && has("vdraw") && has("vlost");
            let query = format!(
                "SELECT vmove, vscore{} FROM {} WHERE vkey IN (?1, ?2){} ORDER BY rowid",
                if counts { ", vwin, vdraw, vlost" } else { "" },
                quote(&table),
                if has("vvalid") { " AND vvalid = 1" } else { "" }
            );
            let from = format!(
                " FROM {}{}",
                quote(&table),
                if has("vvalid") {
                    " WHERE vvalid = 1"
                } else {
                    ""
                }
            );
            let all = format!(
                "SELECT vmove, vscore{}, vkey, {}{from} ORDER BY rowid",
                if counts {
                    ", vwin, vdraw, vlost"
                } else {
                    ", 0, 0, 0"
                },
                if has("vmemo") { "vmemo" } else { "NULL" },
            );
            return Ok(ObkBook {
                conn,
                query,
                counts,
                all,
                from,
            });
        }
        Err(BookError::NotFormat {
            format: super::Format::Obk,
            why: "an SQLite file without a table of vkey, vmove and vscore columns".into(),
        })
    }

    /// The stored moves of a key in stored orientation (invalid records skipped).
    ///
    /// # Errors
    /// SQLite errors.
    pub fn find(&self, key: u64) -> Result<Vec<ProbeMove>, BookError> {
        let mut stmt = self.conn.prepare_cached(&self.query)?;
        let mut rows = stmt.query(params![key as i64, key_value(key)])?;
        let mut out = Vec::new();
        while let Some(row) = rows.next()? {
            let get = |i: usize| row.get::<_, Value>(i).ok().as_ref().and_then(as_i64);
            let (Some(mv), Some(weight)) = (get(0).and_then(decode_move), get(1)) else {
                continue;
            };
            let counts = if self.counts {
                let n = |i| get(i).and_then(|v| u32::try_from(v).ok()).unwrap_or(0);
                Some(Counts {
                    games: None,
                    wins: n(2),
                    draws: n(3),
                    losses: n(4),
                })
            } else {
                None
            };
            out.push(ProbeMove {
                mv,
                weight,
                counts,
                engine: false,
            });
        }
        Ok(out)
    }

    /// The number of valid records and of distinct keys among them.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn size(&self) -> Result<(usize, usize), BookError> {
        let q = format!("SELECT count(*), count(DISTINCT vkey){}", self.from);
        let (n, k): (i64, i64) = self
            .conn
            .query_row(&q, [], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok((
            usize::try_from(n).unwrap_or(0),
            usize::try_from(k).unwrap_or(0),
        ))
    }

    /// Every valid record in rowid order (records whose move or key cannot be read are
    /// skipped and counted in the second value).
    ///
    /// # Errors
    /// SQLite errors.
    pub fn raw_records(&self) -> Result<(Vec<RawRecord>, usize), BookError> {
        let mut stmt = self.conn.prepare(&self.all)?;
        let mut rows = stmt.query([])?;
        let (mut out, mut unreadable) = (Vec::new(), 0);
        while let Some(row) = rows.next()? {
            let get = |i: usize| row.get::<_, Value>(i).ok().as_ref().and_then(as_i64);
            let key = row.get::<_, Value>(5).ok().as_ref().and_then(key_of_value);
            let (Some(mv), Some(weight), Some(key)) = (get(0).and_then(decode_move), get(1), key)
            else {
                unreadable += 1;
                continue;
            };
            let n = |i| get(i).and_then(|v| u32::try_from(v).ok()).unwrap_or(0);
            let memo = match row.get::<_, Value>(6) {
                Ok(Value::Text(t)) => t == ENGINE_MEMO,
                Ok(Value::Blob(b)) => b == ENGINE_MEMO.as_bytes(),
                _ => false,
            };
            out.push(RawRecord {
                keyed: Format::Obk,
                key,
                entry: ProbeMove {
                    mv,
                    weight,
                    counts: self.counts.then(|| Counts {
                        games: None,
                        wins: n(2),
                        draws: n(3),
                        losses: n(4),
                    }),
                    engine: memo,
                },
            });
        }
        Ok((out, unreadable))
    }

    /// The book moves of a position: as it stands, else as its mirror image; legal moves only,
    /// heaviest first.
    ///
    /// # Errors
    /// SQLite errors; [`BookError::Unsupported`] for a Janggi position.
    pub fn probe(&self, pos: &AnyPosition) -> Result<Probed, BookError> {
        if pos.variant() != Variant::Xiangqi {
            return Err(BookError::Unsupported(
                ".obk books hold Xiangqi positions only".into(),
            ));
        }
        lookup_with_mirror(pos, |mirrored| self.find(key(pos.board(), mirrored)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_vectors() {
        let mut pos = AnyPosition::new(Variant::Xiangqi);
        assert_eq!(key(pos.board(), false), 7101337512282506414);
        assert_eq!(key(pos.board(), true), 7101337512282506414);
        pos.play("h2e2".parse().unwrap()).unwrap();
        assert_eq!(key(pos.board(), false), 11667368640340953070);
        let m = |t: &str| t.parse::<Move>().unwrap();
        assert_eq!(encode_move(m("h2e2")), Some(0xaaa7));
        assert_eq!(encode_move(m("h9g7")), Some(0x3a59));
        assert_eq!(encode_move(m("c3c4")), Some(0x9585));
        assert_eq!(decode_move(0x9585), Some(m("c3c4")));
        assert_eq!(decode_move(-1), None);
        assert_eq!(decode_move(0x1_0000), None);
    }

    #[test]
    fn key_storage_convention() {
        assert_eq!(key_value(5), Value::Integer(5));
        let k = 11667368640340953070u64;
        assert_eq!(key_value(k), Value::Real(f64::from_bits(k)));
        assert_eq!(key_value(0x8000_0000_0000_0000), Value::Integer(i64::MIN));
        assert_eq!(key_value(u64::MAX), Value::Integer(-1)); // a NaN pattern
    }
}
