//! `deskmate memory` as a parent runs it: what the companion remembers
//! about a child listed, added, edited and deleted (`--json` and plain
//! lines), plain errors for a parent, an unknown child, kind or memory, a
//! child's memory out of another child's reach; and what is remembered
//! reaching the lead's system prompt in a real chat run against a
//! scripted model server — edited, then gone once deleted.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use deskmate_llm::scripted::{openai, ScriptedServer};
use deskmate_testkit::cli::{add_child, deskmate, json};
use serde_json::Value;

fn ok_json(dir: &Path, args: &[&str]) -> Value {
    let out = deskmate(dir).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    json(&out.stdout)
}

fn fails(dir: &Path, args: &[&str]) -> String {
    let out = deskmate(dir).args(args).output().unwrap();
    assert!(!out.status.success(), "{args:?} succeeded");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!err.contains("panicked"), "{err}");
    err
}

fn texts(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|m| m["text"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_parent_lists_adds_edits_and_deletes_a_child_s_memories() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    add_child(d);
    deskmate(d)
        .args([
            "profiles", "add", "--name", "小红", "--kind", "child", "--grade", "4",
        ])
        .assert()
        .success();
    deskmate(d)
        .args([
            "profiles", "add", "--name", "妈妈", "--kind", "parent", "--pin", "2468",
        ])
        .assert()
        .success();

    let out = deskmate(d)
        .args(["memory", "list", "--profile", "小明"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("nothing remembered about 小明 yet"));

    // The child's own "记住…" and a parent's addition.
    deskmate(d)
        .args(["say", "--profile", "小明", "记住我喜欢恐龙"])
        .assert()
        .success();
    let added = ok_json(
        d,
        &[
            "memory",
            "add",
            "--profile",
            "小明",
            "--kind",
            "finds-hard",
            "进位加法",
            "--json",
        ],
    );
    assert_eq!(added["kind"], "finds_hard");
    assert_eq!(added["source"], "parent");
    assert_eq!(added["text"], "进位加法");
    let id = added["id"].as_str().unwrap().to_string();

    let list = ok_json(d, &["memory", "list", "--profile", "小明", "--json"]);
    assert_eq!(list.as_array().unwrap().len(), 2, "{list}");
    assert!(texts(&list).contains(&"进位加法".to_string()));
    let explicit = list
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["source"] == "explicit")
        .unwrap_or_else(|| panic!("the child's own memory is missing: {list}"));
    assert_eq!(explicit["kind"], "likes");
    // 小红 has none of them.
    assert_eq!(
        ok_json(d, &["memory", "list", "--profile", "小红", "--json"]),
        serde_json::json!([])
    );

    // Edit by the full id, then by its start (as long as it names one).
    let edited = ok_json(
        d,
        &[
            "memory",
            "edit",
            "--profile",
            "小明",
            &id,
            "两位数进位加法",
            "--json",
        ],
    );
    assert_eq!(edited["text"], "两位数进位加法");
    assert_eq!(edited["kind"], "finds_hard");
    let unique_start = &id[..id.len() - 4];
    let edited = ok_json(
        d,
        &[
            "memory",
            "edit",
            "--profile",
            "小明",
            unique_start,
            "--kind",
            "working-towards",
            "两位数进位加法",
            "--json",
        ],
    );
    assert_eq!(edited["kind"], "working_towards");
    assert_eq!(edited["id"], id.as_str());

    // Plain errors, and nothing changed by them.
    assert!(
        fails(d, &["memory", "add", "--profile", "妈妈", "喜欢咖啡"]).contains("妈妈 is a parent")
    );
    assert!(fails(d, &["memory", "list", "--profile", "小刚"]).contains("小刚"));
    assert!(fails(
        d,
        &[
            "memory",
            "add",
            "--profile",
            "小明",
            "--kind",
            "hates",
            "蛇"
        ]
    )
    .contains("a memory is likes, finds-hard, working-towards or other"));
    assert!(
        fails(d, &["memory", "edit", "--profile", "小明", &id, "   "])
            .contains("a memory needs some words")
    );
    let err = fails(d, &["memory", "delete", "--profile", "小红", &id]);
    assert!(
        err.contains(&format!("memory {id} of 小红 not found")),
        "{err}"
    );
    let list = ok_json(d, &["memory", "list", "--profile", "小明", "--json"]);
    assert_eq!(list.as_array().unwrap().len(), 2);
    assert!(texts(&list).contains(&"两位数进位加法".to_string()));

    let out = deskmate(d)
        .args(["memory", "delete", "--profile", "小明", &id])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("forgot about 小明: 两位数进位加法"));
    let list = ok_json(d, &["memory", "list", "--profile", "小明", "--json"]);
    assert_eq!(texts(&list), ["我喜欢恐龙"]);
    assert!(fails(d, &["memory", "delete", "--profile", "小明", &id]).contains("not found"));
}

