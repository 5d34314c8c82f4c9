//! The agent end to end against a real loopback model server replaying
//! scripted streams: tool loops in both wire formats, parallel calls, todos,
//! failures returned as text, the step limit, stops, broken streams,
//! malformed JSON, rate limits and server errors, large results, cost,
//! crash recovery and secrets kept out of the database.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::time::Duration;

use deskmate_agent::persist::{self, RunStatus, ToolCallStatus};
use deskmate_agent::*;
use deskmate_llm::scripted::{anthropic, openai, Frame, Reply, ScriptedServer};
use deskmate_llm::{ApiKey, LlmClient, LlmConfig, Message, ModelSpec, RetryPolicy, Role, ToolCall};
use deskmate_store::Store;

use crate::common;
use common::{run, KEY};

struct Env {
    dir: tempfile::TempDir,
    store: Store,
}

fn env() -> Env {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("db.sqlite3")).unwrap();
    Env { dir, store }
}

impl Env {
    fn threads(&self) -> std::path::PathBuf {
        self.dir.path().join("threads")
    }
    fn agent(&self, server: &ScriptedServer, model: &str, config: AgentConfig) -> Agent {
        let mut c = LlmConfig::new(ModelSpec::parse(model).unwrap());
        c.base_url = Some(server.base_url());
        c.api_key = Some(ApiKey::new(KEY).unwrap());
        c.retry = RetryPolicy {
            max_retries: 1,
            base_delay: Duration::from_millis(5),
            ..Default::default()
        };
        c.idle_timeout = Duration::from_secs(5);
        Agent::new(
            self.store.clone(),
            LlmClient::new(c).unwrap(),
            config,
            self.threads(),
            SearchConfig::default(),
        )
    }
}

fn kinds(events: &[AgUiEvent]) -> Vec<&'static str> {
    events.iter().map(AgUiEvent::kind).collect()
}

