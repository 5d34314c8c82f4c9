//! Keeping a long conversation inside the model's context window.
//!
//! Before each model call the run estimates what it is about to send (the
//! system prompt, the tool specifications and the history). When that would
//! pass [`TRIGGER`] (85 %) of the model's context window — from a table of
//! known windows, [`DEFAULT_CONTEXT_WINDOW`] when the model is not in it —
//! the older messages are summarized by the model and only the newest are
//! kept verbatim: those that fit in [`KEEP_FRACTION`] (10 %) of the window,
//! or the last [`KEEP_MESSAGES_UNKNOWN`] (6) when the window is not known.
//! The kept tail never starts with a tool result (its call stays with it).
//!
//! The summary is stored as a message of the thread ([`persist::insert_summary`],
//! with the last message it covers), so later runs start from it; the full
//! history stays in SQLite and is also written to
//! `/conversation_history/<thread>.md` in the workspace, where the model can
//! read it. When the summary cannot be made (the model fails), the oldest
//! messages are left out of this call instead, with a note to the model and
//! a `history_shortened` event — never a lost run.

use deskmate_llm::{ChatRequest, ContentPart, Message, Role, ToolSpec};
use serde_json::json;

use crate::events::AgUiEvent;
use crate::persist;
use crate::runtime::{db, PreparedRun};
use crate::sandbox::Sandbox;
use crate::AgentError;

/// Tokens assumed when the model's context window is not known.
pub const DEFAULT_CONTEXT_WINDOW: u64 = 170_000;
/// Share of the window past which the history is summarized.
pub const TRIGGER: f64 = 0.85;
/// Share of the window kept verbatim after a summary.
pub const KEEP_FRACTION: f64 = 0.10;
/// Messages kept verbatim when the window is not known.
pub const KEEP_MESSAGES_UNKNOWN: usize = 6;
/// Where the full history is written in the workspace.
pub const HISTORY_DIR: &str = "/conversation_history";

/// How a summary message begins (the model reads it as the conversation so far).
pub const SUMMARY_HEADING: &str = "[Summary of the conversation so far]";

const SUMMARIZE_PROMPT: &str = "You summarize a conversation between a study companion and a child or parent, so it can go on without the \
earlier messages. Keep: who the user is (child or parent, grade), what they asked and decided, the facts and results found \
(numbers, poems, mistakes, files written and their paths), what is still open. Drop small talk. Write in the conversation's \
language, as short bullet points, at most 300 words.";

/// Known context windows (tokens), by model name prefix.
const WINDOWS: &[(&str, u64)] = &[
    ("gpt-4.1", 1_047_576),
    ("gpt-4o", 128_000),
    ("gpt-4-turbo", 128_000),
    ("gpt-5", 400_000),
    ("o1", 200_000),
    ("o3", 200_000),
    ("o4-mini", 200_000),
    ("claude-", 200_000),
    ("deepseek-chat", 64_000),
    ("deepseek-reasoner", 64_000),
    ("qwen2.5", 32_768),
    ("qwen3", 32_768),
    ("llama3.1", 128_000),
    ("llama3.2", 128_000),
];

/// The context window of `model` (`provider:model` or just the model's
/// name), when known.
pub fn context_window(model: &str) -> Option<u64> {
    let name = model.split_once(':').map_or(model, |(_, m)| m);
    WINDOWS
        .iter()
        .find(|(prefix, _)| name.starts_with(prefix))
        .map(|(_, w)| *w)
}

/// A rough count of tokens: a CJK character about one, other text about
/// four characters each.
pub fn estimate_tokens(text: &str) -> u64 {
    let (mut cjk, mut other) = (0u64, 0u64);
    for c in text.chars() {
        if ('\u{2e80}'..='\u{9fff}').contains(&c) || ('\u{f900}'..='\u{faff}').contains(&c) {
            cjk += 1;
        } else {
            other += 1;
        }
    }
    cjk + other.div_ceil(4)
}

