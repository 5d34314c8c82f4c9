//! Long conversations against a loopback model server, with a small context
//! window so the third model call passes 85 % of it: the older messages are
//! summarized by the model, the newest kept verbatim, the summary stored (and
//! later runs start from it), the full history written to the workspace —
//! and when the summary fails, the oldest messages are left out with a note
//! instead, and the run still answers. At the edges: a request estimated at
//! exactly 85 % of the window is sent whole, one token more is summarized;
//! a model whose window is not known gets 170k tokens and keeps its last 6
//! messages.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use deskmate_agent::persist::{self, RunStatus};
use deskmate_agent::summarize::{self, request_tokens, HISTORY_DIR, SUMMARY_HEADING};
use deskmate_agent::*;
use deskmate_llm::scripted::{openai, status, ScriptedServer};
use deskmate_llm::{Message, Role};

use crate::common;
use common::{run, Env};

/// About 60 tokens each (CJK characters count one).
fn first_question() -> String {
    format!("第一个问题：{}", "床前明月光疑是地上霜".repeat(6))
}
fn second_question() -> String {
    format!("第二个问题：{}", "举头望明月低头思故乡".repeat(6))
}

/// No tools and a one-line prompt, so the history is nearly all the model
/// gets; no retries, so a failed summary stays failed.
fn agent(e: &Env, server: &ScriptedServer) -> Agent {
    let config = AgentConfig {
        system_prompt: "你是同桌。".into(),
        context_window: Some(200),
        ..AgentConfig::default()
    };
    e.agent_with(
        common::client(server, "openai:scripted", common::KEY, 0),
        config,
        ToolSet::default(),
    )
}

fn texts(body: &serde_json::Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["content"].as_str().unwrap_or("").to_string())
        .collect()
}

