//! What an import batch reports ([`BatchOutcome`]): its games' fates, where its time went
//! ([`BatchTimings`]) and the bytes of position rows it wrote ([`BatchBytes`]). Plain values
//! filled in by `write.rs`; no SQL here.

use std::time::Duration;

/// What a batch did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BatchOutcome {
    /// New games stored and counted.
    pub imported: u64,
    /// Games already in the database (or earlier in the batch), not counted again.
    pub duplicates: u64,
    /// Other copies of a stored game or of a game of the batch (see `store::copies`): not
    /// stored as games; a richer copy gave the stored game its metadata.
    pub merged: u64,
    /// Busy positions whose sums took a richer copy's new facts as a delta (no other game
    /// read).
    pub copy_deltas: u64,
    /// Busy positions counted again from all their games, a richer copy's delta not being
    /// exact there (see `Summary::replace`): a measure of the copies' cost.
    pub copy_recounts: u64,
    /// Where the batch's time went.
    pub timings: BatchTimings,
}

/// How long each step of a batch took (wall time of the writing thread), for `qipu import
/// --timings`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BatchTimings {
    /// Sorting the batch's records out against the stored games (`store::copies`).
    pub plan: Duration,
    /// Inserting the new games and their facts.
    pub insert: Duration,
    /// Merging the touched range rows (read, merge, write) and promoting new busy positions.
    pub ranges: Duration,
    /// Merging the touched busy positions' rows and lists.
    pub busy: Duration,
    /// The player index.
    pub players: Duration,
    /// Richer copies taking over stored games.
    pub copies: Duration,
    /// Recomputing the persons of the player index (`store::persons`).
    pub persons: Duration,
    /// The commit (writing the WAL, and a checkpoint when SQLite runs one).
    pub commit: Duration,
    /// The bytes of the position rows the batch wrote, by kind.
    pub written: BatchBytes,
}

/// The bytes of the position blobs a batch wrote, by kind: every row it touched is written
/// whole, so these grow with the rows (a measure of what a batch rewrites, issue 31).
/// Richer copies' rewrites (`store::copies`) are not counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BatchBytes {
    /// Range rows (`position_ranges.entries`: the quiet positions' links).
    pub ranges: u64,
    /// Busy positions' rows written (new and merged ones).
    pub busy_rows: u64,
    /// Their summaries (`positions.summary`).
    pub summary: u64,
    /// Their links (`positions.links`).
    pub links: u64,
    /// Their buckets (`positions.buckets`).
    pub buckets: u64,
    /// The lists of the busy positions of more than `LISTS_FROM` games (`position_lists`).
    pub lists: u64,
}

impl BatchBytes {
    /// Counts one busy row of these blob lengths.
    pub(super) fn busy_row(&mut self, summary: usize, links: usize, buckets: usize) {
        self.busy_rows += 1;
        self.summary += summary as u64;
        self.links += links as u64;
        self.buckets += buckets as u64;
    }
}
