//! LEB128 variable-length integers, the number encoding of the `positions` blobs: seven bits
//! a byte, least significant group first, high bit set on every byte but the last.

use super::{model::GameCounts, StoreError};

/// Appends `n` (1 byte below 128, at most 10 bytes).
pub(super) fn put(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// Appends a length-prefixed string (`None` is written as the empty string: the values
/// stored this way are never empty).
pub(super) fn put_str(out: &mut Vec<u8>, s: Option<&str>) {
    let s = s.unwrap_or("");
    put(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

/// Reads what [`put`] and [`put_str`] wrote; every read checks the bounds.
pub(super) struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
    what: &'static str,
}

impl<'a> Reader<'a> {
    /// A reader over `bytes`; `what` names the blob in error messages.
    pub(super) fn new(bytes: &'a [u8], what: &'static str) -> Reader<'a> {
        Reader {
            bytes,
            pos: 0,
            what,
        }
    }

    /// How many bytes have been read.
    pub(super) fn offset(&self) -> usize {
        self.pos
    }

    /// Skips `n` bytes.
    #[inline]
    pub(super) fn skip(&mut self, n: usize) -> Result<(), StoreError> {
        if n > self.bytes.len() - self.pos.min(self.bytes.len()) {
            return Err(self.corrupt("truncated"));
        }
        self.pos += n;
        Ok(())
    }

    /// Whether every byte has been read.
    pub(super) fn is_empty(&self) -> bool {
        self.pos >= self.bytes.len()
    }

    #[cold]
    #[inline(never)]
    fn corrupt(&self, why: &str) -> StoreError {
        StoreError::Corrupt(format!("{} blob, byte {}: {why}", self.what, self.pos))
    }

    /// The next integer.
    #[inline]
    pub(super) fn u64(&mut self) -> Result<u64, StoreError> {
        // Most numbers of the blobs are below 128: one byte, no loop.
        if let Some(&b) = self.bytes.get(self.pos) {
            if b < 0x80 {
                self.pos += 1;
                return Ok(u64::from(b));
            }
        }
        self.u64_long()
    }

    /// [`Reader::u64`] of a number of more than one byte (or at the end of the bytes).
    fn u64_long(&mut self) -> Result<u64, StoreError> {
        let mut n: u64 = 0;
        for shift in (0..64).step_by(7) {
            let Some(&b) = self.bytes.get(self.pos) else {
                return Err(self.corrupt("truncated number"));
            };
            self.pos += 1;
            n |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(n);
            }
        }
        Err(self.corrupt("number longer than 64 bits"))
    }

    /// The next integer, which must fit `T`.
    #[inline]
    pub(super) fn int<T: TryFrom<u64>>(&mut self) -> Result<T, StoreError> {
        let n = self.u64()?;
        T::try_from(n).map_err(|_| self.corrupt("number out of range"))
    }

    /// The next string (`None` for the empty one).
    pub(super) fn str(&mut self) -> Result<Option<String>, StoreError> {
        let len: usize = self.int()?;
        let end = self
            .pos
            .checked_add(len)
            .filter(|&e| e <= self.bytes.len())
            .ok_or_else(|| self.corrupt("truncated text"))?;
        let s = std::str::from_utf8(&self.bytes[self.pos..end])
            .map_err(|_| self.corrupt("text is not UTF-8"))?;
        self.pos = end;
        Ok((!s.is_empty()).then(|| s.to_string()))
    }
}

/// Appends a [`GameCounts`] as eight varints: games, first wins, draws, second wins, rating
/// sum, rating count, first player's rating sum, first player's rating count (the order
/// every blob that holds counts uses: buckets format 2, summary format 3).
pub(super) fn put_counts(out: &mut Vec<u8>, c: &GameCounts) {
    for n in [
        c.games,
        c.first_wins,
        c.draws,
        c.second_wins,
        c.rating_sum,
        c.rating_count,
        c.first_rating_sum,
        c.first_rating_count,
    ] {
        put(out, n);
    }
}

impl Reader<'_> {
    /// Reads counts written by [`put_counts`].
    pub(super) fn counts(&mut self) -> Result<GameCounts, StoreError> {
        Ok(GameCounts {
            games: self.u64()?,
            first_wins: self.u64()?,
            draws: self.u64()?,
            second_wins: self.u64()?,
            rating_sum: self.u64()?,
            rating_count: self.u64()?,
            first_rating_sum: self.u64()?,
            first_rating_count: self.u64()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_strings_round_trip() {
        let values = [
            0,
            1,
            127,
            128,
            300,
            16_383,
            16_384,
            u64::from(u32::MAX),
            u64::MAX,
        ];
        let mut out = Vec::new();
        for &v in &values {
            put(&mut out, v);
        }
        put_str(&mut out, Some("中炮"));
        put_str(&mut out, None);
        // 127 takes one byte, 128 two, u64::MAX ten.
        assert_eq!(out[0], 0);
        assert_eq!(&out[2..5], &[0x7f, 0x80, 0x01]);
        let mut r = Reader::new(&out, "test");
        for &v in &values {
            assert_eq!(r.u64().unwrap(), v);
        }
        assert_eq!(r.str().unwrap().as_deref(), Some("中炮"));
        assert_eq!(r.str().unwrap(), None);
        assert!(r.is_empty());
    }

    #[test]
    fn truncated_and_overlong_input_is_an_error() {
        assert!(Reader::new(&[0x80], "t").u64().is_err());
        assert!(Reader::new(&[0xff; 11], "t").u64().is_err());
        assert!(Reader::new(&[5, b'a'], "t").str().is_err());
        assert!(Reader::new(&[2, 0xff, 0xfe], "t").str().is_err());
        assert!(Reader::new(&[0xff, 0x03], "t").int::<u8>().is_err());
    }
}
