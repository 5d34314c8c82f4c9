//! AG-UI protocol events — what a run shows as it happens — and the
//! ordering rules a well-formed sequence keeps: a run starts first; a
//! message's or tool call's START / CONTENT-or-ARGS / END pair up; a tool
//! result follows its call's END; nothing comes after RUN_ERROR or
//! RUN_FINISHED; RUN_FINISHED only when nothing is open.
//!
//! Serialized as the protocol's camelCase JSON with a `type` tag, e.g.
//! `{"type":"TEXT_MESSAGE_CONTENT","messageId":"…","delta":"Hi"}`.

use std::collections::HashSet;

pub use deskmate_protocol::agui::AgUiEvent;
use deskmate_protocol::agui::RunFinishedOutcome;

/// Checks events one by one against the ordering rules.
#[derive(Debug, Default)]
pub struct EventOrder {
    started: bool,
    ended: bool,
    open_messages: HashSet<String>,
    ended_messages: HashSet<String>,
    open_calls: HashSet<String>,
    ended_calls: HashSet<String>,
    answered_calls: HashSet<String>,
    open_steps: Vec<String>,
}

impl EventOrder {
    /// Accepts `ev` or says which rule it breaks.
    pub fn check(&mut self, ev: &AgUiEvent) -> Result<(), String> {
        let kind = ev.kind();
        if self.ended {
            return Err(format!("{kind} after the run ended"));
        }
        if !self.started && !matches!(ev, AgUiEvent::RunStarted { .. }) {
            return Err(format!("{kind} before RUN_STARTED"));
        }
        match ev {
            AgUiEvent::RunStarted { .. } => {
                if self.started {
                    return Err("a second RUN_STARTED".into());
                }
                self.started = true;
            }
            AgUiEvent::RunFinished { outcome, .. } => {
                // A run that ends on an interrupt hands its waiting calls to a
                // person: they are answered when the run goes on, not here.
                if let Some(RunFinishedOutcome::Interrupt { interrupts }) = outcome {
                    for i in interrupts {
                        let id = i.tool_call_id.as_ref().unwrap_or(&i.id);
                        self.answered_calls.insert(id.clone());
                    }
                }
                if !self.open_messages.is_empty()
                    || !self.open_calls.is_empty()
                    || !self.open_steps.is_empty()
                {
                    return Err(format!(
                        "RUN_FINISHED with open messages {:?}, tool calls {:?}, steps {:?}",
                        self.open_messages, self.open_calls, self.open_steps
                    ));
                }
                self.ended = true;
            }
            AgUiEvent::RunError { .. } => self.ended = true,
            AgUiEvent::StepStarted { step_name } => self.open_steps.push(step_name.clone()),
            AgUiEvent::StepFinished { step_name } => {
                if self.open_steps.last() != Some(step_name) {
                    return Err(format!(
                        "STEP_FINISHED {step_name} but the open step is {:?}",
                        self.open_steps.last()
                    ));
                }
                self.open_steps.pop();
            }
            AgUiEvent::TextMessageStart { message_id, .. } => {
                if self.open_messages.contains(message_id)
                    || self.ended_messages.contains(message_id)
                {
                    return Err(format!("TEXT_MESSAGE_START for {message_id} twice"));
                }
                self.open_messages.insert(message_id.clone());
            }
            AgUiEvent::TextMessageContent { message_id, delta } => {
                if !self.open_messages.contains(message_id) {
                    return Err(format!(
                        "TEXT_MESSAGE_CONTENT for {message_id}, which is not open"
                    ));
                }
                if delta.is_empty() {
                    return Err("TEXT_MESSAGE_CONTENT with an empty delta".into());
                }
            }
            AgUiEvent::TextMessageEnd { message_id } => {
                if !self.open_messages.remove(message_id) {
                    return Err(format!(
                        "TEXT_MESSAGE_END for {message_id}, which is not open"
                    ));
                }
                self.ended_messages.insert(message_id.clone());
            }
            AgUiEvent::ToolCallStart { tool_call_id, .. } => {
                if self.open_calls.contains(tool_call_id) || self.ended_calls.contains(tool_call_id)
                {
                    return Err(format!("TOOL_CALL_START for {tool_call_id} twice"));
                }
                self.open_calls.insert(tool_call_id.clone());
            }
            AgUiEvent::ToolCallArgs { tool_call_id, .. } => {
                if !self.open_calls.contains(tool_call_id) {
                    return Err(format!(
                        "TOOL_CALL_ARGS for {tool_call_id}, which is not open"
                    ));
                }
            }
            AgUiEvent::ToolCallEnd { tool_call_id } => {
                if !self.open_calls.remove(tool_call_id) {
                    return Err(format!(
                        "TOOL_CALL_END for {tool_call_id}, which is not open"
                    ));
                }
                self.ended_calls.insert(tool_call_id.clone());
            }
            AgUiEvent::ToolCallResult { tool_call_id, .. } => {
                if !self.ended_calls.contains(tool_call_id) {
                    return Err(format!(
                        "TOOL_CALL_RESULT for {tool_call_id} before its TOOL_CALL_END"
                    ));
                }
                if !self.answered_calls.insert(tool_call_id.clone()) {
                    return Err(format!("a second TOOL_CALL_RESULT for {tool_call_id}"));
                }
            }
            AgUiEvent::StateSnapshot { .. }
            | AgUiEvent::StateDelta { .. }
            | AgUiEvent::Custom { .. } => {}
        }
        Ok(())
    }

