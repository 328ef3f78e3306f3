//! The `position_ranges` blobs: every position of a key range packed into one row. No SQL here.
//!
//! A row starts at its `start` key and holds the positions whose keys lie between it and the
//! next row's start, ascending. A quiet position (at most [`LIST_MAX`](super::LIST_MAX)
//! games) is kept whole in its entry: its links. A busy one is only marked there; its links
//! and summary have a row of their own in `positions`. Packing positions by key range makes
//! a few thousand rows out of a few hundred thousand positions: the import writes and the
//! file stores far less per position, and a lookup is still one B-tree descent.
//!
//! ```text
//! range = varint 1 (format), varint m (entries), varint k (Rice parameter),
//!         m key deltas, Rice-coded (below), padded with 0 bits to a whole byte,
//!         m bodies, in key order
//! delta = from the row's start for the first entry, else from the previous key (> 0), in
//!         the order of signed keys
//! body  = a single 0 byte for a busy position (see `positions`),
//!         or its links: (varint 2 × (game id − previous id) + 1 if it is the last link,
//!                        varint move code)+, ids ascending, the first from 0
//! ```
//!
//! Rice code of a delta `d`, bits from the lowest of each byte up: `d >> k` one bits, a zero
//! bit, then the `k` low bits of `d`; when `d >> k` is 16 or more, 16 one bits and then all 64
//! bits of `d`. Keys are uniform, so the deltas of a row are close to exponentially
//! distributed, for which this code is near the entropy: about 6.3 bytes a key where LEB128
//! varints take 7.3. A quiet position of one game, four in five of them, takes about 11 bytes:
//! 6.3 of key, 2 or 3 of game id and 2 of move.

use super::{
    links::{put_links, read_link, Link},
    varint::{self, Reader},
    StoreError,
};

const RANGE_FORMAT: u64 = 1;

/// A rewritten range is cut into rows of at most about this many bytes: four fill a 4 KiB
/// page (a cell also takes about 16 bytes of SQLite's own).
pub(super) const ROW_BYTES: usize = 980;

/// A position as a range row records it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Entry {
    /// More than `LIST_MAX` games: links and summary are in `positions`.
    Busy,
    /// The games through the position, by id.
    Quiet(Vec<Link>),
}

/// Where each entry of a range row is: its key and the byte span of its body (the count and
/// the links) in the blob.
pub(super) fn index(
    start: i64,
    blob: &[u8],
) -> Result<Vec<(i64, std::ops::Range<usize>)>, StoreError> {
    let mut out = Vec::with_capacity(blob.len() / 12);
    scan(start, blob, |key, body| {
        out.push((key, body));
        true
    })?;
    Ok(out)
}

/// The entry of `key` in a range row, if it has one.
pub(super) fn find(start: i64, blob: &[u8], key: i64) -> Result<Option<Entry>, StoreError> {
    let mut found = None;
    scan(start, blob, |k, body| {
        if k == key {
            found = Some(body);
        }
        k < key
    })?;
    found.map(|body| entry(&blob[body])).transpose()
}

/// Every entry of a range row, in key order.
pub(super) fn entries(start: i64, blob: &[u8]) -> Result<Vec<(i64, Entry)>, StoreError> {
    index(start, blob)?
        .into_iter()
        .map(|(key, body)| Ok((key, entry(&blob[body])?)))
        .collect()
}

/// Decodes an entry's body (as spanned by [`index`]).
pub(super) fn entry(body: &[u8]) -> Result<Entry, StoreError> {
    if body == [0] {
        return Ok(Entry::Busy);
    }
    let mut r = Reader::new(body, "position range");
    let mut links = Vec::with_capacity(body.len() / 4);
    while !read_link(&mut r, &mut links, true)? {}
    Ok(Entry::Quiet(links))
}

