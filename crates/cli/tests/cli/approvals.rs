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

// ---- Killed between pause and resume ----------------------------------------

#[cfg(unix)]
mod killed {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use std::process::{Command as StdCommand, Stdio};
    use std::time::Duration;

    use deskmate_llm::scripted::{openai, Frame, RecordedRequest, Reply, ScriptedServer};
    use deskmate_testkit::cli::{deskmate, json};
    use serde_json::Value;

    use super::KEY;

    fn results(r: &RecordedRequest) -> Vec<String> {
        r.body["messages"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|m| m["role"] == "tool")
            .map(|m| m["content"].as_str().unwrap_or("").to_string())
            .collect()
    }

    fn offers_task(r: &RecordedRequest) -> bool {
        r.body["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|t| t["function"]["name"] == "task")
    }

    /// One reply with a slow search (a call that needs no parent) and a
    /// held `write_file`; then an answer with what the tools said.
    fn search_and_write(r: &RecordedRequest, said: &str) -> Reply {
        let got = results(r);
        if got.is_empty() {
            return openai::tool_calls(
                None,
                &[
                    ("c_search", "internet_search", r#"{"query": "静夜思 作者"}"#),
                    (
                        "c_write",
                        "write_file",
                        r#"{"file_path": "/notes/poem.md", "content": "静夜思 李白"}"#,
                    ),
                ],
            );
        }
        openai::text(&format!("{said}{}", got.join(" | ")))
    }

    /// A search service that answers the headers and then takes its time.
    fn hanging_search() -> ScriptedServer {
        ScriptedServer::start(vec![Reply::Stream(vec![Frame::Delay(
            Duration::from_secs(120),
        )])])
        .unwrap()
    }

    /// Starts `deskmate chat` with `write_file` needing approval, waits
    /// until the search is out (the held call is stored by then), and
    /// SIGKILLs it.
    fn chat_killed_while_searching(
        dir: &tempfile::TempDir,
        server: &ScriptedServer,
        search: &ScriptedServer,
    ) {
        let mut child = StdCommand::new(assert_cmd::cargo::cargo_bin("deskmate"))
            .arg("--data-dir")
            .arg(dir.path())
            .args([
                "chat",
                "--model",
                "openai:m",
                "--base-url",
                &server.base_url(),
                "--context",
                r#"{"approvals": ["write_file"]}"#,
                "查查静夜思是谁写的，记到笔记里",
            ])
            .env("DESKMATE_LLM_API_KEY", KEY)
            .env("DESKMATE_SEARCH_API_KEY", "tvly-test")
            .env("DESKMATE_SEARCH_URL", search.base_url())
            .env_remove("DESKMATE_DATA_DIR")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        crate::kill_once_requested(&mut child, search, "the search");
    }

    fn cli(dir: &tempfile::TempDir) -> assert_cmd::Command {
        let mut c = deskmate(dir.path());
        c.env("DESKMATE_LLM_API_KEY", KEY);
        c
    }

    fn pending(dir: &tempfile::TempDir) -> Value {
        json(
            &cli(dir)
                .args(["runs", "pending", "--json"])
                .output()
                .unwrap()
                .stdout,
        )
    }

    fn resume_approving(
        dir: &tempfile::TempDir,
        server: &ScriptedServer,
        run: &str,
    ) -> std::process::Output {
        cli(dir)
            .args([
                "runs",
                "resume",
                run,
                "--model",
                "openai:m",
                "--base-url",
                &server.base_url(),
                "--approve",
                "c_write",
            ])
            .output()
            .unwrap()
    }

    fn note(dir: &tempfile::TempDir, thread: &str) -> std::path::PathBuf {
        dir.path()
            .join("threads")
            .join(thread)
            .join("workspace/notes/poem.md")
    }

    #[test]
    fn a_run_killed_with_a_held_call_still_waits_for_the_parent_and_finishes_once_approved() {
        let dir = tempfile::tempdir().unwrap();
        let server = ScriptedServer::with_responder(|r| search_and_write(r, "查好了：")).unwrap();
        let search = hanging_search();
        chat_killed_while_searching(&dir, &server, &search);

        // The held call was stored before the search ran: it still waits.
        let waiting = pending(&dir);
        assert_eq!(waiting.as_array().unwrap().len(), 1, "{waiting:#}");
        assert_eq!(waiting[0]["tool_call_id"], "c_write");
        let run = waiting[0]["run_id"].as_str().unwrap().to_string();
        let thread = waiting[0]["thread_id"].as_str().unwrap().to_string();
        // Looking at the thread closes the dead run: the search is answered
        // as interrupted, the held call is left for the parent.
        let view = json(
            &cli(&dir)
                .args(["threads", "show", &thread, "--json"])
                .output()
                .unwrap()
                .stdout,
        );
        assert_eq!(view["runs"][0]["status"], "interrupted", "{view:#}");
        let status = |id: &str| {
            view["tool_calls"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["id"] == id)
                .map(|c| c["status"].clone())
                .unwrap()
        };
        assert_eq!(status("c_search"), "interrupted");
        assert_eq!(status("c_write"), "pending");
        assert_eq!(pending(&dir)[0]["tool_call_id"], "c_write");
        assert!(!note(&dir, &thread).exists());

        let done = resume_approving(&dir, &server, &run);
        assert!(
            done.status.success(),
            "{}",
            String::from_utf8_lossy(&done.stderr)
        );
        let answer = String::from_utf8_lossy(&done.stdout).to_string();
        assert!(answer.contains("查好了："), "{answer}");
        assert!(
            answer.contains("interrupted"),
            "the model hears the search was cut off: {answer}"
        );
        assert_eq!(
            std::fs::read_to_string(note(&dir, &thread)).unwrap(),
            "静夜思 李白"
        );
        assert_eq!(pending(&dir), serde_json::json!([]));
        assert_eq!(server.request_count(), 2, "nothing was asked again");
    }

    #[test]
    fn a_subagent_killed_with_a_held_call_continues_its_own_run_once_approved() {
        let dir = tempfile::tempdir().unwrap();
        // The lead hands the work to the general-purpose subagent, which
        // searches and writes.
        let server = ScriptedServer::with_responder(|r| {
            if !offers_task(r) {
                return search_and_write(r, "助手说：");
            }
            if results(r).is_empty() {
                return openai::tool_calls(
                    None,
                    &[(
                        "t_gp",
                        "task",
                        r#"{"description": "查静夜思的作者，写进 /notes/poem.md", "subagent_type": "general-purpose"}"#,
                    )],
                );
            }
            openai::text(&format!("同桌说：{}", results(r).join("")))
        })
        .unwrap();
        let search = hanging_search();
        chat_killed_while_searching(&dir, &server, &search);

        let waiting = pending(&dir);
        assert_eq!(waiting.as_array().unwrap().len(), 1, "{waiting:#}");
        assert_eq!(waiting[0]["tool_call_id"], "c_write");
        // Held by the subagent's run.
        let child = waiting[0]["run_id"].as_str().unwrap().to_string();
        let thread = waiting[0]["thread_id"].as_str().unwrap().to_string();
        let view = json(
            &cli(&dir)
                .args(["threads", "show", &thread, "--json"])
                .output()
                .unwrap()
                .stdout,
        );
        assert_eq!(view["children"][0]["run"]["id"], child.as_str(), "{view:#}");
        assert_eq!(view["tool_calls"][0]["id"], "t_gp");
        assert_eq!(
            view["tool_calls"][0]["status"], "pending",
            "the lead's task waits"
        );
        let lead = view["runs"][0]["id"].as_str().unwrap().to_string();
        assert_eq!(view["runs"][0]["status"], "interrupted");
        assert_eq!(server.request_count(), 2);

        // Continued by the run `runs pending` named: the subagent's.
        let done = resume_approving(&dir, &server, &child);
        assert!(
            done.status.success(),
            "{}",
            String::from_utf8_lossy(&done.stderr)
        );
        let answer = String::from_utf8_lossy(&done.stdout).to_string();
        assert!(answer.contains("同桌说：助手说："), "{answer}");
        assert_eq!(
            std::fs::read_to_string(note(&dir, &thread)).unwrap(),
            "静夜思 李白"
        );
        // The subagent and then the lead were asked once more each.
        assert_eq!(server.request_count(), 4);
        let view = json(
            &cli(&dir)
                .args(["threads", "show", &thread, "--json"])
                .output()
                .unwrap()
                .stdout,
        );
        assert_eq!(view["runs"].as_array().unwrap().len(), 1);
        assert_eq!(view["runs"][0]["id"], lead.as_str());
        assert_eq!(view["runs"][0]["status"], "completed");
        assert_eq!(view["children"].as_array().unwrap().len(), 1);
        assert_eq!(view["children"][0]["run"]["status"], "completed");
        assert_eq!(view["tool_calls"][0]["status"], "completed");
    }
}
