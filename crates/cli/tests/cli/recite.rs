//! The recitation CLI contract, through the real `deskmate` binary:
//! `recite check` (single and `--batch` on the shared 228-case fixture, with
//! the agreement figures asserted), `recite attempt`, `reviews due` and
//! `report daily|weekly`, and bad input.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;

use serde_json::Value;

use deskmate_testkit::cli::deskmate;

use deskmate_testkit::cli::json;

fn fixture() -> PathBuf {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/recite-dev-cases.jsonl");
    assert!(
        path.exists(),
        "the shared recitation fixture is missing at {}; it lives in ../shared beside the repository (CI always has it)",
        path.display()
    );
    path
}

const POEM: &str = "床前明月光，疑是地上霜。举头望明月，低头思故乡。";

#[test]
fn batch_agrees_with_the_shared_fixture() {
    let path = fixture();
    let dir = tempfile::tempdir().unwrap();
    let out = deskmate(dir.path())
        .args(["recite", "check", "--batch"])
        .arg(&path)
        .assert()
        .success();
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let results: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let cases: Vec<Value> = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(results.len(), cases.len(), "one output line per input line");

    let (mut acc_ok, mut err_ok, mut clean, mut clean_ok) = (0usize, 0usize, 0usize, 0usize);
    for (case, got) in cases.iter().zip(&results) {
        assert_eq!(
            case["id"], got["id"],
            "outputs keep the input order and ids"
        );
        // The contract's shape.
        let keys: Vec<&str> = got
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        for k in ["id", "accuracy", "passed", "units", "correct", "errors"] {
            assert!(keys.contains(&k), "{k} missing in {got}");
        }
        let errors = got["errors"].as_array().unwrap();
        for e in errors {
            assert!(
                ["omission", "insertion", "substitution", "order"]
                    .contains(&e["type"].as_str().unwrap()),
                "{e}"
            );
            assert!(
                e["line"].as_u64().unwrap() >= 1 && e["kind"].is_string() && e["offset"].is_u64()
            );
            assert!(e["expected"].is_string() && e["actual"].is_string());
        }
        assert_eq!(got["units"], case["units"], "{}", case["id"]);
        let units = case["units"].as_f64().unwrap();
        let accuracy = got["accuracy"].as_f64().unwrap();
        assert!((0.0..=100.0).contains(&accuracy));
        assert_eq!(got["passed"].as_bool().unwrap(), accuracy >= 85.0);
        if (accuracy - case["expected_accuracy"].as_f64().unwrap()).abs() <= 100.0 / units + 0.01 {
            acc_ok += 1;
        }
        let expected = case["expected_errors"].as_array().unwrap();
        let found = expected.iter().all(|x| {
            errors.iter().any(|e| {
                e["type"] == x["type"]
                    && e["line"]
                        .as_i64()
                        .unwrap()
                        .abs_diff(x["line"].as_i64().unwrap())
                        <= 1
            })
        });
        err_ok += usize::from(found);
        if expected.is_empty() {
            clean += 1;
            // Fillers and restarts may be reported as insertions, nothing else.
            let voice = case["mode"] == "voice";
            clean_ok += usize::from(errors.iter().all(|e| voice && e["type"] == "insertion"));
        }
    }
    let n = cases.len() as f64;
    let acc_rate = acc_ok as f64 * 100.0 / n;
    let err_rate = err_ok as f64 * 100.0 / n;
    println!(
        "accuracy within one unit: {acc_ok}/{} = {acc_rate:.1} %",
        cases.len()
    );
    println!(
        "expected errors found (type, line ±1): {err_ok}/{} = {err_rate:.1} %",
        cases.len()
    );
    println!("no error where none expected: {clean_ok}/{clean}");
    assert!(acc_rate >= 98.0, "accuracy agreement {acc_rate:.1} %");
    assert!(err_rate >= 98.0, "error agreement {err_rate:.1} %");
    assert_eq!(clean_ok, clean);
}

