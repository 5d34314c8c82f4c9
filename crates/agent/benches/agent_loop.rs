//! Agent runtime benchmark: prints loop overhead per step with an instant
//! scripted model, the delay from a streamed token leaving the model server
//! to its AG-UI event, runs per second with 50 concurrent threads, what a
//! `task` call costs beyond its model time, and two subagents started in one
//! reply finishing in about the longer one's time.
//!
//! `cargo bench -p deskmate-agent --bench agent_loop`

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use deskmate_agent::*;
use deskmate_llm::scripted::{now_us, openai, Frame, Reply, ScriptedServer};
use deskmate_llm::{LlmClient, LlmConfig, ModelSpec, RetryPolicy};
use deskmate_store::Store;

fn client(server: &ScriptedServer) -> LlmClient {
    let mut c = LlmConfig::new(ModelSpec::parse("openai:bench").unwrap_or_else(|e| panic!("{e}")));
    c.base_url = Some(server.base_url());
    c.retry = RetryPolicy::none();
    LlmClient::new(c).unwrap_or_else(|e| panic!("{e}"))
}

fn agent(store: &Store, dir: &std::path::Path, server: &ScriptedServer, max_steps: u32) -> Agent {
    let config = AgentConfig {
        max_steps,
        ..Default::default()
    };
    Agent::new(
        store.clone(),
        client(server),
        config,
        dir.join("threads"),
        SearchConfig::default(),
    )
}

async fn run_once(
    agent: &Agent,
    thread: Option<String>,
    text: &str,
) -> (RunOutcome, Vec<(AgUiEvent, Instant)>) {
    let prepared = agent
        .prepare(RunRequest::text(thread, text))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let collector = tokio::spawn(async move {
        let mut evs = Vec::new();
        while let Some(ev) = rx.recv().await {
            evs.push((ev, Instant::now()));
        }
        evs
    });
    let out = prepared.execute(tx, CancellationToken::new()).await;
    let evs = collector.await.unwrap_or_default();
    (out, evs)
}

fn percentile(mut v: Vec<f64>, p: f64) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    let i = ((v.len() as f64 - 1.0) * p).round() as usize;
    v.get(i).copied().unwrap_or(f64::NAN)
}

/// CPU time used so far by all live threads of this process (agent, tokio
/// workers, blocking pool and the in-process scripted server), from
/// `/proc/self/task/*/schedstat`; `None` where that is not available. Unlike
/// wall time it hardly moves when other jobs load the machine.
fn cpu_ns() -> Option<u64> {
    let mut total = 0;
    for task in std::fs::read_dir("/proc/self/task").ok()? {
        let stat = std::fs::read_to_string(task.ok()?.path().join("schedstat")).ok()?;
        total += stat.split_whitespace().next()?.parse::<u64>().ok()?;
    }
    Some(total)
}

/// Sends `bodies` again over HTTP, one after another, reading each stream
/// whole: the model's share of a step without the agent. Returns the time.
async fn replay(http: &reqwest::Client, url: &str, bodies: &[serde_json::Value]) -> Duration {
    let t = Instant::now();
    for body in bodies {
        let resp = http
            .post(url)
            .json(body)
            .send()
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        resp.bytes().await.unwrap_or_else(|e| panic!("{e}"));
    }
    t.elapsed()
}