#[test]
fn what_is_remembered_reaches_the_lead_s_system_prompt() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    add_child(d);
    let added = ok_json(
        d,
        &[
            "memory",
            "add",
            "--profile",
            "小明",
            "--kind",
            "likes",
            "喜欢恐龙",
            "--json",
        ],
    );
    let id = added["id"].as_str().unwrap().to_string();
    let system_prompt_of_a_chat = || {
        let server = ScriptedServer::start(vec![openai::text("好呀！")]).unwrap();
        let out = deskmate(d)
            .env("DESKMATE_LLM_API_KEY", "sk-memory-test")
            .args([
                "chat",
                "--profile",
                "小明",
                "--model",
                "openai:gpt-4o-mini",
                "--base-url",
                &server.base_url(),
                "给我讲个故事吧",
            ])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let requests = server.requests();
        let first = &requests[0].body["messages"][0];
        assert_eq!(first["role"], "system");
        first["content"].as_str().unwrap().to_string()
    };

    let prompt = system_prompt_of_a_chat();
    assert!(
        prompt.contains("What you remember about this child"),
        "{prompt}"
    );
    assert!(prompt.contains("喜欢恐龙"), "{prompt}");

    deskmate(d)
        .args(["memory", "edit", "--profile", "小明", &id, "最喜欢三角龙"])
        .assert()
        .success();
    let prompt = system_prompt_of_a_chat();
    assert!(prompt.contains("最喜欢三角龙"), "{prompt}");
    assert!(!prompt.contains("喜欢恐龙"), "{prompt}");

    deskmate(d)
        .args(["memory", "delete", "--profile", "小明", &id])
        .assert()
        .success();
    let prompt = system_prompt_of_a_chat();
    assert!(!prompt.contains("三角龙"), "{prompt}");
    assert!(
        !prompt.contains("What you remember about this child"),
        "{prompt}"
    );
}

#[test]
fn a_finished_conversation_leaves_what_is_worth_remembering_once() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    add_child(d);
    let facts = r#"{"facts": [
        {"kind": "likes", "text": "喜欢恐龙"},
        {"kind": "finds_hard", "text": "觉得乘法口诀难"},
        {"kind": "other", "text": "住在幸福路12号"}
    ]}"#;
    let server = ScriptedServer::start(vec![
        openai::text("恐龙真厉害！我们一起背乘法口诀吧。"),
        openai::tool_calls(None, &[("call_1", "remember_facts", facts)]),
        openai::text("好呀！"),
        openai::text("I think the child likes drawing."),
        openai::tool_calls(
            None,
            &[(
                "call_2",
                "remember_facts",
                r#"{"facts": [{"kind": "likes", "text": "喜欢恐龙！"}]}"#,
            )],
        ),
    ])
    .unwrap();
    let url = server.base_url();
    let model = ["--model", "openai:gpt-4o-mini", "--base-url", url.as_str()];
    let chat = |words: &str| {
        let out = deskmate(d)
            .env("DESKMATE_LLM_API_KEY", "sk-memory-test")
            .args(["chat", "--profile", "小明"])
            .args(model)
            .arg(words)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let extract = || {
        let out = deskmate(d)
            .env("DESKMATE_LLM_API_KEY", "sk-memory-test")
            .args(["memory", "extract", "--profile", "小明", "--json"])
            .args(model)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        json(&out.stdout)
    };

    chat("我最喜欢恐龙了，可是乘法口诀好难");
    let read = extract();
    assert_eq!(read.as_array().unwrap().len(), 1, "{read}");
    assert_eq!(read[0]["messages"], 2, "{read}");
    assert!(read[0]["error"].is_null(), "{read}");
    // The address never becomes a memory.
    assert_eq!(texts(&read[0]["added"]), ["喜欢恐龙", "觉得乘法口诀难"]);
    let asked = &server.requests()[1].body;
    assert_eq!(asked["tools"][0]["function"]["name"], "remember_facts");
    assert!(
        asked["messages"]
            .to_string()
            .contains("[child] 我最喜欢恐龙了"),
        "{asked}"
    );
    let kept = ok_json(d, &["memory", "list", "--profile", "小明", "--json"]);
    assert_eq!(kept.as_array().unwrap().len(), 2, "{kept}");
    assert!(kept
        .as_array()
        .unwrap()
        .iter()
        .all(|m| m["source"] == "conversation" && m["thread_id"] == read[0]["thread_id"]));

    // Read once: nothing new, no model asked.
    assert_eq!(extract(), serde_json::json!([]));
    assert_eq!(server.request_count(), 2);

    // A second conversation; the model answers out of shape: nothing kept,
    // and the conversation is read again next time.
    chat("我今天画了一只霸王龙");
    let read = extract();
    assert!(
        read[0]["error"]
            .as_str()
            .unwrap()
            .contains("remember_facts"),
        "{read}"
    );
    assert_eq!(texts(&read[0]["added"]), Vec::<String>::new());
    let read = extract();
    assert!(read[0]["error"].is_null(), "{read}");
    // What is already remembered is shown to the model and not kept twice.
    let asked = &server.requests()[4].body;
    assert!(asked["messages"][0]["content"]
        .as_str()
        .unwrap()
        .contains("- 喜欢恐龙 (likes)"));
    assert_eq!(texts(&read[0]["added"]), Vec::<String>::new());
    assert_eq!(
        ok_json(d, &["memory", "list", "--profile", "小明", "--json"])
            .as_array()
            .unwrap()
            .len(),
        2
    );

    // Without a model there is nothing to read with: a plain error.
    let err = fails(d, &["memory", "extract", "--profile", "小明"]);
    assert!(err.to_lowercase().contains("model"), "{err}");
}