async fn tool_loop_in(model: &str, first: Reply, last: Reply) {
    let e = env();
    let server = ScriptedServer::start(vec![first, last]).unwrap();
    let agent = e.agent(&server, model, AgentConfig::default());
    let (out, events) = run(&agent, None, "帮我记下今天要背的诗").await;
    assert_eq!(out.status, RunStatus::Completed, "{out:?}");
    assert_eq!(out.answer, "记好了！");
    assert_eq!(out.steps, 2);
    // The file the model asked for exists in the thread's workspace.
    let ws = workspace_dir(&e.threads(), &out.thread_id);
    assert_eq!(
        std::fs::read_to_string(ws.join("poems/today.md")).unwrap(),
        "静夜思"
    );
    // Events: both calls start, stream args, end and get results; step pairs; one run.
    let k = kinds(&events);
    assert_eq!(k.first(), Some(&"RUN_STARTED"));
    assert_eq!(k.last(), Some(&"RUN_FINISHED"));
    assert_eq!(k.iter().filter(|k| **k == "TOOL_CALL_RESULT").count(), 2);
    assert!(
        k.iter().filter(|k| **k == "TOOL_CALL_ARGS").count() >= 4,
        "arguments arrive in pieces: {k:?}"
    );
    assert_eq!(k.iter().filter(|k| **k == "STEP_STARTED").count(), 2);
    let text: String = events
        .iter()
        .filter_map(|e| match e {
            AgUiEvent::TextMessageContent { delta, .. } => Some(delta.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(text, "好的。记好了！");
    // The second model call saw both tool results, paired to their calls.
    let second = &server.requests()[1].body;
    let sent = second.to_string();
    assert!(sent.contains("Updated file /poems/today.md"), "{sent}");
    assert!(sent.contains("call_ls") || sent.contains("toolu_ls"));
    // Stored: user, assistant(2 calls), 2 tool results, assistant answer.
    let view = persist::thread_view(&e.store, &out.thread_id).unwrap();
    let roles: Vec<Role> = view.messages.iter().map(|m| m.message.role).collect();
    assert_eq!(
        roles,
        vec![
            Role::User,
            Role::Assistant,
            Role::Tool,
            Role::Tool,
            Role::Assistant
        ]
    );
    assert_eq!(view.messages[1].message.tool_calls.len(), 2);
    assert!(view
        .tool_calls
        .iter()
        .all(|c| c.status == ToolCallStatus::Completed));
    assert_eq!(view.runs.len(), 1);
    assert_eq!(view.runs[0].status, RunStatus::Completed);
    assert_eq!(view.thread.title, "帮我记下今天要背的诗");
    let (usage, _cost, calls) = persist::run_usage(&e.store, &out.run_id).unwrap();
    assert_eq!(calls, 2);
    assert!(usage.input_tokens > 0 && usage.output_tokens > 0);
}

#[tokio::test]
async fn openai_tool_loop_end_to_end() {
    let calls = [
        (
            "call_write",
            "write_file",
            r#"{"file_path": "/poems/today.md", "content": "静夜思"}"#,
        ),
        ("call_ls", "ls", r#"{"path": "/"}"#),
    ];
    tool_loop_in(
        "openai:gpt-4o-mini",
        openai::tool_calls(Some("好的。"), &calls),
        openai::text("记好了！"),
    )
    .await;
}

#[tokio::test]
async fn anthropic_tool_loop_end_to_end() {
    let calls = [
        (
            "toolu_write",
            "write_file",
            r#"{"file_path": "/poems/today.md", "content": "静夜思"}"#,
        ),
        ("toolu_ls", "ls", r#"{"path": "/"}"#),
    ];
    tool_loop_in(
        "anthropic:claude-3-5-haiku-latest",
        anthropic::tool_calls(Some("好的。"), &calls),
        anthropic::text("记好了！"),
    )
    .await;
}

#[tokio::test]
async fn a_thread_reloads_exactly_and_continues() {
    let e = env();
    let server = ScriptedServer::start(vec![
        openai::tool_calls(
            None,
            &[(
                "c1",
                "write_todos",
                r#"{"todos":[{"content":"读一遍","status":"in_progress"},{"content":"背诵","status":"pending"}]}"#,
            )],
        ),
        openai::text("开始吧"),
        openai::text("第二轮"),
    ])
    .unwrap();
    let agent = e.agent(&server, "openai:m", AgentConfig::default());
    let (first, events) = run(&agent, None, "plan").await;
    let deltas: Vec<_> = events
        .iter()
        .filter(|e| matches!(e, AgUiEvent::StateDelta { .. }))
        .collect();
    assert_eq!(deltas.len(), 1);
    let state = persist::load_state(&e.store, &first.thread_id).unwrap();
    assert_eq!(state.todos.len(), 2);
    assert_eq!(state.todos[0].status, TodoStatus::InProgress);

    let before = persist::messages(&e.store, &first.thread_id).unwrap();
    let (second, events) = run(&agent, Some(first.thread_id.clone()), "next").await;
    assert_eq!(second.answer, "第二轮");
    // The snapshot at the start of the second run carries the todos.
    match &events[1] {
        AgUiEvent::StateSnapshot { snapshot } => {
            assert_eq!(snapshot["todos"][1]["content"], "背诵")
        }
        other => panic!("expected a snapshot, got {other:?}"),
    }
    // What the model got is exactly what was stored, in order.
    let sent = &server.requests()[2].body["messages"];
    let sent = sent.as_array().unwrap();
    assert_eq!(
        sent.len(),
        before.len() + 2,
        "system + history + new user message"
    );
    assert_eq!(sent[2]["tool_calls"][0]["id"], "c1");
    assert_eq!(sent[3]["tool_call_id"], "c1");
    let after = persist::messages(&e.store, &first.thread_id).unwrap();
    assert_eq!(
        &after[..before.len()],
        &before[..],
        "earlier messages are unchanged"
    );
    assert_eq!(after.len(), before.len() + 2);
    assert!(after.windows(2).all(|w| w[0].seq < w[1].seq));
}

#[tokio::test]
async fn tool_failures_go_back_to_the_model_as_text() {
    let e = env();
    let server = ScriptedServer::start(vec![
        openai::tool_calls(
            None,
            &[
                ("c1", "read_file", r#"{"file_path": "/missing.md"}"#),
                ("c2", "no_such_tool", "{}"),
                ("c3", "grep", r#"{"pattern": "(", "path": "/"}"#),
                ("c4", "edit_file", "{not json"),
                ("c5", "read_file", r#"{"file_path": "../../etc/passwd"}"#),
                ("c6", "internet_search", r#"{"query": "今天天气"}"#),
            ],
        ),
        openai::text("抱歉"),
    ])
    .unwrap();
    let agent = e.agent(&server, "openai:m", AgentConfig::default());
    let (out, events) = run(&agent, None, "go").await;
    assert_eq!(out.status, RunStatus::Completed);
    let results: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            AgUiEvent::ToolCallResult { content, .. } => Some(content.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(results.len(), 6);
    assert!(
        results.iter().all(|r| r.starts_with("Error")),
        "{results:#?}"
    );
    let all = results.join("\n");
    for expected in [
        "not found",
        "no tool named",
        "invalid regex",
        "not valid JSON",
        "go up with ..",
        "search is not enabled",
    ] {
        assert!(all.contains(expected), "missing {expected:?} in {all}");
    }
    let calls = persist::tool_calls(&e.store, &out.thread_id).unwrap();
    assert!(calls.iter().all(|c| c.status == ToolCallStatus::Error));
}

#[tokio::test]
async fn the_step_limit_stops_an_endless_loop() {
    let e = env();
    let n = std::sync::atomic::AtomicUsize::new(0);
    let server = ScriptedServer::with_responder(move |_| {
        let i = n.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        openai::tool_calls(None, &[(&format!("c{i}"), "ls", "{}")])
    })
    .unwrap();
    let agent = e.agent(
        &server,
        "openai:m",
        AgentConfig {
            max_steps: 3,
            ..Default::default()
        },
    );
    let (out, events) = run(&agent, None, "loop").await;
    assert_eq!(out.status, RunStatus::StepLimit);
    assert_eq!(server.request_count(), 3);
    match events.last().unwrap() {
        AgUiEvent::RunError { code, .. } => assert_eq!(code.as_deref(), Some("STEP_LIMIT")),
        other => panic!("{other:?}"),
    }
    let runs = persist::runs(&e.store, &out.thread_id).unwrap();
    assert_eq!((runs[0].status, runs[0].steps), (RunStatus::StepLimit, 3));
}

#[tokio::test]
async fn a_stop_mid_stream_keeps_what_was_said() {
    let e = env();
    let mut frames = openai::text_frames("我想一想", 2);
    frames.push(Frame::Delay(Duration::from_secs(30)));
    let server = ScriptedServer::start(vec![Reply::Stream(frames), openai::text("继续")]).unwrap();
    let agent = e.agent(&server, "openai:m", AgentConfig::default());
    let prepared = agent.prepare(RunRequest::text(None, "hi")).await.unwrap();
    let thread_id = prepared.thread_id().to_string();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let cancel = CancellationToken::new();
    let handle = tokio::spawn(prepared.execute(tx, cancel.clone()));
    let mut events = Vec::new();
    while let Some(ev) = rx.recv().await {
        let is_text = matches!(ev, AgUiEvent::TextMessageContent { .. });
        events.push(ev);
        if is_text
            && events
                .iter()
                .filter(|e| matches!(e, AgUiEvent::TextMessageContent { .. }))
                .count()
                == 2
        {
            cancel.cancel();
        }
    }
    let out = tokio::time::timeout(Duration::from_secs(5), handle)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(out.status, RunStatus::Cancelled);
    EventOrder::check_run(&events).unwrap();
    let msgs = persist::messages(&e.store, &thread_id).unwrap();
    assert_eq!(
        msgs.last().unwrap().message,
        Message::assistant("我想一想", vec![])
    );
    // The thread goes on.
    let (next, _) = run(&agent, Some(thread_id), "again").await;
    assert_eq!(next.answer, "继续");
}

#[tokio::test]
async fn a_broken_stream_ends_the_run_with_run_error_and_no_dangling_calls() {
    let e = env();
    let mut frames = openai::text_frames("先看看", 1);
    frames.extend(openai::tool_call_frames(&[("c1", "ls", "{}")]));
    frames.push(Frame::Disconnect);
    let server = ScriptedServer::start(vec![Reply::Stream(frames), openai::text("好了")]).unwrap();
    let agent = e.agent(&server, "openai:m", AgentConfig::default());
    let (out, events) = run(&agent, None, "x").await;
    assert_eq!(out.status, RunStatus::Error);
    match events.last().unwrap() {
        AgUiEvent::RunError { code, message } => {
            assert_eq!(code.as_deref(), Some("NETWORK"));
            assert!(message.contains("cannot reach"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    let calls = persist::tool_calls(&e.store, &out.thread_id).unwrap();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].status, ToolCallStatus::Error);
    let (next, _) = run(&agent, Some(out.thread_id.clone()), "retry").await;
    assert_eq!(next.status, RunStatus::Completed);
}

/// Checks a run that failed: its outcome, the stored run and the final
/// `RUN_ERROR` (its code and words).
fn assert_failed(e: &Env, out: &RunOutcome, events: &[AgUiEvent], code: &str, says: &str) {
    assert_eq!(out.status, RunStatus::Error, "{out:?}");
    match events.last().unwrap() {
        AgUiEvent::RunError { code: c, message } => {
            assert_eq!(c.as_deref(), Some(code), "{message}");
            assert!(message.contains(says), "{message:?} does not say {says:?}");
        }
        other => panic!("expected RUN_ERROR last, got {other:?}"),
    }
    let stored = persist::get_run(&e.store, &out.run_id).unwrap();
    assert_eq!(stored.status, RunStatus::Error);
    assert!(
        stored.error.as_deref().unwrap_or_default().contains(says),
        "{stored:?}"
    );
}

/// Sends another message on the thread and checks it is answered with `answer`.
async fn continues(agent: &Agent, thread_id: &str, answer: &str) {
    let (next, _) = run(agent, Some(thread_id.to_string()), "再试一次").await;
    assert_eq!(next.status, RunStatus::Completed, "{next:?}");
    assert_eq!(next.answer, answer);
}

#[tokio::test]
async fn malformed_json_mid_stream_ends_the_run_and_keeps_the_partial_text() {
    let e = env();
    let mut frames = openai::text_frames("我先想想", 2);
    frames.push(Frame::Data(r#"{"choices": [{"delta": {"content": "#.into()));
    frames.extend(openai::end_frames("stop", 1, 1));
    let server =
        ScriptedServer::start(vec![Reply::Stream(frames), openai::text("想好了")]).unwrap();
    let agent = e.agent(&server, "openai:m", AgentConfig::default());
    let (out, events) = run(&agent, None, "x").await;
    assert_failed(&e, &out, &events, "PROTOCOL", "cannot read");
    assert_eq!(
        server.request_count(),
        1,
        "a reply already shown is not sent again"
    );
    let msgs = persist::messages(&e.store, &out.thread_id).unwrap();
    assert_eq!(
        msgs.last().unwrap().message,
        Message::assistant("我先想想", vec![]),
        "the partial text is kept"
    );
    let status: String = e
        .store
        .with_conn(|c| {
            Ok(c.query_row(
                "SELECT status FROM llm_calls WHERE run_id = ?1",
                [&out.run_id],
                |r| r.get(0),
            )?)
        })
        .unwrap();
    assert_eq!(status, "error");
    continues(&agent, &out.thread_id, "想好了").await;
    // The model saw the cut-off reply in the history.
    let sent = server.requests()[1].body["messages"].to_string();
    assert!(sent.contains("我先想想"), "{sent}");
}

#[tokio::test]
async fn rate_limits_wait_for_retry_after_or_end_the_run_with_rate_limited() {
    let e = env();
    let limited = |after| {
        deskmate_llm::scripted::status(
            429,
            Some(after),
            r#"{"error":{"message":"Rate limit reached"}}"#,
        )
    };
    let server = ScriptedServer::start(vec![
        limited("0.2"),
        openai::text("等到了"),
        // One try and one retry (the test agent's policy), both limited.
        limited("0.05"),
        limited("0.05"),
        openai::text("这次可以"),
        // A wait longer than the policy allows is not made at all.
        limited("3600"),
        openai::text("又可以了"),
    ])
    .unwrap();
    let agent = e.agent(&server, "openai:m", AgentConfig::default());
    let t = std::time::Instant::now();
    let (out, events) = run(&agent, None, "x").await;
    assert_eq!(out.status, RunStatus::Completed, "{out:?}");
    assert_eq!(out.answer, "等到了");
    assert!(
        t.elapsed() >= Duration::from_millis(200),
        "retry-after was not waited for: {:?}",
        t.elapsed()
    );
    assert!(!events
        .iter()
        .any(|e| matches!(e, AgUiEvent::RunError { .. })));
    assert_eq!(server.request_count(), 2);

    let (out, events) = run(&agent, Some(out.thread_id.clone()), "y").await;
    assert_failed(&e, &out, &events, "RATE_LIMITED", "rate limiting");
    assert_eq!(server.request_count(), 4);
    continues(&agent, &out.thread_id, "这次可以").await;

    let t = std::time::Instant::now();
    let (out, events) = run(&agent, Some(out.thread_id.clone()), "z").await;
    assert_failed(&e, &out, &events, "RATE_LIMITED", "retry after 3600");
    assert!(
        t.elapsed() < Duration::from_secs(10),
        "waited {:?}",
        t.elapsed()
    );
    continues(&agent, &out.thread_id, "又可以了").await;
    let runs = persist::runs(&e.store, &out.thread_id).unwrap();
    let statuses: Vec<RunStatus> = runs.iter().map(|r| r.status).collect();
    use RunStatus::{Completed, Error};
    assert_eq!(statuses, [Completed, Error, Completed, Error, Completed]);
}

#[tokio::test]
async fn server_errors_are_retried_then_end_the_run_with_server() {
    let e = env();
    let down =
        || deskmate_llm::scripted::status(500, None, r#"{"error":{"message":"internal failure"}}"#);
    let server = ScriptedServer::start(vec![
        down(),
        openai::text("恢复了"),
        down(),
        down(),
        openai::text("好了"),
    ])
    .unwrap();
    let agent = e.agent(&server, "openai:m", AgentConfig::default());
    let (out, _) = run(&agent, None, "x").await;
    assert_eq!(
        (out.status, out.answer.as_str()),
        (RunStatus::Completed, "恢复了"),
        "one 500 is retried"
    );
    let (out, events) = run(&agent, Some(out.thread_id.clone()), "y").await;
    assert_failed(
        &e,
        &out,
        &events,
        "SERVER",
        "server error (HTTP 500): internal failure",
    );
    assert_eq!(server.request_count(), 4);
    // Nothing of the failed reply was stored: the thread ends with the user's message.
    let msgs = persist::messages(&e.store, &out.thread_id).unwrap();
    assert_eq!(msgs.last().unwrap().message, Message::user("y"));
    continues(&agent, &out.thread_id, "好了").await;
}

#[tokio::test]
async fn each_model_call_stores_its_cost_for_priced_models() {
    let e = env();
    let server = ScriptedServer::start(vec![
        openai::tool_calls(None, &[("c1", "ls", "{}")]),
        openai::text("好"),
        openai::text("unpriced"),
    ])
    .unwrap();
    let cost_of = |run_id: &str| -> Vec<(Option<f64>, i64, i64)> {
        e.store
            .with_conn(|c| {
                let mut st =
                    c.prepare("SELECT cost_usd, input_tokens, output_tokens FROM llm_calls WHERE run_id = ?1 ORDER BY rowid")?;
                let rows = st.query_map([run_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
                Ok(rows.collect::<Result<Vec<_>, _>>()?)
            })
            .unwrap()
    };
    // gpt-4o-mini has a built-in price: $0.15 in, $0.60 out per million tokens.
    let priced = e.agent(&server, "openai:gpt-4o-mini", AgentConfig::default());
    let (out, _) = run(&priced, None, "x").await;
    assert_eq!(out.status, RunStatus::Completed);
    let calls = cost_of(&out.run_id);
    assert_eq!(calls.len(), 2);
    assert_eq!(
        (calls[0].1, calls[0].2, calls[1].1, calls[1].2),
        (20, 10, 10, 5),
        "usage of the scripted replies"
    );
    let expected = [
        (20.0 * 0.15 + 10.0 * 0.60) / 1e6,
        (10.0 * 0.15 + 5.0 * 0.60) / 1e6,
    ];
    for ((cost, _, _), want) in calls.iter().zip(expected) {
        let cost = cost.expect("a priced model's call has a cost");
        assert!((cost - want).abs() < 1e-12, "{cost} != {want}");
    }
    let (_, total, _) = persist::run_usage(&e.store, &out.run_id).unwrap();
    assert!((total - expected.iter().sum::<f64>()).abs() < 1e-12);
    // A model with no known price stores NULL, not zero.
    let unpriced = e.agent(&server, "openai:my-finetune", AgentConfig::default());
    let (out, _) = run(&unpriced, None, "y").await;
    assert_eq!(cost_of(&out.run_id), [(None, 10, 5)]);
}

#[tokio::test]
async fn large_results_move_to_the_workspace() {
    let e = env();
    let server = ScriptedServer::start(vec![
        openai::tool_calls(
            None,
            &[(
                "big1",
                "grep",
                r#"{"pattern": "line", "output_mode": "content"}"#,
            )],
        ),
        openai::text("done"),
    ])
    .unwrap();
    let agent = e.agent(
        &server,
        "openai:m",
        AgentConfig {
            large_result_tokens: 200,
            ..Default::default()
        },
    );
    // Seed the workspace of a new thread with a big file.
    let thread = persist::create_thread(&e.store, None, "big").unwrap();
    let ws = workspace_dir(&e.threads(), &thread.id);
    std::fs::create_dir_all(&ws).unwrap();
    let big: String = (0..400).map(|i| format!("line {i}\n")).collect();
    std::fs::write(ws.join("big.txt"), &big).unwrap();
    let (out, events) = run(&agent, Some(thread.id.clone()), "search").await;
    assert_eq!(out.status, RunStatus::Completed);
    let result = events
        .iter()
        .find_map(|e| match e {
            AgUiEvent::ToolCallResult { content, .. } => Some(content.clone()),
            _ => None,
        })
        .unwrap();
    assert!(result.contains("/large_tool_results/big1"), "{result}");
    assert!(result.contains("/big.txt:1: line 0") && result.contains("/big.txt:400: line 399"));
    assert!(!result.contains("line 200\n"));
    let saved = std::fs::read_to_string(ws.join("large_tool_results/big1")).unwrap();
    assert_eq!(saved.lines().count(), 400);
}

fn seed_crashed_run(store: &Store) -> (String, String) {
    let thread = persist::create_thread(store, None, "crash").unwrap();
    let run = persist::start_run(store, &thread.id, "openai:m").unwrap();
    persist::insert_message(
        store,
        &thread.id,
        Some(&run.id),
        None,
        &Message::user("写一个文件"),
    )
    .unwrap();
    let calls = vec![ToolCall {
        id: "dangling".into(),
        name: "write_file".into(),
        arguments: "{}".into(),
    }];
    persist::insert_message(
        store,
        &thread.id,
        Some(&run.id),
        None,
        &Message::assistant("", calls),
    )
    .unwrap();
    (thread.id, run.id)
}

#[tokio::test]
async fn crashed_runs_are_interrupted_and_their_calls_answered() {
    let e = env();
    let (thread_id, run_id) = seed_crashed_run(&e.store);
    // A live run (its lock held) is not touched.
    let lock = ThreadLock::try_acquire(&e.threads(), &thread_id)
        .unwrap()
        .unwrap();
    assert_eq!(recover_interrupted_runs(&e.store, &e.threads()).unwrap(), 0);
    drop(lock);
    assert_eq!(recover_interrupted_runs(&e.store, &e.threads()).unwrap(), 1);
    assert_eq!(
        recover_interrupted_runs(&e.store, &e.threads()).unwrap(),
        0,
        "idempotent"
    );
    let run = persist::get_run(&e.store, &run_id).unwrap();
    assert_eq!(run.status, RunStatus::Interrupted);
    let calls = persist::tool_calls(&e.store, &thread_id).unwrap();
    assert_eq!(calls[0].status, ToolCallStatus::Interrupted);
    let msgs = persist::messages(&e.store, &thread_id).unwrap();
    assert_eq!(msgs.len(), 3);
    assert_eq!(msgs[2].message.tool_call_id.as_deref(), Some("dangling"));
    assert!(msgs[2].message.text().contains("interrupted"));
}

#[tokio::test]
async fn a_new_run_repairs_a_crashed_thread_itself() {
    let e = env();
    let (thread_id, run_id) = seed_crashed_run(&e.store);
    let server = ScriptedServer::start(vec![openai::text("我们继续")]).unwrap();
    let agent = e.agent(&server, "openai:m", AgentConfig::default());
    let (out, _) = run(&agent, Some(thread_id.clone()), "继续").await;
    assert_eq!(out.answer, "我们继续");
    assert_eq!(
        persist::get_run(&e.store, &run_id).unwrap().status,
        RunStatus::Interrupted
    );
    let sent = server.requests()[0].body["messages"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(sent[3]["role"], "tool");
    assert_eq!(sent[3]["tool_call_id"], "dangling");
}

#[tokio::test]
async fn one_run_per_thread_at_a_time() {
    let e = env();
    let server = ScriptedServer::start(vec![]).unwrap();
    let agent = e.agent(&server, "openai:m", AgentConfig::default());
    let thread = persist::create_thread(&e.store, None, "t").unwrap();
    let _held = agent
        .prepare(RunRequest::text(Some(thread.id.clone()), "one"))
        .await
        .unwrap();
    let second = agent
        .prepare(RunRequest::text(Some(thread.id.clone()), "two"))
        .await;
    assert!(matches!(second, Err(AgentError::Busy(_))));
    assert!(matches!(
        agent.prepare(RunRequest::text(None, "  ")).await,
        Err(AgentError::EmptyMessage)
    ));
    assert!(matches!(
        agent
            .prepare(RunRequest::text(Some("nope".into()), "x"))
            .await,
        Err(AgentError::ThreadNotFound(_))
    ));
}

fn file_contains(path: &Path, needle: &[u8]) -> bool {
    std::fs::read(path)
        .map(|b| b.windows(needle.len()).any(|w| w == needle))
        .unwrap_or(false)
}

#[tokio::test]
async fn the_api_key_never_reaches_the_database() {
    let e = env();
    let server = ScriptedServer::start(vec![
        openai::tool_calls(None, &[("c1", "ls", "{}")]),
        deskmate_llm::scripted::status(
            401,
            None,
            &format!(r#"{{"error":{{"message":"bad key {KEY}"}}}}"#),
        ),
    ])
    .unwrap();
    let agent = e.agent(&server, "openai:m", AgentConfig::default());
    let (out, _) = run(&agent, None, "hi").await;
    assert_eq!(out.status, RunStatus::Error);
    assert!(!out.error.unwrap().contains(KEY));
    assert!(server
        .requests()
        .iter()
        .all(|r| r.header("authorization") == Some(&format!("Bearer {KEY}"))));
    drop(agent);
    let db = e.dir.path().join("db.sqlite3");
    for f in [db.clone(), db.with_extension("sqlite3-wal")] {
        assert!(
            !file_contains(&f, KEY.as_bytes()),
            "key found in {}",
            f.display()
        );
    }
    // The error itself was stored, redacted.
    let runs = persist::runs(&e.store, &out.thread_id).unwrap();
    assert!(runs[0].error.as_deref().unwrap().contains("[redacted]"));
}

#[tokio::test]
async fn the_workspace_is_made_only_when_a_tool_first_uses_it() {
    use deskmate_agent::skills::{SkillFile, SkillSource};
    let e = env();
    let skill = |folder: &str| SkillFile {
        folder: folder.into(),
        source: SkillSource::BuiltIn,
        text: format!("---\nname: {folder}\ndescription: how to {folder}\n---\n# Steps\n"),
    };
    let server = ScriptedServer::start(vec![
        openai::tool_calls(
            None,
            &[(
                "c1",
                "write_todos",
                r#"{"todos":[{"content":"读","status":"pending"}]}"#,
            )],
        ),
        openai::text("好"),
        openai::tool_calls(None, &[("c2", "ls", r#"{"path":"/skills"}"#)]),
        openai::text("看过了"),
    ])
    .unwrap();
    let config = AgentConfig {
        skills: std::sync::Arc::new(SkillLibrary::new(
            vec![skill("poem-explanation"), skill("study-plans")],
            vec![],
        )),
        ..AgentConfig::default()
    };
    let agent = e.agent(&server, "openai:m", config);
    // A turn with no file tool leaves the disk alone.
    let (first, _) = run(&agent, None, "plan").await;
    assert_eq!(first.status, RunStatus::Completed, "{first:?}");
    let ws = workspace_dir(&e.threads(), &first.thread_id);
    assert!(!ws.exists(), "no file tool ran, yet {ws:?} was made");
    // The first file tool makes it, with the skills as they are now.
    let (second, events) = run(&agent, Some(first.thread_id.clone()), "skills?").await;
    assert_eq!(second.status, RunStatus::Completed, "{second:?}");
    let listed = events
        .iter()
        .find_map(|e| match e {
            AgUiEvent::ToolCallResult { content, .. } => Some(content.clone()),
            _ => None,
        })
        .unwrap();
    assert!(
        listed.contains("poem-explanation") && listed.contains("study-plans"),
        "{listed}"
    );
    assert!(ws.join("skills/study-plans/SKILL.md").is_file());
}
