//! Plug-in tools in real runs (a loopback model server replaying scripted
//! streams, a real SQLite file): tool calls of one reply run at the same
//! time, a stop while tools run still answers every call, and a plug-in
//! that panics becomes error text instead of ending the run, and so does a
//! call past its time limit.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use deskmate_agent::persist::{self, RunStatus, ToolCallStatus};
use deskmate_agent::tools::{Tool, ToolContext, ToolFuture, ToolOutput};
use deskmate_agent::*;
use deskmate_llm::scripted::{openai, ScriptedServer};
use deskmate_llm::{ApiKey, LlmClient, LlmConfig, ModelSpec, RetryPolicy};
use deskmate_store::Store;
use serde_json::{json, Value};

#[cfg(unix)]
mod mcp;

/// When each nap began and ended, by label.
type Log = Arc<Mutex<Vec<(String, Instant, Option<Instant>)>>>;

/// A test-only tool that sleeps `ms` milliseconds (without blocking a
/// thread) and logs when it began and ended.
struct Nap {
    log: Log,
}

impl Tool for Nap {
    fn name(&self) -> &'static str {
        "nap"
    }
    fn description(&self) -> &'static str {
        "Sleeps for ms milliseconds."
    }
    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {"ms": {"type": "integer"}, "label": {"type": "string"}}})
    }
    fn call(&self, _ctx: ToolContext, args: Value) -> ToolFuture {
        let log = Arc::clone(&self.log);
        Box::pin(async move {
            let label = args["label"].as_str().unwrap_or("?").to_string();
            let i = {
                let mut l = log.lock().unwrap();
                l.push((label.clone(), Instant::now(), None));
                l.len() - 1
            };
            tokio::time::sleep(Duration::from_millis(args["ms"].as_u64().unwrap_or(0))).await;
            log.lock().unwrap()[i].2 = Some(Instant::now());
            ToolOutput::ok(format!("{label} slept"))
        })
    }
}

/// A plug-in with a bug.
struct Buggy;

impl Tool for Buggy {
    fn name(&self) -> &'static str {
        "buggy"
    }
    fn description(&self) -> &'static str {
        "Always panics."
    }
    fn parameters(&self) -> Value {
        json!({"type": "object"})
    }
    fn call(&self, _ctx: ToolContext, _args: Value) -> ToolFuture {
        Box::pin(async move {
            tokio::task::yield_now().await;
            panic!("the plug-in lost its lamp");
        })
    }
}

struct Env {
    dir: tempfile::TempDir,
    store: Store,
    log: Log,
}

fn env() -> Env {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("db.sqlite3")).unwrap();
    Env {
        dir,
        store,
        log: Log::default(),
    }
}

impl Env {
    fn agent(&self, server: &ScriptedServer) -> Agent {
        self.agent_with(server, AgentConfig::default())
    }

    fn agent_with(&self, server: &ScriptedServer, config: AgentConfig) -> Agent {
        self.agent_with_tools(server, config, Vec::new())
    }

    /// An agent with the built-in tools, the test plug-ins and `more`.
    fn agent_with_tools(
        &self,
        server: &ScriptedServer,
        config: AgentConfig,
        more: Vec<Arc<dyn Tool>>,
    ) -> Agent {
        let mut c = LlmConfig::new(ModelSpec::parse("openai:m").unwrap());
        c.base_url = Some(server.base_url());
        c.api_key = Some(ApiKey::new("sk-plugin-test").unwrap());
        c.retry = RetryPolicy::none();
        c.idle_timeout = Duration::from_secs(5);
        let mut tools = ToolSet::builtin(SearchConfig::default());
        tools.add(Arc::new(Nap {
            log: Arc::clone(&self.log),
        }));
        tools.add(Arc::new(Buggy));
        for t in more {
            tools.add(t);
        }
        Agent::with_tools(
            self.store.clone(),
            LlmClient::new(c).unwrap(),
            config,
            self.dir.path().join("threads"),
            tools,
        )
    }
}

fn nap(id: &'static str, label: &str, ms: u64) -> (&'static str, &'static str, String) {
    (id, "nap", json!({"label": label, "ms": ms}).to_string())
}

