//! `deskmate chat`, `threads` and `llm` as a user runs them: the real
//! binary against a scripted model server on loopback, with `--data-dir` in
//! a temporary folder — answers, AG-UI event lines, retries, plain errors,
//! and a run killed with SIGKILL that loses nothing and can be continued.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::{Command as StdCommand, Stdio};
use std::time::{Duration, Instant};

use assert_cmd::Command;
use deskmate_app::chat::agent::{AgUiEvent, EventOrder};
use deskmate_llm::scripted::{anthropic, openai, status, Frame, Reply, ScriptedServer};
use serde_json::Value;

const KEY: &str = "sk-cli-test-4242";

fn deskmate(dir: &tempfile::TempDir) -> Command {
    let mut cmd = Command::cargo_bin("deskmate").unwrap();
    cmd.arg("--data-dir").arg(dir.path()).env("DESKMATE_LLM_API_KEY", KEY).env_remove("DESKMATE_DATA_DIR");
    cmd
}

fn json_of(out: &[u8]) -> Value {
    serde_json::from_slice(out).unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(out)))
}

#[test]
fn without_a_model_chat_explains_how_to_set_one() {
    let dir = tempfile::tempdir().unwrap();
    let out = deskmate(&dir).args(["chat", "你好"]).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no chat model is configured"), "{err}");
    assert!(err.contains("deskmate llm set"), "{err}");
    assert!(!err.contains("panicked"));
    let bad = deskmate(&dir).args(["chat", "--model", "gpt-4o", "hi"]).output().unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("provider:model"));
}

