//! `cargo bench -p deskmate-server --bench devices`: 100 simulated devices
//! (50 families, each a parent's desktop and a paired tablet, every device
//! with its own loopback source address) against the real `deskmate-server`
//! process on a throwaway PostgreSQL (`deskmate_testkit::postgres`).
//!
//! Phase 1, rounds: every device runs back-to-back sync rounds at once —
//! push a batch of attempt-sized changes, then pull the family's log after
//! its cursor until nothing is left — and each round's time is recorded.
//! Phase 2, catch-up: every device pulls its family's whole log from
//! cursor 0, as a reinstalled tablet does. Printed: records/s pushed and
//! pulled, p50/p99 of one round, the server process's CPU and memory (from
//! /proc), PostgreSQL's CPU, and the bytes a change takes in the database.
//! Exits non-zero when a request fails or a device's log is not its
//! family's, whole, in order, once.

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::collections::HashSet;
use std::net::{IpAddr, Ipv4Addr};
use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use deskmate_protocol::sync::{Change, PullResponse, PushRequest, RecordKind, TokenPair};
use deskmate_testkit::postgres::{cluster, SyncServer};
use serde_json::{json, Value};
use uuid::Uuid;

const FAMILIES: usize = 50;
const ROUNDS: usize = 20;
const BATCH: usize = 20;
const PAGE: usize = 500;

struct Device {
    http: reqwest::Client,
    base: String,
    tokens: TokenPair,
}

fn client(source: Ipv4Addr) -> Result<reqwest::Client, String> {
    reqwest::Client::builder()
        .local_address(IpAddr::V4(source))
        .timeout(Duration::from_secs(60))
        .build()
        .map_err(|e| e.to_string())
}

async fn post(
    http: &reqwest::Client,
    url: String,
    token: Option<&str>,
    body: &Value,
) -> Result<Value, String> {
    let mut rb = http.post(&url).json(body);
    if let Some(t) = token {
        rb = rb.bearer_auth(t);
    }
    let r = rb.send().await.map_err(|e| format!("{url}: {e}"))?;
    let status = r.status();
    let body: Value = r.json().await.map_err(|e| format!("{url}: {e}"))?;
    if !status.is_success() {
        return Err(format!("{url}: {status} {body}"));
    }
    Ok(body)
}

fn tokens(body: Value) -> Result<TokenPair, String> {
    serde_json::from_value(body).map_err(|e| e.to_string())
}

/// A family: the parent signs up on the desktop, the tablet pairs with a code.
async fn family(base: &str, n: usize) -> Result<(Device, Device), String> {
    let octet = u8::try_from(n % 250 + 1).map_err(|e| e.to_string())?;
    let desk_http = client(Ipv4Addr::new(127, 0, 1, octet))?;
    let desk = tokens(
        post(
            &desk_http,
            format!("{base}/v1/accounts/signup"),
            None,
            &json!({"email": format!("parent{n}@example.com"), "password": "correct horse",
                    "device_name": "desktop"}),
        )
        .await?,
    )?;
    let code = post(
        &desk_http,
        format!("{base}/v1/pairing-codes"),
        Some(&desk.access_token),
        &json!({}),
    )
    .await?;
    let tablet_http = client(Ipv4Addr::new(127, 0, 2, octet))?;
    let tablet = tokens(
        post(
            &tablet_http,
            format!("{base}/v1/devices/pair"),
            None,
            &json!({"code": code["code"], "device_name": "tablet"}),
        )
        .await?,
    )?;
    let device = |http, tokens| Device {
        http,
        base: base.to_string(),
        tokens,
    };
    Ok((device(desk_http, desk), device(tablet_http, tablet)))
}

