//! The tools a model may call, and the rules every tool keeps: arguments
//! arrive as JSON and are checked against the tool's schema; a failure is
//! returned to the model as text starting with `Error:` — a tool never
//! ends the run: even a panic inside a tool (a plug-in's bug) is caught and
//! becomes error text — and a call that takes longer than its time limit
//! is abandoned with error text naming the tool and the limit.

mod files;
mod search_files;
mod task;
mod time_limits;
mod todos;
mod web;

use std::any::Any;
use std::collections::BTreeMap;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;

use deskmate_llm::ToolSpec;
use futures_util::FutureExt;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::{Sandbox, SandboxError};

pub use files::{EditFile, Ls, ReadFile, WriteFile};
pub use search_files::{Glob, Grep};
pub use task::{
    ModelSource, Task, SUBAGENTS_OFF, SUBAGENT_EVENT, SUBAGENT_MAX_STEPS, TASK_TIME_LIMIT,
};
pub use time_limits::{ToolTimeLimits, DEFAULT_TOOL_TIME_LIMIT, SEARCH_TIME_LIMIT};
pub use todos::{ThreadState, Todo, TodoStatus, WriteTodos};
pub use web::{InternetSearch, SearchConfig};

/// What a tool works on.
#[derive(Debug, Clone)]
pub struct ToolContext {
    pub sandbox: Arc<Sandbox>,
    pub thread_id: String,
    pub tool_call_id: String,
    /// The run making the call, for tools that start work of their own
    /// (`task` starts a subagent's run under it); `None` outside a run.
    pub run: Option<RunContext>,
}

/// The run a tool call belongs to.
#[derive(Debug, Clone)]
pub struct RunContext {
    /// The agent running (its model, tools and settings).
    pub agent: crate::Agent,
    pub run_id: String,
    /// Stops with the run.
    pub cancel: tokio_util::sync::CancellationToken,
    /// The run's AG-UI events, for a tool to report work of its own in.
    pub events: Option<crate::EventSink>,
    /// The run this call started before and that paused for a parent's
    /// approval: continue it instead of starting anew (`task` continues its
    /// subagent's run).
    pub resume_run: Option<String>,
}

/// A call waiting for a parent's approval, as an interrupt names it: made
/// by the run itself or by a subagent it started (at any depth).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct WaitingCall {
    /// The call's id (`approvals.tool_call_id`).
    pub id: String,
    pub tool: String,
    /// The arguments as the model wrote them (JSON text).
    pub arguments: String,
    /// The run that holds it (a subagent's run for a call inside a subagent).
    pub run_id: String,
    /// For a call inside a subagent: the `task` call of this run that waits
    /// with it, and the subagent that made the call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_call_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subagent_type: Option<String>,
}

/// What a tool hands back.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    /// The text the model sees.
    pub content: String,
    pub is_error: bool,
    /// A new todo list for the thread state, from `write_todos`.
    pub todos: Option<Vec<Todo>>,
    /// Not a result yet: the work this call started (a subagent) paused on
    /// these calls for a parent's approval. The call stays pending and the
    /// run pauses with them.
    pub waiting: Vec<WaitingCall>,
}

impl ToolOutput {
    pub fn ok(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
            is_error: false,
            todos: None,
            waiting: Vec::new(),
        }
    }

    /// A failure the model reads (prefixed `Error:` when it is not already).
    pub fn error(message: impl Into<String>) -> Self {
        let m = message.into();
        let content = if m.starts_with("Error") {
            m
        } else {
            format!("Error: {m}")
        };
        Self {
            content,
            is_error: true,
            todos: None,
            waiting: Vec::new(),
        }
    }

    /// The call waits, with the work it started, on `waiting`.
    pub fn waiting(waiting: Vec<WaitingCall>) -> Self {
        Self {
            waiting,
            ..Self::ok("")
        }
    }
}

/// A path the sandbox refused or could not use is a failure the model reads.
impl From<SandboxError> for ToolOutput {
    fn from(e: SandboxError) -> Self {
        Self::error(e.to_string())
    }
}

pub type ToolFuture = Pin<Box<dyn Future<Output = ToolOutput> + Send>>;

/// A tool the model may call.
pub trait Tool: Send + Sync {
    /// The name the model calls it by: a built-in tool's is fixed, an MCP
    /// server's tool's is made at run time (`mcp__<server>__<tool>`).
    fn name(&self) -> &str;
    fn description(&self) -> &str;
    /// JSON Schema of the arguments.
    fn parameters(&self) -> Value;
    fn call(&self, ctx: ToolContext, args: Value) -> ToolFuture;
    /// Whether a very large result is moved to `/large_tool_results/` (tools
    /// that page their own output, like `read_file`, are not).
    fn evictable(&self) -> bool {
        true
    }
}

