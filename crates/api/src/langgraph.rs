//! The LangGraph server's routes over the core's chat threads and runs, so
//! the official `langgraph-sdk` clients work unchanged: the assistants (the
//! companion is the one), threads (create, get, patch, delete, search),
//! their state and history, and runs streamed or waited for (`runs`).

mod background;
mod runs;
mod shape;
mod translate;

pub(crate) use background::{CancelQuery, RunBook};
pub(crate) use runs::{chat_options, decision_of, RunCreate, ThreadTurns};

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use deskmate_app::chat::agent::persist;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::error::{ApiError, ApiJson, ApiResult};
use crate::{blocking, wire, Api};
use shape::ThreadFacts;

pub(crate) fn routes() -> Router<Api> {
    Router::new()
        .route("/assistants", get(assistants_list))
        .route("/assistants/search", post(assistants_search))
        .route("/assistants/{id}", get(assistant_get))
        .route("/threads", post(thread_create))
        .route("/threads/search", post(threads_search))
        .route(
            "/threads/{id}",
            get(thread_get).patch(thread_patch).delete(thread_delete),
        )
        .route(
            "/threads/{id}/state",
            get(state_get).put(state_put).post(state_post),
        )
        .route("/threads/{id}/history", post(history).get(history_get))
        .route("/threads/{id}/runs/stream", post(runs::stream))
        .route("/threads/{id}/runs/wait", post(runs::wait))
        .route("/runs/stream", post(runs::stream_stateless))
        .route("/runs/wait", post(runs::wait_stateless))
        .route(
            "/threads/{id}/runs",
            post(background::create).get(background::list),
        )
        .route("/threads/{id}/runs/{rid}", get(background::get))
        .route("/threads/{id}/runs/{rid}/join", get(background::join))
        .route("/threads/{id}/runs/{rid}/cancel", post(background::cancel))
        .route(
            "/threads/{id}/runs/{rid}/stream",
            get(background::join_stream),
        )
}

#[derive(Debug, Default, Deserialize, JsonSchema)]
pub(crate) struct AssistantSearch {
    #[serde(default)]
    graph_id: Option<String>,
    #[serde(default)]
    limit: Option<usize>,
    #[serde(default)]
    offset: Option<usize>,
}

async fn assistants_search(
    ApiJson(q): ApiJson<Option<AssistantSearch>>,
) -> Json<Vec<wire::Assistant>> {
    let q = q.unwrap_or_default();
    let all = if q.graph_id.as_deref().is_none_or(|g| g == shape::GRAPH_ID) {
        vec![shape::assistant()]
    } else {
        vec![]
    };
    let page = all
        .into_iter()
        .skip(q.offset.unwrap_or(0))
        .take(q.limit.unwrap_or(10))
        .collect();
    Json(page)
}

/// `GET /assistants` (the deep-agents dialect): the companion with its
/// model and tools.
async fn assistants_list(State(api): State<Api>) -> ApiResult<Json<Vec<wire::ListedAssistant>>> {
    let (model, tools) = blocking(&api.app, |app| {
        Ok((app.chat().llm_settings()?.model, app.chat().tool_names()?))
    })
    .await?;
    Ok(Json(vec![wire::ListedAssistant {
        assistant: shape::assistant(),
        model,
        tools,
    }]))
}

async fn assistant_get(Path(id): Path<String>) -> ApiResult<Json<wire::Assistant>> {
    if shape::is_assistant(&id) {
        Ok(Json(shape::assistant()))
    } else {
        Err(ApiError::not_found(format!(
            "no assistant {id}: the one assistant is {} (graph {})",
            shape::assistant_id(),
            shape::GRAPH_ID
        )))
    }
}

#[derive(Debug, Default, Deserialize, JsonSchema)]
pub(crate) struct ThreadCreate {
    #[serde(default)]
    thread_id: Option<String>,
    #[serde(default)]
    metadata: Option<Map<String, Value>>,
    #[serde(default)]
    if_exists: Option<String>,
    /// The deep-agents dialect's first state (`todos`, `vars`).
    #[serde(default)]
    initial_state: Option<Map<String, Value>>,
}

