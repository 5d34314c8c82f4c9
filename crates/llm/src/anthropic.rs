//! The Anthropic Messages wire format: the request body (system apart,
//! strictly alternating roles, tool results inside user turns) and a parser
//! for its streamed content blocks (`text_delta`, `tool_use`,
//! `input_json_delta`, usage in `message_start` and `message_delta`).

use serde_json::{json, Value};

use crate::openai::cut;
use crate::{ChatRequest, ContentPart, LlmError, Role, StopReason, StreamEvent, Usage};

/// The model must be told how long it may answer; this is the default.
pub(crate) const DEFAULT_MAX_TOKENS: u32 = 4096;

pub(crate) fn request_body(model: &str, req: &ChatRequest) -> Value {
    let mut system: Vec<String> = req
        .system
        .iter()
        .filter(|s| !s.is_empty())
        .cloned()
        .collect();
    let mut turns: Vec<(Role, Vec<Value>)> = Vec::new();
    for m in &req.messages {
        let (role, blocks) = match m.role {
            Role::System => {
                system.push(m.text());
                continue;
            }
            Role::User => (Role::User, m.content.iter().map(part).collect::<Vec<_>>()),
            Role::Assistant => {
                let mut blocks: Vec<Value> = m
                    .content
                    .iter()
                    .filter(|p| !matches!(p, ContentPart::Text { text } if text.is_empty()))
                    .map(part)
                    .collect();
                for c in &m.tool_calls {
                    let input = serde_json::from_str::<Value>(&c.arguments)
                        .ok()
                        .filter(Value::is_object)
                        .unwrap_or_else(|| json!({}));
                    blocks.push(
                        json!({"type": "tool_use", "id": c.id, "name": c.name, "input": input}),
                    );
                }
                (Role::Assistant, blocks)
            }
            Role::Tool => (
                Role::User,
                vec![json!({
                    "type": "tool_result",
                    "tool_use_id": m.tool_call_id.clone().unwrap_or_default(),
                    "content": m.text(),
                    "is_error": m.is_error,
                })],
            ),
        };
        if blocks.is_empty() {
            continue;
        }
        match turns.last_mut() {
            Some((last, existing)) if *last == role => existing.extend(blocks),
            _ => turns.push((role, blocks)),
        }
    }
    let messages: Vec<Value> = turns
        .into_iter()
        .map(|(role, content)| json!({"role": role.as_str(), "content": content}))
        .collect();
    let mut body = json!({
        "model": model,
        "max_tokens": req.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS),
        "messages": messages,
        "stream": true,
    });
    if !system.is_empty() {
        body["system"] = json!(system.join("\n\n"));
    }
    if !req.tools.is_empty() {
        body["tools"] = req
            .tools
            .iter()
            .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.parameters}))
            .collect();
    }
    if let Some(t) = req.temperature {
        body["temperature"] = json!(t);
    }
    body
}

fn part(p: &ContentPart) -> Value {
    match p {
        ContentPart::Text { text } => json!({"type": "text", "text": text}),
        ContentPart::Image { media_type, data } => {
            json!({"type": "image", "source": {"type": "base64", "media_type": media_type, "data": data}})
        }
        ContentPart::ImageUrl { url } => {
            json!({"type": "image", "source": {"type": "url", "url": url}})
        }
    }
}

#[derive(Default)]
pub(crate) struct AnthropicParser {
    usage: Usage,
    stop: Option<StopReason>,
    done: bool,
}

impl AnthropicParser {
    pub(crate) fn is_done(&self) -> bool {
        self.done
    }