/// The tools of an agent, by name.
#[derive(Clone, Default)]
pub struct ToolSet {
    tools: BTreeMap<String, Arc<dyn Tool>>,
    time_limits: ToolTimeLimits,
}

impl std::fmt::Debug for ToolSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.tools.keys()).finish()
    }
}

impl ToolSet {
    /// The built-in tools: file tools on the sandbox, todos and search.
    pub fn builtin(search: SearchConfig) -> Self {
        let mut set = Self::default();
        set.add(Arc::new(Ls));
        set.add(Arc::new(ReadFile));
        set.add(Arc::new(WriteFile));
        set.add(Arc::new(EditFile));
        set.add(Arc::new(Glob));
        set.add(Arc::new(Grep));
        set.add(Arc::new(WriteTodos));
        set.add(Arc::new(InternetSearch::new(search)));
        set
    }

    pub fn add(&mut self, tool: Arc<dyn Tool>) {
        self.tools.insert(tool.name().to_string(), tool);
    }

    /// Sets how long each tool's calls may take.
    pub fn set_time_limits(&mut self, limits: ToolTimeLimits) {
        self.time_limits = limits;
    }

    pub fn time_limits(&self) -> &ToolTimeLimits {
        &self.time_limits
    }

    pub fn get(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.tools.get(name)
    }

    pub fn names(&self) -> Vec<&str> {
        self.tools.keys().map(String::as_str).collect()
    }

    /// Specifications to send to the model.
    pub fn specs(&self) -> Vec<ToolSpec> {
        self.tools
            .values()
            .map(|t| ToolSpec {
                name: t.name().to_string(),
                description: t.description().to_string(),
                parameters: t.parameters(),
            })
            .collect()
    }

    /// Runs the call `name(arguments)`: unknown tools, arguments that are
    /// not JSON, a tool that panics (while starting or while running) and a
    /// call past its time limit become error text for the model.
    pub async fn call(&self, ctx: ToolContext, name: &str, arguments: &str) -> ToolOutput {
        let Some(tool) = self.get(name) else {
            return ToolOutput::error(format!(
                "there is no tool named {name:?}; the tools are: {}",
                self.names().join(", ")
            ));
        };
        let args = if arguments.trim().is_empty() {
            Ok(Value::Object(Default::default()))
        } else {
            serde_json::from_str(arguments)
        };
        match args {
            Ok(v @ Value::Object(_)) => {
                // The tool's state is not shared with the loop: after a panic
                // nothing half-changed is used again, so unwinding is safe.
                let limit = self.time_limits.for_tool(name);
                let running = match std::panic::catch_unwind(AssertUnwindSafe(|| tool.call(ctx, v)))
                {
                    Ok(future) => {
                        match tokio::time::timeout(limit, AssertUnwindSafe(future).catch_unwind())
                            .await
                        {
                            Ok(done) => done,
                            Err(_) => {
                                tracing::warn!(tool = name, ?limit, "a tool call ran out of time");
                                return ToolOutput::error(format!(
                                    "the tool {name} took longer than its time limit of {} and was given up; its result will not come, so go on without it or try something else",
                                    time_limits::in_words(limit)
                                ));
                            }
                        }
                    }
                    Err(panic) => Err(panic),
                };
                running.unwrap_or_else(|panic| {
                    tracing::error!(
                        tool = name,
                        "a tool panicked: {}",
                        panic_message(panic.as_ref())
                    );
                    ToolOutput::error(format!(
                        "the tool {name} failed unexpectedly ({}); try something else",
                        panic_message(panic.as_ref())
                    ))
                })
            }
            Ok(_) => ToolOutput::error(format!("the arguments for {name} must be a JSON object")),
            Err(e) => ToolOutput::error(format!(
                "the arguments for {name} are not valid JSON ({e}); send a JSON object"
            )),
        }
    }
}

/// The text a panic carried (`panic!("…")` gives a `&str` or a `String`).
fn panic_message(panic: &(dyn Any + Send)) -> &str {
    panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("a panic")
}

/// Reads a tool's arguments into its argument type.
pub(crate) fn parse_args<T: DeserializeOwned>(tool: &str, args: Value) -> Result<T, ToolOutput> {
    serde_json::from_value(args)
        .map_err(|e| ToolOutput::error(format!("invalid arguments for {tool}: {e}")))
}

/// The JSON Schema of an argument type, without the keys providers dislike.
pub(crate) fn schema<T: schemars::JsonSchema>() -> Value {
    let mut v = serde_json::to_value(schemars::schema_for!(T)).unwrap_or(Value::Null);
    if let Some(o) = v.as_object_mut() {
        o.remove("$schema");
        o.remove("title");
    }
    v
}

