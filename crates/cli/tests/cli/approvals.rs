//! Human in the loop from the command line: a chat whose context says
//! `write_file` needs a parent's approval pauses (exit code 3, the waiting
//! call named), `runs pending` lists it, continuing undecided is refused
//! in words, and `runs resume RUN --approve CALL` — a new process, as after
//! the app was closed — runs the call and finishes the answer.

use deskmate_llm::scripted::{openai, RecordedRequest, Reply, ScriptedServer};
use deskmate_testkit::cli::{deskmate, json};

const KEY: &str = "sk-approvals-test";

fn respond(r: &RecordedRequest) -> Reply {
    let results: Vec<String> = r.body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap_or("").to_string())
        .collect();
    if results.is_empty() {
        return openai::tool_calls(
            None,
            &[(
                "c_write",
                "write_file",
                r#"{"file_path": "/notes/poem.md", "content": "床前明月光"}"#,
            )],
        );
    }
    openai::text(&format!("写好了：{}", results.join("")))
}

#[test]
fn a_call_waiting_for_approval_pauses_the_run_until_a_parent_decides() {
    let dir = tempfile::tempdir().unwrap();
    let server = ScriptedServer::with_responder(respond).unwrap();
    let cli = || {
        let mut c = deskmate(dir.path());
        c.env("DESKMATE_LLM_API_KEY", KEY);
        c
    };
    let out = cli()
        .args([
            "chat",
            "--model",
            "openai:m",
            "--base-url",
            &server.base_url(),
            "--context",
            r#"{"approvals": ["write_file"]}"#,
            "把静夜思写到笔记里",
        ])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(
        err.contains("waiting for a parent's approval: c_write write_file"),
        "{err}"
    );
    let run = err
        .split("deskmate runs resume ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .unwrap()
        .to_string();

    let pending = cli().args(["runs", "pending", "--json"]).output().unwrap();
    let pending = json(&pending.stdout);
    assert_eq!(pending[0]["tool_call_id"], "c_write");
    assert_eq!(pending[0]["run_id"], run.as_str());

    // Undecided, it does not go on.
    let refused = cli()
        .args([
            "runs",
            "resume",
            &run,
            "--model",
            "openai:m",
            "--base-url",
            &server.base_url(),
        ])
        .output()
        .unwrap();
    assert!(!refused.status.success());
    let said = String::from_utf8_lossy(&refused.stderr).to_string();
    assert!(
        said.contains("waits for a parent's decision on c_write"),
        "{said}"
    );
    // A malformed decision is refused before anything changes.
    let bad = cli()
        .args(["runs", "resume", &run, "--reject", "no-equals-sign"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&bad.stderr).contains("CALL=TEXT"));

    let done = cli()
        .args([
            "runs",
            "resume",
            &run,
            "--model",
            "openai:m",
            "--base-url",
            &server.base_url(),
            "--approve",
            "c_write",
        ])
        .output()
        .unwrap();
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    assert!(String::from_utf8_lossy(&done.stdout).contains("写好了"));
    let none = cli().args(["runs", "pending", "--json"]).output().unwrap();
    assert_eq!(json(&none.stdout), serde_json::json!([]));
    assert_eq!(
        server.request_count(),
        2,
        "the model was not asked again from the start"
    );
}
