//! Segments of the position statistics: which tables count which games, and which of them a
//! statement addresses. No blob layout here, and no answer: the readers and the writer run
//! their statements on the tables this module names.
//!
//! The statistics of the games of one range of ids live in one segment's three tables (its
//! busy positions, its range rows, its full lists; see `schema/README.md`). An import writes
//! into the last segment until it is sealed (once it counts [`SEGMENT_GAMES`] games, or by
//! [`Store::seal_segment`]), then opens a new one: the games of the sealed segments are
//! never counted again, so what a batch rewrites is bounded by its segment, not by the
//! database.
//! A question about a position asks every segment that counts games and adds up their
//! answers (`read/merge.rs`); each segment answers exactly for its own games, and every
//! answer is a sum, a minimum or maximum, or a best-of list, which add up exactly.
//!
//! The statements of `sql.rs` name segment 1's tables (`positions`, `position_ranges`,
//! `position_lists`); [`Tables::sql`] gives them for another segment. The store keeps the
//! segment its statistics statements address ([`Store::in_segment`] sets it for a call and
//! puts it back); it is segment 1 otherwise, which is what the migrations before schema 18,
//! written for those tables, address.

use std::{
    borrow::Cow,
    ffi::{CStr, CString},
    sync::Arc,
};

use rusqlite::OptionalExtension;

use super::{sql, Store, StoreError};

/// A segment is sealed, and the next batch opens a new one, once it counts this many games:
/// what a batch rewrites of its segment's rows grows with the segment, so this bounds the
/// cost of a game at any database size (at 1M synthetic games a batch rewrites about 641
/// bytes a game of its segment: `docs/scaling.md`).
pub const SEGMENT_GAMES: u64 = 1_000_000;

/// The names of the three tables of segment 1, as the statements of `sql.rs` write them.
const BASE: [&str; 3] = ["positions", "position_ranges", "position_lists"];

/// One segment's tables.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Tables {
    /// The segment's id (`segments.id`).
    pub id: i64,
    /// Its busy positions', range rows' and lists' table names, in [`BASE`]'s order.
    names: [String; 3],
    positions: CString,
    lists: CString,
}

impl Tables {
    /// The tables of segment `id` (segment 1: the schema's own tables; segment 3:
    /// `positions_3`, `position_ranges_3`, `position_lists_3`).
    pub(super) fn of(id: i64) -> Tables {
        let name = |base: &str| {
            if id == 1 {
                base.to_string()
            } else {
                format!("{base}_{id}")
            }
        };
        let names = BASE.map(name);
        // Table names are ASCII letters, digits and underscores: never a 0 byte.
        let c = |s: &str| CString::new(s).unwrap_or_default();
        Tables {
            id,
            positions: c(&names[0]),
            lists: c(&names[2]),
            names,
        }
    }

    /// A statement of `sql.rs` on these tables: every whole word that names one of segment
    /// 1's tables names this segment's.
    pub(super) fn sql<'q>(&self, statement: &'q str) -> Cow<'q, str> {
        if self.id == 1 {
            return Cow::Borrowed(statement);
        }
        let mut out = String::with_capacity(statement.len() + 8);
        let mut word = String::new();
        let flush = |word: &mut String, out: &mut String| {
            match BASE.iter().position(|b| b == word) {
                Some(i) => out.push_str(&self.names[i]),
                None => out.push_str(word),
            }
            word.clear();
        };
        for ch in statement.chars() {
            if ch.is_ascii_alphanumeric() || ch == '_' {
                word.push(ch);
            } else {
                flush(&mut word, &mut out);
                out.push(ch);
            }
        }
        flush(&mut word, &mut out);
        Cow::Owned(out)
    }

    /// The table of the busy positions (for reading a blob in parts).
    pub(super) fn positions_table(&self) -> &CStr {
        &self.positions
    }

    /// The table of the full lists (for reading a blob in parts).
    pub(super) fn lists_table(&self) -> &CStr {
        &self.lists
    }

    /// The statements that create this segment's tables (segment 1's only where they were
    /// dropped: the schema has them).
    pub(super) fn create(&self) -> String {
        self.sql(sql::CREATE_SEGMENT_TABLES).into_owned()
    }

    /// The statements that drop this segment's tables (those that exist).
    pub(super) fn drop_all(&self) -> String {
        self.sql(sql::DROP_SEGMENT_TABLES).into_owned()
    }

    /// The statements that rename this segment's tables to `to`'s.
    pub(super) fn rename_to(&self, to: &Tables) -> String {
        self.names
            .iter()
            .zip(&to.names)
            .map(|(from, to)| format!("ALTER TABLE {from} RENAME TO {to};"))
            .collect()
    }
}

/// A segment that counts games: its tables and the ids it counts.
#[derive(Clone, Debug)]
pub(super) struct Segment {
    pub tables: Arc<Tables>,
    /// The smallest and greatest id it counts.
    pub games: std::ops::RangeInclusive<i64>,
}

