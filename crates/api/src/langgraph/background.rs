//! Background runs (LangGraph's `POST /threads/{id}/runs`): the run starts
//! and the request returns at once; its stream parts are recorded in the
//! [`RunBook`] so a client can join it (`…/join`: the final values), follow
//! or replay its stream (`GET …/runs/{rid}/stream`, after `Last-Event-ID`)
//! and cancel it (`…/cancel`: the core's stop switch). Each part's event id
//! is its place in the run's stream. The book keeps the parts of the last
//! [`KEPT_RUNS`] runs; an older finished run is still found in SQLite
//! (get, join), only its stream is no longer replayed.

use std::collections::{HashMap, VecDeque};
use std::convert::Infallible;
use std::sync::{Arc, Mutex};

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::Json;
use deskmate_app::chat::agent::persist;
use deskmate_app::chat::agent::RunStatus;
use futures_util::Stream;
use serde::Deserialize;
use serde_json::{json, Value};
use tokio::sync::{mpsc, watch};

use super::runs::{follow, start, Modes, RunCreate};
use super::shape::{self, ThreadFacts};
use crate::error::{ApiError, ApiJson, ApiResult};
use crate::{blocking, Api};

/// How many runs' stream parts the book keeps.
pub const KEPT_RUNS: usize = 64;

/// One run's recorded stream.
#[derive(Debug)]
struct Recorded {
    thread_id: String,
    parts: Mutex<Vec<(String, Value)>>,
    /// (parts recorded, finished): changes with every part.
    progress: watch::Sender<(usize, bool)>,
}

/// The recorded runs by id, and their ids oldest first.
type Book = (HashMap<String, Arc<Recorded>>, VecDeque<String>);

/// The background runs of this server and their recorded streams.
#[derive(Debug, Clone, Default)]
pub(crate) struct RunBook {
    runs: Arc<Mutex<Book>>,
}

impl RunBook {
    fn insert(&self, run_id: &str, rec: Arc<Recorded>) {
        if let Ok(mut book) = self.runs.lock() {
            let (map, order) = &mut *book;
            map.insert(run_id.to_string(), rec);
            order.push_back(run_id.to_string());
            while order.len() > KEPT_RUNS {
                if let Some(old) = order.pop_front() {
                    map.remove(&old);
                }
            }
        }
    }

    fn get(&self, run_id: &str) -> Option<Arc<Recorded>> {
        self.runs.lock().ok().and_then(|b| b.0.get(run_id).cloned())
    }
}

/// A stored run as LangGraph's `Run`.
fn run_json(run: &persist::Run) -> Value {
    run_json_with(run, "reject")
}

/// A stored run as LangGraph's `Run`, started with `strategy`.
fn run_json_with(run: &persist::Run, strategy: &str) -> Value {
    json!({
        "run_id": run.id,
        "thread_id": run.thread_id,
        "assistant_id": shape::assistant_id(),
        "created_at": run.started_at,
        "updated_at": run.finished_at.clone().unwrap_or_else(|| run.started_at.clone()),
        "status": status_name(run.status),
        "metadata": {},
        "kwargs": {},
        "multitask_strategy": strategy,
    })
}

/// A run's status as LangGraph names it.
pub(crate) fn status_name(s: RunStatus) -> &'static str {
    match s {
        RunStatus::Running => "running",
        RunStatus::Completed => "success",
        RunStatus::Interrupted | RunStatus::Cancelled => "interrupted",
        RunStatus::Error | RunStatus::StepLimit => "error",
    }
}

/// The lead's run `run_id` of thread `thread_id` (not found otherwise).
fn lead_run(
    app: &deskmate_app::Deskmate,
    thread_id: &str,
    run_id: &str,
) -> ApiResult<persist::Run> {
    let run = persist::get_run(app.store(), run_id).map_err(deskmate_app::AppError::from)?;
    if run.thread_id != thread_id || run.parent_run_id.is_some() {
        return Err(ApiError::not_found(format!(
            "no run {run_id} on thread {thread_id}"
        )));
    }
    Ok(run)
}

/// `POST /threads/{id}/runs`: starts a run in the background. With
/// `multitask_strategy: enqueue` on a busy thread it is answered once its
/// turn has come and it has started (the core names a run only then).
pub(crate) async fn create(
    State(api): State<Api>,
    Path(thread_id): Path<String>,
    ApiJson(body): ApiJson<RunCreate>,
) -> ApiResult<Json<Value>> {
    // Background runs record every mode unless told which.
    let modes = match body.stream_mode {
        None => Modes::all(),
        Some(ref m) => Modes::parse(Some(m))?,
    };
    let strategy = if body.enqueues() { "enqueue" } else { "reject" };
    let started = start(&api, &thread_id, &body).await?;
    let run_id = started.0.run_id.clone();
    let (progress, _) = watch::channel((0, false));
    let rec = Arc::new(Recorded {
        thread_id: thread_id.clone(),
        parts: Mutex::new(Vec::new()),
        progress,
    });
    api.runs.insert(&run_id, rec.clone());
    let (tx, mut out) = mpsc::unbounded_channel::<(String, Value)>();
    let recorder = rec.clone();
    let record = tokio::spawn(async move {
        while let Some(part) = out.recv().await {
            let n = match recorder.parts.lock() {
                Ok(mut parts) => {
                    parts.push(part);
                    parts.len()
                }
                Err(_) => continue,
            };
            recorder.progress.send_replace((n, false));
        }
    });
    let follower = api.clone();
    let tid = thread_id.clone();
    tokio::spawn(async move {
        let t = follow(follower, tid, modes, started, tx.clone()).await;
        let _ = tx.send((
            "end".into(),
            json!({"run_id": t.run_id, "status": t.status}),
        ));
        drop(tx);
        drop(t);
        let _ = record.await;
        let n = rec.parts.lock().map(|p| p.len()).unwrap_or(0);
        rec.progress.send_replace((n, true));
    });
    let run = blocking(&api.app, move |app| lead_run(&app, &thread_id, &run_id)).await?;
    Ok(Json(run_json_with(&run, strategy)))
}

