//! CCBridge (象棋桥) CBR records, versions 1 and 2: a fixed header of UTF-16LE strings, a
//! 90-byte board and a pre-order move tree with UTF-16LE comments.
//!
//! Version 2 is checked against real files; version 1 follows the one published reader of it
//! (header table shifted by 128 bytes, squares as hex digits `x`/`y`), for which no real
//! sample was available.
//!
//! ```
//! use qipu::formats::{cbr, replay};
//! let bytes = std::fs::read("tests/data/binfmt/v2_variations.cbr").unwrap();
//! assert!(cbr::sniff(&bytes));
//! let game = cbr::read("v2_variations.cbr", &bytes).remove(0).unwrap();
//! assert_eq!(game.moves[0].text, "h2e2");
//! assert!(replay(&game).is_ok());
//! ```

use super::board90::{self, Board90, Record};
use super::error::{ErrorKind, GameError};
use super::game::{Game, MoveNode, Source};
use crate::notation::coord::RankBase;
use crate::rules::{Color, Piece, Role, Variant};

/// The 16-byte magic of a CBR record.
pub const MAGIC: &[u8; 16] = b"CCBridge Record\0";

/// Whether the bytes start with the CBR magic.
///
/// ```
/// assert!(qipu::formats::cbr::sniff(b"CCBridge Record\0\0\0\0\x02"));
/// assert!(!qipu::formats::cbr::sniff(b"CCBridgeLibrary\0"));
/// ```
pub fn sniff(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC)
}

/// Reads the one game of a CBR file.
pub fn read(file: &str, bytes: &[u8]) -> Vec<Result<Game, GameError>> {
    let source = Source {
        file: file.to_string(),
        index: 0,
    };
    vec![read_record(&source, bytes)]
}

/// Reads one CBR record (a whole `.cbr` file or one game of a CBL library).
///
/// # Errors
/// A [`GameError`] for a truncated or corrupt record.
pub fn read_record(source: &Source, bytes: &[u8]) -> Result<Game, GameError> {
    read_game(source, bytes).map_err(|reason| GameError::new(source, reason))
}

/// Field offsets of one header version.
struct Layout {
    strings: [(&'static str, usize, usize); 19],
    result: usize,
    side: usize,
    board: usize,
    moves: usize,
}

const V2: Layout = Layout {
    strings: [
        ("Title", 180, 128),
        ("Event", 692, 64),
        ("Round", 756, 64),
        ("Group", 820, 32),
        ("Table", 852, 32),
        ("Date", 884, 64),
        ("Site", 948, 64),
        ("Red", 1076, 64),
        ("RedTeam", 1140, 64),
        ("RedTime", 1204, 64),
        ("RedRating", 1268, 32),
        ("Black", 1300, 64),
        ("BlackTeam", 1364, 64),
        ("BlackTime", 1428, 64),
        ("BlackRating", 1492, 32),
        ("Judge", 1524, 64),
        ("Recorder", 1588, 64),
        ("Remark", 1652, 64),
        ("Author", 1780, 64),
    ],
    result: 2076,
    side: 2112,
    board: 2120,
    moves: 2214,
};

const V1: Layout = Layout {
    strings: [
        ("Title", 52, 128),
        ("Event", 564, 64),
        ("Round", 628, 64),
        ("Group", 692, 32),
        ("Table", 724, 32),
        ("Date", 756, 64),
        ("Site", 820, 64),
        ("Red", 948, 64),
        ("RedTeam", 1012, 64),
        ("RedTime", 1076, 64),
        ("RedRating", 1140, 32),
        ("Black", 1172, 64),
        ("BlackTeam", 1236, 64),
        ("BlackTime", 1300, 64),
        ("BlackRating", 1364, 32),
        ("Judge", 1396, 0),
        ("Recorder", 1396, 0),
        ("Remark", 1396, 64),
        ("Author", 1524, 64),
    ],
    result: 1820,
    side: 1856,
    board: 1864,
    moves: 1958,
};

/// Decodes a NUL-terminated UTF-16LE string.
pub(crate) fn utf16(raw: &[u8]) -> String {
    let units: Vec<u16> = raw
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .take_while(|&u| u != 0)
        .collect();
    String::from_utf16_lossy(&units)
}

fn piece(code: u8) -> Result<Option<Piece>, String> {
    let color = match code >> 4 {
        0 if code == 0 => return Ok(None),
        1 => Color::First,
        2 => Color::Second,
        _ => return Err(format!("unknown piece code 0x{code:02x} on the board")),
    };
    let role = match code & 0x0F {
        1 => Role::Rook,
        2 => Role::Horse,
        3 => Role::Elephant,
        4 => Role::Advisor,
        5 => Role::King,
        6 => Role::Cannon,
        7 => Role::Pawn,
        _ => return Err(format!("unknown piece code 0x{code:02x} on the board")),
    };
    Ok(Some(Piece::new(color, role)))
}

fn read_game(source: &Source, bytes: &[u8]) -> Result<Game, ErrorKind> {
    if !sniff(bytes) {
        return Err("not a CBR record (no `CCBridge Record` magic)".into());
    }
    let version = *bytes
        .get(19)
        .ok_or_else(|| "truncated CBR header".to_string())?;
    let layout = match version {
        1 => &V1,
        2 => &V2,
        v => return Err(format!("unknown CBR version {v}").into()),
    };
    if bytes.len() < layout.moves {
        return Err(format!(
            "truncated CBR header: {} bytes, need {}",
            bytes.len(),
            layout.moves
        )
        .into());
    }
    let mut game = Game::new(Variant::Xiangqi, source.clone());
    game.rank_base = Some(RankBase::Zero);
    for (name, off, size) in layout.strings {
        let Some(v) = bytes
            .get(off..off + size)
            .and_then(|raw| board90::clean(&utf16(raw)))
        else {
            continue;
        };
        super::tags::apply(&mut game.tags, name, &v);
        game.tags.raw.push((name.to_string(), v));
    }
    game.tags.result = board90::result_from_byte(bytes[layout.result]);
    if let Some(r) = game.tags.result {
        game.tags
            .raw
            .push(("Result".to_string(), r.pgn().to_string()));
    }

    let mut board = Board90::empty();
    for (i, &code) in bytes[layout.board..layout.board + 90].iter().enumerate() {
        if let Some(p) = piece(code)? {
            let (x, y) = ((i % 9) as u8, (i / 9) as u8);
            board.put(x, 9 - y, p)?;
        }
    }

    let (comment, moves) = read_moves(&bytes[layout.moves..], version, layout.moves)?;
    game.comment = comment;
    game.moves = moves;
    // The writers store the side to move inconsistently; the first move's piece decides,
    // as in every published reader, and Red when there is no move.
    let fallback = if bytes[layout.side] == 2 {
        Color::Second
    } else {
        Color::First
    };
    let turn = board.turn_for(game.moves.first(), fallback);
    game.start_fen = board.start_fen(turn);
    Ok(game)
}

/// A square byte as (file, rank from Red's side).
fn square(b: u8, version: u8) -> (u8, u8) {
    if version == 1 {
        // Hex digits: high = file, low = row from the top.
        let (x, y) = (b >> 4, b & 0x0F);
        (x, if y <= 9 { 9 - y } else { 10 + y })
    } else if b < 90 {
        (b % 9, 9 - b / 9)
    } else {
        (b % 9, 10 + b / 9)
    }
}

struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
    base: usize,
}

impl Cursor<'_> {
    fn take(&mut self, n: usize) -> Option<&[u8]> {
        let s = self.data.get(self.pos..self.pos.checked_add(n)?)?;
        self.pos += n;
        Some(s)
    }
}

