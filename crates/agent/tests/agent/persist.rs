//! The step writes that share one transaction, on a real SQLite file: a
//! model reply with its call record, and a tool result with the thread
//! state it changed — each lands whole, in order, and a call is answered
//! only once.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use deskmate_agent::persist::{self, LlmCallRecord, ToolCallStatus};
use deskmate_agent::{ThreadState, Todo, TodoStatus};
use deskmate_llm::{Message, Role, ToolCall, Usage};
use deskmate_store::Store;

fn record(thread_id: &str, run_id: &str, tokens: u64) -> LlmCallRecord {
    LlmCallRecord {
        thread_id: thread_id.into(),
        run_id: run_id.into(),
        model: "openai:m".into(),
        status: "completed",
        usage: Usage {
            input_tokens: tokens,
            output_tokens: 1,
            cached_input_tokens: 0,
        },
        cost_usd: None,
        duration_ms: 3,
        error: None,
    }
}

#[test]
fn a_reply_and_a_result_land_whole_with_their_records() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("db.sqlite3")).unwrap();
    let thread = persist::create_thread(&store, None, "t").unwrap();
    let run = persist::start_run(&store, &thread.id, "openai:m").unwrap();
    persist::insert_message(
        &store,
        &thread.id,
        Some(&run.id),
        None,
        &Message::user("hi"),
    )
    .unwrap();

    // A call with nothing said stores its record only.
    persist::store_model_reply(&store, &record(&thread.id, &run.id, 5), None).unwrap();
    assert_eq!(persist::messages(&store, &thread.id).unwrap().len(), 1);

    let calls = vec![ToolCall {
        id: "c1".into(),
        name: "write_todos".into(),
        arguments: "{}".into(),
    }];
    let reply = Message::assistant("plan", calls);
    persist::store_model_reply(
        &store,
        &record(&thread.id, &run.id, 7),
        Some(("m1", &reply)),
    )
    .unwrap();
    let (usage, _, n) = persist::run_usage(&store, &run.id).unwrap();
    assert_eq!((usage.input_tokens, n), (12, 2));
    let stored = persist::messages(&store, &thread.id).unwrap();
    assert_eq!(stored.len(), 2);
    assert_eq!(
        (stored[1].id.as_str(), stored[1].seq, &stored[1].message),
        ("m1", 2, &reply)
    );
    let pending = persist::tool_calls(&store, &thread.id).unwrap();
    assert_eq!(
        (pending.len(), pending[0].status),
        (1, ToolCallStatus::Pending)
    );

    let state = ThreadState {
        todos: vec![Todo {
            content: "read".into(),
            status: TodoStatus::InProgress,
        }],
        ..Default::default()
    };
    let m = persist::store_tool_result(
        &store,
        &thread.id,
        Some(&run.id),
        "c1",
        "done",
        ToolCallStatus::Completed,
        Some(&state),
    )
    .unwrap()
    .unwrap();
    assert_eq!((m.seq, m.message.role), (3, Role::Tool));
    assert_eq!(persist::load_state(&store, &thread.id).unwrap(), state);
    let call = &persist::tool_calls(&store, &thread.id).unwrap()[0];
    assert_eq!(
        (call.status, call.result.as_deref()),
        (ToolCallStatus::Completed, Some("done"))
    );

    // A second answer is refused and changes nothing.
    let again = persist::finish_tool_call(
        &store,
        &thread.id,
        Some(&run.id),
        "c1",
        "late",
        ToolCallStatus::Error,
    )
    .unwrap();
    assert!(again.is_none());
    assert_eq!(persist::messages(&store, &thread.id).unwrap().len(), 3);
    assert_eq!(
        persist::tool_calls(&store, &thread.id).unwrap()[0]
            .result
            .as_deref(),
        Some("done")
    );
}

#[test]
fn a_failed_reply_write_leaves_no_record_behind() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("db.sqlite3")).unwrap();
    let thread = persist::create_thread(&store, None, "t").unwrap();
    let run = persist::start_run(&store, &thread.id, "openai:m").unwrap();
    let calls = vec![ToolCall {
        id: "c1".into(),
        name: "ls".into(),
        arguments: "{}".into(),
    }];
    persist::store_model_reply(
        &store,
        &record(&thread.id, &run.id, 1),
        Some(("m1", &Message::assistant("", calls.clone()))),
    )
    .unwrap();
    // The same message id again violates the key: the call record written
    // before it in that transaction must be rolled back with it.
    let err = persist::store_model_reply(
        &store,
        &record(&thread.id, &run.id, 1),
        Some(("m1", &Message::assistant("", calls))),
    );
    assert!(err.is_err());
    let (_, _, n) = persist::run_usage(&store, &run.id).unwrap();
    assert_eq!(n, 1);
}

