//! The types that cross a boundary: what the window, the CLI's `--json`
//! output and the coming HTTP API receive — views, AG-UI events, the one
//! event stream ([`AppEvent`]: task, progress and notice events), the wire error `{code, message, params}`,
//! and the CLI's check output.
//! Serde types only, no I/O. Each derives [`ts_rs::TS`]; the UI's TypeScript
//! (`ui/src/protocol.ts`) is generated from them and from the core's data
//! types (see [`typescript`] and the README).

pub mod agui;
pub mod chat;
pub mod check;
pub mod error;
pub mod events;
pub mod family;
pub mod files;
pub mod knowledge;
pub mod lamp;
pub mod mcp;
pub mod models;
pub mod practice;
pub mod routine;
pub mod settings;
pub mod status;
pub mod sync;
pub mod typescript;
pub mod voice;

pub use agui::AgUiEvent;
pub use chat::{
    ApprovalAnswer, ApprovalDecision, ChatRole, ChatRunStatus, LlmSettingsView, MessageView,
    ModelNoticeView, PendingApproval, RunIds, RunSummary, StoredToolCall, SubagentRunView, Thread,
    ThreadView, Todo, TodoStatus, ToolCallRef, ToolCallStatus,
};
pub use check::{CheckedError, CheckedLine, LineFailure, StageTimings};
pub use error::WireError;
pub use events::{AppEvent, ReminderEvent};
pub use knowledge::{KnowledgeBaseView, KnowledgeDocumentView, KnowledgePassage};
pub use models::{ModelPhase, ModelProgress, ModelStatus};
pub use practice::{
    FeedbackView, LevelEvent, PartialEvent, PracticeResult, ReviewsDueEvent, TaskEvent, TaskId,
    TaskStatus,
};
pub use status::AppStatus;
