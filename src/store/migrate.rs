//! Forward migrations: `schema/NNN_*.sql`, applied in order, each in one transaction that
//! also bumps `PRAGMA user_version` and runs the migration's Rust step, if it has one.

use rusqlite::Connection;

use super::{Store, StoreError};

/// A migration's Rust step: what must be computed after its SQL, in the same transaction.
type Step = fn(&Store) -> Result<(), StoreError>;

/// A schema change: its SQL, then its Rust step if any.
pub(super) struct Migration {
    pub name: &'static str,
    pub sql: &'static str,
    pub then: Option<Step>,
}

/// Every migration, in order; `user_version` = how many have been applied.
pub(super) const MIGRATIONS: &[Migration] = &[
    Migration {
        name: "001_init",
        sql: include_str!("../../schema/001_init.sql"),
        then: None,
    },
    Migration {
        name: "002_positions",
        sql: include_str!("../../schema/002_positions.sql"),
        // The statistics are rebuilt by the next migration.
        then: None,
    },
    Migration {
        name: "003_ranges_and_sources",
        sql: include_str!("../../schema/003_ranges_and_sources.sql"),
        then: Some(Store::rebuild_positions),
    },
    Migration {
        name: "005_evals",
        sql: include_str!("../../schema/005_evals.sql"),
        then: None,
    },
];

fn version(conn: &Connection) -> Result<i64, StoreError> {
    Ok(conn.query_row("PRAGMA user_version", [], |r| r.get(0))?)
}

fn too_new(v: i64) -> StoreError {
    StoreError::Schema(format!(
        "schema version {v} is newer than this qipu understands ({}); upgrade qipu",
        MIGRATIONS.len()
    ))
}

/// Applies the migrations the database lacks.
pub(super) fn migrate(store: &Store) -> Result<(), StoreError> {
    let v = version(&store.conn)?;
    if v > MIGRATIONS.len() as i64 {
        return Err(too_new(v));
    }
    for (i, m) in MIGRATIONS.iter().enumerate().skip(v.max(0) as usize) {
        let tx = store.conn.unchecked_transaction()?;
        tx.execute_batch(m.sql)
            .map_err(|e| StoreError::Schema(format!("migration {}: {e}", m.name)))?;
        if let Some(step) = m.then {
            step(store)?;
        }
        tx.pragma_update(None, "user_version", i as i64 + 1)?;
        tx.commit()?;
    }
    if v > 0 && v < MIGRATIONS.len() as i64 {
        // An upgrade rewrote tables: give the freed pages back to the file system.
        store.conn.execute_batch("VACUUM")?;
    }
    Ok(())
}

/// A read-only handle cannot migrate: the file must be at exactly this build's version.
pub(super) fn check_read_only(conn: &Connection) -> Result<(), StoreError> {
    let v = version(conn)?;
    let want = MIGRATIONS.len() as i64;
    if v == 0 {
        Err(StoreError::Schema(
            "not a qipu database (run `qipu import` to create one)".into(),
        ))
    } else if v > want {
        Err(too_new(v))
    } else if v < want {
        Err(StoreError::Schema(format!(
            "schema version {v} is older than {want}; run `qipu import` once to upgrade it"
        )))
    } else {
        Ok(())
    }
}