async fn thread_create(
    State(api): State<Api>,
    ApiJson(body): ApiJson<Option<ThreadCreate>>,
) -> ApiResult<Json<wire::Thread>> {
    let body = body.unwrap_or_default();
    let facts = blocking(&api.app, move |app| {
        if let Some(id) = &body.thread_id {
            return match ThreadFacts::read(&app, id) {
                Ok(f) if body.if_exists.as_deref() == Some("do_nothing") => Ok(f),
                Ok(_) => Err(ApiError::conflict(format!("thread {id} exists already"))),
                Err(e) if e.status == StatusCode::NOT_FOUND => Err(ApiError::invalid(
                    "Deskmate chooses thread ids itself: create the thread without thread_id",
                )),
                Err(e) => Err(e),
            };
        }
        let metadata = body.metadata.unwrap_or_default();
        // A child's thread: `metadata.profile` names the profile (id or name).
        let profile = metadata
            .get("profile")
            .and_then(Value::as_str)
            .map(str::to_string);
        let initial = body.initial_state.map(state_parts).transpose()?;
        let thread = app.chat().create_thread(profile.as_deref(), &metadata)?;
        if let Some((todos, vars)) = initial {
            app.chat().update_state(&thread.id, todos, vars, true)?;
        }
        ThreadFacts::read(&app, &thread.id)
    })
    .await?;
    Ok(Json(facts.thread_json()))
}

async fn thread_get(
    State(api): State<Api>,
    Path(id): Path<String>,
) -> ApiResult<Json<wire::Thread>> {
    let facts = blocking(&api.app, move |app| ThreadFacts::read(&app, &id)).await?;
    Ok(Json(facts.thread_json()))
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ThreadPatch {
    metadata: Map<String, Value>,
}

async fn thread_patch(
    State(api): State<Api>,
    Path(id): Path<String>,
    ApiJson(body): ApiJson<ThreadPatch>,
) -> ApiResult<Json<wire::Thread>> {
    let facts = blocking(&api.app, move |app| {
        app.chat().patch_thread_metadata(&id, &body.metadata)?;
        ThreadFacts::read(&app, &id)
    })
    .await?;
    Ok(Json(facts.thread_json()))
}

async fn thread_delete(State(api): State<Api>, Path(id): Path<String>) -> ApiResult<StatusCode> {
    blocking(&api.app, move |app| Ok(app.chat().delete_thread(&id)?)).await?;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Debug, Default, Deserialize, JsonSchema)]
pub(crate) struct ThreadSearch {
    #[serde(default)]
    metadata: Option<Map<String, Value>>,
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    ids: Option<Vec<String>>,
    #[serde(default)]
    limit: Option<usize>,
    #[serde(default)]
    offset: Option<usize>,
}

async fn threads_search(
    State(api): State<Api>,
    ApiJson(q): ApiJson<Option<ThreadSearch>>,
) -> ApiResult<Json<Vec<wire::Thread>>> {
    let q = q.unwrap_or_default();
    let found = blocking(&api.app, move |app| {
        let threads =
            persist::list_threads(app.store(), None).map_err(deskmate_app::AppError::from)?;
        let mut out = Vec::new();
        let (offset, limit) = (q.offset.unwrap_or(0), q.limit.unwrap_or(10));
        let mut skipped = 0;
        for t in threads {
            if out.len() >= limit {
                break;
            }
            if q.ids.as_ref().is_some_and(|ids| !ids.contains(&t.id)) {
                continue;
            }
            let facts = ThreadFacts::read(&app, &t.id)?;
            if let Some(want) = &q.metadata {
                let has = facts.metadata.as_object();
                if !want
                    .iter()
                    .all(|(k, v)| has.and_then(|m| m.get(k)) == Some(v))
                {
                    continue;
                }
            }
            if q.status
                .as_deref()
                .is_some_and(|s| s != facts.status().name())
            {
                continue;
            }
            if skipped < offset {
                skipped += 1;
                continue;
            }
            out.push(facts.thread_json());
        }
        Ok(out)
    })
    .await?;
    Ok(Json(found))
}