/// `GET /threads/{id}/runs`: the thread's runs, newest first.
pub(crate) async fn list(
    State(api): State<Api>,
    Path(thread_id): Path<String>,
) -> ApiResult<Json<Value>> {
    let facts = blocking(&api.app, move |app| ThreadFacts::read(&app, &thread_id)).await?;
    Ok(Json(Value::Array(
        facts.runs.iter().rev().map(run_json).collect(),
    )))
}

/// `GET /threads/{id}/runs/{rid}`.
pub(crate) async fn get(
    State(api): State<Api>,
    Path((thread_id, run_id)): Path<(String, String)>,
) -> ApiResult<Json<Value>> {
    let run = blocking(&api.app, move |app| lead_run(&app, &thread_id, &run_id)).await?;
    Ok(Json(run_json(&run)))
}

/// Waits until run `run_id` has finished: its recorded stream says so, or
/// (a run this server did not record) its stored status is no longer
/// `running`.
async fn finished(api: &Api, thread_id: &str, run_id: &str) -> ApiResult<()> {
    if let Some(rec) = api.runs.get(run_id) {
        let mut rx = rec.progress.subscribe();
        while !rx.borrow_and_update().1 {
            if rx.changed().await.is_err() {
                break;
            }
        }
        return Ok(());
    }
    loop {
        let (tid, rid) = (thread_id.to_string(), run_id.to_string());
        let run = blocking(&api.app, move |app| lead_run(&app, &tid, &rid)).await?;
        if run.status != RunStatus::Running {
            return Ok(());
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

/// `GET /threads/{id}/runs/{rid}/join`: waits for the run, then the
/// thread's values (with `__interrupt__` when it paused).
pub(crate) async fn join(
    State(api): State<Api>,
    Path((thread_id, run_id)): Path<(String, String)>,
) -> ApiResult<Json<Value>> {
    let (tid, rid) = (thread_id.clone(), run_id.clone());
    blocking(&api.app, move |app| lead_run(&app, &tid, &rid)).await?;
    finished(&api, &thread_id, &run_id).await?;
    let facts = blocking(&api.app, move |app| ThreadFacts::read(&app, &thread_id)).await?;
    Ok(Json(facts.values_upto(facts.messages.len(), true)))
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct CancelQuery {
    #[serde(default)]
    wait: Option<String>,
}

/// `POST /threads/{id}/runs/{rid}/cancel[?wait=1]`: stops a run going on
/// in this server (409 when it is not running).
pub(crate) async fn cancel(
    State(api): State<Api>,
    Path((thread_id, run_id)): Path<(String, String)>,
    Query(q): Query<CancelQuery>,
) -> ApiResult<StatusCode> {
    let (tid, rid) = (thread_id.clone(), run_id.clone());
    let run = blocking(&api.app, move |app| lead_run(&app, &tid, &rid)).await?;
    if run.status != RunStatus::Running || !api.app.chat().cancel_run(&run_id) {
        return Err(ApiError::conflict(format!(
            "run {run_id} is not running (it is {}): nothing to cancel",
            status_name(run.status)
        )));
    }
    if matches!(q.wait.as_deref(), Some("1" | "true")) {
        finished(&api, &thread_id, &run_id).await?;
    }
    Ok(StatusCode::NO_CONTENT)
}

/// `GET /threads/{id}/runs/{rid}/stream`: the run's recorded stream, from
/// after `Last-Event-ID` (from the start without one), followed to its end.
pub(crate) async fn join_stream(
    State(api): State<Api>,
    Path((thread_id, run_id)): Path<(String, String)>,
    headers: HeaderMap,
) -> ApiResult<Sse<impl Stream<Item = Result<Event, Infallible>>>> {
    let rec = match api.runs.get(&run_id) {
        Some(rec) if rec.thread_id == thread_id => rec,
        _ => {
            let (tid, rid) = (thread_id.clone(), run_id.clone());
            blocking(&api.app, move |app| lead_run(&app, &tid, &rid)).await?;
            return Err(ApiError::not_found(format!(
                "the stream of run {run_id} is not kept (only background runs of this server, the last {KEPT_RUNS})"
            )));
        }
    };
    let from = match headers.get("last-event-id").and_then(|v| v.to_str().ok()) {
        None => 0,
        Some(id) => id.trim().parse::<usize>().map(|n| n + 1).map_err(|_| {
            ApiError::invalid(format!(
                "Last-Event-ID {id:?} is not an event id of this stream"
            ))
        })?,
    };
    let rx = rec.progress.subscribe();
    let events = futures_util::stream::unfold((rec, rx, from), |(rec, mut rx, next)| async move {
        loop {
            let part = rec.parts.lock().ok().and_then(|p| p.get(next).cloned());
            if let Some((name, data)) = part {
                let event = Event::default()
                    .id(next.to_string())
                    .event(name)
                    .data(serde_json::to_string(&data).unwrap_or_else(|_| "null".into()));
                return Some((Ok(event), (rec, rx, next + 1)));
            }
            let (_, done) = *rx.borrow_and_update();
            if done {
                let count = rec.parts.lock().map(|p| p.len()).unwrap_or(0);
                if next >= count {
                    return None;
                }
                continue;
            }
            if rx.changed().await.is_err() {
                return None;
            }
        }
    });
    Ok(Sse::new(events).keep_alive(KeepAlive::default()))
}
