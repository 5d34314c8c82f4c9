//! MCP servers as tool sources, against the real reference servers from npm
//! (`@modelcontextprotocol/server-everything`, `server-filesystem`, installed
//! in tests/clients by scripts/test.sh) and a tiny server that hangs
//! (tests/clients/mcp/hanging-server.mjs): tools listed and namespaced, a
//! call returning text, a file read, a server killed mid-call, a server
//! that hangs, one that cannot start, no process left behind, and a real
//! run where the model calls an MCP tool.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use deskmate_agent::mcp::{self, McpConnection, McpServerSpec, McpTransport};
use deskmate_agent::persist::RunStatus;
use deskmate_agent::tools::{ToolContext, ToolSet, ToolTimeLimits};
use deskmate_agent::*;
use deskmate_llm::scripted::{openai, ScriptedServer};
use serde_json::json;

/// The repository's tests/clients folder.
fn clients_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/clients")
}

/// `node <the package's entry point>` of an installed reference server;
/// fails saying how to install it when it is missing.
fn reference_server(package: &str, args: &[&str]) -> McpTransport {
    let dir = std::env::var_os("DESKMATE_MCP_SERVERS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| clients_dir().join("node_modules/@modelcontextprotocol"));
    let entry = dir.join(package).join("dist/index.js");
    assert!(
        entry.is_file(),
        "the MCP reference server {package} is not installed at {}: scripts/test.sh installs it (npm ci in tests/clients), or set DESKMATE_MCP_SERVERS_DIR",
        entry.display()
    );
    let mut all = vec![entry.display().to_string()];
    all.extend(args.iter().map(|a| a.to_string()));
    McpTransport::Stdio {
        command: "node".into(),
        args: all,
        env: BTreeMap::new(),
    }
}

fn spec(name: &str, transport: McpTransport) -> McpServerSpec {
    McpServerSpec {
        name: name.into(),
        transport,
        bearer_token: None,
    }
}

fn everything() -> McpServerSpec {
    spec(
        "everything",
        reference_server("server-everything", &["stdio"]),
    )
}

fn hanging() -> McpServerSpec {
    let script = clients_dir().join("mcp/hanging-server.mjs");
    spec(
        "hanging",
        McpTransport::Stdio {
            command: "node".into(),
            args: vec![script.display().to_string()],
            env: BTreeMap::new(),
        },
    )
}

fn ctx(dir: &tempfile::TempDir) -> ToolContext {
    ToolContext {
        sandbox: Arc::new(Sandbox::open(&dir.path().join("ws")).unwrap()),
        thread_id: "t".into(),
        tool_call_id: "c".into(),
        run: None,
    }
}

async fn tool_set(specs: &[McpServerSpec], limits: ToolTimeLimits) -> ToolSet {
    let found = mcp::connect_all(specs, mcp::CONNECT_TIME_LIMIT).await;
    assert!(found.failures.is_empty(), "{:?}", found.failures);
    let mut set = ToolSet::default();
    for t in found.tools {
        set.add(t);
    }
    set.set_time_limits(limits);
    set
}

/// Whether a process `pid` still exists (a zombie counts).
fn alive(pid: u32) -> bool {
    // SAFETY: signal 0 only checks that the process exists.
    unsafe { libc::kill(pid as libc::pid_t, 0) == 0 }
}

async fn gone_within(pid: u32, limit: Duration) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if !alive(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

#[tokio::test]
async fn the_everything_servers_tools_are_listed_namespaced_and_called() {
    let dir = tempfile::tempdir().unwrap();
    let set = tool_set(&[everything()], ToolTimeLimits::default()).await;
    let names = set.names();
    for n in ["mcp__everything__echo", "mcp__everything__get-sum"] {
        assert!(names.contains(&n), "{names:?}");
    }
    let spec = set
        .specs()
        .into_iter()
        .find(|s| s.name == "mcp__everything__echo")
        .unwrap();
    assert!(
        spec.description.contains("MCP server everything"),
        "{spec:?}"
    );
    assert_eq!(spec.parameters["properties"]["message"]["type"], "string");
    let out = set
        .call(
            ctx(&dir),
            "mcp__everything__echo",
            r#"{"message": "你好 MCP"}"#,
        )
        .await;
    assert!(!out.is_error, "{out:?}");
    assert_eq!(out.content, "Echo: 你好 MCP");
    let out = set
        .call(
            ctx(&dir),
            "mcp__everything__get-sum",
            r#"{"a": 2, "b": 40}"#,
        )
        .await;
    assert!(!out.is_error && out.content.contains("42"), "{out:?}");
    // Arguments that do not fit the server's schema: its error, in words.
    let out = set
        .call(ctx(&dir), "mcp__everything__get-sum", r#"{"a": "two"}"#)
        .await;
    assert!(out.is_error && out.content.starts_with("Error:"), "{out:?}");
}

#[tokio::test]
async fn the_filesystem_server_reads_a_file_of_its_folder() {
    let dir = tempfile::tempdir().unwrap();
    let shared = tempfile::tempdir().unwrap();
    let root = shared.path().canonicalize().unwrap();
    std::fs::write(root.join("poem.txt"), "床前明月光，疑是地上霜。\n").unwrap();
    let fs = spec(
        "fs",
        reference_server("server-filesystem", &[root.to_str().unwrap()]),
    );
    let set = tool_set(&[fs], ToolTimeLimits::default()).await;
    let path = root.join("poem.txt");
    let out = set
        .call(
            ctx(&dir),
            "mcp__fs__read_text_file",
            &json!({"path": path}).to_string(),
        )
        .await;
    assert!(!out.is_error, "{out:?}");
    assert_eq!(out.content.trim(), "床前明月光，疑是地上霜。");
    // Outside its folder the server refuses, and the model reads why.
    let out = set
        .call(
            ctx(&dir),
            "mcp__fs__read_text_file",
            r#"{"path": "/etc/hostname"}"#,
        )
        .await;
    assert!(out.is_error, "{out:?}");
    assert!(out.content.contains("fs"), "{out:?}");
}

#[tokio::test]
async fn a_server_killed_mid_call_answers_the_call_with_an_error_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let conn = Arc::new(
        McpConnection::connect(&everything(), mcp::CONNECT_TIME_LIMIT)
            .await
            .unwrap(),
    );
    let pid = conn.pid().unwrap();
    let mut set = ToolSet::default();
    for t in conn.tools().await.unwrap() {
        set.add(t);
    }
    let killer = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(700)).await;
        // SAFETY: sends SIGKILL to the server process this test started.
        unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
    });
    let started = Instant::now();
    let out = set
        .call(
            ctx(&dir),
            "mcp__everything__trigger-long-running-operation",
            r#"{"duration": 20, "steps": 4}"#,
        )
        .await;
    killer.await.unwrap();
    assert!(out.is_error, "{out:?}");
    assert!(
        out.content.contains("MCP server everything") && out.content.contains("killed"),
        "{}",
        out.content
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    // The next call says the same, at once.
    let out = set
        .call(ctx(&dir), "mcp__everything__echo", r#"{"message": "hi"}"#)
        .await;
    assert!(
        out.is_error && out.content.contains("everything"),
        "{out:?}"
    );
}

#[tokio::test]
async fn a_hanging_server_is_given_up_at_the_time_limit() {
    let dir = tempfile::tempdir().unwrap();
    let set = tool_set(
        &[hanging()],
        ToolTimeLimits::uniform(Duration::from_secs(60))
            .with("mcp__hanging__wait", Duration::from_millis(800)),
    )
    .await;
    let started = Instant::now();
    let out = set.call(ctx(&dir), "mcp__hanging__wait", "{}").await;
    let took = started.elapsed();
    assert!(out.is_error, "{out:?}");
    assert!(
        out.content
            .contains("the tool mcp__hanging__wait took longer than its time limit of 800 ms"),
        "{}",
        out.content
    );
    assert!(took < Duration::from_secs(3), "{took:?}");
}

#[tokio::test]
async fn a_server_that_cannot_start_is_a_plain_error_and_the_others_still_work() {
    let missing = spec(
        "missing",
        McpTransport::Stdio {
            command: "deskmate-no-such-mcp-server".into(),
            args: vec![],
            env: BTreeMap::new(),
        },
    );
    let dies = spec(
        "dies",
        McpTransport::Stdio {
            command: "node".into(),
            args: vec![
                "-e".into(),
                "console.error('no config file'); process.exit(3)".into(),
            ],
            env: BTreeMap::new(),
        },
    );
    let started = Instant::now();
    let found = mcp::connect_all(&[missing, dies, everything()], mcp::CONNECT_TIME_LIMIT).await;
    assert!(started.elapsed() < Duration::from_secs(15));
    let words: Vec<String> = found.failures.iter().map(|e| e.to_string()).collect();
    assert_eq!(words.len(), 2, "{words:?}");
    assert!(
        words
            .iter()
            .any(|w| w.contains("MCP server missing could not be started")
                && w.contains("there is no program \"deskmate-no-such-mcp-server\"")),
        "{words:?}"
    );
    assert!(
        words.iter().any(|w| w.contains("MCP server dies")
            && w.contains("exited with status 3")
            && w.contains("no config file")),
        "{words:?}"
    );
    assert!(found
        .tools
        .iter()
        .any(|t| t.name() == "mcp__everything__echo"));
}

#[tokio::test]
async fn the_server_process_is_killed_when_its_tools_are_dropped() {
    let set = tool_set(&[everything()], ToolTimeLimits::default()).await;
    let conn = McpConnection::connect(&everything(), mcp::CONNECT_TIME_LIMIT)
        .await
        .unwrap();
    let pid = conn.pid().unwrap();
    assert!(alive(pid));
    drop(conn);
    assert!(
        gone_within(pid, Duration::from_secs(5)).await,
        "pid {pid} is still there"
    );
    drop(set);
}

#[tokio::test]
async fn a_run_calls_an_mcp_tool_and_the_model_reads_its_result_and_no_server_is_left() {
    let e = super::env();
    let server = ScriptedServer::start(vec![
        openai::tool_calls(
            None,
            &[(
                "call_echo",
                "mcp__everything__echo",
                r#"{"message": "静夜思"}"#,
            )],
        ),
        openai::text("服务器说：静夜思"),
    ])
    .unwrap();
    let conn = Arc::new(
        McpConnection::connect(&everything(), mcp::CONNECT_TIME_LIMIT)
            .await
            .unwrap(),
    );
    let pid = conn.pid().unwrap();
    let agent = e.agent_with_tools(&server, AgentConfig::default(), conn.tools().await.unwrap());
    drop(conn);
    let (out, events) = super::run_until(&agent, None, "问问服务器", |_| false).await;
    assert_eq!(
        (out.status, out.answer.as_str()),
        (RunStatus::Completed, "服务器说：静夜思"),
        "{out:?}"
    );
    let got = super::results(&events);
    assert_eq!(
        got,
        vec![("call_echo".to_string(), "Echo: 静夜思".to_string())]
    );
    // The model was sent the tool's schema and read its result.
    let first = server.requests()[0].body.to_string();
    assert!(first.contains("mcp__everything__echo"), "{first}");
    assert!(server.requests()[1]
        .body
        .to_string()
        .contains("Echo: 静夜思"));
    // The run's agent gone, its server process is gone too.
    assert!(alive(pid));
    drop(agent);
    assert!(
        gone_within(pid, Duration::from_secs(5)).await,
        "pid {pid} is still there"
    );
}