/// A rough count of one message's tokens: its text, the calls it asks for,
/// a few for its framing; an image about 1,000.
pub fn message_tokens(m: &Message) -> u64 {
    let parts: u64 = m
        .content
        .iter()
        .map(|p| match p {
            ContentPart::Text { text } => estimate_tokens(text),
            // An image costs roughly this many tokens at the providers' usual sizes.
            ContentPart::Image { .. } | ContentPart::ImageUrl { .. } => 1_000,
        })
        .sum();
    let calls: u64 = m
        .tool_calls
        .iter()
        .map(|c| estimate_tokens(&c.name) + estimate_tokens(&c.arguments))
        .sum();
    parts + calls + 4
}

/// What a model call is estimated to take: the system prompt, the tool
/// specifications and the history. This is the figure compared with
/// [`TRIGGER`] of the window before each call.
pub fn request_tokens(system: Option<&str>, specs: &[ToolSpec], history: &[Message]) -> u64 {
    system.map_or(0, estimate_tokens)
        + serde_json::to_string(specs).map_or(0, |s| estimate_tokens(&s))
        + history.iter().map(message_tokens).sum::<u64>()
}

/// Where the kept tail starts: the first message of the newest ones that
/// fit in `budget` tokens (or of the last `count`), moved back so it is not
/// a tool result. 0 means nothing can be summarized.
fn tail_start(history: &[Message], keep: Keep) -> usize {
    let mut start = match keep {
        Keep::Tokens(budget) => {
            let mut used = 0u64;
            let mut start = history.len();
            for (i, m) in history.iter().enumerate().rev() {
                used += message_tokens(m);
                if used > budget {
                    break;
                }
                start = i;
            }
            start
        }
        Keep::Messages(n) => history.len().saturating_sub(n),
    };
    // Keep at least the newest message (the user's question).
    start = start.min(history.len().saturating_sub(1));
    while start > 0 && history.get(start).is_some_and(|m| m.role == Role::Tool) {
        start -= 1;
    }
    start
}

#[derive(Clone, Copy)]
enum Keep {
    Tokens(u64),
    Messages(usize),
}

/// The conversation as Markdown, for the summarizer and the history file.
pub fn transcript(messages: &[Message]) -> String {
    let mut out = String::new();
    for m in messages {
        let who = match m.role {
            Role::User => "User",
            Role::Assistant => "Companion",
            Role::Tool => "Tool result",
            Role::System => "System",
        };
        out.push_str(&format!("### {who}\n\n{}\n", m.text()));
        for c in &m.tool_calls {
            out.push_str(&format!("\n→ {}({})\n", c.name, c.arguments));
        }
        out.push('\n');
    }
    out
}

/// Writes the whole history to `/conversation_history/<thread>.md`.
fn write_history(sandbox: &Sandbox, thread_id: &str, text: &str) -> Result<String, String> {
    let path = sandbox.check(HISTORY_DIR).map_err(|e| e.to_string())?;
    let dir = sandbox.folder(&path, true).map_err(|e| e.to_string())?;
    let name = format!("{thread_id}.md");
    dir.write(&name, text.as_bytes())
        .map_err(|e| e.to_string())?;
    Ok(format!("{HISTORY_DIR}/{name}"))
}

