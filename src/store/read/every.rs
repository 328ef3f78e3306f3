//! Every position of every segment, in key order: each segment's range rows are read in
//! pages and their entries merged by key, so that a position several segments count comes
//! once, with each segment's row (oldest segment first), or with each segment's entry for
//! the compaction (`store::compact`). Nothing is written.

use std::{collections::VecDeque, sync::Arc};

use super::PositionRow;
use crate::store::{
    model::PositionKey,
    ranges::{self, Entry},
    segments::Tables,
    sql, Store, StoreError,
};

/// Range rows read at a time from one segment.
const PAGE: i64 = 16;

/// One segment's entries not yet handed out, and where its next page starts.
struct Cursor {
    tables: Arc<Tables>,
    entries: VecDeque<(i64, Entry)>,
    /// The smallest start of a range row not read yet; `None` once all are.
    next: Option<i64>,
}

impl Store {
    /// Calls `f` for every position, in key order, with the rows of the segments that count
    /// games through it (oldest first).
    pub(super) fn for_each_position(
        &self,
        mut f: impl FnMut(PositionKey, Vec<PositionRow>) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let segments = self.segments()?.into_iter().map(|s| s.tables).collect();
        self.for_each_entry(segments, |key, entries| {
            let mut rows = Vec::with_capacity(entries.len());
            for (tables, entry) in entries {
                rows.push(match entry {
                    Entry::Busy => self.in_segment(&tables, || self.busy_row(key))?,
                    Entry::Quiet(links) => PositionRow {
                        summary: None,
                        links,
                    },
                });
            }
            f(key, rows)
        })
    }

    /// Calls `f` for every position the range rows of `segments` hold, in key order, with
    /// each of those segments' entry of it (in the order of `segments`).
    pub(in crate::store) fn for_each_entry(
        &self,
        segments: Vec<Arc<Tables>>,
        mut f: impl FnMut(PositionKey, Vec<(Arc<Tables>, Entry)>) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let mut cursors: Vec<Cursor> = segments
            .into_iter()
            .map(|tables| Cursor {
                tables,
                entries: VecDeque::new(),
                next: Some(i64::MIN),
            })
            .collect();
        loop {
            for c in cursors.iter_mut() {
                while c.entries.is_empty() && c.next.is_some() {
                    self.read_page(c)?;
                }
            }
            let Some(key) = cursors
                .iter()
                .filter_map(|c| c.entries.front().map(|e| e.0))
                .min()
            else {
                return Ok(());
            };
            let mut entries = Vec::with_capacity(1);
            for c in cursors.iter_mut() {
                if c.entries.front().is_some_and(|e| e.0 == key) {
                    if let Some((_, entry)) = c.entries.pop_front() {
                        entries.push((c.tables.clone(), entry));
                    }
                }
            }
            f(PositionKey::from_rowid(key), entries)?;
        }
    }

    /// Reads a cursor's next page of range rows into its entries.
    fn read_page(&self, c: &mut Cursor) -> Result<(), StoreError> {
        let Some(from) = c.next else {
            return Ok(());
        };
        let mut stmt = self.conn.prepare_cached(&c.tables.sql(sql::RANGES_FROM))?;
        let mut rows = stmt.query(rusqlite::params![from, PAGE])?;
        let mut read = 0;
        c.next = None;
        while let Some(r) = rows.next()? {
            read += 1;
            let start: i64 = r.get(0)?;
            let blob = r.get_ref(1)?.as_blob().map_err(rusqlite::Error::from)?;
            c.entries.extend(ranges::entries(start, blob)?);
            c.next = start.checked_add(1);
        }
        if read < PAGE {
            c.next = None;
        }
        Ok(())
    }
}
