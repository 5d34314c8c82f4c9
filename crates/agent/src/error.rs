//! The agent's errors: what stops a run from starting. Failures during a
//! run are not errors of this type: they end the run with RUN_ERROR and a
//! stored status, and tool failures go back to the model as text.

use deskmate_llm::LlmError;
use deskmate_store::StoreError;

use crate::SandboxError;

#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error("thread {0} not found")]
    ThreadNotFound(String),
    #[error("a run is already in progress on thread {0}; wait for it to finish or stop it first")]
    Busy(String),
    #[error("the message is empty: type something to send")]
    EmptyMessage,
    /// Only a run a crash cut off (status `interrupted`) can be continued.
    #[error(
        "run {run} is {status}, not interrupted; only a run that was cut off can be continued"
    )]
    NotResumable { run: String, status: String },
    /// A run paused for a parent's approval continues once each waiting call is decided.
    #[error("run {run} waits for a parent's decision on {calls}: approve, change, reject or answer each first")]
    AwaitingApproval { run: String, calls: String },
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
    #[error(transparent)]
    Llm(#[from] LlmError),
    #[error("{0}")]
    Io(String),
}

pub type AgentResult<T> = Result<T, AgentError>;

impl AgentError {
    /// A stable, machine-readable name for the failure; the store's and the
    /// model provider's codes pass through.
    pub fn code(&self) -> &'static str {
        match self {
            Self::ThreadNotFound(_) => "chat.thread_not_found",
            Self::Busy(_) => "chat.busy",
            Self::EmptyMessage => "chat.empty_message",
            Self::NotResumable { .. } => "chat.not_resumable",
            Self::AwaitingApproval { .. } => "chat.awaiting_approval",
            Self::Store(e) => e.code(),
            Self::Sandbox(_) => "chat.sandbox",
            Self::Llm(e) => e.wire_code(),
            Self::Io(_) => "chat.io",
        }
    }

    /// The codes the agent adds (besides the store's and the provider's).
    pub const CODES: &'static [&'static str] = &[
        "chat.thread_not_found",
        "chat.busy",
        "chat.empty_message",
        "chat.not_resumable",
        "chat.awaiting_approval",
        "chat.sandbox",
        "chat.io",
    ];

    /// The values a translated message needs (the store's, passed through).
    pub fn params(&self) -> serde_json::Map<String, serde_json::Value> {
        match self {
            Self::Store(e) => e.params(),
            _ => serde_json::Map::new(),
        }
    }
}
