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
use serde_json::{json, Map, Value};
use tokio::sync::{mpsc, watch};

use super::runs::{
    follow, launch, prepare_launch, start_in_turn, CallOff, Launch, Modes, NotStarted, RunCreate,
    Started,
};
use super::shape::{self, GraphValues, ThreadFacts};
use crate::error::{ApiError, ApiJson, ApiResult};
use crate::{blocking, wire, Api};

/// How many runs' stream parts the book keeps.
pub const KEPT_RUNS: usize = 64;

/// One run's recorded stream.
#[derive(Debug)]
struct Recorded {
    thread_id: String,
    parts: Mutex<Vec<(String, Value)>>,
    /// (parts recorded, finished): changes with every part.
    progress: watch::Sender<(usize, bool)>,
    /// A background run with `enqueue` answered before it started: where
    /// it is (its own id is the one the client was given).
    queued: Option<Queued>,
}

impl Recorded {
    fn new(thread_id: &str, queued: Option<Queued>) -> Self {
        let (progress, _) = watch::channel((0, false));
        Self {
            thread_id: thread_id.to_string(),
            parts: Mutex::new(Vec::new()),
            progress,
            queued,
        }
    }

    /// Records one part of the stream.
    fn push(&self, part: (String, Value)) {
        let n = match self.parts.lock() {
            Ok(mut parts) => {
                parts.push(part);
                parts.len()
            }
            Err(_) => return,
        };
        self.progress.send_replace((n, false));
    }

    /// Says the stream has ended.
    fn finish(&self) {
        let n = self.parts.lock().map(|p| p.len()).unwrap_or(0);
        self.progress.send_replace((n, true));
    }
}

/// A background run waiting its turn (`enqueue`): when it was asked for,
/// how its waiting can be called off, and what became of it.
#[derive(Debug)]
struct Queued {
    created_at: String,
    off: Arc<CallOff>,
    state: watch::Sender<QueuedState>,
}

