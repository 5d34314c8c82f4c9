//! Review scheduling with FSRS (the `fsrs` crate, default parameters, 90 %
//! desired retention) instead of fixed Ebbinghaus days.
//!
//! - The first passing attempt at a material creates its schedule.
//! - Later, the first attempt of each practice session is the review: its
//!   accuracy is mapped to an FSRS rating ([`rating_for`]) and the memory
//!   state and next date follow from it. Further attempts in the same
//!   session are practice and leave the schedule alone.
//! - A failed review is rated Again: the memory's stability drops, so the next
//!   interval is shorter (one day) and a lapse is counted.
//!
//! Rating mapping (accuracy in percent, `threshold` the child's pass mark):
//!
//! | accuracy | rating |
//! | --- | --- |
//! | below the pass mark | 1 Again |
//! | pass mark – 94.99 | 2 Hard |
//! | 95 – 99.99, or 100 with errors (e.g. an insertion) | 3 Good |
//! | 100 and no error at all | 4 Easy |
//!
//! When the pass mark is 95 or more, passing is at least Good. A first pass
//! is capped at Good: a text learnt minutes ago is not yet an easy one.

use chrono::{DateTime, Duration, NaiveDate, Utc};
use fsrs::{MemoryState, FSRS};
use rusqlite::{params, OptionalExtension, Transaction};
use serde::{Deserialize, Serialize};

use deskmate_store::{Store, StoreError, StoreResult};

use crate::{local_day_bounds, parse_ts, ts};

/// The retention FSRS schedules for.
pub const DESIRED_RETENTION: f32 = 0.9;
/// A material counts as mastered once a review schedules it this far ahead.
pub const MASTERED_INTERVAL_DAYS: i64 = 21;

/// FSRS's four ratings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Rating {
    Again = 1,
    Hard = 2,
    Good = 3,
    Easy = 4,
}

impl Rating {
    pub fn from_u8(v: u8) -> Option<Self> {
        match v {
            1 => Some(Self::Again),
            2 => Some(Self::Hard),
            3 => Some(Self::Good),
            4 => Some(Self::Easy),
            _ => None,
        }
    }
}

/// The rating an attempt earns (see the module docs for the table).
pub fn rating_for(accuracy: f64, threshold: f64, perfect: bool) -> Rating {
    if accuracy + 1e-9 < threshold {
        Rating::Again
    } else if perfect {
        Rating::Easy
    } else if accuracy >= 95.0 || threshold >= 95.0 {
        Rating::Good
    } else {
        Rating::Hard
    }
}

/// One child's schedule for one material.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReviewCard {
    pub profile_id: String,
    pub material_id: String,
    pub status: String,
    pub stability: f32,
    pub difficulty: f32,
    pub reps: u32,
    pub lapses: u32,
    pub last_rating: u8,
    pub last_review_at: String,
    pub next_review_at: String,
    pub interval_days: i64,
}

/// What an attempt did to the schedule.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScheduleChange {
    pub rating: Rating,
    pub created: bool,
    pub interval_days: i64,
    pub next_review_at: String,
    pub stability: f32,
    pub difficulty: f32,
}

fn fsrs() -> StoreResult<FSRS> {
    FSRS::new(&[])
        .map_err(|e| StoreError::Invalid(format!("the review scheduler could not start: {e}")))
}

pub(crate) fn load(
    tx: &Transaction<'_>,
    profile_id: &str,
    material_id: &str,
) -> StoreResult<Option<ReviewCard>> {
    Ok(tx
        .query_row(
            "SELECT status, stability, difficulty, reps, lapses, last_rating, last_review_at, next_review_at, interval_days
             FROM recite_reviews WHERE profile_id = ?1 AND material_id = ?2",
            params![profile_id, material_id],
            |r| {
                Ok(ReviewCard {
                    profile_id: profile_id.to_string(),
                    material_id: material_id.to_string(),
                    status: r.get(0)?,
                    stability: r.get(1)?,
                    difficulty: r.get(2)?,
                    reps: r.get(3)?,
                    lapses: r.get(4)?,
                    last_rating: r.get(5)?,
                    last_review_at: r.get(6)?,
                    next_review_at: r.get(7)?,
                    interval_days: r.get(8)?,
                })
            },
        )
        .optional()?)
}

/// Applies an attempt to the schedule inside the caller's transaction:
/// creates it on a first pass, reviews it on the first attempt of a session.
/// Returns what changed, if anything.
/// How an attempt went, as far as scheduling cares.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Graded {
    pub rating: Rating,
    pub passed: bool,
    pub first_in_session: bool,
    pub at: DateTime<Utc>,
}