async fn state_get(
    State(api): State<Api>,
    Path(id): Path<String>,
) -> ApiResult<Json<wire::StateAnswer>> {
    let facts = blocking(&api.app, move |app| ThreadFacts::read(&app, &id)).await?;
    Ok(Json(facts.state_json()))
}

/// A todo list when one is given, and vars.
type StateParts = (
    Option<Vec<deskmate_app::chat::agent::Todo>>,
    Map<String, Value>,
);

/// A deep-agents state object split into its todo list (when given) and
/// its vars (`vars`, and any other key).
fn state_parts(mut state: Map<String, Value>) -> ApiResult<StateParts> {
    let todos = state
        .remove("todos")
        .map(|t| {
            serde_json::from_value(t).map_err(|e| {
                ApiError::invalid(format!(
                    "state.todos is a list of {{content, status}} (pending, in_progress, completed): {e}"
                ))
            })
        })
        .transpose()?;
    let mut vars = match state.remove("vars") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(m)) => m,
        Some(_) => return Err(ApiError::invalid("state.vars is an object")),
    };
    vars.extend(state);
    Ok((todos, vars))
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct StatePut {
    state: Map<String, Value>,
    #[serde(default)]
    replace: bool,
}

/// `PUT /threads/{id}/state` (the deep-agents dialect): merges `state`
/// into the thread's (todos replaced when given, vars key by key), or
/// replaces it with `replace: true`; answers the state as `GET` does.
async fn state_put(
    State(api): State<Api>,
    Path(id): Path<String>,
    ApiJson(body): ApiJson<StatePut>,
) -> ApiResult<Json<wire::StateAnswer>> {
    let facts = blocking(&api.app, move |app| {
        let (todos, vars) = state_parts(body.state)?;
        app.chat().update_state(&id, todos, vars, body.replace)?;
        ThreadFacts::read(&app, &id)
    })
    .await?;
    Ok(Json(facts.state_json()))
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct StatePost {
    values: Map<String, Value>,
}

/// `POST /threads/{id}/state` (LangGraph's `update_state`): `todos` and any
/// other value merged into the thread's state (the others as vars);
/// `messages` cannot be written (a run writes them). Answers the
/// checkpoint, whose id is the thread's last run.
async fn state_post(
    State(api): State<Api>,
    Path(id): Path<String>,
    ApiJson(body): ApiJson<StatePost>,
) -> ApiResult<Json<wire::StateUpdated>> {
    if body.values.contains_key("messages") {
        return Err(ApiError::invalid(
            "messages are written by runs: start a run with input.messages instead",
        ));
    }
    let facts = blocking(&api.app, move |app| {
        let (todos, vars) = state_parts(body.values)?;
        app.chat().update_state(&id, todos, vars, false)?;
        ThreadFacts::read(&app, &id)
    })
    .await?;
    Ok(Json(wire::StateUpdated {
        checkpoint: facts.state_json().langgraph.checkpoint,
    }))
}

#[derive(Debug, Default, Deserialize, JsonSchema)]
pub(crate) struct HistoryQuery {
    /// At most this many states (10 when not given).
    #[serde(default)]
    limit: Option<usize>,
}

async fn history(
    State(api): State<Api>,
    Path(id): Path<String>,
    ApiJson(q): ApiJson<Option<HistoryQuery>>,
) -> ApiResult<Json<Vec<wire::ThreadState>>> {
    let limit = q.and_then(|q| q.limit).unwrap_or(10);
    let facts = blocking(&api.app, move |app| ThreadFacts::read(&app, &id)).await?;
    Ok(Json(facts.history(limit)))
}

async fn history_get(
    State(api): State<Api>,
    Path(id): Path<String>,
    axum::extract::Query(q): axum::extract::Query<HistoryQuery>,
) -> ApiResult<Json<Vec<wire::ThreadState>>> {
    let limit = q.limit.unwrap_or(10);
    let facts = blocking(&api.app, move |app| ThreadFacts::read(&app, &id)).await?;
    Ok(Json(facts.history(limit)))
}
