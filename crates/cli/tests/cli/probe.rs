//! What an adversarial probe of the CLI found (issue 14), each through the
//! real binary: attempts recorded by many processes at once, feedback that
//! misled a child, limits that disagreed, the batch mode's bad lines,
//! decomposed Unicode, a profile given by name, and messages that repeated
//! themselves or suggested the wrong fix.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::Value;

use deskmate_testkit::cli::{add_child, deskmate, json};

const POEM: &str = "床前明月光，疑是地上霜。举头望明月，低头思故乡。";

fn stderr_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// (attempts, distinct numbers, distinct sessions, attempts with an error
/// count written).
type AttemptCounts = (i64, i64, i64, i64);
/// A review row's (reps, interval_days).
type ReviewRow = (i64, i64);

/// The attempts' counts and every review row.
fn attempts_and_reviews(dir: &Path) -> (AttemptCounts, Vec<ReviewRow>) {
    let db = rusqlite::Connection::open(dir.join("deskmate.sqlite3")).unwrap();
    let counts = db
        .query_row(
            "SELECT count(*), count(DISTINCT attempt_no), count(DISTINCT session_id),
                    sum(error_count = (SELECT count(*) FROM json_each(errors)))
             FROM recite_attempts",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .unwrap();
    let mut stmt = db
        .prepare("SELECT reps, interval_days FROM recite_reviews")
        .unwrap();
    let reviews = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    (counts, reviews)
}

fn attempt_command(dir: &Path, transcript: &str) -> Command {
    let mut c = Command::new(assert_cmd::cargo::cargo_bin("deskmate"));
    c.arg("--data-dir")
        .arg(dir)
        .env_remove("DESKMATE_DATA_DIR")
        .args([
            "recite",
            "attempt",
            "--profile",
            "小明",
            "--material",
            "静夜思",
            "--transcript",
            transcript,
        ]);
    c
}

#[test]
fn attempts_recorded_at_once_by_many_processes_number_like_one_at_a_time() {
    const N: usize = 30;
    // With one slip, so each attempt also has an error to count.
    let slip = "床前明月光，疑是地上霜。举偷望明月，低头思故乡。";
    let racing = tempfile::tempdir().unwrap();
    add_child(racing.path());
    let children: Vec<_> = (0..N)
        .map(|_| {
            attempt_command(racing.path(), slip)
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", stderr_of(&out));
    }
    let one_by_one = tempfile::tempdir().unwrap();
    add_child(one_by_one.path());
    for _ in 0..3 {
        let out = attempt_command(one_by_one.path(), slip).output().unwrap();
        assert!(out.status.success(), "{}", stderr_of(&out));
    }

    let (counts, reviews) = attempts_and_reviews(racing.path());
    assert_eq!(
        counts,
        (N as i64, N as i64, 1, N as i64),
        "(attempts, distinct numbers, sessions, error counts written)"
    );
    let (sequential, sequential_reviews) = attempts_and_reviews(one_by_one.path());
    assert_eq!(sequential, (3, 3, 1, 3));
    assert_eq!(reviews.len(), 1);
    assert_eq!(
        reviews, sequential_reviews,
        "one review, as one attempt at a time gives"
    );
    assert_eq!(reviews[0].0, 1, "reps");
}

fn check_json(args: &[&str]) -> Value {
    let out = Command::new(assert_cmd::cargo::cargo_bin("deskmate"))
        .args(["recite", "check", "--json"])
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    json(&out.stdout)
}

#[test]
fn feedback_is_graded_short_and_says_each_thing_once() {
    let far = check_json(&["--reference", POEM, "--transcript", "床"]);
    let said = far["feedback"]["zh"].as_str().unwrap();
    assert!(
        !said.contains("还差一点点"),
        "5 % is not almost there: {said}"
    );
    let said_en = far["feedback"]["en"].as_str().unwrap();
    assert!(!said_en.contains("almost"), "{said_en}");

    // 120 KB of noise inside the recitation: every line of feedback stays short.
    let noise = "哈".repeat(40_000);
    let long = check_json(&[
        "--reference",
        POEM,
        "--transcript",
        &format!("床前明月光，{noise}疑是地上霜。举头望明月，低头思故乡。"),
    ]);
    let feedback = &long["feedback"];
    let mut texts = vec![feedback["zh"].clone(), feedback["en"].clone()];
    for item in feedback["items"].as_array().unwrap() {
        texts.extend([item["zh"].clone(), item["en"].clone()]);
    }
    for t in texts {
        let t = t.as_str().unwrap();
        assert!(t.chars().count() < 300, "{} characters", t.chars().count());
    }
}

#[test]
fn one_limit_every_material_added_can_be_checked() {
    let dir = tempfile::tempdir().unwrap();
    add_child(dir.path());
    let add = |body: &str| {
        let file = dir.path().join("body.txt");
        std::fs::write(&file, body).unwrap();
        deskmate(dir.path())
            .args([
                "materials",
                "add",
                "--title",
                "长文",
                "--lang",
                "zh",
                "--json",
                "--body-file",
            ])
            .arg(&file)
            .output()
            .unwrap()
    };
    // 2,001 characters: refused where it is added, said once.
    let too_long = format!("{}床", "床前明月光，".repeat(400));
    let out = add(&too_long);
    assert!(!out.status.success());
    let err = stderr_of(&out);
    assert!(err.contains("too long") && err.contains("2000"), "{err}");
    assert_eq!(err.matches("too long").count(), 1, "said once: {err}");
    // 2,000: accepted, and an exact recitation of it is checked and passes.
    let longest = "床前明月光，".repeat(400);
    let out = add(&longest);
    assert!(out.status.success(), "{}", stderr_of(&out));
    let id = json(&out.stdout)["id"].as_str().unwrap().to_string();
    let out = deskmate(dir.path())
        .args([
            "recite",
            "attempt",
            "--profile",
            "小明",
            "--material",
            &id,
            "--mode",
            "text",
            "--json",
            "--transcript",
            &longest,
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert_eq!(json(&out.stdout)["verdict"]["accuracy"], 100.0);
}

fn batch(input: &[u8], args: &[&str]) -> (bool, Vec<Value>, String) {
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("deskmate"))
        .args(["recite", "check", "--batch", "-"])
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        stdin.write_all(&input).unwrap();
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    let lines = String::from_utf8(out.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (out.status.success(), lines, stderr_of(&out))
}

#[test]
fn batch_lines_fail_alone_and_take_the_command_lines_defaults() {
    let good =
        |id: &str| format!(r#"{{"id":"{id}","reference":"床前明月光","transcript":"床前明悦光"}}"#);
    // A byte-order mark, a line that is not UTF-8, a line over the size
    // limit: each is its own line's error; the lines around them are checked.
    let mut input = b"\xEF\xBB\xBF".to_vec();
    input.extend(good("bom").as_bytes());
    input.extend(b"\n{\"id\":\"bad\",\"reference\":\"\xff\xfe\"}\n");
    input.extend(good("after-bad").as_bytes());
    input.push(b'\n');
    input.extend(
        format!(
            r#"{{"id":"huge","reference":"床","transcript":"{}"}}"#,
            "床".repeat(600_000)
        )
        .as_bytes(),
    );
    input.push(b'\n');
    input.extend(good("last").as_bytes());
    input.push(b'\n');
    let (ok, lines, stderr) = batch(&input, &["--mode", "text"]);
    assert!(!ok, "a failed line makes the exit code 1");
    assert_eq!(
        lines.len(),
        5,
        "one line out per line in: {lines:?} {stderr}"
    );
    let ids: Vec<&str> = lines
        .iter()
        .map(|l| l["id"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(ids, ["bom", "", "after-bad", "", "last"]);
    assert!(lines[1]["error"].as_str().unwrap().contains("not UTF-8"));
    assert!(lines[3]["error"].as_str().unwrap().contains("too long"));
    // --mode text applies to lines that do not set a mode: 悦 for 月 is 80 %.
    for i in [0, 2, 4] {
        assert_eq!(lines[i]["accuracy"], 80.0, "{}", lines[i]);
    }
    // Without it, voice mode hears 悦 as 月.
    let (_, voice, _) = batch(format!("{}\n", good("v")).as_bytes(), &[]);
    assert_eq!(voice[0]["accuracy"], 100.0);

    // A folder is not a batch file.
    let out = Command::new(assert_cmd::cargo::cargo_bin("deskmate"))
        .args(["recite", "check", "--batch"])
        .arg(std::env::temp_dir())
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert!(!out.status.success());
    assert!(
        err.contains("is a folder") && !err.contains("UTF-8"),
        "{err}"
    );
}

#[test]
fn decomposed_text_scores_as_composed() {
    let v = check_json(&[
        "--reference",
        "The naïve cat ate at the café.",
        "--transcript",
        "The nai\u{308}ve cat ate at the cafe\u{301}.",
        "--mode",
        "text",
    ]);
    assert_eq!(v["accuracy"], 100.0, "{v}");
}

#[test]
fn chat_takes_a_profile_by_name_and_an_unknown_one_is_named() {
    let dir = tempfile::tempdir().unwrap();
    add_child(dir.path());
    let out = deskmate(dir.path())
        .env("DESKMATE_LLM_API_KEY", "sk-probe")
        .args([
            "chat",
            "--profile",
            "小红",
            "--model",
            "openai:gpt-4o-mini",
            "--base-url",
            "http://127.0.0.1:9",
            "你好",
        ])
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert!(!out.status.success());
    assert!(err.contains("小红") && err.contains("not found"), "{err}");
    assert!(!err.contains("FOREIGN KEY"), "{err}");

    let out = deskmate(dir.path())
        .args(["threads", "list", "--profile", "小明", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert_eq!(json(&out.stdout), serde_json::json!([]));
}

#[test]
fn a_damaged_database_is_called_damaged_once_with_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    add_child(dir.path());
    let path = dir.path().join("deskmate.sqlite3");
    {
        let db = rusqlite::Connection::open(&path).unwrap();
        db.pragma_update(None, "wal_checkpoint", "TRUNCATE")
            .unwrap();
    }
    // Scribble over every page after the first two (the schema's included).
    let mut bytes = std::fs::read(&path).unwrap();
    for i in (8192..bytes.len()).step_by(97) {
        bytes[i] = 0xAB;
    }
    std::fs::write(&path, &bytes).unwrap();

    let out = deskmate(dir.path())
        .args(["profiles", "list"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = stderr_of(&out);
    assert!(err.contains("damaged"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(err.matches("malformed").count(), 1, "said once: {err}");

    let out = deskmate(dir.path()).arg("doctor").output().unwrap();
    let report = String::from_utf8_lossy(&out.stdout);
    let data = report
        .lines()
        .find(|l| l.contains(" data "))
        .unwrap_or_else(|| panic!("{report}"));
    assert!(
        data.contains("damaged") && data.contains("backup"),
        "{data}"
    );
    assert!(!data.contains("writable"), "{data}");
}

#[test]
fn log_lines_into_a_pipe_carry_no_colour_codes() {
    let dir = tempfile::tempdir().unwrap();
    let out = deskmate(dir.path())
        .env("DESKMATE_LOG", "debug")
        .args(["profiles", "list"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = stderr_of(&out);
    assert!(err.contains("DEBUG"), "the migrations log at debug: {err}");
    assert!(!err.contains('\u{1b}'), "{err:?}");
}
