//! Where a practice is kept between steps: table `practice_sessions`, one
//! row per practice, the workflow stored as JSON after every step so a
//! practice survives a crash.

use deskmate_recite::Mode;
use deskmate_store::{now_utc, Store, StoreError};
use rusqlite::{params, OptionalExtension};

use super::error::{SceneError, SceneResult};
use super::views::PracticeResult;
use crate::Practice;

/// One stored practice.
#[derive(Debug, Clone)]
pub(crate) struct Row {
    pub(crate) id: String,
    pub(crate) profile_id: String,
    pub(crate) material_id: String,
    pub(crate) mode: Mode,
    pub(crate) practice: Practice,
    pub(crate) last_result: Option<PracticeResult>,
}

fn damaged(what: &'static str, e: impl std::fmt::Display) -> SceneError {
    SceneError::Damaged {
        what,
        reason: e.to_string(),
    }
}

pub(crate) fn load(store: &Store, id: &str) -> SceneResult<Row> {
    let raw = store.with_conn(|c| {
        c.query_row(
            "SELECT id, profile_id, material_id, mode, practice, last_result FROM practice_sessions WHERE id = ?1",
            [id],
            |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, String>(4)?,
                    r.get::<_, Option<String>>(5)?,
                ))
            },
        )
        .optional()?
        .ok_or_else(|| StoreError::NotFound(format!("practice {id}")))
    })?;
    let (id, profile_id, material_id, mode, practice, last_result) = raw;
    Ok(Row {
        id,
        profile_id,
        material_id,
        mode: mode.parse().map_err(|e| damaged("mode", e))?,
        practice: serde_json::from_str(&practice).map_err(|e| damaged("state", e))?,
        last_result: last_result
            .map(|s| serde_json::from_str(&s))
            .transpose()
            .map_err(|e| damaged("result", e))?,
    })
}

pub(crate) fn save(store: &Store, row: &Row, insert: bool) -> SceneResult<()> {
    let practice = serde_json::to_string(&row.practice).map_err(|e| damaged("state", e))?;
    let last = row
        .last_result
        .as_ref()
        .map(serde_json::to_string)
        .transpose()
        .map_err(|e| damaged("result", e))?;
    let now = now_utc();
    store.with_conn(|c| {
        if insert {
            c.execute(
                "INSERT INTO practice_sessions (id, profile_id, material_id, mode, practice, last_result, created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7)",
                params![row.id, row.profile_id, row.material_id, row.mode.as_str(), practice, last, now],
            )?;
        } else {
            c.execute(
                "UPDATE practice_sessions SET practice = ?2, last_result = ?3, updated_at = ?4 WHERE id = ?1",
                params![row.id, practice, last, now],
            )?;
        }
        Ok(())
    })?;
    Ok(())
}

/// The child's newest practice, if any.
pub(crate) fn newest(store: &Store, profile_id: &str) -> SceneResult<Option<String>> {
    Ok(store.with_conn(|c| {
        Ok(c.query_row(
            "SELECT id FROM practice_sessions WHERE profile_id = ?1 ORDER BY updated_at DESC, id DESC LIMIT 1",
            [profile_id],
            |r| r.get(0),
        )
        .optional()?)
    })?)
}

/// Whether the child already has a review schedule for the material.
pub(crate) fn has_review(store: &Store, profile_id: &str, material_id: &str) -> SceneResult<bool> {
    Ok(store.with_conn(|c| {
        Ok(c.query_row(
            "SELECT EXISTS (SELECT 1 FROM recite_reviews WHERE profile_id = ?1 AND material_id = ?2)",
            params![profile_id, material_id],
            |r| r.get(0),
        )?)
    })?)
}

/// The attempt a task lost in a crash recorded, if it got that far: the
/// newest of the practice, when there are more than the practice counted.
pub(crate) fn lost_attempt(store: &Store, row: &Row) -> SceneResult<Option<(String, f64, bool)>> {
    let found = store.with_conn(|c| {
        Ok(c.query_row(
            "SELECT id, accuracy, passed FROM recite_attempts WHERE session_id = ?1 ORDER BY attempt_no DESC LIMIT 1",
            [&row.id],
            |r| Ok((r.get::<_, String>(0)?, r.get::<_, f64>(1)?, r.get::<_, bool>(2)?)),
        )
        .optional()?)
    })?;
    let counted: i64 = store.with_conn(|c| {
        Ok(c.query_row(
            "SELECT count(*) FROM recite_attempts WHERE session_id = ?1",
            [&row.id],
            |r| r.get(0),
        )?)
    })?;
    Ok(found.filter(|_| counted > i64::from(row.practice.attempts)))
}