/// Walks a range row, calling `f(key, body span)` for each entry while it returns true.
fn scan(
    start: i64,
    blob: &[u8],
    mut f: impl FnMut(i64, std::ops::Range<usize>) -> bool,
) -> Result<(), StoreError> {
    let corrupt = |why: &str| StoreError::Corrupt(format!("position range {start:016x}: {why}"));
    let mut r = Reader::new(blob, "position range");
    let format = r.u64()?;
    if format != RANGE_FORMAT {
        return Err(corrupt(&format!("unknown format {format}")));
    }
    let m: usize = r.int()?;
    let k: u32 = r.int()?;
    if k > 63 || m > blob.len() {
        return Err(corrupt("bad header"));
    }
    let mut bits = BitReader::new(&blob[r.offset()..]);
    let mut keys = Vec::with_capacity(m);
    let mut key = start;
    for i in 0..m {
        let delta = bits.rice(k).ok_or_else(|| corrupt("truncated keys"))?;
        if delta == 0 && i > 0 {
            return Err(corrupt("repeated key"));
        }
        key = key
            .checked_add_unsigned(delta)
            .ok_or_else(|| corrupt("key overflow"))?;
        keys.push(key);
    }
    let mut r = Reader::new(blob, "position range");
    r.skip(blob.len() - bits.rest())?;
    for key in keys {
        let body = r.offset();
        // A busy mark (0), or links up to the one marked last.
        let mut id = r.u64()?;
        if id != 0 {
            loop {
                r.u64()?; // its move
                if id & 1 == 1 {
                    break;
                }
                id = r.u64()?;
                if id < 2 {
                    return Err(corrupt("repeated game"));
                }
            }
        }
        if !f(key, body..r.offset()) {
            return Ok(());
        }
    }
    if !r.is_empty() {
        return Err(corrupt("trailing bytes"));
    }
    Ok(())
}

/// The Rice code's quotient at which a delta is written whole instead.
const RICE_ESCAPE: u64 = 16;

/// About how many bits the Rice code takes for a delta (the row's parameter not yet known).
fn key_bits(delta: u64) -> usize {
    (64 - delta.leading_zeros() as usize) + 2
}

/// Bits appended from the lowest of each byte up.
#[derive(Default)]
pub(super) struct BitWriter {
    bytes: Vec<u8>,
    acc: u64,
    used: u32,
}

impl BitWriter {
    /// Appends the `n` (≤ 32) low bits of `v`.
    pub(super) fn put(&mut self, v: u64, n: u32) {
        self.acc |= (v & ((1u64 << n) - 1)) << self.used;
        self.used += n;
        while self.used >= 8 {
            self.bytes.push(self.acc as u8);
            self.acc >>= 8;
            self.used -= 8;
        }
    }

    fn rice(&mut self, d: u64, k: u32) {
        let q = d >> k;
        if q >= RICE_ESCAPE {
            self.put(u64::MAX, RICE_ESCAPE as u32);
            self.put(d, 32);
            self.put(d >> 32, 32);
        } else {
            self.put((1 << q) - 1, q as u32 + 1); // q ones, then a zero
            self.put(d, k.min(32));
            if k > 32 {
                self.put(d >> 32, k - 32);
            }
        }
    }

    pub(super) fn finish(mut self) -> Vec<u8> {
        if self.used > 0 {
            self.bytes.push(self.acc as u8);
        }
        self.bytes
    }
}

/// Reads what [`BitWriter`] wrote.
pub(super) struct BitReader<'a> {
    bytes: &'a [u8],
    pos: usize,
    acc: u64,
    have: u32,
}

impl<'a> BitReader<'a> {
    pub(super) fn new(bytes: &'a [u8]) -> BitReader<'a> {
        BitReader {
            bytes,
            pos: 0,
            acc: 0,
            have: 0,
        }
    }

    /// The next `n` (≤ 32) bits.
    pub(super) fn get(&mut self, n: u32) -> Option<u64> {
        while self.have < n {
            let &b = self.bytes.get(self.pos)?;
            self.pos += 1;
            self.acc |= u64::from(b) << self.have;
            self.have += 8;
        }
        let v = self.acc & ((1u64 << n) - 1);
        self.acc >>= n;
        self.have -= n;
        Some(v)
    }

    fn rice(&mut self, k: u32) -> Option<u64> {
        let mut q = 0;
        while q < RICE_ESCAPE && self.get(1)? == 1 {
            q += 1;
        }
        if q == RICE_ESCAPE {
            return Some(self.get(32)? | self.get(32)? << 32);
        }
        let low = self.get(k.min(32))?;
        let high = if k > 32 { self.get(k - 32)? } else { 0 };
        Some(q << k | high << 32 | low)
    }

    /// Bytes not yet started (the partly read byte counts as read).
    fn rest(&self) -> usize {
        self.bytes.len() - self.pos
    }
}

/// Encodes one row: `keys` ascending from `start`, each with its body.
fn encode_row(start: i64, keys: &[i64], bodies: &[u8]) -> Vec<u8> {
    let mut prev = start;
    let deltas: Vec<u64> = keys
        .iter()
        .map(|&k| k.wrapping_sub(std::mem::replace(&mut prev, k)) as u64)
        .collect();
    // The Rice parameter near log2 of the mean delta (the first delta, from the row's
    // start, left out: it is 0 or an outlier).
    let rest = deltas.get(1..).unwrap_or_default();
    let sum: u128 = rest.iter().map(|&d| u128::from(d)).sum();
    let mean = (sum / rest.len().max(1) as u128) as u64;
    let k = 63u32.saturating_sub(mean.leading_zeros());
    let mut bits = BitWriter::default();
    for &d in &deltas {
        bits.rice(d, k);
    }
    let mut out = Vec::with_capacity(bodies.len() + keys.len() * 7 + 8);
    varint::put(&mut out, RANGE_FORMAT);
    varint::put(&mut out, keys.len() as u64);
    varint::put(&mut out, u64::from(k));
    out.extend_from_slice(&bits.finish());
    out.extend_from_slice(bodies);
    out
}

/// Entries being gathered for a rewrite of a range, ascending, cut into rows at the end.
#[derive(Default)]
pub(super) struct Packer {
    keys: Vec<i64>,
    bodies: Vec<u8>,
    ends: Vec<usize>,
}

impl Packer {
    /// Adds an entry whose body is already encoded (copied from an old row).
    pub(super) fn push_body(&mut self, key: i64, body: &[u8]) {
        self.keys.push(key);
        self.bodies.extend_from_slice(body);
        self.ends.push(self.bodies.len());
    }