fn custom(events: &[AgUiEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            AgUiEvent::Custom { name, .. } => Some(name.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn older_messages_are_summarized_and_later_runs_start_from_the_summary() {
    let e = Env::new();
    let first_answer = format!("第一个回答：{}", "月光".repeat(30));
    let server = ScriptedServer::start(vec![
        openai::text(&first_answer),
        openai::text("- 孩子二年级，在背静夜思，第一句已经会了。"),
        openai::text("第二个回答。"),
    ])
    .unwrap();
    let agent = agent(&e, &server);
    let (one, events) = run(&agent, None, &first_question()).await;
    assert!(custom(&events).is_empty(), "the first call fits");
    let (two, events) = run(&agent, Some(one.thread_id.clone()), &second_question()).await;
    assert_eq!(two.status, RunStatus::Completed, "{two:?}");
    assert_eq!(two.answer, "第二个回答。");
    assert_eq!(custom(&events), ["history_summarized"]);

    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    // The summarizer got the older messages…
    let to_summarize = texts(&requests[1].body);
    assert!(to_summarize[0].contains("summarize"), "{to_summarize:?}");
    assert!(to_summarize[1].contains("第一个问题") && to_summarize[1].contains("第一个回答"));
    assert!(
        !to_summarize[1].contains("第二个问题"),
        "the newest message is kept, not summarized"
    );
    // …and the model then the summary and the newest message only.
    let sent = texts(&requests[2].body);
    assert_eq!(sent.len(), 3, "system, summary, the question: {sent:?}");
    assert!(
        sent[1].starts_with(SUMMARY_HEADING) && sent[1].contains("第一句已经会了"),
        "{}",
        sent[1]
    );
    assert!(
        sent[1].contains(HISTORY_DIR),
        "the summary says where the whole conversation is"
    );
    assert!(sent[2].starts_with("第二个问题"));

    // Stored: the window shows every message; the model's history starts at the summary.
    let shown: Vec<String> = persist::messages(&e.store, &one.thread_id)
        .unwrap()
        .iter()
        .map(|m| m.message.text())
        .collect();
    assert_eq!(shown.len(), 4, "{shown:?}");
    assert!(shown.iter().all(|t| !t.starts_with(SUMMARY_HEADING)));
    let history = persist::model_history(&e.store, &one.thread_id).unwrap();
    let roles: Vec<Role> = history.iter().map(|m| m.role).collect();
    assert_eq!(roles, [Role::User, Role::User, Role::Assistant]);
    assert!(history[0].text().starts_with(SUMMARY_HEADING));
    // The whole conversation, for the model to read back.
    let file = workspace_dir(&e.dir.path().join("threads"), &one.thread_id)
        .join("conversation_history")
        .join(format!("{}.md", one.thread_id));
    let written = std::fs::read_to_string(file).unwrap();
    assert!(
        written.contains("第一个问题")
            && written.contains("第一个回答")
            && written.contains("第二个问题")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_summary_leaves_out_the_oldest_messages_and_the_run_goes_on() {
    let e = Env::new();
    let first_answer = format!("第一个回答：{}", "月光".repeat(30));
    let server = ScriptedServer::start(vec![
        openai::text(&first_answer),
        status(500, None, "summarizer down"),
        openai::text("还是回答了。"),
    ])
    .unwrap();
    let agent = agent(&e, &server);
    let (one, _) = run(&agent, None, &first_question()).await;
    let (two, events) = run(&agent, Some(one.thread_id.clone()), &second_question()).await;
    assert_eq!(two.status, RunStatus::Completed, "{two:?}");
    assert_eq!(two.answer, "还是回答了。");
    assert_eq!(custom(&events), ["history_shortened"]);
    let sent = texts(&server.requests()[2].body);
    assert_eq!(sent.len(), 3, "{sent:?}");
    assert!(
        sent[1].contains("2 earlier messages were left out"),
        "{}",
        sent[1]
    );
    assert!(sent[2].starts_with("第二个问题"));
    // Nothing was lost: every message is stored, no summary is.
    assert_eq!(
        persist::messages(&e.store, &one.thread_id).unwrap().len(),
        4
    );
    assert_eq!(
        persist::model_history(&e.store, &one.thread_id)
            .unwrap()
            .len(),
        4
    );
}

/// A thread holding `before` (the first padded with 问 so the next call's
/// request — `before`, then the question `继续` — is estimated at exactly
/// `total` tokens), and an agent with no system prompt and no tools, so the
/// history is all the model gets. Runs the question and returns what the
/// model server saw and the run's custom events.
async fn run_at(
    window: Option<u64>,
    total: u64,
    before: &[Message],
    replies: Vec<deskmate_llm::scripted::Reply>,
) -> (Vec<serde_json::Value>, Vec<String>, Vec<Message>) {
    let e = Env::new();
    let server = ScriptedServer::start(replies).unwrap();
    let agent = e.agent_with(
        common::client(&server, "openai:scripted", common::KEY, 0),
        AgentConfig {
            system_prompt: String::new(),
            context_window: window,
            ..AgentConfig::default()
        },
        ToolSet::default(),
    );
    let mut history: Vec<Message> = before.to_vec();
    history.push(Message::user("继续"));
    let base = request_tokens(None, &[], &history);
    let pad = usize::try_from(total.checked_sub(base).unwrap()).unwrap();
    history[0] = Message::user(format!("{}{}", history[0].text(), "问".repeat(pad)));
    assert_eq!(request_tokens(None, &[], &history), total);

    let thread = persist::create_thread(&e.store, None, "长对话").unwrap();
    for m in &history[..history.len() - 1] {
        persist::insert_message(&e.store, &thread.id, None, None, m).unwrap();
    }
    let (out, events) = run(&agent, Some(thread.id.clone()), "继续").await;
    assert_eq!(out.status, RunStatus::Completed, "{out:?}");
    let bodies: Vec<serde_json::Value> = server.requests().into_iter().map(|r| r.body).collect();
    for b in &bodies {
        assert!(
            b["tools"].as_array().is_none_or(|t| t.is_empty()),
            "no tools are sent, so none are counted: {b}"
        );
    }
    (bodies, custom(&events), history)
}

fn short_turns(n: usize) -> Vec<Message> {
    (0..n)
        .map(|i| {
            if i % 2 == 0 {
                Message::user(format!("第{i}句"))
            } else {
                Message::assistant(format!("回答{i}"), vec![])
            }
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_known_window_summarizes_only_past_85_percent() {
    // 1,000 tokens: 850 is not past 85 %, 851 is.
    let before = short_turns(2);
    let (bodies, events, _) = run_at(Some(1_000), 850, &before, vec![openai::text("好")]).await;
    assert_eq!(bodies.len(), 1, "one model call, no summary");
    assert!(events.is_empty(), "{events:?}");
    assert_eq!(texts(&bodies[0]).len(), 3, "the whole history is sent");

    let (bodies, events, history) = run_at(
        Some(1_000),
        851,
        &before,
        vec![openai::text("- 问了很多问题。"), openai::text("好")],
    )
    .await;
    assert_eq!(events, ["history_summarized"]);
    assert_eq!(bodies.len(), 2, "the summary, then the answer");
    // The tail that fits in 10 % (100 tokens) is kept: the short reply and
    // the question; the long first message is summarized.
    let summarized = texts(&bodies[0]);
    assert!(summarized[1].contains("问问问") && !summarized[1].contains("继续"));
    let sent = texts(&bodies[1]);
    assert_eq!(sent.len(), 3, "{sent:?}");
    assert!(sent[0].starts_with(SUMMARY_HEADING), "{}", sent[0]);
    assert_eq!(sent[1..], [history[1].text(), history[2].text()]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_model_has_170k_tokens_and_keeps_the_last_6_messages() {
    assert_eq!(summarize::context_window("openai:scripted"), None);
    assert_eq!(summarize::DEFAULT_CONTEXT_WINDOW, 170_000);
    // Nine stored messages and the question: ten in all.
    let before = short_turns(9);
    let (bodies, events, _) = run_at(None, 144_500, &before, vec![openai::text("好")]).await;
    assert_eq!(bodies.len(), 1, "85 % of 170k is not passed");
    assert!(events.is_empty(), "{events:?}");
    assert_eq!(texts(&bodies[0]).len(), 10);

    let (bodies, events, history) = run_at(
        None,
        144_501,
        &before,
        vec![openai::text("- 问了很多问题。"), openai::text("好")],
    )
    .await;
    assert_eq!(events, ["history_summarized"]);
    assert_eq!(bodies.len(), 2);
    // The first four are summarized…
    let summarized = &texts(&bodies[0])[1];
    for m in &history[..4] {
        assert!(summarized.contains(&m.text()), "{} is summarized", m.text());
    }
    for m in &history[4..] {
        assert!(!summarized.contains(&m.text()), "{} is kept", m.text());
    }
    // …and the last six go to the model verbatim after the summary.
    let sent = texts(&bodies[1]);
    assert!(sent[0].starts_with(SUMMARY_HEADING), "{}", sent[0]);
    let kept: Vec<String> = history[4..].iter().map(Message::text).collect();
    assert_eq!(sent[1..], kept[..]);
}
