//! Benchmark of `deskmate serve`'s runs (issue 18), the workload LangGraph's
//! own server was measured on: closed-loop clients on loopback, each run a
//! LangGraph `runs/stream` (values and updates) on a thread of its own
//! client, the instant scripted model asking for one tool call
//! (`write_todos`) and then answering with about 20 tokens. Prints runs/s,
//! run p50/p99, time to the first event on an idle server, and the RSS of
//! the process holding the server and its clients, sampled as the runs go:
//! the scripted model runs in a process of its own (this binary started
//! again with `--model-server`), because it keeps every request it was
//! sent and would otherwise hide whether the server keeps anything.
//!
//! Run: `cargo bench -p deskmate-api --bench serve [-- RUNS [CLIENTS]]`
//! (defaults 2000 runs, 10 clients; the memory target is judged over
//! 20,000). Targets: ≥ 600 runs/s, p99 ≤ 30 ms, first event ≤ 10 ms,
//! memory flat (under 1 kB per run over the second half of the runs, once
//! caches and the allocator have settled); exits 1 when a target is missed.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, ExitCode, Stdio};
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

    if std::env::args().any(|a| a == "--model-server") {
        return model_server();
    }
    let (mut model, model_url) = match start_model_server() {
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
        .save_llm_settings("openai:scripted", Some(&model_url))
        .and_then(|()| app.chat().agree_model_notice().map(|_| ()))
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
        // RSS at each tenth of the runs (runs started, RSS in kB).
        let mut samples = vec![(0, rss_before)];
        let mut next = runs / 10;
        while !tasks.iter().all(|t| t.is_finished()) {
            tokio::time::sleep(Duration::from_millis(20)).await;
            let done = runs - left.load(Ordering::SeqCst);
            if next > 0 && done >= next {
                samples.push((done, rss_kb()));
                next += runs / 10;
            }
        }
        let mut times = Vec::new();
        for t in tasks {
            times.extend(t.await.map_err(|e| e.to_string())??);
        }
        let elapsed = started.elapsed();
        times.sort();
        samples.push((runs, rss_kb()));
        Ok::<_, String>((idle, times, elapsed, samples))
    });
    let _ = model.kill();
    let _ = model.wait();
    let (idle, times, elapsed, samples) = match result {
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
    let series: Vec<String> = samples.iter().map(|(n, kb)| format!("{n}: {kb}")).collect();
    println!(
        "RSS of server + clients, kB after N runs: {}",
        series.join(", ")
    );
    let growth = second_half_growth(&samples);
    println!("memory: {growth:+.2} kB per run over the second half (target: flat, under 1 kB)");
    let met = per_s >= 600.0
        && p99 <= Duration::from_millis(30)
        && first <= Duration::from_millis(10)
        && growth < 1.0;
    if met {
        ExitCode::SUCCESS
    } else {
        println!("a target is missed");
        ExitCode::FAILURE
    }
}

/// kB of RSS gained per run from the sample nearest the middle to the last.
fn second_half_growth(samples: &[(usize, u64)]) -> f64 {
    let Some(&(last_n, last_kb)) = samples.last() else {
        return 0.0;
    };
    let Some(&(mid_n, mid_kb)) = samples.iter().find(|(n, _)| *n >= last_n / 2) else {
        return 0.0;
    };
    if last_n <= mid_n {
        return 0.0;
    }
    (last_kb as f64 - mid_kb as f64) / (last_n - mid_n) as f64
}

/// The child: the instant scripted model, on a port it prints as its base
/// URL; it ends when its parent closes its stdin (or dies).
fn model_server() -> ExitCode {
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
    println!("{}", model.base_url());
    let mut rest = String::new();
    while std::io::stdin().read_line(&mut rest).is_ok_and(|n| n > 0) {}
    ExitCode::SUCCESS
}

/// Starts [`model_server`] in a process of its own: the child and its URL.
fn start_model_server() -> Result<(Child, String), String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut child = Command::new(exe)
        .arg("--model-server")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| e.to_string())?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let mut url = String::new();
    BufReader::new(stdout)
        .read_line(&mut url)
        .map_err(|e| e.to_string())?;
    let url = url.trim().to_string();
    if !url.starts_with("http") {
        let _ = child.kill();
        return Err(format!("the model server said {url:?}"));
    }
    Ok((child, url))
}
