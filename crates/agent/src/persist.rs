//! Thread persistence: threads, messages, runs, tool calls, thread state and
//! model calls, each written the moment it happens (one statement or one
//! transaction), through the store's single connection. These functions
//! block: async callers run them with `spawn_blocking`. A run's own writes
//! (its thread, start, replies, tool results, steps and end) go through
//! [`Store::write`]: committed together with other runs' writes queued at
//! the same moment (group commit), each returning once its commit is done.
//!
//! One module per kind of record — `threads`, `messages` (with their tool
//! calls), `runs` (with the model calls they made), `state`, `approvals`,
//! `subagents`, `summaries` and the `timeline` — all re-exported here;
//! the row readers and column lists they share stay in this file.

use deskmate_llm::{ContentPart, Message, Role, ToolCall, Usage};
use deskmate_store::{now_utc, Store, StoreError, StoreResult};
use rusqlite::{params, Connection, OptionalExtension, Row};
use serde::{Deserialize, Serialize};

use crate::tools::ThreadState;

mod approvals;
mod messages;
mod runs;
mod state;
mod subagents;
mod summaries;
mod threads;
mod timeline;

pub use approvals::{
    decide_approval, mark_applied, open_approvals, open_approvals_of_thread,
    open_approvals_of_tree, paused_children, request_approvals, root_run, set_call_arguments,
    waiting_call_ids, withdraw_approvals, Approval, ApprovalDecision,
};
pub use deskmate_protocol::chat::{StoredToolCall, Thread, ToolCallStatus};
pub use messages::*;
pub use runs::*;
pub use state::*;
pub use subagents::{
    child_runs, run_usage_with_subagents, start_child_run, stop_child_runs, ChildRunView, RunUsage,
};
pub use summaries::{insert_summary, model_history};
pub use threads::*;
pub use timeline::{run_timeline, CallKind, RunTimeline, TimedCall};

/// A message as stored: its place in the thread and the message itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredMessage {
    pub id: String,
    pub run_id: Option<String>,
    pub seq: i64,
    pub message: Message,
    pub created_at: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    Running,
    Completed,
    Cancelled,
    Error,
    StepLimit,
    Interrupted,
}

impl RunStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Running => "running",
            RunStatus::Completed => "completed",
            RunStatus::Cancelled => "cancelled",
            RunStatus::Error => "error",
            RunStatus::StepLimit => "step_limit",
            RunStatus::Interrupted => "interrupted",
        }
    }
    fn parse(s: &str) -> Self {
        match s {
            "running" => RunStatus::Running,
            "completed" => RunStatus::Completed,
            "cancelled" => RunStatus::Cancelled,
            "step_limit" => RunStatus::StepLimit,
            "interrupted" => RunStatus::Interrupted,
            _ => RunStatus::Error,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Run {
    pub id: String,
    pub thread_id: String,
    pub status: RunStatus,
    pub model: String,
    pub steps: u32,
    pub error: Option<String>,
    pub started_at: String,
    pub finished_at: Option<String>,
    /// A subagent's run: the run whose `task` call started it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_run_id: Option<String>,
    /// A subagent's run: the `task` call it answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_tool_call_id: Option<String>,
    /// A subagent's run: the subagent's name (e.g. `math-tutor`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
}

/// Everything about a thread, for the chat screen and `threads show`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThreadView {
    pub thread: Thread,
    /// The lead's messages (subagents' are under `children`).
    pub messages: Vec<StoredMessage>,
    pub tool_calls: Vec<StoredToolCall>,
    /// The lead's runs.
    pub runs: Vec<Run>,
    pub state: ThreadState,
    /// Subagent runs, each with its own messages and tool calls, in the
    /// order they started; `run.parent_tool_call_id` is the `task` call
    /// each answers.
    #[serde(default)]
    pub children: Vec<ChildRunView>,
    /// What each of the lead's runs cost, its subagents' model calls included.
    #[serde(default)]
    pub usage: Vec<RunUsage>,
}

/// One model call's record.
#[derive(Debug, Clone, PartialEq)]
pub struct LlmCallRecord {
    pub thread_id: String,
    pub run_id: String,
    pub model: String,
    /// `completed`, `error` or `cancelled`.
    pub status: &'static str,
    pub usage: Usage,
    pub cost_usd: Option<f64>,
    pub duration_ms: u64,
    pub error: Option<String>,
}

fn new_id() -> String {
    uuid::Uuid::now_v7().to_string()
}

fn thread_row(r: &Row<'_>) -> rusqlite::Result<Thread> {
    Ok(Thread {
        id: r.get(0)?,
        profile_id: r.get(1)?,
        title: r.get(2)?,
        created_at: r.get(3)?,
        updated_at: r.get(4)?,
    })
}

fn run_row(r: &Row<'_>) -> rusqlite::Result<Run> {
    let status: String = r.get(2)?;
    Ok(Run {
        id: r.get(0)?,
        thread_id: r.get(1)?,
        status: RunStatus::parse(&status),
        model: r.get(3)?,
        steps: r.get(4)?,
        error: r.get(5)?,
        started_at: r.get(6)?,
        finished_at: r.get(7)?,
        parent_run_id: r.get(8)?,
        parent_tool_call_id: r.get(9)?,
        agent: r.get(10)?,
    })
}

fn call_row(r: &Row<'_>) -> rusqlite::Result<StoredToolCall> {
    let status: String = r.get(5)?;
    Ok(StoredToolCall {
        id: r.get(0)?,
        message_id: r.get(1)?,
        run_id: r.get(2)?,
        name: r.get(3)?,
        arguments: r.get(4)?,
        status: match status.as_str() {
            "pending" => ToolCallStatus::Pending,
            "completed" => ToolCallStatus::Completed,
            "interrupted" => ToolCallStatus::Interrupted,
            _ => ToolCallStatus::Error,
        },
        result: r.get(6)?,
        started_at: r.get(7)?,
        finished_at: r.get(8)?,
    })
}

const THREAD_COLS: &str = "id, profile_id, title, created_at, updated_at";
const RUN_COLS: &str = "id, thread_id, status, model, steps, error, started_at, finished_at, parent_run_id, parent_tool_call_id, agent";

/// SQL true for a row (of `messages` or `tool_calls`) that belongs to a
/// subagent's run.
const OF_CHILD_RUN: &str =
    "EXISTS (SELECT 1 FROM runs r WHERE r.id = run_id AND r.parent_run_id IS NOT NULL)";
const CALL_COLS: &str =
    "id, message_id, run_id, name, arguments, status, result, started_at, finished_at";