/// (flag, from, to, comment) of one record, `None` at the end of the data.
type Raw = (u8, u8, u8, Option<String>);

fn next_raw(cur: &mut Cursor<'_>) -> Result<Option<Raw>, String> {
    let at = cur.base + cur.pos;
    let Some(b) = cur.take(4) else {
        return Ok(None);
    };
    let (flag, from, to) = (b[0], b[2], b[3]);
    let comment = if flag & 0x04 != 0 {
        let len = cur
            .take(4)
            .ok_or_else(|| format!("record at {at}: truncated comment length"))?;
        let len = u32::from_le_bytes([len[0], len[1], len[2], len[3]]) as usize;
        let remaining = cur.data.len().saturating_sub(cur.pos);
        if len > remaining {
            return Err(format!(
                "record at {at}: comment of {len} bytes but only {remaining} left"
            ));
        }
        cur.take(len).and_then(|raw| board90::clean(&utf16(raw)))
    } else {
        None
    };
    Ok(Some((flag, from, to, comment)))
}

fn read_moves(
    data: &[u8],
    version: u8,
    base: usize,
) -> Result<(Option<String>, Vec<MoveNode>), String> {
    let mut cur = Cursor { data, pos: 0, base };
    // A record with from == to is the root, carrying the game comment; it may be absent.
    let mut comment = None;
    let mut first: Option<Raw> = None;
    match next_raw(&mut cur)? {
        None => return Ok((None, Vec::new())),
        Some((flag, from, to, c)) if from == to => {
            comment = c;
            if flag & 0x01 != 0 {
                return Ok((comment, Vec::new()));
            }
        }
        Some(raw) => first = Some(raw),
    }
    // An empty game: the root is followed by padding (or nothing).
    if first.is_none() {
        let save = cur.pos;
        match next_raw(&mut cur)? {
            None => return Ok((comment, Vec::new())),
            Some((_, from, to, _)) if from == to => return Ok((comment, Vec::new())),
            Some(_) => cur.pos = save,
        }
    }
    let moves = board90::read_tree(true, || {
        let raw = match first.take() {
            Some(r) => Some(r),
            None => next_raw(&mut cur)?,
        };
        let Some((flag, from, to, comment)) = raw else {
            return Ok(None);
        };
        if from == to {
            return Err(format!(
                "record at {}: end marker while moves are still announced",
                base + cur.pos - 4
            ));
        }
        Ok(Some(Record {
            text: board90::move_text(square(from, version), square(to, version)),
            comment,
            has_next: flag & 0x01 == 0,
            has_variation: flag & 0x02 != 0,
        }))
    })?;
    Ok((comment, moves))
}
