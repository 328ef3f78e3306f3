//! XQF (象棋演播室 XQStudio) records, versions 10–18: a 1024-byte header (GBK strings, the
//! start position as 32 piece squares, the result byte) and a pre-order move tree with
//! variations and comments. Versions 11 and up are encrypted; 12 and up also rotate the piece
//! array. For version 11, whose rotation writers disagree on, both readings are tried and the
//! one whose main line replays legally is kept.
//!
//! ```
//! use qipu::formats::{replay, xqf};
//! let bytes = std::fs::read("tests/data/binfmt/v10_variations.xqf").unwrap();
//! assert!(xqf::sniff(&bytes));
//! let games = xqf::read("v10_variations.xqf", &bytes);
//! let game = games[0].as_ref().unwrap();
//! assert_eq!(game.moves[0].text, "h2e2");
//! assert!(replay(game).is_ok());
//! ```

use encoding_rs::GBK;

use super::board90::{self, Board90, Record, PIECE_ORDER};
use super::error::{ErrorKind, GameError};
use super::game::{Game, Source};
use crate::notation::coord::RankBase;
use crate::rules::{Color, Piece, Variant};

const HEADER: usize = 0x400;
const COPYRIGHT: &[u8; 32] = b"[(C) Copyright Mr. Dong Shiwei.]";

/// Whether the bytes look like an XQF file: magic `XQ` and a version byte 10–18; version 10
/// (`0x0A`, a line feed) also needs its reserved bytes 3–15 to be zero, so that a text file
/// starting with the line `XQ` is not taken for one.
///
/// ```
/// assert!(qipu::formats::xqf::sniff(b"XQ\x0a\0\0"));
/// assert!(!qipu::formats::xqf::sniff(b"XQ\nrnbakabnr"));
/// assert!(!qipu::formats::xqf::sniff(b"[Game \"Chinese Chess\"]"));
/// ```
pub fn sniff(bytes: &[u8]) -> bool {
    let [b'X', b'Q', version, rest @ ..] = bytes else {
        return false;
    };
    match version {
        10 => rest.iter().take(13).all(|&b| b == 0),
        11..=18 => true,
        _ => false,
    }
}

/// Reads the one game of an XQF file. A truncated or corrupt file gives one error.
pub fn read(file: &str, bytes: &[u8]) -> Vec<Result<Game, GameError>> {
    let source = Source {
        file: file.to_string(),
        index: 0,
    };
    vec![read_game(&source, bytes).map_err(|reason| GameError::new(&source, reason))]
}

/// Decryption keys of versions ≥ 11.
struct Keys {
    piece: u8,
    from: u8,
    to: u8,
    comment_size: i64,
    stream: [u8; 32],
}

fn f(k: u8, mul: u8) -> u8 {
    let k = u32::from(k);
    ((k * k * 54 + 221).wrapping_mul(u32::from(mul)) & 0xFF) as u8
}

impl Keys {
    fn new(h: &[u8]) -> Keys {
        let get = |i: usize| h.get(i).copied().unwrap_or(0);
        let (mask, sum, xy, xyf, xyt) = (get(3), get(12), get(13), get(14), get(15));
        let or = [get(8), get(9), get(10), get(11)];
        let piece = f(xy, xy);
        let from = f(xyf, piece);
        let to = f(xyt, from);
        let comment_size = (i64::from(sum) * 256 + i64::from(xy)) % 32000 + 767;
        let b = [
            (sum & mask) | or[0],
            (xy & mask) | or[1],
            (xyf & mask) | or[2],
            (xyt & mask) | or[3],
        ];
        let mut stream = [0u8; 32];
        for (i, s) in stream.iter_mut().enumerate() {
            *s = COPYRIGHT[i] & b[i % 4];
        }
        Keys {
            piece,
            from,
            to,
            comment_size,
            stream,
        }
    }
}

fn pascal(h: &[u8], off: usize, size: usize) -> Option<String> {
    let len = usize::from(*h.get(off)?).min(size - 1);
    let raw = h.get(off + 1..off + 1 + len)?;
    let (text, _, _) = GBK.decode(raw);
    board90::clean(&text)
}

