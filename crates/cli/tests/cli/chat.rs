//! `deskmate chat`, `threads` and `llm` as a user runs them: the real
//! binary against a scripted model server on loopback, with `--data-dir` in
//! a temporary folder — answers, AG-UI event lines, retries, plain errors,
//! broken and malformed streams, the API key kept out of trace logs and the
//! database, costs and the price setting, and runs killed with SIGKILL
//! (mid-reply, and with a tool call pending) that lose nothing stored and
//! can be continued.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::{Command as StdCommand, Stdio};
use std::time::{Duration, Instant};

use assert_cmd::Command;
use deskmate_app::chat::agent::{AgUiEvent, EventOrder};
use deskmate_llm::scripted::{anthropic, openai, status, Frame, Reply, ScriptedServer};
use serde_json::Value;

const KEY: &str = "sk-cli-test-4242";

fn deskmate(dir: &tempfile::TempDir) -> Command {
    let mut cmd = deskmate_testkit::cli::deskmate(dir.path());
    cmd.env("DESKMATE_LLM_API_KEY", KEY);
    cmd
}

fn events_of(stdout: &[u8]) -> Vec<AgUiEvent> {
    String::from_utf8_lossy(stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn thread_view(dir: &tempfile::TempDir, id: &str) -> Value {
    json_of(
        &deskmate(dir)
            .args(["threads", "show", id, "--json"])
            .output()
            .unwrap()
            .stdout,
    )
}

fn roles(view: &Value) -> Vec<String> {
    view["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["message"]["role"].as_str().unwrap().to_string())
        .collect()
}

fn json_of(out: &[u8]) -> Value {
    serde_json::from_slice(out)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(out)))
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
    let bad = deskmate(&dir)
        .args(["chat", "--model", "gpt-4o", "hi"])
        .output()
        .unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("provider:model"));
}