#[test]
fn single_check_human_and_json() {
    let dir = tempfile::tempdir().unwrap();
    let out = deskmate(dir.path())
        .args([
            "recite",
            "check",
            "--reference",
            POEM,
            "--transcript",
            "床前明月光，宜是地上霜。举头望明月，低头思故乡。",
        ])
        .args(["--mode", "text", "--json"])
        .assert()
        .success();
    let v = json(&out.get_output().stdout);
    assert_eq!(v["accuracy"], 95.0);
    assert_eq!(v["passed"], true);
    assert_eq!(v["errors"][0]["type"], "substitution");
    assert_eq!(v["errors"][0]["kind"], "homophone");
    assert_eq!(v["errors"][0]["label_zh"], "错别字");
    assert_eq!(v["errors"][0]["line"], 2);
    assert!(v["feedback"]["zh"].as_str().unwrap().contains("疑是地上霜"));
    // A check needs no data directory: nothing was created.
    assert!(std::fs::read_dir(dir.path()).unwrap().next().is_none());

    let out = deskmate(dir.path())
        .args([
            "recite",
            "check",
            "--reference",
            "Jack and Jill went up the hill.",
            "--transcript",
            "jack and jill went the hill",
        ])
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(
        text.contains("accuracy 85.71%") && text.contains("omission"),
        "{text}"
    );
}

#[test]
fn batch_bad_lines_get_an_error_line_and_exit_code_1() {
    let dir = tempfile::tempdir().unwrap();
    let input = format!(
        "{}\n\nnot json\n{}\n{}\n",
        serde_json::json!({"id": "ok", "reference": POEM, "transcript": POEM}),
        serde_json::json!({"id": "empty", "reference": "，。😀", "transcript": "x"}),
        serde_json::json!({"id": 7, "reference": POEM, "transcript": "", "mode": "shout"}),
    );
    let file = dir.path().join("in.jsonl");
    std::fs::write(&file, input).unwrap();
    let out = deskmate(dir.path())
        .args(["recite", "check", "--batch"])
        .arg(&file)
        .assert()
        .code(1);
    let lines: Vec<Value> = String::from_utf8(out.get_output().stdout.clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[0]["accuracy"], 100.0);
    assert!(lines[1]["error"]
        .as_str()
        .unwrap()
        .contains("not a check request"));
    assert_eq!(lines[2]["id"], "empty");
    assert!(lines[2]["error"]
        .as_str()
        .unwrap()
        .contains("nothing to recite"));
    assert_eq!(lines[3]["id"], 7);
    assert!(lines[3]["error"]
        .as_str()
        .unwrap()
        .contains("voice or text"));
    // A missing file is a plain error.
    deskmate(dir.path())
        .args(["recite", "check", "--batch", "/nonexistent/x.jsonl"])
        .assert()
        .failure();
}

