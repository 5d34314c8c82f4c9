//! Human in the loop: a tool the profile says needs a parent's approval is
//! held — the run pauses with the call pending and an AG-UI interrupt — and
//! continues from exactly there once a parent approves, changes the
//! arguments, rejects with a reason, or answers in place of the tool; also
//! by a new agent on the same store (the app closed and opened again). A
//! paused thread takes no new message until the parent has decided.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeSet;

use deskmate_agent::persist::{self, ApprovalDecision, RunStatus};
use deskmate_agent::*;
use deskmate_llm::scripted::{openai, RecordedRequest, Reply, ScriptedServer};
use deskmate_protocol::agui::RunFinishedOutcome;

use crate::common;
use common::{run, Env};

/// The model lists the workspace, then says what the tool answered.
fn respond(r: &RecordedRequest) -> Reply {
    let results: Vec<String> = r.body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap_or("").to_string())
        .collect();
    if results.is_empty() {
        return openai::tool_calls(None, &[("c_ls", "ls", r#"{"path": "/"}"#)]);
    }
    openai::text(&format!("工具说：{}", results.join(" | ")))
}

fn agent(e: &Env, server: &ScriptedServer) -> Agent {
    let config = AgentConfig {
        approvals: BTreeSet::from(["ls".to_string()]),
        ..AgentConfig::default()
    };
    e.agent(
        server,
        "openai:scripted",
        config,
        ToolSet::builtin(SearchConfig::default()),
    )
}

async fn resume(agent: &Agent, run_id: &str) -> (RunOutcome, Vec<AgUiEvent>) {
    let prepared = agent.prepare_resume(run_id).await.unwrap();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let out = prepared.execute(tx, CancellationToken::new()).await;
    let mut events = Vec::new();
    while let Ok(ev) = rx.try_recv() {
        events.push(ev);
    }
    EventOrder::check_run(&events).unwrap();
    (out, events)
}

/// Sends a message and checks the run paused on the `ls` call.
async fn paused(e: &Env, server: &ScriptedServer) -> RunOutcome {
    let (out, events) = run(&agent(e, server), None, "看看有什么文件").await;
    assert_eq!(out.status, RunStatus::Interrupted, "{out:?}");
    let Some(AgUiEvent::RunFinished {
        result: Some(result),
        outcome,
        ..
    }) = events.last()
    else {
        panic!("no RUN_FINISHED at the end: {events:?}");
    };
    assert_eq!(result["outcome"], "interrupt");
    assert_eq!(result["interrupts"][0]["tool"], "ls");
    assert_eq!(result["interrupts"][0]["id"], "c_ls");
    // AG-UI 1.0's own field says the same: one tool approval for c_ls.
    let Some(RunFinishedOutcome::Interrupt { interrupts }) = outcome else {
        panic!("no interrupt outcome: {outcome:?}");
    };
    assert_eq!(interrupts.len(), 1);
    assert_eq!(interrupts[0].id, "c_ls");
    assert_eq!(interrupts[0].tool_call_id.as_deref(), Some("c_ls"));
    assert_eq!(interrupts[0].reason, "tool_approval");
    assert_eq!(interrupts[0].subagent_run_id, None);
    // The call waits, undecided, and was not run.
    let waiting = persist::open_approvals(&e.store, Some(&out.run_id)).unwrap();
    assert_eq!(waiting.len(), 1);
    assert_eq!(
        (waiting[0].tool.as_str(), waiting[0].decision.as_ref()),
        ("ls", None)
    );
    let calls = persist::all_tool_calls(&e.store, &out.thread_id).unwrap();
    assert_eq!(calls[0].status, persist::ToolCallStatus::Pending);
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_approved_call_runs_when_the_run_continues_even_in_a_new_agent() {
    let e = Env::new();
    let server = ScriptedServer::with_responder(respond).unwrap();
    let out = paused(&e, &server).await;
    // Undecided: neither continuing nor a new message in the thread goes on.
    let Err(err) = agent(&e, &server).prepare_resume(&out.run_id).await else {
        panic!("an undecided run went on");
    };
    assert_eq!(err.code(), "chat.awaiting_approval");
    let Err(err) = agent(&e, &server)
        .prepare(RunRequest::text(Some(out.thread_id.clone()), "还在吗"))
        .await
    else {
        panic!("a new message talked past the waiting call");
    };
    assert_eq!(err.code(), "chat.awaiting_approval");

    persist::decide_approval(&e.store, &out.run_id, "c_ls", &ApprovalDecision::Approve).unwrap();
    // A new agent on the same store: the app was closed and opened again.
    let (done, _) = resume(&agent(&e, &server), &out.run_id).await;
    assert_eq!(
        (done.status, done.run_id.as_str()),
        (RunStatus::Completed, out.run_id.as_str())
    );
    assert!(done.answer.starts_with("工具说："), "{}", done.answer);
    assert!(!done.answer.contains("Error"), "{}", done.answer);
    let calls = persist::all_tool_calls(&e.store, &out.thread_id).unwrap();
    assert_eq!(calls[0].status, persist::ToolCallStatus::Completed);
    assert!(persist::open_approvals(&e.store, None).unwrap().is_empty());
    // The model was called once more, not from the start: 2 requests in all.
    assert_eq!(server.request_count(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rejected_call_tells_the_model_why_and_an_answered_one_gives_the_parents_answer() {
    let e = Env::new();
    let server = ScriptedServer::with_responder(respond).unwrap();
    let out = paused(&e, &server).await;
    persist::decide_approval(
        &e.store,
        &out.run_id,
        "c_ls",
        &ApprovalDecision::Reject {
            reason: "先写完作业".into(),
        },
    )
    .unwrap();
    let (done, _) = resume(&agent(&e, &server), &out.run_id).await;
    assert!(
        done.answer
            .contains("a parent did not allow this call (ls): 先写完作业"),
        "{}",
        done.answer
    );

    let e = Env::new();
    let server = ScriptedServer::with_responder(respond).unwrap();
    let out = paused(&e, &server).await;
    persist::decide_approval(
        &e.store,
        &out.run_id,
        "c_ls",
        &ApprovalDecision::Respond {
            answer: "只有 notes.md".into(),
        },
    )
    .unwrap();
    let (done, _) = resume(&agent(&e, &server), &out.run_id).await;
    assert_eq!(done.answer, "工具说：只有 notes.md");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn changed_arguments_are_the_ones_run_and_stored() {
    let e = Env::new();
    let server = ScriptedServer::with_responder(respond).unwrap();
    let out = paused(&e, &server).await;
    let bad = persist::decide_approval(
        &e.store,
        &out.run_id,
        "c_ls",
        &ApprovalDecision::Edit {
            arguments: "{not json".into(),
        },
    );
    assert!(bad.unwrap_err().to_string().contains("not JSON"));
    persist::decide_approval(
        &e.store,
        &out.run_id,
        "c_ls",
        &ApprovalDecision::Edit {
            arguments: r#"{"path": "/skills"}"#.into(),
        },
    )
    .unwrap();
    let (done, _) = resume(&agent(&e, &server), &out.run_id).await;
    assert_eq!(done.status, RunStatus::Completed, "{done:?}");
    let calls = persist::all_tool_calls(&e.store, &out.thread_id).unwrap();
    assert_eq!(calls[0].arguments, r#"{"path": "/skills"}"#);
    // A decision on a call that is not waiting is refused in words.
    let err = persist::decide_approval(&e.store, &out.run_id, "c_ls", &ApprovalDecision::Approve)
        .unwrap_err();
    assert_eq!(err.code(), "not_found");
}

// ---- A call inside a subagent ----------------------------------------------

mod inside_a_subagent {
    use std::collections::BTreeSet;
    use std::sync::Arc;

    use deskmate_agent::persist::{self, ApprovalDecision, RunStatus, ToolCallStatus};
    use deskmate_agent::team::Team;
    use deskmate_agent::tools::{Task, SUBAGENT_EVENT};
    use deskmate_agent::*;
    use deskmate_llm::scripted::{openai, RecordedRequest, Reply, ScriptedServer};

    use super::common::{run, Env};

    const LEAD: &str = "---\nname: deskmate\ndescription: 同桌\ntools: [task]\n---\n你是同桌。\n";
    const WRITER: &str = "---\nname: note-writer\ndescription: 写笔记\ntools: [write_file, read_file]\n---\nNOTE-WRITER 把内容写进笔记。\n";
    const POET: &str =
        "---\nname: poetry-tutor\ndescription: 讲古诗\ntools: [read_file]\n---\nPOETRY-TUTOR 讲诗。\n";

    fn system(r: &RecordedRequest) -> String {
        r.body["messages"][0]["content"]
            .as_str()
            .unwrap_or("")
            .to_string()
    }

    fn results(r: &RecordedRequest) -> Vec<String> {
        r.body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["role"] == "tool")
            .map(|m| m["content"].as_str().unwrap_or("").to_string())
            .collect()
    }

    /// The lead starts two subagents in one reply: the note writer, whose
    /// `write_file` needs a parent, and the poetry tutor, who needs none.
    fn respond(r: &RecordedRequest) -> Reply {
        let sys = system(r);
        let got = results(r);
        if sys.contains("NOTE-WRITER") {
            if got.is_empty() {
                return openai::tool_calls(
                    None,
                    &[(
                        "w_note",
                        "write_file",
                        r#"{"file_path": "/note.md", "content": "床前明月光"}"#,
                    )],
                );
            }
            return openai::text(&format!("写笔记的结果：{}", got.join("")));
        }
        if sys.contains("POETRY-TUTOR") {
            return openai::text("抬头看月亮。");
        }
        if got.is_empty() {
            return openai::tool_calls(
                None,
                &[
                    (
                        "t_write",
                        "task",
                        r#"{"description": "把「床前明月光」写进 /note.md", "subagent_type": "note-writer"}"#,
                    ),
                    (
                        "t_poem",
                        "task",
                        r#"{"description": "讲「举头望明月」", "subagent_type": "poetry-tutor"}"#,
                    ),
                ],
            );
        }
        openai::text(&format!("都好了：{}", got.join(" / ")))
    }

    fn agent(e: &Env, server: &ScriptedServer) -> Agent {
        let team = Arc::new(Team::new([
            ("", LEAD),
            ("note-writer", WRITER),
            ("poetry-tutor", POET),
        ]));
        let mut tools = ToolSet::builtin(SearchConfig::default());
        tools.add(Arc::new(Task::new(team, true)));
        let config = AgentConfig {
            approvals: BTreeSet::from(["write_file".to_string()]),
            ..AgentConfig::default()
        };
        e.agent(server, "openai:scripted", config, tools)
    }

    /// Requests each agent made: (lead, note writer, poetry tutor).
    fn asked(server: &ScriptedServer) -> (usize, usize, usize) {
        let all = server.requests();
        let of = |tag: &str| all.iter().filter(|r| system(r).contains(tag)).count();
        let (w, p) = (of("NOTE-WRITER"), of("POETRY-TUTOR"));
        (all.len() - w - p, w, p)
    }

    /// Runs until the lead pauses on the note writer's call; the paused
    /// outcome and the note writer's run id.
    async fn paused(e: &Env, server: &ScriptedServer) -> (RunOutcome, String) {
        let (out, events) = run(&agent(e, server), None, "写笔记，再讲讲静夜思").await;
        assert_eq!(out.status, RunStatus::Interrupted, "{out:?}");
        let Some(AgUiEvent::RunFinished {
            result: Some(result),
            run_id,
            outcome,
            ..
        }) = events.last()
        else {
            panic!("no RUN_FINISHED at the end: {events:?}");
        };
        assert_eq!(run_id, &out.run_id, "the lead's run ends");
        assert_eq!(result["outcome"], "interrupt", "{result}");
        let held = &result["interrupts"];
        assert_eq!(held.as_array().unwrap().len(), 1, "{held}");
        assert_eq!(
            (
                &held[0]["id"],
                &held[0]["tool"],
                &held[0]["task_call_id"],
                &held[0]["subagent_type"]
            ),
            (
                &serde_json::json!("w_note"),
                &serde_json::json!("write_file"),
                &serde_json::json!("t_write"),
                &serde_json::json!("note-writer")
            )
        );
        let children = persist::child_runs(&e.store, &out.thread_id).unwrap();
        let writer = children
            .iter()
            .find(|c| c.agent.as_deref() == Some("note-writer"))
            .unwrap();
        assert_eq!(writer.status, RunStatus::Interrupted);
        assert_eq!(held[0]["run_id"], writer.id.as_str());
        // AG-UI 1.0's interrupt names the subagent run that holds the call.
        let Some(deskmate_protocol::agui::RunFinishedOutcome::Interrupt { interrupts }) = outcome
        else {
            panic!("no interrupt outcome: {outcome:?}");
        };
        assert_eq!(
            (
                interrupts[0].id.as_str(),
                interrupts[0].subagent_run_id.as_deref()
            ),
            ("w_note", Some(writer.id.as_str()))
        );
        // The subagent's run holds the call, undecided.
        let waiting = persist::open_approvals(&e.store, None).unwrap();
        assert_eq!(waiting.len(), 1);
        assert_eq!(
            (waiting[0].run_id.as_str(), waiting[0].decision.as_ref()),
            (writer.id.as_str(), None)
        );
        // The lead's `task` call for it is unanswered; the other one is done.
        let calls = persist::tool_calls(&e.store, &out.thread_id).unwrap();
        let status = |id: &str| calls.iter().find(|c| c.id == id).unwrap().status;
        assert_eq!(status("t_write"), ToolCallStatus::Pending);
        assert_eq!(status("t_poem"), ToolCallStatus::Completed);
        // Nothing was written.
        let ws = workspace_dir(&e.threads(), &out.thread_id);
        assert!(!ws.join("note.md").exists());
        assert_eq!(asked(server), (1, 1, 1));
        // A new message waits like the lead's own approvals make it wait.
        let Err(err) = agent(e, server)
            .prepare(RunRequest::text(Some(out.thread_id.clone()), "还在吗"))
            .await
        else {
            panic!("a new message talked past the waiting call");
        };
        assert_eq!(err.code(), "chat.awaiting_approval");
        (out, writer.id.clone())
    }

    async fn resume(agent: &Agent, run_id: &str) -> (RunOutcome, Vec<AgUiEvent>) {
        super::resume(agent, run_id).await
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_approved_call_continues_only_that_subagent_and_its_answer_returns_to_the_lead() {
        let e = Env::new();
        let server = ScriptedServer::with_responder(respond).unwrap();
        let (out, writer) = paused(&e, &server).await;
        // Undecided, the lead's run does not go on.
        let Err(err) = agent(&e, &server).prepare_resume(&out.run_id).await else {
            panic!("an undecided run went on");
        };
        assert_eq!(err.code(), "chat.awaiting_approval");

        // The parent decides through the lead's run, as the interrupt named it.
        persist::decide_approval(&e.store, &out.run_id, "w_note", &ApprovalDecision::Approve)
            .unwrap();
        // A new agent on the same store: the app was closed and opened again.
        let (done, events) = resume(&agent(&e, &server), &out.run_id).await;
        assert_eq!(
            (done.status, done.run_id.as_str()),
            (RunStatus::Completed, out.run_id.as_str()),
            "{done:?}"
        );
        assert!(
            done.answer.contains("写笔记的结果：")
                && done.answer.contains("抬头看月亮")
                && !done.answer.contains("Error"),
            "{}",
            done.answer
        );
        let ws = workspace_dir(&e.threads(), &out.thread_id);
        assert_eq!(
            std::fs::read_to_string(ws.join("note.md")).unwrap(),
            "床前明月光"
        );
        // Only the note writer continued (one more call) and the lead answered
        // (one more call); the poetry tutor was not asked again.
        assert_eq!(asked(&server), (2, 2, 1));
        // The note writer continued its own run from its stored history.
        let writer_asks: Vec<RecordedRequest> = server
            .requests()
            .into_iter()
            .filter(|r| system(r).contains("NOTE-WRITER"))
            .collect();
        let sent = writer_asks[1].body["messages"].as_array().unwrap();
        let roles: Vec<&str> = sent.iter().map(|m| m["role"].as_str().unwrap()).collect();
        assert_eq!(roles, ["system", "user", "assistant", "tool"]);
        assert_eq!(sent[3]["tool_call_id"], "w_note");
        // Its lane streamed in the resumed run, before the `task` result.
        let lane = events.iter().position(|ev| {
            matches!(ev, AgUiEvent::Custom { name, value }
                if name == SUBAGENT_EVENT && value["tool_call_id"] == "t_write")
        });
        let result = events.iter().position(|ev| {
            matches!(ev, AgUiEvent::ToolCallResult { tool_call_id, .. } if tool_call_id == "t_write")
        });
        assert!(lane.unwrap() < result.unwrap());
        assert!(!events.iter().any(|ev| matches!(ev,
            AgUiEvent::ToolCallResult { tool_call_id, .. } if tool_call_id == "t_poem")));

        let view = persist::thread_view(&e.store, &out.thread_id).unwrap();
        assert_eq!(view.children.len(), 2, "no new subagent run was started");
        let child = view.children.iter().find(|c| c.run.id == writer).unwrap();
        assert_eq!(child.run.status, RunStatus::Completed);
        assert_eq!(child.tool_calls[0].status, ToolCallStatus::Completed);
        let lead_results: Vec<&str> = view
            .messages
            .iter()
            .filter_map(|m| m.message.tool_call_id.as_deref())
            .collect();
        assert_eq!(lead_results, ["t_poem", "t_write"], "each answered once");
        assert!(persist::open_approvals(&e.store, None).unwrap().is_empty());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn edit_reject_and_respond_reach_the_subagent_named_by_its_own_run() {
        type Check = fn(&str, &std::path::Path);
        let cases: [(ApprovalDecision, Check); 3] = [
            (
                ApprovalDecision::Edit {
                    arguments: r#"{"file_path": "/other.md", "content": "举头望明月"}"#.into(),
                },
                |answer, ws| {
                    assert!(
                        answer.contains("写笔记的结果：") && !answer.contains("Error"),
                        "{answer}"
                    );
                    assert_eq!(
                        std::fs::read_to_string(ws.join("other.md")).unwrap(),
                        "举头望明月"
                    );
                    assert!(!ws.join("note.md").exists());
                },
            ),
            (
                ApprovalDecision::Reject {
                    reason: "笔记本满了".into(),
                },
                |answer, ws| {
                    assert!(
                        answer
                            .contains("a parent did not allow this call (write_file): 笔记本满了"),
                        "{answer}"
                    );
                    assert!(!ws.join("note.md").exists());
                },
            ),
            (
                ApprovalDecision::Respond {
                    answer: "已经写在纸上了".into(),
                },
                |answer, ws| {
                    assert!(answer.contains("写笔记的结果：已经写在纸上了"), "{answer}");
                    assert!(!ws.join("note.md").exists());
                },
            ),
        ];
        for (decision, check) in cases {
            let e = Env::new();
            let server = ScriptedServer::with_responder(respond).unwrap();
            let (out, writer) = paused(&e, &server).await;
            // The window and `runs pending` name the subagent's run: that works too.
            persist::decide_approval(&e.store, &writer, "w_note", &decision).unwrap();
            let (done, _) = resume(&agent(&e, &server), &writer).await;
            assert_eq!(
                (done.status, done.run_id.as_str()),
                (RunStatus::Completed, out.run_id.as_str()),
                "{decision:?}: {done:?}"
            );
            check(&done.answer, &workspace_dir(&e.threads(), &out.thread_id));
            assert_eq!(asked(&server), (2, 2, 1), "{decision:?}");
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_call_two_levels_down_pauses_every_level_and_continues_level_by_level() {
        const MATH: &str = "---\nname: math-tutor\ndescription: 数学\ntools: [task]\n---\nMATH-TUTOR 请人记下来。\n";
        let team = Arc::new(Team::new([
            ("", LEAD),
            ("math-tutor", MATH),
            ("note-writer", WRITER),
        ]));
        let three_levels = |r: &RecordedRequest| {
            let sys = system(r);
            let got = results(r);
            if sys.contains("NOTE-WRITER") {
                return respond(r);
            }
            let (id, kind, said) = if sys.contains("MATH-TUTOR") {
                ("t_math", "note-writer", "数学")
            } else {
                ("t_lead", "math-tutor", "同桌")
            };
            if got.is_empty() {
                return openai::tool_calls(
                    None,
                    &[(
                        id,
                        "task",
                        &format!(r#"{{"description": "记下来", "subagent_type": "{kind}"}}"#),
                    )],
                );
            }
            openai::text(&format!("{said}[{}]", got.join("")))
        };
        let e = Env::new();
        let server = ScriptedServer::with_responder(three_levels).unwrap();
        let agent = || {
            let mut tools = ToolSet::builtin(SearchConfig::default());
            tools.add(Arc::new(Task::new(Arc::clone(&team), true)));
            let config = AgentConfig {
                approvals: BTreeSet::from(["write_file".to_string()]),
                subagent_depth: 2,
                ..AgentConfig::default()
            };
            e.agent(&server, "openai:scripted", config, tools)
        };
        let (out, events) = run(&agent(), None, "记一下").await;
        assert_eq!(out.status, RunStatus::Interrupted, "{out:?}");
        let Some(AgUiEvent::RunFinished {
            result: Some(result),
            ..
        }) = events.last()
        else {
            panic!("no RUN_FINISHED at the end");
        };
        let held = &result["interrupts"][0];
        assert_eq!(held["id"], "w_note");
        assert_eq!(held["task_call_id"], "t_lead", "the lead's own task call");
        assert_eq!(
            held["subagent_type"], "note-writer",
            "the subagent that asked"
        );
        // Every level waits: both subagents' runs are interrupted.
        let children = persist::child_runs(&e.store, &out.thread_id).unwrap();
        assert_eq!(children.len(), 2);
        assert!(children.iter().all(|c| c.status == RunStatus::Interrupted));
        assert_eq!(server.request_count(), 3);

        persist::decide_approval(&e.store, &out.run_id, "w_note", &ApprovalDecision::Approve)
            .unwrap();
        let (done, _) = resume(&agent(), &out.run_id).await;
        assert_eq!(done.status, RunStatus::Completed, "{done:?}");
        assert!(
            done.answer.starts_with("同桌[数学[写笔记的结果："),
            "{}",
            done.answer
        );
        let ws = workspace_dir(&e.threads(), &out.thread_id);
        assert_eq!(
            std::fs::read_to_string(ws.join("note.md")).unwrap(),
            "床前明月光"
        );
        // One more request per level, and no new runs.
        assert_eq!(server.request_count(), 6);
        let children = persist::child_runs(&e.store, &out.thread_id).unwrap();
        assert_eq!(children.len(), 2);
        assert!(children.iter().all(|c| c.status == RunStatus::Completed));
    }
}
