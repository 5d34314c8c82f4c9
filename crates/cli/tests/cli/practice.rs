//! `deskmate practice`, `profiles setup|unlock`, `report --attempts` and
//! `models status`: the window's practice scene and parent tools reached
//! from the CLI, through the same core calls. The spoken practice hears a
//! dev clip through a FIFO microphone (ALSA, set for the child process only);
//! a line the verdict re-asks is said again alone (`practice retake`) and
//! merged into the same attempt.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use deskmate_testkit::cli::{deskmate, json};
use deskmate_testkit::clips::{dev_clip_samples, models_dir};
use deskmate_testkit::mic::FifoMic;
use serde_json::Value;

fn lines(out: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(out)
        .lines()
        .map(|l| json(l.as_bytes()))
        .collect()
}

fn set_up(dir: &std::path::Path) {
    let out = deskmate(dir)
        .args([
            "profiles",
            "setup",
            "--parent-name",
            "妈妈",
            "--pin",
            "2468",
            "--child-name",
            "小明",
            "--grade",
            "2",
            "--json",
        ])
        .assert()
        .success();
    let made = json(&out.get_output().stdout);
    let kinds: Vec<&str> = made
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["parent", "child"]);
    // A second setup is refused: the device is set up.
    let again = deskmate(dir)
        .args([
            "profiles",
            "setup",
            "--parent-name",
            "爸爸",
            "--pin",
            "1357",
            "--child-name",
            "小红",
        ])
        .assert()
        .failure();
    let err = String::from_utf8_lossy(&again.get_output().stderr).to_string();
    assert!(err.contains("already set up"), "{err}");
}

fn start(dir: &std::path::Path, mode: &str) -> Value {
    let out = deskmate(dir)
        .args([
            "practice",
            "start",
            "--profile",
            "小明",
            "--material",
            "静夜思",
            "--mode",
            mode,
            "--json",
        ])
        .assert()
        .success();
    json(&out.get_output().stdout)
}

/// 小明's daily report for today (Shanghai time) with its attempts listed.
fn todays_attempts(dir: &std::path::Path) -> Value {
    let today = chrono::Utc::now()
        .with_timezone(&chrono_tz::Asia::Shanghai)
        .format("%Y-%m-%d")
        .to_string();
    let out = deskmate(dir)
        .args(["report", "daily", "--profile", "小明", "--date", &today])
        .args(["--attempts", "--json"])
        .assert()
        .success();
    json(&out.get_output().stdout)
}

