//! The LangGraph server's JSON shapes built from the core's records: a
//! stored message as a LangChain message (`human`, `ai` with `tool_calls`,
//! `tool`), a chat thread as a LangGraph thread, its state (values, next,
//! tasks, interrupts, checkpoint) and the companion as the one assistant.

use deskmate_app::chat::agent::persist::{self, Approval};
use deskmate_app::chat::agent::{RunStatus, StoredMessage, Thread};
use deskmate_app::chat::llm::{ContentPart, Role};
use deskmate_app::Deskmate;
use serde_json::{json, Map, Value};

use crate::error::ApiResult;
use crate::wire;
use deskmate_protocol::chat::Todo;

/// The graph every thread runs: the chat companion.
pub const GRAPH_ID: &str = "companion";

/// The companion's assistant id: the same on every device (UUIDv5).
pub fn assistant_id() -> String {
    uuid::Uuid::new_v5(&uuid::Uuid::NAMESPACE_URL, b"deskmate:assistant:companion").to_string()
}

/// Whether `id` names the companion (its assistant id or its graph id).
pub fn is_assistant(id: &str) -> bool {
    id == GRAPH_ID || id == assistant_id()
}

/// The companion as a LangGraph assistant.
pub fn assistant() -> wire::Assistant {
    let epoch = "2026-01-01T00:00:00+00:00";
    let mut config = Map::new();
    config.insert("configurable".into(), json!({}));
    let mut metadata = Map::new();
    metadata.insert("created_by".into(), json!("system"));
    wire::Assistant {
        assistant_id: assistant_id(),
        graph_id: GRAPH_ID.into(),
        name: GRAPH_ID.into(),
        description:
            "Deskmate's chat companion: the lead agent with its tools, skills and subagents".into(),
        config,
        context: Map::new(),
        metadata,
        version: 1,
        created_at: epoch.into(),
        updated_at: epoch.into(),
    }
}

