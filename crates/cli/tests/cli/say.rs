//! `deskmate say`: a child's words through the one entry — a poem named
//! opens its practice, "不背了" goes back to chat, a poem named inside
//! homework is asked about first and "好的" goes, "今天做什么" lists the
//! reviews, and chat without a model says a parent must set one up. Every
//! decision is logged with a trace id. `--image`: a photo of homework
//! checked by the scripted model server answering as a vision model, its
//! mistake walked through and listed in `deskmate plan show`.

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
    // What happened, as spans under the request, and as a timeline.
    let names: Vec<&str> = t["spans"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["request", "parse", "route", "decide", "scene.recite"]
    );
    assert_eq!(t["spans"][1]["attributes"]["input"], "text");
    assert_eq!(t["spans"][2]["parent_span_id"], t["spans"][0]["span_id"]);
    assert_eq!(t["spans"][2]["attributes"]["intent"], "recite");
    let shown = deskmate(dir.path())
        .args(["trace", "show", &trace_id])
        .assert()
        .success();
    let text = String::from_utf8_lossy(&shown.get_output().stdout).to_string();
    assert!(text.contains("what happened:"), "{text}");
    let tree: Vec<&str> = text
        .lines()
        .skip_while(|l| *l != "what happened:")
        .skip(1)
        .collect();
    assert!(
        tree[0].starts_with("  request ") && tree[0].contains(" ms ok"),
        "{text}"
    );
    assert!(
        tree[2].starts_with("    route ") && tree[2].contains("intent=recite"),
        "{text}"
    );
    assert!(tree[4].starts_with("    scene.recite "), "{text}");
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

/// `deskmate say --wav`, with the offline speech models
/// (DESKMATE_MODELS_DIR or <repo>/models).
#[allow(clippy::unwrap_used)]
fn say_wav(dir: &std::path::Path, wav: &std::path::Path) -> std::process::Output {
    let models = deskmate_testkit::clips::models_dir();
    assert!(
        models.join("ggml-base.bin").is_file(),
        "models missing: run scripts/fetch-models.sh (looked in {})",
        models.display()
    );
    deskmate(dir)
        .args(["say", "--json", "--wav"])
        .arg(wav)
        .env("DESKMATE_MODELS_DIR", models)
        .env_remove("DESKMATE_LLM_API_KEY")
        .output()
        .unwrap()
}