#[test]
fn a_typed_practice_from_start_to_pass_with_retry_resume_report_and_unlock() {
    let dir = tempfile::tempdir().unwrap();
    set_up(dir.path());
    let view = start(dir.path(), "text");
    assert_eq!(view["state"]["state"], "ready");
    assert_eq!(view["material"]["title"], "静夜思");
    let id = view["id"].as_str().unwrap().to_string();

    // An omission: the verdict comes back on the last progress line.
    let out = deskmate(dir.path())
        .args(["practice", "submit", "--practice", &id, "--json", "--text"])
        .arg("床前明月光，举头望明月，低头思故乡。")
        .assert()
        .success();
    let events = lines(&out.get_output().stdout);
    let statuses: Vec<&str> = events
        .iter()
        .map(|e| e["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["queued", "checking", "done"], "{events:?}");
    assert!(events.iter().all(|e| e["kind"] == "task"));
    let result = &events[2]["result"];
    assert_eq!(result["passed"], false);
    assert_eq!(result["errors"][0]["type"], "omission", "{result}");
    assert_eq!(result["errors"][0]["line"], 2, "{result}");

    // The practice is resumed where it stands, with the verdict.
    let out = deskmate(dir.path())
        .args(["practice", "current", "--profile", "小明", "--json"])
        .assert()
        .success();
    let current = json(&out.get_output().stdout);
    assert_eq!(current["id"], id.as_str());
    assert_eq!(current["state"]["state"], "feedback");
    assert_eq!(current["last_result"]["passed"], false);

    // Another try, the whole poem: passed, and a review is scheduled.
    let out = deskmate(dir.path())
        .args(["practice", "retry", "--practice", &id, "--json"])
        .assert()
        .success();
    assert_eq!(json(&out.get_output().stdout)["state"]["state"], "ready");
    let out = deskmate(dir.path())
        .args(["practice", "submit", "--practice", &id, "--text"])
        .arg("床前明月光，疑是地上霜。举头望明月，低头思故乡。")
        .assert()
        .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(
        text.contains("passed") && !text.contains("not passed"),
        "{text}"
    );
    assert!(text.contains("next review:"), "{text}");

    // The parent's report lists both attempts behind its figures.
    let report = todays_attempts(dir.path());
    let passed: Vec<bool> = report["attempts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["passed"].as_bool().unwrap())
        .collect();
    assert_eq!(passed, [false, true], "{report}");

    // Leaving closes it: nothing is open any more.
    deskmate(dir.path())
        .args(["practice", "leave", "--practice", &id])
        .assert()
        .success();
    let out = deskmate(dir.path())
        .args(["practice", "current", "--profile", "小明", "--json"])
        .assert()
        .success();
    assert_eq!(json(&out.get_output().stdout), Value::Null);

    // The parent area: a wrong PIN is refused with the tries left, the right one opens it.
    let wrong = deskmate(dir.path())
        .args(["profiles", "unlock", "--profile", "妈妈", "--pin", "0000"])
        .assert()
        .failure();
    let err = String::from_utf8_lossy(&wrong.get_output().stderr).to_string();
    assert!(err.to_lowercase().contains("pin"), "{err}");
    let ok = deskmate(dir.path())
        .args(["profiles", "unlock", "--profile", "妈妈", "--pin", "2468"])
        .assert()
        .success();
    assert!(String::from_utf8_lossy(&ok.get_output().stdout).contains("妈妈"));
}

#[test]
fn a_spoken_practice_hears_the_microphone_shows_partials_and_ends_at_silence() {
    let _speech = deskmate_testkit::process::speech_turn();
    let dir = tempfile::tempdir().unwrap();
    set_up(dir.path());
    let id = start(dir.path(), "voice")["id"]
        .as_str()
        .unwrap()
        .to_string();
    let (speech, rate) = dev_clip_samples("静夜思-1.wav");
    assert_eq!(rate, 16_000);
    let mic = FifoMic::new(dir.path());
    mic.feed_then_silence(&speech);
    let out = deskmate(dir.path())
        .env("ALSA_CONFIG_PATH", mic.alsa_config())
        .env("DESKMATE_MODELS_DIR", models_dir())
        .timeout(std::time::Duration::from_secs(300))
        .args(["practice", "record", "--practice", &id, "--json"])
        .assert()
        .success();
    let events = lines(&out.get_output().stdout);
    let tasks: Vec<&str> = events
        .iter()
        .filter(|e| e["kind"] == "task")
        .map(|e| e["status"].as_str().unwrap())
        .collect();
    assert_eq!(
        tasks,
        ["listening", "queued", "transcribing", "checking", "done"],
        "{events:?}"
    );
    let partials: Vec<&str> = events
        .iter()
        .filter(|e| e["kind"] == "partial")
        .map(|e| e["text"].as_str().unwrap())
        .collect();
    assert!(
        partials
            .iter()
            .any(|p| p.chars().any(|c| "床前明月光".contains(c))),
        "no partial transcript of the poem while speaking: {partials:?}"
    );
    let result = &events.last().unwrap()["result"];
    assert_eq!(result["passed"], true, "{result}");
    assert!(result["next_review_at"].is_string(), "{result}");
}

/// The first line of a dev clip of a whole poem: from the start to the
/// first pause after speech (at least 150 ms below 1 % of full scale; the
/// dev clips pause 0.2 s at each comma), plus that pause.
fn first_line_of(samples: &[f32], rate: u32) -> Vec<f32> {
    let window = (rate / 100) as usize; // 10 ms
    let loud = |w: &[f32]| w.iter().any(|x| x.abs() >= 0.01);
    let windows: Vec<bool> = samples.chunks(window).map(loud).collect();
    let speech_from = windows
        .iter()
        .position(|l| *l)
        .expect("the clip has speech");
    let mut quiet = 0;
    for (i, l) in windows.iter().enumerate().skip(speech_from) {
        quiet = if *l { 0 } else { quiet + 1 };
        if quiet == 15 {
            return samples[..(i + 1) * window].to_vec();
        }
    }
    panic!("no pause after the first line");
}

fn last_result(out: &[u8]) -> Value {
    let events = lines(out);
    let last = events.last().expect("progress events").clone();
    assert_eq!(last["status"], "done", "{events:?}");
    last["result"].clone()
}

#[test]
fn a_line_the_verdict_re_asks_is_said_again_alone_and_merged_into_the_same_attempt() {
    let _speech = deskmate_testkit::process::speech_turn();
    let dir = tempfile::tempdir().unwrap();
    set_up(dir.path());
    // Passed once already, typed: a first pass is capped at Good, so only a
    // later attempt shows the review graded again (Good → Easy).
    let typed = start(dir.path(), "text")["id"]
        .as_str()
        .unwrap()
        .to_string();
    let out = deskmate(dir.path())
        .args([
            "practice",
            "submit",
            "--practice",
            &typed,
            "--text",
            "床前明月光，疑是地上霜。举头望明月，低头思故乡。",
            "--json",
        ])
        .assert()
        .success();
    assert_eq!(last_result(&out.get_output().stdout)["passed"], true);
    deskmate(dir.path())
        .args(["practice", "leave", "--practice", &typed])
        .assert()
        .success();
    let id = start(dir.path(), "voice")["id"]
        .as_str()
        .unwrap()
        .to_string();
    // 静夜思 with 月 said as 烟 in line 1 (a dev clip, "different sound"):
    // whisper hears that line with low confidence, so the verdict re-asks
    // line 1 rather than blaming the child (as `deskmate recite audio` does
    // on this clip with the default rule).
    let (speech, rate) = dev_clip_samples("静夜思-8.wav");
    let first_mic = dir.path().join("first");
    std::fs::create_dir(&first_mic).unwrap();
    let mic = FifoMic::new(&first_mic);
    mic.feed_then_silence(&speech);
    let out = deskmate(dir.path())
        .env("ALSA_CONFIG_PATH", mic.alsa_config())
        .env("DESKMATE_MODELS_DIR", models_dir())
        .timeout(std::time::Duration::from_secs(300))
        .args(["practice", "record", "--practice", &id, "--json"])
        .assert()
        .success();
    mic.stop();
    let first = last_result(&out.get_output().stdout);
    assert_eq!(
        first["lines_to_say_again"],
        serde_json::json!([1]),
        "{first}"
    );
    let attempt_id = first["attempt_id"].as_str().unwrap().to_string();
    let accuracy_before = first["accuracy"].as_f64().unwrap();
    let review_before = first["next_review_at"].as_str().unwrap().to_string();
    let interval_before = first["review_interval_days"].as_i64().unwrap();

    // Line 1 said again, right this time: the first line of a clean dev
    // clip of 静夜思, alone.
    let (clean, clean_rate) = dev_clip_samples("静夜思-1.wav");
    assert_eq!((rate, clean_rate), (16_000, 16_000));
    let line_one = first_line_of(&clean, clean_rate);
    assert!(
        line_one.len() < clean.len() / 2,
        "only the first line is said again"
    );
    let second_mic = dir.path().join("second");
    std::fs::create_dir(&second_mic).unwrap();
    let mic = FifoMic::new(&second_mic);
    mic.feed_then_silence(&line_one);
    let out = deskmate(dir.path())
        .env("ALSA_CONFIG_PATH", mic.alsa_config())
        .env("DESKMATE_MODELS_DIR", models_dir())
        .timeout(std::time::Duration::from_secs(300))
        .args([
            "practice",
            "retake",
            "--practice",
            &id,
            "--line",
            "1",
            "--json",
        ])
        .assert()
        .success();
    mic.stop();
    let merged = last_result(&out.get_output().stdout);
    // The same attempt, the line no longer re-asked, nothing left unclear.
    assert_eq!(merged["attempt_id"].as_str(), Some(attempt_id.as_str()));
    assert_eq!(
        merged["lines_to_say_again"],
        serde_json::json!([]),
        "{merged}"
    );
    assert!(
        merged["errors"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["uncertain"] != true),
        "{merged}"
    );
    let accuracy_after = merged["accuracy"].as_f64().unwrap();
    assert!(
        accuracy_after >= accuracy_before && merged["passed"] == true,
        "{accuracy_before} → {merged}"
    );
    // The review was graded again from the merged verdict: all right now, so
    // Easy instead of Good, and a longer wait before the next review.
    let review_after = merged["next_review_at"].as_str().unwrap();
    assert!(
        merged["review_interval_days"].as_i64().unwrap() > interval_before
            && review_after > review_before.as_str(),
        "{review_before} → {review_after}: {first} → {merged}"
    );
    // The line cannot be said again a second time.
    deskmate(dir.path())
        .args([
            "practice",
            "retake",
            "--practice",
            &id,
            "--line",
            "1",
            "--json",
        ])
        .assert()
        .failure();

    // One row for the spoken attempt, updated in place: the parent's report
    // has the typed attempt and that one, with the merged accuracy.
    let report = todays_attempts(dir.path());
    let accuracies: Vec<f64> = report["attempts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["accuracy"].as_f64().unwrap())
        .collect();
    assert_eq!(accuracies, [100.0, accuracy_after], "{report}");
}

#[test]
fn models_status_lists_every_model_of_the_manifest() {
    let dir = tempfile::tempdir().unwrap();
    // An empty models directory: every model is missing, and the command says so by its exit code.
    let out = deskmate(dir.path())
        .env("DESKMATE_MODELS_DIR", dir.path().join("no-models"))
        .args(["models", "status", "--json"])
        .assert()
        .failure();
    let missing = json(&out.get_output().stdout);
    let names: Vec<&str> = missing
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"whisper-base"), "{names:?}");
    assert!(missing
        .as_array()
        .unwrap()
        .iter()
        .all(|m| m["present"] == false));
    // The fetched models: all present.
    let out = deskmate(dir.path())
        .env("DESKMATE_MODELS_DIR", models_dir())
        .args(["models", "status", "--json"])
        .assert()
        .success();
    let present = json(&out.get_output().stdout);
    assert_eq!(present.as_array().unwrap().len(), names.len());
    assert!(present
        .as_array()
        .unwrap()
        .iter()
        .all(|m| m["present"] == true));
}
