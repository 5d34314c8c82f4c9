//! The OpenAPI document's schemas against real answers: a scripted model
//! drives threads, runs (one paused for an approval and resumed), state,
//! history, background runs, a recitation check and task and a routine
//! list through the router, and each JSON answer (and each request body
//! sent) is validated with the `jsonschema` crate against the schema the
//! document gives its route — so a type and the wire cannot part.

use reqwest::Method;
use serde_json::{json, Value};

use super::{server, TOKEN};

/// The model: asked for a plan it calls `write_todos`, then answers;
/// anything else is answered "pong".
fn planning_model() -> deskmate_llm::scripted::ScriptedServer {
    use deskmate_llm::scripted::{openai, ScriptedServer};
    ScriptedServer::with_responder(|req| {
        let last = req.body["messages"]
            .as_array()
            .and_then(|m| m.last())
            .cloned()
            .unwrap_or_default();
        if last["role"] == "tool" {
            openai::text("计划好了。")
        } else if last["content"].to_string().contains("计划") {
            openai::tool_calls(
                None,
                &[(
                    "call_plan",
                    "write_todos",
                    r#"{"todos":[{"content":"读一遍","status":"pending"}]}"#,
                )],
            )
        } else {
            openai::text("pong")
        }
    })
    .unwrap()
}

/// The document and a client that validates against it.
struct Checker {
    doc: Value,
    http: reqwest::Client,
    base: String,
    checked: usize,
}

impl Checker {
    /// `schema` (from the document) made a standalone schema: its `$ref`s
    /// point into the document's components, which come along.
    fn validator(&self, schema: &Value) -> jsonschema::Validator {
        let whole = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "allOf": [schema],
            "components": self.doc["components"],
        });
        jsonschema::validator_for(&whole).unwrap()
    }

    fn problems(&self, schema: &Value, instance: &Value) -> Vec<String> {
        self.validator(schema)
            .iter_errors(instance)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect()
    }

    /// Sends `body` to `method path` (`route` is the document's path) and
    /// checks the body against the request schema and the answer against
    /// the response schema of its status.
    async fn call(&mut self, method: &str, route: &str, path: &str, body: Option<Value>) -> Value {
        let op = self.doc["paths"][route][method.to_lowercase()].clone();
        assert!(op.is_object(), "{method} {route} is not in the document");
        let mut req = self
            .http
            .request(
                Method::from_bytes(method.as_bytes()).unwrap(),
                format!("{}{path}", self.base),
            )
            .header("x-api-key", TOKEN);
        if let Some(b) = &body {
            let schema = &op["requestBody"]["content"]["application/json"]["schema"];
            assert!(schema.is_object(), "{method} {route} takes no body");
            let wrong = self.problems(schema, b);
            assert!(wrong.is_empty(), "{method} {route} request: {wrong:?}");
            req = req.json(b);
        }
        let res = req.send().await.unwrap();
        let status = res.status().as_u16().to_string();
        let answer: Value = res.json().await.unwrap();
        let answered = if op["responses"][&status].is_object() {
            &op["responses"][&status]
        } else {
            &op["responses"]["default"]
        };
        let schema = &answered["content"]["application/json"]["schema"];
        assert!(schema.is_object(), "{method} {route} {status}: no schema");
        let wrong = self.problems(schema, &answer);
        assert!(
            wrong.is_empty(),
            "{method} {path} answered {status} against the document: {wrong:?}\n{answer:#}"
        );
        self.checked += 1;
        answer
    }
}