    /// Checks a whole run's events: each in order, and the run ended.
    pub fn check_run(events: &[AgUiEvent]) -> Result<(), String> {
        let mut order = EventOrder::default();
        for (i, ev) in events.iter().enumerate() {
            order.check(ev).map_err(|e| format!("event {i}: {e}"))?;
        }
        if !order.ended {
            return Err("the run never ended (no RUN_FINISHED or RUN_ERROR)".into());
        }
        if order.answered_calls.len() != order.ended_calls.len() {
            return Err("a tool call got no TOOL_CALL_RESULT".into());
        }
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use serde_json::json;

    fn start() -> AgUiEvent {
        AgUiEvent::RunStarted {
            thread_id: "t".into(),
            run_id: "r".into(),
        }
    }
    fn finish() -> AgUiEvent {
        AgUiEvent::RunFinished {
            thread_id: "t".into(),
            run_id: "r".into(),
            result: None,
            outcome: None,
        }
    }

    #[test]
    fn serializes_as_camel_case_with_type_tag() {
        let ev = AgUiEvent::ToolCallStart {
            tool_call_id: "c".into(),
            tool_call_name: "ls".into(),
            parent_message_id: Some("m".into()),
        };
        assert_eq!(
            serde_json::to_value(&ev).unwrap(),
            json!({"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "ls", "parentMessageId": "m"})
        );
        let back: AgUiEvent = serde_json::from_value(
            json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "hi"}),
        )
        .unwrap();
        assert_eq!(
            back,
            AgUiEvent::TextMessageContent {
                message_id: "m".into(),
                delta: "hi".into()
            }
        );
        assert_eq!(serde_json::to_value(start()).unwrap()["threadId"], "t");
    }

    #[test]
    fn accepts_a_well_formed_run() {
        let m = || "m".to_string();
        let c = || "c".to_string();
        let events = vec![
            start(),
            AgUiEvent::StepStarted {
                step_name: "step 1".into(),
            },
            AgUiEvent::TextMessageStart {
                message_id: m(),
                role: "assistant".into(),
            },
            AgUiEvent::TextMessageContent {
                message_id: m(),
                delta: "x".into(),
            },
            AgUiEvent::ToolCallStart {
                tool_call_id: c(),
                tool_call_name: "ls".into(),
                parent_message_id: Some(m()),
            },
            AgUiEvent::ToolCallArgs {
                tool_call_id: c(),
                delta: "{}".into(),
            },
            AgUiEvent::ToolCallEnd { tool_call_id: c() },
            AgUiEvent::TextMessageEnd { message_id: m() },
            AgUiEvent::ToolCallResult {
                message_id: "r1".into(),
                tool_call_id: c(),
                content: "[]".into(),
                role: Some("tool".into()),
            },
            AgUiEvent::StepFinished {
                step_name: "step 1".into(),
            },
            finish(),
        ];
        EventOrder::check_run(&events).unwrap();
    }

    #[test]
    fn rejects_broken_orders() {
        let m = || "m".to_string();
        let bad: Vec<Vec<AgUiEvent>> = vec![
            vec![AgUiEvent::StepStarted {
                step_name: "s".into(),
            }],
            vec![
                start(),
                AgUiEvent::TextMessageContent {
                    message_id: m(),
                    delta: "x".into(),
                },
            ],
            vec![
                start(),
                AgUiEvent::TextMessageStart {
                    message_id: m(),
                    role: "assistant".into(),
                },
                finish(),
            ],
            vec![
                start(),
                AgUiEvent::RunError {
                    message: "x".into(),
                    code: None,
                },
                finish(),
            ],
            vec![
                start(),
                AgUiEvent::ToolCallStart {
                    tool_call_id: "c".into(),
                    tool_call_name: "ls".into(),
                    parent_message_id: None,
                },
                AgUiEvent::ToolCallResult {
                    message_id: "r".into(),
                    tool_call_id: "c".into(),
                    content: String::new(),
                    role: None,
                },
            ],
            vec![
                start(),
                AgUiEvent::StepStarted {
                    step_name: "a".into(),
                },
                AgUiEvent::StepFinished {
                    step_name: "b".into(),
                },
            ],
            vec![start()],
        ];
        for events in bad {
            assert!(
                EventOrder::check_run(&events).is_err(),
                "accepted {events:?}"
            );
        }
    }
}
