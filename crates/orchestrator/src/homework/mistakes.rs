//! A child's homework mistakes (table `homework_mistakes`): stored when a
//! checked sheet comes back, read for today's plan and for a redo, marked
//! redone when the child gets one right again. A row read back is
//! validated: one that cannot be a mistake (no question, no correct answer,
//! a time that cannot be read) is never shown half — [`get`] says it is
//! damaged, [`to_redo`] leaves it out.

use chrono::{DateTime, Utc};
use deskmate_store::{Store, StoreError};
use rusqlite::{params, OptionalExtension};
use serde::Serialize;

use super::Worksheet;
use crate::scene::{SceneError, SceneResult};

/// One stored mistake.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Mistake {
    pub id: String,
    pub profile_id: String,
    pub created_at: String,
    pub subject: String,
    pub question: String,
    pub child_answer: String,
    pub correct_answer: String,
    pub hint: String,
    pub explanation: String,
    pub redone_at: Option<String>,
}

fn stamp(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

const COLUMNS: &str = "id, profile_id, created_at, subject, question, child_answer, correct_answer, hint, explanation, redone_at";

fn row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Mistake> {
    Ok(Mistake {
        id: r.get(0)?,
        profile_id: r.get(1)?,
        created_at: r.get(2)?,
        subject: r.get(3)?,
        question: r.get(4)?,
        child_answer: r.get(5)?,
        correct_answer: r.get(6)?,
        hint: r.get(7)?,
        explanation: r.get(8)?,
        redone_at: r.get(9)?,
    })
}

fn valid(m: Mistake) -> SceneResult<Mistake> {
    let damaged = |why: &str| SceneError::Damaged {
        what: "homework mistake",
        reason: format!("{}: {why}", m.id),
    };
    if m.question.trim().is_empty() {
        return Err(damaged("no question"));
    }
    if m.correct_answer.trim().is_empty() {
        return Err(damaged("no correct answer"));
    }
    if DateTime::parse_from_rfc3339(&m.created_at).is_err() {
        return Err(damaged("its time cannot be read"));
    }
    if let Some(at) = &m.redone_at {
        if DateTime::parse_from_rfc3339(at).is_err() {
            return Err(damaged("the time it was redone cannot be read"));
        }
    }
    Ok(m)
}

/// Stores the mistakes of `sheet` for `profile_id` at `now`, in one
/// transaction; their ids, in the order of [`Worksheet::mistakes`].
pub fn record(
    store: &Store,
    profile_id: &str,
    sheet: &Worksheet,
    now: DateTime<Utc>,
) -> SceneResult<Vec<String>> {
    let at = stamp(now);
    Ok(store.with_conn(|c| {
        let tx = c.transaction()?;
        let mut ids = Vec::new();
        for q in sheet.mistakes() {
            let id = uuid::Uuid::now_v7().to_string();
            tx.execute(
                &format!("INSERT INTO homework_mistakes ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, NULL)"),
                params![
                    id,
                    profile_id,
                    at,
                    sheet.subject,
                    q.question,
                    q.child_answer,
                    q.correct_answer,
                    q.hint,
                    q.explanation
                ],
            )?;
            ids.push(id);
        }
        tx.commit()?;
        Ok(ids)
    })?)
}

/// The child's mistakes not redone yet, oldest first. A row that does not
/// read back as a mistake is left out (and logged), as the plan leaves out
/// a damaged practice: the rest can still be planned and redone, and
/// [`get`] names it as damaged.
pub fn to_redo(store: &Store, profile_id: &str) -> SceneResult<Vec<Mistake>> {
    let rows = store.with_conn(|c| {
        let mut stmt = c.prepare(&format!(
            "SELECT {COLUMNS} FROM homework_mistakes WHERE profile_id = ?1 AND redone_at IS NULL ORDER BY created_at, id"
        ))?;
        let rows = stmt
            .query_map([profile_id], row)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(StoreError::from)?;
        Ok(rows)
    })?;
    Ok(rows
        .into_iter()
        .filter_map(|m| match valid(m) {
            Ok(m) => Some(m),
            Err(e) => {
                tracing::warn!("{e}; left out of the mistakes to redo");
                None
            }
        })
        .collect())
}

/// How many of the child's mistakes were redone since `since`.
pub fn redone_since(store: &Store, profile_id: &str, since: &str) -> SceneResult<u32> {
    let n: i64 = store.with_conn(|c| {
        Ok(c.query_row(
            "SELECT count(*) FROM homework_mistakes WHERE profile_id = ?1 AND redone_at >= ?2",
            params![profile_id, since],
            |r| r.get(0),
        )?)
    })?;
    Ok(u32::try_from(n).unwrap_or(0))
}

/// One mistake of the child's, by id.
pub fn get(store: &Store, profile_id: &str, id: &str) -> SceneResult<Mistake> {
    let m = store.with_conn(|c| {
        c.query_row(
            &format!("SELECT {COLUMNS} FROM homework_mistakes WHERE id = ?1 AND profile_id = ?2"),
            params![id, profile_id],
            row,
        )
        .optional()?
        .ok_or_else(|| StoreError::NotFound(format!("homework mistake {id}")))
    })?;
    valid(m)
}

/// Marks a mistake redone (got right again) at `now`.
pub fn mark_redone(
    store: &Store,
    profile_id: &str,
    id: &str,
    now: DateTime<Utc>,
) -> SceneResult<()> {
    let changed = store.with_conn(|c| {
        Ok(c.execute(
            "UPDATE homework_mistakes SET redone_at = ?3 WHERE id = ?1 AND profile_id = ?2 AND redone_at IS NULL",
            params![id, profile_id, stamp(now)],
        )?)
    })?;
    if changed == 0 {
        return Err(StoreError::NotFound(format!("homework mistake {id} to redo")).into());
    }
    Ok(())
}