/// A stored message as a LangChain message dict.
pub fn message(m: &StoredMessage) -> Value {
    let msg = &m.message;
    let texts: Vec<&str> = msg
        .content
        .iter()
        .filter_map(|p| match p {
            ContentPart::Text { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    let only_text = texts.len() == msg.content.len();
    let content = if only_text {
        Value::String(texts.concat())
    } else {
        Value::Array(
            msg.content
                .iter()
                .map(|p| match p {
                    ContentPart::Text { text } => json!({"type": "text", "text": text}),
                    ContentPart::Image { media_type, data } => json!({
                        "type": "image_url",
                        "image_url": {"url": format!("data:{media_type};base64,{data}")},
                    }),
                    ContentPart::ImageUrl { url } => {
                        json!({"type": "image_url", "image_url": {"url": url}})
                    }
                })
                .collect(),
        )
    };
    match msg.role {
        Role::User => json!({
            "type": "human", "id": m.id, "content": content, "name": null,
            "additional_kwargs": {}, "response_metadata": {},
        }),
        Role::System => json!({
            "type": "system", "id": m.id, "content": content, "name": null,
            "additional_kwargs": {}, "response_metadata": {},
        }),
        Role::Assistant => {
            let calls: Vec<Value> = msg
                .tool_calls
                .iter()
                .map(|c| {
                    json!({
                        "name": c.name,
                        "args": serde_json::from_str::<Value>(&c.arguments).unwrap_or_else(|_| json!({})),
                        "id": c.id,
                        "type": "tool_call",
                    })
                })
                .collect();
            json!({
                "type": "ai", "id": m.id, "content": content, "name": null,
                "tool_calls": calls, "invalid_tool_calls": [],
                "additional_kwargs": {}, "response_metadata": {}, "usage_metadata": null,
            })
        }
        Role::Tool => json!({
            "type": "tool", "id": m.id, "content": content, "name": null,
            "tool_call_id": msg.tool_call_id,
            "status": if msg.is_error { "error" } else { "success" },
            "additional_kwargs": {}, "response_metadata": {},
        }),
    }
}

/// The node a stored message came from: the model (`agent`) or the tools.
pub fn node_of(m: &StoredMessage) -> &'static str {
    match m.message.role {
        Role::Tool => "tools",
        Role::User => "__input__",
        _ => "agent",
    }
}

/// A waiting call as a LangGraph interrupt.
pub fn interrupt(a: &Approval) -> wire::Interrupt {
    wire::Interrupt {
        id: a.tool_call_id.clone(),
        value: wire::InterruptValue {
            reason: "tool_approval".into(),
            message: format!("{} waits for a parent's approval", a.tool),
            tool: a.tool.clone(),
            arguments: serde_json::from_str::<Value>(&a.arguments)
                .unwrap_or(Value::String(a.arguments.clone())),
            tool_call_id: a.tool_call_id.clone(),
            run_id: a.run_id.clone(),
        },
        when: "during".into(),
        resumable: true,
        ns: vec!["tools".into()],
    }
}

/// The graph's values from a thread's messages (the first `upto`), todo
/// list and waiting calls.
fn values_of(
    messages: &[StoredMessage],
    todos: &[Todo],
    waiting: &[Approval],
    upto: usize,
    with_interrupts: bool,
) -> wire::Values {
    wire::Values {
        messages: messages[..upto.min(messages.len())]
            .iter()
            .map(message)
            .collect(),
        todos: todos.to_vec(),
        interrupt: (with_interrupts && !waiting.is_empty())
            .then(|| waiting.iter().map(interrupt).collect()),
        error: None,
    }
}

/// The graph's values of a thread as read back: the conversation and the
/// todo list, with the waiting calls as `__interrupt__` when asked.
pub trait GraphValues {
    /// The messages, the todo list and the calls waiting for a parent.
    fn parts(&self) -> (&[StoredMessage], &[Todo], &[Approval]);

    /// The values after the first `upto` messages.
    fn values_upto(&self, upto: usize, with_interrupts: bool) -> wire::Values {
        let (messages, todos, waiting) = self.parts();
        values_of(messages, todos, waiting, upto, with_interrupts)
    }

    fn values(&self) -> wire::Values {
        self.values_upto(self.parts().0.len(), false)
    }

    fn interrupts(&self) -> Vec<wire::Interrupt> {
        self.parts().2.iter().map(interrupt).collect()
    }
}

impl GraphValues for ThreadFacts {
    fn parts(&self) -> (&[StoredMessage], &[Todo], &[Approval]) {
        (&self.messages, &self.todos, &self.waiting)
    }
}

/// What a run's stream reads back after each step: the conversation, the
/// todo list and the calls waiting for a parent — three queries, where
/// [`ThreadFacts`] takes six and lists the workspace (a run's stream reads
/// the thread five or six times).
pub struct Conversation {
    pub messages: Vec<StoredMessage>,
    pub todos: Vec<Todo>,
    pub waiting: Vec<Approval>,
}

impl Conversation {
    /// Reads a thread's conversation. Call off the executor.
    pub fn read(app: &Deskmate, thread_id: &str) -> ApiResult<Self> {
        let store = app.store();
        let messages = persist::messages(store, thread_id).map_err(deskmate_app::AppError::from)?;
        let state = persist::load_state(store, thread_id).map_err(deskmate_app::AppError::from)?;
        let waiting = persist::open_approvals_of_thread(store, thread_id)
            .map_err(deskmate_app::AppError::from)?
            .into_iter()
            .filter(|a| a.decision.is_none())
            .collect();
        Ok(Self {
            messages,
            todos: state.todos,
            waiting,
        })
    }
}

impl GraphValues for Conversation {
    fn parts(&self) -> (&[StoredMessage], &[Todo], &[Approval]) {
        (&self.messages, &self.todos, &self.waiting)
    }
}

/// What the core knows of a thread, read once.
pub struct ThreadFacts {
    pub thread: Thread,
    pub metadata: Value,
    pub messages: Vec<StoredMessage>,
    pub todos: Vec<Todo>,
    /// The front end's values kept on the thread (`state.vars`).
    pub vars: Map<String, Value>,
    /// The files in the thread's workspace.
    pub files: Vec<wire::WorkspaceFile>,
    /// The lead's runs, oldest first.
    pub runs: Vec<persist::Run>,
    pub waiting: Vec<Approval>,
    pub running: bool,
}

impl ThreadFacts {
    /// Reads a thread (not found: `not_found`). Call off the executor.
    pub fn read(app: &Deskmate, thread_id: &str) -> ApiResult<Self> {
        let store = app.store();
        let thread = persist::get_thread(store, thread_id).map_err(deskmate_app::AppError::from)?;
        let metadata =
            persist::thread_metadata(store, thread_id).map_err(deskmate_app::AppError::from)?;
        let messages = persist::messages(store, thread_id).map_err(deskmate_app::AppError::from)?;
        let state = persist::load_state(store, thread_id).map_err(deskmate_app::AppError::from)?;
        let runs: Vec<persist::Run> = persist::runs(store, thread_id)
            .map_err(deskmate_app::AppError::from)?
            .into_iter()
            .filter(|r| r.parent_run_id.is_none())
            .collect();
        let waiting = persist::open_approvals_of_thread(store, thread_id)
            .map_err(deskmate_app::AppError::from)?
            .into_iter()
            .filter(|a| a.decision.is_none())
            .collect();
        let running = runs.iter().any(|r| r.status == RunStatus::Running);
        let workspace =
            deskmate_app::chat::agent::workspace_dir(&app.chat().threads_dir(), thread_id);
        Ok(Self {
            thread,
            metadata,
            messages,
            todos: state.todos,
            vars: state.vars,
            files: files_in(&workspace),
            runs,
            waiting,
            running,
        })
    }

    /// `busy`, `interrupted`, `error` (the last run failed) or `idle`.
    pub fn status(&self) -> wire::ThreadStatus {
        if self.running {
            wire::ThreadStatus::Busy
        } else if !self.waiting.is_empty() {
            wire::ThreadStatus::Interrupted
        } else if self
            .runs
            .last()
            .is_some_and(|r| matches!(r.status, RunStatus::Error | RunStatus::StepLimit))
        {
            wire::ThreadStatus::Error
        } else {
            wire::ThreadStatus::Idle
        }
    }

    /// The thread as LangGraph's `Thread`.
    pub fn thread_json(&self) -> wire::Thread {
        let mut interrupts = std::collections::BTreeMap::new();
        if !self.waiting.is_empty() {
            interrupts.insert("tools".to_string(), self.interrupts());
        }
        wire::Thread {
            thread_id: self.thread.id.clone(),
            created_at: self.thread.created_at.clone(),
            updated_at: self.thread.updated_at.clone(),
            metadata: self.metadata.as_object().cloned().unwrap_or_default(),
            status: self.status(),
            values: self.values(),
            interrupts,
        }
    }

    /// The current state as LangGraph's `ThreadState`, with the deep-agents
    /// dialect's fields beside it (`thread_id`, `state {todos, vars}`,
    /// `updated_at`, `messages_summary`, `files`): one answer serves both.
    pub fn state_json(&self) -> wire::StateAnswer {
        wire::StateAnswer {
            langgraph: self.langgraph_state(),
            thread_id: self.thread.id.clone(),
            state: wire::AgentState {
                todos: self.todos.clone(),
                vars: self.vars.clone(),
            },
            updated_at: self.thread.updated_at.clone(),
            messages_summary: Vec::new(),
            files: self.files.clone(),
        }
    }

    fn langgraph_state(&self) -> wire::ThreadState {
        let last = self.runs.last().map(|r| r.id.clone());
        let parent = self
            .runs
            .len()
            .checked_sub(2)
            .and_then(|i| self.runs.get(i))
            .map(|r| r.id.clone());
        self.state_at(self.messages.len(), last, parent, !self.waiting.is_empty())
    }

    fn checkpoint(&self, id: Option<String>) -> wire::Checkpoint {
        wire::Checkpoint {
            thread_id: self.thread.id.clone(),
            checkpoint_ns: String::new(),
            checkpoint_id: id,
            checkpoint_map: None,
        }
    }

    fn state_at(
        &self,
        upto: usize,
        checkpoint: Option<String>,
        parent: Option<String>,
        waiting: bool,
    ) -> wire::ThreadState {
        let (next, tasks, interrupts) = if waiting {
            (
                vec!["tools".to_string()],
                vec![wire::StateTask {
                    id: checkpoint.clone().unwrap_or_default(),
                    name: "tools".into(),
                    path: vec!["__pregel_pull".into(), "tools".into()],
                    error: None,
                    interrupts: self.interrupts(),
                    checkpoint: None,
                    state: None,
                    result: None,
                }],
                self.interrupts(),
            )
        } else {
            (vec![], vec![], vec![])
        };
        let mut metadata = Map::new();
        metadata.insert("source".into(), json!("loop"));
        metadata.insert("step".into(), json!(self.runs.len()));
        metadata.insert("thread_id".into(), json!(self.thread.id));
        wire::ThreadState {
            values: self.values_upto(upto, false),
            next,
            tasks,
            interrupts,
            checkpoint: self.checkpoint(checkpoint),
            parent_checkpoint: parent.map(|p| self.checkpoint(Some(p))),
            metadata,
            created_at: self
                .runs
                .last()
                .map_or(self.thread.updated_at.clone(), |r| {
                    r.finished_at
                        .clone()
                        .unwrap_or_else(|| r.started_at.clone())
                }),
        }
    }

    /// Past states, newest first: the state after each of the lead's runs
    /// (a checkpoint per run, its id the run's).
    pub fn history(&self, limit: usize) -> Vec<wire::ThreadState> {
        let mut out = Vec::new();
        for (i, run) in self.runs.iter().enumerate().rev() {
            if out.len() >= limit {
                break;
            }
            let upto = self
                .messages
                .iter()
                .rposition(|m| m.run_id.as_deref() == Some(run.id.as_str()))
                .map_or(0, |p| p + 1);
            let parent = i.checked_sub(1).map(|p| self.runs[p].id.clone());
            let last = i + 1 == self.runs.len();
            out.push(self.state_at(
                upto,
                Some(run.id.clone()),
                parent,
                last && !self.waiting.is_empty(),
            ));
        }
        out
    }
}

/// The files under a thread's workspace as `{path, size}`, paths from the
/// workspace's root (`/notes.md`), at most 500, sorted. Unreadable entries
/// are left out.
fn files_in(root: &std::path::Path) -> Vec<wire::WorkspaceFile> {
    let mut out = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let Ok(kind) = e.file_type() else { continue };
            let path = e.path();
            if kind.is_dir() {
                dirs.push(path);
            } else if kind.is_file() && out.len() < 500 {
                let rel = path.strip_prefix(root).unwrap_or(&path);
                let size = e.metadata().map(|m| m.len()).unwrap_or(0);
                out.push(wire::WorkspaceFile {
                    path: format!("/{}", rel.display()),
                    size,
                });
            }
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}
