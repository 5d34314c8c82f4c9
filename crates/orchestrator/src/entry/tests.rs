//! The one entry's tests: routing, guardrails, pending switches, scenes
//! and the request log, over a real store with the recitation fixture.

use super::*;
use crate::router::route;
use crate::scene::tests::fixture;
use chrono::TimeZone;
use deskmate_recite::Mode;
use deskmate_speech::asr::Lang as AsrLang;
use deskmate_speech::attempt::NotAnAttempt;
use std::path::Path;

fn at(day: u32, hour: u32) -> DateTime<Utc> {
    // Asia/Shanghai is UTC+8: 16:00 UTC is midnight there.
    Utc.with_ymd_and_hms(2026, 3, day, hour, 0, 0).unwrap()
}

#[test]
fn saying_a_poem_opens_it_and_leaving_comes_back_to_chat() {
    let f = fixture();
    let entry = Entry::new(f.store.clone(), f.scene.clone());
    let r = entry
        .process(&f.child, "我要背静夜思".into(), at(2, 2), false)
        .unwrap();
    assert_eq!((r.scene, r.intent), (Scene::Recite, Intent::Recite));
    assert_eq!(
        r.material.as_ref().map(|m| m.id.as_str()),
        Some(f.poem.as_str())
    );
    let p = r.practice.unwrap();
    assert_eq!(
        (p.material.id.as_str(), p.state.name()),
        (f.poem.as_str(), "ready")
    );
    assert!(r.text_zh.contains("《静夜思》"), "{}", r.text_zh);
    let out = entry
        .process(&f.child, "不背了".into(), at(2, 2), false)
        .unwrap();
    assert_eq!((out.scene, out.decision), (Scene::Chat, Decision::Exit));
    // Chat needs a model; without one the child is told who can set it up.
    let chat = entry
        .process(&f.child, "月亮上有兔子吗".into(), at(2, 2), false)
        .unwrap();
    assert!(
        chat.needs_model && chat.text_zh.contains("家长"),
        "{}",
        chat.text_zh
    );
    // Every decision was logged, newest first.
    let logged = entry.decisions(&f.child, 10).unwrap();
    assert_eq!(logged.len(), 3);
    assert_eq!(logged[2].0, "我要背静夜思");
    // Replayed with today's rules, each comes out the same.
    let replayed = entry.replay(Some(&f.child)).unwrap();
    assert_eq!(replayed.len(), 3);
    assert!(replayed.iter().all(|r| !r.changed), "{replayed:#?}");
    assert_eq!(
        replayed[0].decision_now,
        Decision::Switch {
            to: Scene::Recite,
            material_id: Some(f.poem.clone())
        }
    );
    // A decision the rules would now take differently is shown as changed.
    f.store
        .with_conn(|c| {
            c.execute(
                "UPDATE scene_decisions SET intent = 'homework' WHERE input = '不背了'",
                [],
            )?;
            Ok(())
        })
        .unwrap();
    let changed: Vec<_> = entry
        .replay(None)
        .unwrap()
        .into_iter()
        .filter(|r| r.changed)
        .collect();
    assert_eq!(changed.len(), 1);
    assert_eq!(
        (changed[0].input.as_str(), changed[0].intent_now),
        ("不背了", Intent::ExitCurrent)
    );
}

/// Ears that hear what they were told to, or fail as told.
#[derive(Debug)]
struct Told(Result<&'static str, NotAnAttempt>);

impl Hearing for Told {
    fn words(&self, recording: &Path, lang: AsrLang) -> SceneResult<String> {
        assert_eq!(
            lang,
            AsrLang::Zh,
            "a Chinese-speaking child is heard in Chinese"
        );
        assert!(recording.ends_with("said.wav"));
        self.0.map(str::to_string).map_err(SceneError::NotAnAttempt)
    }
}

#[test]
fn a_recording_is_heard_then_routed_like_words() {
    let f = fixture();
    let entry = Entry::new(f.store.clone(), f.scene.clone())
        .with_hearing(Arc::new(Told(Ok("我要背静夜思"))));
    let r = entry
        .process(&f.child, Input::Voice("said.wav".into()), at(2, 2), false)
        .unwrap();
    assert_eq!(r.heard.as_deref(), Some("我要背静夜思"));
    assert_eq!((r.scene, r.intent), (Scene::Recite, Intent::Recite));
    assert_eq!(r.material.map(|m| m.id), Some(f.poem.clone()));
    assert!(r.error.is_none());
    // The trace keeps the words heard, and the hearing as a span.
    let trace = entry.trace(&r.trace_id).unwrap();
    let names: Vec<&str> = trace.spans.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names[..3], ["request", "speech", "route"], "{names:?}");
    assert_eq!(trace.input, "我要背静夜思");
    assert!(
        trace.timings.get("speech_us").is_some(),
        "{}",
        trace.timings
    );
}