impl Store {
    /// The tables the statistics statements address now.
    pub(super) fn tables(&self) -> Arc<Tables> {
        self.tables.borrow().clone()
    }

    /// A statement of `sql.rs` on the tables addressed now.
    pub(super) fn q(&self, statement: &'static str) -> Cow<'static, str> {
        self.tables.borrow().sql(statement)
    }

    /// Runs `f` with the statistics statements addressing `tables`, then addresses again
    /// what was addressed before.
    pub(super) fn in_segment<T>(
        &self,
        tables: &Arc<Tables>,
        f: impl FnOnce() -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let before = self.tables.replace(tables.clone());
        let out = f();
        self.tables.replace(before);
        out
    }

    /// The segments that count games, oldest first (a database from before schema 18, which
    /// only a migration reads, has segment 1 alone).
    pub(super) fn segments(&self) -> Result<Vec<Segment>, StoreError> {
        if self.schema_version()? < 18 {
            return Ok(vec![Segment {
                tables: Arc::new(Tables::of(1)),
                games: i64::MIN..=i64::MAX,
            }]);
        }
        let mut stmt = self.conn.prepare_cached(sql::LIVE_SEGMENTS)?;
        let rows = stmt.query_map([], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, i64>(2)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (id, first, last) = row?;
            out.push(Segment {
                tables: Arc::new(Tables::of(id)),
                games: first..=last,
            });
        }
        Ok(out)
    }

    /// The segment a batch of new games is counted in, inside the batch's transaction: the
    /// last one, unless it is sealed or full (then it is sealed and a new one is created).
    pub(super) fn open_segment(&self) -> Result<Arc<Tables>, StoreError> {
        let last: Option<(i64, i64, bool)> = self
            .conn
            .prepare_cached(sql::LAST_SEGMENT)?
            .query_row([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .optional()?;
        let id = match last {
            Some((id, games, sealed)) if !sealed && (games as u64) < SEGMENT_GAMES => id,
            Some((id, _, _)) => {
                self.conn.prepare_cached(sql::SEAL_SEGMENT)?.execute([id])?;
                id + 1
            }
            None => 1,
        };
        if last.is_none_or(|(last, _, _)| last != id) {
            self.conn.prepare_cached(sql::ADD_SEGMENT)?.execute([id])?;
            if id != 1 {
                self.conn.execute_batch(&Tables::of(id).create())?;
            }
        }
        Ok(Arc::new(Tables::of(id)))
    }

    /// Records that segment `id` now counts `games` more games, the newest of which is
    /// `last` and the oldest `first` (in the batch's transaction).
    pub(super) fn count_in_segment(
        &self,
        id: i64,
        first: i64,
        last: i64,
        games: u64,
    ) -> Result<(), StoreError> {
        self.conn
            .prepare_cached(sql::COUNT_IN_SEGMENT)?
            .execute(rusqlite::params![id, first, last, games as i64])?;
        Ok(())
    }

    /// Seals the last segment: the next batch counts its games in a new one. The store
    /// seals a segment by itself once it is full; this is for a caller that wants the
    /// segments of a collection apart (and for tests of several segments).
    ///
    /// ```
    /// let mut store = qipu::store::Store::open_in_memory()?;
    /// store.seal_segment()?;
    /// # Ok::<_, qipu::store::StoreError>(())
    /// ```
    ///
    /// # Errors
    /// [`StoreError`] if SQLite fails.
    pub fn seal_segment(&mut self) -> Result<(), StoreError> {
        self.conn.execute(sql::SEAL_OPEN_SEGMENTS, [])?;
        Ok(())
    }

    /// The schema version of the file (`PRAGMA user_version`).
    pub(super) fn schema_version(&self) -> Result<i64, StoreError> {
        Ok(self
            .conn
            .prepare_cached(sql::USER_VERSION)?
            .query_row([], |r| r.get(0))?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_name_the_segments_tables_and_only_whole_words() {
        let t = Tables::of(3);
        assert_eq!(
            t.sql("SELECT 1 FROM position_ranges) OR EXISTS (SELECT 1 FROM positions)"),
            "SELECT 1 FROM position_ranges_3) OR EXISTS (SELECT 1 FROM positions_3)"
        );
        assert_eq!(
            t.sql("INSERT INTO position_lists (key, lists) VALUES (?1, ?2)"),
            "INSERT INTO position_lists_3 (key, lists) VALUES (?1, ?2)"
        );
        // Other words that contain a table's name are left alone.
        assert_eq!(
            t.sql("SELECT my_positions, positionsx"),
            "SELECT my_positions, positionsx"
        );
        assert_eq!(Tables::of(1).sql(sql::BUSY_ROW), sql::BUSY_ROW);
        assert_eq!(t.positions_table().to_str().unwrap(), "positions_3");
        assert_eq!(t.lists_table().to_str().unwrap(), "position_lists_3");
    }
}
