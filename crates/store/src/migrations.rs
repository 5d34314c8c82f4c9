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
    include_str!("../migrations/0026_family_limits.sql"),
    include_str!("../migrations/0028_llm_calls_outside_runs.sql"),
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
    fn knowledge_vectors_move_into_their_chunks_with_a_binary_copy() {
        crate::vector::register();
        let mut conn = Connection::open_in_memory().unwrap();
        let before = SCHEMA
            .iter()
            .position(|sql| sql.contains("CREATE VIRTUAL TABLE knowledge_bits"))
            .unwrap();
        all().to_version(&mut conn, before).unwrap();
        let v: Vec<u8> = (0..512)
            .flat_map(|i| if i % 3 == 0 { -0.5f32 } else { 0.25f32 }.to_le_bytes())
            .collect();
        conn.execute_batch(
            "INSERT INTO knowledge_bases (id, name, builtin, encoder, created_at) VALUES (7, 'b', 0, 'e', 't');
             INSERT INTO knowledge_documents (id, kb_id, source, title, sha256, chars, added_at)
                 VALUES (1, 7, 'a.md', 'a', 'h', 3, 't');
             INSERT INTO knowledge_chunks (id, document_id, position, start_char, end_char, page, text)
                 VALUES (5, 1, 0, 0, 3, NULL, 'abc');",
        )
        .unwrap();
        conn.execute(
            "INSERT INTO knowledge_vectors (chunk_id, kb_id, embedding) VALUES (5, 7, ?1)",
            [&v],
        )
        .unwrap();
        all().to_latest(&mut conn).unwrap();
        let moved: Vec<u8> = conn
            .query_row(
                "SELECT embedding FROM knowledge_chunks WHERE id = 5",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(moved, v);
        // The binary copy: one bit per dimension, set where the value is positive.
        let (kb, bits): (i64, Vec<u8>) = conn
            .query_row(
                "SELECT kb_id, embedding FROM knowledge_bits WHERE chunk_id = 5",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        assert_eq!((kb, bits.len()), (7, 64));
        let set: Vec<usize> = (0..512)
            .filter(|i| bits[i / 8] >> (i % 8) & 1 == 1)
            .collect();
        assert_eq!(set, (0..512).filter(|i| i % 3 != 0).collect::<Vec<_>>());
        let gone: i64 = conn
            .query_row(
                "SELECT COUNT(*) FROM sqlite_master WHERE name = 'knowledge_vectors'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(gone, 0);
    }

    #[test]
    fn migrations_are_valid() {
        crate::vector::register();
        all().validate().unwrap();
    }
}
