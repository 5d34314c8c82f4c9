//! A run's AG-UI events as LangGraph stream parts: `messages` partials from
//! the text deltas, `updates` and `values` read back from what the run
//! stored after each step, `events`-style custom parts, the interrupt when
//! a call waits for a parent, and how the run ended.

use std::collections::HashMap;

use deskmate_app::chat::agent::AgUiEvent;
use deskmate_protocol::agui::RunFinishedOutcome;
use serde_json::{json, Value};
use tokio::sync::mpsc;

use super::runs::Modes;
use super::shape::{self, Conversation, GraphValues};
use crate::blocking;
use crate::error::ApiResult;

/// Turns a run's AG-UI events into LangGraph stream parts.
pub(crate) struct Translate {
    pub(super) app: deskmate_app::Deskmate,
    pub(super) thread_id: String,
    pub(crate) run_id: String,
    pub(super) modes: Modes,
    /// Stored messages already sent as `updates`/`values`.
    pub(super) seen: usize,
    /// Text so far of each message (the `messages` mode's partials).
    pub(super) partial: HashMap<String, String>,
    pub(super) step: u32,
    pub(super) out: mpsc::UnboundedSender<(String, Value)>,
    /// The last values, kept for `runs/wait`.
    pub(super) last_values: Value,
    /// Whether this stream has sent a `values` event yet.
    pub(super) values_sent: bool,
    pub(super) error: Option<Value>,
    /// How the run ended, as LangGraph names it (`success`, `interrupted`, `error`).
    pub(crate) status: &'static str,
}

impl Translate {
    pub(super) fn send(&self, event: &str, data: Value) {
        let _ = self.out.send((event.to_string(), data));
    }

    pub(super) fn meta(&self, node: &str) -> Value {
        json!({
            "langgraph_node": node,
            "langgraph_step": self.step,
            "run_id": self.run_id,
            "thread_id": self.thread_id,
            "assistant_id": shape::assistant_id(),
            "graph_id": shape::GRAPH_ID,
        })
    }

    /// Where this run begins in the thread: after what earlier runs wrote
    /// (a new run's input is its first message), or after everything for a
    /// resumed run (its earlier steps were sent when it paused).
    pub(super) async fn begin(&mut self, resumed: bool) -> ApiResult<()> {
        let id = self.thread_id.clone();
        let facts = blocking(&self.app, move |app| Conversation::read(&app, &id)).await?;
        self.seen = if resumed {
            facts.messages.len()
        } else {
            facts
                .messages
                .iter()
                .position(|m| m.run_id.as_deref() == Some(self.run_id.as_str()))
                .unwrap_or(facts.messages.len())
        };
        self.last_values = serde_json::to_value(facts.values()).unwrap_or_default();
        Ok(())
    }

    /// Reads the thread back and sends what was stored since last time:
    /// per step (the input, then each node's messages, in the order they
    /// were written) its update and the values as they stood after it, as
    /// LangGraph sends a `values` after every step. A step's values never
    /// include what later steps wrote, however far the run got before this
    /// read (under load the model's answer may already be stored when the
    /// input's values are sent).
    pub(super) async fn sync(&mut self, interrupted: bool) -> ApiResult<()> {
        let id = self.thread_id.clone();
        let facts = blocking(&self.app, move |app| Conversation::read(&app, &id)).await?;
        let start = self.seen.min(facts.messages.len());
        let new = &facts.messages[start..];
        // Each step: its node, its messages, and where it ends in the thread.
        let mut steps: Vec<(&str, Vec<Value>, usize)> = Vec::new();
        for (i, m) in new.iter().enumerate() {
            let node = shape::node_of(m);
            match steps.last_mut() {
                Some((n, msgs, end)) if *n == node => {
                    msgs.push(shape::message(m));
                    *end = start + i + 1;
                }
                _ => steps.push((node, vec![shape::message(m)], start + i + 1)),
            }
        }
        if self.modes.deep {
            for m in new {
                self.deep_part(m);
            }
        }
        let last = steps.len();
        let mut values = self.last_values.clone();
        for (k, (node, msgs, end)) in steps.into_iter().enumerate() {
            // The input is no node's update (LangGraph sends none for it).
            if self.modes.updates && node != "__input__" {
                self.send("updates", json!({ node: {"messages": msgs} }));
            }
            let paused_here = interrupted && k + 1 == last;
            values = serde_json::to_value(facts.values_upto(end, paused_here)).unwrap_or_default();
            if self.modes.values {
                self.send("values", values.clone());
                self.values_sent = true;
            }
        }
        self.seen = facts.messages.len();
        if last == 0 {
            // Nothing new: the values as they stand (with the interrupt when paused).
            values = serde_json::to_value(facts.values_upto(facts.messages.len(), interrupted))
                .unwrap_or_default();
            // Paused, or a stream that has shown no state yet: a resumed run
            // may have finished before its stream first read the thread,
            // and a stream always shows the state at least once.
            if self.modes.values && (interrupted || !self.values_sent) {
                self.send("values", values.clone());
                self.values_sent = true;
            }
        }
        if interrupted && self.modes.updates {
            self.send("updates", json!({"__interrupt__": facts.interrupts()}));
        }
        if interrupted && self.modes.deep {
            for w in &facts.waiting {
                self.send(
                    "tool",
                    json!({"tool_call_id": w.tool_call_id, "status": "interrupted", "result": null}),
                );
            }
        }
        self.last_values = values;
        Ok(())
    }