#[test]
fn a_recording_with_nothing_heard_is_a_coded_error_and_nothing_is_stored() {
    let f = fixture();
    let deaf = Entry::new(f.store.clone(), f.scene.clone())
        .with_hearing(Arc::new(Told(Err(NotAnAttempt::NothingHeard))));
    let r = deaf
        .process(&f.child, Input::Voice("said.wav".into()), at(2, 2), false)
        .unwrap();
    let e = r.error.unwrap();
    assert_eq!(e.code, "speech.nothing_heard");
    assert!(r.text_zh.contains("没听清楚"), "{}", r.text_zh);
    assert_eq!(r.scene, Scene::Chat);
    assert!(r.heard.is_none() && r.practice.is_none());
    assert!(deaf.decisions(&f.child, 10).unwrap().is_empty());
    // No decision was logged; only its spans, to say why it failed.
    let t = deaf.trace(&r.trace_id).unwrap();
    assert_eq!(t.decision["decision"], "reject");
    assert_eq!(
        t.spans[0].error_code.as_deref(),
        Some("speech.nothing_heard")
    );
    assert!(r.need_tts, "a spoken request is answered aloud");
    // No speech recognition at all: the parent is told what to fetch.
    let none = Entry::new(f.store.clone(), f.scene.clone());
    let r = none
        .process(&f.child, Input::Voice("said.wav".into()), at(2, 2), false)
        .unwrap();
    assert_eq!(r.error.unwrap().code, "models.needed");
    assert!(r.text_zh.contains("语音模型"), "{}", r.text_zh);
    let stored: i64 = f
        .store
        .with_conn(|c| Ok(c.query_row("SELECT count(*) FROM scene_sessions", [], |r| r.get(0))?))
        .unwrap();
    assert_eq!(
        stored, 0,
        "no session was started for a recording never heard"
    );
}

#[test]
fn the_plan_scene_answers_with_the_plan_and_walks_through_it() {
    let f = fixture();
    let chun_xiao = f
        .store
        .materials()
        .add_custom(
            deskmate_store::NewMaterial {
                lang: "zh".into(),
                title: "春晓".into(),
                body: "春眠不觉晓，处处闻啼鸟。夜来风雨声，花落知多少。".into(),
                ..Default::default()
            },
            None,
        )
        .unwrap();
    f.store
        .goals()
        .set(&f.child, deskmate_store::GoalKind::NewPerDay, 2)
        .unwrap();
    let entry = Entry::new(f.store.clone(), f.scene.clone());
    let r = entry
        .process(&f.child, "今天做什么".into(), at(2, 2), false)
        .unwrap();
    assert_eq!(r.scene, Scene::Plan);
    let plan = r.plan.unwrap();
    assert_eq!((plan.done, plan.total), (0, 2));
    let order: Vec<String> = plan
        .tasks
        .iter()
        .map(|t| t.material_id.clone().unwrap())
        .collect();
    assert!(order.contains(&f.poem) && order.contains(&chun_xiao.id));
    assert!(
        r.text_zh.contains("完成 0/2") && r.text_zh.contains("下一个"),
        "{}",
        r.text_zh
    );
    assert!(
        r.practice.is_none(),
        "the plan is shown before anything opens"
    );
    // 下一个: the first task's recitation opens, the child stays in the plan.
    let first = entry
        .process(&f.child, "下一个".into(), at(2, 2), false)
        .unwrap();
    assert_eq!(
        (first.scene, first.intent),
        (Scene::Plan, Intent::ContinueCurrent)
    );
    let p = first.practice.unwrap();
    assert_eq!(
        (p.material.id.as_str(), p.state.name()),
        (order[0].as_str(), "ready")
    );
    assert!(first.text_zh.starts_with("下一个："), "{}", first.text_zh);
    // Again: on to the second, then round to the first, not yet done.
    let second = entry
        .process(&f.child, "下一个".into(), at(2, 2), false)
        .unwrap();
    assert_eq!(second.material.unwrap().id, order[1]);
    let round = entry
        .process(&f.child, "下一个".into(), at(2, 2), false)
        .unwrap();
    assert_eq!(round.material.unwrap().id, order[0]);
    // Both passed: nothing left, and the plan says so.
    for id in &order {
        let body = f.store.materials().get(id).unwrap().body;
        deskmate_recite::practice::record_attempt(
            &f.store,
            deskmate_recite::practice::NewAttempt {
                profile_id: f.child.clone(),
                material_id: id.clone(),
                transcript: deskmate_recite::Transcript::new(body),
                mode: Mode::Text,
                at: at(2, 3),
                duration_ms: Some(20_000),
                session_id: None,
            },
            &deskmate_recite::TemplateTips,
        )
        .unwrap();
    }
    let done = entry
        .process(&f.child, "下一个".into(), at(2, 4), false)
        .unwrap();
    assert!(done.practice.is_none());
    assert!(done.text_zh.contains("都完成了"), "{}", done.text_zh);
    assert_eq!(done.plan.map(|p| (p.done, p.total)), Some((2, 2)));
}

