//! How the entry routes what the child gave it: the router's rules (a
//! photo goes to homework at once), the intent model's second opinion on
//! what the rules are not sure of — asked on a thread of its own, cut at
//! its limit — and the guardrails' decision. [`judge`] is the one place a
//! logged input is routed and decided, for [`super::Entry::process`] and
//! for the replay of a trace alike.

use std::sync::Arc;
use std::time::Duration;

use crate::guardrails::{decide, Decided, Decision, Session};
use crate::intent_model::{classification, Ask, IntentModel};
use crate::router::{route, Catalog, Confidence, Intent, Routed, Scene};
use crate::trace::Spans;

use super::{Pressed, PHOTO_MARK};

/// How much longer than the router's limit the entry waits for the model's
/// thread: the call is cut at the limit there, and counted before it answers.
const CALL_GRACE: Duration = Duration::from_millis(500);

/// The router, or for photos (logged with [`PHOTO_MARK`]) homework at once.
fn route_input(text: &str, scene: Option<Scene>, catalog: &Catalog) -> crate::router::Routed {
    if text.starts_with(PHOTO_MARK) {
        return crate::router::Routed {
            intent: Intent::Homework,
            confidence: Confidence::High,
            material_id: None,
            material_title: None,
            reason: "a photo of homework",
        };
    }
    route(text, scene, catalog)
}

/// Asks `model` to classify `ask`, waiting at most `ask.limit` (the call
/// runs on a thread of its own; a late one is left to end by itself), as a
/// `model.call` span of the request: the reply, if any, and the
/// classification read from it or why there is none.
pub(super) fn ask_model(
    spans: &Spans,
    model: &Arc<dyn IntentModel>,
    ask: &Ask,
    catalog: &Catalog,
) -> (
    Option<String>,
    Result<crate::intent_model::Classified, String>,
) {
    let mut span = spans.open("model.call");
    span.attr("model", model.name()).attr("purpose", "route");
    let (tx, rx) = std::sync::mpsc::channel();
    let (m, a) = (model.clone(), ask.clone());
    let spawned = std::thread::Builder::new()
        .name("intent-model".into())
        .spawn(move || {
            let _ = tx.send(m.classify(&a));
        });
    let reply = match spawned {
        Err(e) => Err(format!("no thread for the call: {e}")),
        // The model's own call is cut at the limit (and a cut call is
        // counted as the child's, on the call's thread, before it answers
        // here); this wait is a little longer, so it hears that answer —
        // it only gives up on a model that does not keep to the limit.
        Ok(_) => match rx.recv_timeout(ask.limit + CALL_GRACE) {
            Ok(r) => r,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                Err(format!("no answer within {} ms", ask.limit.as_millis()))
            }
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                Err("the call ended without an answer".into())
            }
        },
    };
    let classified = reply
        .as_ref()
        .map_err(Clone::clone)
        .and_then(|raw| classification(raw, catalog));
    match &classified {
        Ok(c) => {
            span.attr("intent", c.intent.as_str())
                .attr("confidence", format!("{:?}", c.confidence).to_lowercase());
            if let Some(m) = &c.material_dropped {
                span.attr("material_dropped", m.as_str());
            }
            span.ok();
        }
        Err(why) => {
            span.attr("error", why.as_str());
            span.fail("router.model_unavailable");
        }
    }
    (reply.ok(), classified)
}

/// What the entry makes of a logged input in the session it came in:
/// routed and decided the same way by [`Entry::process`] and the replay.
pub(super) struct Judged {
    pub(super) routed: Routed,
    pub(super) decided: Decided,
    /// The words routed: a button's words, or a reply to the chat's
    /// question together with what it clarifies.
    pub(super) words: String,
    /// A button that means nothing where the child is.
    pub(super) unmeant: bool,
}

/// A second opinion on what the rules were not sure of: given the words,
/// the scene and the offline result, the model's classification in its
/// place (or `None`: the offline result stands).
pub(super) type SecondOpinion<'a> =
    &'a mut dyn FnMut(&str, Option<Scene>, &Routed) -> Option<Routed>;

pub(super) fn judge(
    before: &Session,
    input: &str,
    catalog: &Catalog,
    now: i64,
    second: SecondOpinion<'_>,
) -> Judged {
    let scene = Some(before.active).filter(|s| *s != Scene::Chat);
    if let Some(pressed) = Pressed::from_logged(input) {
        let Some(words) = pressed.words(before) else {
            return Judged {
                routed: Routed {
                    intent: Intent::ContinueCurrent,
                    confidence: Confidence::Low,
                    material_id: None,
                    material_title: None,
                    reason: "a button that means nothing here",
                },
                decided: Decided {
                    decision: Decision::Continue,
                    reason: "a button that means nothing in this scene",
                    session: before.clone(),
                },
                words: input.to_string(),
                unmeant: true,
            };
        };
        let routed = Routed {
            confidence: Confidence::High,
            reason: "a button pressed",
            ..route(words, scene, catalog)
        };
        let decided = decide(before, words, &routed, now);
        return Judged {
            routed,
            decided,
            words: words.to_string(),
            unmeant: false,
        };
    }
    let words = if before.active == Scene::Chat && !input.starts_with(PHOTO_MARK) {
        before.chat.to_route(input)
    } else {
        input.to_string()
    };
    let mut routed = route_input(&words, scene, catalog);
    let said = words.trim().chars().count();
    if routed.confidence != Confidence::High
        && !crate::chat::is_vague(&words, &routed)
        && !crate::guardrails::answers_pending(before, &words)
        && (1..=crate::guardrails::MAX_INPUT_CHARS).contains(&said)
    {
        if let Some(r) = second(&words, scene, &routed) {
            routed = r;
        }
    }
    let decided = decide(before, &words, &routed, now);
    Judged {
        routed,
        decided,
        words,
        unmeant: false,
    }
}
