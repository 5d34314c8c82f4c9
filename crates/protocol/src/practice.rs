//! The practice screen's small payloads: a submission's task id, and the
//! events a recording sends while the child recites (`practice://level`,
//! `practice://partial`) and the review reminders (`reviews://due`).

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// The event carrying the level meter.
pub const LEVEL_EVENT: &str = "practice://level";
/// The event carrying the text heard so far.
pub const PARTIAL_EVENT: &str = "practice://partial";
/// The event carrying a submission's progress (`TaskEvent`).
pub const TASK_EVENT: &str = "practice://task";
/// The event saying a child has reviews due today.
pub const REVIEWS_DUE_EVENT: &str = "reviews://due";

/// The task a submission is checked under; its progress arrives as `practice://task`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct TaskId {
    pub task_id: String,
}

/// The level meter's payload on `practice://level`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct LevelEvent {
    pub practice_id: String,
    /// 0..1
    pub level: f32,
}

/// The live partial transcript's payload on `practice://partial`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct PartialEvent {
    pub practice_id: String,
    pub text: String,
}

/// A child's reviews due today, on `reviews://due`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ReviewsDueEvent {
    pub profile_id: String,
    pub count: usize,
}