fn press(b: &str) -> Input {
    Input::Button(b.parse().unwrap())
}

#[test]
fn a_button_walks_the_plan_like_the_words() {
    let f = fixture();
    f.store
        .goals()
        .set(&f.child, deskmate_store::GoalKind::NewPerDay, 1)
        .unwrap();
    let entry = Entry::new(f.store.clone(), f.scene.clone());
    entry
        .process(&f.child, "今天做什么".into(), at(2, 2), false)
        .unwrap();
    let r = entry
        .process(&f.child, press("lamp:next"), at(2, 2), false)
        .unwrap();
    assert_eq!(
        (r.scene, r.intent, r.confidence, r.decision.clone()),
        (
            Scene::Plan,
            Intent::ContinueCurrent,
            Confidence::High,
            Decision::Continue
        )
    );
    assert!(r.text_zh.starts_with("下一个："), "{}", r.text_zh);
    assert_eq!(r.practice.unwrap().material.id, f.poem);
    assert!(!r.needs_model);
    let t = entry.trace(&r.trace_id).unwrap();
    assert_eq!(t.input, "[button lamp:next]");
    // Replayed, the press is read as the same button in the same scene.
    let replayed = entry.replay(Some(&f.child)).unwrap();
    assert!(replayed.iter().all(|r| !r.changed), "{replayed:#?}");
    assert_eq!(replayed[1].input, "[button lamp:next]");
}

#[test]
fn a_pending_switch_is_confirmed_or_declined_by_a_button() {
    let f = fixture();
    let entry = Entry::new(f.store.clone(), f.scene.clone());
    let ask = entry
        .process(&f.child, "静夜思".into(), at(2, 2), false)
        .unwrap();
    assert!(
        matches!(ask.decision, Decision::AskSwitch { .. }),
        "{:?}",
        ask.decision
    );
    let no = entry
        .process(&f.child, press("screen:no"), at(2, 2), false)
        .unwrap();
    assert_eq!((no.scene, no.decision), (Scene::Chat, Decision::Continue));
    assert_eq!(no.reason, "the switch asked about was declined");
    entry
        .process(&f.child, "静夜思".into(), at(2, 2), false)
        .unwrap();
    let yes = entry
        .process(&f.child, press("lamp:yes"), at(2, 2), false)
        .unwrap();
    assert_eq!(yes.scene, Scene::Recite);
    assert_eq!(yes.confidence, Confidence::High);
    assert_eq!(yes.practice.unwrap().material.id, f.poem);
    // In the recitation, "again" is 再来一次.
    let again = entry
        .process(&f.child, press("lamp:again"), at(2, 2), false)
        .unwrap();
    assert_eq!(
        (again.scene, again.intent),
        (Scene::Recite, Intent::ContinueCurrent)
    );
    assert!(again.text_zh.contains("再背一遍"), "{}", again.text_zh);
}