impl PreparedRun {
    /// Summarizes (or, failing that, shortens) the history when the next
    /// model call would not fit comfortably in the model's window.
    pub(crate) async fn fit_context(
        &mut self,
        emit: &impl Fn(AgUiEvent),
    ) -> Result<(), AgentError> {
        let inner = std::sync::Arc::clone(&self.agent.inner);
        let model = inner.llm.model().to_string();
        let known = inner
            .config
            .context_window
            .or_else(|| context_window(&model));
        let window = known.unwrap_or(DEFAULT_CONTEXT_WINDOW);
        let total = request_tokens(self.system.as_deref(), &self.specs, &self.history);
        if (total as f64) <= TRIGGER * window as f64 {
            return Ok(());
        }
        let keep = match known {
            Some(w) => Keep::Tokens((KEEP_FRACTION * w as f64) as u64),
            None => Keep::Messages(KEEP_MESSAGES_UNKNOWN),
        };
        let start = tail_start(&self.history, keep);
        if start == 0 {
            return Ok(());
        }
        // The whole history so far, for the model to look back at.
        let full = transcript(&self.history);
        let (sandbox, thread_id) = (std::sync::Arc::clone(&self.sandbox), self.thread.id.clone());
        let written =
            tokio::task::spawn_blocking(move || write_history(&sandbox, &thread_id, &full))
                .await
                .unwrap_or_else(|e| Err(e.to_string()));
        let where_ = match &written {
            Ok(path) => format!(" The full conversation is in {path}."),
            Err(e) => {
                tracing::warn!("the conversation history could not be written: {e}");
                String::new()
            }
        };
        let older: Vec<Message> = self.history[..start].to_vec();
        let tail: Vec<Message> = self.history[start..].to_vec();
        let request = ChatRequest {
            system: Some(SUMMARIZE_PROMPT.to_string()),
            messages: vec![Message::user(transcript(&older))],
            tools: vec![],
            max_tokens: Some(1_000),
            temperature: Some(0.0),
        };
        match inner.llm.complete(&request).await {
            Ok(done) if !done.text.trim().is_empty() => {
                let text = format!("{SUMMARY_HEADING}\n{}\n{where_}", done.text.trim());
                let summary = Message::user(text);
                let (thread_id, run_id, kept) =
                    (self.thread.id.clone(), self.run.id.clone(), tail.len());
                let stored = summary.clone();
                // A subagent's summary lives with its run only (its history
                // is not the thread's).
                if !self.child {
                    db(&inner.store, move |s| {
                        persist::insert_summary(s, &thread_id, &run_id, &stored, kept)
                    })
                    .await?;
                }
                self.history = std::iter::once(summary).chain(tail).collect();
                emit(AgUiEvent::Custom {
                    name: "history_summarized".into(),
                    value: json!({"summarized_messages": older.len(), "kept_messages": self.history.len() - 1}),
                });
            }
            failed => {
                let why = match failed {
                    Ok(_) => "the summary came back empty".to_string(),
                    Err(e) => e.to_string(),
                };
                tracing::warn!("the conversation could not be summarized ({why}); the oldest messages are left out");
                let note = Message::user(format!(
                    "[{} earlier messages were left out to fit the model's context window.{where_}]",
                    older.len()
                ));
                self.history = std::iter::once(note).chain(tail).collect();
                emit(AgUiEvent::Custom {
                    name: "history_shortened".into(),
                    value: json!({"left_out_messages": older.len(), "reason": why}),
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use deskmate_llm::ToolCall;

    #[test]
    fn known_windows_and_token_estimates() {
        assert_eq!(context_window("openai:gpt-4o-mini"), Some(128_000));
        assert_eq!(context_window("anthropic:claude-sonnet-4-5"), Some(200_000));
        assert_eq!(context_window("ollama:my-model"), None);
        assert_eq!(estimate_tokens("床前明月光"), 5);
        assert_eq!(estimate_tokens("abcdefgh"), 2);
    }

    #[test]
    fn the_tail_keeps_a_tool_result_with_its_call() {
        let call = Message::assistant(
            String::new(),
            vec![ToolCall {
                id: "c".into(),
                name: "ls".into(),
                arguments: "{}".into(),
            }],
        );
        let mut result = Message::user("[]");
        result.role = Role::Tool;
        result.tool_call_id = Some("c".into());
        let h = vec![
            Message::user("一"),
            Message::assistant("二", vec![]),
            Message::user("三"),
            call,
            result,
            Message::assistant("四", vec![]),
        ];
        // The last 2 would start at the tool result: moved back to its call.
        assert_eq!(tail_start(&h, Keep::Messages(2)), 3);
        assert_eq!(tail_start(&h, Keep::Messages(6)), 0);
        // A budget of one short message keeps the newest only.
        assert_eq!(tail_start(&h, Keep::Tokens(6)), 5);
    }
}
