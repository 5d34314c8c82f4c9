//! The companion's team and skills through the real binary: every model
//! call's system prompt lists the skills (name, description, path) without
//! their bodies; the model reads one with `read_file` at
//! `/skills/<name>/SKILL.md` and cannot change it; a parent's own skill
//! counts from the next message, and a malformed one is skipped and shown by
//! `deskmate doctor`; the lead hands work to a bundled subagent with `task`
//! and `deskmate threads show` shows the subagent's work under that call.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use deskmate_llm::scripted::{openai, RecordedRequest, ScriptedServer};

use deskmate_testkit::cli::deskmate;

const RULES: &str = "---\nname: family-rules\ndescription: 我们家的学习约定，孩子问能不能先玩时用。\n---\n先背完一首诗，再玩十五分钟。\n";

fn parent_skill(data: &std::path::Path, folder: &str, text: &str) {
    let dir = data.join("skills").join(folder);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("SKILL.md"), text).unwrap();
}

#[test]
fn skills_are_listed_read_on_demand_and_read_only() {
    let dir = tempfile::tempdir().unwrap();
    parent_skill(dir.path(), "family-rules", RULES);
    let server = ScriptedServer::start(vec![
        openai::tool_calls(
            None,
            &[(
                "call_r",
                "read_file",
                r#"{"file_path": "/skills/family-rules/SKILL.md"}"#,
            )],
        ),
        openai::tool_calls(
            None,
            &[(
                "call_w",
                "edit_file",
                r#"{"file_path": "/skills/family-rules/SKILL.md", "old_string": "十五", "new_string": "五十"}"#,
            )],
        ),
        openai::text("先背诗，再玩十五分钟哦。"),
    ])
    .unwrap();
    let out = deskmate(dir.path())
        .env("DESKMATE_LLM_API_KEY", "sk-skills")
        .args([
            "chat",
            "--model",
            "openai:gpt-4o-mini",
            "--base-url",
            &server.base_url(),
            "我能先玩吗？",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    for r in &requests {
        let system = r.body["messages"][0]["content"].as_str().unwrap();
        assert!(
            system.contains("family-rules (/skills/family-rules/SKILL.md): 我们家的学习约定"),
            "{system}"
        );
        assert!(
            system.contains("/skills/poem-explanation/SKILL.md"),
            "a bundled skill is listed too"
        );
        assert!(
            !system.contains("再玩十五分钟"),
            "bodies are read on demand, not sent"
        );
    }
    let tool_results: Vec<String> = requests[2].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].to_string())
        .collect();
    assert!(tool_results[0].contains("先背完一首诗"), "{tool_results:?}");
    assert!(tool_results[1].contains("read-only"), "{tool_results:?}");
    // The parent's file is untouched.
    assert_eq!(
        std::fs::read_to_string(dir.path().join("skills/family-rules/SKILL.md")).unwrap(),
        RULES
    );
}

#[test]
fn doctor_shows_the_skills_and_names_a_malformed_one() {
    let dir = tempfile::tempdir().unwrap();
    parent_skill(dir.path(), "family-rules", RULES);
    parent_skill(
        dir.path(),
        "Bad Name",
        "---\nname: Bad Name\ndescription: x\n---\nbody\n",
    );
    let out = deskmate(dir.path()).arg("doctor").output().unwrap();
    let report = String::from_utf8_lossy(&out.stdout);
    let skills = report
        .lines()
        .find(|l| l.contains(" skills "))
        .unwrap_or_else(|| panic!("{report}"));
    assert!(skills.starts_with("warn"), "{skills}");
    assert!(skills.contains("1 of them a parent's"), "{skills}");
    assert!(
        skills.contains("Bad Name") && skills.contains("lowercase"),
        "{skills}"
    );
    let agents = report
        .lines()
        .find(|l| l.contains(" agents "))
        .unwrap_or_else(|| panic!("{report}"));
    assert!(
        agents.starts_with("ok") && agents.contains("11 subagents"),
        "{agents}"
    );
}