#[test]
fn chat_runs_tools_prints_the_answer_and_keeps_the_thread() {
    let dir = tempfile::tempdir().unwrap();
    let server = ScriptedServer::start(vec![
        openai::tool_calls(
            Some("我先记下来。"),
            &[("call_w", "write_file", r#"{"file_path": "/今天.md", "content": "背《静夜思》"}"#)],
        ),
        openai::text("记好了，加油！"),
        openai::text("我们接着来。"),
    ])
    .unwrap();
    let out = deskmate(&dir)
        .args(["chat", "--model", "openai:gpt-4o-mini", "--base-url", &server.base_url(), "帮我", "记一下"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("记好了，加油！"), "{stdout}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("write_file"));
    assert_eq!(server.requests()[0].header("authorization"), Some(format!("Bearer {KEY}").as_str()));
    assert_eq!(server.requests()[0].body["messages"][1]["content"], "帮我 记一下");

    let list = deskmate(&dir).args(["threads", "list", "--json"]).output().unwrap();
    let threads = json_of(&list.stdout);
    assert_eq!(threads.as_array().unwrap().len(), 1);
    let id = threads[0]["id"].as_str().unwrap().to_string();
    assert_eq!(threads[0]["title"], "帮我 记一下");
    let ws = dir.path().join("threads").join(&id).join("workspace").join("今天.md");
    assert_eq!(std::fs::read_to_string(ws).unwrap(), "背《静夜思》");

    // Continue the thread, with the settings saved instead of flags.
    deskmate(&dir).args(["llm", "set", "--model", "openai:gpt-4o-mini", "--base-url", &server.base_url()]).assert().success();
    let again = deskmate(&dir).args(["chat", "--thread", &id, "继续"]).output().unwrap();
    assert!(again.status.success(), "{}", String::from_utf8_lossy(&again.stderr));
    assert!(String::from_utf8_lossy(&again.stdout).contains("我们接着来。"));

    let show = deskmate(&dir).args(["threads", "show", &id, "--json"]).output().unwrap();
    let view = json_of(&show.stdout);
    let roles: Vec<&str> = view["messages"].as_array().unwrap().iter().map(|m| m["message"]["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["user", "assistant", "tool", "assistant", "user", "assistant"]);
    assert_eq!(view["tool_calls"][0]["status"], "completed");
    assert_eq!(view["runs"].as_array().unwrap().len(), 2);
    let text = deskmate(&dir).args(["threads", "show", &id]).output().unwrap();
    assert!(String::from_utf8_lossy(&text.stdout).contains("write_file"));
    let missing = deskmate(&dir).args(["threads", "show", "no-such-thread"]).output().unwrap();
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("not found"));
}

#[test]
fn events_flag_prints_one_valid_ag_ui_event_per_line() {
    let dir = tempfile::tempdir().unwrap();
    let server = ScriptedServer::start(vec![
        anthropic::tool_calls(
            None,
            &[("t1", "write_todos", r#"{"todos": [{"content": "读", "status": "in_progress"}]}"#), ("t2", "ls", "{}")],
        ),
        anthropic::text("好"),
    ])
    .unwrap();
    let out = deskmate(&dir)
        .args(["chat", "--events", "--model", "anthropic:claude-3-5-haiku-latest", "--base-url", &server.base_url(), "plan"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let events: Vec<AgUiEvent> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    EventOrder::check_run(&events).unwrap();
    let kinds: Vec<&str> = events.iter().map(AgUiEvent::kind).collect();
    for k in [
        "RUN_STARTED",
        "STATE_SNAPSHOT",
        "STEP_STARTED",
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
        "TOOL_CALL_RESULT",
        "STATE_DELTA",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "STEP_FINISHED",
        "RUN_FINISHED",
    ] {
        assert!(kinds.contains(&k), "no {k} in {kinds:?}");
    }
    // camelCase on the wire.
    let first: Value = serde_json::from_str(String::from_utf8_lossy(&out.stdout).lines().next().unwrap()).unwrap();
    assert_eq!(first["type"], "RUN_STARTED");
    assert!(first["threadId"].is_string() && first["runId"].is_string());
}

#[test]
fn rate_limits_are_waited_out_and_server_failures_explained() {
    let dir = tempfile::tempdir().unwrap();
    let server =
        ScriptedServer::start(vec![status(429, Some("0.2"), r#"{"error":{"message":"slow down"}}"#), openai::text("终于好了")])
            .unwrap();
    let out = deskmate(&dir).args(["chat", "--model", "openai:m", "--base-url", &server.base_url(), "x"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("终于好了"));
    assert_eq!(server.request_count(), 2);

    let broken =
        ScriptedServer::start((0..6).map(|_| status(500, None, r#"{"error":{"message":"internal"}}"#)).collect()).unwrap();
    let out = deskmate(&dir).args(["chat", "--model", "openai:m", "--base-url", &broken.base_url(), "x"]).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("server error (HTTP 500)"), "{err}");
    assert!(err.contains("--thread"), "{err}");
    assert!(!err.contains(KEY));
}

#[cfg(unix)]
#[test]
fn a_run_killed_mid_way_loses_nothing_and_the_thread_continues() {
    let dir = tempfile::tempdir().unwrap();
    let mut hang = openai::text_frames("让我再想", 2);
    hang.push(Frame::Delay(Duration::from_secs(120)));
    let server = ScriptedServer::start(vec![
        openai::tool_calls(
            None,
            &[("c_kill", "write_file", r#"{"file_path": "/note.md", "content": "saved before the crash"}"#)],
        ),
        Reply::Stream(hang),
        openai::text("我回来了"),
    ])
    .unwrap();
    let bin = assert_cmd::cargo::cargo_bin("deskmate");
    let mut child = StdCommand::new(&bin)
        .arg("--data-dir")
        .arg(dir.path())
        .args(["chat", "--model", "openai:m", "--base-url", &server.base_url(), "写笔记"])
        .env("DESKMATE_LLM_API_KEY", KEY)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Wait until the second model call is streaming: step 1 is fully stored.
    let t = Instant::now();
    while server.request_count() < 2 {
        assert!(t.elapsed() < Duration::from_secs(30), "the child never made its second call");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(200));
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();

    let list = deskmate(&dir).args(["threads", "list", "--json"]).output().unwrap();
    let id = json_of(&list.stdout)[0]["id"].as_str().unwrap().to_string();
    let view = json_of(&deskmate(&dir).args(["threads", "show", &id, "--json"]).output().unwrap().stdout);
    assert_eq!(view["runs"][0]["status"], "interrupted", "{view:#}");
    let roles: Vec<&str> = view["messages"].as_array().unwrap().iter().map(|m| m["message"]["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["user", "assistant", "tool"], "every stored message survived");
    assert_eq!(view["tool_calls"][0]["status"], "completed");
    let note = dir.path().join("threads").join(&id).join("workspace/note.md");
    assert_eq!(std::fs::read_to_string(note).unwrap(), "saved before the crash");

    let again = deskmate(&dir)
        .args(["chat", "--model", "openai:m", "--base-url", &server.base_url(), "--thread", &id, "继续"])
        .output()
        .unwrap();
    assert!(again.status.success(), "{}", String::from_utf8_lossy(&again.stderr));
    assert!(String::from_utf8_lossy(&again.stdout).contains("我回来了"));
    let view = json_of(&deskmate(&dir).args(["threads", "show", &id, "--json"]).output().unwrap().stdout);
    assert_eq!(view["runs"][1]["status"], "completed");
}