#[test]
fn a_recited_poem_is_heard_offline_and_its_recitation_offered() {
    let _speech = deskmate_testkit::process::speech_turn();
    let dir = tempfile::tempdir().unwrap();
    add_child(dir.path());
    // A child reciting 静夜思 (a dev clip): heard by whisper, the poem is
    // recognised by its lines, and with no words asking for it the entry
    // asks first; "好的" opens it. (espeak-ng's Mandarin voice is not
    // understood by whisper base: "我要背静夜思" comes back as digits.)
    let out = say_wav(
        dir.path(),
        &deskmate_testkit::clips::dev_clip("静夜思-1.wav"),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r = json(&out.stdout);
    let heard = r["heard"].as_str().unwrap();
    assert!(heard.starts_with("床前明月光"), "heard {heard}");
    assert_eq!(r["intent"], "recite", "{r}");
    assert_eq!(r["decision"]["decision"], "ask_switch", "{r}");
    assert!(r["text_zh"].as_str().unwrap().contains("《静夜思》"), "{r}");
    assert!(r["error"].is_null());
    let t = &r["timings"];
    assert!(t["speech_us"].as_u64().unwrap() > 0, "{t}");
    assert!(t["total_us"].as_u64().unwrap() >= t["speech_us"].as_u64().unwrap());
    // The trace keeps the words heard and the time speech took.
    let trace_id = r["trace_id"].as_str().unwrap();
    let shown = deskmate(dir.path())
        .args(["trace", "show", trace_id, "--json"])
        .assert()
        .success();
    let trace = json(&shown.get_output().stdout);
    assert_eq!(trace["input"].as_str(), Some(heard));
    assert!(trace["timings"]["speech_us"].as_u64().unwrap() > 0);
    // Whisper's hearing is a span of its own, timed, under the request.
    let speech = &trace["spans"][1];
    assert_eq!(speech["name"], "speech", "{trace}");
    assert_eq!(speech["outcome"], "ok");
    assert_eq!(speech["parent_span_id"], trace["spans"][0]["span_id"]);
    assert!(speech["duration_us"].as_u64().unwrap() > 0);
    let yes = say(dir.path(), "好的");
    assert_eq!(yes["scene"], "recite", "{yes}");
    assert_eq!(yes["material"]["title"], "静夜思");
    assert_eq!(yes["practice"]["state"]["state"], "ready");
}

#[test]
fn a_recording_that_cannot_be_heard_is_answered_in_plain_words_and_nothing_is_logged() {
    let _speech = deskmate_testkit::process::speech_turn();
    let dir = tempfile::tempdir().unwrap();
    add_child(dir.path());
    // Not audio at all.
    let broken = dir.path().join("broken.wav");
    std::fs::write(&broken, b"RIFF this is not really a wave file").unwrap();
    let out = say_wav(dir.path(), &broken);
    assert!(!out.status.success());
    let r = json(&out.stdout);
    assert_eq!(r["error"]["code"], "speech.audio", "{r}");
    assert!(r["text_zh"].as_str().unwrap().contains("录音打不开"), "{r}");
    // Silence: one second of zeros at 16 kHz.
    let silent = dir.path().join("silent.wav");
    let mut wav = Vec::new();
    let data_len: u32 = 16_000 * 2;
    wav.extend_from_slice(b"RIFF");
    wav.extend_from_slice(&(36 + data_len).to_le_bytes());
    wav.extend_from_slice(b"WAVEfmt ");
    wav.extend_from_slice(&16u32.to_le_bytes());
    wav.extend_from_slice(&1u16.to_le_bytes()); // PCM
    wav.extend_from_slice(&1u16.to_le_bytes()); // mono
    wav.extend_from_slice(&16_000u32.to_le_bytes());
    wav.extend_from_slice(&32_000u32.to_le_bytes());
    wav.extend_from_slice(&2u16.to_le_bytes());
    wav.extend_from_slice(&16u16.to_le_bytes());
    wav.extend_from_slice(b"data");
    wav.extend_from_slice(&data_len.to_le_bytes());
    wav.resize(wav.len() + data_len as usize, 0);
    std::fs::write(&silent, wav).unwrap();
    let out = say_wav(dir.path(), &silent);
    assert!(!out.status.success());
    let r = json(&out.stdout);
    assert_eq!(r["error"]["code"], "speech.nothing_heard", "{r}");
    assert_eq!(r["scene"], "chat");
    // Its spans were kept all the same: the speech step failed, with the code.
    let shown = deskmate(dir.path())
        .args(["trace", "show", "--json", r["trace_id"].as_str().unwrap()])
        .assert()
        .success();
    let t = json(&shown.get_output().stdout);
    assert_eq!(t["decision"]["decision"], "reject", "{t}");
    assert!(t["said"].as_str().unwrap().contains("没听清楚"), "{t}");
    let spans = t["spans"].as_array().unwrap();
    assert_eq!(
        (spans[0]["name"].as_str(), spans[0]["outcome"].as_str()),
        (Some("request"), Some("error"))
    );
    assert_eq!(spans[0]["error_code"], "speech.nothing_heard");
    let speech = spans.iter().find(|s| s["name"] == "speech").unwrap();
    assert_eq!(
        (speech["outcome"].as_str(), speech["error_code"].as_str()),
        (Some("error"), Some("speech.nothing_heard"))
    );
    // Neither was logged as a decision: there is nothing to replay.
    let replay = deskmate(dir.path())
        .args(["trace", "replay"])
        .assert()
        .success();
    let text = String::from_utf8_lossy(&replay.get_output().stdout).to_string();
    assert!(text.contains("0 decisions replayed"), "{text}");
}

const SHEET: &str = r#"{"subject": "数学", "questions": [
 {"question": "12+5=", "child_answer": "17", "correct": true, "hint": "", "explanation": "", "correct_answer": "17"},
 {"question": "9+8=", "child_answer": "16", "correct": false, "hint": "9 再加几就凑成 10？", "explanation": "把 8 分成 1 和 7，9+1=10，10+7=17。", "correct_answer": "17"},
 {"question": "20-3=", "child_answer": "17", "correct": true, "hint": "", "explanation": "", "correct_answer": "17"}]}"#;