fn reply_with(calls: &[(&'static str, &'static str, String)]) -> deskmate_llm::scripted::Reply {
    let calls: Vec<(&str, &str, &str)> =
        calls.iter().map(|(i, n, a)| (*i, *n, a.as_str())).collect();
    openai::tool_calls(None, &calls)
}

/// Runs `text` on `thread`, cancelling when `stop_when` says so; returns
/// the outcome and every event (checked against the AG-UI order).
async fn run_until(
    agent: &Agent,
    thread: Option<String>,
    text: &str,
    stop_when: impl Fn(&AgUiEvent) -> bool,
) -> (RunOutcome, Vec<AgUiEvent>) {
    let prepared = agent.prepare(RunRequest::text(thread, text)).await.unwrap();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let cancel = CancellationToken::new();
    let handle = tokio::spawn(prepared.execute(tx, cancel.clone()));
    let mut events = Vec::new();
    while let Some(ev) = rx.recv().await {
        if stop_when(&ev) {
            cancel.cancel();
        }
        events.push(ev);
    }
    let out = tokio::time::timeout(Duration::from_secs(10), handle)
        .await
        .expect("the run did not end")
        .unwrap();
    EventOrder::check_run(&events).unwrap_or_else(|e| panic!("bad event order: {e}\n{events:#?}"));
    (out, events)
}

