//! The practice screen's payloads: a submission's task id, its progress
//! (`practice://task`, with the verdict when done), the events a recording
//! sends while the child recites (`practice://level`, `practice://partial`)
//! and the review reminders (`reviews://due`).
//!
//! [`TaskEvent`], [`PracticeResult`], [`FeedbackView`] and
//! [`RecitationError`] are the wire shapes of the orchestrator's and the
//! recitation checker's types of the same names (which carry their logic:
//! building a result from an attempt, placing an error in the text); the
//! app converts one into the other, and a test of `deskmate-app` checks
//! both serialize alike.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::WireError;

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

/// What went wrong in a recitation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum ErrorType {
    /// Reference content that was not recited (漏内容).
    Omission,
    /// Recited content that is not in the reference (多字).
    Insertion,
    /// A unit recited as another (voice: 字音错; text: 错别字).
    Substitution,
    /// Content present but transposed (记混顺序).
    Order,
}

/// A finer description of an error (see `deskmate_recite::ErrorKind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum ErrorKind {
    Line,
    Part,
    Extra,
    Tone,
    Sound,
    Homophone,
    Spelling,
    Other,
    Swap,
    Move,
}

/// One error of a recitation, placed in the reference.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct RecitationError {
    #[serde(rename = "type")]
    pub error_type: ErrorType,
    pub kind: ErrorKind,
    /// 1-based line (sentence) of the reference.
    pub line: usize,
    /// 0-based unit offset within the line.
    pub offset: usize,
    /// What the reference says here (empty for an insertion).
    pub expected: String,
    /// What was recited here (empty for an omission).
    pub actual: String,
    /// Short label for a child or parent, Chinese.
    pub label_zh: String,
    /// Short label, English.
    pub label_en: String,
    /// Speech recognition was unsure of the recited units involved (only
    /// with per-unit confidences): the child may well have been right.
    /// Uncertain errors still count in accuracy but are said gently and not
    /// recorded as error patterns.
    #[serde(default)]
    pub uncertain: bool,
}

/// What to tell the child about a verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct FeedbackView {
    pub zh: String,
    pub en: String,
    /// The memory tip for an error seen before, if any.
    pub tip_zh: Option<String>,
    pub tip_en: Option<String>,
}

/// One verdict with what to tell the child.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct PracticeResult {
    pub attempt_id: String,
    pub attempt_number: u32,
    pub accuracy: f64,
    pub passed: bool,
    pub units: usize,
    pub correct: usize,
    pub transcript: String,
    pub errors: Vec<RecitationError>,
    /// The reference's lines; an error's `line` is an index + 1.
    pub lines: Vec<String>,
    pub feedback: FeedbackView,
    /// When the review schedule next asks for this material (RFC 3339),
    /// if this attempt scheduled one.
    #[serde(default)]
    pub next_review_at: Option<String>,
    #[serde(default)]
    pub review_interval_days: Option<i64>,
    /// The lines (1-based) the verdict could not hear clearly and the child
    /// may say again, each once: a retake of just that line is merged into
    /// this same attempt.
    #[serde(default)]
    pub lines_to_say_again: Vec<usize>,
}

/// Where a submission is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// The microphone is open; the task id exists from here on.
    Listening,
    Queued,
    Transcribing,
    Checking,
    Done,
    Failed,
}

/// Progress of one submission, on `practice://task`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct TaskEvent {
    pub practice_id: String,
    pub task_id: String,
    pub status: TaskStatus,
    /// Why the task failed (with `Failed`): a code the window has words
    /// for in the child's language, and the core's English.
    pub error: Option<WireError>,
    pub result: Option<PracticeResult>,
}

/// One line of `deskmate practice submit|record --json`: the progress of
/// the submission, or the text heard so far.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PracticeProgress {
    Task(Box<TaskEvent>),
    Partial(PartialEvent),
}
