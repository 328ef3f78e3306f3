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
//! range = varint 1 (format), then entry*, keys ascending
//! entry = varint key delta (from the row's start for the first entry, else from the
//!         previous key, in the order of signed keys; > 0 after the first)
//!         varint n: the links that follow, 0 = a busy position (see `positions`)
//!         n × (varint game id − previous id, varint move code)
//! ```

use super::{
    position::{put_links, read_link, Link},
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
    let mut r = Reader::new(body, "position range");
    let n: usize = r.int()?;
    if n == 0 {
        return Ok(Entry::Busy);
    }
    let mut links = Vec::with_capacity(n.min(body.len()));
    for _ in 0..n {
        read_link(&mut r, &mut links)?;
    }
    Ok(Entry::Quiet(links))
}

/// Walks a range row, calling `f(key, body span)` for each entry while it returns true.
fn scan(
    start: i64,
    blob: &[u8],
    mut f: impl FnMut(i64, std::ops::Range<usize>) -> bool,
) -> Result<(), StoreError> {
    let mut r = Reader::new(blob, "position range");
    let format = r.u64()?;
    if format != RANGE_FORMAT {
        return Err(StoreError::Corrupt(format!(
            "position range {start:016x}: unknown format {format}"
        )));
    }
    let mut key = start;
    let mut first = true;
    while !r.is_empty() {
        let delta = r.u64()?;
        if delta == 0 && !first {
            return Err(StoreError::Corrupt(format!(
                "position range {start:016x}: repeated key"
            )));
        }
        key = key.checked_add_unsigned(delta).ok_or_else(|| {
            StoreError::Corrupt(format!("position range {start:016x}: key overflow"))
        })?;
        first = false;
        let body = r.offset();
        let n = r.u64()?;
        for _ in 0..n.saturating_mul(2) {
            r.u64()?;
        }
        if !f(key, body..r.offset()) {
            break;
        }
    }
    Ok(())
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
        varint::put(&mut self.bodies, links.len() as u64);
        put_links(&mut self.bodies, links);
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
        let mut prev = start;
        let deltas: usize = self
            .keys
            .iter()
            .map(|&k| varint::len(k.wrapping_sub(std::mem::replace(&mut prev, k)) as u64))
            .sum();
        let total = self.bodies.len() + deltas;
        let count = total.div_ceil(ROW_BYTES).max(1);
        let mut rows = Vec::with_capacity(count);
        let mut left = total; // bytes not yet placed in a row
        let mut row_start = start;
        let mut blob = Vec::new();
        let mut prev = start;
        let mut body_start = 0;
        for (&key, &end) in self.keys.iter().zip(&self.ends) {
            let size = varint::len(key.wrapping_sub(prev) as u64) + end - body_start;
            // Cut before an entry that would take this row past its share of what is left.
            let rows_left = count.saturating_sub(rows.len()).max(1);
            if blob.len() > 1 && rows_left > 1 && blob.len() + size > left.div_ceil(rows_left) {
                left = left.saturating_sub(blob.len());
                rows.push((row_start, std::mem::take(&mut blob)));
            }
            if blob.is_empty() {
                if !rows.is_empty() {
                    row_start = key;
                    prev = key;
                }
                blob.reserve(ROW_BYTES + 64);
                varint::put(&mut blob, RANGE_FORMAT);
            }
            varint::put(&mut blob, key.wrapping_sub(prev) as u64);
            blob.extend_from_slice(&self.bodies[body_start..end]);
            prev = key;
            body_start = end;
        }
        if !blob.is_empty() {
            rows.push((row_start, blob));
        }
        rows
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
        let mut repeated = blob.clone();
        let second = index(start, &blob).unwrap()[1].1.start - 1;
        repeated[second] = 0; // a key delta of 0 after the first entry
        assert!(entries(start, &repeated).is_err());
        assert!(entries(start, &[2]).is_err(), "unknown format");
        assert!(entries(i64::MAX, &[1, 1, 1, 1, 0]).is_err(), "key overflow");
    }
}