/// Runs blocking file work off the async executor; a panic inside (which
/// should not happen) still becomes error text.
pub(crate) async fn blocking(f: impl FnOnce() -> ToolOutput + Send + 'static) -> ToolOutput {
    match tokio::task::spawn_blocking(f).await {
        Ok(out) => out,
        Err(e) => ToolOutput::error(format!("the tool stopped unexpectedly: {e}")),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    /// A plug-in tool with a bug: it panics while running, or already while
    /// starting its work.
    struct Buggy {
        name: &'static str,
        when_starting: bool,
    }

    impl Tool for Buggy {
        fn name(&self) -> &'static str {
            self.name
        }
        fn description(&self) -> &'static str {
            "panics"
        }
        fn parameters(&self) -> Value {
            serde_json::json!({"type": "object"})
        }
        fn call(&self, _ctx: ToolContext, _args: Value) -> ToolFuture {
            if self.when_starting {
                panic!("bad plug-in setup");
            }
            Box::pin(async move {
                tokio::task::yield_now().await;
                let index: usize = "not a number".parse().unwrap_or(7);
                let empty: Vec<u8> = Vec::new();
                ToolOutput::ok(format!("{}", empty[index]))
            })
        }
    }

    #[tokio::test]
    async fn a_panicking_tool_becomes_error_text() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = ToolContext {
            sandbox: Arc::new(Sandbox::open(&dir.path().join("ws")).unwrap()),
            thread_id: "t".into(),
            tool_call_id: "c".into(),
            run: None,
        };
        let mut set = ToolSet::default();
        set.add(Arc::new(Buggy {
            name: "async_bug",
            when_starting: false,
        }));
        set.add(Arc::new(Buggy {
            name: "start_bug",
            when_starting: true,
        }));
        let out = set.call(ctx.clone(), "async_bug", "{}").await;
        assert!(out.is_error);
        assert!(
            out.content
                .starts_with("Error: the tool async_bug failed unexpectedly"),
            "{}",
            out.content
        );
        assert!(
            out.content.contains("index out of bounds"),
            "{}",
            out.content
        );
        let out = set.call(ctx.clone(), "start_bug", "{}").await;
        assert!(out.is_error);
        assert!(out.content.contains("bad plug-in setup"), "{}", out.content);
        // The set still works afterwards.
        assert!(set
            .call(ctx, "async_bug", "[]")
            .await
            .content
            .contains("must be a JSON object"));
    }

    /// A tool that takes `ms` milliseconds: asleep on the executor, or
    /// blocking a thread of the blocking pool as file work does.
    struct Slow {
        name: &'static str,
        blocking: bool,
    }

    impl Tool for Slow {
        fn name(&self) -> &'static str {
            self.name
        }
        fn description(&self) -> &'static str {
            "takes its time"
        }
        fn parameters(&self) -> Value {
            serde_json::json!({"type": "object"})
        }
        fn call(&self, _ctx: ToolContext, args: Value) -> ToolFuture {
            let ms = std::time::Duration::from_millis(args["ms"].as_u64().unwrap_or(0));
            let blocking_work = self.blocking;
            Box::pin(async move {
                if blocking_work {
                    blocking(move || {
                        std::thread::sleep(ms);
                        ToolOutput::ok("done at last")
                    })
                    .await
                } else {
                    tokio::time::sleep(ms).await;
                    ToolOutput::ok("done at last")
                }
            })
        }
    }

    #[tokio::test]
    async fn a_call_past_its_time_limit_becomes_error_text() {
        use std::time::Duration;
        let dir = tempfile::tempdir().unwrap();
        let ctx = ToolContext {
            sandbox: Arc::new(Sandbox::open(&dir.path().join("ws")).unwrap()),
            thread_id: "t".into(),
            tool_call_id: "c".into(),
            run: None,
        };
        let mut set = ToolSet::default();
        for (name, blocking) in [("sleepy", false), ("busy", true)] {
            set.add(Arc::new(Slow { name, blocking }));
        }
        set.set_time_limits(
            ToolTimeLimits::uniform(Duration::from_secs(60))
                .with("sleepy", Duration::from_millis(200))
                .with("busy", Duration::from_millis(1500)),
        );
        let out = set.call(ctx.clone(), "sleepy", r#"{"ms": 20000}"#).await;
        assert!(out.is_error);
        assert_eq!(
            out.content,
            "Error: the tool sleepy took longer than its time limit of 200 ms and was given up; its result will not come, so go on without it or try something else"
        );
        // Blocking work still running on its thread does not hold the answer up.
        let out = set.call(ctx.clone(), "busy", r#"{"ms": 2500}"#).await;
        assert!(
            out.is_error
                && out
                    .content
                    .contains("the tool busy took longer than its time limit of 1.5 s"),
            "{}",
            out.content
        );
        // Within the limit, the result comes through.
        let out = set.call(ctx, "sleepy", r#"{"ms": 10}"#).await;
        assert_eq!(out, ToolOutput::ok("done at last"));
    }
}
