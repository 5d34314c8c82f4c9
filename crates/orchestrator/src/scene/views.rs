//! What the practice scene shows and tells: the practice as the screen
//! shows it, one verdict with its feedback, and the progress of each
//! submission. Front ends receive these as they are (the UI's TypeScript is
//! generated from them).

use deskmate_protocol::{LevelEvent, PartialEvent, WireError};
use deskmate_recite::practice::AttemptOutcome;
use deskmate_recite::{Mode, RecitationError};
use deskmate_store::Material;
use serde::{Deserialize, Serialize};

use crate::PracticeState;

/// A practice as the practice screen shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PracticeView {
    pub id: String,
    pub profile_id: String,
    pub material: Material,
    pub mode: Mode,
    pub is_review: bool,
    pub attempts: u32,
    pub state: PracticeState,
    pub last_result: Option<PracticeResult>,
}

/// One verdict with what to tell the child.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
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

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FeedbackView {
    pub zh: String,
    pub en: String,
    /// The memory tip for an error seen before, if any.
    pub tip_zh: Option<String>,
    pub tip_en: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
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

/// Progress of one submission, sent to the UI as it happens.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TaskEvent {
    pub practice_id: String,
    pub task_id: String,
    pub status: TaskStatus,
    /// Why the task failed (with `Failed`): a code the window has words
    /// for in the child's language, and the core's English.
    pub error: Option<WireError>,
    pub result: Option<PracticeResult>,
}

/// What the scene publishes while it runs; the app puts each on its one
/// event stream.
#[derive(Debug, Clone, PartialEq)]
pub enum SceneEvent {
    /// A submission's progress (listening → … → done or failed).
    Task(Box<TaskEvent>),
    /// The microphone's level while a child recites.
    Level(LevelEvent),
    /// The text heard so far while a child recites.
    Partial(PartialEvent),
}

impl PracticeResult {
    /// The verdict on a recorded attempt; `transcript` is what the child is
    /// shown as heard or typed.
    pub fn from_outcome(o: &AttemptOutcome, transcript: &str) -> Self {
        let tip = o.feedback.items.iter().find_map(|i| i.tip.clone());
        Self {
            attempt_id: o.attempt_id.clone(),
            attempt_number: o.attempt_no,
            accuracy: o.verdict.accuracy,
            passed: o.passed,
            units: o.verdict.units,
            correct: o.verdict.correct,
            transcript: transcript.to_string(),
            errors: o.verdict.errors.clone(),
            lines: o.verdict.lines.iter().map(|l| l.text.clone()).collect(),
            feedback: FeedbackView {
                zh: o.feedback.zh.clone(),
                en: o.feedback.en.clone(),
                tip_zh: tip.as_ref().map(|t| t.zh.clone()),
                tip_en: tip.map(|t| t.en),
            },
            next_review_at: o.schedule.as_ref().map(|s| s.next_review_at.clone()),
            review_interval_days: o.schedule.as_ref().map(|s| s.interval_days),
            lines_to_say_again: deskmate_recite::retake::unclear_lines(&o.verdict.errors),
        }
    }
}