/// An attempt as a device pushes it (no transcript: about 400 bytes).
fn attempt(device: &str, n: usize) -> Change {
    let id = Uuid::now_v7();
    let millis = 1_770_000_000_000u64 + u64::try_from(n).unwrap_or(0);
    Change {
        change_id: Uuid::now_v7().to_string(),
        kind: RecordKind::Attempt,
        record_id: id.to_string(),
        hlc: format!("{millis:013}-0000-{}", &device[..8]),
        deleted: false,
        body: json!({
            "id": id.to_string(), "profile_id": Uuid::now_v7().to_string(),
            "material_id": Uuid::now_v7().to_string(), "mode": "voice", "lang": "zh",
            "transcript": "", "units": 20, "correct": 18, "accuracy": 90.0,
            "pass_threshold": 85.0, "passed": 1, "first_pass": 0,
            "errors": "[{\"kind\":\"missing\",\"expected\":\"霜\"}]", "error_count": 1,
            "duration_ms": 23_000, "duration_estimated": 0, "check_us": 900,
            "session_id": Uuid::now_v7().to_string(), "attempt_no": 1, "purpose": "review",
            "rating": 3, "interval_days": 4, "created_at": "2026-03-02T04:00:00Z"
        }),
    }
}

impl Device {
    async fn push(&self, changes: Vec<Change>) -> Result<u64, String> {
        let body = serde_json::to_value(PushRequest { changes }).map_err(|e| e.to_string())?;
        let r = post(
            &self.http,
            format!("{}/v1/sync/push", self.base),
            Some(&self.tokens.access_token),
            &body,
        )
        .await?;
        r["accepted"]
            .as_u64()
            .ok_or_else(|| format!("push answered {r}"))
    }

    /// Pulls every page after `after`; returns the change ids in order, the
    /// new cursor and how many requests it took.
    async fn pull_all(&self, mut after: i64) -> Result<(Vec<String>, i64, usize), String> {
        let mut ids = Vec::new();
        let mut requests = 0;
        loop {
            let url = format!("{}/v1/sync/pull?after={after}&limit={PAGE}", self.base);
            let r = self
                .http
                .get(&url)
                .bearer_auth(&self.tokens.access_token)
                .send()
                .await
                .map_err(|e| format!("{url}: {e}"))?;
            requests += 1;
            if !r.status().is_success() {
                return Err(format!("{url}: {}", r.status()));
            }
            let page: PullResponse = r.json().await.map_err(|e| e.to_string())?;
            ids.extend(page.changes.iter().map(|c| c.change.change_id.clone()));
            if page.changes.windows(2).any(|w| w[0].seq >= w[1].seq) {
                return Err("a page out of order".into());
            }
            after = page.cursor;
            if !page.more {
                return Ok((ids, after, requests));
            }
        }
    }
}

/// What one device did in phase 1.
struct Rounds {
    times: Vec<Duration>,
    pushed: Vec<String>,
    pulled: Vec<String>,
    requests: usize,
    cursor: i64,
}

async fn rounds(device: std::sync::Arc<Device>) -> Result<Rounds, String> {
    let mut out = Rounds {
        times: Vec::with_capacity(ROUNDS),
        pushed: Vec::new(),
        pulled: Vec::new(),
        requests: 0,
        cursor: 0,
    };
    let mut cursor = 0;
    for round in 0..ROUNDS {
        let batch: Vec<Change> = (0..BATCH)
            .map(|i| attempt(&device.tokens.device_id, round * BATCH + i))
            .collect();
        out.pushed.extend(batch.iter().map(|c| c.change_id.clone()));
        let start = Instant::now();
        let accepted = device.push(batch).await?;
        if accepted != BATCH as u64 {
            return Err(format!("{accepted} of {BATCH} accepted"));
        }
        let (ids, next, requests) = device.pull_all(cursor).await?;
        out.times.push(start.elapsed());
        out.pulled.extend(ids);
        out.requests += 1 + requests;
        cursor = next;
    }
    out.cursor = cursor;
    Ok(out)
}

/// CPU seconds (user + system) of a process, from /proc/PID/stat.
fn cpu_secs(pid: u32, tick: f64) -> f64 {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return 0.0;
    };
    // Fields after the command's closing parenthesis; utime and stime are
    // the 14th and 15th of the line.
    let Some((_, rest)) = stat.rsplit_once(')') else {
        return 0.0;
    };
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    (ticks(11) + ticks(12)) / tick
}

