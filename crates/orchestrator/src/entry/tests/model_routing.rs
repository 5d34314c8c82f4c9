//! The entry's routing with a model (the scripted model server on
//! loopback): a classification taken and replayed without a model, a
//! malformed or unknown answer, a hanging model left at its limit.

use super::*;
use crate::intent_model::{LlmIntentModel, FUNCTION};
use deskmate_llm::scripted::{openai, Frame, Reply, ScriptedServer};
use deskmate_llm::{LlmClient, LlmConfig, ModelSpec};
use std::time::Duration;

const LIMIT: Duration = Duration::from_millis(400);

fn model(server: &ScriptedServer) -> Arc<LlmIntentModel> {
    let mut config = LlmConfig::new(ModelSpec::parse("openai:gpt-4o-mini").unwrap());
    config.base_url = Some(server.base_url());
    Arc::new(LlmIntentModel::new(LlmClient::new(config).unwrap()))
}

fn classified(json: &str) -> Reply {
    openai::tool_calls(None, &[("call_route", FUNCTION, json)])
}

fn span<'a>(t: &'a Trace, name: &str) -> &'a crate::trace::Span {
    t.spans
        .iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("no {name} span in {:?}", t.spans))
}

#[test]
fn a_mid_input_the_model_classifies_high_opens_the_poem_and_replays_without_a_model() {
    let f = fixture();
    let server = ScriptedServer::start(vec![classified(
        r#"{"intent": "recite", "confidence": "high", "slots": {"material": "静夜思"}}"#,
    )])
    .unwrap();
    let entry = Entry::new(f.store.clone(), f.scene.clone())
        .with_intent_model(model(&server), Duration::from_secs(3));
    // Offline, the first line alone is MID: it would ask first.
    let offline = route("床前明月光", None, &entry.catalog().unwrap());
    assert_eq!(offline.confidence, Confidence::Mid);
    let r = entry
        .process(&f.child, "床前明月光".into(), at(2, 2), true)
        .unwrap();
    assert_eq!(
        (r.scene, r.intent, r.confidence),
        (Scene::Recite, Intent::Recite, Confidence::High)
    );
    assert_eq!(r.material.map(|m| m.id), Some(f.poem.clone()));
    assert_eq!(r.practice.map(|p| p.material.id), Some(f.poem.clone()));
    // The request asked for the structured classification, with the words.
    let body = &server.requests()[0].body;
    assert_eq!(body["tools"][0]["function"]["name"], FUNCTION, "{body}");
    assert_eq!(
        body["tools"][0]["function"]["parameters"]["required"][0],
        "intent"
    );
    assert!(
        body["messages"].to_string().contains("床前明月光"),
        "{body}"
    );
    // The decision's trace says the model classified it, with its reply.
    let t = entry.trace(&r.trace_id).unwrap();
    let route = span(&t, "route");
    assert_eq!(route.attributes["by"], "model");
    assert!(route.attributes["model_reply"]
        .as_str()
        .unwrap()
        .contains("静夜思"));
    let call = span(&t, "model.call");
    assert_eq!(
        (call.outcome, &call.attributes["purpose"]),
        (crate::trace::Outcome::Ok, &serde_json::json!("route"))
    );
    // Replayed with no model at all: the logged reply stands in, the
    // same decision, and no request reaches a server.
    let offline_entry = Entry::new(f.store.clone(), f.scene.clone());
    let replayed = offline_entry.replay(Some(&f.child)).unwrap();
    assert_eq!(replayed.len(), 1);
    assert!(!replayed[0].changed, "{replayed:#?}");
    assert_eq!(replayed[0].routed_by, RoutedBy::Model);
    assert_eq!(
        replayed[0].decision_now,
        Decision::Switch {
            to: Scene::Recite,
            material_id: Some(f.poem.clone())
        }
    );
    assert_eq!(server.request_count(), 1);
}

#[test]
fn a_malformed_or_unknown_answer_leaves_the_offline_result_with_the_reason() {
    let f = fixture();
    let server = ScriptedServer::start(vec![
        openai::text("好的，这是背诗。"),
        classified(r#"{"intent": "sing", "confidence": "high", "slots": {}}"#),
    ])
    .unwrap();
    let entry = Entry::new(f.store.clone(), f.scene.clone())
        .with_intent_model(model(&server), Duration::from_secs(3));
    for _ in 0..2 {
        let r = entry
            .process(&f.child, "床前明月光".into(), at(2, 2), true)
            .unwrap();
        // The offline MID result: asked first, nothing opened.
        assert_eq!(
            (r.intent, r.confidence, r.scene),
            (Intent::Recite, Confidence::Mid, Scene::Chat)
        );
        assert!(matches!(r.decision, Decision::AskSwitch { .. }), "{r:?}");
        let t = entry.trace(&r.trace_id).unwrap();
        let route = span(&t, "route");
        assert_eq!(route.attributes["by"], "rules");
        let why = route.attributes["fallback"].as_str().unwrap();
        assert!(why.starts_with("model unavailable: "), "{why}");
        assert_eq!(
            span(&t, "model.call").error_code.as_deref(),
            Some("router.model_unavailable")
        );
        // Declined, so the next one is asked afresh.
        entry
            .process(&f.child, "不要".into(), at(2, 2), true)
            .unwrap();
    }
    // "不要" answers the pending switch: never sent to the model.
    assert_eq!(server.request_count(), 2);
    // The replay reads the logged replies the same way: nothing changes.
    let replayed = Entry::new(f.store.clone(), f.scene.clone())
        .replay(Some(&f.child))
        .unwrap();
    assert!(replayed
        .iter()
        .all(|r| !r.changed && r.routed_by == RoutedBy::Rules));
}

#[test]
fn a_hanging_model_is_left_at_the_limit_and_a_high_input_never_asks_it() {
    let f = fixture();
    let server = ScriptedServer::start(vec![Reply::Stream(vec![Frame::Delay(
        Duration::from_secs(20),
    )])])
    .unwrap();
    let entry =
        Entry::new(f.store.clone(), f.scene.clone()).with_intent_model(model(&server), LIMIT);
    let started = Instant::now();
    let r = entry
        .process(&f.child, "想念家乡的那首诗".into(), at(2, 2), true)
        .unwrap();
    let took = started.elapsed();
    assert!(took < LIMIT + Duration::from_millis(1500), "{took:?}");
    assert_eq!((r.intent, r.confidence), (Intent::Chat, Confidence::Low));
    let t = entry.trace(&r.trace_id).unwrap();
    let why = span(&t, "route").attributes["fallback"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(why.contains("no answer within 400 ms"), "{why}");
    assert_eq!(server.request_count(), 1);
    // HIGH offline (and the fast path inside the scene) never calls it.
    for said in ["我要背静夜思", "再来一次", "不背了"] {
        let r = entry
            .process(&f.child, said.into(), at(2, 2), true)
            .unwrap();
        assert_eq!(r.confidence, Confidence::High, "{said}");
        let t = entry.trace(&r.trace_id).unwrap();
        assert!(t.spans.iter().all(|s| s.name != "model.call"), "{said}");
        assert_eq!(span(&t, "route").attributes["by"], "rules");
    }
    assert_eq!(server.request_count(), 1);
}
