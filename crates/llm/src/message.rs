//! The provider-neutral conversation: messages with text and image parts,
//! tool specifications, tool calls, and the events a streamed reply yields.

use serde::{Deserialize, Serialize};

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        }
    }

    /// Parses the stored name of a role.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "system" => Role::System,
            "user" => Role::User,
            "assistant" => Role::Assistant,
            "tool" => Role::Tool,
            _ => return None,
        })
    }
}

/// One piece of a message's content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentPart {
    Text {
        text: String,
    },
    /// An inline image for vision models: base64 bytes and their media type
    /// (`image/png`, `image/jpeg`, …).
    Image {
        media_type: String,
        data: String,
    },
    /// An image the provider fetches itself.
    ImageUrl {
        url: String,
    },
}

/// A tool call the model asked for. `arguments` is the raw JSON text the
/// model produced (it may be invalid: the tool then reports that).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub arguments: String,
}

/// One message of a conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub role: Role,
    pub content: Vec<ContentPart>,
    /// Tool calls of an assistant message.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// For a tool result: the call it answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// For a tool result: whether the tool failed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub is_error: bool,
}

impl Message {
    fn with_text(role: Role, text: impl Into<String>) -> Self {
        Self {
            role,
            content: vec![ContentPart::Text { text: text.into() }],
            tool_calls: vec![],
            tool_call_id: None,
            is_error: false,
        }
    }

    pub fn system(text: impl Into<String>) -> Self {
        Self::with_text(Role::System, text)
    }

    pub fn user(text: impl Into<String>) -> Self {
        Self::with_text(Role::User, text)
    }

    /// An assistant message: its text (may be empty) and its tool calls.
    pub fn assistant(text: impl Into<String>, tool_calls: Vec<ToolCall>) -> Self {
        let text = text.into();
        let content = if text.is_empty() {
            vec![]
        } else {
            vec![ContentPart::Text { text }]
        };
        Self {
            role: Role::Assistant,
            content,
            tool_calls,
            tool_call_id: None,
            is_error: false,
        }
    }

    /// The result of a tool call, sent back to the model.
    pub fn tool_result(
        tool_call_id: impl Into<String>,
        text: impl Into<String>,
        is_error: bool,
    ) -> Self {
        Self {
            tool_call_id: Some(tool_call_id.into()),
            is_error,
            ..Self::with_text(Role::Tool, text)
        }
    }

    /// All text parts joined.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for p in &self.content {
            if let ContentPart::Text { text } = p {
                out.push_str(text);
            }
        }
        out
    }
}

/// A tool the model may call: its name, what it does and a JSON Schema of
/// its arguments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub parameters: serde_json::Value,
}

/// Everything one model call needs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ChatRequest {
    pub system: Option<String>,
    pub messages: Vec<Message>,
    pub tools: Vec<ToolSpec>,
    pub max_tokens: Option<u32>,
    pub temperature: Option<f32>,
}

/// Tokens a call used.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// Input tokens served from the provider's prompt cache (part of `input_tokens`).
    pub cached_input_tokens: u64,
}

/// Why the model stopped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    EndTurn,
    ToolUse,
    MaxTokens,
    ContentFilter,
    Other(String),
}

impl StopReason {
    pub(crate) fn from_openai(s: &str) -> Self {
        match s {
            "stop" => StopReason::EndTurn,
            "tool_calls" | "function_call" => StopReason::ToolUse,
            "length" => StopReason::MaxTokens,
            "content_filter" => StopReason::ContentFilter,
            other => StopReason::Other(other.to_string()),
        }
    }

    pub(crate) fn from_anthropic(s: &str) -> Self {
        match s {
            "end_turn" | "stop_sequence" => StopReason::EndTurn,
            "tool_use" => StopReason::ToolUse,
            "max_tokens" => StopReason::MaxTokens,
            "refusal" => StopReason::ContentFilter,
            other => StopReason::Other(other.to_string()),
        }
    }
}

/// One step of a streamed reply, the same for every provider.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamEvent {
    /// More answer text.
    TextDelta(String),
    /// A tool call begins. `index` identifies it among this reply's calls.
    ToolCallStart {
        index: usize,
        id: String,
        name: String,
    },
    /// More of a tool call's JSON arguments.
    ToolCallArgs { index: usize, delta: String },
    /// Token counts (sent once, near the end).
    Usage(Usage),
    /// The reply is complete.
    Finished { stop: StopReason },
}
