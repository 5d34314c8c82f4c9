//! Versioned schema migrations. Each entry is one SQL file under
//! `crates/store/migrations/`; append new ones, never edit a released one.

use rusqlite::Connection;
use rusqlite_migration::{Migrations, M};

use crate::{StoreError, StoreResult};

/// The schema, one SQL file per version, oldest first.
const SCHEMA: &[&str] = &[
    include_str!("../migrations/0001_core.sql"),
    include_str!("../migrations/0002_agent.sql"),
    include_str!("../migrations/0003_recite.sql"),
    include_str!("../migrations/0004_practice.sql"),
    include_str!("../migrations/0005_subagents.sql"),
    include_str!("../migrations/0006_scene_sessions.sql"),
    include_str!("../migrations/0007_approvals.sql"),
    include_str!("../migrations/0008_plan_goals.sql"),
    include_str!("../migrations/0009_retakes.sql"),
    include_str!("../migrations/0010_homework.sql"),
    include_str!("../migrations/0011_trace_spans.sql"),
    include_str!("../migrations/0012_sync.sql"),
    include_str!("../migrations/0013_thread_metadata.sql"),
    include_str!("../migrations/0014_trace_roots.sql"),
    include_str!("../migrations/0015_sync_clock.sql"),
    include_str!("../migrations/0016_knowledge.sql"),
    include_str!("../migrations/0017_memories.sql"),
    include_str!("../migrations/0020_routines.sql"),
    include_str!("../migrations/0021_sync_more.sql"),
    include_str!("../migrations/0022_sync_background.sql"),
    include_str!("../migrations/0023_memory_extractions.sql"),
    include_str!("../migrations/0025_knowledge_bits.sql"),
];

fn all() -> Migrations<'static> {
    Migrations::new(SCHEMA.iter().map(|sql| M::up(sql)).collect())
}

/// The newest schema version this build knows.
pub fn schema_version_known() -> u32 {
    u32::try_from(SCHEMA.len()).unwrap_or(u32::MAX)
}

pub(crate) fn current_version(conn: &Connection) -> StoreResult<u32> {
    let v: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    Ok(u32::try_from(v).unwrap_or(0))
}

/// Fails, touching nothing, when the database is newer than this build.
pub(crate) fn refuse_newer(conn: &Connection) -> StoreResult<()> {
    let found = current_version(conn)?;
    let known = schema_version_known();
    if found > known {
        return Err(StoreError::SchemaTooNew { found, known });
    }
    Ok(())
}

pub(crate) fn migrate(conn: &mut Connection) -> StoreResult<()> {
    refuse_newer(conn)?;
    all()
        .to_latest(conn)
        .map_err(|e| StoreError::Migration(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migration_count_matches_list() {
        crate::vector::register();
        let mut conn = Connection::open_in_memory().unwrap();
        all().to_latest(&mut conn).unwrap();
        assert_eq!(current_version(&conn).unwrap(), schema_version_known());
    }

    #[test]
    fn migrations_are_valid() {
        crate::vector::register();
        all().validate().unwrap();
    }
}
