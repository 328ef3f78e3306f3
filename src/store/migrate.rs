//! Forward migrations: `schema/NNN_*.sql`, applied in order, each in one transaction that
//! also bumps `PRAGMA user_version`.

use rusqlite::Connection;

use super::StoreError;

/// Every migration, in order; `user_version` = how many have been applied.
pub(super) const MIGRATIONS: &[(&str, &str)] =
    &[("001_init", include_str!("../../schema/001_init.sql"))];

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
pub(super) fn migrate(conn: &mut Connection) -> Result<(), StoreError> {
    let v = version(conn)?;
    if v > MIGRATIONS.len() as i64 {
        return Err(too_new(v));
    }
    for (i, (_name, sql)) in MIGRATIONS.iter().enumerate().skip(v.max(0) as usize) {
        let tx = conn.transaction()?;
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", i as i64 + 1)?;
        tx.commit()?;
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