#[test]
fn chat_runs_tools_prints_the_answer_and_keeps_the_thread() {
    let dir = tempfile::tempdir().unwrap();
    let server = ScriptedServer::start(vec![
        openai::tool_calls(
            Some("我先记下来。"),
            &[(
                "call_w",
                "write_file",
                r#"{"file_path": "/今天.md", "content": "背《静夜思》"}"#,
            )],
        ),
        openai::text("记好了，加油！"),
        openai::text("我们接着来。"),
    ])
    .unwrap();
    let out = deskmate(&dir)
        .args([
            "chat",
            "--model",
            "openai:gpt-4o-mini",
            "--base-url",
            &server.base_url(),
            "帮我",
            "记一下",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("记好了，加油！"), "{stdout}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("write_file"));
    assert_eq!(
        server.requests()[0].header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    assert_eq!(
        server.requests()[0].body["messages"][1]["content"],
        "帮我 记一下"
    );

    let list = deskmate(&dir)
        .args(["threads", "list", "--json"])
        .output()
        .unwrap();
    let threads = json_of(&list.stdout);
    assert_eq!(threads.as_array().unwrap().len(), 1);
    let id = threads[0]["id"].as_str().unwrap().to_string();
    assert_eq!(threads[0]["title"], "帮我 记一下");
    let ws = dir
        .path()
        .join("threads")
        .join(&id)
        .join("workspace")
        .join("今天.md");
    assert_eq!(std::fs::read_to_string(ws).unwrap(), "背《静夜思》");

    // Continue the thread, with the settings saved instead of flags.
    deskmate(&dir)
        .args([
            "llm",
            "set",
            "--agree",
            "--model",
            "openai:gpt-4o-mini",
            "--base-url",
            &server.base_url(),
        ])
        .assert()
        .success();
    let again = deskmate(&dir)
        .args(["chat", "--thread", &id, "继续"])
        .output()
        .unwrap();
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert!(String::from_utf8_lossy(&again.stdout).contains("我们接着来。"));

    let show = deskmate(&dir)
        .args(["threads", "show", &id, "--json"])
        .output()
        .unwrap();
    let view = json_of(&show.stdout);
    let roles: Vec<&str> = view["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["message"]["role"].as_str().unwrap())
        .collect();
    assert_eq!(
        roles,
        [
            "user",
            "assistant",
            "tool",
            "assistant",
            "user",
            "assistant"
        ]
    );
    assert_eq!(view["tool_calls"][0]["status"], "completed");
    assert_eq!(view["runs"].as_array().unwrap().len(), 2);
    let text = deskmate(&dir)
        .args(["threads", "show", &id])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&text.stdout).contains("write_file"));
    let missing = deskmate(&dir)
        .args(["threads", "show", "no-such-thread"])
        .output()
        .unwrap();
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("not found"));
}

#[test]
fn attached_files_go_to_the_workspace_and_a_photo_to_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let files = tempfile::tempdir().unwrap();
    let notes = files.path().join("notes.md");
    std::fs::write(&notes, "# 生字\n静 夜 思").unwrap();
    let page = files.path().join("page.png");
    std::fs::write(&page, b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR").unwrap();
    let script = files.path().join("run.sh");
    std::fs::write(&script, "echo hi").unwrap();
    let server = ScriptedServer::start(vec![
        openai::tool_calls(
            None,
            &[(
                "call_r",
                "read_file",
                r#"{"file_path": "/attachments/notes.md"}"#,
            )],
        ),
        openai::text("第一个生字是静。"),
    ])
    .unwrap();
    let chat = |model: &str, attach: &[&std::path::Path]| {
        let mut cmd = deskmate(&dir);
        cmd.args(["chat", "--model", model, "--base-url", &server.base_url()]);
        for a in attach {
            cmd.arg("--attach").arg(a);
        }
        cmd.arg("看看我的作业").output().unwrap()
    };
    let threads = || {
        json_of(
            &deskmate(&dir)
                .args(["threads", "list", "--json"])
                .output()
                .unwrap()
                .stdout,
        )
    };

    // Refused before anything is kept or sent: a file type that is not
    // allowed, a photo for a model that cannot see.
    let out = chat("openai:gpt-4o-mini", &[&notes, &script]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("run.sh") && err.contains("only text"), "{err}");
    let out = chat("openai:gpt-3.5-turbo", &[&page]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot see pictures"));
    assert_eq!(threads(), serde_json::json!([]));
    assert_eq!(server.request_count(), 0);

    let out = chat("openai:gpt-4o-mini", &[&notes, &page]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("第一个生字是静"));
    let first = server.requests()[0].body["messages"][1].to_string();
    assert!(
        first.contains("[Attached: /attachments/notes.md; /attachments/page.png (a picture"),
        "{first}"
    );
    assert!(first.contains("data:image/png;base64,"), "{first}");
    // The companion read the attached notes from its workspace.
    let second = server.requests()[1].body["messages"].to_string();
    assert!(second.contains("静 夜 思"), "{second}");
    let id = threads()[0]["id"].as_str().unwrap().to_string();
    let kept = dir
        .path()
        .join("threads")
        .join(&id)
        .join("workspace/attachments");
    assert_eq!(
        std::fs::read(kept.join("page.png")).unwrap(),
        std::fs::read(&page).unwrap()
    );
}

#[test]
fn events_flag_prints_one_valid_ag_ui_event_per_line() {
    let dir = tempfile::tempdir().unwrap();
    let server = ScriptedServer::start(vec![
        anthropic::tool_calls(
            None,
            &[
                (
                    "t1",
                    "write_todos",
                    r#"{"todos": [{"content": "读", "status": "in_progress"}]}"#,
                ),
                ("t2", "ls", "{}"),
            ],
        ),
        anthropic::text("好"),
    ])
    .unwrap();
    let out = deskmate(&dir)
        .args([
            "chat",
            "--events",
            "--model",
            "anthropic:claude-3-5-haiku-latest",
            "--base-url",
            &server.base_url(),
            "plan",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
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
    let first: Value =
        serde_json::from_str(String::from_utf8_lossy(&out.stdout).lines().next().unwrap()).unwrap();
    assert_eq!(first["type"], "RUN_STARTED");
    assert!(first["threadId"].is_string() && first["runId"].is_string());
}

#[test]
fn rate_limits_are_waited_out_and_server_failures_explained() {
    let dir = tempfile::tempdir().unwrap();
    let server = ScriptedServer::start(vec![
        status(429, Some("0.2"), r#"{"error":{"message":"slow down"}}"#),
        openai::text("终于好了"),
    ])
    .unwrap();
    let out = deskmate(&dir)
        .args([
            "chat",
            "--model",
            "openai:m",
            "--base-url",
            &server.base_url(),
            "x",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("终于好了"));
    assert_eq!(server.request_count(), 2);

    let broken = ScriptedServer::start(
        (0..6)
            .map(|_| status(500, None, r#"{"error":{"message":"internal"}}"#))
            .collect(),
    )
    .unwrap();
    let out = deskmate(&dir)
        .args([
            "chat",
            "--model",
            "openai:m",
            "--base-url",
            &broken.base_url(),
            "x",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("server error (HTTP 500)"), "{err}");
    assert!(err.contains("--thread"), "{err}");
    assert!(!err.contains(KEY));
}

#[cfg(unix)]
/// Runs `deskmate chat 写笔记` in a real process and SIGKILLs it while the
/// second model call is streaming (step 1 is fully stored); the thread's id.
fn chat_killed_in_its_second_step(dir: &tempfile::TempDir, server: &ScriptedServer) -> String {
    let mut child = StdCommand::new(assert_cmd::cargo::cargo_bin("deskmate"))
        .arg("--data-dir")
        .arg(dir.path())
        .args([
            "chat",
            "--model",
            "openai:m",
            "--base-url",
            &server.base_url(),
            "写笔记",
        ])
        .env("DESKMATE_LLM_API_KEY", KEY)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let t = Instant::now();
    while server.request_count() < 2 {
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "the child never made its second call"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(200));
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let list = deskmate(dir)
        .args(["threads", "list", "--json"])
        .output()
        .unwrap();
    json_of(&list.stdout)[0]["id"].as_str().unwrap().to_string()
}

#[test]
fn a_run_killed_mid_way_loses_nothing_and_the_thread_continues() {
    let dir = tempfile::tempdir().unwrap();
    let mut hang = openai::text_frames("让我再想", 2);
    hang.push(Frame::Delay(Duration::from_secs(120)));
    let server = ScriptedServer::start(vec![
        openai::tool_calls(
            None,
            &[(
                "c_kill",
                "write_file",
                r#"{"file_path": "/note.md", "content": "saved before the crash"}"#,
            )],
        ),
        Reply::Stream(hang),
        openai::text("我回来了"),
    ])
    .unwrap();
    let id = chat_killed_in_its_second_step(&dir, &server);
    let view = json_of(
        &deskmate(&dir)
            .args(["threads", "show", &id, "--json"])
            .output()
            .unwrap()
            .stdout,
    );
    assert_eq!(view["runs"][0]["status"], "interrupted", "{view:#}");
    let roles: Vec<&str> = view["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["message"]["role"].as_str().unwrap())
        .collect();
    assert_eq!(
        roles,
        ["user", "assistant", "tool"],
        "every stored message survived"
    );
    assert_eq!(view["tool_calls"][0]["status"], "completed");
    let note = dir
        .path()
        .join("threads")
        .join(&id)
        .join("workspace/note.md");
    assert_eq!(
        std::fs::read_to_string(note).unwrap(),
        "saved before the crash"
    );

    let again = deskmate(&dir)
        .args([
            "chat",
            "--model",
            "openai:m",
            "--base-url",
            &server.base_url(),
            "--thread",
            &id,
            "继续",
        ])
        .output()
        .unwrap();
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert!(String::from_utf8_lossy(&again.stdout).contains("我回来了"));
    let view = json_of(
        &deskmate(&dir)
            .args(["threads", "show", &id, "--json"])
            .output()
            .unwrap()
            .stdout,
    );
    assert_eq!(view["runs"][1]["status"], "completed");
}

#[test]
fn a_killed_run_is_resumed_from_its_last_stored_step() {
    let dir = tempfile::tempdir().unwrap();
    let mut hang = openai::text_frames("让我再想", 2);
    hang.push(Frame::Delay(Duration::from_secs(120)));
    let server = ScriptedServer::start(vec![
        openai::tool_calls(
            None,
            &[(
                "c_note",
                "write_file",
                r#"{"file_path": "/note.md", "content": "saved before the crash"}"#,
            )],
        ),
        Reply::Stream(hang),
        openai::text("我接着做完了"),
    ])
    .unwrap();
    let id = chat_killed_in_its_second_step(&dir, &server);
    let view = thread_view(&dir, &id);
    let run_id = view["runs"][0]["id"].as_str().unwrap().to_string();
    assert_eq!(view["runs"][0]["status"], "interrupted");

    let resumed = deskmate(&dir)
        .args([
            "runs",
            "resume",
            &run_id,
            "--model",
            "openai:m",
            "--base-url",
            &server.base_url(),
        ])
        .output()
        .unwrap();
    assert!(
        resumed.status.success(),
        "{}",
        String::from_utf8_lossy(&resumed.stderr)
    );
    assert!(String::from_utf8_lossy(&resumed.stdout).contains("我接着做完了"));
    // The model was called again with the thread as stored: no new message from the user.
    let last_call = &server.requests()[2].body["messages"];
    let sent: Vec<&str> = last_call
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(sent, ["system", "user", "assistant", "tool"]);
    // The same run went on to the end, counting its steps on.
    let view = thread_view(&dir, &id);
    assert_eq!(view["runs"].as_array().unwrap().len(), 1);
    assert_eq!(view["runs"][0]["status"], "completed");
    assert_eq!(view["runs"][0]["steps"], 3);
    assert_eq!(roles(&view), ["user", "assistant", "tool", "assistant"]);

    // A run that is not cut off is not continued.
    let again = deskmate(&dir)
        .args([
            "runs",
            "resume",
            &run_id,
            "--model",
            "openai:m",
            "--base-url",
            &server.base_url(),
        ])
        .output()
        .unwrap();
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("completed, not interrupted"));
}

#[test]
fn broken_and_malformed_streams_end_the_run_and_the_thread_continues() {
    let dir = tempfile::tempdir().unwrap();
    let mut malformed = openai::text_frames("我先说一半", 2);
    malformed.push(Frame::Data(r#"{"choices": [{"delta": "#.into()));
    let mut cut = openai::text_frames("说到这里", 2);
    cut.push(Frame::Disconnect);
    let server = ScriptedServer::start(vec![
        Reply::Stream(malformed),
        openai::text("重新来"),
        Reply::Stream(cut),
        openai::text("又好了"),
    ])
    .unwrap();
    let chat = |extra: &[&str]| {
        let mut cmd = deskmate(&dir);
        cmd.args([
            "chat",
            "--model",
            "openai:m",
            "--base-url",
            &server.base_url(),
        ])
        .args(extra);
        cmd.output().unwrap()
    };

    // Malformed JSON mid-stream, watched as events.
    let out = chat(&["--events", "坏的"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let events = events_of(&out.stdout);
    EventOrder::check_run(&events).unwrap();
    match events.last().unwrap() {
        AgUiEvent::RunError { code, message } => {
            assert_eq!(code.as_deref(), Some("PROTOCOL"));
            assert!(message.contains("cannot read"), "{message}");
        }
        other => panic!("expected RUN_ERROR, got {other:?}"),
    }
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cannot read") && err.contains("--thread"),
        "{err}"
    );
    let threads = json_of(
        &deskmate(&dir)
            .args(["threads", "list", "--json"])
            .output()
            .unwrap()
            .stdout,
    );
    let id = threads[0]["id"].as_str().unwrap().to_string();
    let view = thread_view(&dir, &id);
    assert_eq!(view["runs"][0]["status"], "error");
    assert_eq!(roles(&view), ["user", "assistant"]);
    assert_eq!(
        view["messages"][1]["message"]["content"][0]["text"], "我先说一半",
        "{view:#}"
    );
    let again = chat(&["--thread", &id, "继续"]);
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert!(String::from_utf8_lossy(&again.stdout).contains("重新来"));

    // The connection dropped mid-reply, printed as text.
    let out = chat(&["--thread", &id, "再说"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("说到这里"),
        "what was shown stays shown"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cannot reach the model provider") && err.contains("broke"),
        "{err}"
    );
    let view = thread_view(&dir, &id);
    assert_eq!(view["runs"][2]["status"], "error");
    assert!(view["runs"][2]["error"].as_str().unwrap().contains("broke"));
    let again = chat(&["--thread", &id, "继续"]);
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert!(String::from_utf8_lossy(&again.stdout).contains("又好了"));
    let view = thread_view(&dir, &id);
    let statuses: Vec<&str> = view["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["error", "completed", "error", "completed"]);
    assert_eq!(
        server.request_count(),
        4,
        "nothing already shown was sent twice"
    );
}

/// Every file under `dir` (the database, its WAL, thread folders…).
fn files_under(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let p = entry.path();
        if p.is_dir() {
            out.extend(files_under(&p));
        } else {
            out.push(p);
        }
    }
    out
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

#[test]
fn the_api_key_stays_out_of_trace_logs_output_and_the_database() {
    const CANARY: &str = "sk-canary-9f2d7be4c1a05e33";
    let dir = tempfile::tempdir().unwrap();
    // A careless server echoes the key in a rate-limit and an auth error.
    let echo = format!(r#"{{"error":{{"message":"key {CANARY} is over its limit"}}}}"#);
    let server = ScriptedServer::start(vec![
        status(429, Some("0.1"), &echo),
        openai::tool_calls(
            Some("我看看"),
            &[(
                "c1",
                "write_file",
                r#"{"file_path": "/n.md", "content": "记下了"}"#,
            )],
        ),
        openai::text("记好了"),
        status(
            401,
            None,
            &format!(r#"{{"error":{{"message":"Incorrect API key provided: {CANARY}"}}}}"#),
        ),
    ])
    .unwrap();
    let mut outputs = Vec::new();
    for (extra, ok) in [(vec!["--events", "记一下"], true), (vec!["再来"], false)] {
        let out = deskmate(&dir)
            .env("DESKMATE_LLM_API_KEY", CANARY)
            .env("DESKMATE_LOG", "trace")
            .env_remove("RUST_LOG")
            .args([
                "chat",
                "--model",
                "openai:m",
                "--base-url",
                &server.base_url(),
            ])
            .args(extra)
            .output()
            .unwrap();
        assert_eq!(
            out.status.success(),
            ok,
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        outputs.push(out);
    }
    // The key was really used, and logging was really on.
    assert!(server
        .requests()
        .iter()
        .all(|r| r.header("authorization") == Some(&format!("Bearer {CANARY}"))));
    let first_err = String::from_utf8_lossy(&outputs[0].stderr);
    assert!(
        first_err.contains("TRACE") && first_err.contains("DEBUG"),
        "trace logging was not on:\n{first_err}"
    );
    assert!(
        first_err.contains("retrying"),
        "the rate limit was not logged:\n{first_err}"
    );
    assert!(String::from_utf8_lossy(&outputs[1].stderr).contains("[redacted]"));
    for out in &outputs {
        for (name, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
            assert!(
                !contains(bytes, CANARY.as_bytes()),
                "the key is in {name}:\n{}",
                String::from_utf8_lossy(bytes)
            );
        }
    }
    let files = files_under(dir.path());
    let db = dir.path().join("deskmate.sqlite3");
    assert!(files.contains(&db), "{files:?}");
    let mut stored = Vec::new();
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        assert!(
            !contains(&bytes, CANARY.as_bytes()),
            "the key is in {}",
            f.display()
        );
        stored.extend(bytes);
    }
    // The search itself can find things: the conversation is there.
    assert!(contains(&stored, "记好了".as_bytes()) && contains(&stored, "[redacted]".as_bytes()));
}

#[cfg(unix)]
#[test]
fn a_run_killed_with_a_tool_call_pending_is_interrupted_and_the_call_answered() {
    let dir = tempfile::tempdir().unwrap();
    let server = ScriptedServer::start(vec![
        openai::tool_calls(
            Some("我查一下"),
            &[("c_search", "internet_search", r#"{"query": "静夜思 作者"}"#)],
        ),
        openai::text("我回来了"),
    ])
    .unwrap();
    // A search service that answers the headers and then takes its time.
    let search = ScriptedServer::start(vec![Reply::Stream(vec![Frame::Delay(
        Duration::from_secs(120),
    )])])
    .unwrap();
    let bin = assert_cmd::cargo::cargo_bin("deskmate");
    let mut child = StdCommand::new(&bin)
        .arg("--data-dir")
        .arg(dir.path())
        .args([
            "chat",
            "--events",
            "--model",
            "openai:m",
            "--base-url",
            &server.base_url(),
            "谁写的静夜思",
        ])
        .env("DESKMATE_LLM_API_KEY", KEY)
        .env("DESKMATE_SEARCH_API_KEY", "tvly-test")
        .env("DESKMATE_SEARCH_URL", search.base_url())
        .env_remove("DESKMATE_DATA_DIR")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // The search request is out: the call is stored as pending and running.
    crate::kill_once_requested(&mut child, &search, "the child's search tool call");
    let mut stdout = Vec::new();
    std::io::Read::read_to_end(&mut child.stdout.take().unwrap(), &mut stdout).unwrap();
    let events = events_of(&stdout);
    let kinds: Vec<&str> = events.iter().map(AgUiEvent::kind).collect();
    assert!(kinds.contains(&"TOOL_CALL_END"), "{kinds:?}");
    assert!(
        !kinds.contains(&"TOOL_CALL_RESULT"),
        "killed after the result: {kinds:?}"
    );

    let threads = json_of(
        &deskmate(&dir)
            .args(["threads", "list", "--json"])
            .output()
            .unwrap()
            .stdout,
    );
    let id = threads[0]["id"].as_str().unwrap().to_string();
    let view = thread_view(&dir, &id);
    assert_eq!(view["runs"][0]["status"], "interrupted", "{view:#}");
    assert_eq!(roles(&view), ["user", "assistant", "tool"]);
    assert_eq!(view["tool_calls"][0]["id"], "c_search");
    assert_eq!(view["tool_calls"][0]["status"], "interrupted");
    let answer = &view["messages"][2]["message"];
    assert_eq!(answer["tool_call_id"], "c_search");
    assert!(
        answer["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("interrupted"),
        "{answer}"
    );

    let again = deskmate(&dir)
        .args([
            "chat",
            "--model",
            "openai:m",
            "--base-url",
            &server.base_url(),
            "--thread",
            &id,
            "继续",
        ])
        .output()
        .unwrap();
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert!(String::from_utf8_lossy(&again.stdout).contains("我回来了"));
    // The model got the synthesized answer to the dangling call.
    let sent = server.requests()[1].body["messages"]
        .as_array()
        .unwrap()
        .clone();
    let tool = sent.iter().find(|m| m["role"] == "tool").unwrap();
    assert_eq!(tool["tool_call_id"], "c_search");
    assert!(tool["content"].to_string().contains("interrupted"));
    assert_eq!(thread_view(&dir, &id)["runs"][1]["status"], "completed");
}

fn stored_costs(dir: &tempfile::TempDir) -> Vec<Option<f64>> {
    let conn = rusqlite::Connection::open(dir.path().join("deskmate.sqlite3")).unwrap();
    let mut st = conn
        .prepare("SELECT cost_usd FROM llm_calls ORDER BY rowid")
        .unwrap();
    st.query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

#[test]
fn costs_use_the_price_setting_and_a_damaged_one_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let server = ScriptedServer::start(vec![
        openai::text("一"),
        openai::text("二"),
        openai::text("三"),
    ])
    .unwrap();
    let chat = || {
        deskmate(&dir)
            .args([
                "chat",
                "--model",
                "openai:m",
                "--base-url",
                &server.base_url(),
                "x",
            ])
            .output()
            .unwrap()
    };
    // No price for openai:m: the cost is unknown (NULL), not zero.
    assert!(chat().status.success());
    assert_eq!(stored_costs(&dir), [None]);

    let prices = r#"{"prices": {"openai:m": {"input_per_mtok": 1.0, "output_per_mtok": 2.0}}}"#;
    deskmate(&dir)
        .args(["llm", "prices", prices])
        .assert()
        .success();
    let shown = json_of(
        &deskmate(&dir)
            .args(["llm", "prices"])
            .output()
            .unwrap()
            .stdout,
    );
    assert_eq!(shown["prices"]["openai:m"]["output_per_mtok"], 2.0);
    assert!(chat().status.success());
    // The scripted reply uses 10 input and 5 output tokens.
    let costs = stored_costs(&dir);
    assert!(
        (costs[1].unwrap() - (10.0 * 1.0 + 5.0 * 2.0) / 1e6).abs() < 1e-12,
        "{costs:?}"
    );

    let refused = [
        (r#"{"openai:m": {"input_per_mtok": 1}}"#, "cannot be read"),
        (
            r#"{"prices": {"openai:m": {"input_per_mtok": -1, "output_per_mtok": 1}}}"#,
            "zero or more",
        ),
        (
            r#"{"prices": {"gpt-4o": {"input_per_mtok": 1, "output_per_mtok": 1}}}"#,
            "provider:model",
        ),
    ];
    for (bad, says) in refused {
        let out = deskmate(&dir)
            .args(["llm", "prices", bad])
            .output()
            .unwrap();
        assert!(!out.status.success(), "{bad} was accepted");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says) && !err.contains("panicked"), "{err}");
    }
    let kept = json_of(
        &deskmate(&dir)
            .args(["llm", "prices"])
            .output()
            .unwrap()
            .stdout,
    );
    assert_eq!(kept, shown, "a refused table leaves the saved one alone");
    // A setting damaged outside Deskmate stops chat with a way out, before any model call.
    let conn = rusqlite::Connection::open(dir.path().join("deskmate.sqlite3")).unwrap();
    conn.execute(
        "UPDATE settings SET value = '{\"openai:m\": 3}' WHERE key = 'llm.prices'",
        [],
    )
    .unwrap();
    drop(conn);
    let out = chat();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("llm.prices")
            && err.contains("input_per_mtok")
            && err.contains("deskmate llm prices --clear"),
        "{err}"
    );
    assert_eq!(server.request_count(), 2);
    deskmate(&dir)
        .args(["llm", "prices", "--clear"])
        .assert()
        .success();
    assert!(
        chat().status.success(),
        "the built-in prices stay after clearing"
    );
    assert_eq!(stored_costs(&dir).len(), 3);
}
