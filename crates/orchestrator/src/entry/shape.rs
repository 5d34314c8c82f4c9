//! What a response tells a front end beyond its words (the design's unified
//! response): the scene's `phase`, whether to read the answer aloud
//! (`need_tts`), the lamp's cues (a face, a gesture, a card on the
//! projector) and the one-tap replies the child may give next. Worked out
//! once here from the response and the session, so the window, the CLI, the
//! lamp and the HTTP API all do the same.

use deskmate_protocol::lamp::{Card, Expression, Gesture};
use serde::Serialize;

use super::Response;
use crate::guardrails::{Decision, Session};
use crate::router::Scene;

/// One thing the lamp does for a response.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "do", rename_all = "snake_case")]
pub enum LampCue {
    /// A face on the LCD.
    Face { expression: Expression },
    /// A movement of the arm.
    Gesture { gesture: Gesture },
    /// A card on the projector.
    Show { card: Card },
}

/// A reply the child can give with one tap: a button the entry understands
/// (`screen:yes`) or words it routes like typed ones.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Suggestion {
    pub label_zh: String,
    pub label_en: String,
    /// A button (`screen:yes`, `screen:no`, `screen:next`), or
    pub button: Option<String>,
    /// words to say through the entry.
    pub says: Option<String>,
}

fn button(zh: &str, en: &str, name: &str) -> Suggestion {
    Suggestion {
        label_zh: zh.into(),
        label_en: en.into(),
        button: Some(format!("screen:{name}")),
        says: None,
    }
}

fn words(zh: &str, en: &str, says: &str) -> Suggestion {
    Suggestion {
        label_zh: zh.into(),
        label_en: en.into(),
        button: None,
        says: Some(says.into()),
    }
}

fn face(expression: Expression) -> LampCue {
    LampCue::Face { expression }
}

/// The scene's phase after the request: the chat's step, the practice's
/// state, the homework walk's step, or the plan shown.
fn phase(r: &Response, session: &Session) -> String {
    match r.scene {
        Scene::Chat => session.chat.name().into(),
        Scene::Recite => r
            .practice
            .as_ref()
            .and_then(|p| serde_json::to_value(&p.state).ok())
            .and_then(|v| v.get("state").and_then(|s| s.as_str()).map(String::from))
            .unwrap_or_else(|| "idle".into()),
        Scene::Homework => r
            .homework
            .as_ref()
            .map(|c| c.step.clone())
            .unwrap_or_else(|| "idle".into()),
        Scene::Plan => if r.plan.is_some() { "today" } else { "idle" }.into(),
    }
}

fn lamp(r: &Response) -> Vec<LampCue> {
    if r.error.is_some() {
        return vec![face(Expression::Encourage)];
    }
    match &r.decision {
        Decision::AskSwitch { .. } => return vec![face(Expression::Thinking)],
        Decision::Reject { .. } => return vec![face(Expression::Encourage)],
        Decision::Exit => {
            return vec![
                face(Expression::Happy),
                LampCue::Gesture {
                    gesture: Gesture::Wave,
                },
            ]
        }
        Decision::Continue | Decision::Switch { .. } => {}
    }
    if r.handoff {
        return vec![face(Expression::Thinking)];
    }
    match r.scene {
        Scene::Recite if r.practice.is_some() => vec![
            face(Expression::Happy),
            LampCue::Gesture {
                gesture: Gesture::Nod,
            },
        ],
        Scene::Plan => match &r.plan {
            Some(plan) => vec![
                face(Expression::Happy),
                LampCue::Show {
                    card: Card {
                        title: "今天的计划".into(),
                        lines: plan
                            .tasks
                            .iter()
                            .take(6)
                            .map(|t| format!("{} {}", if t.done { "✓" } else { "○" }, t.text_zh))
                            .collect(),
                    },
                },
            ],
            None => vec![face(Expression::Happy)],
        },
        Scene::Homework => match &r.homework {
            Some(c) if c.step == "mistake" || c.step == "redo" => vec![face(Expression::Encourage)],
            Some(c) if c.step == "summary" && c.total > 0 && c.mistakes == 0 => vec![
                face(Expression::Happy),
                LampCue::Gesture {
                    gesture: Gesture::Celebrate,
                },
            ],
            _ => vec![face(Expression::Happy)],
        },
        _ => vec![face(Expression::Happy)],
    }
}

fn suggestions(r: &Response, session: &Session) -> Vec<Suggestion> {
    if r.error.is_some() {
        return Vec::new();
    }
    if let Decision::AskSwitch { .. } = r.decision {
        return vec![
            button("好的", "Yes", "yes"),
            button("不用了", "No, thanks", "no"),
        ];
    }
    match r.scene {
        Scene::Homework => match r.homework.as_ref().map(|c| c.step.as_str()) {
            Some("mistake") | Some("redo") => vec![
                words("再给个提示", "Another hint", "再给个提示"),
                words("我懂了", "I get it", "我懂了"),
                button("下一题", "Next one", "next"),
            ],
            _ => Vec::new(),
        },
        Scene::Plan
            if r.plan
                .as_ref()
                .is_some_and(|p| p.tasks.iter().any(|t| !t.done)) =>
        {
            vec![button("下一个", "Next", "next")]
        }
        Scene::Chat if matches!(session.chat, crate::chat::ChatStep::Clarify { .. }) => vec![
            words("背诗", "Recite", "我要背诗"),
            words("今天的计划", "Today's plan", "今天做什么"),
            words("问作业", "Homework", "我要做作业"),
        ],
        _ => Vec::new(),
    }
}

/// Fills in the response's phase, `need_tts`, lamp cues and suggestions;
/// `spoken`: the child spoke or pressed a lamp button (no screen to read).
pub(super) fn shape(r: &mut Response, session: &Session, spoken: bool) {
    r.session_id = session.id.clone();
    r.phase = phase(r, session);
    r.need_tts = spoken && !r.text_zh.is_empty();
    r.lamp = lamp(r);
    r.suggestions = suggestions(r, session);
}
