//! Practice history: every attempt as stored — child, material, mode,
//! transcript, accuracy, pass, typed errors, durations, attempt number in the
//! session, and whether it was first learning or a review.

use chrono::{DateTime, Utc};
use rusqlite::{params, Row};
use serde::{Deserialize, Serialize};

use deskmate_store::{Store, StoreResult};

use crate::ts;
use crate::verdict::RecitationError;

/// Why the child recited: learning a new text, or reviewing a scheduled one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum Purpose {
    Learn,
    Review,
}

impl Purpose {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Learn => "learn",
            Self::Review => "review",
        }
    }
}

/// One stored attempt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttemptRecord {
    pub id: String,
    pub profile_id: String,
    pub material_id: String,
    pub mode: String,
    pub lang: String,
    pub transcript: String,
    pub units: usize,
    pub correct: usize,
    pub accuracy: f64,
    pub pass_threshold: f64,
    pub passed: bool,
    pub first_pass: bool,
    pub errors: Vec<RecitationError>,
    pub duration_ms: u64,
    pub duration_estimated: bool,
    pub check_us: u64,
    pub session_id: String,
    pub attempt_no: u32,
    pub purpose: Purpose,
    pub rating: Option<u8>,
    pub interval_days: Option<i64>,
    pub created_at: String,
}

pub(crate) const COLUMNS: &str = "id, profile_id, material_id, mode, lang, transcript, units, correct, accuracy, \
    pass_threshold, passed, first_pass, errors, duration_ms, duration_estimated, check_us, session_id, attempt_no, \
    purpose, rating, interval_days, created_at";

pub(crate) fn from_row(r: &Row<'_>) -> rusqlite::Result<AttemptRecord> {
    let errors: String = r.get(12)?;
    let purpose: String = r.get(18)?;
    Ok(AttemptRecord {
        id: r.get(0)?,
        profile_id: r.get(1)?,
        material_id: r.get(2)?,
        mode: r.get(3)?,
        lang: r.get(4)?,
        transcript: r.get(5)?,
        units: usize::try_from(r.get::<_, i64>(6)?).unwrap_or(0),
        correct: usize::try_from(r.get::<_, i64>(7)?).unwrap_or(0),
        accuracy: r.get(8)?,
        pass_threshold: r.get(9)?,
        passed: r.get(10)?,
        first_pass: r.get(11)?,
        // A damaged errors column must not hide the attempt itself.
        errors: serde_json::from_str(&errors).unwrap_or_default(),
        duration_ms: u64::try_from(r.get::<_, i64>(13)?).unwrap_or(0),
        duration_estimated: r.get(14)?,
        check_us: u64::try_from(r.get::<_, i64>(15)?).unwrap_or(0),
        session_id: r.get(16)?,
        attempt_no: r.get(17)?,
        purpose: if purpose == "review" {
            Purpose::Review
        } else {
            Purpose::Learn
        },
        rating: r.get(19)?,
        interval_days: r.get(20)?,
        created_at: r.get(21)?,
    })
}

/// Which attempts to list.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct HistoryFilter {
    pub material_id: Option<String>,
    /// Inclusive.
    pub from: Option<DateTime<Utc>>,
    /// Exclusive.
    pub to: Option<DateTime<Utc>>,
    /// At most this many, newest first (0 = 100).
    pub limit: usize,
}

/// A child's attempts, newest first.
pub fn list(
    store: &Store,
    profile_id: &str,
    filter: &HistoryFilter,
) -> StoreResult<Vec<AttemptRecord>> {
    let limit = if filter.limit == 0 { 100 } else { filter.limit };
    let from = filter.from.map(ts);
    let to = filter.to.map(ts);
    store.with_conn(|c| {
        let sql = if filter.material_id.is_some() {
            format!(
                "SELECT {COLUMNS} FROM recite_attempts INDEXED BY recite_attempts_profile_material
                 WHERE profile_id = ?1 AND material_id = ?2 AND (?3 IS NULL OR created_at >= ?3) AND (?4 IS NULL OR created_at < ?4)
                 ORDER BY created_at DESC LIMIT ?5"
            )
        } else {
            format!(
                "SELECT {COLUMNS} FROM recite_attempts INDEXED BY recite_attempts_profile_created
                 WHERE profile_id = ?1 AND (?2 IS NULL OR material_id = ?2) AND (?3 IS NULL OR created_at >= ?3) AND (?4 IS NULL OR created_at < ?4)
                 ORDER BY created_at DESC LIMIT ?5"
            )
        };
        let mut stmt = c.prepare_cached(&sql)?;
        let rows = stmt
            .query_map(
                params![profile_id, filter.material_id, from, to, i64::try_from(limit).unwrap_or(i64::MAX)],
                from_row,
            )?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    })
}

/// One attempt by id.
pub fn get(store: &Store, attempt_id: &str) -> StoreResult<AttemptRecord> {
    store.with_conn(|c| {
        use rusqlite::OptionalExtension;
        c.query_row(
            &format!("SELECT {COLUMNS} FROM recite_attempts WHERE id = ?1"),
            [attempt_id],
            from_row,
        )
        .optional()?
        .ok_or_else(|| deskmate_store::StoreError::NotFound(format!("attempt {attempt_id}")))
    })
}