#[test]
fn a_threads_metadata_is_kept_and_deleting_it_takes_its_history() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("t.db")).unwrap();
    let thread = persist::create_thread(&store, None, "t").unwrap();
    assert_eq!(
        persist::thread_metadata(&store, &thread.id).unwrap(),
        serde_json::json!({})
    );
    let mut meta = serde_json::Map::new();
    meta.insert("suite".into(), "api".into());
    persist::set_thread_metadata(&store, &thread.id, &meta).unwrap();
    assert_eq!(
        persist::thread_metadata(&store, &thread.id).unwrap(),
        serde_json::json!({"suite": "api"})
    );
    let run = persist::start_run(&store, &thread.id, "m").unwrap();
    persist::insert_message(
        &store,
        &thread.id,
        Some(&run.id),
        None,
        &Message::user("hi"),
    )
    .unwrap();

    persist::delete_thread(&store, &thread.id).unwrap();
    assert_eq!(
        persist::get_thread(&store, &thread.id).unwrap_err().code(),
        "not_found"
    );
    assert!(
        persist::get_run(&store, &run.id).is_err(),
        "its runs go with it"
    );
    let left: i64 = store
        .with_conn(|c| Ok(c.query_row("SELECT count(*) FROM messages", [], |r| r.get(0))?))
        .unwrap();
    assert_eq!(left, 0, "and its messages");
    // Gone is gone: deleting or labelling it again says not found.
    assert_eq!(
        persist::delete_thread(&store, &thread.id)
            .unwrap_err()
            .code(),
        "not_found"
    );
    assert_eq!(
        persist::set_thread_metadata(&store, &thread.id, &meta)
            .unwrap_err()
            .code(),
        "not_found"
    );
}

#[test]
fn discarding_a_run_takes_what_it_and_its_subagents_wrote_and_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("db.sqlite3")).unwrap();
    let thread = persist::create_thread(&store, None, "t").unwrap();
    let kept = persist::start_run(&store, &thread.id, "openai:m").unwrap();
    persist::insert_message(
        &store,
        &thread.id,
        Some(&kept.id),
        None,
        &Message::user("第一"),
    )
    .unwrap();
    persist::finish_run(&store, &kept.id, persist::RunStatus::Completed, None).unwrap();

    let run = persist::start_run(&store, &thread.id, "openai:m").unwrap();
    persist::insert_message(
        &store,
        &thread.id,
        Some(&run.id),
        None,
        &Message::user("第二"),
    )
    .unwrap();
    let reply = Message::assistant(
        "",
        vec![ToolCall {
            id: "c1".into(),
            name: "task".into(),
            arguments: "{}".into(),
        }],
    );
    persist::store_model_reply(
        &store,
        &record(&thread.id, &run.id, 4),
        Some(("m2", &reply)),
    )
    .unwrap();
    // A subagent's run under it, with a message of its own.
    let sub = persist::start_run(&store, &thread.id, "openai:m").unwrap();
    store
        .with_conn(|c| {
            c.execute(
                "UPDATE runs SET parent_run_id = ?1 WHERE id = ?2",
                [&run.id, &sub.id],
            )?;
            Ok(())
        })
        .unwrap();
    persist::insert_message(
        &store,
        &thread.id,
        Some(&sub.id),
        None,
        &Message::user("子任务"),
    )
    .unwrap();

    // Refused while it runs.
    let err = persist::discard_run(&store, &run.id).unwrap_err();
    assert_eq!(err.code(), "invalid");
    persist::finish_run(&store, &sub.id, persist::RunStatus::Completed, None).unwrap();
    persist::finish_run(&store, &run.id, persist::RunStatus::Cancelled, None).unwrap();

    persist::discard_run(&store, &run.id).unwrap();
    let left: Vec<String> = persist::messages(&store, &thread.id)
        .unwrap()
        .iter()
        .map(|m| m.message.text())
        .collect();
    assert_eq!(left, ["第一"]);
    let runs: Vec<String> = persist::runs(&store, &thread.id)
        .unwrap()
        .into_iter()
        .map(|r| r.id)
        .collect();
    assert_eq!(runs, [kept.id]);
    assert!(persist::tool_calls(&store, &thread.id).unwrap().is_empty());
    // The model call it made stays, for usage and cost.
    let calls: i64 = store
        .with_conn(|c| Ok(c.query_row("SELECT count(*) FROM llm_calls", [], |r| r.get(0))?))
        .unwrap();
    assert_eq!(calls, 1);
    assert_eq!(
        persist::discard_run(&store, &run.id).unwrap_err().code(),
        "not_found"
    );
}
