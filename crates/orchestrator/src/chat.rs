//! The chat scene's workflow (issue 16): a small pure state machine, kept
//! in the child's session ([`crate::guardrails::Session::chat`]) and stored
//! after every request like the other scenes' states.
//!
//! - `idle`: nothing asked, nothing waiting;
//! - `clarify`: the child said something too vague to act on (a word or
//!   two the router could only call chat with LOW confidence); one question
//!   was asked, and what was said is remembered: the next reply is routed
//!   again together with it ([`ChatStep::to_route`]);
//! - `handoff_wait`: the request went to the companion (the lead agent;
//!   the response says `needs_model` and the window opens the chat) and
//!   waits until the chat reports back ([`ChatEvent::Answered`]) or the
//!   child says something else.
//!
//! Pure: no clock, no I/O; the entry stores the session.

use serde::{Deserialize, Serialize};

use crate::router::{Confidence, Intent, Routed};

/// Where the chat scene is.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "step", rename_all = "snake_case")]
pub enum ChatStep {
    #[default]
    Idle,
    /// A question was asked about `said`, the vague words.
    Clarify { said: String },
    /// `request` was handed to the companion.
    HandoffWait { request: String },
}

/// What happened to the chat scene.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChatEvent<'a> {
    /// Words too vague to act on.
    Vague(&'a str),
    /// A request for the companion, handed off.
    Handoff(&'a str),
    /// The chat reported back: the companion answered.
    Answered,
    /// The child is elsewhere now, or nothing could be handed off
    /// (no model): nothing is waiting.
    Left,
}

impl ChatStep {
    /// The step's name, for responses and traces.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Idle => "idle",
            Self::Clarify { .. } => "clarify",
            Self::HandoffWait { .. } => "handoff_wait",
        }
    }

    /// The next step after `event`. An answer with nothing waiting changes
    /// nothing.
    pub fn apply(&self, event: ChatEvent<'_>) -> Self {
        match (self, event) {
            (Self::Clarify { said }, ChatEvent::Vague(w)) => Self::Clarify {
                said: format!("{said} {w}").trim().to_string(),
            },
            (_, ChatEvent::Vague(w)) => Self::Clarify {
                said: w.trim().to_string(),
            },
            (_, ChatEvent::Handoff(w)) => Self::HandoffWait {
                request: w.trim().to_string(),
            },
            (Self::HandoffWait { .. }, ChatEvent::Answered) | (_, ChatEvent::Left) => Self::Idle,
            (other, ChatEvent::Answered) => other.clone(),
        }
    }

    /// The words to route for `text` said in this step: a reply to the
    /// clarifying question is routed together with what it clarifies.
    pub fn to_route(&self, text: &str) -> String {
        match self {
            Self::Clarify { said } => format!("{said} {}", text.trim()),
            _ => text.to_string(),
        }
    }
}

/// At most this many characters (hanzi or letters, no spaces) is a word or
/// two: too little to act on when nothing else fits.
pub const VAGUE_CHARS: usize = 3;

/// Words the router could only call chat (or going on) with LOW
/// confidence, so short and not a question that the companion could not
/// know what is meant: 嗯, 那个, 我想, "um".
pub fn is_vague(text: &str, routed: &Routed) -> bool {
    let t = text.trim();
    let asking = t.ends_with(['?', '？', '吗', '呢']);
    let chars = t
        .chars()
        .filter(|c| c.is_alphanumeric() && !c.is_ascii_digit())
        .count();
    matches!(routed.intent, Intent::Chat | Intent::ContinueCurrent)
        && routed.confidence == Confidence::Low
        && !asking
        && chars > 0
        && chars <= VAGUE_CHARS
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clarify(s: &str) -> ChatStep {
        ChatStep::Clarify { said: s.into() }
    }
    fn waiting(s: &str) -> ChatStep {
        ChatStep::HandoffWait { request: s.into() }
    }

    #[test]
    fn every_step_and_event() {
        use ChatEvent::*;
        let table: Vec<(ChatStep, ChatEvent, ChatStep)> = vec![
            (ChatStep::Idle, Vague("嗯"), clarify("嗯")),
            (
                ChatStep::Idle,
                Handoff("月亮上有兔子吗"),
                waiting("月亮上有兔子吗"),
            ),
            (ChatStep::Idle, Answered, ChatStep::Idle),
            (ChatStep::Idle, Left, ChatStep::Idle),
            (clarify("嗯"), Vague("那个"), clarify("嗯 那个")),
            (
                clarify("我想"),
                Handoff("我想 讲个故事"),
                waiting("我想 讲个故事"),
            ),
            (clarify("嗯"), Answered, clarify("嗯")),
            (clarify("嗯"), Left, ChatStep::Idle),
            (waiting("讲故事"), Vague("嗯"), clarify("嗯")),
            (waiting("讲故事"), Handoff("再讲一个"), waiting("再讲一个")),
            (waiting("讲故事"), Answered, ChatStep::Idle),
            (waiting("讲故事"), Left, ChatStep::Idle),
        ];
        for (from, event, to) in table {
            assert_eq!(from.apply(event), to, "{from:?} + {event:?}");
        }
    }

    #[test]
    fn a_reply_to_the_question_is_routed_with_what_it_clarifies() {
        assert_eq!(clarify("我想").to_route("背静夜思"), "我想 背静夜思");
        assert_eq!(ChatStep::Idle.to_route("背静夜思"), "背静夜思");
        assert_eq!(waiting("x").to_route("嗯"), "嗯");
        let json = serde_json::to_string(&clarify("嗯")).unwrap();
        assert_eq!(json, r#"{"step":"clarify","said":"嗯"}"#);
        assert_eq!(
            serde_json::from_str::<ChatStep>(&json).unwrap(),
            clarify("嗯")
        );
    }

    #[test]
    fn what_is_vague() {
        let low = |intent| Routed {
            intent,
            confidence: Confidence::Low,
            material_id: None,
            material_title: None,
            reason: "test",
        };
        let cases = [
            ("嗯", low(Intent::Chat), true),
            ("那个", low(Intent::Chat), true),
            ("um", low(Intent::Chat), true),
            ("好的", low(Intent::ContinueCurrent), true),
            ("啥呢", low(Intent::Chat), false),
            ("月亮上有兔子吗", low(Intent::Chat), false),
            ("给我讲个故事", low(Intent::Chat), false),
            ("不背了", low(Intent::ExitCurrent), false),
            ("   ", low(Intent::Chat), false),
        ];
        for (text, routed, vague) in cases {
            assert_eq!(is_vague(text, &routed), vague, "{text}");
        }
        let high = Routed {
            confidence: Confidence::High,
            ..low(Intent::Chat)
        };
        assert!(!is_vague("聊天", &high));
    }
}
