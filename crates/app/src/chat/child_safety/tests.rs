//! A child's replies checked through the scripted model server: the kept
//! sets of unsafe replies (each replaced, stored as replaced, the parent
//! told) and safe ones (untouched), the moderation endpoint, the child
//! policy in the prompt, and a parent's conversation left as it is.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::VecDeque;
use std::sync::Mutex as StdMutex;

use deskmate_agent::EventOrder;
use deskmate_llm::scripted::{openai, RecordedRequest, Reply, ScriptedServer};

use super::*;

const UNSAFE: &str = include_str!("../../../../orchestrator/safety/unsafe_replies.txt");
const SAFE: &str = include_str!("../../../../orchestrator/safety/safe_replies.txt");

fn replies(set: &str) -> Vec<&str> {
    set.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect()
}

/// A model server answering chat calls with `replies` in order, and
/// moderation calls flagging any input with "bait" in it.
fn server(replies: Vec<String>) -> ScriptedServer {
    let queue = StdMutex::new(VecDeque::from(replies));
    ScriptedServer::with_responder(move |req: &RecordedRequest| {
        if req.path.ends_with("/moderations") {
            let flagged = req.body["input"]
                .as_str()
                .unwrap_or_default()
                .contains("bait");
            return Reply::Status {
                status: 200,
                headers: vec![("content-type".into(), "application/json".into())],
                body: serde_json::json!({
                    "results": [{"flagged": flagged, "categories": {"harassment": flagged}}]
                })
                .to_string(),
            };
        }
        let next = queue.lock().unwrap().pop_front().unwrap_or_default();
        openai::text(&next)
    })
    .unwrap()
}

struct Said {
    shown: String,
    answer: String,
    thread_id: String,
}

/// One message of `profile` through the chat, every event checked for order.
async fn say(app: &Deskmate, profile: &str, text: &str) -> Said {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let run = app
        .chat()
        .start(
            ChatMessage {
                profile_id: Some(profile.to_string()),
                text: text.into(),
                ..Default::default()
            },
            &ChatOptions::default(),
            tx,
        )
        .await
        .unwrap();
    let outcome = run.done.await.unwrap();
    let mut order = EventOrder::default();
    let mut shown = String::new();
    while let Ok(ev) = rx.try_recv() {
        order.check(&ev).unwrap();
        if let AgUiEvent::TextMessageContent { delta, .. } = ev {
            shown.push_str(&delta);
        }
    }
    Said {
        shown,
        answer: outcome.answer,
        thread_id: run.thread_id,
    }
}

fn stored_reply(app: &Deskmate, thread_id: &str) -> (String, String) {
    let messages = persist::messages(app.store(), thread_id).unwrap();
    let last = messages.last().unwrap();
    (last.id.clone(), last.message.text())
}

/// A device with a parent and a child, the model on `server`.
fn family(server: &ScriptedServer) -> (tempfile::TempDir, Deskmate, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let app = Deskmate::open(crate::Config::in_dir(dir.path())).unwrap();
    let (parent, child) = deskmate_testkit::family::parent_and_child(app.store());
    app.chat()
        .save_llm_settings("openai:m", Some(&server.base_url()))
        .unwrap();
    app.chat().agree_model_notice().unwrap();
    (dir, app, parent.id, child.id)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unsafe_replies_are_replaced_and_the_parent_told_safe_ones_untouched() {
    let unsafe_ = replies(UNSAFE);
    let safe = replies(SAFE);
    let all: Vec<String> = unsafe_.iter().chain(&safe).map(|s| s.to_string()).collect();
    let server = server(all);
    let (_dir, app, _, child) = family(&server);
    let replacement = safety::safe_reply(false);

    for original in &unsafe_ {
        let said = say(&app, &child, "你好").await;
        assert_eq!(said.shown, replacement, "shown for {original}");
        assert_eq!(said.answer, replacement);
        let (id, stored) = stored_reply(&app, &said.thread_id);
        assert_eq!(stored, replacement, "stored for {original}");
        // The original is kept for the parent only.
        let (kept, reasons) = app.store().notices().replaced(&id).unwrap().unwrap();
        assert_eq!(kept, *original);
        assert!(
            reasons.iter().all(|r| r.starts_with("rule:")),
            "{reasons:?}"
        );
    }
    let notices = app.notices(Some(&child), true).unwrap();
    assert_eq!(notices.len(), unsafe_.len());
    assert!(notices
        .iter()
        .all(|n| n.kind == NoticeKind::ReplyReplaced && n.thread_id.is_some()));
    // The parent reads a replaced reply with its conversation (the window's
    // notice, `deskmate notices show`): the original, and the safe reply
    // the child saw in the thread.
    let read = app.replaced_reply(&notices[0].id).unwrap();
    assert_eq!(read.original, *unsafe_.last().unwrap());
    assert_eq!(Some(read.thread.thread.id.clone()), notices[0].thread_id);
    let shown = read
        .thread
        .messages
        .iter()
        .find(|m| m.id == read.message_id)
        .unwrap();
    assert_eq!(shown.content, replacement);

    for original in &safe {
        let said = say(&app, &child, "你好").await;
        assert_eq!(said.shown, *original);
        assert_eq!(said.answer, *original);
        let (id, stored) = stored_reply(&app, &said.thread_id);
        assert_eq!(stored, *original);
        assert!(app.store().notices().replaced(&id).unwrap().is_none());
    }
    assert_eq!(
        app.notices(Some(&child), true).unwrap().len(),
        unsafe_.len()
    );

    // The child policy is in every child's prompt, homework answers not allowed.
    let first = &server.requests()[0];
    let system = first.body["messages"][0]["content"].to_string();
    assert!(system.contains("绝不问孩子的个人信息"), "{system}");
    assert!(system.contains("不直接给答案") && system.contains("2 年级"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_moderation_endpoint_catches_what_the_rules_let_through() {
    let server = server(vec![
        "a story with bait in it".into(),
        "a story about the moon".into(),
    ]);
    let (_dir, app, _, child) = family(&server);
    app.store()
        .settings()
        .set(
            None,
            safety::MODERATION,
            &ModerationConfig {
                base_url: server.base_url(),
                model: None,
            },
        )
        .unwrap();
    let flagged = say(&app, &child, "讲个故事").await;
    assert_eq!(flagged.shown, safety::safe_reply(false));
    let (id, _) = stored_reply(&app, &flagged.thread_id);
    let (_, reasons) = app.store().notices().replaced(&id).unwrap().unwrap();
    assert_eq!(reasons, ["moderation:harassment"]);
    let fine = say(&app, &child, "再讲一个").await;
    assert_eq!(fine.shown, "a story about the moon");
    let asked: Vec<_> = server
        .requests()
        .into_iter()
        .filter(|r| r.path.ends_with("/moderations"))
        .collect();
    assert_eq!(asked.len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_parents_conversation_is_not_a_childs() {
    let server = server(vec!["Where do you live? (a parent's question)".into()]);
    let (_dir, app, parent, _) = family(&server);
    let said = say(&app, &parent, "hi").await;
    assert_eq!(said.shown, "Where do you live? (a parent's question)");
    let system = server.requests()[0].body["messages"][0]["content"].to_string();
    assert!(!system.contains("绝不问孩子的个人信息"));
    assert!(app.notices(None, false).unwrap().is_empty());
}
