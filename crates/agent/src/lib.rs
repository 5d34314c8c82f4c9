//! Deskmate's deep-agent runtime, modelled on LangChain's deepagents: a
//! model streams a reply; the tools it asks for run (independent calls
//! concurrently) on a sandboxed workspace; results go back; and so on until
//! a final answer, the step limit or a stop. Every step is stored in SQLite
//! as it happens and shown as an AG-UI event.
//!
//! Start with [`Agent::prepare`] and [`PreparedRun::execute`].

mod error;
pub mod events;
mod large_results;
pub mod mcp;
pub mod persist;
mod prompt;
mod run_lock;
mod runtime;
mod sandbox;
pub mod skills;
pub mod summarize;
pub mod team;
pub mod tools;
mod turn;

pub use error::{AgentError, AgentResult};
pub use events::{AgUiEvent, EventOrder};
pub use large_results::{estimate_tokens, LARGE_RESULTS_DIR};
pub use persist::{RunStatus, StoredMessage, StoredToolCall, Thread, ThreadView, ToolCallStatus};
pub use prompt::BASE_PROMPT;
pub use run_lock::ThreadLock;
pub use runtime::{
    recover_interrupted_runs, thread_dir, workspace_dir, Agent, AgentConfig, PreparedRun,
    RunOutcome, RunRequest,
};
pub use sandbox::{Sandbox, SandboxError, Seed, SpecialKind, WorkspacePath};
pub use skills::{Skill, SkillLibrary, SkillProblem};
pub use tokio_util::sync::CancellationToken;
pub use tools::{SearchConfig, ThreadState, Todo, TodoStatus, ToolSet, ToolTimeLimits};
pub use turn::EventSink;
