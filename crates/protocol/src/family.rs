//! What a parent sees and does about a child as a whole (issue 20): what an
//! export wrote and what a deletion removed (`deskmate profiles
//! export|delete --json`); the answer to a question about a child's
//! progress with its chart (`deskmate ask --json`); what the companion cost
//! (`deskmate usage --json`: [`UsageReport`]), a child's daily [`Limits`]
//! and quiet hours (`deskmate limits`), the [`Notice`]s kept for the parent
//! and a reply the safety check replaced with its conversation
//! ([`ReplacedReply`], `deskmate notices show`). The orchestrator computes
//! usage and checks limits, the store keeps notices; these are the shapes
//! they hand out, and the window's parent screens receive; and a weekly report saved to keep
//! (`deskmate report weekly --save`: [`KeepsakeWritten`]).

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::chat::ThreadView;

/// How many rows of a child one table held.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct TableRowCount {
    pub table: String,
    pub rows: u64,
}

/// A child's data written to a zip file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ChildExported {
    pub profile_id: String,
    pub name: String,
    /// The zip file written.
    pub file: String,
    /// Rows per table (every table that can hold a child's rows, empty ones too).
    pub tables: Vec<TableRowCount>,
    /// Files of the child's chat workspaces put in the zip.
    pub workspace_files: u64,
}

/// A child deleted with all their data.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ChildDeleted {
    pub profile_id: String,
    pub name: String,
    /// Rows removed per table (tables that held none left out).
    pub tables: Vec<TableRowCount>,
    /// Folders and files removed from the data directory.
    pub paths_removed: Vec<String>,
    /// True when sync is on: the deletion waits in the outbox for the
    /// family's other devices.
    pub sent_to_family: bool,
}

/// The kind of chart an answer is drawn as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ChartKind {
    Line,
    Bar,
    Pie,
}

/// One series of a chart: a value per label.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ChartSeries {
    pub name: String,
    pub values: Vec<f64>,
}

/// A small chart spec a front end draws: labels on one axis (or the
/// slices of a pie) and one or more series.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct Chart {
    pub kind: ChartKind,
    pub title: String,
    pub labels: Vec<String>,
    pub series: Vec<ChartSeries>,
}

/// The answer to a parent's question about a child's progress
/// (`deskmate ask --json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ProgressAnswer {
    /// Which built-in question answered it (`accuracy_this_week`, …), or
    /// `model` when the configured model wrote its own queries.
    pub question: String,
    pub text: String,
    pub chart: Option<Chart>,
}

/// What a report to keep is written as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum KeepsakeFormat {
    Png,
    Pdf,
}

/// One of the child's goals held against a week.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct GoalOutcome {
    /// `reviews_per_week` or `new_per_day`.
    pub kind: String,
    /// What the week needed (a daily goal times seven).
    pub target: u32,
    pub done: u32,
    pub met: bool,
}

/// A weekly report written as a picture or a PDF
/// (`deskmate report weekly --save FILE`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct KeepsakeWritten {
    pub profile_id: String,
    pub name: String,
    /// The Monday of the week.
    pub week_of: String,
    pub file: String,
    pub format: KeepsakeFormat,
    pub bytes: u64,
    /// True when every goal of the week was met: the page is a certificate.
    pub certificate: bool,
    pub goals: Vec<GoalOutcome>,
}

/// One child's day of the companion's use.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
pub struct DayUsage {
    pub profile_id: String,
    pub profile_name: String,
    /// The child's local date, `YYYY-MM-DD`.
    pub date: String,
    /// The companion's answers started that day (subagents' not counted apart).
    pub runs: u32,
    pub model_calls: u32,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cached_input_tokens: u64,
    /// US dollars; calls whose price is unknown count 0 (see `unpriced_calls`).
    pub cost_usd: f64,
    /// Calls stored without a cost (a model with no known price).
    pub unpriced_calls: u32,
    /// Seconds of chat: the gaps between the day's messages, long pauses
    /// left out (`deskmate_orchestrator::usage`).
    pub chat_seconds: u64,
}

impl DayUsage {
    /// Whole minutes of chat, rounded up (a started minute counts).
    pub fn chat_minutes(&self) -> u64 {
        self.chat_seconds.div_ceil(60)
    }
}

/// One of the companion's answers (a top-level run with its subagents).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
pub struct RunUsage {
    pub run_id: String,
    pub thread_id: String,
    pub profile_id: String,
    pub model: String,
    pub status: String,
    pub started_at: String,
    pub model_calls: u32,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cached_input_tokens: u64,
    pub cost_usd: f64,
}

/// Usage over some days: per child and day (every day of the window, empty
/// ones too, oldest first) and per run (newest first).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
pub struct UsageReport {
    pub days: Vec<DayUsage>,
    pub runs: Vec<RunUsage>,
}

/// Quiet hours, in the child's local time, `HH:MM` (crossing midnight
/// when `from` is later than `to`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct QuietHours {
    pub from: String,
    pub to: String,
}

/// A child's daily limits; `None` is no limit. Checked and enforced by
/// `deskmate_orchestrator::limits`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// Minutes of chat with the companion a day.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub chat_minutes: Option<u32>,
    /// Model calls a day.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub model_calls: Option<u32>,
    /// US dollars a day.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub cost_usd: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub quiet: Option<QuietHours>,
}

/// What a notice to a parent is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum NoticeKind {
    /// A daily limit (minutes of chat, model calls, cost) was reached and a
    /// request was refused.
    LimitReached,
    /// The child asked for something in the quiet hours.
    QuietHours,
    /// A reply of the companion was replaced by a safe one.
    ReplyReplaced,
    /// A routine told the parent something: its `notify_parent` note, or a
    /// step's reply the child-safety check replaced (`detail`: routine,
    /// run, node, note, and the original words when replaced).
    RoutineNote,
}

impl NoticeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::LimitReached => "limit_reached",
            Self::QuietHours => "quiet_hours",
            Self::ReplyReplaced => "reply_replaced",
            Self::RoutineNote => "routine_note",
        }
    }

    /// The kind a stored name stands for.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "limit_reached" => Self::LimitReached,
            "quiet_hours" => Self::QuietHours,
            "reply_replaced" => Self::ReplyReplaced,
            "routine_note" => Self::RoutineNote,
            _ => return None,
        })
    }
}

/// One notice to a parent (kept by the store until marked read).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct Notice {
    pub id: String,
    pub profile_id: String,
    pub kind: NoticeKind,
    /// The child's local date it happened on.
    pub day: String,
    /// Which limit and the day's figure (`limit`, `value`, `max`), or why a
    /// reply was replaced (`message_id`, `reasons`), and `message`: the
    /// core's English sentence.
    #[ts(type = "Record<string, unknown>")]
    pub detail: serde_json::Value,
    /// The conversation, for a replaced reply.
    pub thread_id: Option<String>,
    pub created_at: String,
    pub read_at: Option<String>,
}

/// A reply of the companion the safety check replaced, for the parent: what
/// the model wrote, why it was replaced, and the conversation as the child
/// saw it (the replaced message shows the safe reply).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ReplacedReply {
    pub notice: Notice,
    /// The message that was replaced.
    pub message_id: String,
    /// The model's own words, never shown to the child.
    pub original: String,
    /// The categories the check found (`personal_details`, `violence`, …).
    pub reasons: Vec<String>,
    pub thread: ThreadView,
}
