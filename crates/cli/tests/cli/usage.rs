//! `deskmate limits`, `deskmate usage` and `deskmate notices`: a parent sets
//! a child's limits (bad ones refused in plain words), a limit reached stops
//! the chat before any model call, and the parent sees it in the usage.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use deskmate_testkit::cli::{deskmate, json, setup_family};

/// `deskmate usage --json` of 小明 over the last `days` days.
fn usage_of_ming(d: &std::path::Path, days: u32) -> serde_json::Value {
    json(
        &deskmate(d)
            .args([
                "usage",
                "--profile",
                "小明",
                "--days",
                &days.to_string(),
                "--json",
            ])
            .assert()
            .success()
            .get_output()
            .stdout,
    )
}

#[test]
fn a_parent_sets_limits_and_sees_the_refusal_in_the_usage() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    setup_family(d);
    let set = json(
        &deskmate(d)
            .args(["limits", "set", "--profile", "小明", "--model-calls", "0"])
            .args(["--chat-minutes", "30", "--quiet", "21:00-7:00", "--json"])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    assert_eq!(set["model_calls"], 0);
    assert_eq!(set["quiet"]["to"], "07:00");
    // One flag changes one limit; "none" lifts it.
    let shown = json(
        &deskmate(d)
            .args([
                "limits",
                "set",
                "--profile",
                "小明",
                "--chat-minutes",
                "none",
            ])
            .args(["--quiet", "none", "--json"])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    // (Quiet hours lifted: the chat below must not depend on the hour.)
    assert!(
        shown.get("chat_minutes").is_none() && shown.get("quiet").is_none(),
        "{shown}"
    );
    assert_eq!(shown["model_calls"], 0);
    let bad = deskmate(d)
        .args(["limits", "set", "--profile", "小明", "--quiet", "9pm-7am"])
        .output()
        .unwrap();
    assert!(!bad.status.success());
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.contains("\"9pm\" is not a time of day"), "{err}");

    // A model that would never answer: the limit stops the chat first.
    deskmate(d)
        .args(["llm", "set", "--agree", "--model", "openai:m", "--base-url"])
        .arg("http://127.0.0.1:9/v1")
        .assert()
        .success();
    let chat = deskmate(d)
        .args(["chat", "--profile", "小明", "月亮上有兔子吗"])
        .output()
        .unwrap();
    assert!(!chat.status.success());
    let err = String::from_utf8_lossy(&chat.stderr);
    assert!(err.contains("daily limit of model_calls"), "{err}");

    let usage = usage_of_ming(d, 3);
    let days = usage["usage"]["days"].as_array().unwrap();
    assert_eq!(days.len(), 3);
    assert!(days.iter().all(|d| d["model_calls"] == 0));
    let notices = usage["notices"].as_array().unwrap();
    assert_eq!(notices.len(), 1);
    assert_eq!(notices[0]["kind"], "limit_reached");
    let id = notices[0]["id"].as_str().unwrap();
    // Only a replaced reply's notice has a reply to show.
    let shown = deskmate(d).args(["notices", "show", id]).output().unwrap();
    assert!(!shown.status.success());
    assert!(String::from_utf8_lossy(&shown.stderr).contains("not about a replaced reply"));
    deskmate(d).args(["notices", "read", id]).assert().success();
    let unread = json(
        &deskmate(d)
            .args(["notices", "list", "--unread", "--json"])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    assert_eq!(unread.as_array().unwrap().len(), 0);
    // Usage of a parent is refused in plain words.
    let parent = deskmate(d)
        .args(["usage", "--profile", "妈妈"])
        .output()
        .unwrap();
    assert!(!parent.status.success());
    assert!(String::from_utf8_lossy(&parent.stderr).contains("is a parent"));
}

/// A routing call that the router's time limit (3 s) cut off is still one
/// of the child's model calls: the words went to the provider. It is kept
/// as `cancelled`, with no tokens, and counted in the usage.
#[test]
fn a_routing_call_cut_off_by_its_time_limit_still_counts_in_the_usage() {
    use deskmate_llm::scripted::{openai, Frame, Reply, ScriptedServer};
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    setup_family(d);
    // A model that starts answering only after the router gave up.
    let mut slow = vec![Frame::Delay(std::time::Duration::from_secs(8))];
    if let Reply::Stream(frames) = openai::text("太晚了") {
        slow.extend(frames);
    }
    let server = ScriptedServer::start(vec![Reply::Stream(slow)]).unwrap();
    deskmate(d)
        .args(["llm", "set", "--agree", "--model", "openai:m", "--base-url"])
        .arg(server.base_url())
        .assert()
        .success();
    let said = json(
        &deskmate(d)
            .args([
                "say",
                "--profile",
                "小明",
                "--json",
                "--no-companion",
                "给我讲个故事",
            ])
            .env("DESKMATE_LLM_API_KEY", "sk-scripted")
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    assert_eq!(said["routed_by"], "rules", "{said}");
    assert_eq!(server.request_count(), 1);
    let usage = usage_of_ming(d, 1);
    let today = &usage["usage"]["days"][0];
    assert_eq!(today["model_calls"], 1, "{usage}");
    assert_eq!(today["input_tokens"], 0, "{usage}");
}
