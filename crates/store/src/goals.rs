//! A parent's learning goals for a child: how many new materials a day
//! (每天背一首新诗), how many reviews a week (每周复习三次). One goal of each
//! kind per child: setting it again changes the target. The orchestrator's
//! plan turns them into today's tasks.

use rusqlite::{params, OptionalExtension};
use serde::{Deserialize, Serialize};

use crate::{now_utc, Store, StoreError, StoreResult};

/// The largest target a goal may have (a day or a week of a child's work).
pub const GOAL_TARGET_MAX: u32 = 20;

/// What a goal counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum GoalKind {
    /// New materials learned (first passed) each day.
    NewPerDay,
    /// Reviews passed each week (Monday to Sunday, the child's time).
    ReviewsPerWeek,
}

impl GoalKind {
    pub const ALL: [GoalKind; 2] = [GoalKind::NewPerDay, GoalKind::ReviewsPerWeek];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::NewPerDay => "new_per_day",
            Self::ReviewsPerWeek => "reviews_per_week",
        }
    }
}

impl std::str::FromStr for GoalKind {
    type Err = StoreError;

    fn from_str(s: &str) -> StoreResult<Self> {
        match s.trim().replace('-', "_").as_str() {
            "new_per_day" => Ok(Self::NewPerDay),
            "reviews_per_week" => Ok(Self::ReviewsPerWeek),
            other => Err(StoreError::Invalid(format!(
                "no goal kind {other:?}: a goal is new-per-day (new poems a day) or reviews-per-week (reviews a week)"
            ))),
        }
    }
}

/// One goal of one child.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Goal {
    pub id: String,
    pub profile_id: String,
    pub kind: GoalKind,
    pub target: u32,
    pub created_at: String,
    pub updated_at: String,
}

pub struct Goals<'s> {
    store: &'s Store,
}

fn goal_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<(Goal, String)> {
    Ok((
        Goal {
            id: r.get(0)?,
            profile_id: r.get(1)?,
            kind: GoalKind::NewPerDay,
            target: r.get(3)?,
            created_at: r.get(4)?,
            updated_at: r.get(5)?,
        },
        r.get(2)?,
    ))
}

fn with_kind((goal, kind): (Goal, String)) -> StoreResult<Goal> {
    Ok(Goal {
        kind: kind.parse()?,
        ..goal
    })
}

impl<'s> Goals<'s> {
    pub(crate) fn new(store: &'s Store) -> Self {
        Self { store }
    }

    /// Sets the child's goal of `kind` to `target` (adding it, or changing
    /// the one there). Only a child has goals.
    pub fn set(&self, profile_id: &str, kind: GoalKind, target: u32) -> StoreResult<Goal> {
        if !(1..=GOAL_TARGET_MAX).contains(&target) {
            return Err(StoreError::Invalid(format!(
                "a goal's target is between 1 and {GOAL_TARGET_MAX} (got {target})"
            )));
        }
        let profile = self.store.profiles().get(profile_id)?;
        if profile.kind != crate::ProfileKind::Child {
            return Err(StoreError::Invalid(format!(
                "{} is a parent: goals are set for a child",
                profile.name
            )));
        }
        let now = now_utc();
        let id = uuid::Uuid::now_v7().to_string();
        self.store.with_conn(|c| {
            c.execute(
                "INSERT INTO plan_goals (id, profile_id, kind, target, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?5)
                 ON CONFLICT(profile_id, kind) DO UPDATE SET target = excluded.target, updated_at = excluded.updated_at",
                params![id, profile.id, kind.as_str(), target, now],
            )?;
            Ok(())
        })?;
        self.get(&profile.id, kind)?.ok_or_else(|| {
            StoreError::NotFound(format!("goal {} of {}", kind.as_str(), profile.id))
        })
    }

    /// The child's goal of `kind`, if set.
    pub fn get(&self, profile_id: &str, kind: GoalKind) -> StoreResult<Option<Goal>> {
        let row = self.store.with_conn(|c| {
            Ok(c.query_row(
                "SELECT id, profile_id, kind, target, created_at, updated_at FROM plan_goals WHERE profile_id = ?1 AND kind = ?2",
                params![profile_id, kind.as_str()],
                goal_from_row,
            )
            .optional()?)
        })?;
        row.map(with_kind).transpose()
    }

    /// The child's goals, in the order of [`GoalKind::ALL`].
    pub fn list(&self, profile_id: &str) -> StoreResult<Vec<Goal>> {
        let rows = self.store.with_conn(|c| {
            let mut stmt = c.prepare(
                "SELECT id, profile_id, kind, target, created_at, updated_at FROM plan_goals WHERE profile_id = ?1",
            )?;
            let rows = stmt
                .query_map([profile_id], goal_from_row)?
                .collect::<Result<Vec<_>, _>>()?;
            Ok(rows)
        })?;
        let mut goals = rows
            .into_iter()
            .map(with_kind)
            .collect::<StoreResult<Vec<_>>>()?;
        goals.sort_by_key(|g| GoalKind::ALL.iter().position(|k| *k == g.kind));
        Ok(goals)
    }

    /// Removes the child's goal of `kind`; not set is `not_found`.
    pub fn remove(&self, profile_id: &str, kind: GoalKind) -> StoreResult<()> {
        let gone = self.store.with_conn(|c| {
            Ok(c.execute(
                "DELETE FROM plan_goals WHERE profile_id = ?1 AND kind = ?2",
                params![profile_id, kind.as_str()],
            )?)
        })?;
        if gone == 0 {
            return Err(StoreError::NotFound(format!(
                "a {} goal for this child",
                kind.as_str()
            )));
        }
        Ok(())
    }
}
