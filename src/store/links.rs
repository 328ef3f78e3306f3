//! The links blob: the games through a position, each with the move it played there. No SQL
//! here. A busy position's `positions.links` column holds them as [`encode_links`] writes
//! them; a range row's quiet entry holds them with the last one marked ([`put_links`] with
//! `mark_last`).
//!
//! Frozen layout (any change is a new schema version):
//!
//! ```text
//! links      = (varint (game id − previous id, the first from 0), varint move code)*
//! range body = (varint (2 × (game id − previous id) + 1 if it is the last link),
//!               varint move code)+
//! move code  = Move::to_u16 (`from | to << 7`, pass 0x3fff), or 65535 = END_OF_GAME
//! ```
//!
//! Varints are LEB128; ids ascend, so every difference after the first is positive.

use super::{
    codec::END_OF_GAME,
    varint::{self, Reader},
    StoreError,
};
use crate::rules::Move;

/// A game through a position: its id and the move code it played there ([`END_OF_GAME`]
/// when it ended there).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Link {
    pub game: i64,
    pub mv: u16,
}

/// Puts links in game order, a game once: links gathered from parts that count disjoint
/// games (segments, batches), where a stray repeat must not count twice.
pub(super) fn sort_by_game(links: &mut Vec<Link>) {
    links.sort_unstable();
    links.dedup_by_key(|l| l.game);
}

/// Encodes links sorted by game id: each as (id − previous id, move code), varints.
pub(super) fn encode_links(links: &[Link]) -> Vec<u8> {
    let mut out = Vec::with_capacity(links.len() * 3);
    put_links(&mut out, links, false);
    out
}

/// Appends links sorted by game id, as [`encode_links`] writes them; with `mark_last`, each
/// id difference is doubled and the last link's has 1 added, so that the list needs no
/// count before it (range rows).
pub(super) fn put_links(out: &mut Vec<u8>, links: &[Link], mark_last: bool) {
    let mut prev = 0;
    for (i, l) in links.iter().enumerate() {
        let delta = l.game.abs_diff(prev);
        if mark_last {
            varint::put(out, delta << 1 | u64::from(i + 1 == links.len()));
        } else {
            varint::put(out, delta);
        }
        varint::put(out, u64::from(l.mv));
        prev = l.game;
    }
}

/// The inverse of [`encode_links`].
pub(super) fn decode_links(bytes: &[u8]) -> Result<Vec<Link>, StoreError> {
    let mut r = Reader::new(bytes, "links");
    let mut out = Vec::with_capacity(bytes.len() / 3);
    while !r.is_empty() {
        read_link(&mut r, &mut out, false)?;
    }
    Ok(out)
}

/// Reads one link written by [`put_links`] after those already in `out`; returns whether it
/// is marked as the last (always false without `mark_last`).
pub(super) fn read_link(
    r: &mut Reader<'_>,
    out: &mut Vec<Link>,
    mark_last: bool,
) -> Result<bool, StoreError> {
    let n = r.u64()?;
    let (delta, last) = if mark_last {
        (n >> 1, n & 1 == 1)
    } else {
        (n, false)
    };
    let mv: u16 = r.int()?;
    let prev = out.last().map_or(0, |l| l.game);
    if delta == 0 && !out.is_empty() {
        return Err(StoreError::Corrupt("links: repeated game".into()));
    }
    let game = i64::try_from(delta)
        .ok()
        .and_then(|d| prev.checked_add(d))
        .ok_or_else(|| StoreError::Corrupt("links: game id overflow".into()))?;
    out.push(Link { game, mv });
    Ok(last)
}

/// The move a code stands for: `None` for [`END_OF_GAME`].
///
/// # Errors
/// [`StoreError::Corrupt`] if the code is neither.
pub(super) fn move_from_code(code: u16) -> Result<Option<Move>, StoreError> {
    if code == END_OF_GAME {
        return Ok(None);
    }
    Move::from_u16(code)
        .map(Some)
        .ok_or_else(|| StoreError::Corrupt(format!("bad move code {code}")))
}

/// The code of a move, [`END_OF_GAME`] for `None`.
pub(super) fn move_code(m: Option<Move>) -> u16 {
    m.map_or(END_OF_GAME, Move::to_u16)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_round_trip_and_reject_garbage() {
        let links = [
            Link { game: 1, mv: 5000 },
            Link {
                game: 2,
                mv: END_OF_GAME,
            },
            Link {
                game: 900_000,
                mv: 0,
            },
        ];
        let blob = encode_links(&links);
        // (1 + 2) + (1 + 3) + (3 + 1) bytes.
        assert_eq!(blob.len(), 11);
        assert_eq!(decode_links(&blob).unwrap(), links);
        // A repeated id (delta 0 after the first link) and a move code over 16 bits.
        assert!(decode_links(&[1, 1, 0, 1]).is_err());
        assert!(decode_links(&[1, 0x80, 0x80, 0x04]).is_err());
    }
}
