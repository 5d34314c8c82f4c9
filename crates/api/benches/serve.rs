//! Benchmark of `deskmate serve`'s runs (issue 18), the workload LangGraph's
//! own server was measured on: closed-loop clients on loopback, each run a
//! LangGraph `runs/stream` (values and updates) on a thread of its own
//! client, the instant scripted model asking for one tool call
//! (`write_todos`) and then answering with about 20 tokens. Prints runs/s,
//! run p50/p99, time to the first event on an idle server, and the
//! process's RSS before and after (server, clients and the scripted model
//! in one process, the model keeping every request: an upper bound).
//!
//! Run: `cargo bench -p deskmate-api --bench serve [-- RUNS [CLIENTS]]`
//! (defaults 2000 runs, 10 clients). Targets: ≥ 600 runs/s, p99 ≤ 30 ms,
//! first event ≤ 10 ms, memory flat; exits 1 when a target is missed.

use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use deskmate_app::{Config, Deskmate};
use deskmate_llm::scripted::{openai, ScriptedServer};
use futures_util::StreamExt;

const TOKEN: &str = "bench-token";
const ANSWER: &str = "床前明月光，疑是地上霜。举头望明月，低头思故乡。这首诗写的是思乡。";

fn rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|v| v.parse().ok()))
        })
        .unwrap_or(0)
}

/// One run on a fresh thread: (time to the first event, whole run).
async fn one_run(client: &reqwest::Client, base: &str) -> Result<(Duration, Duration), String> {
    let thread: serde_json::Value = client
        .post(format!("{base}/threads"))
        .bearer_auth(TOKEN)
        .json(&serde_json::json!({}))
        .send()
        .await
        .map_err(|e| e.to_string())?
        .json()
        .await
        .map_err(|e| e.to_string())?;
    let tid = thread["thread_id"]
        .as_str()
        .ok_or("no thread id")?
        .to_string();
    let started = Instant::now();
    let res = client
        .post(format!("{base}/threads/{tid}/runs/stream"))
        .bearer_auth(TOKEN)
        .json(&serde_json::json!({
            "assistant_id": "companion",
            "input": {"messages": [{"role": "user", "content": "静夜思是什么意思？"}]},
            "stream_mode": ["values", "updates"],
        }))
        .send()
        .await
        .map_err(|e| e.to_string())?;
    if !res.status().is_success() {
        return Err(format!("status {}", res.status()));
    }
    let mut body = res.bytes_stream();
    let mut first = None;
    let mut seen = String::new();
    while let Some(chunk) = body.next().await {
        let chunk = chunk.map_err(|e| e.to_string())?;
        first.get_or_insert_with(|| started.elapsed());
        seen.push_str(&String::from_utf8_lossy(&chunk));
        if seen.contains("event: end") {
            break;
        }
    }
    if !seen.contains("\"status\":\"success\"") {
        return Err(format!(
            "the run did not succeed: {}",
            seen.chars().take(300).collect::<String>()
        ));
    }
    Ok((first.unwrap_or_default(), started.elapsed()))
}

fn pct(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let runs: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(2000);
    let clients: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(10);

    let model = match ScriptedServer::with_responder(|req| {
        let last_is_tool = req.body["messages"]
            .as_array()
            .and_then(|m| m.last())
            .is_some_and(|m| m["role"] == "tool");
        if last_is_tool {
            openai::text(ANSWER)
        } else {
            let args = r#"{"todos":[{"content":"讲静夜思","status":"completed"}]}"#;
            openai::tool_calls(None, &[("call_1", "write_todos", args)])
        }
    }) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("cannot start the scripted model: {e}");
            return ExitCode::FAILURE;
        }
    };
    let dir = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("no temporary directory: {e}");
            return ExitCode::FAILURE;
        }
    };
    std::env::set_var("DESKMATE_LLM_API_KEY", "sk-bench");
    let app = match Deskmate::open(Config::in_dir(dir.path())) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("cannot open Deskmate: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Err(e) = app
        .chat()
        .save_llm_settings("openai:scripted", Some(&model.base_url()))
    {
        eprintln!("cannot set the model: {e}");
        return ExitCode::FAILURE;
    }
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("no runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|e| e.to_string())?;
        let addr = listener.local_addr().map_err(|e| e.to_string())?;
        let security = deskmate_api::Security::new(TOKEN, "127.0.0.1");
        tokio::spawn(deskmate_api::serve(app, listener, security));
        let base = format!("http://{addr}");
        let client = reqwest::Client::new();

        // Idle: time to the first event, a few runs one at a time.
        let mut idle = Vec::new();
        for _ in 0..10 {
            idle.push(one_run(&client, &base).await?.0);
        }
        idle.sort();
        let rss_before = rss_kb();

        let left = Arc::new(AtomicUsize::new(runs));
        let started = Instant::now();
        let mut tasks = Vec::new();
        for _ in 0..clients {
            let (client, base, left) = (client.clone(), base.clone(), left.clone());
            tasks.push(tokio::spawn(async move {
                let mut times = Vec::new();
                while left
                    .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
                    .is_ok()
                {
                    times.push(one_run(&client, &base).await?.1);
                }
                Ok::<_, String>(times)
            }));
        }
        let mut times = Vec::new();
        for t in tasks {
            times.extend(t.await.map_err(|e| e.to_string())??);
        }
        let elapsed = started.elapsed();
        times.sort();
        Ok::<_, String>((idle, times, elapsed, rss_before, rss_kb()))
    });
    let (idle, times, elapsed, rss_before, rss_after) = match result {
        Ok(r) => r,
        Err(e) => {
            eprintln!("the benchmark failed: {e}");
            return ExitCode::FAILURE;
        }
    };
    let per_s = times.len() as f64 / elapsed.as_secs_f64();
    let (p50, p99, first) = (pct(&times, 0.5), pct(&times, 0.99), pct(&idle, 0.5));
    println!(
        "runs: {} by {clients} clients in {:.2} s",
        times.len(),
        elapsed.as_secs_f64()
    );
    println!("runs/s: {per_s:.0} (target ≥ 600)");
    println!(
        "run p50: {:.1} ms, p99: {:.1} ms (target p99 ≤ 30 ms)",
        p50.as_secs_f64() * 1e3,
        p99.as_secs_f64() * 1e3
    );
    println!(
        "first event, idle, p50 of 10: {:.1} ms (target ≤ 10 ms)",
        first.as_secs_f64() * 1e3
    );
    println!(
        "RSS: {rss_before} kB before, {rss_after} kB after ({:+.1} kB per run; the scripted model keeps every request)",
        (rss_after as f64 - rss_before as f64) / times.len().max(1) as f64
    );
    let met =
        per_s >= 600.0 && p99 <= Duration::from_millis(30) && first <= Duration::from_millis(10);
    if met {
        ExitCode::SUCCESS
    } else {
        println!("a target is missed");
        ExitCode::FAILURE
    }
}
