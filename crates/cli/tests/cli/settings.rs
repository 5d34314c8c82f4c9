//! What the window's settings screen does, from the CLI: the app's language
//! (`settings locale`), the feedback voice's test (`speech voice-test`) and
//! the lamp panel's buttons (`lamp press`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use deskmate_testkit::cli::{add_child, deskmate, json};

#[test]
fn the_window_s_language_is_shown_set_and_a_foreign_one_refused() {
    let dir = tempfile::tempdir().unwrap();
    let shown = |dir: &std::path::Path| {
        let out = deskmate(dir)
            .args(["settings", "locale", "--json"])
            .assert()
            .success();
        json(&out.get_output().stdout)["locale"].clone()
    };
    assert_eq!(shown(dir.path()), "zh-CN", "Chinese until a parent chooses");
    let out = deskmate(dir.path())
        .args(["settings", "locale", "en"])
        .assert()
        .success();
    assert_eq!(
        String::from_utf8_lossy(&out.get_output().stdout).trim(),
        "en"
    );
    assert_eq!(shown(dir.path()), "en", "kept for the next start");
    let out = deskmate(dir.path())
        .args(["settings", "locale", "fr"])
        .assert()
        .failure();
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(
        err.contains("unsupported language") && err.contains("fr"),
        "{err}"
    );
    assert_eq!(
        shown(dir.path()),
        "en",
        "a refused language changes nothing"
    );
}

#[test]
fn the_feedback_voice_test_speaks_offline_and_falls_back_from_a_dead_service() {
    let dir = tempfile::tempdir().unwrap();
    let test = |lang: &str| {
        let out = deskmate(dir.path())
            .args(["speech", "voice-test", "--lang", lang, "--json"])
            .assert()
            .success();
        json(&out.get_output().stdout)
    };
    let offline = test("en");
    assert_eq!(
        offline["text"],
        "Hello! This is how I will read your feedback."
    );
    assert!(
        offline["backend"]
            .as_str()
            .unwrap()
            .starts_with("espeak-ng"),
        "{offline}"
    );
    assert!(offline["fell_back"].is_null(), "{offline}");
    assert!(offline["seconds"].as_f64().unwrap() > 0.5, "{offline}");
    // A cloud voice nobody answers for: espeak-ng says it, and says why.
    deskmate(dir.path())
        .args([
            "speech",
            "voice",
            "--cloud-url",
            "http://127.0.0.1:9/v1",
            "--model",
            "tts-1",
            "--voice",
            "alloy",
        ])
        .assert()
        .success();
    let fell_back = test("zh");
    assert!(
        fell_back["backend"]
            .as_str()
            .unwrap()
            .starts_with("espeak-ng"),
        "{fell_back}"
    );
    assert!(fell_back["fell_back"].is_string(), "{fell_back}");
}

#[test]
fn a_lamp_panel_press_goes_to_the_open_practice_as_in_the_window() {
    let dir = tempfile::tempdir().unwrap();
    add_child(dir.path());
    let press = |args: &[&str]| {
        let out = deskmate(dir.path())
            .args(["lamp", "press"])
            .args(args)
            .arg("--json")
            .assert()
            .success();
        json(&out.get_output().stdout)
    };
    // Nothing open: the press is shown, nothing else happens.
    let nothing = press(&["start"]);
    assert_eq!(nothing["event"], serde_json::json!({"button": "start"}));
    assert_eq!(nothing["action"], "ignored");
    assert_eq!(nothing["why"], "no practice is open");
    let touch = press(&["touch"]);
    assert_eq!(touch["event"], "touch");
    assert_eq!(touch["why"], "shown on the lamp panel only");
    // A typed practice open for the child: start has nothing to record.
    deskmate(dir.path())
        .args([
            "practice",
            "start",
            "--profile",
            "小明",
            "--material",
            "静夜思",
            "--mode",
            "text",
        ])
        .assert()
        .success();
    let typed = press(&["start", "--profile", "小明"]);
    assert_eq!(typed["action"], "ignored", "{typed}");
    assert!(
        typed["why"].as_str().unwrap().contains("typed practice"),
        "{typed}"
    );
    // A person reads what happened.
    let out = deskmate(dir.path())
        .args(["lamp", "press", "stop"])
        .assert()
        .success();
    let said = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(said.contains("stop: nothing to do"), "{said}");
    // A child with nothing open is told so.
    let out = deskmate(dir.path())
        .args(["profiles", "add", "--name", "小红", "--kind", "child"])
        .assert()
        .success();
    drop(out);
    let out = deskmate(dir.path())
        .args(["lamp", "press", "start", "--profile", "小红"])
        .assert()
        .failure();
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(err.contains("小红 has no practice open"), "{err}");
}

