//! `deskmate plan`: a parent sets goals as they say them (每天背一首新诗,
//! 每周复习三次), the child's plan for today follows them with progress from
//! today's attempts, and "今天做什么" / "下一个" through `deskmate say` walk
//! the same plan.

use deskmate_testkit::cli::{add_child, deskmate, json};

fn plan(dir: &std::path::Path) -> serde_json::Value {
    let out = deskmate(dir)
        .args(["plan", "show", "--json"])
        .assert()
        .success();
    json(&out.get_output().stdout)
}

#[test]
fn goals_make_todays_plan_and_attempts_tick_it_off() {
    let dir = tempfile::tempdir().unwrap();
    add_child(dir.path());
    // Nothing due and no goals: nothing planned.
    let empty = plan(dir.path());
    assert_eq!(empty["tasks"], serde_json::json!([]), "{empty}");

    for goal in [&["每天背一首新诗"][..], &["reviews-per-week", "3"]] {
        deskmate(dir.path())
            .args(["plan", "goals", "set", "--profile", "小明"])
            .args(goal)
            .assert()
            .success();
    }
    // Said again with another number, the goal changes.
    deskmate(dir.path())
        .args(["plan", "goals", "set", "每周复习两次"])
        .assert()
        .success();
    let out = deskmate(dir.path())
        .args(["plan", "goals", "list", "--json"])
        .assert()
        .success();
    let goals = json(&out.get_output().stdout);
    let listed: Vec<(String, u64)> = goals
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            (
                g["kind"].as_str().unwrap().to_string(),
                g["target"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        listed,
        vec![
            ("new_per_day".to_string(), 1),
            ("reviews_per_week".to_string(), 2)
        ]
    );
    // Words that are no goal are refused in plain words; nothing changes.
    let out = deskmate(dir.path())
        .args(["plan", "goals", "set", "多读书"])
        .assert()
        .failure();
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(err.contains("每天背一首新诗"), "{err}");

    // Today: one new poem (the library's first) and the week's reviews.
    let today = plan(dir.path());
    let tasks = today["tasks"].as_array().unwrap();
    assert_eq!(tasks.len(), 2, "{today}");
    assert_eq!(tasks[0]["kind"], "new");
    assert_eq!(tasks[0]["done"], false);
    assert_eq!(tasks[1]["kind"], "weekly_reviews");
    assert_eq!(
        (tasks[1]["count"].as_u64(), tasks[1]["target"].as_u64()),
        (Some(0), Some(2))
    );
    let first = tasks[0]["material_id"].as_str().unwrap().to_string();

    // The child asks what to do, then 下一个 opens that poem.
    let said = |text: &str| {
        let out = deskmate(dir.path())
            .args(["say", "--json", text])
            .env_remove("DESKMATE_LLM_API_KEY")
            .assert()
            .success();
        json(&out.get_output().stdout)
    };
    let r = said("今天做什么");
    assert_eq!(r["scene"], "plan");
    assert_eq!(r["plan"]["total"], 2);
    let r = said("下一个");
    assert_eq!(r["material"]["id"], first.as_str(), "{r}");
    assert_eq!(r["practice"]["state"]["state"], "ready");

    // Recited right: the task is done.
    let body = {
        let out = deskmate(dir.path())
            .args(["materials", "list", "--json"])
            .assert()
            .success();
        let all = json(&out.get_output().stdout);
        all.as_array()
            .unwrap()
            .iter()
            .find(|m| m["id"] == first.as_str())
            .unwrap()["body"]
            .as_str()
            .unwrap()
            .to_string()
    };
    deskmate(dir.path())
        .args([
            "recite",
            "attempt",
            "--profile",
            "小明",
            "--material",
            &first,
            "--mode",
            "text",
            "--transcript",
            &body,
        ])
        .assert()
        .success();
    let after = plan(dir.path());
    assert_eq!(after["tasks"][0]["done"], true, "{after}");
    assert_eq!(after["done"], 1);
    let text = deskmate(dir.path())
        .args(["plan", "show"])
        .assert()
        .success();
    let text = String::from_utf8_lossy(&text.get_output().stdout).to_string();
    assert!(text.contains("1/2 done") && text.contains("[x]"), "{text}");

    deskmate(dir.path())
        .args(["plan", "goals", "remove", "new-per-day"])
        .assert()
        .success();
    let out = deskmate(dir.path())
        .args(["plan", "goals", "remove", "new-per-day"])
        .assert()
        .failure();
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(err.contains("not found"), "{err}");
}