#[tokio::test]
async fn real_answers_match_the_documents_schemas() {
    let model = planning_model();
    std::env::set_var("DESKMATE_LLM_API_KEY", "sk-api-test");
    let s = server().await;
    s.app
        .chat()
        .save_llm_settings("openai:scripted", Some(&model.base_url()))
        .unwrap();
    s.app.chat().agree_model_notice().unwrap();
    let http = reqwest::Client::new();
    let base = format!("http://{}", s.addr);
    let doc: Value = http
        .get(format!("{base}/openapi.json"))
        .header("x-api-key", TOKEN)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let mut c = Checker {
        doc,
        http,
        base,
        checked: 0,
    };

    c.call("GET", "/ok", "/ok", None).await;
    c.call("GET", "/info", "/info", None).await;
    c.call("GET", "/assistants", "/assistants", None).await;
    let found = c
        .call(
            "POST",
            "/assistants/search",
            "/assistants/search",
            Some(json!({"limit": 5})),
        )
        .await;
    assert_eq!(found.as_array().unwrap().len(), 1);
    c.call(
        "GET",
        "/assistants/{assistant_id}",
        "/assistants/companion",
        None,
    )
    .await;

    let thread = c
        .call(
            "POST",
            "/threads",
            "/threads",
            Some(json!({"metadata": {"topic": "静夜思"}, "initial_state": {"vars": {"mood": "good"}}})),
        )
        .await;
    let tid = thread["thread_id"].as_str().unwrap().to_string();
    let t = |rest: &str| format!("/threads/{tid}{rest}");

    // A run paused for an approval: the values carry `__interrupt__`.
    let paused = c
        .call(
            "POST",
            "/threads/{thread_id}/runs/wait",
            &t("/runs/wait"),
            Some(json!({
                "assistant_id": "companion",
                "input": {"messages": [{"role": "user", "content": "帮我做个计划"}]},
                "context": {"approvals": ["write_todos"]},
            })),
        )
        .await;
    assert_eq!(paused["__interrupt__"][0]["value"]["tool"], "write_todos");
    let waiting = c.call("GET", "/threads/{thread_id}", &t(""), None).await;
    assert_eq!(waiting["status"], "interrupted");
    let state = c
        .call("GET", "/threads/{thread_id}/state", &t("/state"), None)
        .await;
    assert_eq!(state["next"], json!(["tools"]));
    assert_eq!(state["tasks"][0]["interrupts"][0]["id"], "call_plan");

    // Resumed: the plan is written and the model answers.
    let done = c
        .call(
            "POST",
            "/threads/{thread_id}/runs/wait",
            &t("/runs/wait"),
            Some(json!({"assistant_id": "companion", "command": {"resume": "approve"}})),
        )
        .await;
    assert_eq!(done["todos"][0]["content"], "读一遍");
    assert!(done.get("__interrupt__").is_none());

    c.call(
        "PATCH",
        "/threads/{thread_id}",
        &t(""),
        Some(json!({"metadata": {"topic": null, "level": 2}})),
    )
    .await;
    let all = c
        .call(
            "POST",
            "/threads/search",
            "/threads/search",
            Some(json!({"status": "idle"})),
        )
        .await;
    assert_eq!(all.as_array().unwrap().len(), 1);
    let history = c
        .call(
            "POST",
            "/threads/{thread_id}/history",
            &t("/history"),
            Some(json!({"limit": 5})),
        )
        .await;
    // The resume continued the paused run: one run, one checkpoint.
    assert_eq!(history.as_array().unwrap().len(), 1);
    c.call("GET", "/threads/{thread_id}/history", &t("/history"), None)
        .await;
    c.call(
        "PUT",
        "/threads/{thread_id}/state",
        &t("/state"),
        Some(json!({"state": {"vars": {"mood": "tired"}}})),
    )
    .await;
    c.call(
        "POST",
        "/threads/{thread_id}/state",
        &t("/state"),
        Some(json!({"values": {"lesson": 3}})),
    )
    .await;

    // A background run, got, listed and joined.
    let run = c
        .call(
            "POST",
            "/threads/{thread_id}/runs",
            &t("/runs"),
            Some(json!({"assistant_id": "companion", "input": {"messages": [{"role": "user", "content": "你好"}]}})),
        )
        .await;
    let rid = run["run_id"].as_str().unwrap().to_string();
    let joined = c
        .call(
            "GET",
            "/threads/{thread_id}/runs/{run_id}/join",
            &t(&format!("/runs/{rid}/join")),
            None,
        )
        .await;
    assert_eq!(
        joined["messages"].as_array().unwrap().last().unwrap()["content"],
        "pong"
    );
    c.call(
        "GET",
        "/threads/{thread_id}/runs/{run_id}",
        &t(&format!("/runs/{rid}")),
        None,
    )
    .await;
    let runs = c
        .call("GET", "/threads/{thread_id}/runs", &t("/runs"), None)
        .await;
    assert_eq!(runs.as_array().unwrap().len(), 2);

    // The deep-agents dialect's one answer, and a stateless run.
    c.call(
        "POST",
        "/threads/{thread_id}/runs/stream",
        &t("/runs/stream"),
        Some(json!({"input": {"messages": [{"role": "user", "content": "再说一次"}]}, "stream": false})),
    )
    .await;
    c.call(
        "POST",
        "/runs/wait",
        "/runs/wait",
        Some(json!({"assistant_id": "companion", "input": {"messages": [{"role": "user", "content": "你好"}]}})),
    )
    .await;

    // A typed recitation check, and as a task.
    let check = json!({"reference": "床前明月光", "transcript": "床前明月光"});
    let checked = c
        .call(
            "POST",
            "/recitation/check",
            "/recitation/check",
            Some(check.clone()),
        )
        .await;
    assert_eq!(checked["passed"], true);
    let filed = c
        .call(
            "POST",
            "/recitation/tasks",
            "/recitation/tasks",
            Some(check),
        )
        .await;
    let task = format!("/recitation/tasks/{}", filed["task_id"].as_str().unwrap());
    c.call("GET", "/recitation/tasks/{task_id}", &task, None)
        .await;
    c.call("GET", "/workflows", "/workflows", None).await;

    // Errors answer the error shape.
    let missing = c
        .call(
            "GET",
            "/threads/{thread_id}",
            "/threads/no-such-thread",
            None,
        )
        .await;
    assert_eq!(missing["code"], "not_found");
    assert_eq!(c.checked, 27);

    // And the schemas are strict enough to catch a wrong answer.
    let thread_schema = &c.doc["paths"]["/threads/{thread_id}"]["get"]["responses"]["200"]
        ["content"]["application/json"]["schema"];
    let mut wrong = waiting.clone();
    wrong["status"] = json!("sleeping");
    assert!(!c.problems(thread_schema, &wrong).is_empty());
    let mut wrong = waiting;
    wrong.as_object_mut().unwrap().remove("values");
    assert!(!c.problems(thread_schema, &wrong).is_empty());
}
