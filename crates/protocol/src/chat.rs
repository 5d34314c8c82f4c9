//! The chat screen's views: threads, their messages and tool calls, the
//! model's todo list, a started run's ids and the provider settings. The
//! agent stores threads, tool calls and todos in exactly these shapes
//! (`deskmate_agent` re-exports them).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// A conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct Thread {
    pub id: String,
    pub profile_id: Option<String>,
    pub title: String,
    pub created_at: String,
    pub updated_at: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ToolCallStatus {
    Pending,
    Completed,
    Error,
    Interrupted,
}

/// A tool call as stored, with its status and result (the chat's tool cards).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct StoredToolCall {
    pub id: String,
    pub message_id: String,
    pub run_id: Option<String>,
    pub name: String,
    pub arguments: String,
    pub status: ToolCallStatus,
    pub result: Option<String>,
    pub started_at: String,
    pub finished_at: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatus {
    Pending,
    InProgress,
    Completed,
}

/// One step of the plan the model keeps for a longer task (`write_todos`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct Todo {
    /// What to do, in a short sentence.
    pub content: String,
    pub status: TodoStatus,
}

/// Who said a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum ChatRole {
    System,
    User,
    Assistant,
    Tool,
}

/// A message as the chat screen draws it: its text parts joined.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct MessageView {
    pub id: String,
    pub role: ChatRole,
    pub content: String,
    /// The calls an assistant message asked for; `null` when none.
    pub tool_calls: Option<Vec<ToolCallRef>>,
    /// For a tool result: the call it answers.
    pub tool_call_id: Option<String>,
    /// For a tool result: whether the tool failed (its card shows it).
    #[serde(default)]
    pub is_error: bool,
    pub created_at: String,
}

/// A tool call an assistant message asked for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ToolCallRef {
    pub id: String,
    pub name: String,
    /// The arguments as the model wrote them (JSON text).
    pub arguments: String,
}

/// A thread with everything the chat screen shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ThreadView {
    pub thread: Thread,
    pub messages: Vec<MessageView>,
    pub todos: Vec<Todo>,
    /// Every tool call with its status and result, for the tool cards.
    pub tool_calls: Vec<StoredToolCall>,
    /// The lead's runs, oldest first, each with what it cost: a parent sees
    /// the thread's usage, and an `interrupted` last run can be continued.
    #[serde(default)]
    pub runs: Vec<RunSummary>,
    /// Tool calls the last run paused on, waiting for a parent.
    #[serde(default)]
    pub approvals: Vec<PendingApproval>,
    /// The subagents' runs, in the order they started: each is shown under
    /// the `task` call that started it, so a reopened thread keeps what
    /// every subagent said and did.
    #[serde(default)]
    pub subagents: Vec<SubagentRunView>,
}

/// A subagent's run as stored: its conversation, its tool calls and what it
/// cost, under the lead's `task` call it answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct SubagentRunView {
    pub run_id: String,
    /// The subagent's name (e.g. `math-tutor`).
    pub subagent_type: String,
    /// The lead's `task` call this run answered.
    pub tool_call_id: String,
    pub status: ChatRunStatus,
    pub model: String,
    /// Its messages in order: the task it was given, its replies (with the
    /// calls they asked for) and its tool results.
    pub messages: Vec<MessageView>,
    /// Its tool calls with their status and result.
    pub tool_calls: Vec<StoredToolCall>,
    pub model_calls: u32,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// US dollars; calls whose model has no known price count 0.
    pub cost_usd: f64,
}

/// A tool call waiting for a parent's approval (the run paused on it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct PendingApproval {
    pub tool_call_id: String,
    pub run_id: String,
    pub tool: String,
    /// The arguments as the model wrote them (JSON text).
    pub arguments: String,
    pub requested_at: String,
}

/// What a parent decided about a waiting call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum ApprovalDecision {
    /// Run it as the model asked.
    Approve,
    /// Run it with these arguments (JSON text) instead.
    Edit { arguments: String },
    /// Do not run it; the model is told why.
    Reject { reason: String },
    /// Do not run it; this is the tool's answer.
    Respond { answer: String },
}

/// A parent's decision on one waiting call, as the window sends it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ApprovalAnswer {
    pub tool_call_id: String,
    pub decision: ApprovalDecision,
}

/// Where a run is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ChatRunStatus {
    Running,
    Completed,
    Cancelled,
    Error,
    StepLimit,
    /// Cut off by a crash: it can be continued from its last stored step.
    Interrupted,
}

/// One of the lead's runs with its usage, its subagents' model calls included.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct RunSummary {
    pub id: String,
    pub status: ChatRunStatus,
    pub model: String,
    pub model_calls: u32,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// US dollars; calls whose model has no known price count 0.
    pub cost_usd: f64,
    pub subagent_runs: u32,
    pub started_at: String,
}

/// A started run's ids; its events follow on the run's channel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct RunIds {
    pub thread_id: String,
    pub run_id: String,
}

/// The model provider settings as the settings screen shows them: never the key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct LlmSettingsView {
    /// `provider:model`, e.g. `openai:gpt-4o-mini`; `null` when none is configured.
    pub model: Option<String>,
    pub base_url: Option<String>,
    pub has_key: bool,
    /// What is sent where, and whether a parent agreed to it: model use
    /// waits for that agreement.
    pub notice: ModelNoticeView,
}

/// The notice a parent agrees to before the companion uses a model: what
/// of a child's is sent to which address (`deskmate llm notice`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ModelNoticeView {
    /// Bumped when what is sent changes: an agreement to an older version
    /// no longer counts.
    pub version: u32,
    /// Where the family's model calls go (the configured base URL or the
    /// provider's default); `null` when no model is configured.
    pub endpoint: Option<String>,
    /// Where replies are also sent to be moderated, when a parent set it.
    pub moderation: Option<String>,
    /// The notice in Chinese and in English, with the addresses filled in.
    pub text_zh: String,
    pub text_en: String,
    /// When a parent agreed to this version for this endpoint (RFC 3339);
    /// `null`: not agreed, so nothing is sent.
    pub agreed_at: Option<String>,
}