#[test]
fn a_button_that_means_nothing_here_changes_nothing() {
    let f = fixture();
    let entry = Entry::new(f.store.clone(), f.scene.clone());
    entry
        .process(&f.child, "静夜思".into(), at(2, 2), false)
        .unwrap();
    let before = entry
        .session(&f.child, chrono_tz::Asia::Shanghai, at(2, 2))
        .unwrap();
    assert!(before.pending.is_some());
    for b in ["lamp:next", "lamp:again", "screen:banana", "lamp:start"] {
        let r = entry.process(&f.child, press(b), at(2, 2), false).unwrap();
        assert_eq!(r.decision, Decision::Continue, "{b}");
        assert_eq!(r.reason, "a button that means nothing in this scene");
        assert!(r.text_zh.contains("按钮"), "{}", r.text_zh);
        assert!(r.practice.is_none() && !r.needs_model);
        let now = entry
            .session(&f.child, chrono_tz::Asia::Shanghai, at(2, 2))
            .unwrap();
        assert_eq!(
            now, before,
            "{b}: the pending switch is neither taken nor aged"
        );
    }
    let replayed = entry.replay(Some(&f.child)).unwrap();
    assert!(replayed.iter().all(|r| !r.changed), "{replayed:#?}");
}

#[test]
fn chat_asks_about_vague_words_and_waits_on_the_companion() {
    let f = fixture();
    let entry = Entry::new(f.store.clone(), f.scene.clone());
    let step = |e: &Entry| {
        e.session(&f.child, chrono_tz::Asia::Shanghai, at(2, 2))
            .unwrap()
            .chat
    };
    // (said, model ready) → (chat step after, needs_model, scene)
    let table: [(&str, bool, &str, bool, Scene); 6] = [
        ("嗯", true, "clarify", false, Scene::Chat),
        ("讲个恐龙的故事", true, "handoff_wait", true, Scene::Chat),
        ("那个", true, "clarify", false, Scene::Chat),
        // The reply is routed with what it clarifies: 那个 静夜思.
        ("静夜思", true, "idle", false, Scene::Chat),
        ("不要", true, "idle", false, Scene::Chat),
        ("月亮上有兔子吗", false, "idle", true, Scene::Chat),
    ];
    for (words, ready, after, needs_model, scene) in table {
        let r = entry
            .process(&f.child, words.into(), at(2, 2), ready)
            .unwrap();
        assert_eq!(step(&entry).name(), after, "{words}");
        assert_eq!((r.needs_model, r.scene), (needs_model, scene), "{words}");
    }
    // Waiting on the companion until the chat reports back.
    entry
        .process(&f.child, "讲个恐龙的故事".into(), at(2, 2), true)
        .unwrap();
    assert_eq!(
        step(&entry),
        ChatStep::HandoffWait {
            request: "讲个恐龙的故事".into()
        }
    );
    assert_eq!(
        entry.chat_answered(&f.child, at(2, 2)).unwrap(),
        ChatStep::Idle
    );
    assert_eq!(step(&entry), ChatStep::Idle);
    // A clarified request that names a scene goes there, chat left idle.
    entry
        .process(&f.child, "我想".into(), at(2, 2), true)
        .unwrap();
    let r = entry
        .process(&f.child, "背静夜思".into(), at(2, 2), true)
        .unwrap();
    assert_eq!(r.scene, Scene::Recite);
    assert_eq!(step(&entry), ChatStep::Idle);
    let replayed = entry.replay(Some(&f.child)).unwrap();
    assert!(replayed.iter().all(|r| !r.changed), "{replayed:#?}");
}