#[test]
fn a_photo_of_homework_is_checked_by_the_vision_model_and_its_mistake_planned() {
    use deskmate_llm::scripted::{openai, ScriptedServer};
    let dir = tempfile::tempdir().unwrap();
    add_child(dir.path());
    let server = ScriptedServer::start(vec![openai::text(SHEET)]).unwrap();
    deskmate(dir.path())
        .args([
            "llm",
            "set",
            "--agree",
            "--model",
            "openai:qwen-vl-max",
            "--base-url",
        ])
        .arg(server.base_url())
        .assert()
        .success();
    let say = |args: &[&std::ffi::OsStr]| {
        deskmate(dir.path())
            .arg("say")
            .arg("--json")
            .args(args)
            .env("DESKMATE_LLM_API_KEY", "sk-scripted-vision")
            .output()
            .unwrap()
    };
    // Not a photo: a coded error in plain words, exit 1, nothing asked or logged.
    let notes = dir.path().join("notes.png");
    std::fs::write(&notes, "9+8=16").unwrap();
    let out = say(&["--image".as_ref(), notes.as_os_str()]);
    assert_eq!(out.status.code(), Some(1));
    let r = json(&out.stdout);
    assert_eq!(r["error"]["code"], "homework.not_an_image", "{r}");
    assert_eq!(server.request_count(), 0);

    let png = deskmate_testkit::photo::png(16, 12);
    let sheet = dir.path().join("worksheet.png");
    std::fs::write(&sheet, &png).unwrap();
    let page2 = dir.path().join("page2.png");
    std::fs::write(&page2, deskmate_testkit::photo::png(9, 20)).unwrap();
    let out = say(&[
        "--image".as_ref(),
        sheet.as_os_str(),
        "--image".as_ref(),
        page2.as_os_str(),
        "帮我看看作业".as_ref(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r = json(&out.stdout);
    assert_eq!(
        (r["scene"].as_str(), r["intent"].as_str()),
        (Some("homework"), Some("homework"))
    );
    assert_eq!(r["homework"]["total"], 3, "{r}");
    assert_eq!(r["homework"]["mistakes"], 1);
    assert_eq!(r["homework"]["question"], "9+8=");
    assert!(r["homework"]["correct_answer"].is_null());
    assert!(r["text_zh"].as_str().unwrap().contains("再想想"), "{r}");
    // The request carried the configured model and the photo as a data URL.
    let body = &server.requests()[0].body;
    assert_eq!(body["model"], "qwen-vl-max");
    let user = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "user")
        .unwrap();
    let urls: Vec<String> = user["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["type"] == "image_url")
        .map(|p| p["image_url"]["url"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(urls.len(), 2, "one image part per page");
    for url in &urls {
        assert!(
            url.starts_with("data:image/png;base64,iVBORw0KGgo"),
            "{url}"
        );
    }
    assert_ne!(urls[0], urls[1]);
    let trace = r["trace_id"].as_str().unwrap();
    let shown = deskmate(dir.path())
        .args(["trace", "show", trace, "--json"])
        .assert()
        .success();
    assert!(json(&shown.get_output().stdout)["input"]
        .as_str()
        .unwrap()
        .starts_with("[photo ×2] 帮我看看作业"));

    // 再给个提示: the explanation, never the answer.
    let out = say(&["再给个提示".as_ref()]);
    let r = json(&out.stdout);
    assert!(r["homework"]["explanation"].as_str().is_some(), "{r}");
    assert!(r["homework"]["correct_answer"].is_null());

    // The mistake is in today's plan.
    let plan = deskmate(dir.path())
        .args(["plan", "show"])
        .assert()
        .success();
    let shown = String::from_utf8_lossy(&plan.get_output().stdout).to_string();
    assert!(shown.contains("[ ] 重做 1 道作业错题"), "{shown}");
}

#[test]
fn say_listen_hears_the_microphone_until_silence_as_the_talk_button_does() {
    let _speech = deskmate_testkit::process::speech_turn();
    let dir = tempfile::tempdir().unwrap();
    add_child(dir.path());
    // The microphone plays a child reciting 静夜思 (a dev clip), then silence:
    // the voice detector ends the take, whisper hears it, and the entry
    // recognises the poem by its lines and asks first.
    let (speech, rate) = deskmate_testkit::clips::dev_clip_samples("静夜思-1.wav");
    assert_eq!(rate, 16_000);
    let mic = deskmate_testkit::mic::FifoMic::new(dir.path());
    mic.feed_then_silence(&speech);
    let out = deskmate(dir.path())
        .env("ALSA_CONFIG_PATH", mic.alsa_config())
        .env("DESKMATE_MODELS_DIR", deskmate_testkit::clips::models_dir())
        .env_remove("DESKMATE_LLM_API_KEY")
        .timeout(std::time::Duration::from_secs(120))
        .args(["say", "--listen"])
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(
        stdout.contains("听到 heard: 床前明月光"),
        "{stdout}\n{stderr}"
    );
    assert!(stdout.contains("《静夜思》"), "{stdout}");
    // Listening, then thinking once the microphone closed.
    let listening = stderr.find("listening").expect("says it listens");
    let thinking = stderr.find("thinking").expect("says it thinks");
    assert!(listening < thinking, "{stderr}");
    assert!(stderr.contains("intent recite"), "{stderr}");
    mic.stop();
    // "好的" opens it, as it would after a recording.
    let yes = say(dir.path(), "好的");
    assert_eq!(yes["material"]["title"], "静夜思", "{yes}");
    assert_eq!(yes["practice"]["state"]["state"], "ready");
}

#[test]
fn say_listen_with_no_microphone_says_so_in_plain_words_and_logs_nothing() {
    let dir = tempfile::tempdir().unwrap();
    add_child(dir.path());
    // An ALSA configuration whose only capture device reads a file that is
    // not there: no microphone opens.
    let conf = dir.path().join("asound.conf");
    std::fs::write(
        &conf,
        deskmate_testkit::mic::alsa_config(&dir.path().join("no-such-mic.raw")),
    )
    .unwrap();
    let out = deskmate(dir.path())
        .env("ALSA_CONFIG_PATH", &conf)
        .env("DESKMATE_MODELS_DIR", deskmate_testkit::clips::models_dir())
        .env_remove("DESKMATE_LLM_API_KEY")
        .timeout(std::time::Duration::from_secs(60))
        .args(["say", "--listen", "--json"])
        .assert()
        .failure();
    let r = json(&out.get_output().stdout);
    assert_eq!(r["error"]["code"], "speech.microphone", "{r}");
    assert!(r["text_zh"].as_str().unwrap().contains("麦克风"), "{r}");
    let replay = deskmate(dir.path())
        .args(["trace", "replay"])
        .assert()
        .success();
    let text = String::from_utf8_lossy(&replay.get_output().stdout).to_string();
    assert!(text.contains("0 decisions replayed"), "{text}");
}

#[test]
fn a_button_is_the_reply_it_stands_for_where_the_child_is() {
    let dir = tempfile::tempdir().unwrap();
    add_child(dir.path());
    let press = |button: &str| {
        let out = deskmate(dir.path())
            .args(["say", "--json", "--button", button])
            .assert()
            .success();
        json(&out.get_output().stdout)
    };
    let ask = say(dir.path(), "静夜思");
    assert_eq!(ask["decision"]["decision"], "ask_switch", "{ask}");
    // The lamp's "yes" takes the switch asked about: the poem opens.
    let yes = press("lamp:yes");
    assert_eq!(
        (yes["scene"].as_str(), yes["confidence"].as_str()),
        (Some("recite"), Some("high")),
        "{yes}"
    );
    assert_eq!(yes["practice"]["material"]["title"], "静夜思");
    assert_eq!(yes["needs_model"], false);
    // "next" means nothing in a recitation: said so, nothing changes.
    let next = press("lamp:next");
    assert_eq!(next["scene"], "recite");
    assert_eq!(next["reason"], "a button that means nothing in this scene");
    assert!(next["practice"].is_null(), "{next}");
    // Logged as the button, and replayed the same.
    let trace_id = yes["trace_id"].as_str().unwrap().to_string();
    let shown = deskmate(dir.path())
        .args(["trace", "show", &trace_id, "--json"])
        .assert()
        .success();
    assert_eq!(
        json(&shown.get_output().stdout)["input"],
        "[button lamp:yes]"
    );
    let replay = deskmate(dir.path())
        .args(["trace", "replay"])
        .assert()
        .success();
    let text = String::from_utf8_lossy(&replay.get_output().stdout).to_string();
    assert!(
        text.contains("3 decisions replayed, 0 would change"),
        "{text}"
    );
    // A button from nowhere is refused in plain words, nothing logged.
    let out = deskmate(dir.path())
        .args(["say", "--button", "desk:next"])
        .assert()
        .failure();
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(err.contains("on the lamp or the screen"), "{err}");
}

/// The chat scene's step for the only child, as stored.
#[allow(clippy::unwrap_used)]
fn chat_step(dir: &std::path::Path) -> String {
    let db = rusqlite::Connection::open(dir.join("deskmate.sqlite3")).unwrap();
    let session: String = db
        .query_row("SELECT session FROM scene_sessions", [], |r| r.get(0))
        .unwrap();
    let v: serde_json::Value = serde_json::from_str(&session).unwrap();
    v["chat"]["step"].as_str().unwrap_or("idle").to_string()
}

#[test]
fn a_chat_request_goes_to_the_companion_and_its_calls_join_the_requests_trace() {
    use deskmate_llm::scripted::{openai, ScriptedServer};
    let dir = tempfile::tempdir().unwrap();
    add_child(dir.path());
    let server = ScriptedServer::start(vec![
        // The offline router calls a question LOW: the model classifies it first.
        openai::tool_calls(
            None,
            &[(
                "call_r",
                "classify_intent",
                r#"{"intent": "chat", "confidence": "high", "slots": {}}"#,
            )],
        ),
        openai::tool_calls(
            Some("我先记下来。"),
            &[(
                "call_w",
                "write_file",
                r#"{"file_path": "/月亮.md", "content": "玉兔"}"#,
            )],
        ),
        openai::text("月亮上没有真的兔子，不过有玉兔捣药的故事！"),
    ])
    .unwrap();
    deskmate(dir.path())
        .args([
            "llm",
            "set",
            "--agree",
            "--model",
            "openai:gpt-4o-mini",
            "--base-url",
        ])
        .arg(server.base_url())
        .assert()
        .success();
    let out = deskmate(dir.path())
        .args(["say", "--json", "月亮上有兔子吗"])
        .env("DESKMATE_LLM_API_KEY", "sk-scripted-chat")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r = json(&out.stdout);
    assert_eq!(
        (r["scene"].as_str(), r["handoff"].as_bool()),
        (Some("chat"), Some(true)),
        "{r}"
    );
    assert_eq!(r["companion"]["status"], "completed", "{r}");
    assert!(
        r["companion"]["answer"]
            .as_str()
            .unwrap()
            .contains("玉兔捣药"),
        "{r}"
    );
    // The router's call asked for the classification; the companion got
    // the child's own words.
    assert_eq!(
        server.requests()[0].body["tools"][0]["function"]["name"],
        "classify_intent"
    );
    let user = &server.requests()[1].body["messages"];
    assert!(user.to_string().contains("月亮上有兔子吗"), "{user}");
    // Nothing waits in chat once the companion answered.
    assert_eq!(chat_step(dir.path()), "idle");

    // The request's trace holds the companion's run under its root, and the
    // run's two model calls and its tool call under the run.
    let trace = deskmate(dir.path())
        .args(["trace", "show", r["trace_id"].as_str().unwrap(), "--json"])
        .assert()
        .success();
    let t = json(&trace.get_output().stdout);
    let spans = t["spans"].as_array().unwrap_or_else(|| panic!("{t}"));
    let by_name =
        |n: &str| -> Vec<&serde_json::Value> { spans.iter().filter(|s| s["name"] == n).collect() };
    let root = by_name("request")[0]["span_id"].clone();
    let run = by_name("companion.run");
    assert_eq!(run.len(), 1, "{t}");
    assert_eq!(run[0]["parent_span_id"], root);
    assert_eq!(run[0]["outcome"], "ok");
    assert_eq!(run[0]["attributes"]["run_id"], r["companion"]["run_id"]);
    let route = by_name("route");
    assert_eq!(route[0]["attributes"]["by"], "model", "{t}");
    assert_eq!(r["routed_by"], "model", "{r}");
    let routed = by_name("model.call");
    let (calls, routing): (Vec<_>, Vec<_>) = routed
        .into_iter()
        .partition(|c| c["parent_span_id"] == run[0]["span_id"]);
    assert_eq!(calls.len(), 2, "{t}");
    assert_eq!(routing.len(), 1, "{t}");
    assert_eq!(routing[0]["attributes"]["purpose"], "route");
    assert!(calls
        .iter()
        .all(|c| c["parent_span_id"] == run[0]["span_id"]
            && c["attributes"]["model"] == "openai:gpt-4o-mini"));
    let tool = by_name("tool.call");
    assert_eq!(tool.len(), 1, "{t}");
    assert_eq!(tool[0]["attributes"]["tool"], "write_file");
    assert_eq!(tool[0]["parent_span_id"], run[0]["span_id"]);
    // In the order they happened: the first model call, the tool, the second.
    assert!(calls[0]["started_at"].as_i64() <= tool[0]["started_at"].as_i64());
    assert!(tool[0]["started_at"].as_i64() <= calls[1]["started_at"].as_i64());

    // --no-companion only routes: the scene waits for the companion.
    let out = deskmate(dir.path())
        .args(["say", "--json", "--no-companion", "给我讲个故事"])
        .env("DESKMATE_LLM_API_KEY", "sk-scripted-chat")
        .output()
        .unwrap();
    let r = json(&out.stdout);
    assert_eq!(r["handoff"], true, "{r}");
    assert!(r.get("companion").is_none(), "{r}");
    // The script had run out: the router's call failed, the rules stood.
    assert_eq!(server.request_count(), 4);
    let shown = deskmate(dir.path())
        .args(["trace", "show", r["trace_id"].as_str().unwrap(), "--json"])
        .assert()
        .success();
    let t = json(&shown.get_output().stdout);
    let route = t["spans"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "route")
        .unwrap();
    assert_eq!(route["attributes"]["by"], "rules", "{t}");
    assert_eq!(r["routed_by"], "rules", "{r}");
    assert!(route["attributes"]["fallback"]
        .as_str()
        .unwrap()
        .starts_with("model unavailable: "));
    // Replayed: the logged classification is reused, no model is asked.
    let replay = deskmate(dir.path())
        .args(["trace", "replay"])
        .assert()
        .success();
    let text = String::from_utf8_lossy(&replay.get_output().stdout).to_string();
    assert!(
        text.contains(
            "2 decisions replayed, 0 would change (1 routed by the rules, 1 by the model's logged reply)"
        ),
        "{text}"
    );
    assert_eq!(server.request_count(), 4);
    assert_eq!(chat_step(dir.path()), "handoff_wait");
}