    /// A stored message as the deep-agents dialect's `message` (the
    /// model's) or `tool` (a result) event.
    pub(super) fn deep_part(&self, m: &deskmate_app::chat::agent::StoredMessage) {
        use deskmate_app::chat::llm::Role;
        let text = m.message.text();
        match m.message.role {
            Role::Assistant => {
                let calls: Vec<Value> = m
                    .message
                    .tool_calls
                    .iter()
                    .map(|c| {
                        json!({
                            "id": c.id,
                            "name": c.name,
                            "args": serde_json::from_str::<Value>(&c.arguments).unwrap_or_else(|_| json!({})),
                            "status": "pending",
                        })
                    })
                    .collect();
                let mut data = serde_json::Map::new();
                data.insert("message_id".into(), json!(m.id));
                data.insert("thread_id".into(), json!(self.thread_id));
                data.insert("role".into(), json!("assistant"));
                if !text.is_empty() {
                    data.insert("content".into(), json!(text));
                }
                data.insert("tool_calls".into(), Value::Array(calls));
                self.send("message", Value::Object(data));
            }
            Role::Tool => self.send(
                "tool",
                json!({
                    "tool_call_id": m.message.tool_call_id,
                    "status": if m.message.is_error { "error" } else { "completed" },
                    "result": text,
                }),
            ),
            _ => {}
        }
    }

    pub(super) async fn on(&mut self, ev: AgUiEvent) -> ApiResult<()> {
        match ev {
            AgUiEvent::StepStarted { .. } => self.step += 1,
            AgUiEvent::StepFinished { .. } => self.sync(false).await?,
            AgUiEvent::TextMessageStart { message_id, .. } => {
                if self.modes.messages {
                    self.send(
                        "messages/metadata",
                        json!({ message_id.clone(): {"metadata": self.meta("agent")} }),
                    );
                }
                self.partial.insert(message_id, String::new());
            }
            AgUiEvent::TextMessageContent { message_id, delta } => {
                if self.modes.messages_tuple {
                    self.send(
                        "messages",
                        json!([
                            {"type": "AIMessageChunk", "id": message_id, "content": delta,
                             "tool_calls": [], "tool_call_chunks": [], "additional_kwargs": {}, "response_metadata": {}},
                            self.meta("agent"),
                        ]),
                    );
                }
                let so_far = self.partial.entry(message_id.clone()).or_default();
                so_far.push_str(&delta);
                if self.modes.messages {
                    let text = so_far.clone();
                    self.send(
                        "messages/partial",
                        json!([{"type": "ai", "id": message_id, "content": text, "tool_calls": []}]),
                    );
                }
            }
            AgUiEvent::TextMessageEnd { message_id } => {
                let text = self.partial.remove(&message_id).unwrap_or_default();
                if self.modes.messages {
                    self.send(
                        "messages/complete",
                        json!([{"type": "ai", "id": message_id, "content": text, "tool_calls": []}]),
                    );
                }
            }
            AgUiEvent::ToolCallStart {
                tool_call_id,
                tool_call_name,
                parent_message_id,
            } if self.modes.messages_tuple => self.send(
                "messages",
                json!([
                    {"type": "AIMessageChunk", "id": parent_message_id, "content": "",
                     "tool_call_chunks": [{"type": "tool_call_chunk", "id": tool_call_id, "name": tool_call_name, "args": "", "index": 0}]},
                    self.meta("agent"),
                ]),
            ),
            AgUiEvent::ToolCallArgs {
                tool_call_id,
                delta,
            } if self.modes.messages_tuple => self.send(
                "messages",
                json!([
                    {"type": "AIMessageChunk", "content": "",
                     "tool_call_chunks": [{"type": "tool_call_chunk", "id": tool_call_id, "name": null, "args": delta, "index": 0}]},
                    self.meta("agent"),
                ]),
            ),
            AgUiEvent::ToolCallResult {
                message_id,
                tool_call_id,
                content,
                ..
            } if self.modes.messages_tuple => self.send(
                "messages",
                json!([
                    {"type": "tool", "id": message_id, "tool_call_id": tool_call_id, "content": content},
                    self.meta("tools"),
                ]),
            ),
            AgUiEvent::Custom { name, value } if self.modes.custom => {
                self.send("custom", json!({"name": name, "value": value}));
            }
            AgUiEvent::RunError { message, code } => {
                let code = code.unwrap_or_else(|| "error".into());
                let err = json!({"error": code, "message": message});
                if self.modes.deep {
                    self.send("error", json!({"message": message, "code": code}));
                } else {
                    self.send("error", err.clone());
                }
                self.error = Some(err);
            }
            AgUiEvent::RunFinished { outcome, .. } => {
                let interrupted = matches!(outcome, Some(RunFinishedOutcome::Interrupt { .. }));
                self.sync(interrupted).await?;
            }
            _ => {}
        }
        Ok(())
    }
}
