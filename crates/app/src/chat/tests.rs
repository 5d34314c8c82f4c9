//! The chat service's tests: its run handles and the thread views it builds.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use super::*;

#[test]
fn runs_are_the_handles_own() {
    let runs = ChatRuns::default();
    let shared = runs.clone();
    let other = ChatRuns::default();
    let stop = CancellationToken::new();
    runs.insert("run-1", stop.clone());
    assert!(!other.cancel("run-1"), "another handle cannot stop it");
    assert!(!stop.is_cancelled());
    assert!(shared.cancel("run-1"), "a clone of the handle can");
    assert!(stop.is_cancelled());
    runs.remove("run-1");
    assert!(!shared.cancel("run-1"), "an ended run is gone");
}

#[test]
fn a_thread_view_lists_its_runs_with_what_each_cost_and_which_was_cut_off() {
    let dir = tempfile::tempdir().unwrap();
    let app = Deskmate::open(crate::Config::in_dir(dir.path())).unwrap();
    let store = app.store();
    let thread = persist::create_thread(store, None, "作业").unwrap();
    let call = |run_id: &str, input_tokens, cost| persist::LlmCallRecord {
        thread_id: thread.id.clone(),
        run_id: run_id.to_string(),
        model: "openai:gpt-4o-mini".into(),
        status: "completed",
        usage: deskmate_llm::Usage {
            input_tokens,
            output_tokens: 10,
            cached_input_tokens: 0,
        },
        cost_usd: Some(cost),
        duration_ms: 5,
        error: None,
    };
    let done = persist::start_run(store, &thread.id, "openai:gpt-4o-mini").unwrap();
    persist::record_llm_call(store, &call(&done.id, 100, 0.001)).unwrap();
    persist::record_llm_call(store, &call(&done.id, 200, 0.002)).unwrap();
    persist::finish_run(store, &done.id, persist::RunStatus::Completed, None).unwrap();
    let cut = persist::start_run(store, &thread.id, "openai:gpt-4o-mini").unwrap();
    persist::record_llm_call(store, &call(&cut.id, 50, 0.0005)).unwrap();
    persist::interrupt_run(store, &cut).unwrap();

    let view = app.chat().thread_view(&thread.id).unwrap();
    let runs: Vec<_> = view
        .runs
        .iter()
        .map(|r| (r.id.as_str(), r.status, r.model_calls, r.input_tokens))
        .collect();
    assert_eq!(
        runs,
        [
            (done.id.as_str(), protocol::ChatRunStatus::Completed, 2, 300),
            (cut.id.as_str(), protocol::ChatRunStatus::Interrupted, 1, 50),
        ]
    );
    assert!((view.runs[0].cost_usd - 0.003).abs() < 1e-9);
    assert_eq!(view.runs[0].output_tokens, 20);
}

#[tokio::test]
async fn a_subagent_on_the_leads_provider_reaches_the_configured_address() {
    use deskmate_llm::scripted::{openai, ScriptedServer};
    let server = ScriptedServer::start(vec![openai::text("好")]).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let app = Deskmate::open(crate::Config::in_dir(dir.path())).unwrap();
    app.chat()
        .save_llm_settings("openai:lead-model", Some(&server.base_url()))
        .unwrap();
    app.chat().agree_model_notice().unwrap();
    let make = subagent_models(app.store().clone(), None);
    let client = make("openai:tutor-model").unwrap();
    let req = ChatRequest {
        messages: vec![Message::user("hi")],
        ..Default::default()
    };
    let done = client.complete(&req).await.unwrap();
    assert_eq!(done.text, "好");
    assert_eq!(server.requests()[0].body["model"], "tutor-model");
    assert!(make("not a model").is_err());
    // Another provider is reached at its own address, which the parent did
    // not agree to: refused, naming it.
    let err = make("anthropic:claude-3-5-haiku-latest").unwrap_err();
    assert!(err.contains("https://api.anthropic.com/v1"), "{err}");
    assert!(err.contains("agree"), "{err}");
}

#[test]
fn a_thread_view_has_each_messages_text_its_calls_and_failed_results() {
    use deskmate_llm::{Message, ToolCall};
    let dir = tempfile::tempdir().unwrap();
    let app = Deskmate::open(crate::Config::in_dir(dir.path())).unwrap();
    let store = app.store();
    let thread = persist::create_thread(store, None, "作业").unwrap();
    let call = ToolCall {
        id: "c1".into(),
        name: "read_file".into(),
        arguments: r#"{"path":"a.md"}"#.into(),
    };
    for m in [
        Message::user("帮我看看 a.md"),
        Message::assistant("", vec![call]),
        Message::tool_result("c1", "Error: no such file", true),
        Message::assistant("没有这个文件。", vec![]),
    ] {
        persist::insert_message(store, &thread.id, None, None, &m).unwrap();
    }
    let view = app.chat().thread_view(&thread.id).unwrap();
    let shown: Vec<_> = view
        .messages
        .iter()
        .map(|m| (m.role, m.content.as_str(), m.is_error))
        .collect();
    assert_eq!(
        shown,
        [
            (protocol::ChatRole::User, "帮我看看 a.md", false),
            (protocol::ChatRole::Assistant, "", false),
            (protocol::ChatRole::Tool, "Error: no such file", true),
            (protocol::ChatRole::Assistant, "没有这个文件。", false),
        ]
    );
    assert!(view.runs.is_empty(), "no run was started");
    let calls = view.messages[1].tool_calls.as_ref().unwrap();
    assert_eq!(
        (calls[0].id.as_str(), calls[0].name.as_str()),
        ("c1", "read_file")
    );
    assert_eq!(view.messages[2].tool_call_id.as_deref(), Some("c1"));
    assert_eq!(view.tool_calls.len(), 1);
}
