//! `deskmate ask`: a parent's question in words answered from the built-in
//! questions (no model) with a chart, from one child's rows only.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use deskmate_testkit::cli::{deskmate, json, setup_family};
use serde_json::Value;

fn attempt(dir: &std::path::Path, child: &str, text: &str) -> Value {
    json(
        &deskmate(dir)
            .args([
                "recite",
                "attempt",
                "--profile",
                child,
                "--material",
                "静夜思",
            ])
            .args(["--transcript", text, "--duration-secs", "30", "--json"])
            .assert()
            .success()
            .get_output()
            .stdout,
    )
}

fn ask(dir: &std::path::Path, child: &str, q: &str) -> Value {
    json(
        &deskmate(dir)
            .args(["ask", "--profile", child, "--json", q])
            .assert()
            .success()
            .get_output()
            .stdout,
    )
}

#[test]
fn built_in_questions_answer_with_charts_of_one_child() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    setup_family(d);
    deskmate(d)
        .args(["profiles", "add", "--name", "小红", "--kind", "child"])
        .assert()
        .success();
    let mut accuracies = Vec::new();
    for _ in 0..2 {
        let a = attempt(
            d,
            "小明",
            "床前明月光，疑是地上霜。举偷望明月，低头思故乡。",
        );
        accuracies.push(a["verdict"]["accuracy"].as_f64().unwrap());
    }
    let right = attempt(
        d,
        "小明",
        "床前明月光，疑是地上霜。举头望明月，低头思故乡。",
    );
    accuracies.push(right["verdict"]["accuracy"].as_f64().unwrap());
    assert_ne!(accuracies[0], accuracies[2]);
    attempt(
        d,
        "小红",
        "床前明月光，疑是地上霜。举头望明月，低头思故多。",
    );
    attempt(d, "小红", "床前明月光");

    let week = ask(d, "小明", "这周背得怎么样?");
    assert_eq!(week["question"], "accuracy_this_week");
    let chart = &week["chart"];
    assert_eq!(chart["kind"], "line");
    assert_eq!(chart["labels"].as_array().unwrap().len(), 7);
    let values = chart["series"][0]["values"].as_array().unwrap();
    let today = values.last().unwrap().as_f64().unwrap();
    let mean = accuracies.iter().sum::<f64>() / 3.0;
    assert!((today - mean).abs() < 0.1, "{today} vs {mean}");
    // A built-in answer is in the question's language.
    assert!(
        week["text"].as_str().unwrap().contains("一共背了 3 次"),
        "{week}"
    );
    assert_eq!(chart["series"][0]["name"], "正确率");
    let in_english = ask(d, "小明", "How is the accuracy this week?");
    assert!(
        in_english["text"].as_str().unwrap().contains("3 times"),
        "{in_english}"
    );
    assert_eq!(in_english["chart"]["title"], "accuracy per day (%)");

    let missed = ask(d, "小明", "哪些字错得最多");
    assert_eq!(missed["chart"]["kind"], "bar");
    let labels: Vec<&str> = missed["chart"]["labels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    assert!(labels.contains(&"头"), "{missed}");
    assert!(
        !labels.contains(&"乡"),
        "小红's mistake in 小明's chart: {missed}"
    );
    assert_eq!(missed["chart"]["series"][0]["values"][0], 2.0);

    let minutes = ask(d, "小明", "这周练了多久");
    assert_eq!(minutes["question"], "minutes_practised");
    let last = minutes["chart"]["series"][0]["values"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .as_f64()
        .unwrap();
    assert_eq!(last, 1.5, "{minutes}");

    let reviews = ask(d, "小明", "复习了几次");
    assert_eq!(reviews["chart"]["kind"], "pie");
    assert_eq!(reviews["chart"]["labels"].as_array().unwrap().len(), 2);

    // Plain output names the chart's data; an unknown question or a parent is refused.
    let out = deskmate(d)
        .args(["ask", "--profile", "小明", "这周背得怎么样"])
        .assert()
        .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(text.contains("chart: Line"), "{text}");
    let unknown = deskmate(d)
        .args(["ask", "--profile", "小明", "天为什么是蓝的"])
        .output()
        .unwrap();
    assert!(!unknown.status.success());
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("这周背得怎么样"));
    let parent = deskmate(d)
        .args(["ask", "--profile", "妈妈", "这周背得怎么样"])
        .output()
        .unwrap();
    assert!(!parent.status.success());
}