#[test]
fn the_lead_hands_work_to_a_bundled_subagent_and_threads_show_shows_it() {
    let dir = tempfile::tempdir().unwrap();
    let server = ScriptedServer::with_responder(|r: &RecordedRequest| {
        let system = r.body["messages"][0]["content"].as_str().unwrap_or("");
        let answered = r.body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["role"] == "tool");
        match (system.contains("You are 同桌 (Deskmate)"), answered) {
            (true, false) => openai::tool_calls(
                None,
                &[(
                    "t1",
                    "task",
                    r#"{"description": "二年级：3盘苹果，每盘4个，一共几个？", "subagent_type": "math-tutor"}"#,
                )],
            ),
            (true, true) => openai::text("数学老师说：一共12个。"),
            (false, _) => openai::text("3×4=12，一共12个。"),
        }
    })
    .unwrap();
    let out = deskmate(dir.path())
        .env("DESKMATE_LLM_API_KEY", "sk-team")
        .args([
            "chat",
            "--model",
            "openai:gpt-4o-mini",
            "--base-url",
            &server.base_url(),
            "苹果有几个？",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("一共12个"));
    // The subagent got the bundled math tutor's instructions, not the lead's.
    let sub = server
        .requests()
        .into_iter()
        .find(|r| {
            !r.body["messages"][0]["content"]
                .as_str()
                .unwrap_or("")
                .contains("You are 同桌")
        })
        .expect("the subagent called the model");
    assert_eq!(
        sub.body["messages"][1]["content"]
            .as_str()
            .map(|s| s.contains("3盘苹果")),
        Some(true)
    );

    let threads = deskmate(dir.path())
        .args(["threads", "list", "--json"])
        .output()
        .unwrap();
    let id = deskmate_testkit::cli::json(&threads.stdout)[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let show = deskmate(dir.path())
        .args(["threads", "show", &id])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&show.stdout);
    assert!(text.contains("┌ math-tutor (completed"), "{text}");
    assert!(text.contains("│ [assistant] 3×4=12"), "{text}");
    // The run's cost counts the subagent's model call (20+10+10 in, 10+5+5 out).
    assert!(
        text.contains("3 model calls, 40 tokens in / 20 out"),
        "{text}"
    );
    assert!(text.contains("with its subagent"), "{text}");
    let json = deskmate_testkit::cli::json(
        &deskmate(dir.path())
            .args(["threads", "show", &id, "--json"])
            .output()
            .unwrap()
            .stdout,
    );
    assert_eq!(json["children"][0]["run"]["parent_tool_call_id"], "t1");
    assert_eq!(json["children"][0]["run"]["agent"], "math-tutor");
    assert_eq!(json["usage"][0]["subagent_runs"], 1);
    assert_eq!(json["usage"][0]["model_calls"], 3);
}