pub(crate) fn apply(
    tx: &Transaction<'_>,
    card: Option<&ReviewCard>,
    profile_id: &str,
    material_id: &str,
    graded: Graded,
) -> StoreResult<Option<ScheduleChange>> {
    let Graded {
        rating,
        passed,
        first_in_session,
        at,
    } = graded;
    let scheduler = fsrs()?;
    let now = ts(at);
    match card {
        None if passed => {
            let rating = rating.min(Rating::Good);
            let next = pick(&scheduler.next_states(None, DESIRED_RETENTION, 0), rating)?;
            let (interval, due) = interval_and_due(next.interval, at);
            tx.execute(
                "INSERT INTO recite_reviews (profile_id, material_id, status, stability, difficulty, reps, lapses,
                    last_rating, last_review_at, next_review_at, interval_days, created_at, updated_at)
                 VALUES (?1, ?2, 'active', ?3, ?4, 1, 0, ?5, ?6, ?7, ?8, ?6, ?6)",
                params![
                    profile_id,
                    material_id,
                    next.memory.stability,
                    next.memory.difficulty,
                    rating as u8,
                    now,
                    due,
                    interval
                ],
            )?;
            Ok(Some(ScheduleChange {
                rating,
                created: true,
                interval_days: interval,
                next_review_at: due,
                stability: next.memory.stability,
                difficulty: next.memory.difficulty,
            }))
        }
        Some(card) if first_in_session => {
            let last = parse_ts(&card.last_review_at)?;
            let elapsed = u32::try_from((at - last).num_days().max(0)).unwrap_or(u32::MAX);
            let memory = MemoryState {
                stability: card.stability,
                difficulty: card.difficulty,
            };
            let next = pick(
                &scheduler.next_states(Some(memory), DESIRED_RETENTION, elapsed),
                rating,
            )?;
            let (interval, due) = interval_and_due(next.interval, at);
            tx.execute(
                "UPDATE recite_reviews SET stability = ?3, difficulty = ?4, reps = reps + 1, lapses = lapses + ?5,
                    last_rating = ?6, last_review_at = ?7, next_review_at = ?8, interval_days = ?9, updated_at = ?7
                 WHERE profile_id = ?1 AND material_id = ?2",
                params![
                    profile_id,
                    material_id,
                    next.memory.stability,
                    next.memory.difficulty,
                    i32::from(rating == Rating::Again),
                    rating as u8,
                    now,
                    due,
                    interval
                ],
            )?;
            Ok(Some(ScheduleChange {
                rating,
                created: false,
                interval_days: interval,
                next_review_at: due,
                stability: next.memory.stability,
                difficulty: next.memory.difficulty,
            }))
        }
        _ => Ok(None),
    }
}

/// Recomputes a child's card for a material from every attempt at it, in
/// the order they were made, inside the caller's transaction. Sync calls it
/// after attempts from another device arrive, so two devices practising
/// offline both count and agree on one schedule. A paused card stays paused.
pub fn rebuild(tx: &Transaction<'_>, profile_id: &str, material_id: &str) -> StoreResult<()> {
    let status = load(tx, profile_id, material_id)?.map(|c| c.status);
    tx.execute(
        "DELETE FROM recite_reviews WHERE profile_id = ?1 AND material_id = ?2",
        params![profile_id, material_id],
    )?;
    let attempts: Vec<(f64, f64, bool, i64, i64, String)> = tx
        .prepare(
            "SELECT accuracy, pass_threshold, passed, error_count, attempt_no, created_at
             FROM recite_attempts WHERE profile_id = ?1 AND material_id = ?2
             ORDER BY created_at, id",
        )?
        .query_map(params![profile_id, material_id], |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
            ))
        })?
        .collect::<Result<_, _>>()?;
    for (accuracy, threshold, passed, errors, attempt_no, created_at) in attempts {
        let card = load(tx, profile_id, material_id)?;
        let perfect = accuracy >= 100.0 && errors == 0;
        let graded = Graded {
            rating: rating_for(accuracy, threshold, perfect),
            passed,
            first_in_session: attempt_no == 1,
            at: parse_ts(&created_at)?,
        };
        apply(tx, card.as_ref(), profile_id, material_id, graded)?;
    }
    if let Some(status) = status {
        tx.execute(
            "UPDATE recite_reviews SET status = ?3 WHERE profile_id = ?1 AND material_id = ?2",
            params![profile_id, material_id, status],
        )?;
    }
    Ok(())
}

/// Puts a child's card for a material back as it was (`None`: there was
/// none), inside the caller's transaction — before a re-take grades the
/// same attempt again.
pub(crate) fn restore(
    tx: &Transaction<'_>,
    profile_id: &str,
    material_id: &str,
    card: Option<&ReviewCard>,
) -> StoreResult<()> {
    match card {
        None => {
            tx.execute(
                "DELETE FROM recite_reviews WHERE profile_id = ?1 AND material_id = ?2",
                params![profile_id, material_id],
            )?;
        }
        Some(c) => {
            tx.execute(
                "UPDATE recite_reviews SET status = ?3, stability = ?4, difficulty = ?5, reps = ?6, lapses = ?7,
                    last_rating = ?8, last_review_at = ?9, next_review_at = ?10, interval_days = ?11
                 WHERE profile_id = ?1 AND material_id = ?2",
                params![
                    profile_id,
                    material_id,
                    c.status,
                    c.stability,
                    c.difficulty,
                    c.reps,
                    c.lapses,
                    c.last_rating,
                    c.last_review_at,
                    c.next_review_at,
                    c.interval_days
                ],
            )?;
        }
    }
    Ok(())
}