#[derive(Debug, Clone, PartialEq)]
enum QueuedState {
    Waiting,
    /// Started as the core's run with this id.
    Started(String),
    /// It could not start (the thread waits for a parent's approval, …).
    Refused(ApiError),
    CalledOff,
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
fn run_json(run: &persist::Run) -> wire::Run {
    run_json_with(run, "reject")
}

/// A stored run as LangGraph's `Run`, started with `strategy`.
fn run_json_with(run: &persist::Run, strategy: &str) -> wire::Run {
    wire::Run {
        run_id: run.id.clone(),
        thread_id: run.thread_id.clone(),
        assistant_id: shape::assistant_id(),
        created_at: Some(run.started_at.clone()),
        updated_at: Some(
            run.finished_at
                .clone()
                .unwrap_or_else(|| run.started_at.clone()),
        ),
        status: run_state(run.status),
        metadata: Map::new(),
        kwargs: Map::new(),
        multitask_strategy: strategy.into(),
    }
}

/// A run's status as LangGraph names it.
pub(crate) fn run_state(s: RunStatus) -> wire::RunState {
    match s {
        RunStatus::Running => wire::RunState::Running,
        RunStatus::Completed => wire::RunState::Success,
        RunStatus::Interrupted | RunStatus::Cancelled => wire::RunState::Interrupted,
        RunStatus::Error | RunStatus::StepLimit => wire::RunState::Error,
    }
}

/// A run's status as LangGraph names it, as text.
pub(crate) fn status_name(s: RunStatus) -> &'static str {
    match run_state(s) {
        wire::RunState::Pending => "pending",
        wire::RunState::Running => "running",
        wire::RunState::Success => "success",
        wire::RunState::Interrupted => "interrupted",
        wire::RunState::Error => "error",
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
/// `multitask_strategy: enqueue` on a busy thread it is answered at once as
/// `pending` under an id of its own, and starts when its turn comes (see
/// [`pending`]).
pub(crate) async fn create(
    State(api): State<Api>,
    Path(thread_id): Path<String>,
    ApiJson(body): ApiJson<RunCreate>,
) -> ApiResult<Json<wire::Run>> {
    // Background runs record every mode unless told which.
    let modes = match body.stream_mode {
        None => Modes::all(),
        Some(ref m) => Modes::parse(Some(m))?,
    };
    let checked = prepare_launch(&api, &thread_id, &body).await?;
    let strategy = body.strategy()?;
    let started = match checked {
        Launch::New { msg, opts } if body.enqueues() => {
            // First in the queue and the thread free: it starts now.
            // Otherwise it waits its turn in the background.
            let queue = api.turns.queue(&thread_id);
            let Ok(turn) = queue.try_lock_owned() else {
                return Ok(Json(pending(&api, thread_id, modes, msg, opts, None)));
            };
            let (tx, rx) = mpsc::unbounded_channel();
            match api.app.chat().start(msg.clone(), &opts, tx).await {
                Ok(run) => (run, rx, false),
                Err(e) if e.code() == "chat.busy" => {
                    return Ok(Json(pending(&api, thread_id, modes, msg, opts, Some(turn))));
                }
                Err(e) => return Err(e.into()),
            }
        }
        other => launch(&api, &thread_id, other, strategy).await?,
    };
    let run_id = started.0.run_id.clone();
    let rec = Arc::new(Recorded::new(&thread_id, None));
    api.runs.insert(&run_id, rec.clone());
    tokio::spawn(record(api.clone(), rec, thread_id.clone(), modes, started));
    let run = blocking(&api.app, move |app| lead_run(&app, &thread_id, &run_id)).await?;
    Ok(Json(run_json_with(&run, strategy.name())))
}

/// Follows a started run to its end, recording its stream.
async fn record(api: Api, rec: Arc<Recorded>, thread_id: String, modes: Modes, started: Started) {
    let (tx, mut out) = mpsc::unbounded_channel::<(String, Value)>();
    let recorder = rec.clone();
    let recording = tokio::spawn(async move {
        while let Some(part) = out.recv().await {
            recorder.push(part);
        }
    });
    let t = follow(api, thread_id, modes, started, tx.clone()).await;
    let _ = tx.send((
        "end".into(),
        json!({"run_id": t.run_id, "status": t.status}),
    ));
    drop(tx);
    drop(t);
    let _ = recording.await;
    rec.finish();
}

/// A background run with `enqueue` on a busy thread: recorded under an id
/// of its own, answered at once as `pending`, started when its turn comes
/// (then also found under the core's run id, which its stream's
/// `metadata` names). `turn` is the queue's turn when the caller has it.
fn pending(
    api: &Api,
    thread_id: String,
    modes: Modes,
    msg: deskmate_app::chat::ChatMessage,
    opts: deskmate_app::chat::ChatOptions,
    turn: Option<tokio::sync::OwnedMutexGuard<()>>,
) -> wire::Run {
    let id = uuid::Uuid::now_v7().to_string();
    let created_at = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    let off = Arc::new(CallOff::default());
    let (state, _) = watch::channel(QueuedState::Waiting);
    let rec = Arc::new(Recorded::new(
        &thread_id,
        Some(Queued {
            created_at: created_at.clone(),
            off: off.clone(),
            state,
        }),
    ));
    api.runs.insert(&id, rec.clone());
    let answer = queued_json(&id, &rec, wire::RunState::Pending);
    let (api, pending_id) = (api.clone(), id);
    tokio::spawn(async move {
        let (tx, rx) = mpsc::unbounded_channel();
        let started = start_in_turn(&api, &thread_id, msg, &opts, tx, turn, &off).await;
        let tell = |s: QueuedState| {
            if let Some(q) = &rec.queued {
                q.state.send_replace(s);
            }
        };
        match started {
            Ok(run) => {
                tell(QueuedState::Started(run.run_id.clone()));
                api.runs.insert(&run.run_id, rec.clone());
                // Called off while it was starting: stopped at once.
                if off.is_called() {
                    api.app.chat().cancel_run(&run.run_id);
                }
                record(api, rec, thread_id, modes, (run, rx, false)).await;
            }
            Err(NotStarted::CalledOff) => {
                rec.push((
                    "end".into(),
                    json!({"run_id": pending_id, "status": "interrupted"}),
                ));
                tell(QueuedState::CalledOff);
                rec.finish();
            }
            Err(NotStarted::Refused(e)) => {
                rec.push((
                    "error".into(),
                    json!({"error": e.code, "message": e.message}),
                ));
                rec.push((
                    "end".into(),
                    json!({"run_id": pending_id, "status": "error"}),
                ));
                tell(QueuedState::Refused(e));
                rec.finish();
            }
        }
    });
    answer
}

/// A background run that has not started (yet) as LangGraph's `Run`.
fn queued_json(run_id: &str, rec: &Recorded, status: wire::RunState) -> wire::Run {
    let created_at = rec.queued.as_ref().map(|q| q.created_at.clone());
    wire::Run {
        run_id: run_id.into(),
        thread_id: rec.thread_id.clone(),
        assistant_id: shape::assistant_id(),
        created_at: created_at.clone(),
        updated_at: created_at,
        status,
        metadata: Map::new(),
        kwargs: Map::new(),
        multitask_strategy: "enqueue".into(),
    }
}

/// What a run id of a thread names.
enum Named {
    /// A stored run; `alias` is the id the client was given for it when it
    /// was answered before it started.
    Stored {
        run: persist::Run,
        alias: Option<String>,
    },
    /// A background run that has not started: waiting, refused or called off.
    Queued(Arc<Recorded>, QueuedState),
}

/// Finds run `run_id` of thread `thread_id`: a run waiting its turn (or
/// started from the queue) in the book first, else the store (not found
/// otherwise).
async fn named(api: &Api, thread_id: &str, run_id: &str) -> ApiResult<Named> {
    let waiting = api
        .runs
        .get(run_id)
        .filter(|rec| rec.thread_id == thread_id)
        .and_then(|rec| {
            let state = rec.queued.as_ref()?.state.borrow().clone();
            Some((rec, state))
        });
    let (core_id, alias) = match waiting {
        Some((_, QueuedState::Started(core))) if core != run_id => (core, Some(run_id.to_string())),
        Some((_, QueuedState::Started(_))) | None => (run_id.to_string(), None),
        Some((rec, state)) => return Ok(Named::Queued(rec, state)),
    };
    let tid = thread_id.to_string();
    let run = blocking(&api.app, move |app| lead_run(&app, &tid, &core_id)).await?;
    Ok(Named::Stored { run, alias })
}

/// A run as `GET` answers it (a queued one under the id it was given).
fn named_json(api: &Api, run_id: &str, named: &Named) -> wire::Run {
    match named {
        Named::Stored { run, alias } => {
            let queued = alias.is_some()
                || api
                    .runs
                    .get(&run.id)
                    .is_some_and(|rec| rec.queued.is_some());
            let mut v = run_json_with(run, if queued { "enqueue" } else { "reject" });
            if let Some(a) = alias {
                v.run_id = a.clone();
            }
            v
        }
        Named::Queued(rec, state) => {
            let status = match state {
                QueuedState::Waiting | QueuedState::Started(_) => wire::RunState::Pending,
                QueuedState::Refused(_) => wire::RunState::Error,
                QueuedState::CalledOff => wire::RunState::Interrupted,
            };
            queued_json(run_id, rec, status)
        }
    }
}

/// `GET /threads/{id}/runs`: the thread's runs, newest first.
pub(crate) async fn list(
    State(api): State<Api>,
    Path(thread_id): Path<String>,
) -> ApiResult<Json<Vec<wire::Run>>> {
    let facts = blocking(&api.app, move |app| ThreadFacts::read(&app, &thread_id)).await?;
    Ok(Json(facts.runs.iter().rev().map(run_json).collect()))
}

/// `GET /threads/{id}/runs/{rid}`.
pub(crate) async fn get(
    State(api): State<Api>,
    Path((thread_id, run_id)): Path<(String, String)>,
) -> ApiResult<Json<wire::Run>> {
    let found = named(&api, &thread_id, &run_id).await?;
    Ok(Json(named_json(&api, &run_id, &found)))
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
) -> ApiResult<Json<wire::Values>> {
    named(&api, &thread_id, &run_id).await?;
    finished(&api, &thread_id, &run_id).await?;
    let facts = blocking(&api.app, move |app| ThreadFacts::read(&app, &thread_id)).await?;
    Ok(Json(facts.values_upto(facts.messages.len(), true)))
}

#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
pub(crate) struct CancelQuery {
    /// Answer once the run has stopped: `1` or `true`.
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
    match named(&api, &thread_id, &run_id).await? {
        // Waiting its turn: it never starts.
        Named::Queued(rec, QueuedState::Waiting) => {
            if let Some(q) = &rec.queued {
                q.off.call();
            }
        }
        Named::Queued(_, state) => {
            let was = match state {
                QueuedState::Refused(_) => "refused when its turn came",
                _ => "called off before it started",
            };
            return Err(ApiError::conflict(format!(
                "run {run_id} is not running (it was {was}): nothing to cancel"
            )));
        }
        Named::Stored { run, .. } => {
            if run.status != RunStatus::Running || !api.app.chat().cancel_run(&run.id) {
                return Err(ApiError::conflict(format!(
                    "run {run_id} is not running (it is {}): nothing to cancel",
                    status_name(run.status)
                )));
            }
        }
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