    /// Adds a quiet position and its links (sorted by id, not empty).
    pub(super) fn push_links(&mut self, key: i64, links: &[Link]) {
        self.keys.push(key);
        put_links(&mut self.bodies, links, true);
        self.ends.push(self.bodies.len());
    }

    /// Adds a busy position's mark.
    pub(super) fn push_busy(&mut self, key: i64) {
        self.push_body(key, &[0]);
    }

    /// The rows of the range that starts at `start` (at or below the first key): as few rows
    /// of about equal size as keep each near [`ROW_BYTES`] or below, each after the first
    /// starting at its first key. `(start, blob)` pairs, ascending.
    pub(super) fn rows(&self, start: i64) -> Vec<(i64, Vec<u8>)> {
        // Sizes in bits, keys estimated.
        let mut prev = start;
        let mut body_start = 0;
        let sizes: Vec<usize> = self
            .keys
            .iter()
            .zip(&self.ends)
            .map(|(&k, &end)| {
                let delta = k.wrapping_sub(std::mem::replace(&mut prev, k)) as u64;
                key_bits(delta) + 8 * (end - std::mem::replace(&mut body_start, end))
            })
            .collect();
        let total: usize = sizes.iter().sum();
        let row_bits = 8 * ROW_BYTES - 32; // less the header
        let count = total.div_ceil(row_bits).max(1);
        let mut left = total; // bits not yet placed in a row
        let mut cuts = vec![0];
        let mut row = 0;
        for (i, &size) in sizes.iter().enumerate() {
            // Cut before an entry that would take this row past its share of what is left.
            let rows_left = count.saturating_sub(cuts.len() - 1).max(1);
            if row > 0 && rows_left > 1 && row + size > left.div_ceil(rows_left) {
                left = left.saturating_sub(row);
                cuts.push(i);
                row = 0;
            }
            row += size;
        }
        cuts.push(self.keys.len());
        cuts.windows(2)
            .filter(|w| w[0] < w[1])
            .map(|w| {
                let (a, b) = (w[0], w[1]);
                let row_start = if a == 0 { start } else { self.keys[a] };
                let from = if a == 0 { 0 } else { self.ends[a - 1] };
                let bodies = &self.bodies[from..self.ends[b - 1]];
                (row_start, encode_row(row_start, &self.keys[a..b], bodies))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn links(ids: &[i64]) -> Vec<Link> {
        ids.iter()
            .map(|&game| Link {
                game,
                mv: (game * 7) as u16,
            })
            .collect()
    }

    #[test]
    fn one_row_round_trips_from_the_lowest_start() {
        let mut p = Packer::default();
        p.push_links(i64::MIN, &links(&[1]));
        p.push_busy(-5);
        p.push_links(0, &links(&[2, 3, 900_000]));
        p.push_links(i64::MAX, &links(&[4]));
        let rows = p.rows(i64::MIN);
        assert_eq!(rows.len(), 1);
        let (start, blob) = &rows[0];
        assert_eq!(*start, i64::MIN);
        let want = vec![
            (i64::MIN, Entry::Quiet(links(&[1]))),
            (-5, Entry::Busy),
            (0, Entry::Quiet(links(&[2, 3, 900_000]))),
            (i64::MAX, Entry::Quiet(links(&[4]))),
        ];
        assert_eq!(entries(*start, blob).unwrap(), want);
        assert_eq!(find(*start, blob, 0).unwrap(), Some(want[2].1.clone()));
        assert_eq!(find(*start, blob, -5).unwrap(), Some(Entry::Busy));
        assert_eq!(find(*start, blob, 1).unwrap(), None);
        assert_eq!(find(*start, blob, -6).unwrap(), None);
    }

    #[test]
    fn many_entries_are_cut_into_rows_of_about_equal_size() {
        let mut p = Packer::default();
        let keys: Vec<i64> = (0..5000i64)
            .map(|i| i.wrapping_mul(0x3a5f_1c2b_9d4e_7f61))
            .collect();
        let mut sorted = keys.clone();
        sorted.sort_unstable();
        for (i, &k) in sorted.iter().enumerate() {
            p.push_links(k, &links(&[i as i64 + 1]));
        }
        let start = sorted[0] - 100;
        let rows = p.rows(start);
        assert!(rows.len() > 20, "{}", rows.len());
        assert_eq!(rows[0].0, start);
        let mut back = Vec::new();
        for (i, (start, blob)) in rows.iter().enumerate() {
            assert!(blob.len() < ROW_BYTES + 20, "row {i}: {} bytes", blob.len());
            if i > 0 {
                assert!(blob.len() * 2 > ROW_BYTES, "row {i}: {} bytes", blob.len());
                assert!(*start > rows[i - 1].0);
            }
            for (k, e) in entries(*start, blob).unwrap() {
                back.push((k, e));
            }
        }
        let want: Vec<(i64, Entry)> = sorted
            .iter()
            .enumerate()
            .map(|(i, &k)| (k, Entry::Quiet(links(&[i as i64 + 1]))))
            .collect();
        assert_eq!(back, want);
        // The index gives each body; copying bodies rebuilds the same rows.
        let mut copy = Packer::default();
        for (start, blob) in &rows {
            for (k, body) in index(*start, blob).unwrap() {
                copy.push_body(k, &blob[body]);
            }
        }
        assert_eq!(copy.rows(rows[0].0), rows);
    }

    #[test]
    fn rice_codes_round_trip_for_every_parameter_and_outliers() {
        let values = [0, 1, 2, 3, 1 << 20, (1 << 49) + 12_345, 1 << 62, u64::MAX];
        for k in 0..64 {
            let mut w = BitWriter::default();
            for &v in &values {
                w.rice(v, k);
            }
            let bytes = w.finish();
            let mut r = BitReader::new(&bytes);
            for &v in &values {
                assert_eq!(r.rice(k), Some(v), "k = {k}");
            }
            assert_eq!(r.rest(), 0);
        }
        // One far key among close ones is written whole (the escape), and read back.
        let mut p = Packer::default();
        let keys: Vec<i64> = (0..100).chain([1 << 62]).collect();
        for (i, &k) in keys.iter().enumerate() {
            p.push_links(k, &links(&[i as i64 + 1]));
        }
        let (start, blob) = p.rows(0).remove(0);
        let back: Vec<i64> = entries(start, &blob).unwrap().iter().map(|e| e.0).collect();
        assert_eq!(back, keys);
    }

    #[test]
    fn damaged_rows_are_errors() {
        let mut p = Packer::default();
        p.push_links(10, &links(&[1, 2]));
        p.push_links(20, &links(&[3]));
        let (start, blob) = p.rows(0).remove(0);
        // Cut anywhere but between entries, the row is unreadable.
        let ends: Vec<usize> = index(start, &blob)
            .unwrap()
            .iter()
            .map(|e| e.1.end)
            .collect();
        for cut in 2..blob.len() {
            if !ends.contains(&cut) {
                assert!(entries(start, &blob[..cut]).is_err(), "cut at {cut}");
            }
        }
        let mut twice = Packer::default();
        twice.push_links(10, &links(&[1]));
        twice.push_links(10, &links(&[2]));
        let (start, repeated) = twice.rows(0).remove(0);
        assert!(entries(start, &repeated).is_err(), "a repeated key");
        assert!(entries(start, &[2]).is_err(), "unknown format");
        assert!(entries(i64::MAX, &[1, 1, 1, 1, 0]).is_err(), "key overflow");
    }
}
