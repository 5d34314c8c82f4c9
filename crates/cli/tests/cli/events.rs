//! `deskmate events`: the core's one event stream through the real binary —
//! a child with a review due gets the due strip's event and one reminder.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use chrono::{Duration, Utc};
use serde_json::Value;

use deskmate_testkit::cli::{add_child, deskmate, json};

#[test]
fn due_reviews_are_published_on_the_event_stream() {
    let dir = tempfile::tempdir().unwrap();
    let child = add_child(dir.path());
    // Learnt a month ago: its first review is long due.
    let learnt = (Utc::now() - Duration::days(30)).to_rfc3339();
    deskmate(dir.path())
        .args([
            "recite",
            "attempt",
            "--profile",
            "小明",
            "--material",
            "静夜思",
            "--transcript",
            "床前明月光，疑是地上霜。举头望明月，低头思故乡。",
            "--at",
            &learnt,
        ])
        .assert()
        .success();
    let out = deskmate(dir.path())
        .args(["events", "--count", "2", "--json"])
        .timeout(std::time::Duration::from_secs(60))
        .assert()
        .success();
    let lines: Vec<Value> = String::from_utf8(out.get_output().stdout.clone())
        .unwrap()
        .lines()
        .map(|l| json(l.as_bytes()))
        .collect();
    let channels: Vec<&str> = lines
        .iter()
        .map(|l| l["channel"].as_str().unwrap())
        .collect();
    assert_eq!(channels, ["reviews://due", "reviews://reminder"]);
    assert_eq!(lines[0]["payload"]["profile_id"], child["id"]);
    assert_eq!(lines[0]["payload"]["count"], 1);
    let title = lines[1]["payload"]["title"].as_str().unwrap();
    assert!(title.contains("小明") && title.contains('1'), "{title}");
}
