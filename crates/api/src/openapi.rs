//! The API's OpenAPI 3.1 document, served at `GET /openapi.json`: every
//! route with its summary, path parameters, the two ways of sending the
//! token, and the error shape. It is written from [`ROUTES`], the table the
//! tests check against the router (each listed route is served), not
//! generated from the request and response types: their schemas are not in
//! it yet.

use serde_json::{json, Map, Value};

/// Every route: method, path (axum's `{param}` syntax, as OpenAPI's), summary.
pub const ROUTES: &[(&str, &str, &str)] = &[
    ("get", "/ok", "Health (no token)"),
    ("get", "/info", "Version and flags"),
    ("get", "/openapi.json", "This document"),
    (
        "get",
        "/events",
        "The core's events as server-sent events, named by channel",
    ),
    (
        "get",
        "/assistants",
        "The assistants with model and tools (deep-agents dialect)",
    ),
    (
        "post",
        "/assistants/search",
        "Search assistants (the companion)",
    ),
    ("get", "/assistants/{assistant_id}", "One assistant"),
    (
        "post",
        "/threads",
        "Create a thread (metadata, initial_state)",
    ),
    (
        "post",
        "/threads/search",
        "Search threads by metadata, status, ids",
    ),
    (
        "get",
        "/threads/{thread_id}",
        "A thread with its status and values",
    ),
    ("patch", "/threads/{thread_id}", "Merge a thread's metadata"),
    (
        "delete",
        "/threads/{thread_id}",
        "Delete a thread and its history",
    ),
    (
        "get",
        "/threads/{thread_id}/state",
        "The thread's state (both dialects' fields)",
    ),
    (
        "put",
        "/threads/{thread_id}/state",
        "Merge or replace the state (deep-agents dialect)",
    ),
    (
        "post",
        "/threads/{thread_id}/history",
        "Past states, newest first",
    ),
    (
        "get",
        "/threads/{thread_id}/history",
        "Past states, newest first",
    ),
    (
        "post",
        "/threads/{thread_id}/runs/stream",
        "Run and stream (LangGraph SSE, or the deep-agents events)",
    ),
    (
        "post",
        "/threads/{thread_id}/runs/wait",
        "Run and wait for the final values",
    ),
    (
        "post",
        "/threads/{thread_id}/runs",
        "Start a background run",
    ),
    ("get", "/threads/{thread_id}/runs", "The thread's runs"),
    (
        "post",
        "/runs/stream",
        "A stateless run, streamed (its thread deleted after unless kept)",
    ),
    ("post", "/runs/wait", "A stateless run, waited for"),
    (
        "post",
        "/threads/{thread_id}/state",
        "Update the state's values (todos, vars)",
    ),
    ("get", "/threads/{thread_id}/runs/{run_id}", "One run"),
    (
        "get",
        "/threads/{thread_id}/runs/{run_id}/join",
        "Wait for a run, then its values",
    ),
    (
        "post",
        "/threads/{thread_id}/runs/{run_id}/cancel",
        "Stop a run",
    ),
    (
        "get",
        "/threads/{thread_id}/runs/{run_id}/stream",
        "A background run's stream (Last-Event-ID)",
    ),
    (
        "post",
        "/ag-ui",
        "AG-UI: RunAgentInput in, AG-UI events out",
    ),
    (
        "post",
        "/orchestrator/process",
        "What a child says or photographs, through the one entry",
    ),
    (
        "post",
        "/recitation/check",
        "Check a recitation synchronously (JSON with a transcript, or a form with the recording)",
    ),
    (
        "post",
        "/recitation/tasks",
        "Start a recitation check as a task (202 with its id)",
    ),
    (
        "get",
        "/recitation/tasks/{task_id}",
        "A recitation task: status, progress, result or error",
    ),
    (
        "get",
        "/recitation/tasks/{task_id}/stream",
        "A recitation task's progress as server-sent events, ending with the result",
    ),
    ("get", "/workflows", "Parents' routines"),
    (
        "post",
        "/workflows",
        "Save a routine (checked first: 422 with every problem)",
    ),
    ("get", "/workflows/{name}", "A routine and its runs"),
    (
        "put",
        "/workflows/{name}",
        "Replace a routine (checked first)",
    ),
    (
        "delete",
        "/workflows/{name}",
        "Delete a routine and its runs",
    ),
    (
        "post",
        "/workflows/{name}/runs",
        "Run a routine for a child until it finishes, fails or waits",
    ),
    (
        "post",
        "/workflow-runs/{run_id}/resume",
        "Go on with a run that waits or was cut short",
    ),
];

/// The document.
pub fn document() -> Value {
    let mut paths: Map<String, Value> = Map::new();
    for (method, path, summary) in ROUTES {
        let params: Vec<Value> = path
            .split('/')
            .filter_map(|seg| seg.strip_prefix('{').and_then(|s| s.strip_suffix('}')))
            .map(|name| json!({"name": name, "in": "path", "required": true, "schema": {"type": "string"}}))
            .collect();
        let mut op = json!({
            "summary": summary,
            "operationId": format!("{method}{}", path.replace(['/', '{', '}', '.', '-'], "_")),
            "responses": {
                "200": {"description": "OK"},
                "default": {"description": "An error", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
            },
        });
        if !params.is_empty() {
            op["parameters"] = Value::Array(params);
        }
        if *path == "/ok" {
            op["security"] = json!([]);
        }
        if (*method, *path) == ("post", "/recitation/tasks") {
            op["responses"] = json!({
                "202": {"description": "Accepted: {task_id, status}"},
                "default": op["responses"]["default"].clone(),
            });
        }
        let entry = paths.entry(path.to_string()).or_insert_with(|| json!({}));
        entry[*method] = op;
    }
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "Deskmate local API",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "deskmate serve: LangGraph-compatible threads and runs, the deep-agents dialect, AG-UI, the one entry and the recitation check, over the Deskmate core.",
        },
        "servers": [{"url": "http://127.0.0.1:8123"}],
        "security": [{"bearer": []}, {"apiKey": []}],
        "components": {
            "securitySchemes": {
                "bearer": {"type": "http", "scheme": "bearer"},
                "apiKey": {"type": "apiKey", "in": "header", "name": "x-api-key"},
            },
            "schemas": {
                "Error": {
                    "type": "object",
                    "required": ["code", "message"],
                    "properties": {"code": {"type": "string"}, "message": {"type": "string"}},
                },
            },
        },
        "paths": paths,
    })
}
