//! AG-UI interrupts over `POST /ag-ui`: a run that pauses for a parent's
//! approval ends with AG-UI 1.0's interrupt outcome, and a second request
//! whose `resume` answers it continues the same core run on the same
//! thread; resumes that answer nothing, a stray interrupt or only some of
//! them are refused before anything is decided.

use serde_json::{json, Value};

use super::{server, TOKEN};

/// Asked for a plan the model calls `write_todos`; after the call's result
/// it says whether it ran.
fn planning_model() -> deskmate_llm::scripted::ScriptedServer {
    use deskmate_llm::scripted::{openai, ScriptedServer};
    ScriptedServer::with_responder(|req| {
        let last = req.body["messages"]
            .as_array()
            .and_then(|m| m.last())
            .cloned()
            .unwrap_or_default();
        if last["role"] == "tool" {
            let said = last["content"].to_string();
            if said.contains("not run") || said.contains("cancelled") || said.contains("no") {
                openai::text("那就不做计划了。")
            } else {
                openai::text("计划好了。")
            }
        } else {
            openai::tool_calls(
                None,
                &[(
                    "call_plan",
                    "write_todos",
                    r#"{"todos":[{"content":"读一遍","status":"pending"}]}"#,
                )],
            )
        }
    })
    .unwrap()
}

/// Posts `body` to `/ag-ui`: the status and, for a stream, its events.
async fn ag_ui(base: &str, body: Value) -> (u16, Vec<Value>, Value) {
    let res = reqwest::Client::new()
        .post(format!("{base}/ag-ui"))
        .header("authorization", format!("Bearer {TOKEN}"))
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = res.status().as_u16();
    let text = res.text().await.unwrap();
    if status != 200 {
        return (status, vec![], serde_json::from_str(&text).unwrap());
    }
    let events = text
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .map(|d| serde_json::from_str(d).unwrap())
        .collect();
    (status, events, Value::Null)
}

fn input(run_id: &str) -> Value {
    input_on("agui-thread", run_id)
}

fn input_on(thread: &str, run_id: &str) -> Value {
    json!({
        "threadId": thread,
        "runId": run_id,
        "messages": [{"id": "u1", "role": "user", "content": "帮我做个计划"}],
        "tools": [], "context": [], "state": {},
        "forwardedProps": {"approvals": ["write_todos"]},
    })
}

fn resume(run_id: &str, entries: Value) -> Value {
    let mut body = input(run_id);
    body["resume"] = entries;
    body
}

fn kinds(events: &[Value]) -> Vec<&str> {
    events.iter().map(|e| e["type"].as_str().unwrap()).collect()
}

