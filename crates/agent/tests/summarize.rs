//! Long conversations against a loopback model server, with a small context
//! window so the third model call passes 85 % of it: the older messages are
//! summarized by the model, the newest kept verbatim, the summary stored (and
//! later runs start from it), the full history written to the workspace —
//! and when the summary fails, the oldest messages are left out with a note
//! instead, and the run still answers.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use deskmate_agent::persist::{self, RunStatus};
use deskmate_agent::summarize::{HISTORY_DIR, SUMMARY_HEADING};
use deskmate_agent::*;
use deskmate_llm::scripted::{openai, status, ScriptedServer};
use deskmate_llm::Role;

mod common;
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