fn read_game(source: &Source, bytes: &[u8]) -> Result<Game, ErrorKind> {
    if !sniff(bytes) {
        return Err("not an XQF file (no `XQ` magic with version 10–18)".into());
    }
    if bytes.len() < HEADER {
        return Err(format!("truncated XQF header: {} bytes, need {HEADER}", bytes.len()).into());
    }
    let (header, body) = bytes.split_at(HEADER);
    let version = header[2];
    let keys = (version >= 11).then(|| Keys::new(header));
    let raw_pieces = &header[0x10..0x30];

    let mut game = Game::new(Variant::Xiangqi, source.clone());
    game.rank_base = Some(RankBase::Zero);
    read_tags(&mut game, header);

    let stream: Vec<u8> = match &keys {
        None => body.to_vec(),
        Some(k) => body
            .iter()
            .enumerate()
            .map(|(i, b)| b.wrapping_sub(k.stream[i % 32]))
            .collect(),
    };
    let (comment, moves) = read_moves(&stream, version, keys.as_ref())?;
    game.comment = comment;
    game.moves = moves;

    // Version ≥ 12 rotates the piece array, version 10 does not; writers disagree on 11, so
    // both readings are tried there.
    let rotations: &[bool] = match version {
        10 => &[false],
        11 => &[false, true],
        _ => &[true],
    };
    let who_plays = if header[0x32] == 1 {
        Color::Second
    } else {
        Color::First
    };
    if let [rotate] = rotations {
        let board = decode_board(raw_pieces, *rotate, keys.as_ref())?;
        let turn = board.turn_for(game.moves.first(), who_plays);
        game.start_fen = board.start_fen(turn);
        return Ok(game);
    }
    // Version 11: keep the reading whose main line replays furthest (fully, if one does).
    let mut best: Option<(Option<String>, Option<usize>)> = None;
    let mut first_err = None;
    for &rotate in rotations {
        let board = match decode_board(raw_pieces, rotate, keys.as_ref()) {
            Ok(b) => b,
            Err(e) => {
                first_err.get_or_insert(e);
                continue;
            }
        };
        let turn = board.turn_for(game.moves.first(), who_plays);
        game.start_fen = board.start_fen(turn);
        let reach = board90::first_bad_ply(&game);
        let better = match (&best, reach) {
            (None, _) => true,
            (Some((_, Some(_))), None) => true,
            (Some((_, Some(b))), Some(r)) => r > *b,
            _ => false,
        };
        if better {
            best = Some((game.start_fen.clone(), reach));
        }
    }
    match best {
        Some((fen, _)) => {
            game.start_fen = fen;
            Ok(game)
        }
        None => Err(first_err
            .unwrap_or_else(|| "no start position".to_string())
            .into()),
    }
}

fn read_tags(game: &mut Game, h: &[u8]) {
    let fields: [(&str, usize, usize); 12] = [
        ("Title", 0x50, 64),
        ("TitleB", 0x90, 64),
        ("Event", 0xD0, 64),
        ("Date", 0x110, 16),
        ("Site", 0x120, 16),
        ("Red", 0x130, 16),
        ("Black", 0x140, 16),
        ("TimeRule", 0x150, 64),
        ("RedTime", 0x190, 16),
        ("BlackTime", 0x1A0, 16),
        ("Annotator", 0x1D0, 16),
        ("Author", 0x1E0, 16),
    ];
    for (name, off, size) in fields {
        if let Some(v) = pascal(h, off, size) {
            super::tags::apply(&mut game.tags, name, &v);
            game.tags.raw.push((name.to_string(), v));
        }
    }
    let result = h[0x33];
    game.tags.result = board90::result_from_byte(result);
    if let Some(r) = game.tags.result {
        game.tags
            .raw
            .push(("Result".to_string(), r.pgn().to_string()));
    }
}

