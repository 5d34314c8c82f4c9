//! Today's learning plan and the parent's goals, for the front ends: the
//! plan itself is `deskmate_orchestrator::plan` (today's tasks from due
//! reviews, unfinished practice and the goals, each done or not by today's
//! attempts); the goals are the store's (`plan_goals`).

use chrono::Utc;
use deskmate_orchestrator::plan::{self, Plan};
use deskmate_store::{Goal, GoalKind};

use crate::{AppResult, Deskmate};

impl Deskmate {
    /// The child's plan for their local today, with each task's progress.
    pub fn plan_today(&self, profile_id: &str) -> AppResult<Plan> {
        Ok(plan::today(self.store(), profile_id, Utc::now())?)
    }

    /// A child's goals.
    pub fn goals(&self, profile_id: &str) -> AppResult<Vec<Goal>> {
        Ok(self.store().goals().list(profile_id)?)
    }

    /// Sets (or changes) a child's goal of `kind`.
    pub fn set_goal(&self, profile_id: &str, kind: GoalKind, target: u32) -> AppResult<Goal> {
        Ok(self.store().goals().set(profile_id, kind, target)?)
    }

    /// Removes a child's goal of `kind`.
    pub fn remove_goal(&self, profile_id: &str, kind: GoalKind) -> AppResult<()> {
        Ok(self.store().goals().remove(profile_id, kind)?)
    }
}