#[test]
fn a_typed_request_is_traced_as_spans_under_one_root() {
    let f = fixture();
    let entry = Entry::new(f.store.clone(), f.scene.clone());
    let r = entry
        .process(&f.child, "我要背静夜思".into(), at(2, 2), false)
        .unwrap();
    let spans = entry.trace(&r.trace_id).unwrap().spans;
    let names: Vec<&str> = spans.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        ["request", "parse", "route", "decide", "scene.recite"]
    );
    let root = &spans[0];
    assert!(root.parent_span_id.is_none());
    for s in &spans {
        assert_eq!(s.trace_id, r.trace_id);
        assert_eq!(s.span_id.len(), 16, "{}", s.span_id);
        assert_eq!(s.outcome, crate::trace::Outcome::Ok);
        assert!(s.started_at >= root.started_at, "{s:?}");
        assert!(
            s.duration_us <= root.duration_us,
            "{s:?} within the request"
        );
    }
    for s in &spans[1..] {
        assert_eq!(s.parent_span_id.as_ref(), Some(&root.span_id));
    }
    assert_eq!(spans[1].attributes["input"], "text");
    assert_eq!(spans[2].attributes["intent"], "recite");
    assert_eq!(spans[2].attributes["confidence"], "high");
    assert_eq!(spans[3].attributes["decision"], "switch");
    assert_eq!(spans[4].attributes["material"], f.poem.as_str());
    let tree = crate::trace::timeline(&spans);
    assert!(tree.starts_with("request "), "{tree}");
    assert!(
        tree.contains("\n  route ") && tree.contains(" ms ok"),
        "{tree}"
    );

    // A damaged span is named when read back, not guessed.
    f.store
        .with_conn(|c| {
            c.execute(
                "UPDATE trace_spans SET attributes = '[1]' WHERE name = 'route'",
                [],
            )?;
            Ok(())
        })
        .unwrap();
    let e = entry.trace(&r.trace_id).unwrap_err();
    assert!(e.to_string().contains("attributes"), "{e}");

    // Spans that cannot be written do not lose the decision.
    f.store
        .with_conn(|c| {
            c.execute_batch(
                "CREATE TRIGGER no_spans BEFORE INSERT ON trace_spans BEGIN SELECT RAISE(ABORT, 'no'); END;",
            )?;
            Ok(())
        })
        .unwrap();
    let r = entry
        .process(&f.child, "不背了".into(), at(2, 2), false)
        .unwrap();
    let t = entry.trace(&r.trace_id).unwrap();
    assert_eq!((t.input.as_str(), t.spans.len()), ("不背了", 0));
}

#[test]
fn spans_go_to_an_otlp_collector_and_a_dead_one_fails_nothing() {
    use std::io::{Read, Write};
    let f = fixture();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let endpoint = format!("http://{}", listener.local_addr().unwrap());
    let collector = std::thread::spawn(move || {
        let (mut conn, _) = listener.accept().unwrap();
        conn.set_read_timeout(Some(std::time::Duration::from_secs(10)))
            .unwrap();
        let mut got = Vec::new();
        let mut buf = [0u8; 8192];
        loop {
            let n = conn.read(&mut buf).unwrap();
            got.extend_from_slice(&buf[..n]);
            let text = String::from_utf8_lossy(&got).to_string();
            if let Some(end) = text.find("\r\n\r\n") {
                let len: usize = text[..end]
                    .lines()
                    .find_map(|l| {
                        l.to_ascii_lowercase()
                            .strip_prefix("content-length:")
                            .map(|v| v.trim().parse().unwrap())
                    })
                    .unwrap();
                if got.len() >= end + 4 + len {
                    conn.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}")
                        .unwrap();
                    let head = text[..end].to_string();
                    let body = String::from_utf8(got[end + 4..end + 4 + len].to_vec()).unwrap();
                    return (head, body);
                }
            }
            assert!(n > 0, "the connection closed early");
        }
    });
    let entry = Entry::new(f.store.clone(), f.scene.clone()).with_otlp(Some(endpoint));
    let r = entry
        .process(&f.child, "我要背静夜思".into(), at(2, 2), false)
        .unwrap();
    let (head, body) = collector.join().unwrap();
    assert!(head.starts_with("POST /v1/traces "), "{head}");
    let json: serde_json::Value = serde_json::from_str(&body).unwrap();
    let spans = json["resourceSpans"][0]["scopeSpans"][0]["spans"]
        .as_array()
        .unwrap();
    let hex = r.trace_id.replace('-', "");
    assert_eq!(hex.len(), 32);
    assert!(spans.iter().all(|s| s["traceId"] == hex.as_str()));
    let names: Vec<&str> = spans.iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        ["request", "parse", "route", "decide", "scene.recite"]
    );
    let route = &spans[2];
    assert_eq!(route["name"], "route");
    assert_eq!(route["parentSpanId"], spans[0]["spanId"]);
    assert_eq!(route["spanId"].as_str().unwrap().len(), 16);
    let start: u128 = route["startTimeUnixNano"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let end: u128 = route["endTimeUnixNano"].as_str().unwrap().parse().unwrap();
    assert!(end >= start && start > 1_700_000_000_000_000_000);
    assert!(route["attributes"]
        .as_array()
        .unwrap()
        .iter()
        .any(|a| a["key"] == "intent" && a["value"]["stringValue"] == "recite"));
    assert_eq!(route["status"]["code"], 1);

    // No collector listening: the child's request is answered all the same.
    let dead = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let gone = format!("http://{}", dead.local_addr().unwrap());
    drop(dead);
    let entry = Entry::new(f.store.clone(), f.scene.clone()).with_otlp(Some(gone));
    let r = entry
        .process(&f.child, "不背了".into(), at(2, 2), false)
        .unwrap();
    assert_eq!(r.decision, Decision::Exit);
    assert_eq!(entry.trace(&r.trace_id).unwrap().spans.len(), 4);
}