fn pick(
    states: &Result<fsrs::NextStates, fsrs::FSRSError>,
    rating: Rating,
) -> StoreResult<fsrs::ItemState> {
    let s = states
        .as_ref()
        .map_err(|e| StoreError::Invalid(format!("the review scheduler failed: {e}")))?;
    let state = match rating {
        Rating::Again => &s.again,
        Rating::Hard => &s.hard,
        Rating::Good => &s.good,
        Rating::Easy => &s.easy,
    };
    if !state.memory.stability.is_finite() || !state.interval.is_finite() {
        return Err(StoreError::Invalid(
            "the review scheduler produced an invalid state".into(),
        ));
    }
    Ok(state.clone())
}

/// Whole days (at least one, at most ten years) and the due time.
fn interval_and_due(interval: f32, at: DateTime<Utc>) -> (i64, String) {
    let days = (interval.round() as i64).clamp(1, 3650);
    (days, ts(at + Duration::days(days)))
}

/// A material whose review is due.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DueReview {
    pub material_id: String,
    pub title: String,
    pub lang: String,
    pub next_review_at: String,
    /// Days past the due date in the child's time zone (0 = due today).
    pub overdue_days: i64,
    pub interval_days: i64,
    pub reps: u32,
    pub lapses: u32,
    pub stability: f32,
}

/// The child's reviews due by the end of `at`'s day in the child's time zone,
/// most overdue first.
pub fn due(store: &Store, profile_id: &str, at: DateTime<Utc>) -> StoreResult<Vec<DueReview>> {
    let profile = store.profiles().get(profile_id)?;
    let tz = crate::time_zone(&profile.time_zone)?;
    let today = at.with_timezone(&tz).date_naive();
    let (_, end_of_today) = local_day_bounds(today, tz);
    let rows: Vec<(DueReview, String)> = store.with_conn(|c| {
        let mut stmt = c.prepare_cached(
            "SELECT r.material_id, m.title, m.lang, r.next_review_at, r.interval_days, r.reps, r.lapses, r.stability
             FROM recite_reviews r JOIN materials m ON m.id = r.material_id
             WHERE r.profile_id = ?1 AND r.status = 'active' AND r.next_review_at < ?2
             ORDER BY r.next_review_at",
        )?;
        let rows = stmt
            .query_map(params![profile_id, ts(end_of_today)], |r| {
                Ok((
                    DueReview {
                        material_id: r.get(0)?,
                        title: r.get(1)?,
                        lang: r.get(2)?,
                        next_review_at: r.get(3)?,
                        overdue_days: 0,
                        interval_days: r.get(4)?,
                        reps: r.get(5)?,
                        lapses: r.get(6)?,
                        stability: r.get(7)?,
                    },
                    r.get::<_, String>(3)?,
                ))
            })?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    })?;
    rows.into_iter()
        .map(|(mut d, next)| {
            let due_day: NaiveDate = parse_ts(&next)?.with_timezone(&tz).date_naive();
            d.overdue_days = (today - due_day).num_days().max(0);
            Ok(d)
        })
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn rating_mapping() {
        assert_eq!(rating_for(84.9, 85.0, false), Rating::Again);
        assert_eq!(rating_for(85.0, 85.0, false), Rating::Hard);
        assert_eq!(rating_for(94.9, 85.0, false), Rating::Hard);
        assert_eq!(rating_for(95.0, 85.0, false), Rating::Good);
        assert_eq!(rating_for(100.0, 85.0, false), Rating::Good);
        assert_eq!(rating_for(100.0, 85.0, true), Rating::Easy);
        assert_eq!(rating_for(96.0, 98.0, false), Rating::Again);
        assert_eq!(rating_for(98.0, 98.0, false), Rating::Good);
    }

    #[test]
    fn fsrs_defaults_give_growing_intervals() {
        let f = fsrs().unwrap();
        let first = f.next_states(None, DESIRED_RETENTION, 0).unwrap();
        assert!(first.again.interval <= first.hard.interval);
        assert!(first.hard.interval <= first.good.interval);
        assert!(first.good.interval < first.easy.interval);
        let after = f
            .next_states(Some(first.good.memory), DESIRED_RETENTION, 3)
            .unwrap();
        assert!(after.good.interval > first.good.interval);
        assert!(after.again.interval < after.good.interval);
    }
}
