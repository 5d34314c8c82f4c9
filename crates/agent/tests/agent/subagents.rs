//! Subagents through `task`, against a loopback model server that answers
//! each request by who is asking (the lead or a subagent, told apart by the
//! system prompt): two subagents started in one reply run at the same time,
//! each with its own instructions, tools and history, each calling a tool
//! that shows in its lane and is stored with its run; only their answers
//! return to the lead; their runs are stored as children of the lead's run
//! and kept out of its history; an unknown subagent and subagents turned off
//! are answered in words.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;
use std::time::Duration;

use deskmate_agent::persist::{self, RunStatus, ToolCallStatus};
use deskmate_agent::skills::{SkillFile, SkillLibrary, SkillSource};
use deskmate_agent::team::Team;
use deskmate_agent::tools::{Task, SUBAGENTS_OFF, SUBAGENT_EVENT};
use deskmate_agent::*;
use deskmate_llm::scripted::{openai, Frame, RecordedRequest, Reply, ScriptedServer};
use serde_json::Value;

use crate::common;
use common::{run, Env};

const LEAD: &str = "---\nname: deskmate\ndescription: 同桌\ntools: [task]\n---\n你是同桌。\n";
const MATH: &str = "---\nname: math-tutor\ndescription: 数学题\ntools: [write_file, read_file, task]\n---\nMATH-TUTOR 一步一步讲。\n";
const POETRY: &str = "---\nname: poetry-tutor\ndescription: 讲古诗\ntools: [read_file]\n---\nPOETRY-TUTOR 讲诗的意思。\n";

fn team() -> Arc<Team> {
    Arc::new(Team::new([
        ("", LEAD),
        ("math-tutor", MATH),
        ("poetry-tutor", POETRY),
    ]))
}

