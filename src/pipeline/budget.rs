//! The import's memory budget (`qipu import --memory MB`): how the bytes given are shared
//! between SQLite's page cache and the batches of prepared games, and when a batch closes.
//!
//! At most two batches are in memory at once: one being written, one being collected (the
//! writer's channel holds none: it is a rendezvous). Each gets [`Budget::batch_bytes`], the
//! bytes left after the page cache and a fixed allowance for the chunks in the channels
//! (2 × 4 chunks of about [`super::CHUNK_BYTES`] input each and their prepared games) and
//! the program itself, shared between the two batches with a margin for the writer's own
//! buffers (its merge of range rows). A batch's bytes are estimated per game by
//! [`crate::store::GameRecord::memory_bytes`].
//!
//! ```
//! use qipu::pipeline::Budget;
//!
//! let budget = Budget::new(1024 << 20);
//! assert!(budget.cache_bytes() + 2 * budget.batch_bytes() < 1024 << 20);
//! assert!(!budget.closes(budget.batch_bytes() - 1));
//! assert!(budget.closes(budget.batch_bytes()));
//! ```

/// The smallest budget `qipu import --memory` accepts, in bytes (64 MiB).
pub const MIN_MEMORY_BYTES: u64 = 64 << 20;

/// The default budget, in bytes (1 GiB).
pub const DEFAULT_MEMORY_BYTES: u64 = 1 << 30;

/// Bytes set aside for what is not a batch: the program, the chunks and prepared games in the
/// channels, the reader's file buffers.
const FIXED_BYTES: u64 = 40 << 20;

/// A share of the memory budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    cache: u64,
    batch: u64,
}

impl Budget {
    /// The shares of `memory` bytes (at least [`MIN_MEMORY_BYTES`] is meant; less gives
    /// the smallest shares): an eighth to the page cache, and of the rest after the fixed
    /// allowance, three eighths to each of the two batches (a quarter left to the writer).
    ///
    /// ```
    /// use qipu::pipeline::Budget;
    ///
    /// let small = Budget::new(64 << 20);
    /// assert_eq!(small.cache_bytes(), 8 << 20);
    /// assert_eq!(small.batch_bytes(), 9 << 20);
    /// ```
    pub fn new(memory: u64) -> Budget {
        let memory = memory.max(MIN_MEMORY_BYTES);
        let cache = memory / 8;
        let rest = memory - cache - FIXED_BYTES.min(memory / 2);
        Budget {
            cache,
            batch: rest * 3 / 8,
        }
    }

    /// Bytes for SQLite's page cache.
    pub fn cache_bytes(&self) -> u64 {
        self.cache
    }

    /// Estimated bytes one batch of prepared games may reach.
    pub fn batch_bytes(&self) -> u64 {
        self.batch
    }

    /// Whether a batch whose games are estimated at `batch_bytes` is full.
    pub fn closes(&self, batch_bytes: u64) -> bool {
        batch_bytes >= self.batch
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_fit_the_budget_and_scale_with_it() {
        for mb in [64u64, 100, 512, 1024, 4096] {
            let b = Budget::new(mb << 20);
            let fixed = FIXED_BYTES.min((mb << 20) / 2);
            assert!(
                b.cache_bytes() + 2 * b.batch_bytes() + fixed <= mb << 20,
                "{mb}"
            );
            assert!(b.batch_bytes() > 0);
        }
        assert!(Budget::new(512 << 20).batch_bytes() < Budget::new(1024 << 20).batch_bytes());
        // 1 GiB: 128 MiB cache, (1024 - 128 - 40) * 3/8 = 321 MiB per batch.
        let b = Budget::new(1 << 30);
        assert_eq!(b.cache_bytes(), 128 << 20);
        assert_eq!(b.batch_bytes(), 321 << 20);
    }

    #[test]
    fn a_batch_closes_at_its_share() {
        let b = Budget::new(64 << 20);
        assert!(!b.closes(0));
        assert!(!b.closes(b.batch_bytes() - 1));
        assert!(b.closes(b.batch_bytes()));
        assert!(b.closes(b.batch_bytes() + 1));
    }

    #[test]
    fn less_than_the_minimum_gets_the_minimum() {
        assert_eq!(Budget::new(1 << 20), Budget::new(MIN_MEMORY_BYTES));
    }
}
