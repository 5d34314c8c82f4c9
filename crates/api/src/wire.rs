//! What the API answers, as types: the handlers build these and serialize
//! them, and the OpenAPI document's response schemas are generated from the
//! same types (schemars), so the document cannot say one shape while a
//! route sends another. The request bodies' types live beside their
//! handlers and derive their schemas the same way.
//!
//! A LangChain message (`values.messages`) and the core's own records (the
//! entry's response, a recitation check's answer) stay JSON values here:
//! their schemas say "an object" and what it is, not each field.

use std::collections::BTreeMap;

use deskmate_protocol::chat::Todo;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value};

/// `GET /ok`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Health {
    pub ok: bool,
}

/// `GET /info`: what this server is.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Info {
    pub version: String,
    /// Always `deskmate`.
    pub server: String,
    pub flags: InfoFlags,
    pub metadata: Map<String, Value>,
}

/// The LangGraph features this server serves.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct InfoFlags {
    pub assistants: bool,
    pub crons: bool,
    pub langsmith: bool,
}

/// The companion as a LangGraph assistant.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Assistant {
    pub assistant_id: String,
    pub graph_id: String,
    pub name: String,
    pub description: String,
    pub config: Map<String, Value>,
    pub context: Map<String, Value>,
    pub metadata: Map<String, Value>,
    pub version: u32,
    pub created_at: String,
    pub updated_at: String,
}

/// An assistant as the deep-agents dialect lists it: with its model and
/// tools.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ListedAssistant {
    #[serde(flatten)]
    pub assistant: Assistant,
    /// The configured `provider:model`, `null` when none is.
    pub model: Option<String>,
    pub tools: Vec<String>,
}

/// A call waiting for a parent's approval, as a LangGraph interrupt.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Interrupt {
    /// The waiting tool call's id.
    pub id: String,
    pub value: InterruptValue,
    /// Always `during`.
    pub when: String,
    pub resumable: bool,
    pub ns: Vec<String>,
}

/// What an interrupt asks.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct InterruptValue {
    /// Always `tool_approval`.
    pub reason: String,
    pub message: String,
    pub tool: String,
    /// The call's arguments (the JSON the model wrote, or its text when it
    /// is not JSON).
    pub arguments: Value,
    pub tool_call_id: String,
    pub run_id: String,
}

/// The graph's values.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Values {
    /// LangChain messages (`human`, `ai` with `tool_calls`, `tool`,
    /// `system`), as `langchain_core` serializes them.
    #[schemars(with = "Vec<Map<String, Value>>")]
    pub messages: Vec<Value>,
    /// The model's plan (`write_todos`).
    pub todos: Vec<Todo>,
    /// The calls waiting for a parent's approval, when the run paused.
    #[serde(rename = "__interrupt__", skip_serializing_if = "Option::is_none")]
    pub interrupt: Option<Vec<Interrupt>>,
    /// How the run failed (`runs/wait` only): `{error, message}`.
    #[serde(rename = "__error__", skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Map<String, Value>>")]
    pub error: Option<Value>,
}

/// A thread's status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ThreadStatus {
    Idle,
    Busy,
    Interrupted,
    Error,
}

impl ThreadStatus {
    /// The name a client searches by.
    pub fn name(self) -> &'static str {
        match self {
            Self::Idle => "idle",
            Self::Busy => "busy",
            Self::Interrupted => "interrupted",
            Self::Error => "error",
        }
    }
}

/// A chat thread as LangGraph's `Thread`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Thread {
    pub thread_id: String,
    pub created_at: String,
    pub updated_at: String,
    pub metadata: Map<String, Value>,
    pub status: ThreadStatus,
    pub values: Values,
    /// The waiting calls by node (`tools`), empty when none waits.
    pub interrupts: BTreeMap<String, Vec<Interrupt>>,
}

/// A checkpoint: its id is a run's.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Checkpoint {
    pub thread_id: String,
    pub checkpoint_ns: String,
    /// `null` before the thread's first run.
    pub checkpoint_id: Option<String>,
    pub checkpoint_map: Option<Map<String, Value>>,
}

