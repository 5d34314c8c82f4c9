//! `deskmate say`: a child's words through the one entry — a poem named
//! opens its practice, "不背了" goes back to chat, a poem named inside
//! homework is asked about first and "好的" goes, "今天做什么" lists the
//! reviews, and chat without a model says a parent must set one up. Every
//! decision is logged with a trace id.

use deskmate_testkit::cli::{add_child, deskmate, json};

fn say(dir: &std::path::Path, text: &str) -> serde_json::Value {
    let out = deskmate(dir)
        .args(["say", "--json", text])
        .env_remove("DESKMATE_LLM_API_KEY")
        .assert()
        .success();
    json(&out.get_output().stdout)
}

#[test]
fn a_childs_words_go_to_the_right_scene_and_are_acted_on() {
    let dir = tempfile::tempdir().unwrap();
    add_child(dir.path());

    let r = say(dir.path(), "我要背静夜思");
    assert_eq!(r["scene"], "recite", "{r}");
    assert_eq!(r["intent"], "recite");
    assert_eq!(r["confidence"], "high");
    assert_eq!(r["decision"]["decision"], "switch");
    assert_eq!(r["material"]["title"], "静夜思");
    assert_eq!(r["practice"]["state"]["state"], "ready");
    assert!(r["trace_id"].as_str().is_some_and(|t| t.len() == 36));
    assert!(r["timings"]["total_us"].as_u64().is_some());
    // The practice it opened is the child's current one.
    let current = deskmate(dir.path())
        .args(["practice", "current", "--profile", "小明", "--json"])
        .assert()
        .success();
    assert_eq!(
        json(&current.get_output().stdout)["material"]["title"],
        "静夜思"
    );

    // Its trace: each stage, what was decided and said.
    let trace_id = r["trace_id"].as_str().unwrap().to_string();
    let shown = deskmate(dir.path())
        .args(["trace", "show", &trace_id, "--json"])
        .assert()
        .success();
    let t = json(&shown.get_output().stdout);
    assert_eq!(
        (
            t["input"].as_str(),
            t["scene_before"].as_str(),
            t["scene_after"].as_str()
        ),
        (Some("我要背静夜思"), Some("chat"), Some("recite"))
    );
    assert_eq!(t["decision"]["decision"], "switch");
    assert!(t["said"].as_str().unwrap().contains("静夜思"));
    assert!(
        t["timings"]["total_us"].as_u64().unwrap() >= t["timings"]["route_us"].as_u64().unwrap()
    );
    deskmate(dir.path())
        .args(["trace", "show", "no-such-trace"])
        .assert()
        .failure();

    let r = say(dir.path(), "不背了");
    assert_eq!(
        (r["scene"].as_str(), r["decision"]["decision"].as_str()),
        (Some("chat"), Some("exit"))
    );

    // Into homework, then a poem named alone: asked first, and 好的 goes.
    let r = say(dir.path(), "这道数学题我不会");
    assert_eq!(r["scene"], "homework");
    assert_eq!(r["needs_model"], true);
    assert!(r["text_zh"].as_str().unwrap().contains("家长"), "{r}");
    let r = say(dir.path(), "春晓");
    assert_eq!(r["decision"]["decision"], "ask_switch", "{r}");
    assert_eq!(r["scene"], "homework");
    assert!(r["text_zh"].as_str().unwrap().contains("《春晓》"), "{r}");
    let r = say(dir.path(), "好的");
    assert_eq!(r["decision"]["decision"], "switch", "{r}");
    assert_eq!(r["material"]["title"], "春晓");

    let r = say(dir.path(), "今天做什么");
    assert_eq!(r["scene"], "plan");
    assert_eq!(r["due"], serde_json::json!([]));

    // Replayed against today's rules, every decision comes out the same.
    let replay = deskmate(dir.path())
        .args(["trace", "replay"])
        .assert()
        .success();
    let text = String::from_utf8_lossy(&replay.get_output().stdout).to_string();
    assert!(
        text.contains("6 decisions replayed, 0 would change"),
        "{text}"
    );

    // Without --json: both languages, and who is speaking is found.
    let out = deskmate(dir.path())
        .args(["say", "退出"])
        .assert()
        .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(
        text.contains("好的，先不做了") && text.contains("OK, we've stopped"),
        "{text}"
    );
}

#[test]
fn with_two_children_say_asks_who_is_speaking() {
    let dir = tempfile::tempdir().unwrap();
    add_child(dir.path());
    deskmate(dir.path())
        .args(["profiles", "add", "--name", "小红", "--kind", "child"])
        .assert()
        .success();
    let out = deskmate(dir.path())
        .args(["say", "你好"])
        .assert()
        .failure();
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(err.contains("--profile"), "{err}");
    let ok = deskmate(dir.path())
        .args(["say", "--profile", "小红", "--json", "你好"])
        .assert()
        .success();
    assert_eq!(json(&ok.get_output().stdout)["scene"], "chat");
}
