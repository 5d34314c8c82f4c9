//! Guardrails: the router only classifies ([`crate::router`]); this decides.
//! Given the child's session (the active scene, a switch waiting for a yes)
//! and what the router made of the words, [`decide`] returns one of
//! `continue`, `switch`, `ask to switch`, `exit` or `reject`, the reason,
//! and the session as it is afterwards. Pure: no clock of its own, no I/O —
//! the caller stores the session and logs the decision.
//!
//! The rules (Realmagic's orchestrator, as issue 16 asks):
//! - input checks first: nothing said, or far too much, is rejected;
//! - a switch waiting for an answer is settled by the next reply: yes (好的,
//!   对, "yes", going on) switches, no (不要, 不用, "no") stays; any other
//!   reply ages it, and it lapses after [`PENDING_TURNS`] replies or
//!   [`PENDING_MINUTES`] minutes;
//! - `exit_current` leaves for chat; `continue_current` goes on with the
//!   scene (in chat, it is just chat);
//! - another scene with HIGH confidence switches at once, and the scene left
//!   is remembered to come back to; with MID it asks first and holds the
//!   switch; LOW never switches;
//! - only this changes the active scene; a scene's own state is its
//!   workflow's.

use serde::{Deserialize, Serialize};

use crate::chat::ChatStep;
use crate::router::{Confidence, Intent, Routed, Scene};

/// Replies after which an unanswered switch lapses.
pub const PENDING_TURNS: u32 = 2;
/// Minutes after which an unanswered switch lapses.
pub const PENDING_MINUTES: i64 = 5;
/// More than this many characters is not something a child said.
pub const MAX_INPUT_CHARS: usize = 500;

/// A switch asked about and not answered yet.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PendingSwitch {
    pub to: Scene,
    /// The material meant, if the router found one.
    pub material_id: Option<String>,
    /// When it was asked (Unix seconds).
    pub asked_at: i64,
    /// Replies since it was asked.
    pub turns: u32,
}

/// The child's session as the guardrails see it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Session {
    /// This session's id: new when a child's session starts (first use,
    /// a new local day, a damaged one started again).
    #[serde(default)]
    pub id: String,
    pub active: Scene,
    pub pending: Option<PendingSwitch>,
    /// The scene left by a switch, to come back to.
    pub left: Option<Scene>,
    /// The chat scene's own step ([`crate::chat`]); changed only by its
    /// workflow, never by [`decide`].
    #[serde(default)]
    pub chat: ChatStep,
}

impl Default for Session {
    fn default() -> Self {
        Self {
            id: String::new(),
            active: Scene::Chat,
            pending: None,
            left: None,
            chat: ChatStep::Idle,
        }
    }
}

/// What happens with what the child said.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum Decision {
    /// The active scene handles it.
    Continue,
    /// Into another scene now.
    Switch {
        to: Scene,
        material_id: Option<String>,
    },
    /// Ask first ("要去背《静夜思》吗？"); the switch waits for the answer.
    AskSwitch {
        to: Scene,
        material_id: Option<String>,
    },
    /// Back to chat.
    Exit,
    /// Not handled at all; the reason is said to the child.
    Reject { reason: String },
}

/// A decision with why, for the trace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Decided {
    pub decision: Decision,
    pub reason: &'static str,
    pub session: Session,
}

fn scene_of(intent: Intent) -> Option<Scene> {
    match intent {
        Intent::Chat => Some(Scene::Chat),
        Intent::Recite => Some(Scene::Recite),
        Intent::Homework => Some(Scene::Homework),
        Intent::Plan => Some(Scene::Plan),
        Intent::ContinueCurrent | Intent::ExitCurrent => None,
    }
}

const YES: &[&str] = &[
    "好的", "好", "好啊", "对", "是的", "要", "嗯", "可以", "行", "yes", "ok", "okay", "sure",
    "yeah",
];
const NO: &[&str] = &[
    "不要", "不用", "不了", "不去", "不想", "算了", "no", "nope", "not now",
];

fn reply_is(text: &str, words: &[&str]) -> bool {
    let t = text
        .trim()
        .trim_end_matches(|c: char| c.is_ascii_punctuation() || "。！？，吧呀啊".contains(c))
        .to_lowercase();
    words
        .iter()
        .any(|w| t == *w || (w.chars().count() >= 2 && t.starts_with(w)))
}

/// Whether `text` answers the switch `session` waits on (yes or no): a
/// scene-local reply, decided without asking a model.
pub fn answers_pending(session: &Session, text: &str) -> bool {
    session.pending.is_some() && (reply_is(text, YES) || reply_is(text, NO))
}

