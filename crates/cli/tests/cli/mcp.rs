//! `deskmate mcp` as a parent runs it, and a chat run whose model calls an
//! MCP tool: the real binary with the real reference server from npm
//! (`@modelcontextprotocol/server-everything`, installed in tests/clients by
//! scripts/test.sh) and the scripted model server on loopback.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;

use assert_cmd::Command;
use deskmate_llm::scripted::{openai, ScriptedServer};
use serde_json::Value;

fn deskmate(dir: &tempfile::TempDir) -> Command {
    let mut cmd = deskmate_testkit::cli::deskmate(dir.path());
    cmd.env("DESKMATE_LLM_API_KEY", "sk-cli-mcp-test");
    cmd
}

/// The everything server's entry point; fails saying how to install it.
fn everything_entry() -> String {
    let dir = std::env::var_os("DESKMATE_MCP_SERVERS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../../tests/clients/node_modules/@modelcontextprotocol")
        });
    let entry = dir.join("server-everything/dist/index.js");
    assert!(
        entry.is_file(),
        "the MCP reference server is not installed at {}: scripts/test.sh installs it (npm ci in tests/clients), or set DESKMATE_MCP_SERVERS_DIR",
        entry.display()
    );
    entry.display().to_string()
}

fn ok(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).to_string()
}

