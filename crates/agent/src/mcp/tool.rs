//! One MCP server's tool as an agent [`Tool`]: named `mcp__<server>__<tool>`,
//! the server's schema as its parameters; the result's text goes back to
//! the model, other content (images, audio, resources) summarised in words.

use std::sync::Arc;

use serde_json::Value;

use super::{tool_name, McpConnection, McpToolInfo};
use crate::tools::{Tool, ToolContext, ToolFuture, ToolOutput};

/// A tool of a connected MCP server.
pub struct McpTool {
    connection: Arc<McpConnection>,
    /// `mcp__<server>__<tool>`.
    name: String,
    description: String,
    info: McpToolInfo,
}

impl McpTool {
    pub fn new(connection: Arc<McpConnection>, info: McpToolInfo) -> Self {
        let name = tool_name(connection.server(), &info.name);
        let description = format!(
            "(a tool of the MCP server {}) {}",
            connection.server(),
            info.description
        );
        Self {
            connection,
            name,
            description,
            info,
        }
    }

    /// The connection it calls through (its server process).
    pub fn connection(&self) -> &Arc<McpConnection> {
        &self.connection
    }
}

impl Tool for McpTool {
    fn name(&self) -> &str {
        &self.name
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn parameters(&self) -> Value {
        self.info.input_schema.clone()
    }

    fn call(&self, _ctx: ToolContext, args: Value) -> ToolFuture {
        let connection = Arc::clone(&self.connection);
        let tool = self.info.name.clone();
        Box::pin(async move {
            let arguments = match args {
                Value::Object(m) => m,
                _ => serde_json::Map::new(),
            };
            match connection.call_tool(&tool, arguments).await {
                Ok((text, false)) => ToolOutput::ok(text),
                Ok((text, true)) => ToolOutput::error(format!(
                    "the MCP server {} answered that {tool} failed: {text}",
                    connection.server()
                )),
                Err(e) => ToolOutput::error(format!("{e}; the call of {tool} has no result")),
            }
        })
    }
}

/// The text of a `CallToolResult` (as JSON): each text block as is, other
/// blocks in a line of words; the structured content when there is nothing
/// else.
pub(super) fn result_text(result: &Value) -> String {
    let mut parts = Vec::new();
    for block in result
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let kind = block.get("type").and_then(Value::as_str).unwrap_or("");
        let text = |k: &str| block.get(k).and_then(Value::as_str).unwrap_or("");
        parts.push(match kind {
            "text" => text("text").to_string(),
            "image" | "audio" => format!(
                "[{kind} ({}, {} bytes of base64) returned by the tool; it cannot be shown here]",
                text("mimeType"),
                text("data").len()
            ),
            "resource" => {
                let r = block.get("resource").cloned().unwrap_or(Value::Null);
                match r.get("text").and_then(Value::as_str) {
                    Some(t) => t.to_string(),
                    None => format!(
                        "[a resource {} ({})]",
                        r.get("uri").and_then(Value::as_str).unwrap_or("?"),
                        r.get("mimeType")
                            .and_then(Value::as_str)
                            .unwrap_or("binary")
                    ),
                }
            }
            "resource_link" => format!(
                "[a link to the resource {} ({})]",
                text("uri"),
                text("name")
            ),
            other => format!("[content of type {other:?}]"),
        });
    }
    if parts.is_empty() {
        if let Some(s) = result.get("structuredContent") {
            return s.to_string();
        }
    }
    parts.join("\n")
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn text_is_kept_and_other_content_summarised() {
        let r = serde_json::json!({"content": [
            {"type": "text", "text": "Echo: hi"},
            {"type": "image", "data": "AAAA", "mimeType": "image/png"},
            {"type": "resource", "resource": {"uri": "file:///a", "text": "inside"}},
            {"type": "resource_link", "uri": "test://1", "name": "one"}
        ]});
        assert_eq!(
            result_text(&r),
            "Echo: hi\n[image (image/png, 4 bytes of base64) returned by the tool; it cannot be shown here]\ninside\n[a link to the resource test://1 (one)]"
        );
        let r = serde_json::json!({"content": [], "structuredContent": {"sum": 3}});
        assert_eq!(result_text(&r), r#"{"sum":3}"#);
    }
}