#[test]
fn huge_and_odd_transcripts_never_panic() {
    let dir = tempfile::tempdir().unwrap();
    let huge = "床前明月光".repeat(210_000); // ~3 MB of text, ~1 M characters
    let file = dir.path().join("huge.jsonl");
    let odd = "🌙\u{0}\u{1b}[31m床前 明月光 hello 😀 \u{202e}疑是地上霜";
    std::fs::write(
        &file,
        format!(
            "{}\n{}\n",
            serde_json::json!({"id": "huge", "reference": POEM, "transcript": huge}),
            serde_json::json!({"id": "odd", "reference": POEM, "transcript": odd}),
        ),
    )
    .unwrap();
    let out = deskmate(dir.path())
        .args(["recite", "check", "--batch"])
        .arg(&file)
        .assert()
        .code(1);
    let lines: Vec<Value> = String::from_utf8(out.get_output().stdout.clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(
        lines[0]["error"].as_str().unwrap().contains("too long"),
        "{}",
        lines[0]
    );
    assert_eq!(lines[1]["correct"], 10);
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn attempt_reviews_and_reports() {
    let dir = tempfile::tempdir().unwrap();
    let out = deskmate(dir.path())
        .args([
            "profiles", "add", "--name", "小明", "--kind", "child", "--json",
        ])
        .assert()
        .success();
    let child = json(&out.get_output().stdout)["id"]
        .as_str()
        .unwrap()
        .to_string();
    let attempt = |transcript: &str, at: &str| {
        let out = deskmate(dir.path())
            .args([
                "recite",
                "attempt",
                "--profile",
                &child,
                "--material",
                "静夜思",
                "--transcript",
                transcript,
                "--at",
                at,
            ])
            .args(["--duration-secs", "12", "--json"])
            .assert()
            .success();
        json(&out.get_output().stdout)
    };
    let first = attempt(
        "床前明月光，疑是地上霜。举偷望明月，低头思故乡。",
        "2026-03-02T08:00:00+08:00",
    );
    assert_eq!(first["passed"], true);
    assert_eq!(first["first_pass"], true);
    assert_eq!(first["purpose"], "learn");
    assert_eq!(first["attempt_no"], 1);
    assert_eq!(first["schedule"]["created"], true);
    assert!(first["feedback"]["items"][0]["tip"].is_null());
    let second = attempt(
        "床前明月光，疑是地上霜。举偷望明月，低头思故乡。",
        "2026-03-02T08:03:00+08:00",
    );
    assert_eq!(second["attempt_no"], 2);
    assert_eq!(second["purpose"], "learn");
    assert_eq!(second["feedback"]["items"][0]["occurrence"], 2);
    assert!(second["feedback"]["items"][0]["tip"]["zh"]
        .as_str()
        .unwrap()
        .contains("tóu"));

    let due_at = first["schedule"]["next_review_at"]
        .as_str()
        .unwrap()
        .to_string();
    let out = deskmate(dir.path())
        .args([
            "reviews",
            "due",
            "--profile",
            "小明",
            "--at",
            "2026-03-02T09:00:00+08:00",
            "--json",
        ])
        .assert()
        .success();
    assert_eq!(json(&out.get_output().stdout), serde_json::json!([]));
    let out = deskmate(dir.path())
        .args([
            "reviews",
            "due",
            "--profile",
            &child,
            "--at",
            &due_at,
            "--json",
        ])
        .assert()
        .success();
    let due = json(&out.get_output().stdout);
    assert_eq!(due[0]["title"], "静夜思");
    let out = deskmate(dir.path())
        .args(["reviews", "due", "--profile", &child, "--at", &due_at])
        .assert()
        .success();
    assert!(String::from_utf8_lossy(&out.get_output().stdout).contains("静夜思"));

    for kind in ["daily", "weekly"] {
        let out = deskmate(dir.path())
            .args([
                "report",
                kind,
                "--profile",
                &child,
                "--date",
                "2026-03-02",
                "--json",
            ])
            .assert()
            .success();
        let r = json(&out.get_output().stdout);
        assert_eq!(r["summary"]["attempts"], 2);
        assert_eq!(r["summary"]["minutes"], 0.4);
        assert_eq!(r["summary"]["first_passes"], 1);
        assert_eq!(r["top_patterns"][0]["occurrences"], 2);
    }
    let out = deskmate(dir.path())
        .args([
            "report",
            "daily",
            "--profile",
            &child,
            "--date",
            "2026-03-02",
        ])
        .assert()
        .success();
    assert!(String::from_utf8_lossy(&out.get_output().stdout).contains("2 attempt(s)"));
}

#[test]
fn attempt_and_report_bad_input_is_explained() {
    let dir = tempfile::tempdir().unwrap();
    deskmate(dir.path())
        .args(["profiles", "add", "--name", "Lily", "--kind", "child"])
        .assert()
        .success();
    let err = |args: &[&str]| {
        let out = deskmate(dir.path()).args(args).assert().failure();
        String::from_utf8(out.get_output().stderr.clone()).unwrap()
    };
    assert!(err(&[
        "recite",
        "attempt",
        "--profile",
        "nobody",
        "--material",
        "静夜思",
        "--transcript",
        "x"
    ])
    .contains("not found"));
    assert!(err(&[
        "recite",
        "attempt",
        "--profile",
        "Lily",
        "--material",
        "no such poem",
        "--transcript",
        "x"
    ])
    .contains("not found"));
    assert!(err(&[
        "recite",
        "attempt",
        "--profile",
        "Lily",
        "--material",
        "静夜思",
        "--transcript",
        "x",
        "--at",
        "noon"
    ])
    .contains("RFC 3339"));
    assert!(err(&[
        "report",
        "daily",
        "--profile",
        "Lily",
        "--date",
        "2026-13-01"
    ])
    .contains("YYYY-MM-DD"));
    assert!(err(&["reviews", "due", "--profile", "Lily", "--at", "tomorrow"]).contains("RFC 3339"));
}