fn fails(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    assert!(
        !out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8_lossy(&out.stderr).to_string()
}

/// The names of a server's tools, as `deskmate mcp tools NAME --json` lists them.
fn tool_names(dir: &tempfile::TempDir, server: &str) -> Vec<String> {
    let tools: Value =
        serde_json::from_str(&ok(deskmate(dir).args(["mcp", "tools", server, "--json"]))).unwrap();
    tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

fn add_everything(dir: &tempfile::TempDir, extra: &[&str]) {
    let entry = everything_entry();
    let mut args = vec![
        "mcp",
        "add",
        "--name",
        "everything",
        "--command",
        "node",
        "--arg",
        &entry,
        "--arg",
        "stdio",
    ];
    args.extend_from_slice(extra);
    ok(deskmate(dir).args(&args));
}

#[test]
fn a_parent_adds_lists_connects_allows_and_removes_mcp_servers() {
    let dir = tempfile::tempdir().unwrap();
    assert!(ok(deskmate(&dir).args(["mcp", "list"])).contains("no MCP servers"));
    add_everything(&dir, &[]);
    let list: Value =
        serde_json::from_str(&ok(deskmate(&dir).args(["mcp", "list", "--json"]))).unwrap();
    assert_eq!(list[0]["name"], "everything");
    assert_eq!(list[0]["enabled"], true);
    assert_eq!(list[0]["trusted"], false);
    assert_eq!(list[0]["transport"]["type"], "stdio");
    assert_eq!(list[0]["profiles"].as_array().unwrap().len(), 0);
    // The same name twice, a bad name, an https URL: plain errors, nothing stored.
    let err = fails(deskmate(&dir).args(["mcp", "add", "--name", "everything", "--command", "x"]));
    assert!(
        err.contains("already an MCP server named \"everything\""),
        "{err}"
    );
    let err = fails(deskmate(&dir).args(["mcp", "add", "--name", "a b", "--command", "x"]));
    assert!(err.contains("cannot be an MCP server's name"), "{err}");
    let err = fails(deskmate(&dir).args(["mcp", "add", "--name", "web", "--url", "https://x"]));
    assert!(err.contains("http://"), "{err}");
    // Its tools, connected for real and namespaced.
    let names = tool_names(&dir, "everything");
    assert!(
        names.iter().any(|n| n == "mcp__everything__echo"),
        "{names:?}"
    );
    assert!(
        names.iter().any(|n| n == "mcp__everything__get-sum"),
        "{names:?}"
    );
    // A server that cannot start says why.
    ok(deskmate(&dir).args([
        "mcp",
        "add",
        "--name",
        "broken",
        "--command",
        "deskmate-no-such-mcp-server",
    ]));
    let err = fails(deskmate(&dir).args(["mcp", "tools", "broken"]));
    assert!(
        err.contains("the MCP server broken could not be started")
            && err.contains("there is no program"),
        "{err}"
    );
    // Allowed per child.
    ok(deskmate(&dir).args(["profiles", "add", "--name", "小明", "--kind", "child"]));
    ok(deskmate(&dir).args(["mcp", "allow", "--profile", "小明", "everything"]));
    let list: Value =
        serde_json::from_str(&ok(deskmate(&dir).args(["mcp", "list", "--json"]))).unwrap();
    let everything = list
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "everything")
        .unwrap();
    assert_eq!(everything["profiles"].as_array().unwrap().len(), 1);
    ok(deskmate(&dir).args(["mcp", "deny", "--profile", "小明", "everything"]));
    let err = fails(deskmate(&dir).args(["mcp", "allow", "--profile", "nobody", "everything"]));
    assert!(err.contains("nobody"), "{err}");
    // Removed; removing again says it is not there.
    ok(deskmate(&dir).args(["mcp", "remove", "everything"]));
    let list = ok(deskmate(&dir).args(["mcp", "list"]));
    assert!(
        !list.contains("everything") && list.contains("broken"),
        "{list}"
    );
    let err = fails(deskmate(&dir).args(["mcp", "remove", "everything"]));
    assert!(
        err.contains("MCP server \"everything\"") && err.contains("broken"),
        "{err}"
    );
}

#[test]
fn a_childs_companion_calls_an_allowed_mcp_tool_and_an_untrusted_one_waits_for_a_parent() {
    let dir = tempfile::tempdir().unwrap();
    ok(deskmate(&dir).args(["profiles", "add", "--name", "小明", "--kind", "child"]));
    add_everything(&dir, &["--trusted"]);
    ok(deskmate(&dir).args(["mcp", "allow", "--profile", "小明", "everything"]));
    let server = ScriptedServer::start(vec![
        openai::tool_calls(
            None,
            &[(
                "call_echo",
                "mcp__everything__echo",
                r#"{"message": "床前明月光"}"#,
            )],
        ),
        openai::text("服务器回答了：床前明月光"),
    ])
    .unwrap();
    let chat = |profile: &str| {
        deskmate(&dir)
            .args([
                "chat",
                "--profile",
                profile,
                "--model",
                "openai:gpt-4o-mini",
                "--base-url",
                &server.base_url(),
                "问问服务器",
            ])
            .output()
            .unwrap()
    };
    let out = chat("小明");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("服务器回答了"));
    let requests = server.requests();
    let tools = requests[0].body["tools"].to_string();
    assert!(tools.contains("mcp__everything__echo"), "{tools}");
    assert!(
        requests[1].body.to_string().contains("Echo: 床前明月光"),
        "{}",
        requests[1].body
    );

    // Untrusted: the same call waits for a parent instead of running.
    ok(deskmate(&dir).args(["mcp", "trust", "--off", "everything"]));
    let server2 = ScriptedServer::start(vec![openai::tool_calls(
        None,
        &[("call_wait", "mcp__everything__echo", r#"{"message": "hi"}"#)],
    )])
    .unwrap();
    let out = deskmate(&dir)
        .args([
            "chat",
            "--profile",
            "小明",
            "--model",
            "openai:gpt-4o-mini",
            "--base-url",
            &server2.base_url(),
            "再问",
        ])
        .output()
        .unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let pending = ok(deskmate(&dir).args(["runs", "pending"]));
    assert!(
        pending.contains("mcp__everything__echo"),
        "{pending}\n{said}"
    );
    assert_eq!(server2.request_count(), 1, "{said}");

    // A child the server is not allowed for does not get its tools.
    ok(deskmate(&dir).args(["profiles", "add", "--name", "小红", "--kind", "child"]));
    let server3 = ScriptedServer::start(vec![openai::text("好的")]).unwrap();
    ok(deskmate(&dir).args([
        "chat",
        "--profile",
        "小红",
        "--model",
        "openai:gpt-4o-mini",
        "--base-url",
        &server3.base_url(),
        "你好",
    ]));
    let tools = server3.requests()[0].body["tools"].to_string();
    assert!(!tools.contains("mcp__"), "{tools}");
}

/// The everything server over streamable HTTP (`node dist/index.js
/// streamableHttp`) on a free port; killed when dropped.
struct HttpEverything {
    child: std::process::Child,
    port: u16,
}

impl HttpEverything {
    fn start() -> Self {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = std::process::Command::new("node")
            .arg(everything_entry())
            .arg("streamableHttp")
            .env("PORT", port.to_string())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("node runs the MCP reference server");
        let server = Self { child, port };
        let started = std::time::Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                started.elapsed() < std::time::Duration::from_secs(30),
                "the everything server did not listen on port {port} within 30 s"
            );
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        server
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }

    fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for HttpEverything {
    fn drop(&mut self) {
        self.stop();
    }
}

#[test]
fn a_streamable_http_mcp_server_is_listed_and_called_and_when_it_is_gone_the_run_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let mut web = HttpEverything::start();
    ok(deskmate(&dir).args(["profiles", "add", "--name", "小明", "--kind", "child"]));
    ok(deskmate(&dir).args([
        "mcp",
        "add",
        "--name",
        "web",
        "--url",
        &web.url(),
        "--trusted",
    ]));
    let list: Value =
        serde_json::from_str(&ok(deskmate(&dir).args(["mcp", "list", "--json"]))).unwrap();
    assert_eq!(list[0]["transport"]["type"], "http");
    assert_eq!(list[0]["transport"]["url"], web.url());
    // Listed over HTTP, namespaced like a stdio server's.
    let names = tool_names(&dir, "web");
    assert!(names.iter().any(|n| n == "mcp__web__get-sum"), "{names:?}");
    assert!(names.iter().any(|n| n == "mcp__web__echo"), "{names:?}");

    // A child's companion calls one: the server's answer reaches the model.
    ok(deskmate(&dir).args(["mcp", "allow", "--profile", "小明", "web"]));
    let model = ScriptedServer::start(vec![
        openai::tool_calls(
            None,
            &[("call_sum", "mcp__web__get-sum", r#"{"a": 2, "b": 3}"#)],
        ),
        openai::text("2 加 3 等于 5"),
    ])
    .unwrap();
    let chat = |base_url: &str| {
        deskmate(&dir)
            .args([
                "chat",
                "--profile",
                "小明",
                "--model",
                "openai:gpt-4o-mini",
                "--base-url",
                base_url,
                "2 加 3 等于几？",
            ])
            .output()
            .unwrap()
    };
    let out = chat(&model.base_url());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let requests = model.requests();
    assert!(requests[0].body["tools"]
        .to_string()
        .contains("mcp__web__get-sum"));
    assert!(
        requests[1]
            .body
            .to_string()
            .contains("The sum of 2 and 3 is 5."),
        "{}",
        requests[1].body
    );

    // The server goes away: listing says so plainly, and a run still
    // answers, without its tools.
    web.stop();
    let err = fails(deskmate(&dir).args(["mcp", "tools", "web"]));
    assert!(err.contains("web"), "{err}");
    let model = ScriptedServer::start(vec![openai::text("我现在算不了，但可以一起想")]).unwrap();
    let out = chat(&model.base_url());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("一起想"));
    let tools = model.requests()[0].body["tools"].to_string();
    assert!(!tools.contains("mcp__web__"), "{tools}");
}
