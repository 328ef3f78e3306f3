//! Writing import batches: games and their statistics in one transaction.

use std::collections::HashMap;

use super::{
    codec::{pack_moves, rank, result_code, variant_code},
    record::{GameRecord, OPENING_PLIES},
    GameCounts, Store, StoreError,
};

/// What a batch did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BatchOutcome {
    /// New games stored and counted.
    pub imported: u64,
    /// Games already in the database (or earlier in the batch), not counted again.
    pub duplicates: u64,
}

/// Hasher for maps keyed by Zobrist keys, which are already uniformly random: one
/// multiply-xorshift instead of SipHash.
#[derive(Default, Clone, Copy)]
struct KeyHasher(u64);

impl std::hash::Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        let z = self.0.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        z ^ (z >> 29)
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 ^= n;
    }
    fn write_u16(&mut self, n: u16) {
        self.0 = self.0.rotate_left(16) ^ u64::from(n);
    }
    fn write_usize(&mut self, n: usize) {
        self.0 ^= n as u64;
    }
}

type FastMap<K, V> = HashMap<K, V, std::hash::BuildHasherDefault<KeyHasher>>;

/// Statistics of one (position, move) summed over a batch.
#[derive(Default)]
struct Agg<'a> {
    counts: GameCounts,
    first_date: Option<&'a str>,
    last_date: Option<&'a str>,
}

impl<'a> Agg<'a> {
    fn add(&mut self, r: &'a GameRecord) {
        self.counts
            .add_game(r.result, [r.tags.first_rating, r.tags.second_rating]);
        if let Some(d) = r.tags.date.as_deref() {
            if self.first_date.is_none_or(|f| d < f) {
                self.first_date = Some(d);
            }
            if self.last_date.is_none_or(|l| d > l) {
                self.last_date = Some(d);
            }
        }
    }
}

const INSERT_GAME: &str = "INSERT OR IGNORE INTO games (hash, variant, source_file, source_index, \
    event, site, round, date, first, second, first_rating, second_rating, result, ecco, opening, \
    variation, first_formation, second_formation, start_fen, plies, moves) \
    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21)";

const UPSERT_MOVE: &str = "INSERT INTO moves (key, mv, games, first_wins, draws, second_wins, \
    rating_sum, rating_count, first_date, last_date) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10) \
    ON CONFLICT (key, mv) DO UPDATE SET games = games + excluded.games, \
    first_wins = first_wins + excluded.first_wins, draws = draws + excluded.draws, \
    second_wins = second_wins + excluded.second_wins, rating_sum = rating_sum + excluded.rating_sum, \
    rating_count = rating_count + excluded.rating_count, \
    first_date = CASE WHEN excluded.first_date IS NOT NULL AND (first_date IS NULL OR excluded.first_date < first_date) \
        THEN excluded.first_date ELSE first_date END, \
    last_date = CASE WHEN excluded.last_date IS NOT NULL AND (last_date IS NULL OR excluded.last_date > last_date) \
        THEN excluded.last_date ELSE last_date END";

const UPSERT_OPENING: &str =
    "INSERT INTO position_openings (key, label, games) VALUES (?1, ?2, ?3) \
    ON CONFLICT (key, label) DO UPDATE SET games = games + excluded.games";

const INSERT_POSITION_GAME: &str =
    "INSERT OR IGNORE INTO position_games (key, rank, game_id, mv) VALUES (?1, ?2, ?3, ?4)";

impl Store {
    /// Stores a batch of games and adds the statistics of the new ones, all in one
    /// transaction: either the whole batch is in the database or none of it. Games whose
    /// content hash is already stored (or repeats within the batch) are skipped.
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails; the batch is then rolled back.
    pub fn write_batch(&mut self, records: &[GameRecord]) -> Result<BatchOutcome, StoreError> {
        let tx = self.conn.transaction()?;
        let mut out = BatchOutcome::default();
        let mut moves: FastMap<(u64, u16), Agg> = FastMap::default();
        let mut openings: FastMap<(u64, &str), i64> = FastMap::default();
        let mut links: Vec<(i64, i64, i64, u16)> = Vec::new();
        {
            let mut insert = tx.prepare_cached(INSERT_GAME)?;
            for r in records {
                let t = &r.tags;
                let changed = insert.execute(rusqlite::params![
                    r.hash as i64,
                    variant_code(r.variant),
                    r.source.file,
                    r.source.index as i64,
                    t.event,
                    t.site,
                    t.round,
                    t.date,
                    t.first,
                    t.second,
                    t.first_rating,
                    t.second_rating,
                    result_code(r.result),
                    t.ecco,
                    t.opening,
                    t.variation,
                    t.first_formation,
                    t.second_formation,
                    r.start_fen,
                    r.moves.len() as i64,
                    pack_moves(&r.moves),
                ])?;
                if changed == 0 {
                    out.duplicates += 1;
                    continue;
                }
                out.imported += 1;
                let id = tx.last_insert_rowid();
                let rk = rank([t.first_rating, t.second_rating], t.date.as_deref());
                for &(key, mv, ply) in &r.positions {
                    moves.entry((key, mv)).or_default().add(r);
                    links.push((key as i64, rk, id, mv));
                    if usize::from(ply) < OPENING_PLIES {
                        let label = r.opening_label.as_deref().unwrap_or("");
                        *openings.entry((key, label)).or_default() += 1;
                    }
                }
            }
        }
        {
            // Sorted by key so that consecutive writes touch neighbouring pages.
            let mut rows: Vec<_> = moves.into_iter().collect();
            rows.sort_unstable_by_key(|((k, m), _)| (*k as i64, *m));
            let mut upsert = tx.prepare_cached(UPSERT_MOVE)?;
            for ((key, mv), a) in rows {
                upsert.execute(rusqlite::params![
                    key as i64,
                    mv,
                    a.counts.games as i64,
                    a.counts.first_wins as i64,
                    a.counts.draws as i64,
                    a.counts.second_wins as i64,
                    a.counts.rating_sum as i64,
                    a.counts.rating_count as i64,
                    a.first_date,
                    a.last_date,
                ])?;
            }
            links.sort_unstable();
            let mut link = tx.prepare_cached(INSERT_POSITION_GAME)?;
            for (key, rk, id, mv) in links {
                link.execute(rusqlite::params![key, rk, id, mv])?;
            }
            let mut rows: Vec<_> = openings.into_iter().collect();
            rows.sort_unstable_by_key(|((k, l), _)| (*k as i64, *l));
            let mut upsert = tx.prepare_cached(UPSERT_OPENING)?;
            for ((key, label), n) in rows {
                upsert.execute(rusqlite::params![key as i64, label, n])?;
            }
        }
        tx.commit()?;
        Ok(out)
    }
}