fn decode_board(raw: &[u8], rotate: bool, keys: Option<&Keys>) -> Result<Board90, String> {
    let mut pos = [0u8; 32];
    match keys {
        None => pos.copy_from_slice(raw),
        Some(k) => {
            for (i, &b) in raw.iter().enumerate() {
                let j = if rotate {
                    (usize::from(k.piece) + 1 + i) & 31
                } else {
                    i
                };
                pos[j] = b;
            }
            for p in &mut pos {
                *p = p.wrapping_sub(k.piece);
            }
        }
    }
    let mut board = Board90::empty();
    for (i, &sq) in pos.iter().enumerate() {
        if sq > 89 {
            continue;
        }
        let color = if i < 16 { Color::First } else { Color::Second };
        let piece = Piece::new(color, PIECE_ORDER[i % 16]);
        board.put(sq / 10, sq % 10, piece)?;
    }
    Ok(board)
}

/// A cursor over the decrypted record stream.
struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
}

impl Cursor<'_> {
    fn take(&mut self, n: usize) -> Option<&[u8]> {
        let s = self.data.get(self.pos..self.pos.checked_add(n)?)?;
        self.pos += n;
        Some(s)
    }

    fn i32(&mut self) -> Option<i64> {
        let b = self.take(4)?;
        Some(i64::from(i32::from_le_bytes([b[0], b[1], b[2], b[3]])))
    }

    fn remaining(&self) -> usize {
        self.data.len().saturating_sub(self.pos)
    }
}

/// One raw record: (from byte, to byte, has next, has variation, comment).
type RawRecord = (u8, u8, bool, bool, Option<String>);

fn read_record(
    cur: &mut Cursor<'_>,
    version: u8,
    keys: Option<&Keys>,
) -> Result<Option<RawRecord>, String> {
    let at = cur.pos + HEADER;
    let Some(b) = cur.take(4) else {
        return Ok(None);
    };
    let (b0, b1, tag) = (b[0], b[1], b[2]);
    let (from, to, next, var, len) = match keys {
        None => {
            let len = cur
                .i32()
                .ok_or_else(|| format!("record at 0x{at:x}: truncated comment length"))?;
            (
                b0.wrapping_sub(0x18),
                b1.wrapping_sub(0x20),
                tag & 0xF0 != 0,
                tag & 0x0F != 0,
                len,
            )
        }
        Some(k) => {
            let tag = tag & 0xE0;
            let len = if tag & 0x20 != 0 {
                cur.i32()
                    .ok_or_else(|| format!("record at 0x{at:x}: truncated comment length"))?
                    - k.comment_size
            } else {
                0
            };
            (
                b0.wrapping_sub(0x18).wrapping_sub(k.from),
                b1.wrapping_sub(0x20).wrapping_sub(k.to),
                tag & 0x80 != 0,
                tag & 0x40 != 0,
                len,
            )
        }
    };
    let _ = version;
    let comment = if len > 0 {
        let n = usize::try_from(len).unwrap_or(usize::MAX);
        if n > cur.remaining() {
            return Err(format!(
                "record at 0x{at:x}: comment of {len} bytes but only {} left",
                cur.remaining()
            ));
        }
        let raw = cur.take(n).unwrap_or_default();
        let (text, _, _) = GBK.decode(raw);
        board90::clean(&text)
    } else if len < 0 {
        return Err(format!("record at 0x{at:x}: negative comment length {len}"));
    } else {
        None
    };
    Ok(Some((from, to, next, var, comment)))
}

fn read_moves(
    stream: &[u8],
    version: u8,
    keys: Option<&Keys>,
) -> Result<(Option<String>, Vec<super::game::MoveNode>), String> {
    let mut cur = Cursor {
        data: stream,
        pos: 0,
    };
    // The first record is a dummy root whose comment is the game comment.
    let Some((_, _, root_next, _, comment)) = read_record(&mut cur, version, keys)? else {
        return Ok((None, Vec::new()));
    };
    let moves = board90::read_tree(root_next, || {
        Ok(
            read_record(&mut cur, version, keys)?.map(|(from, to, next, var, comment)| Record {
                text: board90::move_text((from / 10, from % 10), (to / 10, to % 10)),
                comment,
                has_next: next,
                has_variation: var,
            }),
        )
    })?;
    Ok((comment, moves))
}