/// The node waiting in a paused state (`tools`).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct StateTask {
    pub id: String,
    pub name: String,
    pub path: Vec<String>,
    pub error: Option<String>,
    pub interrupts: Vec<Interrupt>,
    pub checkpoint: Option<Checkpoint>,
    pub state: Option<Value>,
    pub result: Option<Value>,
}

/// LangGraph's `ThreadState`: the state after a run.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ThreadState {
    pub values: Values,
    /// `["tools"]` while a call waits, else empty.
    pub next: Vec<String>,
    pub tasks: Vec<StateTask>,
    pub interrupts: Vec<Interrupt>,
    pub checkpoint: Checkpoint,
    pub parent_checkpoint: Option<Checkpoint>,
    pub metadata: Map<String, Value>,
    pub created_at: String,
}

/// The deep-agents dialect's state: the todo list and the front end's
/// values.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct AgentState {
    pub todos: Vec<Todo>,
    pub vars: Map<String, Value>,
}

/// A file in a thread's workspace.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct WorkspaceFile {
    /// From the workspace's root: `/notes.md`.
    pub path: String,
    pub size: u64,
}

/// `GET /threads/{id}/state`: LangGraph's `ThreadState` and the deep-agents
/// dialect's fields in one answer.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct StateAnswer {
    #[serde(flatten)]
    pub langgraph: ThreadState,
    pub thread_id: String,
    pub state: AgentState,
    pub updated_at: String,
    /// Always empty so far.
    pub messages_summary: Vec<Value>,
    pub files: Vec<WorkspaceFile>,
}

/// `POST /threads/{id}/state`: the checkpoint the state is now at.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct StateUpdated {
    pub checkpoint: Checkpoint,
}

/// A run's status as LangGraph names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RunState {
    Pending,
    Running,
    Success,
    /// Paused for an approval, or cancelled.
    Interrupted,
    Error,
}

/// A run as LangGraph's `Run`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Run {
    pub run_id: String,
    pub thread_id: String,
    pub assistant_id: String,
    /// `null` only for a queued run whose record is gone.
    pub created_at: Option<String>,
    pub updated_at: Option<String>,
    pub status: RunState,
    pub metadata: Map<String, Value>,
    pub kwargs: Map<String, Value>,
    /// `reject`, `enqueue`, `interrupt` or `rollback`.
    pub multitask_strategy: String,
}

/// The deep-agents dialect's answer to a run with `stream: false`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct AgentRunAnswer {
    pub run_id: String,
    pub thread_id: String,
    /// `completed`, `interrupted` or `error`.
    pub status: String,
    /// The error's message when it failed.
    pub error: Option<String>,
    /// The dialect's `message` events' data.
    #[schemars(with = "Vec<Map<String, Value>>")]
    pub messages: Vec<Value>,
    /// The dialect's `tool` events' data.
    #[schemars(with = "Vec<Map<String, Value>>")]
    pub tools: Vec<Value>,
}

/// `POST /recitation/tasks`: the task filed.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct TaskFiled {
    pub task_id: String,
    pub status: crate::recitation_tasks::Status,
}

/// The core's answer, passed through: the entry's response (as `deskmate
/// say --json` prints it) or a recitation check's (as `deskmate recite
/// --json` prints it).
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(transparent)]
pub struct CoreAnswer(#[schemars(with = "Map<String, Value>")] pub Value);

/// A routine and its runs (`GET /workflows/{name}`).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RoutineWithRuns {
    pub routine: deskmate_protocol::routine::Routine,
    pub runs: Vec<deskmate_protocol::routine::RoutineRunView>,
}

/// A routine's run as saved and what its nodes reported.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RoutineRan {
    pub run: deskmate_protocol::routine::RoutineRunView,
    pub events: Vec<deskmate_protocol::routine::RoutineEvent>,
}