/// Decides what to do with `text`, which the router made `routed` of, for a
/// child in `session` at `now` (Unix seconds). See the module comment.
pub fn decide(session: &Session, text: &str, routed: &Routed, now: i64) -> Decided {
    let mut next = session.clone();
    let done = |decision, reason, session| Decided {
        decision,
        reason,
        session,
    };
    let chars = text.trim().chars().count();
    if chars == 0 {
        return done(
            Decision::Reject {
                reason: "nothing was said".into(),
            },
            "empty input",
            next,
        );
    }
    if chars > MAX_INPUT_CHARS {
        return done(
            Decision::Reject {
                reason: format!(
                    "that is too long to be said ({chars} characters; at most {MAX_INPUT_CHARS})"
                ),
            },
            "input too long",
            next,
        );
    }
    if let Some(p) = next.pending.take() {
        let lapsed = now - p.asked_at > PENDING_MINUTES * 60;
        if !lapsed {
            if reply_is(text, YES) || routed.intent == Intent::ContinueCurrent {
                next.left = Some(next.active).filter(|s| *s != p.to && *s != Scene::Chat);
                next.active = p.to;
                return done(
                    Decision::Switch {
                        to: p.to,
                        material_id: p.material_id,
                    },
                    "the switch asked about was accepted",
                    next,
                );
            }
            if reply_is(text, NO) {
                return done(
                    Decision::Continue,
                    "the switch asked about was declined",
                    next,
                );
            }
            if p.turns + 1 < PENDING_TURNS {
                next.pending = Some(PendingSwitch {
                    turns: p.turns + 1,
                    ..p
                });
            }
        }
        // Lapsed, or a reply that is neither yes nor no: judged on its own below.
    }
    match routed.intent {
        Intent::ExitCurrent => {
            if next.active == Scene::Chat {
                return done(
                    Decision::Continue,
                    "nothing to leave: already chatting",
                    next,
                );
            }
            next.active = Scene::Chat;
            next.pending = None;
            return done(Decision::Exit, "asked to leave the scene", next);
        }
        Intent::ContinueCurrent => {
            return done(Decision::Continue, "going on with the scene", next);
        }
        _ => {}
    }
    let Some(to) = scene_of(routed.intent) else {
        return done(Decision::Continue, "no scene named", next);
    };
    if to == next.active {
        return done(Decision::Continue, "already in that scene", next);
    }
    match routed.confidence {
        Confidence::High => {
            next.left = Some(next.active).filter(|s| *s != Scene::Chat);
            next.active = to;
            next.pending = None;
            done(
                Decision::Switch {
                    to,
                    material_id: routed.material_id.clone(),
                },
                "another scene, clearly asked for",
                next,
            )
        }
        Confidence::Mid => {
            next.pending = Some(PendingSwitch {
                to,
                material_id: routed.material_id.clone(),
                asked_at: now,
                turns: 0,
            });
            done(
                Decision::AskSwitch {
                    to,
                    material_id: routed.material_id.clone(),
                },
                "another scene, maybe: ask first",
                next,
            )
        }
        Confidence::Low => done(
            Decision::Continue,
            "not sure enough to leave the scene",
            next,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn routed(intent: Intent, confidence: Confidence) -> Routed {
        Routed {
            intent,
            confidence,
            material_id: (intent == Intent::Recite).then(|| "jing-ye-si".to_string()),
            material_title: None,
            reason: "test",
        }
    }

    fn in_scene(active: Scene) -> Session {
        Session {
            active,
            ..Session::default()
        }
    }

    const T0: i64 = 1_790_000_000;

    /// Every scene × intent × confidence, with no switch pending: the
    /// decision and the scene afterwards.
    #[test]
    fn the_whole_table_without_a_pending_switch() {
        use Confidence::*;
        use Scene::*;
        let scenes = [Chat, Recite, Homework, Plan];
        for active in scenes {
            for intent in Intent::ALL {
                for confidence in [Low, Mid, High] {
                    let d = decide(&in_scene(active), "话", &routed(intent, confidence), T0);
                    let target = scene_of(intent);
                    let (want, after): (&str, Scene) = match (intent, target) {
                        (Intent::ExitCurrent, _) if active == Chat => ("continue", Chat),
                        (Intent::ExitCurrent, _) => ("exit", Chat),
                        (Intent::ContinueCurrent, _) => ("continue", active),
                        (_, Some(t)) if t == active => ("continue", active),
                        (_, Some(t)) if confidence == High => ("switch", t),
                        (_, Some(_)) if confidence == Mid => ("ask", active),
                        _ => ("continue", active),
                    };
                    let got = match &d.decision {
                        Decision::Continue => "continue",
                        Decision::Switch { .. } => "switch",
                        Decision::AskSwitch { .. } => "ask",
                        Decision::Exit => "exit",
                        Decision::Reject { .. } => "reject",
                    };
                    assert_eq!(
                        (got, d.session.active),
                        (want, after),
                        "{active:?} × {intent:?} × {confidence:?}: {}",
                        d.reason
                    );
                    assert_eq!(d.session.pending.is_some(), want == "ask");
                }
            }
        }
    }

    #[test]
    fn a_mid_switch_waits_for_yes_or_no_and_lapses() {
        let asked = decide(
            &in_scene(Scene::Homework),
            "静夜思",
            &routed(Intent::Recite, Confidence::Mid),
            T0,
        );
        assert_eq!(
            asked.decision,
            Decision::AskSwitch {
                to: Scene::Recite,
                material_id: Some("jing-ye-si".into())
            }
        );
        // Yes: into the recitation, the homework remembered to come back to.
        let yes = decide(
            &asked.session,
            "好的",
            &routed(Intent::Chat, Confidence::Low),
            T0 + 10,
        );
        assert_eq!(
            yes.decision,
            Decision::Switch {
                to: Scene::Recite,
                material_id: Some("jing-ye-si".into())
            }
        );
        assert_eq!(
            (yes.session.active, yes.session.left),
            (Scene::Recite, Some(Scene::Homework))
        );
        // No: the homework goes on, nothing waits any more.
        let no = decide(
            &asked.session,
            "不要",
            &routed(Intent::Chat, Confidence::Low),
            T0 + 10,
        );
        assert_eq!(
            (no.decision, no.session.active, no.session.pending),
            (Decision::Continue, Scene::Homework, None)
        );
        // Other replies age it; after PENDING_TURNS it is gone.
        let mut s = asked.session.clone();
        for turn in 0..PENDING_TURNS {
            assert!(s.pending.is_some(), "still waiting at reply {turn}");
            s = decide(
                &s,
                "这道题怎么做",
                &routed(Intent::Homework, Confidence::High),
                T0 + 20,
            )
            .session;
        }
        assert_eq!(s.pending, None);
        // After PENDING_MINUTES a yes is just a yes: nothing switches.
        let late = decide(
            &asked.session,
            "好的",
            &routed(Intent::ContinueCurrent, Confidence::High),
            T0 + PENDING_MINUTES * 60 + 1,
        );
        assert_eq!(
            (late.decision, late.session.active),
            (Decision::Continue, Scene::Homework)
        );
    }

    #[test]
    fn bad_input_is_rejected_and_changes_nothing() {
        let s = in_scene(Scene::Recite);
        for text in ["", "   ", &"字".repeat(MAX_INPUT_CHARS + 1)] {
            let d = decide(&s, text, &routed(Intent::Homework, Confidence::High), T0);
            assert!(matches!(d.decision, Decision::Reject { .. }), "{text:?}");
            assert_eq!(d.session, s);
        }
    }

    fn any_scene() -> impl Strategy<Value = Scene> {
        prop_oneof![
            Just(Scene::Chat),
            Just(Scene::Recite),
            Just(Scene::Homework),
            Just(Scene::Plan)
        ]
    }

    fn any_intent() -> impl Strategy<Value = Intent> {
        (0usize..6).prop_map(|i| Intent::ALL[i])
    }

    fn any_confidence() -> impl Strategy<Value = Confidence> {
        prop_oneof![
            Just(Confidence::Low),
            Just(Confidence::Mid),
            Just(Confidence::High)
        ]
    }

    proptest! {
        /// Over any conversation: LOW never moves the child; the scene only
        /// changes by a switch or an exit; an exit lands in chat; a pending
        /// switch never outlives its turns.
        #[test]
        fn any_conversation_keeps_the_invariants(
            start in any_scene(),
            replies in proptest::collection::vec((any_intent(), any_confidence(), 0u8..4, 0i64..200), 1..40),
        ) {
            let mut s = in_scene(start);
            let mut now = T0;
            for (intent, confidence, say, wait) in replies {
                now += wait;
                let text = ["话", "好的", "不要", "再来"][usize::from(say)];
                let before = s.clone();
                let d = decide(&s, text, &routed(intent, confidence), now);
                match &d.decision {
                    Decision::Switch { to, .. } => prop_assert_eq!(d.session.active, *to),
                    Decision::Exit => prop_assert_eq!(d.session.active, Scene::Chat),
                    _ => prop_assert_eq!(d.session.active, before.active),
                }
                if confidence == Confidence::Low && before.pending.is_none() {
                    let moved = matches!(d.decision, Decision::Switch { .. } | Decision::AskSwitch { .. });
                    prop_assert!(!moved, "a LOW intent moved the child: {:?}", d.decision);
                }
                if let Some(p) = &d.session.pending {
                    prop_assert!(p.turns < PENDING_TURNS);
                    prop_assert!(now - p.asked_at <= PENDING_MINUTES * 60);
                }
                s = d.session;
            }
        }
    }
}
