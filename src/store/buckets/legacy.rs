//! What is left of the old buckets formats, for the migrations that rewrite them: format 2
//! (schemas before 9: one cells part per move, read by the migration of schema 9), format 3
//! (every cell body in full, read by the migration of schema 10) and format 4 (the entry of
//! every game with its cells, read by the migration of schema 14); each migration decodes
//! the blob into the model and encodes it again in format 5 (`Store::reencode_buckets`,
//! `Store::reencode_busy`). Formats 3 and 4 share format 5's directory and are read by
//! `walk.rs` (their differences are two flags there); format 2 is decoded here. Nothing new
//! is ever written in these formats (the encoder writes them only for the tests). No SQL here.

use super::{
    corrupt,
    walk::{next_move, walk_cells, Body},
    Buckets, Cell, ALL_GAMES,
};
use crate::store::{varint::Reader, StoreError};

/// Format 4: format 5's layout with the entry of every game in full (its cells too;
/// re-encoded by schema 14).
pub(super) const FORMAT_4: u64 = 4;
/// Format 3: format 4's layout with every cell body in full (re-encoded by schema 10).
pub(super) const FORMAT_3: u64 = 3;
/// The format the migration of schema 9 re-encodes.
pub(super) const OLD_FORMAT: u64 = 2;

/// Decodes a format-2 blob (`bytes` whole, its format number first) into the model, its
/// entry of every game left out.
pub(super) fn decode_format_2(bytes: &[u8]) -> Result<Buckets, StoreError> {
    let mut moves: Vec<(u16, Vec<Cell>)> = Vec::new();
    let mut r = Reader::new(bytes, "buckets");
    r.u64()?;
    let n: usize = r.int()?;
    let mut prev: Option<u16> = None;
    for _ in 0..n {
        let mv = next_move(&mut r, &mut prev)?;
        let len: usize = r.int()?;
        let start = r.offset();
        r.skip(len)?;
        let mut cells = Vec::new();
        walk_cells(
            &bytes[start..start + len],
            mv,
            None,
            Body::Full,
            false,
            |c| {
                cells.push(c);
            },
        )?;
        if mv != ALL_GAMES {
            moves.push((mv, cells));
        }
    }
    if !r.is_empty() {
        return Err(corrupt("trailing bytes"));
    }
    Ok(Buckets { moves })
}

#[cfg(test)]
mod tests {
    use super::{
        super::{
            encode::put_cells,
            fixtures::{counted, many_games, some_filters},
            sum, total,
            walk::directory,
            ALL_PARTS_FROM,
        },
        *,
    };
    use crate::store::{filter::PER_MONTH, game_facts::GameFacts, varint, END_OF_GAME};

    /// A format-2 blob (what schema 9 stored) decodes to the model of the same games, and is
    /// not read by the questions (which read format 3 and up).
    #[test]
    fn format_2_still_decodes() {
        let mut b = Buckets::default();
        b.add(many_games(600));
        let filters = some_filters();
        let mut old = Vec::new();
        varint::put(&mut old, OLD_FORMAT);
        varint::put(&mut old, b.moves.len() as u64);
        for (mv, cells) in &b.moves {
            let mut part = Vec::new();
            put_cells(&mut part, cells, *mv == END_OF_GAME, false);
            varint::put(&mut old, u64::from(*mv));
            varint::put(&mut old, part.len() as u64);
            old.extend_from_slice(&part);
        }
        assert_eq!(Buckets::decode(&old).unwrap(), b);
        assert!(sum(&mut &old[..], &filters[1].matcher()).is_err());
    }

    /// Format 5 keeps no cells for the entry of every game: its answers (the games through
    /// the position, the history) are the moves' sums, or of a position of more than
    /// `ALL_PARTS_FROM` games its own rests and months parts; they equal format 4's (the entry
    /// in full) and a count of the games, and format 4 decodes to the same moves.
    #[test]
    fn format_5_sums_the_moves_as_format_4_its_entry_of_every_game() {
        let filters = some_filters();
        for n in [40, 600, 1500] {
            let mut games = many_games(n);
            if n > ALL_PARTS_FROM as i64 {
                // Spread over 300 months from 2000: few games a bucket.
                for (i, g) in games.iter_mut().enumerate() {
                    let month = 1 + 2000 * 13 + (i as u32 % 300);
                    g.2.bucket = month * PER_MONTH + g.2.bucket % PER_MONTH;
                }
            }
            let mut b = Buckets::default();
            b.add(games.clone());
            assert!(b.moves.iter().all(|m| m.0 != ALL_GAMES));
            let five = b.encode();
            let four = b.encode_in(FORMAT_4);
            assert!(five.len() < four.len(), "{n}");
            assert_eq!(Buckets::decode(&five).unwrap(), b);
            assert_eq!(Buckets::decode(&four).unwrap(), b);
            let (dir, _) = directory(&mut &five[..]).unwrap();
            let every = dir.iter().find(|p| p.code == ALL_GAMES);
            if n > ALL_PARTS_FROM as i64 {
                // Few games a bucket here: no cells.
                let e = every.unwrap();
                assert!(e.cells.is_empty() && !e.rests.is_empty() && !e.months.is_empty());
            } else {
                assert!(every.is_none(), "{n}");
            }
            let (dir4, _) = directory(&mut &four[..]).unwrap();
            assert!(dir4
                .iter()
                .any(|p| p.code == ALL_GAMES && !p.cells.is_empty()));
            for f in &filters {
                let matcher = f.matcher();
                let (passing, history) = counted(&games, &matcher);
                let got = sum(&mut &five[..], &matcher).unwrap();
                assert_eq!(got, sum(&mut &four[..], &matcher).unwrap(), "{n} {f:?}");
                assert_eq!(got.history, history, "{n} {f:?}");
                assert_eq!(
                    got.rows.iter().map(|r| r.counts.games).sum::<u64>(),
                    passing
                );
                assert_eq!(total(&mut &five[..], &matcher).unwrap(), passing, "{f:?}");
                assert_eq!(total(&mut &four[..], &matcher).unwrap(), passing, "{f:?}");
            }
        }
        // Many games a bucket (the same day for all): the entry keeps its cells.
        let same: Vec<_> = many_games(3000)
            .into_iter()
            .map(|(mv, id, g)| (mv, id, GameFacts { day: 1, ..g }))
            .collect();
        let mut b = Buckets::default();
        b.add(same.clone());
        let five = b.encode();
        let (dir, _) = directory(&mut &five[..]).unwrap();
        assert!(dir
            .iter()
            .any(|p| p.code == ALL_GAMES && !p.cells.is_empty()));
        assert_eq!(Buckets::decode(&five).unwrap(), b);
        for f in &filters {
            let matcher = f.matcher();
            let (passing, history) = counted(&same, &matcher);
            let got = sum(&mut &five[..], &matcher).unwrap();
            assert_eq!(got.history, history, "{f:?}");
            assert_eq!(total(&mut &five[..], &matcher).unwrap(), passing, "{f:?}");
        }
    }
}