#[test]
fn a_new_local_day_starts_from_chat_and_a_damaged_session_is_started_again() {
    let f = fixture();
    let entry = Entry::new(f.store.clone(), f.scene.clone());
    // 15:00 UTC on the 2nd is 23:00 in Shanghai; 17:00 UTC is 01:00 on the 3rd.
    entry
        .process(&f.child, "我要背静夜思".into(), at(2, 15), false)
        .unwrap();
    let session = entry
        .session(&f.child, chrono_tz::Asia::Shanghai, at(2, 15))
        .unwrap();
    assert_eq!(session.active, Scene::Recite);
    let next_day = entry
        .session(&f.child, chrono_tz::Asia::Shanghai, at(3, 17))
        .unwrap();
    assert_eq!(next_day, Session::default());
    f.store
        .with_conn(|c| {
            c.execute("UPDATE scene_sessions SET session = '{not json'", [])?;
            Ok(())
        })
        .unwrap();
    let r = entry
        .process(&f.child, "再来一次".into(), at(2, 15), false)
        .unwrap();
    assert_eq!(
        r.scene,
        Scene::Chat,
        "a damaged session is started again, not guessed"
    );
}

/// Model-backed routing with the scripted model server on loopback.
mod model_routing;

#[test]
fn the_chat_scene_remembers_and_recalls_without_a_model() {
    let f = fixture();
    let entry = Entry::new(f.store.clone(), f.scene.clone());
    let r = entry
        .process(&f.child, "你记得我什么?".into(), at(2, 2), false)
        .unwrap();
    assert_eq!(r.scene, Scene::Chat);
    assert!(!r.needs_model);
    assert!(r.text_zh.contains("还没有记住"), "{}", r.text_zh);
    let r = entry
        .process(&f.child, "记住我喜欢恐龙".into(), at(2, 2), false)
        .unwrap();
    assert_eq!((r.scene, r.needs_model), (Scene::Chat, false));
    assert!(r.text_zh.contains("记住了：我喜欢恐龙"), "{}", r.text_zh);
    let r = entry
        .process(
            &f.child,
            "Remember that I find fractions hard".into(),
            at(2, 2),
            true,
        )
        .unwrap();
    assert!(!r.needs_model, "answered without the companion");
    assert!(r.text_en.contains("I find fractions hard"), "{}", r.text_en);
    // Said twice, kept once.
    entry
        .process(&f.child, "记住我喜欢恐龙".into(), at(2, 2), false)
        .unwrap();
    let kept = f.store.memories().list(&f.child).unwrap();
    assert_eq!(kept.len(), 2, "{kept:?}");
    assert!(kept
        .iter()
        .any(|m| m.kind == deskmate_store::MemoryKind::FindsHard));
    let r = entry
        .process(
            &f.child,
            "what do you remember about me?".into(),
            at(2, 2),
            false,
        )
        .unwrap();
    assert!(r.text_zh.contains("我喜欢恐龙"), "{}", r.text_zh);
    assert!(r.text_en.contains("I find fractions hard"), "{}", r.text_en);
}
