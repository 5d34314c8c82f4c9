//! `deskmate speech transcribe`, `deskmate recite audio` and `deskmate models
//! fetch` end to end, with the real models (DESKMATE_MODELS_DIR or
//! <repo>/models) and a dev clip.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;

use assert_cmd::Command;

fn models_dir() -> PathBuf {
    let dir = std::env::var_os("DESKMATE_MODELS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../models"));
    assert!(
        dir.join("ggml-base.bin").is_file(),
        "models missing: run scripts/fetch-models.sh (looked in {})",
        dir.display()
    );
    dir
}

use deskmate_testkit::clips::dev_clip as clip;

fn deskmate(data: &tempfile::TempDir) -> Command {
    let mut cmd = deskmate_testkit::cli::deskmate(data.path());
    cmd.env("DESKMATE_MODELS_DIR", models_dir());
    cmd
}

fn json(out: &[u8]) -> serde_json::Value {
    serde_json::from_slice(out).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(out)))
}

#[test]
fn transcribe_gives_text_confidences_and_timing() {
    let _speech = deskmate_testkit::process::speech_turn();
    let data = tempfile::tempdir().unwrap();
    let out = deskmate(&data)
        .args(["speech", "transcribe", "--lang", "zh", "--json", "--wav"])
        .arg(clip("静夜思-1.wav"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out.stdout);
    let text = v["text"].as_str().unwrap();
    assert!(text.starts_with("床前明月光"), "{text}");
    let units = v["units"].as_array().unwrap();
    assert_eq!(units.len(), text.chars().count());
    assert!(units
        .iter()
        .all(|u| (0.0..=1.0).contains(&u["confidence"].as_f64().unwrap())));
    assert!(v["asr_ms"].as_u64().unwrap() > 0);
}

#[test]
fn recite_audio_finds_a_missing_line_and_records_the_attempt() {
    let _speech = deskmate_testkit::process::speech_turn();
    let data = tempfile::tempdir().unwrap();
    // A child profile to record for.
    let out = deskmate(&data)
        .args([
            "profiles", "add", "--kind", "child", "--name", "小明", "--json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = deskmate(&data)
        .args([
            "recite",
            "audio",
            "--material",
            "zh/jing-ye-si",
            "--profile",
            "小明",
            "--json",
            "--wav",
        ])
        .arg(clip("静夜思-4.wav"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out.stdout);
    let errors = v["verdict"]["errors"].as_array().unwrap();
    let certain: Vec<_> = errors
        .iter()
        .filter(|e| !e["uncertain"].as_bool().unwrap())
        .collect();
    assert!(
        certain
            .iter()
            .any(|e| e["type"] == "omission" && e["line"] == 2),
        "{errors:?}"
    );
    for key in ["vad_ms", "asr_ms", "check_ms", "total_ms"] {
        assert!(v["timings"][key].is_u64(), "{key}");
    }
    assert!(v["attempt"]["attempt_id"].is_string(), "{}", v["attempt"]);
}

/// `recite audio --profile` judges by the child's pass mark, as recording
/// the attempt does: the verdict printed is the one stored.
#[test]
fn recite_audio_for_a_child_judges_by_the_child_s_pass_mark() {
    let _speech = deskmate_testkit::process::speech_turn();
    let data = tempfile::tempdir().unwrap();
    let child = deskmate_testkit::cli::add_child(data.path());
    let audio = |profile: Option<&str>| {
        let mut cmd = deskmate(&data);
        cmd.args(["recite", "audio", "--material", "zh/jing-ye-si", "--json"]);
        if let Some(p) = profile {
            cmd.args(["--profile", p]);
        }
        let out = cmd.arg("--wav").arg(clip("静夜思-4.wav")).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        json(&out.stdout)
    };
    // Without a child: the default mark (85); a line is missing, so not passed.
    let plain = audio(None);
    let accuracy = plain["verdict"]["accuracy"].as_f64().unwrap();
    assert!(accuracy < 85.0, "{accuracy}");
    assert_eq!(plain["verdict"]["passed"], false, "{}", plain["verdict"]);
    // The child's mark is set just below what the recording scores.
    let mark = (accuracy - 5.0).floor();
    let conn = rusqlite::Connection::open(data.path().join("deskmate.sqlite3")).unwrap();
    conn.execute(
        "INSERT INTO settings (scope, key, value, updated_at) VALUES (?1, 'recite.pass_threshold', ?2, '2026-01-01T00:00:00Z')",
        rusqlite::params![child["id"].as_str().unwrap(), mark.to_string()],
    )
    .unwrap();
    drop(conn);
    let mine = audio(Some("小明"));
    assert_eq!(mine["attempt"]["pass_threshold"].as_f64(), Some(mark));
    assert_eq!(mine["attempt"]["passed"], true, "{}", mine["attempt"]);
    assert_eq!(
        mine["verdict"]["passed"], mine["attempt"]["passed"],
        "the verdict printed is the attempt stored"
    );
}

#[test]
fn bad_audio_is_a_plain_error_not_a_crash() {
    let _speech = deskmate_testkit::process::speech_turn();
    let data = tempfile::tempdir().unwrap();
    let bad = data.path().join("notes.wav");
    std::fs::write(&bad, "not audio at all").unwrap();
    let out = deskmate(&data)
        .args(["speech", "transcribe", "--wav"])
        .arg(&bad)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not an audio file"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn missing_models_are_reported_with_the_fix() {
    let data = tempfile::tempdir().unwrap();
    let out = Command::cargo_bin("deskmate")
        .unwrap()
        .arg("--data-dir")
        .arg(data.path())
        .env("DESKMATE_MODELS_DIR", data.path().join("no-models"))
        .args(["speech", "transcribe", "--wav"])
        .arg(clip("静夜思-1.wav"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("models missing") && err.contains("fetch-models.sh"),
        "{err}"
    );
}

#[test]
fn models_fetch_is_idempotent_on_a_complete_models_dir() {
    let data = tempfile::tempdir().unwrap();
    let out = deskmate(&data)
        .args(["models", "fetch", "--json", "--models-dir"])
        .arg(models_dir())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out.stdout);
    let models = v.as_array().unwrap();
    // whisper, ONNX Runtime, Silero VAD, the sentence encoder.
    assert_eq!(models.len(), 4);
    assert!(models.iter().all(|m| m["action"] == "present"), "{v}");
}

/// Spoken feedback with a cloud voice: `speech voice` stores an
/// OpenAI-compatible service (never its key), `speech say` speaks through
/// it; when the service fails or is unreachable, espeak-ng speaks instead
/// (offline first) and says why. The service is a scripted server on
/// loopback answering with a WAV espeak-ng made.
#[test]
fn feedback_speaks_with_the_cloud_voice_and_falls_back_to_espeak() {
    use deskmate_llm::scripted::{status, Reply, ScriptedServer};

    let data = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let out = deskmate(&data).args(args).output().unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        json(&out.stdout)
    };
    let offline_wav = data.path().join("offline.wav");
    let said = run(&[
        "speech",
        "say",
        "--lang",
        "en",
        "--text",
        "Well done!",
        "--json",
        "--wav",
        offline_wav.to_str().unwrap(),
    ]);
    assert!(
        said["backend"].as_str().unwrap().starts_with("espeak-ng"),
        "{said}"
    );
    assert!(
        said["fell_back"].is_null() && said["seconds"].as_f64().unwrap() > 0.3,
        "{said}"
    );

    let wav = std::fs::read(&offline_wav).unwrap();
    let server = ScriptedServer::start(vec![
        Reply::Bytes {
            content_type: "audio/wav".into(),
            body: wav.clone(),
        },
        status(500, None, "{\"error\": \"overloaded\"}"),
    ])
    .unwrap();
    let set = run(&[
        "speech",
        "voice",
        "--cloud-url",
        &server.base_url(),
        "--model",
        "tts-1",
        "--voice",
        "alloy",
        "--json",
    ]);
    assert_eq!(set["cloud"]["voice"], "alloy", "{set}");

    let cloud_wav = data.path().join("cloud.wav");
    let said = run(&[
        "speech",
        "say",
        "--lang",
        "zh",
        "--text",
        "读得很好！",
        "--json",
        "--wav",
        cloud_wav.to_str().unwrap(),
    ]);
    assert!(
        said["backend"]
            .as_str()
            .unwrap()
            .starts_with("openai:tts-1"),
        "{said}"
    );
    assert!(said["fell_back"].is_null(), "{said}");
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    assert!(
        requests[0].path.ends_with("/audio/speech"),
        "{}",
        requests[0].path
    );
    assert_eq!(requests[0].body["voice"], "alloy");
    assert_eq!(requests[0].body["input"], "读得很好！");
    assert!(cloud_wav.is_file());

    // The service fails: espeak-ng speaks, and the reason is given.
    let said = run(&[
        "speech",
        "say",
        "--lang",
        "zh",
        "--text",
        "再来一次。",
        "--json",
        "--wav",
        cloud_wav.to_str().unwrap(),
    ]);
    assert!(
        said["backend"].as_str().unwrap().starts_with("espeak-ng"),
        "{said}"
    );
    assert!(
        said["fell_back"].as_str().unwrap().contains("500"),
        "{said}"
    );

    // The service is gone altogether: the same.
    let url = server.base_url();
    drop(server);
    let said = run(&[
        "speech",
        "say",
        "--lang",
        "en",
        "--text",
        "Try again.",
        "--json",
        "--wav",
        cloud_wav.to_str().unwrap(),
    ]);
    assert!(
        said["backend"].as_str().unwrap().starts_with("espeak-ng"),
        "{said}"
    );
    assert!(
        said["fell_back"]
            .as_str()
            .unwrap()
            .contains(url.trim_end_matches('/')),
        "{said}"
    );

    // Back to offline only.
    let set = run(&["speech", "voice", "--offline", "--json"]);
    assert!(set["cloud"].is_null(), "{set}");
    let out = deskmate(&data)
        .args([
            "speech",
            "voice",
            "--cloud-url",
            "ftp://x",
            "--model",
            "m",
            "--voice",
            "v",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("http://"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A 16 kHz mono 16-bit WAV of `samples`.
fn wav_bytes(samples: &[i16]) -> Vec<u8> {
    let data = (samples.len() * 2) as u32;
    let mut b = Vec::new();
    b.extend_from_slice(b"RIFF");
    b.extend_from_slice(&(36 + data).to_le_bytes());
    b.extend_from_slice(b"WAVEfmt ");
    b.extend_from_slice(&16u32.to_le_bytes());
    b.extend_from_slice(&1u16.to_le_bytes()); // PCM
    b.extend_from_slice(&1u16.to_le_bytes()); // mono
    b.extend_from_slice(&16_000u32.to_le_bytes());
    b.extend_from_slice(&32_000u32.to_le_bytes());
    b.extend_from_slice(&2u16.to_le_bytes());
    b.extend_from_slice(&16u16.to_le_bytes());
    b.extend_from_slice(b"data");
    b.extend_from_slice(&data.to_le_bytes());
    for s in samples {
        b.extend_from_slice(&s.to_le_bytes());
    }
    b
}

#[test]
fn a_recording_that_is_not_an_attempt_is_neither_scored_nor_recorded() {
    let _speech = deskmate_testkit::process::speech_turn();
    let data = tempfile::tempdir().unwrap();
    let out = deskmate(&data)
        .args([
            "profiles", "add", "--kind", "child", "--name", "小红", "--json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    // Three seconds of near silence (a microphone too far away).
    let quiet: Vec<i16> = (0..48_000).map(|i| ((i % 7) as i16) - 3).collect();
    let wav = data.path().join("quiet.wav");
    std::fs::write(&wav, wav_bytes(&quiet)).unwrap();
    let out = deskmate(&data)
        .args([
            "recite",
            "audio",
            "--material",
            "zh/jing-ye-si",
            "--profile",
            "小红",
            "--json",
            "--wav",
        ])
        .arg(&wav)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out.stdout);
    assert!(v["not_an_attempt"].is_string(), "{v}");
    assert!(v["verdict"].is_null(), "{v}");
    assert!(v["attempt"].is_null(), "{v}");
    assert!(
        v["message"].as_str().unwrap().contains("麦克风"),
        "{}",
        v["message"]
    );
    // Nothing was recorded for the child: today's report has no attempt.
    let today = chrono_today();
    let out = deskmate(&data)
        .args([
            "report",
            "daily",
            "--profile",
            "小红",
            "--date",
            &today,
            "--json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = json(&out.stdout);
    assert_eq!(report["summary"]["attempts"], 0, "{report}");
}

/// Today's date (UTC; the profile's default time zone is checked against
/// the same day, and a test run does not straddle midnight in practice).
fn chrono_today() -> String {
    let out = std::process::Command::new("date")
        .args(["-u", "+%Y-%m-%d"])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// `models download` is the window's download (one path): the official
/// file is fetched — here from a mirror on loopback
/// (`DESKMATE_MODELS_MIRROR`) under its own name — with progress in bytes,
/// checked against the publisher's SHA-1, and a file that does not match is
/// refused in plain words and not installed.
#[test]
fn models_download_streams_bytes_from_a_mirror_and_refuses_a_wrong_file() {
    use std::io::{BufRead, BufReader, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let mirror = format!("http://{}/whisper", listener.local_addr().unwrap());
    let server = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let mut request = String::new();
        reader.read_line(&mut request).unwrap();
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            if line == "\r\n" || line.is_empty() {
                break;
            }
        }
        let body = vec![7u8; 3_000_000];
        let head = format!(
            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        );
        stream.write_all(head.as_bytes()).unwrap();
        let _ = stream.write_all(&body);
        request
    });
    let data = tempfile::tempdir().unwrap();
    let models = tempfile::tempdir().unwrap();
    let out = deskmate(&data)
        .env("DESKMATE_MODELS_MIRROR", &mirror)
        .args([
            "models",
            "download",
            "--name",
            "whisper-base",
            "--models-dir",
        ])
        .arg(models.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "a wrong file was accepted: {err}");
    let request = server.join().unwrap();
    assert!(
        request.starts_with("GET /whisper/ggml-base.bin "),
        "{request}"
    );
    assert!(
        err.contains("whisper-base: 3 MB of 3 MB"),
        "no progress in bytes: {err}"
    );
    assert!(err.contains("sha1"), "the refusal names the digest: {err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        !models.path().join("official/ggml-base.bin").exists(),
        "a file that failed its check was installed"
    );
}