fn results(events: &[AgUiEvent]) -> Vec<(String, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            AgUiEvent::ToolCallResult {
                tool_call_id,
                content,
                ..
            } => Some((tool_call_id.clone(), content.clone())),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn the_tool_calls_of_one_reply_run_at_the_same_time() {
    let e = env();
    let server = ScriptedServer::start(vec![
        reply_with(&[nap("n1", "a", 300), nap("n2", "b", 300)]),
        openai::text("都醒了"),
    ])
    .unwrap();
    let (out, events) = run_until(&e.agent(&server), None, "两个都睡一下", |_| false).await;
    assert_eq!(out.status, RunStatus::Completed, "{out:?}");
    assert_eq!(results(&events).len(), 2);
    let log = e.log.lock().unwrap().clone();
    assert_eq!(log.len(), 2);
    let (a, b) = (&log[0], &log[1]);
    let (a_end, b_end) = (a.2.unwrap(), b.2.unwrap());
    // Overlap: each began before the other ended. Run one after the other,
    // the second would begin only after the first's 300 ms were over.
    assert!(
        a.1 < b_end && b.1 < a_end,
        "the calls did not overlap: {log:?}"
    );
    assert!(a_end.max(b_end) - a.1.min(b.1) >= Duration::from_millis(300));
}

#[tokio::test]
async fn a_stop_while_tools_run_answers_every_call() {
    let e = env();
    let server = ScriptedServer::start(vec![
        reply_with(&[
            nap("quick", "quick", 10),
            nap("slow1", "slow1", 30_000),
            nap("slow2", "slow2", 30_000),
        ]),
        openai::text("我们继续"),
    ])
    .unwrap();
    let agent = e.agent(&server);
    let t = Instant::now();
    // Stop as soon as the quick call's result is out: the slow ones are mid-nap.
    let (out, events) = run_until(
        &agent,
        None,
        "睡",
        |ev| matches!(ev, AgUiEvent::ToolCallResult { tool_call_id, .. } if tool_call_id == "quick"),
    )
    .await;
    assert!(
        t.elapsed() < Duration::from_secs(10),
        "the stop waited for the tools: {:?}",
        t.elapsed()
    );
    assert_eq!(out.status, RunStatus::Cancelled, "{out:?}");
    match events.last().unwrap() {
        AgUiEvent::RunFinished { result, .. } => {
            assert_eq!(result.as_ref().unwrap()["status"], "cancelled")
        }
        other => panic!("expected RUN_FINISHED, got {other:?}"),
    }
    let got = results(&events);
    assert_eq!(got.len(), 3, "{got:?}");
    assert_eq!(got[0], ("quick".to_string(), "quick slept".to_string()));
    for (id, content) in &got[1..] {
        assert!(id.starts_with("slow"));
        assert!(content.starts_with("Error: stopped"), "{content}");
    }
    // Both slow naps began and none finished: they were really running.
    let log = e.log.lock().unwrap().clone();
    assert_eq!(
        log.iter()
            .filter(|(l, _, end)| l.starts_with("slow") && end.is_none())
            .count(),
        2,
        "{log:?}"
    );
    assert_eq!(
        persist::get_run(&e.store, &out.run_id).unwrap().status,
        RunStatus::Cancelled
    );
    let calls = persist::tool_calls(&e.store, &out.thread_id).unwrap();
    let status = |id: &str| calls.iter().find(|c| c.id == id).unwrap().status;
    assert_eq!(
        (status("quick"), status("slow1"), status("slow2")),
        (
            ToolCallStatus::Completed,
            ToolCallStatus::Error,
            ToolCallStatus::Error
        )
    );
    // The thread goes on, and the model sees an answer for every call.
    let (next, _) = run_until(&agent, Some(out.thread_id.clone()), "继续", |_| false).await;
    assert_eq!(
        (next.status, next.answer.as_str()),
        (RunStatus::Completed, "我们继续")
    );
    let sent = server.requests()[1].body["messages"]
        .as_array()
        .unwrap()
        .clone();
    let answered: Vec<&str> = sent
        .iter()
        .filter_map(|m| m["tool_call_id"].as_str())
        .collect();
    assert_eq!(answered.len(), 3);
    for id in ["quick", "slow1", "slow2"] {
        assert!(answered.contains(&id), "{id} unanswered in {answered:?}");
    }
}

#[tokio::test]
async fn a_panicking_plug_in_becomes_error_text_and_the_run_goes_on() {
    let e = env();
    let server = ScriptedServer::start(vec![
        reply_with(&[("b1", "buggy", "{}".to_string()), nap("n1", "fine", 10)]),
        openai::text("那个工具坏了"),
    ])
    .unwrap();
    let (out, events) = run_until(&e.agent(&server), None, "试试", |_| false).await;
    assert_eq!(out.status, RunStatus::Completed, "{out:?}");
    assert_eq!(out.answer, "那个工具坏了");
    let got = results(&events);
    let buggy = &got.iter().find(|(id, _)| id == "b1").unwrap().1;
    assert!(
        buggy.starts_with("Error: the tool buggy failed unexpectedly"),
        "{buggy}"
    );
    assert!(buggy.contains("the plug-in lost its lamp"), "{buggy}");
    let calls = persist::tool_calls(&e.store, &out.thread_id).unwrap();
    let status = |id: &str| calls.iter().find(|c| c.id == id).unwrap().status;
    assert_eq!(
        (status("b1"), status("n1")),
        (ToolCallStatus::Error, ToolCallStatus::Completed)
    );
    assert!(server.requests()[1]
        .body
        .to_string()
        .contains("failed unexpectedly"));
}

#[tokio::test]
async fn a_call_past_its_time_limit_becomes_error_text_and_the_run_goes_on() {
    let e = env();
    let server = ScriptedServer::start(vec![
        reply_with(&[nap("long", "long", 30_000), nap("short", "short", 10)]),
        openai::text("那个太慢了"),
    ])
    .unwrap();
    let config = AgentConfig {
        tool_time_limits: ToolTimeLimits::default().with("nap", Duration::from_millis(300)),
        ..AgentConfig::default()
    };
    let (out, events) = run_until(&e.agent_with(&server, config), None, "睡", |_| false).await;
    assert_eq!(
        (out.status, out.answer.as_str()),
        (RunStatus::Completed, "那个太慢了"),
        "{out:?}"
    );
    let got = results(&events);
    let long = &got.iter().find(|(id, _)| id == "long").unwrap().1;
    assert!(
        long.starts_with("Error: the tool nap took longer than its time limit of 300 ms"),
        "{long}"
    );
    let short = &got.iter().find(|(id, _)| id == "short").unwrap().1;
    assert_eq!(short, "short slept");
    // The long nap began and never finished: it was given up, not waited for.
    let log = e.log.lock().unwrap().clone();
    assert!(
        log.iter().any(|(l, _, end)| l == "long" && end.is_none()),
        "{log:?}"
    );
    let calls = persist::tool_calls(&e.store, &out.thread_id).unwrap();
    let status = |id: &str| calls.iter().find(|c| c.id == id).unwrap().status;
    assert_eq!(
        (status("long"), status("short")),
        (ToolCallStatus::Error, ToolCallStatus::Completed)
    );
    // The model was told.
    assert!(server.requests()[1]
        .body
        .to_string()
        .contains("time limit of 300 ms"));
}
