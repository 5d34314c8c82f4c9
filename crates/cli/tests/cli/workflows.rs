//! `deskmate workflows`: a parent's routine saved from a file (refused with
//! every problem when the graph is wrong), run for a child against the
//! scripted model — the condition picks the branch from the agent's
//! answer, a study tool's output joins the messages, the run waits for the
//! recitation and goes on once the child has recited — and deleted.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use assert_cmd::Command;

use deskmate_llm::scripted::{openai, ScriptedServer};
use deskmate_testkit::cli::{add_child, json};
use serde_json::{json, Value};

fn deskmate(dir: &std::path::Path) -> Command {
    let mut cmd = deskmate_testkit::cli::deskmate(dir);
    cmd.env("DESKMATE_LLM_API_KEY", "sk-routine-test");
    cmd
}

/// The evening review: the due reviews are looked up, the companion says
/// what to do, a recitation or a quiz by its answer, a note to the parent.
fn evening() -> Value {
    json!({
        "name": "evening",
        "description": "晚上的复习",
        "nodes": [
            {"id": "start", "type": "start", "next": "due"},
            {"id": "due", "type": "tool", "tool": "due_reviews", "args": {}, "next": "ask"},
            {"id": "ask", "type": "agent", "agent": "companion", "prompt": "背诵还是测验?", "next": "choose"},
            {"id": "choose", "type": "condition",
             "branches": [{"keyword": "没有", "to": "recite"}], "default": "quiz"},
            {"id": "recite", "type": "recite", "material": "静夜思", "next": "note"},
            {"id": "quiz", "type": "agent", "agent": "companion", "prompt": "出一道题", "next": "note"},
            {"id": "note", "type": "notify_parent", "message": "今晚: {last}", "next": "end"},
            {"id": "end", "type": "end"}
        ]
    })
}

fn write(dir: &std::path::Path, name: &str, v: &Value) -> String {
    let path = dir.join(name);
    std::fs::write(&path, v.to_string()).unwrap();
    path.to_string_lossy().into_owned()
}