/// The parent's pid of a process.
fn ppid(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, rest) = stat.rsplit_once(')')?;
    rest.split_whitespace().nth(1)?.parse().ok()
}

/// CPU seconds of PostgreSQL: the postmaster and its live backends.
fn postgres_cpu(postmaster: u32, tick: f64) -> f64 {
    let mut total = cpu_secs(postmaster, tick);
    if let Ok(dir) = std::fs::read_dir("/proc") {
        for entry in dir.flatten() {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|s| s.parse::<u32>().ok())
            else {
                continue;
            };
            if ppid(pid) == Some(postmaster) {
                total += cpu_secs(pid, tick);
            }
        }
    }
    total
}

/// A line of /proc/PID/status in MiB (VmRSS, VmHWM).
fn memory_mib(pid: u32, field: &str) -> f64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(field))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<f64>().ok())
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = (p / 100.0 * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

async fn bench() -> Result<(), String> {
    let tick = std::process::Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| {
            String::from_utf8_lossy(&o.stdout)
                .trim()
                .parse::<f64>()
                .ok()
        })
        .unwrap_or(100.0);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let db = cluster().database();
    let server = SyncServer::start(
        Path::new(env!("CARGO_BIN_EXE_deskmate-server")),
        &db,
        &["--pool-size", "16"],
    );
    let pid = server.pid();
    let postmaster: u32 = std::fs::read_to_string(cluster().dir().join("data/postmaster.pid"))
        .ok()
        .and_then(|s| s.lines().next().and_then(|l| l.trim().parse().ok()))
        .ok_or("no postmaster.pid")?;

    let mut devices = Vec::with_capacity(FAMILIES * 2);
    for n in 0..FAMILIES {
        let (desk, tablet) = family(&server.url, n).await?;
        devices.push(std::sync::Arc::new(desk));
        devices.push(std::sync::Arc::new(tablet));
    }
    println!(
        "deskmate-server bench: {} devices ({FAMILIES} families: a desktop and a paired tablet), \
         {ROUNDS} rounds of {BATCH} changes each, all at once on loopback; the server, PostgreSQL \
         and the devices share this machine's {cores} core(s)",
        devices.len()
    );

    // Phase 1: rounds.
    let (cpu0, pg0) = (cpu_secs(pid, tick), postgres_cpu(postmaster, tick));
    let start = Instant::now();
    let tasks: Vec<_> = devices
        .iter()
        .map(|d| tokio::spawn(rounds(d.clone())))
        .collect();
    let mut results = Vec::with_capacity(tasks.len());
    for t in tasks {
        results.push(t.await.map_err(|e| e.to_string())??);
    }
    // Whatever a partner pushed after a device's last round, once all are done.
    for (d, r) in devices.iter().zip(results.iter_mut()) {
        let (ids, _, requests) = d.pull_all(r.cursor).await?;
        r.pulled.extend(ids);
        r.requests += requests;
    }
    let wall1 = start.elapsed();
    let (cpu1, pg1) = (cpu_secs(pid, tick), postgres_cpu(postmaster, tick));
    let rss1 = memory_mib(pid, "VmRSS:");

    // Each device pulled its family's log — its own and its partner's
    // changes — whole and once.
    for pair in results.chunks(2) {
        let family: HashSet<&String> = pair.iter().flat_map(|r| r.pushed.iter()).collect();
        for r in pair {
            let pulled: HashSet<&String> = r.pulled.iter().collect();
            if pulled.len() != r.pulled.len() {
                return Err("a device pulled a change twice".into());
            }
            if pulled != family {
                return Err(format!(
                    "a device pulled {} changes, its family pushed {}",
                    pulled.len(),
                    family.len()
                ));
            }
        }
    }
    let mut times: Vec<Duration> = results.iter().flat_map(|r| r.times.clone()).collect();
    times.sort();
    let pushed: usize = results.iter().map(|r| r.pushed.len()).sum();
    let pulled: usize = results.iter().map(|r| r.pulled.len()).sum();
    let requests1: usize = results.iter().map(|r| r.requests).sum();

    // Phase 2: every device catches up from cursor 0.
    let start = Instant::now();
    let tasks: Vec<_> = devices
        .iter()
        .map(|d| {
            let d = d.clone();
            tokio::spawn(async move {
                let t = Instant::now();
                d.pull_all(0)
                    .await
                    .map(|(ids, _, req)| (ids.len(), req, t.elapsed()))
            })
        })
        .collect();
    let (mut caught, mut requests2, mut catch_times) = (0, 0, Vec::new());
    for t in tasks {
        let (n, req, took) = t.await.map_err(|e| e.to_string())??;
        if n != 2 * ROUNDS * BATCH {
            return Err(format!(
                "a catch-up pulled {n} changes, not {}",
                2 * ROUNDS * BATCH
            ));
        }
        caught += n;
        requests2 += req;
        catch_times.push(took);
    }
    let wall2 = start.elapsed();
    catch_times.sort();
    let (cpu2, pg2) = (cpu_secs(pid, tick), postgres_cpu(postmaster, tick));
    let (rss, hwm) = (memory_mib(pid, "VmRSS:"), memory_mib(pid, "VmHWM:"));

    let (owner, conn) = tokio_postgres::connect(&db, tokio_postgres::NoTls)
        .await
        .map_err(|e| e.to_string())?;
    tokio::spawn(conn);
    let row = owner
        .query_one(
            "SELECT count(*), pg_total_relation_size('changes'), pg_relation_size('changes'),
                    avg(pg_column_size(body))::float8 FROM changes",
            &[],
        )
        .await
        .map_err(|e| e.to_string())?;
    let (rows, total_bytes, heap_bytes, body_bytes): (i64, i64, i64, f64) =
        (row.get(0), row.get(1), row.get(2), row.get(3));

    let secs1 = wall1.as_secs_f64();
    println!(
        "rounds: {} in {secs1:.2} s; one round (push {BATCH} + pull to the end): \
         p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        times.len(),
        ms(percentile(&times, 50.0)),
        ms(percentile(&times, 99.0)),
        ms(percentile(&times, 100.0)),
    );
    println!(
        "pushed: {pushed} records, {:.0} records/s; pulled during the rounds: {pulled} records, \
         {:.0} records/s; {requests1} requests, {:.0} requests/s",
        pushed as f64 / secs1,
        pulled as f64 / secs1,
        requests1 as f64 / secs1,
    );
    let secs2 = wall2.as_secs_f64();
    println!(
        "catch-up from cursor 0: {caught} records in {secs2:.2} s, {:.0} records/s pulled \
         ({requests2} pages of <= {PAGE}); one device's catch-up of {} records: p99 {:.1} ms",
        caught as f64 / secs2,
        2 * ROUNDS * BATCH,
        ms(percentile(&catch_times, 99.0)),
    );
    println!(
        "server process: {:.2} CPU s in the rounds ({:.0}% of one core, {:.2} ms per request), \
         {:.2} CPU s in the catch-up; memory {rss1:.1} MiB after the rounds, {rss:.1} MiB at the \
         end, peak {hwm:.1} MiB",
        cpu1 - cpu0,
        (cpu1 - cpu0) / secs1 * 100.0,
        (cpu1 - cpu0) * 1000.0 / requests1 as f64,
        cpu2 - cpu1,
    );
    println!(
        "postgresql: {:.2} CPU s in the rounds ({:.0}% of one core, {:.2} ms per request), \
         {:.2} CPU s in the catch-up",
        pg1 - pg0,
        (pg1 - pg0) / secs1 * 100.0,
        (pg1 - pg0) * 1000.0 / requests1 as f64,
        pg2 - pg1,
    );
    println!(
        "changes table: {rows} rows, {:.0} bytes per change with its indexes ({:.0} heap, body \
         {body_bytes:.0})",
        total_bytes as f64 / rows as f64,
        heap_bytes as f64 / rows as f64,
    );
    drop(server);
    Ok(())
}

fn main() -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("bench: no runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(bench()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench failed: {e}");
            ExitCode::FAILURE
        }
    }
}