fn system(r: &RecordedRequest) -> String {
    r.body["messages"][0]["content"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

fn tool_results(r: &RecordedRequest) -> Vec<String> {
    r.body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap_or("").to_string())
        .collect()
}

/// A text reply that takes a moment, so two subagents overlap only if they
/// run at the same time.
fn slow_text(text: &str) -> Reply {
    let Reply::Stream(mut frames) = openai::text(text) else {
        unreachable!()
    };
    frames.insert(0, Frame::Delay(Duration::from_millis(400)));
    Reply::Stream(frames)
}

/// The lead asks for both subagents at once, then answers with what came back.
fn respond(r: &RecordedRequest) -> Reply {
    let sys = system(r);
    let results = tool_results(r);
    if sys.contains("MATH-TUTOR") {
        if results.is_empty() {
            return openai::tool_calls(
                None,
                &[(
                    "m1",
                    "write_file",
                    r#"{"file_path": "/math/work.md", "content": "3×4=12"}"#,
                )],
            );
        }
        return slow_text("一共12个苹果。");
    }
    if sys.contains("POETRY-TUTOR") {
        if results.is_empty() {
            return openai::tool_calls(
                None,
                &[(
                    "p1",
                    "read_file",
                    r#"{"file_path": "/skills/poem-explanation/SKILL.md"}"#,
                )],
            );
        }
        return slow_text("「举头望明月」是抬头看月亮。");
    }
    if results.is_empty() {
        return openai::tool_calls(
            Some("我请两位老师帮忙。"),
            &[
                (
                    "t_math",
                    "task",
                    r#"{"description": "二年级：每盘3个苹果，4盘一共几个？讲清步骤。", "subagent_type": "math-tutor"}"#,
                ),
                (
                    "t_poem",
                    "task",
                    r#"{"description": "给二年级孩子讲「举头望明月」的意思。", "subagent_type": "poetry-tutor"}"#,
                ),
            ],
        );
    }
    openai::text(&format!("都问好了：{}", results.join(" / ")))
}

fn agent(e: &Env, server: &ScriptedServer, task: Task) -> Agent {
    agent_with(e, server, task, AgentConfig::default())
}

fn agent_with(e: &Env, server: &ScriptedServer, task: Task, config: AgentConfig) -> Agent {
    let mut tools = ToolSet::builtin(SearchConfig::default());
    tools.add(Arc::new(task));
    e.agent(server, "openai:scripted", config, tools)
}

/// The skill the poetry tutor reads: a file in the workspace it did not write.
const POEM_SKILL: &str =
    "---\nname: poem-explanation\ndescription: 讲古诗\n---\n先讲画面，再讲字词：举头＝抬起头。\n";

fn with_poem_skill() -> AgentConfig {
    let skill = SkillFile {
        folder: "poem-explanation".into(),
        source: SkillSource::BuiltIn,
        text: POEM_SKILL.into(),
    };
    AgentConfig {
        skills: Arc::new(SkillLibrary::new(vec![skill], vec![])),
        ..AgentConfig::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_subagents_in_one_reply_run_together_and_only_their_answers_return() {
    let e = Env::new();
    let server = ScriptedServer::with_responder(respond).unwrap();
    let agent = agent_with(&e, &server, Task::new(team(), true), with_poem_skill());
    let (out, events) = run(&agent, None, "帮我算苹果，再讲讲静夜思").await;
    assert_eq!(out.status, RunStatus::Completed, "{out:?}");
    // Each subagent streamed live in its own lane: a whole, well-ordered
    // AG-UI run inside CUSTOM events, all before its call's result.
    // Both call a tool: the math tutor writes its work, the poetry tutor reads a skill.
    for (call, tool) in [("t_math", "write_file"), ("t_poem", "read_file")] {
        let result_at = events
            .iter()
            .position(|e| matches!(e, AgUiEvent::ToolCallResult { tool_call_id, .. } if tool_call_id == call))
            .unwrap();
        let lane: Vec<(usize, AgUiEvent)> = events
            .iter()
            .enumerate()
            .filter_map(|(i, e)| match e {
                AgUiEvent::Custom { name, value }
                    if name == SUBAGENT_EVENT && value["tool_call_id"] == call =>
                {
                    Some((i, serde_json::from_value(value["event"].clone()).unwrap()))
                }
                _ => None,
            })
            .collect();
        assert!(lane.len() >= 5, "{call}: {lane:?}");
        assert!(
            lane.iter().all(|(i, _)| *i < result_at),
            "{call}'s lane ends before its result"
        );
        let inner: Vec<AgUiEvent> = lane.into_iter().map(|(_, e)| e).collect();
        EventOrder::check_run(&inner).unwrap_or_else(|e| panic!("{call}: {e}"));
        assert!(inner
            .iter()
            .any(|e| matches!(e, AgUiEvent::TextMessageContent { .. })));
        let started: Vec<&str> = inner
            .iter()
            .filter_map(|e| match e {
                AgUiEvent::ToolCallStart { tool_call_name, .. } => Some(tool_call_name.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(started, [tool], "{call}'s lane shows its tool call");
        assert!(
            inner
                .iter()
                .any(|e| matches!(e, AgUiEvent::ToolCallResult { content, .. } if !content.starts_with("Error"))),
            "{call}'s lane shows its tool's result: {inner:?}"
        );
    }
    assert!(
        out.answer.contains("一共12个苹果") && out.answer.contains("抬头看月亮"),
        "{}",
        out.answer
    );

    // Who asked what: each subagent saw only its instructions and its task.
    let requests = server.requests();
    let math: Vec<&RecordedRequest> = requests
        .iter()
        .filter(|r| system(r).contains("MATH-TUTOR"))
        .collect();
    assert_eq!(math.len(), 2, "the math tutor used a tool, then answered");
    let first = &math[0].body["messages"];
    assert_eq!(
        first.as_array().unwrap().len(),
        2,
        "system + the task only: {first}"
    );
    assert!(first[1]["content"].to_string().contains("每盘3个苹果"));
    let tools: Vec<&str> = math[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert!(
        tools.contains(&"write_file") && !tools.contains(&"task"),
        "{tools:?}"
    );
    // The subagent worked in the thread's workspace.
    let ws = workspace_dir(&e.dir.path().join("threads"), &out.thread_id);
    assert_eq!(
        std::fs::read_to_string(ws.join("math/work.md")).unwrap(),
        "3×4=12"
    );

    // Stored: two child runs under the lead's, answering its two calls.
    let view = persist::thread_view(&e.store, &out.thread_id).unwrap();
    assert_eq!(view.runs.len(), 1, "the lead's run only");
    assert_eq!(view.children.len(), 2);
    let mut answered: Vec<&str> = view
        .children
        .iter()
        .map(|c| {
            assert_eq!(c.run.parent_run_id.as_deref(), Some(out.run_id.as_str()));
            assert_eq!(c.run.status, RunStatus::Completed);
            c.run.parent_tool_call_id.as_deref().unwrap()
        })
        .collect();
    answered.sort();
    assert_eq!(answered, ["t_math", "t_poem"]);
    let math_run = view
        .children
        .iter()
        .find(|c| c.run.agent.as_deref() == Some("math-tutor"))
        .unwrap();
    let roles: Vec<&str> = math_run
        .messages
        .iter()
        .map(|m| m.message.role.as_str())
        .collect();
    assert_eq!(roles, ["user", "assistant", "tool", "assistant"]);
    assert_eq!(math_run.tool_calls.len(), 1);
    // Each child run stores its own tool call with its result, and only its own.
    for (agent, id, tool, result) in [
        ("math-tutor", "m1", "write_file", "/math/work.md"),
        ("poetry-tutor", "p1", "read_file", "举头＝抬起头"),
    ] {
        let child = view
            .children
            .iter()
            .find(|c| c.run.agent.as_deref() == Some(agent))
            .unwrap();
        let calls: Vec<(&str, &str)> = child
            .tool_calls
            .iter()
            .map(|c| (c.id.as_str(), c.name.as_str()))
            .collect();
        assert_eq!(calls, [(id, tool)], "{agent}");
        let call = &child.tool_calls[0];
        assert_eq!(call.status, ToolCallStatus::Completed, "{agent}: {call:?}");
        assert_eq!(call.run_id.as_deref(), Some(child.run.id.as_str()));
        assert!(
            call.result.as_deref().unwrap_or("").contains(result),
            "{agent}: {call:?}"
        );
        let roles: Vec<&str> = child
            .messages
            .iter()
            .map(|m| m.message.role.as_str())
            .collect();
        assert_eq!(roles, ["user", "assistant", "tool", "assistant"], "{agent}");
    }
    // The lead's history holds its own turns and the two answers, nothing of the subagents' work.
    let lead: Vec<&str> = view
        .messages
        .iter()
        .map(|m| m.message.role.as_str())
        .collect();
    assert_eq!(lead, ["user", "assistant", "tool", "tool", "assistant"]);
    assert!(
        view.tool_calls.iter().all(|c| c.name == "task"),
        "{:?}",
        view.tool_calls
    );

    // At the same time: the second subagent started before the first ended.
    let (a, b) = (&view.children[0].run, &view.children[1].run);
    assert!(
        b.started_at < *a.finished_at.as_ref().unwrap(),
        "{a:?} {b:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_subagent_and_subagents_turned_off_are_answered_in_words() {
    let ask = |kind: &'static str| {
        move |r: &RecordedRequest| {
            if tool_results(r).is_empty() {
                openai::tool_calls(
                    None,
                    &[(
                        "t1",
                        "task",
                        &format!(r#"{{"description": "讲讲", "subagent_type": "{kind}"}}"#),
                    )],
                )
            } else {
                openai::text(&tool_results(r).join(""))
            }
        }
    };
    let e = Env::new();
    let server = ScriptedServer::with_responder(ask("history-tutor")).unwrap();
    let (out, _) = run(
        &agent(&e, &server, Task::new(team(), true)),
        None,
        "讲讲历史",
    )
    .await;
    assert!(
        out.answer.contains("no subagent") && out.answer.contains("math-tutor"),
        "{}",
        out.answer
    );

    let server = ScriptedServer::with_responder(ask("math-tutor")).unwrap();
    let (out, _) = run(
        &agent(&e, &server, Task::new(team(), false)),
        None,
        "算一算",
    )
    .await;
    assert_eq!(out.answer, SUBAGENTS_OFF);
    assert!(persist::child_runs(&e.store, &out.thread_id)
        .unwrap()
        .is_empty());
    // The subagents are listed for the model with what each is for.
    let params = server.requests()[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "task")
        .map(|t| t["function"]["parameters"].clone())
        .unwrap();
    let kind: &Value = &params["properties"]["subagent_type"];
    assert_eq!(
        kind["enum"],
        serde_json::json!(["math-tutor", "poetry-tutor"])
    );
    assert!(kind["description"]
        .as_str()
        .unwrap()
        .contains("math-tutor: 数学题"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subagent_that_names_its_model_runs_on_it_and_an_unusable_one_is_told() {
    const POET: &str = "---\nname: poetry-tutor\ndescription: 讲古诗\ntools: [read_file]\nmodel: openai:poet-model\n---\nPOETRY-TUTOR 讲诗的意思。\n";
    let team = Arc::new(Team::new([("", LEAD), ("poetry-tutor", POET)]));
    let respond = |r: &RecordedRequest| {
        if system(r).contains("POETRY-TUTOR") {
            return openai::text("抬头看月亮。");
        }
        if tool_results(r).is_empty() {
            return openai::tool_calls(
                None,
                &[(
                    "t1",
                    "task",
                    r#"{"description": "讲「举头望明月」", "subagent_type": "poetry-tutor"}"#,
                )],
            );
        }
        openai::text(&tool_results(r).join(""))
    };
    let e = Env::new();
    let server = ScriptedServer::with_responder(respond).unwrap();
    let base = server.base_url();
    let asked = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let seen = Arc::clone(&asked);
    let models: deskmate_agent::tools::ModelSource = Arc::new(move |spec: &str| {
        seen.lock().unwrap().push(spec.to_string());
        let mut c = deskmate_llm::LlmConfig::new(
            deskmate_llm::ModelSpec::parse(spec).map_err(|e| e.to_string())?,
        );
        c.base_url = Some(base.clone());
        c.api_key = Some(deskmate_llm::ApiKey::new("sk-test").unwrap());
        deskmate_llm::LlmClient::new(c).map_err(|e| e.to_string())
    });
    let task = Task::new(Arc::clone(&team), true).with_models(models);
    let (out, _) = run(&agent(&e, &server, task), None, "讲讲静夜思").await;
    assert_eq!(out.status, RunStatus::Completed, "{out:?}");
    assert!(out.answer.contains("抬头看月亮"), "{}", out.answer);
    assert_eq!(*asked.lock().unwrap(), ["openai:poet-model"]);
    let requests = server.requests();
    let poet = requests
        .iter()
        .find(|r| system(r).contains("POETRY-TUTOR"))
        .unwrap();
    assert_eq!(poet.body["model"], "poet-model");
    let lead = requests
        .iter()
        .find(|r| !system(r).contains("POETRY-TUTOR"))
        .unwrap();
    assert_eq!(lead.body["model"], "scripted");
    // The child run is stored with the model it ran on.
    let children = persist::child_runs(&e.store, &out.thread_id).unwrap();
    assert_eq!(children.len(), 1);
    assert_eq!(children[0].model, "openai:poet-model");

    // A model that cannot be built is the call's error, in words, and the
    // subagent never runs on the lead's model instead.
    let server = ScriptedServer::with_responder(respond).unwrap();
    let refuse: deskmate_agent::tools::ModelSource =
        Arc::new(|_spec: &str| Err("no API key for openai".to_string()));
    let task = Task::new(team, true).with_models(refuse);
    let (out, _) = run(&agent(&e, &server, task), None, "讲讲静夜思").await;
    assert!(
        out.answer.contains("poet-model") && out.answer.contains("no API key"),
        "{}",
        out.answer
    );
    assert!(!server
        .requests()
        .iter()
        .any(|r| system(r).contains("POETRY-TUTOR")));
}

/// An agent whose `task` tool starts subagents from `team`.
fn agent_on_team(e: &Env, server: &ScriptedServer, team: Arc<Team>, config: AgentConfig) -> Agent {
    let mut tools = ToolSet::builtin(SearchConfig::default());
    tools.add(Arc::new(Task::new(team, true)));
    e.agent(server, "openai:scripted", config, tools)
}

fn tool_names(r: &RecordedRequest) -> Vec<String> {
    r.body["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .map(|t| t["function"]["name"].as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_depth_decides_whether_a_subagent_may_start_its_own() {
    // Both subagents name `task` in their frontmatter; the depth decides.
    const POET_TASK: &str = "---\nname: poetry-tutor\ndescription: 讲古诗\ntools: [read_file, task]\n---\nPOETRY-TUTOR 讲诗的意思。\n";
    let team = Arc::new(Team::new([
        ("", LEAD),
        ("math-tutor", MATH),
        ("poetry-tutor", POET_TASK),
    ]));
    // The lead asks the math tutor; a math tutor that has `task` asks the
    // poetry tutor; a poetry tutor that has `task` asks the math tutor.
    let respond = |r: &RecordedRequest| {
        let sys = system(r);
        let results = tool_results(r);
        let may_delegate = tool_names(r).iter().any(|t| t == "task");
        let (kind, other) = if sys.contains("MATH-TUTOR") {
            ("math", "poetry-tutor")
        } else if sys.contains("POETRY-TUTOR") {
            ("poem", "math-tutor")
        } else {
            ("lead", "math-tutor")
        };
        if results.is_empty() && (kind == "lead" || may_delegate) {
            return openai::tool_calls(
                None,
                &[(
                    &format!("t_{kind}"),
                    "task",
                    &format!(r#"{{"description": "帮个忙", "subagent_type": "{other}"}}"#),
                )],
            );
        }
        openai::text(&format!("{kind}[{}]", results.join("")))
    };

    // Depth 1 (the default): a subagent has no `task`.
    let e = Env::new();
    let server = ScriptedServer::with_responder(respond).unwrap();
    let (out, _) = run(
        &agent_on_team(&e, &server, Arc::clone(&team), AgentConfig::default()),
        None,
        "算一算",
    )
    .await;
    assert_eq!(out.answer, "lead[math[]]");
    let math = server
        .requests()
        .into_iter()
        .find(|r| system(r).contains("MATH-TUTOR"))
        .unwrap();
    assert!(!tool_names(&math).contains(&"task".to_string()));
    assert!(tool_names(&math).contains(&"write_file".to_string()));
    assert_eq!(
        persist::child_runs(&e.store, &out.thread_id).unwrap().len(),
        1
    );

    // Depth 2: the subagent has `task` and starts one more level, which has none.
    let e = Env::new();
    let server = ScriptedServer::with_responder(respond).unwrap();
    let config = AgentConfig {
        subagent_depth: 2,
        ..AgentConfig::default()
    };
    let (out, _) = run(
        &agent_on_team(&e, &server, Arc::clone(&team), config),
        None,
        "算一算",
    )
    .await;
    assert_eq!(out.answer, "lead[math[poem[]]]", "{out:?}");
    let requests = server.requests();
    let first = |tag: &str| {
        requests
            .iter()
            .find(|r| system(r).contains(tag))
            .map(tool_names)
            .unwrap()
    };
    assert!(first("MATH-TUTOR").contains(&"task".to_string()));
    assert!(!first("POETRY-TUTOR").contains(&"task".to_string()));
    // The grandchild's run is stored under the subagent's run.
    let children = persist::child_runs(&e.store, &out.thread_id).unwrap();
    assert_eq!(children.len(), 2);
    let math_run = children
        .iter()
        .find(|c| c.agent.as_deref() == Some("math-tutor"))
        .unwrap();
    let poem_run = children
        .iter()
        .find(|c| c.agent.as_deref() == Some("poetry-tutor"))
        .unwrap();
    assert_eq!(math_run.parent_run_id.as_deref(), Some(out.run_id.as_str()));
    assert_eq!(
        poem_run.parent_run_id.as_deref(),
        Some(math_run.id.as_str())
    );
    assert_eq!(poem_run.parent_tool_call_id.as_deref(), Some("t_math"));

    // Depth 0: the lead's `task` refuses in words and starts nothing.
    let e = Env::new();
    let server = ScriptedServer::with_responder(respond).unwrap();
    let config = AgentConfig {
        subagent_depth: 0,
        ..AgentConfig::default()
    };
    let (out, _) = run(&agent_on_team(&e, &server, team, config), None, "算一算").await;
    assert!(
        out.answer.contains("may not start subagents"),
        "{}",
        out.answer
    );
    assert!(persist::child_runs(&e.store, &out.thread_id)
        .unwrap()
        .is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subagent_ends_at_its_own_step_limit_and_the_lead_is_told() {
    // The math tutor never stops listing files.
    let respond = |r: &RecordedRequest| {
        if system(r).contains("MATH-TUTOR") {
            let n = tool_results(r).len();
            return openai::tool_calls(
                None,
                &[(
                    &format!("m{n}"),
                    "read_file",
                    r#"{"file_path": "/nothing.md"}"#,
                )],
            );
        }
        if tool_results(r).is_empty() {
            return openai::tool_calls(
                None,
                &[(
                    "t_math",
                    "task",
                    r#"{"description": "算一算", "subagent_type": "math-tutor"}"#,
                )],
            );
        }
        openai::text(&tool_results(r).join(""))
    };
    let e = Env::new();
    let server = ScriptedServer::with_responder(respond).unwrap();
    let config = AgentConfig {
        subagent_max_steps: 3,
        ..AgentConfig::default()
    };
    let (out, _) = run(&agent_on_team(&e, &server, team(), config), None, "算一算").await;
    assert_eq!(
        out.status,
        RunStatus::Completed,
        "the lead goes on: {out:?}"
    );
    assert!(
        out.answer.contains(
            "the subagent math-tutor used all its 3 steps (model calls) without a final answer"
        ),
        "{}",
        out.answer
    );
    let math_calls = server
        .requests()
        .iter()
        .filter(|r| system(r).contains("MATH-TUTOR"))
        .count();
    assert_eq!(math_calls, 3);
    let children = persist::child_runs(&e.store, &out.thread_id).unwrap();
    assert_eq!(children[0].status, RunStatus::StepLimit);
    assert_eq!(children[0].steps, 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stopping_the_lead_stops_its_subagents() {
    // Both subagents think for a long time.
    let respond = |r: &RecordedRequest| {
        let sys = system(r);
        if sys.contains("MATH-TUTOR") || sys.contains("POETRY-TUTOR") {
            let Reply::Stream(mut frames) = openai::text("太慢了") else {
                unreachable!()
            };
            frames.insert(0, Frame::Delay(Duration::from_secs(30)));
            return Reply::Stream(frames);
        }
        respond(r)
    };
    let e = Env::new();
    let server = ScriptedServer::with_responder(respond).unwrap();
    let agent = agent(&e, &server, Task::new(team(), true));
    let prepared = agent
        .prepare(RunRequest::text(None, "帮我算苹果，再讲讲静夜思"))
        .await
        .unwrap();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let cancel = CancellationToken::new();
    let running = tokio::spawn(prepared.execute(tx, cancel.clone()));
    // Both subagents are asking their model.
    let started = std::time::Instant::now();
    while server.request_count() < 3 {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the subagents never started"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let stopped_at = std::time::Instant::now();
    cancel.cancel();
    let out = running.await.unwrap();
    assert!(
        stopped_at.elapsed() < Duration::from_secs(5),
        "the subagents did not stop with the lead"
    );
    assert_eq!(out.status, RunStatus::Cancelled, "{out:?}");
    let mut events = Vec::new();
    while let Ok(ev) = rx.try_recv() {
        events.push(ev);
    }
    EventOrder::check_run(&events).unwrap();
    let view = persist::thread_view(&e.store, &out.thread_id).unwrap();
    assert_eq!(view.children.len(), 2);
    for child in &view.children {
        assert_eq!(child.run.status, RunStatus::Cancelled, "{:?}", child.run);
    }
    // Every `task` call is answered, none as a success.
    assert_eq!(view.tool_calls.len(), 2);
    for call in &view.tool_calls {
        assert_eq!(call.status, persist::ToolCallStatus::Error, "{call:?}");
        assert!(
            call.result.as_deref().unwrap_or("").contains("stopped"),
            "{call:?}"
        );
    }
    // The lead asked its model once; nothing more after the stop.
    assert_eq!(server.request_count(), 3);
}
