//! The OpenAI Chat Completions wire format: the request body and a parser
//! for its streamed chunks (text deltas, tool-call deltas split across
//! chunks, the usage chunk and `[DONE]`). Spoken by OpenAI and by most
//! other providers and local servers.

use std::collections::HashMap;

use serde_json::{json, Value};

use crate::{ChatRequest, ContentPart, LlmError, Role, StopReason, StreamEvent, Usage};

/// The JSON body of a streamed Chat Completions request.
pub(crate) fn request_body(model: &str, req: &ChatRequest) -> Value {
    let mut messages = Vec::new();
    if let Some(system) = req.system.as_deref().filter(|s| !s.is_empty()) {
        messages.push(json!({"role": "system", "content": system}));
    }
    for m in &req.messages {
        match m.role {
            Role::System => messages.push(json!({"role": "system", "content": m.text()})),
            Role::User => {
                messages.push(json!({"role": "user", "content": user_content(&m.content)}))
            }
            Role::Assistant => {
                let text = m.text();
                let mut msg = json!({"role": "assistant", "content": if text.is_empty() { Value::Null } else { Value::String(text) }});
                if !m.tool_calls.is_empty() {
                    msg["tool_calls"] = m
                        .tool_calls
                        .iter()
                        .map(|c| {
                            let args = if c.arguments.trim().is_empty() { "{}" } else { c.arguments.as_str() };
                            json!({"id": c.id, "type": "function", "function": {"name": c.name, "arguments": args}})
                        })
                        .collect();
                }
                messages.push(msg);
            }
            Role::Tool => messages.push(json!({
                "role": "tool",
                "tool_call_id": m.tool_call_id.clone().unwrap_or_default(),
                "content": m.text(),
            })),
        }
    }
    let mut body = json!({
        "model": model,
        "messages": messages,
        "stream": true,
        "stream_options": {"include_usage": true},
    });
    if !req.tools.is_empty() {
        body["tools"] = req
            .tools
            .iter()
            .map(|t| json!({"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}))
            .collect();
    }
    if let Some(n) = req.max_tokens {
        body["max_tokens"] = json!(n);
    }
    if let Some(t) = req.temperature {
        body["temperature"] = json!(t);
    }
    body
}

/// Plain text stays a string (every server understands it); images make it
/// a list of parts.
fn user_content(parts: &[ContentPart]) -> Value {
    if let [ContentPart::Text { text }] = parts {
        return Value::String(text.clone());
    }
    parts
        .iter()
        .map(|p| match p {
            ContentPart::Text { text } => json!({"type": "text", "text": text}),
            ContentPart::Image { media_type, data } => {
                json!({"type": "image_url", "image_url": {"url": format!("data:{media_type};base64,{data}")}})
            }
            ContentPart::ImageUrl { url } => json!({"type": "image_url", "image_url": {"url": url}}),
        })
        .collect()
}

/// One tool call being assembled from deltas.
#[derive(Default)]
struct PendingCall {
    started: bool,
    id: Option<String>,
    name: Option<String>,
    /// Argument text that arrived before the call's name.
    buffered: String,
}

/// Turns `data:` payloads of the stream into [`StreamEvent`]s.
#[derive(Default)]
pub(crate) struct OpenAiParser {
    calls: HashMap<usize, PendingCall>,
    finish: Option<StopReason>,
    done: bool,
}

impl OpenAiParser {
    pub(crate) fn is_done(&self) -> bool {
        self.done
    }

    pub(crate) fn on_data(&mut self, data: &str) -> Result<Vec<StreamEvent>, LlmError> {
        let data = data.trim();
        if data.is_empty() {
            return Ok(vec![]);
        }
        if data == "[DONE]" {
            self.done = true;
            let mut out = self.start_leftover_calls();
            out.push(StreamEvent::Finished {
                stop: self.finish.take().unwrap_or(StopReason::EndTurn),
            });
            return Ok(out);
        }
        let chunk: Value = serde_json::from_str(data).map_err(|e| {
            LlmError::Protocol(format!("malformed JSON in the stream ({e}): {}", cut(data)))
        })?;
        if let Some(err) = chunk.get("error") {
            let (message, code) = crate::error::error_message(&json!({"error": err}).to_string());
            return Err(match code.as_str() {
                "rate_limit_exceeded" => LlmError::RateLimited {
                    retry_after: None,
                    message,
                },
                "context_length_exceeded" => LlmError::ContextOverflow { message },
                _ => LlmError::Server {
                    status: 200,
                    message,
                },
            });
        }
        let mut out = Vec::new();
        if let Some(choices) = chunk.get("choices").and_then(Value::as_array) {
            for choice in choices
                .iter()
                .filter(|c| c.get("index").and_then(Value::as_u64).unwrap_or(0) == 0)
            {
                let delta = choice.get("delta").unwrap_or(&Value::Null);
                if let Some(text) = delta
                    .get("content")
                    .and_then(Value::as_str)
                    .filter(|t| !t.is_empty())
                {
                    out.push(StreamEvent::TextDelta(text.to_string()));
                }
                if let Some(calls) = delta.get("tool_calls").and_then(Value::as_array) {
                    for (pos, c) in calls.iter().enumerate() {
                        let index = c
                            .get("index")
                            .and_then(Value::as_u64)
                            .and_then(|i| usize::try_from(i).ok())
                            .unwrap_or(pos);
                        self.on_call_delta(index, c, &mut out);
                    }
                }
                if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
                    self.finish = Some(StopReason::from_openai(reason));
                }
            }
        }
        if let Some(u) = chunk.get("usage").filter(|u| !u.is_null()) {
            let n = |v: Option<&Value>| v.and_then(Value::as_u64).unwrap_or(0);
            out.push(StreamEvent::Usage(Usage {
                input_tokens: n(u.get("prompt_tokens")),
                output_tokens: n(u.get("completion_tokens")),
                cached_input_tokens: n(u.pointer("/prompt_tokens_details/cached_tokens")),
            }));
        }
        Ok(out)
    }

    fn on_call_delta(&mut self, index: usize, c: &Value, out: &mut Vec<StreamEvent>) {
        let call = self.calls.entry(index).or_default();
        let nonempty = |v: Option<&Value>| {
            v.and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
        };
        if call.id.is_none() {
            call.id = nonempty(c.get("id"));
        }
        if call.name.is_none() {
            call.name = nonempty(c.pointer("/function/name"));
        }
        let args = c
            .pointer("/function/arguments")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if !call.started {
            call.buffered.push_str(args);
            if let (Some(id), Some(name)) = (&call.id, &call.name) {
                call.started = true;
                out.push(StreamEvent::ToolCallStart {
                    index,
                    id: id.clone(),
                    name: name.clone(),
                });
                if !call.buffered.is_empty() {
                    out.push(StreamEvent::ToolCallArgs {
                        index,
                        delta: std::mem::take(&mut call.buffered),
                    });
                }
            }
        } else if !args.is_empty() {
            out.push(StreamEvent::ToolCallArgs {
                index,
                delta: args.to_string(),
            });
        }
    }

    /// Calls that got a name but never an id (some local servers omit ids)
    /// start now, with a made-up id.
    fn start_leftover_calls(&mut self) -> Vec<StreamEvent> {
        let mut out = Vec::new();
        let mut indices: Vec<usize> = self.calls.keys().copied().collect();
        indices.sort_unstable();
        for index in indices {
            let Some(call) = self.calls.get_mut(&index) else {
                continue;
            };
            if call.started {
                continue;
            }
            if let Some(name) = call.name.clone() {
                call.started = true;
                out.push(StreamEvent::ToolCallStart {
                    index,
                    id: format!("call_{index}"),
                    name,
                });
                if !call.buffered.is_empty() {
                    out.push(StreamEvent::ToolCallArgs {
                        index,
                        delta: std::mem::take(&mut call.buffered),
                    });
                }
            }
        }
        out
    }

    /// The connection closed. Without `[DONE]` the reply is only complete if
    /// a finish reason came (some servers omit `[DONE]`); otherwise the
    /// stream was cut off.
    pub(crate) fn finish(&mut self) -> Result<Vec<StreamEvent>, LlmError> {
        if self.done {
            return Ok(vec![]);
        }
        match self.finish.take() {
            Some(stop) => {
                self.done = true;
                let mut out = self.start_leftover_calls();
                out.push(StreamEvent::Finished { stop });
                Ok(out)
            }
            None => Err(LlmError::Network(
                "the connection closed before the reply was complete".into(),
            )),
        }
    }
}

pub(crate) fn cut(s: &str) -> String {
    let t: String = s.chars().take(200).collect();
    if t.len() < s.len() {
        format!("{t}…")
    } else {
        t
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::{Message, ToolCall, ToolSpec};

    #[test]
    fn tool_call_deltas_across_chunks() {
        let mut p = OpenAiParser::default();
        let mut all = Vec::new();
        for d in [
            r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":"Let me look."}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"ls","arguments":""}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"pa"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"th\":\"/\"}"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","function":{"name":"read_file","arguments":"{}"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
            r#"{"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":7,"prompt_tokens_details":{"cached_tokens":4}}}"#,
            "[DONE]",
        ] {
            all.extend(p.on_data(d).unwrap());
        }
        assert_eq!(
            all,
            vec![
                StreamEvent::TextDelta("Let me look.".into()),
                StreamEvent::ToolCallStart {
                    index: 0,
                    id: "call_a".into(),
                    name: "ls".into()
                },
                StreamEvent::ToolCallArgs {
                    index: 0,
                    delta: "{\"pa".into()
                },
                StreamEvent::ToolCallArgs {
                    index: 0,
                    delta: "th\":\"/\"}".into()
                },
                StreamEvent::ToolCallStart {
                    index: 1,
                    id: "call_b".into(),
                    name: "read_file".into()
                },
                StreamEvent::ToolCallArgs {
                    index: 1,
                    delta: "{}".into()
                },
                StreamEvent::Usage(Usage {
                    input_tokens: 12,
                    output_tokens: 7,
                    cached_input_tokens: 4
                }),
                StreamEvent::Finished {
                    stop: StopReason::ToolUse
                },
            ]
        );
        assert!(p.is_done());
    }

    #[test]
    fn cut_off_and_malformed_streams_are_errors() {
        let mut p = OpenAiParser::default();
        p.on_data(r#"{"choices":[{"index":0,"delta":{"content":"Hel"}}]}"#)
            .unwrap();
        assert!(matches!(p.finish(), Err(LlmError::Network(_))));
        let mut p = OpenAiParser::default();
        assert!(matches!(p.on_data("{not json"), Err(LlmError::Protocol(_))));
        let mut p = OpenAiParser::default();
        p.on_data(r#"{"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}"#)
            .unwrap();
        assert_eq!(
            p.finish().unwrap(),
            vec![StreamEvent::Finished {
                stop: StopReason::EndTurn
            }]
        );
        let mut p = OpenAiParser::default();
        let e = p
            .on_data(r#"{"error":{"message":"overloaded","code":"server_error"}}"#)
            .unwrap_err();
        assert!(matches!(e, LlmError::Server { .. }));
    }

    #[test]
    fn body_carries_tools_images_and_results() {
        let req = ChatRequest {
            system: Some("be kind".into()),
            messages: vec![
                Message {
                    content: vec![
                        ContentPart::Text {
                            text: "what is this?".into(),
                        },
                        ContentPart::Image {
                            media_type: "image/png".into(),
                            data: "iVBOR".into(),
                        },
                    ],
                    ..Message::user("")
                },
                Message::assistant(
                    "",
                    vec![ToolCall {
                        id: "c1".into(),
                        name: "ls".into(),
                        arguments: String::new(),
                    }],
                ),
                Message::tool_result("c1", "[]", false),
            ],
            tools: vec![ToolSpec {
                name: "ls".into(),
                description: "list".into(),
                parameters: json!({"type": "object"}),
            }],
            max_tokens: Some(100),
            temperature: None,
        };
        let b = request_body("gpt-4o-mini", &req);
        assert_eq!(b["messages"][0]["role"], "system");
        assert_eq!(
            b["messages"][1]["content"][1]["image_url"]["url"],
            "data:image/png;base64,iVBOR"
        );
        assert_eq!(b["messages"][2]["content"], Value::Null);
        assert_eq!(
            b["messages"][2]["tool_calls"][0]["function"]["arguments"],
            "{}"
        );
        assert_eq!(b["messages"][3]["tool_call_id"], "c1");
        assert_eq!(b["tools"][0]["function"]["name"], "ls");
        assert_eq!(b["max_tokens"], 100);
        assert_eq!(b["stream_options"]["include_usage"], true);
    }
}
