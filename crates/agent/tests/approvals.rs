//! Human in the loop: a tool the profile says needs a parent's approval is
//! held — the run pauses with the call pending and an AG-UI interrupt — and
//! continues from exactly there once a parent approves, changes the
//! arguments, rejects with a reason, or answers in place of the tool; also
//! by a new agent on the same store (the app closed and opened again). A
//! paused thread takes no new message until the parent has decided.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeSet;

use deskmate_agent::persist::{self, ApprovalDecision, RunStatus};
use deskmate_agent::*;
use deskmate_llm::scripted::{openai, RecordedRequest, Reply, ScriptedServer};

mod common;
use common::{run, Env};

/// The model lists the workspace, then says what the tool answered.
fn respond(r: &RecordedRequest) -> Reply {
    let results: Vec<String> = r.body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap_or("").to_string())
        .collect();
    if results.is_empty() {
        return openai::tool_calls(None, &[("c_ls", "ls", r#"{"path": "/"}"#)]);
    }
    openai::text(&format!("工具说：{}", results.join(" | ")))
}

fn agent(e: &Env, server: &ScriptedServer) -> Agent {
    let config = AgentConfig {
        approvals: BTreeSet::from(["ls".to_string()]),
        ..AgentConfig::default()
    };
    e.agent(
        server,
        "openai:scripted",
        config,
        ToolSet::builtin(SearchConfig::default()),
    )
}

async fn resume(agent: &Agent, run_id: &str) -> (RunOutcome, Vec<AgUiEvent>) {
    let prepared = agent.prepare_resume(run_id).await.unwrap();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let out = prepared.execute(tx, CancellationToken::new()).await;
    let mut events = Vec::new();
    while let Ok(ev) = rx.try_recv() {
        events.push(ev);
    }
    EventOrder::check_run(&events).unwrap();
    (out, events)
}

/// Sends a message and checks the run paused on the `ls` call.
async fn paused(e: &Env, server: &ScriptedServer) -> RunOutcome {
    let (out, events) = run(&agent(e, server), None, "看看有什么文件").await;
    assert_eq!(out.status, RunStatus::Interrupted, "{out:?}");
    let Some(AgUiEvent::RunFinished {
        result: Some(result),
        ..
    }) = events.last()
    else {
        panic!("no RUN_FINISHED at the end: {events:?}");
    };
    assert_eq!(result["outcome"], "interrupt");
    assert_eq!(result["interrupts"][0]["tool"], "ls");
    assert_eq!(result["interrupts"][0]["id"], "c_ls");
    // The call waits, undecided, and was not run.
    let waiting = persist::open_approvals(&e.store, Some(&out.run_id)).unwrap();
    assert_eq!(waiting.len(), 1);
    assert_eq!(
        (waiting[0].tool.as_str(), waiting[0].decision.as_ref()),
        ("ls", None)
    );
    let calls = persist::all_tool_calls(&e.store, &out.thread_id).unwrap();
    assert_eq!(calls[0].status, persist::ToolCallStatus::Pending);
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_approved_call_runs_when_the_run_continues_even_in_a_new_agent() {
    let e = Env::new();
    let server = ScriptedServer::with_responder(respond).unwrap();
    let out = paused(&e, &server).await;
    // Undecided: neither continuing nor a new message in the thread goes on.
    let Err(err) = agent(&e, &server).prepare_resume(&out.run_id).await else {
        panic!("an undecided run went on");
    };
    assert_eq!(err.code(), "chat.awaiting_approval");
    let Err(err) = agent(&e, &server)
        .prepare(RunRequest::text(Some(out.thread_id.clone()), "还在吗"))
        .await
    else {
        panic!("a new message talked past the waiting call");
    };
    assert_eq!(err.code(), "chat.awaiting_approval");

    persist::decide_approval(&e.store, &out.run_id, "c_ls", &ApprovalDecision::Approve).unwrap();
    // A new agent on the same store: the app was closed and opened again.
    let (done, _) = resume(&agent(&e, &server), &out.run_id).await;
    assert_eq!(
        (done.status, done.run_id.as_str()),
        (RunStatus::Completed, out.run_id.as_str())
    );
    assert!(done.answer.starts_with("工具说："), "{}", done.answer);
    assert!(!done.answer.contains("Error"), "{}", done.answer);
    let calls = persist::all_tool_calls(&e.store, &out.thread_id).unwrap();
    assert_eq!(calls[0].status, persist::ToolCallStatus::Completed);
    assert!(persist::open_approvals(&e.store, None).unwrap().is_empty());
    // The model was called once more, not from the start: 2 requests in all.
    assert_eq!(server.request_count(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rejected_call_tells_the_model_why_and_an_answered_one_gives_the_parents_answer() {
    let e = Env::new();
    let server = ScriptedServer::with_responder(respond).unwrap();
    let out = paused(&e, &server).await;
    persist::decide_approval(
        &e.store,
        &out.run_id,
        "c_ls",
        &ApprovalDecision::Reject {
            reason: "先写完作业".into(),
        },
    )
    .unwrap();
    let (done, _) = resume(&agent(&e, &server), &out.run_id).await;
    assert!(
        done.answer
            .contains("a parent did not allow this call (ls): 先写完作业"),
        "{}",
        done.answer
    );

    let e = Env::new();
    let server = ScriptedServer::with_responder(respond).unwrap();
    let out = paused(&e, &server).await;
    persist::decide_approval(
        &e.store,
        &out.run_id,
        "c_ls",
        &ApprovalDecision::Respond {
            answer: "只有 notes.md".into(),
        },
    )
    .unwrap();
    let (done, _) = resume(&agent(&e, &server), &out.run_id).await;
    assert_eq!(done.answer, "工具说：只有 notes.md");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn changed_arguments_are_the_ones_run_and_stored() {
    let e = Env::new();
    let server = ScriptedServer::with_responder(respond).unwrap();
    let out = paused(&e, &server).await;
    let bad = persist::decide_approval(
        &e.store,
        &out.run_id,
        "c_ls",
        &ApprovalDecision::Edit {
            arguments: "{not json".into(),
        },
    );
    assert!(bad.unwrap_err().to_string().contains("not JSON"));
    persist::decide_approval(
        &e.store,
        &out.run_id,
        "c_ls",
        &ApprovalDecision::Edit {
            arguments: r#"{"path": "/skills"}"#.into(),
        },
    )
    .unwrap();
    let (done, _) = resume(&agent(&e, &server), &out.run_id).await;
    assert_eq!(done.status, RunStatus::Completed, "{done:?}");
    let calls = persist::all_tool_calls(&e.store, &out.thread_id).unwrap();
    assert_eq!(calls[0].arguments, r#"{"path": "/skills"}"#);
    // A decision on a call that is not waiting is refused in words.
    let err = persist::decide_approval(&e.store, &out.run_id, "c_ls", &ApprovalDecision::Approve)
        .unwrap_err();
    assert_eq!(err.code(), "not_found");
}