#[tokio::test]
async fn an_interrupted_ag_ui_run_is_resumed_by_a_second_request() {
    let model = planning_model();
    std::env::set_var("DESKMATE_LLM_API_KEY", "sk-api-test");
    let s = server().await;
    s.app
        .chat()
        .save_llm_settings("openai:scripted", Some(&model.base_url()))
        .unwrap();
    s.app.chat().agree_model_notice().unwrap();
    let base = format!("http://{}", s.addr);

    // Nothing paused yet: a resume has nothing to answer.
    let (status, _, err) = ag_ui(
        &base,
        resume(
            "r0",
            json!([{"interruptId": "call_plan", "status": "resolved"}]),
        ),
    )
    .await;
    assert_eq!(
        (status, err["code"].as_str()),
        (404, Some("not_found")),
        "{err}"
    );

    let (status, events, _) = ag_ui(&base, input("client-run-1")).await;
    assert_eq!(status, 200);
    let last = events.last().unwrap();
    assert_eq!(last["type"], "RUN_FINISHED", "{events:?}");
    assert_eq!(last["runId"], "client-run-1");
    assert_eq!(last["outcome"]["type"], "interrupt", "{last}");
    let interrupt = &last["outcome"]["interrupts"][0];
    assert_eq!(interrupt["id"], "call_plan");
    assert_eq!(interrupt["toolCallId"], "call_plan");
    assert_eq!(interrupt["reason"], "tool_approval");
    let store = s.app.store().clone();
    let lead_runs = || {
        store
            .with_conn(|c| {
                Ok(c.query_row(
                    "SELECT count(*) FROM runs WHERE parent_run_id IS NULL",
                    [],
                    |r| r.get::<_, i64>(0),
                )?)
            })
            .unwrap()
    };
    assert_eq!(lead_runs(), 1);

    // Refused before anything is decided: a stray id, an entry missing.
    let (status, _, err) = ag_ui(
        &base,
        resume(
            "r1",
            json!([
                {"interruptId": "call_plan", "status": "resolved"},
                {"interruptId": "call_other", "status": "resolved"},
            ]),
        ),
    )
    .await;
    assert_eq!(status, 422, "{err}");
    assert!(err["message"].as_str().unwrap().contains("call_other"));
    let (status, _, err) = ag_ui(
        &base,
        resume(
            "r1",
            json!([{"interruptId": "call_plan", "status": "resolved", "payload": 7}]),
        ),
    )
    .await;
    assert_eq!(status, 422, "{err}");
    let waiting = persist::open_approvals(&s.app);
    assert_eq!(waiting, vec![("call_plan".to_string(), None)]);

    // The decision continues the same run on the same thread.
    let (status, events, _) = ag_ui(
        &base,
        resume(
            "client-run-2",
            json!([{"interruptId": "call_plan", "status": "resolved", "payload": {"approved": true}}]),
        ),
    )
    .await;
    assert_eq!(status, 200);
    let k = kinds(&events);
    assert_eq!(k.first(), Some(&"RUN_STARTED"), "{k:?}");
    assert!(k.contains(&"TOOL_CALL_RESULT"), "{k:?}");
    assert_eq!(events[0]["runId"], "client-run-2");
    assert_eq!(events[0]["threadId"], "agui-thread");
    let said: String = events
        .iter()
        .filter(|e| e["type"] == "TEXT_MESSAGE_CONTENT")
        .map(|e| e["delta"].as_str().unwrap())
        .collect();
    assert_eq!(said, "计划好了。");
    let last = events.last().unwrap();
    assert_eq!(last["type"], "RUN_FINISHED");
    assert_ne!(last["outcome"]["type"], "interrupt", "{last}");
    assert_eq!(lead_runs(), 1, "the paused run went on: no second run");
    assert_eq!(
        persist::open_approvals(&s.app),
        vec![("call_plan".to_string(), Some("approve".to_string()))]
    );

    // Answered: nothing waits any more.
    let (status, _, err) = ag_ui(
        &base,
        resume(
            "r3",
            json!([{"interruptId": "call_plan", "status": "resolved"}]),
        ),
    )
    .await;
    assert_eq!(
        (status, err["code"].as_str()),
        (409, Some("conflict")),
        "{err}"
    );

    // Paused on another thread and cancelled: the call is refused, the
    // model told.
    let (_, events, _) = ag_ui(&base, input_on("agui-thread-2", "client-run-4")).await;
    assert_eq!(events.last().unwrap()["outcome"]["type"], "interrupt");
    let mut cancel = input_on("agui-thread-2", "client-run-5");
    cancel["resume"] = json!([{"interruptId": "call_plan", "status": "cancelled"}]);
    let (status, events, _) = ag_ui(&base, cancel).await;
    assert_eq!(status, 200);
    let said: String = events
        .iter()
        .filter(|e| e["type"] == "TEXT_MESSAGE_CONTENT")
        .map(|e| e["delta"].as_str().unwrap())
        .collect();
    assert_eq!(said, "那就不做计划了。");
    assert_eq!(lead_runs(), 2);
}

/// Reading the approvals table.
mod persist {
    use deskmate_app::Deskmate;

