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
    #[error("{0}")]
    Store(#[from] StoreError),
    #[error("{0}")]
    Sandbox(#[from] SandboxError),
    #[error("{0}")]
    Llm(#[from] LlmError),
    #[error("{0}")]
    Io(String),
}

pub type AgentResult<T> = Result<T, AgentError>;