    pub(crate) fn on_data(&mut self, data: &str) -> Result<Vec<StreamEvent>, LlmError> {
        let data = data.trim();
        if data.is_empty() {
            return Ok(vec![]);
        }
        let ev: Value = serde_json::from_str(data).map_err(|e| {
            LlmError::Protocol(format!("malformed JSON in the stream ({e}): {}", cut(data)))
        })?;
        let n = |v: Option<&Value>| v.and_then(Value::as_u64).unwrap_or(0);
        let index = |ev: &Value| {
            ev.get("index")
                .and_then(Value::as_u64)
                .and_then(|i| usize::try_from(i).ok())
                .unwrap_or(0)
        };
        let mut out = Vec::new();
        match ev.get("type").and_then(Value::as_str).unwrap_or_default() {
            "message_start" => {
                let u = ev.pointer("/message/usage").unwrap_or(&Value::Null);
                let cached = n(u.get("cache_read_input_tokens"));
                self.usage.input_tokens =
                    n(u.get("input_tokens")) + cached + n(u.get("cache_creation_input_tokens"));
                self.usage.cached_input_tokens = cached;
                self.usage.output_tokens = n(u.get("output_tokens"));
            }
            "content_block_start" => {
                let block = ev.get("content_block").unwrap_or(&Value::Null);
                match block.get("type").and_then(Value::as_str) {
                    Some("text") => {
                        if let Some(t) = block
                            .get("text")
                            .and_then(Value::as_str)
                            .filter(|t| !t.is_empty())
                        {
                            out.push(StreamEvent::TextDelta(t.to_string()));
                        }
                    }
                    Some("tool_use") => {
                        let s = |k: &str| {
                            block
                                .get(k)
                                .and_then(Value::as_str)
                                .unwrap_or_default()
                                .to_string()
                        };
                        out.push(StreamEvent::ToolCallStart {
                            index: index(&ev),
                            id: s("id"),
                            name: s("name"),
                        });
                        // Non-streamed input (rare) comes whole in the start block.
                        if let Some(input) = block
                            .get("input")
                            .filter(|i| i.as_object().is_some_and(|o| !o.is_empty()))
                        {
                            out.push(StreamEvent::ToolCallArgs {
                                index: index(&ev),
                                delta: input.to_string(),
                            });
                        }
                    }
                    _ => {}
                }
            }
            "content_block_delta" => {
                let delta = ev.get("delta").unwrap_or(&Value::Null);
                match delta.get("type").and_then(Value::as_str) {
                    Some("text_delta") => {
                        if let Some(t) = delta
                            .get("text")
                            .and_then(Value::as_str)
                            .filter(|t| !t.is_empty())
                        {
                            out.push(StreamEvent::TextDelta(t.to_string()));
                        }
                    }
                    Some("input_json_delta") => {
                        if let Some(j) = delta
                            .get("partial_json")
                            .and_then(Value::as_str)
                            .filter(|t| !t.is_empty())
                        {
                            out.push(StreamEvent::ToolCallArgs {
                                index: index(&ev),
                                delta: j.to_string(),
                            });
                        }
                    }
                    _ => {}
                }
            }
            "message_delta" => {
                if let Some(r) = ev.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    self.stop = Some(StopReason::from_anthropic(r));
                }
                if let Some(o) = ev.pointer("/usage/output_tokens").and_then(Value::as_u64) {
                    self.usage.output_tokens = o;
                }
            }
            "message_stop" => {
                self.done = true;
                out.push(StreamEvent::Usage(self.usage));
                out.push(StreamEvent::Finished {
                    stop: self.stop.take().unwrap_or(StopReason::EndTurn),
                });
            }
            "error" => {
                let (message, kind) = crate::error::error_message(data);
                return Err(match kind.as_str() {
                    "rate_limit_error" => LlmError::RateLimited {
                        retry_after: None,
                        message,
                    },
                    "overloaded_error" => LlmError::Server {
                        status: 529,
                        message,
                    },
                    "authentication_error" | "permission_error" => LlmError::Auth {
                        status: 401,
                        message,
                    },
                    _ => LlmError::Server {
                        status: 500,
                        message,
                    },
                });
            }
            _ => {} // ping, content_block_stop, thinking blocks
        }
        Ok(out)
    }

    pub(crate) fn finish(&mut self) -> Result<Vec<StreamEvent>, LlmError> {
        if self.done {
            Ok(vec![])
        } else {
            Err(LlmError::Network(
                "the connection closed before the reply was complete".into(),
            ))
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::{Message, ToolCall};

    #[test]
    fn content_blocks_become_events() {
        let mut p = AnthropicParser::default();
        let mut all = Vec::new();
        for d in [
            r#"{"type":"message_start","message":{"id":"m","usage":{"input_tokens":20,"cache_read_input_tokens":5,"output_tokens":1}}}"#,
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
            r#"{"type":"ping"}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Sure."}}"#,
            r#"{"type":"content_block_stop","index":0}"#,
            r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"glob","input":{}}}"#,
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}"#,
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"pattern\":"}}"#,
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"\"*.md\"}"}}"#,
            r#"{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":30}}"#,
            r#"{"type":"message_stop"}"#,
        ] {
            all.extend(p.on_data(d).unwrap());
        }
        assert_eq!(
            all,
            vec![
                StreamEvent::TextDelta("Sure.".into()),
                StreamEvent::ToolCallStart {
                    index: 1,
                    id: "toolu_1".into(),
                    name: "glob".into()
                },
                StreamEvent::ToolCallArgs {
                    index: 1,
                    delta: "{\"pattern\":".into()
                },
                StreamEvent::ToolCallArgs {
                    index: 1,
                    delta: "\"*.md\"}".into()
                },
                StreamEvent::Usage(Usage {
                    input_tokens: 25,
                    output_tokens: 30,
                    cached_input_tokens: 5
                }),
                StreamEvent::Finished {
                    stop: StopReason::ToolUse
                },
            ]
        );
        let mut cut_off = AnthropicParser::default();
        cut_off
            .on_data(r#"{"type":"message_start","message":{"usage":{}}}"#)
            .unwrap();
        assert!(cut_off.finish().is_err());
        let e = AnthropicParser::default()
            .on_data(
                r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
            )
            .unwrap_err();
        assert!(e.is_retryable());
    }

    #[test]
    fn body_alternates_roles_and_nests_tool_results() {
        let req = ChatRequest {
            system: Some("sys".into()),
            messages: vec![
                Message::user("hi"),
                Message::assistant(
                    "checking",
                    vec![
                        ToolCall {
                            id: "t1".into(),
                            name: "ls".into(),
                            arguments: "{\"path\":\"/\"}".into(),
                        },
                        ToolCall {
                            id: "t2".into(),
                            name: "ls".into(),
                            arguments: "not json".into(),
                        },
                    ],
                ),
                Message::tool_result("t1", "a.txt", false),
                Message::tool_result("t2", "Error: bad args", true),
                Message::user("and?"),
            ],
            ..Default::default()
        };
        let b = request_body("claude", &req);
        assert_eq!(b["system"], "sys");
        assert_eq!(b["max_tokens"], DEFAULT_MAX_TOKENS);
        let msgs = b["messages"].as_array().unwrap();
        assert_eq!(msgs.len(), 3, "{msgs:?}");
        assert_eq!(msgs[1]["content"][1]["input"]["path"], "/");
        assert_eq!(msgs[1]["content"][2]["input"], json!({}));
        assert_eq!(msgs[2]["role"], "user");
        assert_eq!(msgs[2]["content"][0]["type"], "tool_result");
        assert_eq!(msgs[2]["content"][1]["is_error"], true);
        assert_eq!(msgs[2]["content"][2]["text"], "and?");
    }
}