    /// Every approval of the store: its call and its decision.
    pub fn open_approvals(app: &Deskmate) -> Vec<(String, Option<String>)> {
        app.store()
            .with_conn(|c| {
                let mut q =
                    c.prepare("SELECT tool_call_id, decision FROM approvals ORDER BY rowid")?;
                let rows = q
                    .query_map([], |r| {
                        Ok((r.get::<_, String>(0)?, r.get::<_, Option<String>>(1)?))
                    })?
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(rows)
            })
            .unwrap()
    }
}

/// Supervisor mode over AG-UI: each hand-off a step with the agent's reply
/// inside; refused before the stream without a model's agreement, and a
/// mode it does not know is named.
#[tokio::test]
async fn a_supervisor_run_streams_each_hand_off_as_a_step_with_the_reply() {
    use deskmate_llm::scripted::{openai, ScriptedServer};
    let next = |agent: &str| {
        openai::tool_calls(
            None,
            &[("c", "choose_next", &format!(r#"{{"next": "{agent}"}}"#))],
        )
    };
    let model = ScriptedServer::start(vec![
        next("poetry-tutor"),
        openai::text("《静夜思》写的是想家。"),
        next("__end__"),
    ])
    .unwrap();
    std::env::set_var("DESKMATE_LLM_API_KEY", "sk-api-test");
    let s = server().await;
    let base = format!("http://{}", s.addr);
    let mut body = input_on("supervised", "sup-run-1");
    body["forwardedProps"] = json!({"mode": "supervisor"});

    // No model yet: refused with the core's code, before any stream.
    let (status, _, err) = ag_ui(&base, body.clone()).await;
    assert_eq!(
        (status, err["code"].as_str()),
        (409, Some("llm.no_model")),
        "{err}"
    );
    s.app
        .chat()
        .save_llm_settings("openai:scripted", Some(&model.base_url()))
        .unwrap();
    // Set up but not agreed to: still refused, and the model never asked.
    let (status, _, err) = ag_ui(&base, body.clone()).await;
    assert_eq!(
        (status, err["code"].as_str()),
        (409, Some("llm.notice_not_agreed")),
        "{err}"
    );
    assert_eq!(model.request_count(), 0);
    s.app.chat().agree_model_notice().unwrap();

    let (status, events, _) = ag_ui(&base, body.clone()).await;
    assert_eq!(status, 200);
    let shown: Vec<String> = events
        .iter()
        .map(|e| {
            let kind = e["type"].as_str().unwrap();
            match kind {
                "STEP_STARTED" | "STEP_FINISHED" => {
                    format!("{kind} {}", e["stepName"].as_str().unwrap())
                }
                "TEXT_MESSAGE_CONTENT" => format!("said {}", e["delta"].as_str().unwrap()),
                other => other.to_string(),
            }
        })
        .collect();
    assert_eq!(
        shown,
        [
            "RUN_STARTED",
            "STEP_STARTED poetry-tutor",
            "TEXT_MESSAGE_START",
            "said 《静夜思》写的是想家。",
            "TEXT_MESSAGE_END",
            "STEP_FINISHED poetry-tutor",
            "RUN_FINISHED"
        ]
    );
    assert_eq!(events[0]["threadId"], "supervised");
    let last = events.last().unwrap();
    assert_eq!(last["runId"], "sup-run-1");
    assert_eq!(last["result"]["rounds"], 1);
    assert!(
        last["result"]["ending"]
            .as_str()
            .unwrap()
            .contains("finished"),
        "{last}"
    );
    assert_eq!(model.request_count(), 3);

    body["forwardedProps"] = json!({"mode": "swarm"});
    let (status, _, err) = ag_ui(&base, body).await;
    assert_eq!(status, 422);
    assert!(
        err["message"].as_str().unwrap().contains("supervisor"),
        "{err}"
    );
}