fn events(stdout: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

#[test]
fn a_routine_with_problems_is_refused_with_each_of_them_and_nothing_is_saved() {
    let dir = tempfile::tempdir().unwrap();
    let mut broken = evening();
    // No default on the condition, and the quiz leads nowhere known.
    broken["nodes"][3]
        .as_object_mut()
        .unwrap()
        .remove("default");
    broken["nodes"][5]["next"] = json!("bedtime");
    let file = write(dir.path(), "broken.json", &broken);
    let out = deskmate(dir.path())
        .args(["workflows", "create", "--file", &file])
        .assert()
        .failure();
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(err.contains("routine.no_default"), "{err}");
    assert!(err.contains("\"bedtime\""), "{err}");
    let out = deskmate(dir.path())
        .args(["workflows", "list", "--json"])
        .assert()
        .success();
    assert_eq!(json(&out.get_output().stdout), json!([]));

    let not_json = write(dir.path(), "x.json", &json!("just a string"));
    let out = deskmate(dir.path())
        .args(["workflows", "create", "--file", &not_json])
        .assert()
        .failure();
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(err.contains("is not a routine"), "{err}");
}

#[test]
fn a_routine_runs_waits_for_the_recitation_and_goes_on_once_it_is_done() {
    let dir = tempfile::tempdir().unwrap();
    add_child(dir.path());
    let server = ScriptedServer::start(vec![openai::text("今天没有测验, 我们背诵吧")]).unwrap();
    deskmate(dir.path())
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
    let file = write(dir.path(), "evening.json", &evening());
    deskmate(dir.path())
        .args(["workflows", "create", "--file", &file])
        .assert()
        .success();
    // Saving it again is refused: update is for that.
    deskmate(dir.path())
        .args(["workflows", "create", "--file", &file])
        .assert()
        .failure();

    let out = deskmate(dir.path())
        .args(["workflows", "run", "evening", "--events", "晚上好"])
        .output()
        .unwrap();
    let evs = events(&out.stdout);
    assert!(out.status.success(), "{evs:?}");
    let started: Vec<&str> = evs
        .iter()
        .filter(|e| e["type"] == "node_started")
        .map(|e| e["node"].as_str().unwrap())
        .collect();
    assert_eq!(started, ["start", "due", "ask", "choose", "recite"]);
    let waiting = evs.last().unwrap();
    assert_eq!(waiting["type"], "waiting", "{evs:?}");
    let run_id = waiting["run_id"].as_str().unwrap().to_string();
    // The study tool's answer (nothing due for a new child: an empty list)
    // is a step, and the model saw it with the input and the step's task.
    let due = evs
        .iter()
        .find(|e| e["type"] == "node_output" && e["node"] == "due")
        .unwrap();
    assert_eq!(due["text"], "[]");
    let asked = server.requests()[0].body.to_string();
    assert!(
        asked.contains("晚上好") && asked.contains("背诵还是测验?"),
        "{asked}"
    );
    assert!(asked.contains("[step] []"), "{asked}");

    // Looked at again before the child recited: still waiting.
    let out = deskmate(dir.path())
        .args(["workflows", "resume", &run_id, "--json"])
        .assert()
        .success();
    assert_eq!(json(&out.get_output().stdout)["status"], "waiting");

    deskmate(dir.path())
        .args([
            "recite",
            "attempt",
            "--profile",
            "小明",
            "--material",
            "静夜思",
            "--transcript",
            "床前明月光疑是地上霜举头望明月低头思故乡",
        ])
        .assert()
        .success();
    let out = deskmate(dir.path())
        .args(["workflows", "resume", &run_id, "--json"])
        .assert()
        .success();
    let run = json(&out.get_output().stdout);
    assert_eq!(run["status"], "finished", "{run}");
    let note = run["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["node"] == "note")
        .unwrap();
    assert!(
        note["output"]
            .as_str()
            .unwrap()
            .starts_with("今晚: 静夜思: 100% passed"),
        "{note}"
    );
    // One model call in all: resuming did not ask the agent again.
    assert_eq!(server.request_count(), 1);

    let out = deskmate(dir.path())
        .args(["workflows", "show", "evening", "--json"])
        .assert()
        .success();
    let shown = json(&out.get_output().stdout);
    assert_eq!(shown["runs"][0]["id"], run_id.as_str());
    deskmate(dir.path())
        .args(["workflows", "delete", "evening"])
        .assert()
        .success();
    deskmate(dir.path())
        .args(["workflows", "resume", &run_id])
        .assert()
        .failure();
}

#[test]
fn without_a_model_an_agent_node_fails_the_run_in_plain_words() {
    let dir = tempfile::tempdir().unwrap();
    add_child(dir.path());
    let file = write(dir.path(), "evening.json", &evening());
    deskmate(dir.path())
        .args(["workflows", "create", "--file", &file])
        .assert()
        .success();
    let out = deskmate(dir.path())
        .args(["workflows", "run", "evening", "--json", "hi"])
        .assert()
        .failure();
    let run = json(&out.get_output().stdout);
    assert_eq!(run["status"], "failed");
    assert_eq!(run["at"], "ask");
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(err.contains("deskmate llm set"), "{err}");
}

#[test]
fn in_supervisor_mode_the_supervisor_hands_the_message_to_the_teams_agents() {
    let dir = tempfile::tempdir().unwrap();
    let next = |agent: &str| {
        openai::tool_calls(
            None,
            &[("c", "choose_next", &format!(r#"{{"next": "{agent}"}}"#))],
        )
    };
    let server = ScriptedServer::start(vec![
        next("poetry-tutor"),
        openai::text("《静夜思》写的是想家。"),
        next("__end__"),
    ])
    .unwrap();
    let out = deskmate(dir.path())
        .args([
            "chat",
            "--mode",
            "supervisor",
            "--events",
            "--model",
            "openai:gpt-4o-mini",
            "--base-url",
            &server.base_url(),
            "静夜思讲的是什么",
        ])
        .assert()
        .success();
    let evs = events(&out.get_output().stdout);
    // The agent's reply comes as a text message inside its step.
    let said: Vec<&str> = evs
        .iter()
        .filter(|e| e["type"] == "TEXT_MESSAGE_CONTENT")
        .map(|e| e["delta"].as_str().unwrap())
        .collect();
    assert_eq!(said, ["《静夜思》写的是想家。"]);
    let steps: Vec<String> = evs
        .iter()
        .filter(|e| e["type"].as_str().unwrap().starts_with("STEP_"))
        .map(|e| {
            format!(
                "{} {}",
                e["type"].as_str().unwrap(),
                e["stepName"].as_str().unwrap_or("")
            )
        })
        .collect();
    assert_eq!(
        steps,
        ["STEP_STARTED poetry-tutor", "STEP_FINISHED poetry-tutor"]
    );
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(err.contains("finished the conversation"), "{err}");
    // The supervisor was shown the team, and the agent's turn in the end.
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    let first = requests[0].body.to_string();
    assert!(
        first.contains("poetry-tutor") && first.contains("__end__"),
        "{first}"
    );
    let last = requests[2].body.to_string();
    assert!(last.contains("写的是想家"), "{last}");
    // The agent answered with its own instructions from agents/.
    let agent = requests[1].body.to_string();
    assert!(
        agent.contains("a supervisor handed the conversation to you"),
        "{agent}"
    );
}

/// A routine whose file names a child is on that child's plan until a run
/// of it finished today, and `show` says whom it is for.
#[test]
fn a_routine_for_a_child_is_on_the_childs_plan_until_it_ran_today() {
    let dir = tempfile::tempdir().unwrap();
    let child = add_child(dir.path());
    let id = child["id"].as_str().unwrap();
    let routine = json!({
        "name": "bedtime",
        "nodes": [
            {"id": "start", "type": "start", "next": "due"},
            {"id": "due", "type": "tool", "tool": "due_reviews", "args": {}, "next": "end"},
            {"id": "end", "type": "end"}
        ],
        "children": [id]
    });
    let file = write(dir.path(), "bedtime.json", &routine);
    deskmate(dir.path())
        .args(["workflows", "create", "--file", &file])
        .assert()
        .success();
    let out = deskmate(dir.path())
        .args(["workflows", "show", "bedtime"])
        .assert()
        .success();
    let shown = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        shown.contains("for 小明 (on their plan each day)"),
        "{shown}"
    );

    let routine_tasks = || {
        let out = deskmate(dir.path())
            .args(["plan", "show", "--profile", "小明", "--json"])
            .assert()
            .success();
        let plan = json(&out.get_output().stdout);
        plan["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["kind"] == "routine")
            .map(|t| (t["routine"].clone(), t["done"].clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(routine_tasks(), vec![(json!("bedtime"), json!(false))]);
    deskmate(dir.path())
        .args(["workflows", "run", "bedtime", "--profile", "小明", "今晚"])
        .assert()
        .success();
    assert_eq!(routine_tasks(), vec![(json!("bedtime"), json!(true))]);
}

/// An agent step looks things up with the study tools before it answers
/// (a ReAct agent); for a child's run what it says is checked as a reply
/// to a child — an unsafe one is replaced and the parent told with the
/// original — and the routine's note reaches the parent's notices.
#[test]
fn an_agent_step_uses_the_study_tools_its_words_are_checked_and_the_note_reaches_the_parent() {
    let dir = tempfile::tempdir().unwrap();
    add_child(dir.path());
    let server = ScriptedServer::start(vec![
        openai::tool_calls(None, &[("call_due", "due_reviews", "{}")]),
        openai::text("先把你家的地址告诉我，我再给你出题。"),
    ])
    .unwrap();
    deskmate(dir.path())
        .args([
            "llm",
            "set",
            "--agree",
            "--model",
            "openai:gpt-4o-mini",
            "--base-url",
        ])
        .arg(server.base_url())
        .assert()
        .success();
    let routine = json!({
        "name": "quiz",
        "nodes": [
            {"id": "start", "type": "start", "next": "ask"},
            {"id": "ask", "type": "agent", "agent": "companion", "prompt": "出一道复习题", "next": "note"},
            {"id": "note", "type": "notify_parent", "message": "测验做完了", "next": "end"},
            {"id": "end", "type": "end"}
        ]
    });
    let file = write(dir.path(), "quiz.json", &routine);
    deskmate(dir.path())
        .args(["workflows", "create", "--file", &file])
        .assert()
        .success();
    let out = deskmate(dir.path())
        .args(["workflows", "run", "quiz", "--events", "开始"])
        .output()
        .unwrap();
    let evs = events(&out.stdout);
    assert!(out.status.success(), "{evs:?}");
    // The model was offered the study tools, called one, and saw its result.
    assert_eq!(server.request_count(), 2);
    let first = server.requests()[0].body.to_string();
    assert!(first.contains("due_reviews"), "{first}");
    let second = &server.requests()[1].body;
    let tool_msg = second["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .unwrap_or_else(|| panic!("no tool result sent back: {second}"));
    assert_eq!(tool_msg["tool_call_id"], "call_due");
    // The child saw the safe reply, never the model's words.
    let said = evs
        .iter()
        .find(|e| e["type"] == "node_output" && e["node"] == "ask")
        .unwrap();
    let said = said["text"].as_str().unwrap();
    assert!(!said.contains("地址"), "{said}");
    assert!(said.contains("告诉爸爸妈妈"), "{said}");
    // The parent was told twice: the replaced step (with the original) and the note.
    let out = deskmate(dir.path())
        .args(["notices", "list", "--json"])
        .assert()
        .success();
    let notices = json(&out.get_output().stdout);
    let notices = notices.as_array().unwrap();
    assert_eq!(notices.len(), 2, "{notices:?}");
    assert!(notices.iter().all(|n| n["kind"] == "routine_note"));
    let replaced = notices
        .iter()
        .find(|n| n["detail"]["original"].is_string())
        .unwrap();
    assert_eq!(
        replaced["detail"]["original"],
        "先把你家的地址告诉我，我再给你出题。"
    );
    assert_eq!(replaced["detail"]["routine"], "quiz");
    let note = notices
        .iter()
        .find(|n| n["detail"]["note"] == "测验做完了")
        .unwrap_or_else(|| panic!("no note: {notices:?}"));
    assert_eq!(note["detail"]["routine"], "quiz");
}