async fn loop_overhead(dir: &std::path::Path) {
    const STEPS: u32 = 20;
    const RUNS: u32 = 10;
    let store = Store::open(&dir.join("steps.sqlite3")).unwrap_or_else(|e| panic!("{e}"));
    let (journal, synchronous): (String, i64) = store
        .with_conn(|c| {
            let j = c.query_row("PRAGMA journal_mode", [], |r| r.get(0))?;
            let s = c.query_row("PRAGMA synchronous", [], |r| r.get(0))?;
            Ok((j, s))
        })
        .unwrap_or_else(|e| panic!("{e}"));
    let n = AtomicUsize::new(0);
    // The bodies the model gets, kept here so each run's can be replayed
    // without copying the server's whole log every time.
    let bodies = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = Arc::clone(&bodies);
    let server = ScriptedServer::with_responder(move |req| {
        seen.lock().unwrap().push(req.body.clone());
        let i = n.fetch_add(1, Ordering::Relaxed);
        openai::tool_calls(None, &[(&format!("c{i}"), "ls", "{}")])
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let take = || std::mem::take(&mut *bodies.lock().unwrap());
    let a = agent(&store, dir, &server, STEPS);
    let http = reqwest::Client::new();
    let url = format!("{}/chat/completions", server.base_url());

    // One run and its replay first, not counted: both HTTP clients connect,
    // the page cache and statement caches fill.
    let (out, _) = run_once(&a, None, "warm-up").await;
    assert_eq!(out.status, RunStatus::StepLimit);
    let warm = take();
    replay(&http, &url, &warm).await;
    take();

    // Each run is followed at once by the replay of its own model requests
    // (same bodies, same sizes), so the model's share is measured under the
    // same load as the run it is subtracted from (the machine is shared).
    let (mut whole, mut model) = (Duration::ZERO, Duration::ZERO);
    let mut per_run = Vec::new();
    let (mut cpu_run, mut cpu_model) = (0u64, 0u64);
    for _ in 0..RUNS {
        let cpu0 = cpu_ns();
        let t = Instant::now();
        let (out, _) = run_once(&a, None, "loop").await;
        let run_time = t.elapsed();
        let cpu1 = cpu_ns();
        assert_eq!(out.status, RunStatus::StepLimit);
        let run_bodies = take();
        assert_eq!(run_bodies.len(), STEPS as usize);
        let cpu2 = cpu_ns();
        let model_time = replay(&http, &url, &run_bodies).await;
        take();
        if let (Some(c0), Some(c1), Some(c2), Some(c3)) = (cpu0, cpu1, cpu2, cpu_ns()) {
            cpu_run += c1.saturating_sub(c0);
            cpu_model += c3.saturating_sub(c2);
        }
        whole += run_time;
        model += model_time;
        per_run
            .push((run_time.as_secs_f64() - model_time.as_secs_f64()) * 1000.0 / f64::from(STEPS));
    }
    let steps = f64::from(STEPS * RUNS);
    let per_step = whole.as_secs_f64() * 1000.0 / steps;
    let model_only = model.as_secs_f64() * 1000.0 / steps;
    println!(
        "loop: {RUNS} runs x {STEPS} steps (model call + ls tool + storing + events) in {:.0} ms; SQLite journal_mode={journal}, synchronous={synchronous} (1 = NORMAL)",
        whole.as_secs_f64() * 1000.0
    );
    println!(
        "  per step, whole:                {per_step:.3} ms  (incl. each run's start and end)"
    );
    println!("  per step, model call over HTTP: {model_only:.3} ms (scripted, instant; each run's requests replayed right after it)");
    println!(
        "  loop overhead per step:         {:.3} ms  (target < 1 ms)",
        per_step - model_only
    );
    println!(
        "    CPU time (all threads) per step: {:.3} ms whole, {:.3} ms replay, {:.3} ms overhead",
        cpu_run as f64 / 1e6 / steps,
        cpu_model as f64 / 1e6 / steps,
        (cpu_run as f64 - cpu_model as f64) / 1e6 / steps
    );
    println!(
        "    by run: median {:.3} ms, min {:.3} ms, max {:.3} ms",
        percentile(per_run.clone(), 0.5),
        percentile(per_run.clone(), 0.0),
        percentile(per_run, 1.0)
    );
}

async fn token_latency(dir: &std::path::Path) {
    const TOKENS: usize = 200;
    let store = Store::open(&dir.join("latency.sqlite3")).unwrap_or_else(|e| panic!("{e}"));
    let mut frames = vec![Frame::Data(
        r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}"#.into(),
    )];
    for _ in 0..TOKENS {
        frames.push(Frame::Delay(Duration::from_millis(2)));
        frames.push(Frame::StampedData(
            r#"{"choices":[{"index":0,"delta":{"content":"__NOW_US__ "}}]}"#.into(),
        ));
    }
    frames.extend(openai::end_frames("stop", 1, TOKENS as u64));
    let server =
        ScriptedServer::start(vec![Reply::Stream(frames)]).unwrap_or_else(|e| panic!("{e}"));
    let a = agent(&store, dir, &server, 2);
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let prepared = a
        .prepare(RunRequest::text(None, "stream"))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let run = tokio::spawn(prepared.execute(tx, CancellationToken::new()));
    let mut delays = Vec::new();
    while let Some(ev) = rx.recv().await {
        if let AgUiEvent::TextMessageContent { delta, .. } = ev {
            let now = now_us();
            if let Ok(sent) = delta.trim().parse::<u128>() {
                delays.push((now.saturating_sub(sent)) as f64 / 1000.0);
            }
        }
    }
    let _ = run.await;
    println!(
        "token → event: {} tokens, median {:.3} ms, p95 {:.3} ms, max {:.3} ms  (target < 5 ms)",
        delays.len(),
        percentile(delays.clone(), 0.5),
        percentile(delays.clone(), 0.95),
        percentile(delays, 1.0)
    );
}

async fn concurrent_runs(dir: &std::path::Path) {
    const THREADS: usize = 50;
    const ROUNDS: usize = 4;
    let store = Store::open(&dir.join("concurrent.sqlite3")).unwrap_or_else(|e| panic!("{e}"));
    // Each run: a tool call, then the answer once the result is in.
    let server = ScriptedServer::with_responder(|req| {
        let last_is_tool = req.body["messages"]
            .as_array()
            .and_then(|m| m.last())
            .is_some_and(|m| m["role"] == "tool");
        if last_is_tool {
            openai::text("好的")
        } else {
            openai::tool_calls(None, &[("c", "ls", "{}")])
        }
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let a = Arc::new(agent(&store, dir, &server, 5));
    let mut threads = Vec::new();
    for i in 0..THREADS {
        threads.push(
            deskmate_agent::persist::create_thread(&store, None, &format!("t{i}"))
                .unwrap_or_else(|e| panic!("{e}"))
                .id,
        );
    }
    let t = Instant::now();
    let mut completed = 0;
    for _ in 0..ROUNDS {
        let mut handles = Vec::new();
        for id in &threads {
            let (a, id) = (Arc::clone(&a), id.clone());
            handles.push(tokio::spawn(
                async move { run_once(&a, Some(id), "hi").await.0 },
            ));
        }
        for h in handles {
            if h.await
                .map(|o| o.status == RunStatus::Completed)
                .unwrap_or(false)
            {
                completed += 1;
            }
        }
    }
    let secs = t.elapsed().as_secs_f64();
    println!("concurrency: {completed}/{} runs (2 model calls + 1 tool each) on {THREADS} threads at once in {secs:.2} s = {:.1} runs/s",
        THREADS * ROUNDS, completed as f64 / secs);
}

const LEAD: &str = "---\nname: deskmate\ndescription: lead\ntools: [task, ls]\n---\nLEAD\n";
const HELPER_A: &str =
    "---\nname: helper-a\ndescription: helps\ntools: [read_file]\n---\nHELPER-A\n";
const HELPER_B: &str =
    "---\nname: helper-b\ndescription: helps too\ntools: [read_file]\n---\nHELPER-B\n";

fn team_agent(store: &Store, dir: &std::path::Path, server: &ScriptedServer) -> Agent {
    let team = Arc::new(deskmate_agent::team::Team::new([
        ("", LEAD),
        ("helper-a", HELPER_A),
        ("helper-b", HELPER_B),
    ]));
    let mut tools = ToolSet::builtin(SearchConfig::default());
    tools.add(Arc::new(deskmate_agent::tools::Task::new(team, true)));
    Agent::with_tools(
        store.clone(),
        client(server),
        AgentConfig::default(),
        dir.join("threads"),
        tools,
    )
}

fn system_prompt(req: &deskmate_llm::scripted::RecordedRequest) -> String {
    req.body["messages"][0]["content"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

fn tool_results(req: &deskmate_llm::scripted::RecordedRequest) -> usize {
    req.body["messages"]
        .as_array()
        .map_or(0, |m| m.iter().filter(|m| m["role"] == "tool").count())
}

fn delayed_text(text: &str, ms: u64) -> Reply {
    let Reply::Stream(mut frames) = openai::text(text) else {
        unreachable!("a text reply is a stream")
    };
    frames.insert(0, Frame::Delay(Duration::from_millis(ms)));
    Reply::Stream(frames)
}

/// What one `task` call costs beyond its model time: a run in which the
/// lead delegates (lead → task → the subagent's one model call → lead: three
/// model calls) against a run with the same three model calls and plain
/// `ls` calls instead of the `task`, with an instant scripted model.
async fn task_overhead(dir: &std::path::Path) {
    const RUNS: usize = 40;
    let store = Store::open(&dir.join("task.sqlite3")).unwrap_or_else(|e| panic!("{e}"));
    let server = ScriptedServer::with_responder(|req| {
        if system_prompt(req).contains("HELPER-A") {
            return openai::text("done");
        }
        let user = req.body["messages"][1]["content"].to_string();
        match (user.contains("delegate"), tool_results(req)) {
            (true, 0) => openai::tool_calls(
                None,
                &[(
                    "t1",
                    "task",
                    r#"{"description": "say done", "subagent_type": "helper-a"}"#,
                )],
            ),
            (false, 0) | (false, 1) => openai::tool_calls(None, &[("l", "ls", "{}")]),
            _ => openai::text("ok"),
        }
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let agent = team_agent(&store, dir, &server);
    let timed = |text: &'static str| {
        let agent = &agent;
        async move {
            let mut ms = Vec::new();
            for _ in 0..RUNS {
                let t = Instant::now();
                let (out, _) = run_once(agent, None, text).await;
                assert_eq!(out.status, RunStatus::Completed, "{out:?}");
                ms.push(t.elapsed().as_secs_f64() * 1000.0);
            }
            ms
        }
    };
    // Warm both paths once, then alternate so drift hits both alike.
    timed("plain").await;
    timed("delegate").await;
    let (mut plain, mut task) = (Vec::new(), Vec::new());
    for _ in 0..3 {
        plain.extend(timed("plain").await);
        task.extend(timed("delegate").await);
    }
    let (p50_plain, p50_task) = (percentile(plain, 0.5), percentile(task, 0.5));
    println!(
        "task overhead: {:.2} ms beyond its model time (median run with a task call {p50_task:.2} ms − \
         the same three model calls with plain tool calls {p50_plain:.2} ms; {} runs each; target ≤ 2 ms)",
        p50_task - p50_plain,
        RUNS * 3
    );
}

/// Two subagents started in one reply, one answering after 300 ms and one
/// after 500 ms: the run takes about the longer one's time, not the sum.
async fn parallel_subagents(dir: &std::path::Path) {
    const RUNS: usize = 5;
    const SLOW_A: u64 = 300;
    const SLOW_B: u64 = 500;
    let store = Store::open(&dir.join("parallel.sqlite3")).unwrap_or_else(|e| panic!("{e}"));
    let server = ScriptedServer::with_responder(|req| {
        let sys = system_prompt(req);
        if sys.contains("HELPER-A") {
            return delayed_text("a", SLOW_A);
        }
        if sys.contains("HELPER-B") {
            return delayed_text("b", SLOW_B);
        }
        if tool_results(req) == 0 {
            return openai::tool_calls(
                None,
                &[
                    (
                        "ta",
                        "task",
                        r#"{"description": "a", "subagent_type": "helper-a"}"#,
                    ),
                    (
                        "tb",
                        "task",
                        r#"{"description": "b", "subagent_type": "helper-b"}"#,
                    ),
                ],
            );
        }
        openai::text("both done")
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let agent = team_agent(&store, dir, &server);
    let mut ms = Vec::new();
    for _ in 0..RUNS {
        let t = Instant::now();
        let (out, _) = run_once(&agent, None, "both").await;
        assert_eq!(out.status, RunStatus::Completed, "{out:?}");
        ms.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    println!(
        "parallel subagents: two started in one reply ({SLOW_A} ms and {SLOW_B} ms of model time) finish in \
         {:.0} ms median over {RUNS} runs (the longer alone: {SLOW_B} ms; the sum: {} ms)",
        percentile(ms, 0.5),
        SLOW_A + SLOW_B
    );
}

fn main() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    let path = dir.path().to_path_buf();
    // Inside a spawned task, as the app runs a chat (`app.chat().start` spawns
    // `execute`): on a runtime worker, not on the thread parked in
    // `block_on`, which would add a hop between threads to every I/O
    // wake-up and every blocking-pool result. The replay runs there too.
    rt.block_on(async move {
        tokio::spawn(async move {
            loop_overhead(&path).await;
            token_latency(&path).await;
            concurrent_runs(&path).await;
            task_overhead(&path).await;
            parallel_subagents(&path).await;
        })
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    });
}
