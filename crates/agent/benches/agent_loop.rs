//! Agent runtime benchmark: prints loop overhead per step with an instant
//! scripted model, the delay from a streamed token leaving the model server
//! to its AG-UI event, and runs per second with 50 concurrent threads.
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
    let config = AgentConfig { max_steps, ..Default::default() };
    Agent::new(store.clone(), client(server), config, dir.join("threads"), SearchConfig::default())
}

async fn run_once(agent: &Agent, thread: Option<String>, text: &str) -> (RunOutcome, Vec<(AgUiEvent, Instant)>) {
    let prepared = agent.prepare(RunRequest::text(thread, text)).await.unwrap_or_else(|e| panic!("{e}"));
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

async fn loop_overhead(dir: &std::path::Path) {
    const STEPS: u32 = 20;
    const RUNS: u32 = 10;
    let store = Store::open(&dir.join("steps.sqlite3")).unwrap_or_else(|e| panic!("{e}"));
    let n = AtomicUsize::new(0);
    let server = ScriptedServer::with_responder(move |_| {
        let i = n.fetch_add(1, Ordering::Relaxed);
        openai::tool_calls(None, &[(&format!("c{i}"), "ls", "{}")])
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let a = agent(&store, dir, &server, STEPS);
    let t = Instant::now();
    for _ in 0..RUNS {
        let (out, _) = run_once(&a, None, "loop").await;
        assert_eq!(out.status, RunStatus::StepLimit);
    }
    let total = t.elapsed();
    let steps = f64::from(STEPS * RUNS);
    let per_step = total.as_secs_f64() * 1000.0 / steps;

    // The model's share: the very same requests (same sizes) sent again over
    // HTTP and their streams read whole, without the agent.
    let http = reqwest::Client::new();
    let url = format!("{}/chat/completions", server.base_url());
    let bodies: Vec<_> = server.requests().into_iter().map(|r| r.body).collect();
    let t = Instant::now();
    for body in &bodies {
        let resp = http.post(&url).json(body).send().await.unwrap_or_else(|e| panic!("{e}"));
        resp.bytes().await.unwrap_or_else(|e| panic!("{e}"));
    }
    let model_only = t.elapsed().as_secs_f64() * 1000.0 / bodies.len() as f64;
    println!(
        "loop: {RUNS} runs x {STEPS} steps (model call + ls tool + storing + events) in {:.0} ms",
        total.as_secs_f64() * 1000.0
    );
    println!("  per step, whole:                {per_step:.3} ms");
    println!("  per step, model call over HTTP: {model_only:.3} ms (scripted, instant; same requests replayed)");
    println!("  loop overhead per step:         {:.3} ms  (target < 1 ms)", per_step - model_only);
}

async fn token_latency(dir: &std::path::Path) {
    const TOKENS: usize = 200;
    let store = Store::open(&dir.join("latency.sqlite3")).unwrap_or_else(|e| panic!("{e}"));
    let mut frames = vec![Frame::Data(r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}"#.into())];
    for _ in 0..TOKENS {
        frames.push(Frame::Delay(Duration::from_millis(2)));
        frames.push(Frame::StampedData(r#"{"choices":[{"index":0,"delta":{"content":"__NOW_US__ "}}]}"#.into()));
    }
    frames.extend(openai::end_frames("stop", 1, TOKENS as u64));
    let server = ScriptedServer::start(vec![Reply::Stream(frames)]).unwrap_or_else(|e| panic!("{e}"));
    let a = agent(&store, dir, &server, 2);
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let prepared = a.prepare(RunRequest::text(None, "stream")).await.unwrap_or_else(|e| panic!("{e}"));
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
        let last_is_tool = req.body["messages"].as_array().and_then(|m| m.last()).is_some_and(|m| m["role"] == "tool");
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
        threads.push(deskmate_agent::persist::create_thread(&store, None, &format!("t{i}")).unwrap_or_else(|e| panic!("{e}")).id);
    }
    let t = Instant::now();
    let mut completed = 0;
    for _ in 0..ROUNDS {
        let mut handles = Vec::new();
        for id in &threads {
            let (a, id) = (Arc::clone(&a), id.clone());
            handles.push(tokio::spawn(async move { run_once(&a, Some(id), "hi").await.0 }));
        }
        for h in handles {
            if h.await.map(|o| o.status == RunStatus::Completed).unwrap_or(false) {
                completed += 1;
            }
        }
    }
    let secs = t.elapsed().as_secs_f64();
    println!("concurrency: {completed}/{} runs (2 model calls + 1 tool each) on {THREADS} threads at once in {secs:.2} s = {:.1} runs/s",
        THREADS * ROUNDS, completed as f64 / secs);
}

fn main() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap_or_else(|e| panic!("{e}"));
    rt.block_on(async {
        loop_overhead(dir.path()).await;
        token_latency(dir.path()).await;
        concurrent_runs(dir.path()).await;
    });
}