#[test]
fn subagents_can_be_turned_off_and_on() {
    let dir = tempfile::tempdir().unwrap();
    let said = |args: &[&str]| {
        let out = deskmate(dir.path()).args(args).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    assert_eq!(said(&["llm", "subagents"]), "subagents: on");
    assert_eq!(said(&["llm", "subagents", "off"]), "subagents: off");
    assert_eq!(said(&["llm", "subagents"]), "subagents: off");
    assert_eq!(said(&["llm", "subagents", "on"]), "subagents: on");
}

#[test]
fn the_run_s_context_beats_the_profile_s_which_beats_the_defaults() {
    let dir = tempfile::tempdir().unwrap();
    deskmate_testkit::cli::add_child(dir.path());
    let stored = deskmate(dir.path())
        .args([
            "llm",
            "context",
            "--profile",
            "小明",
            r#"{"system_prompt": "PROFILE-PROMPT", "subagents": false}"#,
        ])
        .output()
        .unwrap();
    assert!(
        stored.status.success(),
        "{}",
        String::from_utf8_lossy(&stored.stderr)
    );
    // The model asks for a subagent, then answers with what it got.
    let server = ScriptedServer::with_responder(|r: &RecordedRequest| {
        let results: Vec<String> = r.body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["role"] == "tool")
            .map(|m| m["content"].as_str().unwrap_or("").to_string())
            .collect();
        if results.is_empty() {
            openai::tool_calls(
                None,
                &[(
                    "t1",
                    "task",
                    r#"{"description": "算一算", "subagent_type": "math-tutor"}"#,
                )],
            )
        } else {
            openai::text(&results.join(""))
        }
    })
    .unwrap();
    let chat = |context: &str| {
        deskmate(dir.path())
            .env("DESKMATE_LLM_API_KEY", "sk-context")
            .args([
                "chat",
                "--profile",
                "小明",
                "--model",
                "openai:gpt-4o-mini",
                "--base-url",
                &server.base_url(),
                "--context",
                context,
                "你好",
            ])
            .output()
            .unwrap()
    };
    // The profile's prompt and "no subagents"; the run narrows the tools.
    let out = chat(r#"{"tools": ["read_file"]}"#);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("未开启子代理"));
    let first = &server.requests()[0].body;
    let system = first["messages"][0]["content"].as_str().unwrap();
    assert!(
        system.contains("PROFILE-PROMPT") && system.contains("You are 同桌"),
        "{system}"
    );
    let mut tools: Vec<&str> = first["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    tools.sort();
    assert_eq!(tools, ["read_file", "task"]);
    // The run's own prompt and subagents beat the profile's.
    let before = server.requests().len();
    let out = chat(r#"{"system_prompt": "RUN-PROMPT", "subagents": true}"#);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!String::from_utf8_lossy(&out.stdout).contains("未开启子代理"));
    let system = server.requests()[before].body["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        system.contains("RUN-PROMPT") && !system.contains("PROFILE-PROMPT"),
        "{system}"
    );
    // A tool that does not exist, or JSON that is not a context, is said plainly.
    let bad = chat(r#"{"tools": ["rm_rf"]}"#);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("rm_rf"));
    let bad = chat(r#"{"tool": []}"#);
    assert!(String::from_utf8_lossy(&bad.stderr).contains("not a chat context"));
    // So is a subagent depth out of range (0 would be "no subagents": said so).
    let bad = chat(r#"{"subagent_depth": 0}"#);
    assert!(!bad.status.success());
    let said = String::from_utf8_lossy(&bad.stderr);
    assert!(
        said.contains("subagent_depth must be from 1 to 3")
            && said.contains("\"subagents\": false"),
        "{said}"
    );
    // Cleared: the defaults again.
    let cleared = deskmate(dir.path())
        .args(["llm", "context", "--profile", "小明", "--clear"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&cleared.stdout).contains("defaults apply"));
}

#[test]
fn the_model_comes_from_model_then_the_run_s_context_then_the_profile_s_then_the_setting() {
    let dir = tempfile::tempdir().unwrap();
    deskmate_testkit::cli::add_child(dir.path());
    let server = ScriptedServer::with_responder(|_: &RecordedRequest| openai::text("好")).unwrap();
    let ok = |out: std::process::Output| {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    ok(deskmate(dir.path())
        .args([
            "llm",
            "set",
            "--agree",
            "--model",
            "openai:saved-model",
            "--base-url",
            &server.base_url(),
        ])
        .output()
        .unwrap());
    ok(deskmate(dir.path())
        .args([
            "llm",
            "context",
            "--profile",
            "小明",
            r#"{"model": "openai:profile-model"}"#,
        ])
        .output()
        .unwrap());
    // Chats with these extra arguments; the model each one called.
    let model_of = |extra: &[&str]| {
        let before = server.requests().len();
        let mut args = vec!["chat"];
        args.extend_from_slice(extra);
        args.push("你好");
        ok(deskmate(dir.path())
            .env("DESKMATE_LLM_API_KEY", "sk-models")
            .args(&args)
            .output()
            .unwrap());
        let requests = server.requests();
        assert_eq!(requests.len(), before + 1);
        requests[before].body["model"].as_str().unwrap().to_string()
    };
    // No profile: the saved setting.
    assert_eq!(model_of(&[]), "saved-model");
    // The profile's stored context beats the setting, with no --model.
    assert_eq!(model_of(&["--profile", "小明"]), "profile-model");
    // The run's --context beats the profile's.
    let run_context = r#"{"model": "openai:run-model"}"#;
    assert_eq!(
        model_of(&["--profile", "小明", "--context", run_context]),
        "run-model"
    );
    // --model beats every context.
    assert_eq!(
        model_of(&[
            "--profile",
            "小明",
            "--context",
            run_context,
            "--model",
            "openai:flag-model"
        ]),
        "flag-model"
    );
}
