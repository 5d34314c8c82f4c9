//! The thread's todo list (`write_todos`): the plan the model keeps for a
//! longer task, part of the thread state shown live in the UI.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{parse_args, schema, Tool, ToolContext, ToolFuture, ToolOutput};

pub use deskmate_protocol::chat::{Todo, TodoStatus};

/// What a thread keeps besides its messages.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThreadState {
    #[serde(default)]
    pub todos: Vec<Todo>,
    /// Values a front end keeps on the thread (the HTTP API's deep-agents
    /// `state.vars`); the agent only carries them along.
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub vars: serde_json::Map<String, Value>,
}

/// Replace the whole todo list.
#[derive(Deserialize, JsonSchema)]
struct WriteTodosArgs {
    /// The complete, updated list (it replaces the old one).
    todos: Vec<Todo>,
}

const MAX_TODOS: usize = 50;

pub struct WriteTodos;

impl Tool for WriteTodos {
    fn name(&self) -> &'static str {
        "write_todos"
    }
    fn description(&self) -> &'static str {
        "Keeps a todo list for a task with several steps. Send the complete list each time; each item has content and status pending, in_progress or completed. Mark an item in_progress before starting it and completed as soon as it is done. Skip it for simple questions."
    }
    fn parameters(&self) -> Value {
        schema::<WriteTodosArgs>()
    }
    fn evictable(&self) -> bool {
        false
    }
    fn call(&self, _ctx: ToolContext, args: Value) -> ToolFuture {
        Box::pin(async move {
            let args: WriteTodosArgs = match parse_args("write_todos", args) {
                Ok(a) => a,
                Err(e) => return e,
            };
            if args.todos.len() > MAX_TODOS {
                return ToolOutput::error(format!("at most {MAX_TODOS} todos; merge some"));
            }
            if args.todos.iter().any(|t| t.content.trim().is_empty()) {
                return ToolOutput::error("every todo needs content");
            }
            let json = serde_json::to_string(&args.todos).unwrap_or_default();
            ToolOutput {
                todos: Some(args.todos),
                ..ToolOutput::ok(format!("Updated todo list to {json}"))
            }
        })
    }
}
