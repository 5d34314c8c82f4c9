//! AG-UI over HTTP: `POST /ag-ui` takes AG-UI's `RunAgentInput` and answers
//! with the companion's run as AG-UI events, one `data:` line each (what
//! `@ag-ui/client`'s `HttpAgent` reads). The events are the ones the core
//! emits for the window (`deskmate chat --events` prints the same), with
//! the run's `threadId` and `runId` the client's own. A client's thread id
//! is kept in the chat thread's metadata (`ag_ui_thread_id`), so the next
//! run with that id continues the same conversation.

use std::convert::Infallible;

use axum::extract::State;
use axum::response::sse::{Event, KeepAlive, Sse};
use deskmate_app::chat::agent::{persist, AgUiEvent};
use deskmate_app::chat::{ChatMessage, ChatOptions};
use futures_util::Stream;
use serde::Deserialize;
use serde_json::{Map, Value};
use tokio::sync::mpsc;

use crate::error::{ApiError, ApiJson, ApiResult};
use crate::{blocking, Api};

/// The metadata key holding an AG-UI client's thread id.
const THREAD_KEY: &str = "ag_ui_thread_id";

/// AG-UI's `RunAgentInput` (the fields Deskmate reads).
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RunAgentInput {
    thread_id: String,
    run_id: String,
    #[serde(default)]
    messages: Vec<Value>,
}

/// The text of the last user message.
fn last_user_text(messages: &[Value]) -> ApiResult<String> {
    let m = messages
        .iter()
        .rev()
        .find(|m| m.get("role").and_then(Value::as_str) == Some("user"))
        .ok_or_else(|| ApiError::invalid("messages has no user message to answer"))?;
    match m.get("content") {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(Value::Array(parts)) => Ok(parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .concat()),
        _ => Err(ApiError::invalid("the user message has no content")),
    }
}

/// The chat thread of an AG-UI thread id, made on its first run.
fn thread_for(app: &deskmate_app::Deskmate, client_thread: &str) -> ApiResult<String> {
    let store = app.store();
    for t in persist::list_threads(store, None).map_err(deskmate_app::AppError::from)? {
        let meta = persist::thread_metadata(store, &t.id).map_err(deskmate_app::AppError::from)?;
        if meta.get(THREAD_KEY).and_then(Value::as_str) == Some(client_thread) {
            return Ok(t.id);
        }
    }
    let mut meta = Map::new();
    meta.insert(THREAD_KEY.into(), Value::String(client_thread.to_string()));
    Ok(app.chat().create_thread(None, &meta)?.id)
}

/// `POST /ag-ui`.
pub(crate) async fn run(
    State(api): State<Api>,
    ApiJson(input): ApiJson<RunAgentInput>,
) -> ApiResult<Sse<impl Stream<Item = Result<Event, Infallible>>>> {
    let text = last_user_text(&input.messages)?;
    let client_thread = input.thread_id.clone();
    let thread_id = blocking(&api.app, move |app| thread_for(&app, &client_thread)).await?;
    let (tx, rx) = mpsc::unbounded_channel();
    let msg = ChatMessage {
        thread_id: Some(thread_id),
        profile_id: None,
        text,
        images: vec![],
    };
    api.app
        .chat()
        .start(msg, &ChatOptions::default(), tx)
        .await?;
    let (client_thread, client_run) = (input.thread_id, input.run_id);
    let events = futures_util::stream::unfold(rx, move |mut rx| {
        let (client_thread, client_run) = (client_thread.clone(), client_run.clone());
        async move {
            let ev = match rx.recv().await? {
                AgUiEvent::RunStarted { .. } => AgUiEvent::RunStarted {
                    thread_id: client_thread,
                    run_id: client_run,
                },
                AgUiEvent::RunFinished {
                    result, outcome, ..
                } => AgUiEvent::RunFinished {
                    thread_id: client_thread,
                    run_id: client_run,
                    result,
                    outcome,
                },
                other => other,
            };
            let data = serde_json::to_string(&ev).unwrap_or_else(|_| "null".into());
            Some((Ok(Event::default().data(data)), rx))
        }
    });
    Ok(Sse::new(events).keep_alive(KeepAlive::default()))
}