/// A collector on loopback that answers one OTLP/HTTP POST: its request
/// line and body.
fn one_post(listener: std::net::TcpListener) -> std::thread::JoinHandle<(String, String)> {
    use std::io::{Read, Write};
    std::thread::spawn(move || {
        let (mut conn, _) = listener.accept().unwrap();
        conn.set_read_timeout(Some(std::time::Duration::from_secs(20)))
            .unwrap();
        let mut got = Vec::new();
        let mut buf = [0u8; 8192];
        loop {
            let n = conn.read(&mut buf).unwrap();
            assert!(n > 0, "the connection closed early");
            got.extend_from_slice(&buf[..n]);
            let text = String::from_utf8_lossy(&got).to_string();
            let Some(end) = text.find("\r\n\r\n") else {
                continue;
            };
            let len: usize = text[..end]
                .lines()
                .find_map(|l| {
                    l.to_ascii_lowercase()
                        .strip_prefix("content-length:")
                        .map(|v| v.trim().parse().unwrap())
                })
                .unwrap();
            if got.len() >= end + 4 + len {
                conn.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n")
                    .unwrap();
                let body = String::from_utf8(got[end + 4..end + 4 + len].to_vec()).unwrap();
                return (text.lines().next().unwrap().to_string(), body);
            }
        }
    })
}

#[test]
fn with_an_otlp_endpoint_set_a_request_s_spans_reach_the_collector() {
    let dir = tempfile::tempdir().unwrap();
    add_child(dir.path());
    let setting = |args: &[&str]| {
        let out = deskmate(dir.path())
            .args(["settings", "otlp-endpoint"])
            .args(args)
            .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
            .assert();
        String::from_utf8_lossy(&out.get_output().stdout)
            .trim()
            .to_string()
    };
    assert!(
        setting(&[]).starts_with("off"),
        "offline until a parent sets one"
    );
    deskmate(dir.path())
        .args(["settings", "otlp-endpoint", "collector.local"])
        .assert()
        .failure();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    assert_eq!(setting(&[&url]), url);
    let collector = one_post(listener);
    let out = deskmate(dir.path())
        .args(["say", "--json", "我要背静夜思"])
        .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
        .assert()
        .success();
    let trace_id = json(&out.get_output().stdout)["trace_id"]
        .as_str()
        .unwrap()
        .replace('-', "");
    let (line, body) = collector.join().unwrap();
    assert!(line.starts_with("POST /v1/traces "), "{line}");
    let body: serde_json::Value = serde_json::from_str(&body).unwrap();
    let spans = body["resourceSpans"][0]["scopeSpans"][0]["spans"]
        .as_array()
        .unwrap();
    assert!(spans.iter().all(|s| s["traceId"] == trace_id.as_str()));
    assert!(spans.iter().any(|s| s["name"] == "scene.recite"));

    // The collector gone: the child is answered all the same.
    let out = deskmate(dir.path())
        .args(["say", "--json", "不背了"])
        .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
        .assert()
        .success();
    assert_eq!(json(&out.get_output().stdout)["scene"], "chat");
    assert!(setting(&["--off"]).starts_with("off"));
}
