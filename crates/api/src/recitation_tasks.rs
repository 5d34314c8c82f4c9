//! Recitation checks as tasks (the lamp design's asynchronous runs):
//! `POST /recitation/tasks` takes the body `POST /recitation/check` takes
//! (JSON or a form with the recording), refuses bad input at once as the
//! check does, and answers 202 `{task_id, status}`; the check then runs in
//! the background and `GET /recitation/tasks/{id}` tells where it is —
//! `{task_id, status: queued|running|done|failed, progress: {phase, step,
//! steps}, result?, error?}` — while `GET /recitation/tasks/{id}/stream`
//! sends the same object as server-sent events: the current state first
//! (a client joining late misses nothing it needs), then each change, the
//! last one `done` (with the result) or `failed` (with the error).
//!
//! **Where tasks live:** in memory, in this server process ([`TaskBook`]).
//! They are a way of waiting for a check, not a record of it: the attempt
//! a check records for a child is in SQLite like every other attempt, so
//! nothing is lost when the server stops but the tasks' states. The book
//! keeps at most [`MAX_TASKS`] tasks; a finished one expires
//! [`TASK_TTL`] after it finished, and when the book is full of unfinished
//! tasks a new one is refused (409 `recitation.tasks_full`). Checks run one
//! at a time (the speech models hear one recording at a time anyway), each
//! on the blocking pool, so the async executor never waits on whisper.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::Json;
use deskmate_app::recording::CheckPhase;
use futures_util::Stream;
use serde::Serialize;
use serde_json::{json, Value};
use tokio::sync::{watch, Semaphore};

use crate::error::{ApiError, ApiResult};
use crate::scenes::{prepare, CheckRequest, Prepared};
use crate::upload::JsonOrForm;
use crate::Api;

/// The most tasks the book keeps.
pub const MAX_TASKS: usize = 256;

/// How long a finished task stays to be read.
pub const TASK_TTL: Duration = Duration::from_secs(60 * 60);

/// Where a task is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Queued,
    Running,
    Done,
    Failed,
}

impl Status {
    fn finished(self) -> bool {
        matches!(self, Self::Done | Self::Failed)
    }
}

/// A task's progress (the schema of [`TaskState::progress`]).
#[derive(schemars::JsonSchema)]
#[allow(dead_code)]
struct TaskProgress {
    /// `queued`, `starting`, `loading_models`, `hearing`, `judging`,
    /// `recording`, `done` or `failed`.
    phase: String,
    step: usize,
    steps: usize,
    /// Whether the check records an attempt for a child.
    records: bool,
}

/// A task's state, as `GET` answers it and the stream sends it.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct TaskState {
    pub task_id: String,
    pub status: Status,
    /// `phase` (`queued`, then the check's phases, then `done` or
    /// `failed`), `step` of `steps`, and whether the check `records` an
    /// attempt for a child.
    #[schemars(with = "TaskProgress")]
    pub progress: Value,
    /// What the check answers (as `POST /recitation/check` does).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<serde_json::Map<String, Value>>")]
    pub result: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ApiError>,
    pub created_at: String,
    pub updated_at: String,
}

#[derive(Debug)]
struct Task {
    state: watch::Sender<TaskState>,
    /// When it finished (for expiry).
    finished: Mutex<Option<Instant>>,
}

impl Task {
    fn update(&self, f: impl FnOnce(&mut TaskState)) {
        self.state.send_modify(|s| {
            f(s);
            s.updated_at = now();
        });
        if self.state.borrow().status.finished() {
            if let Ok(mut at) = self.finished.lock() {
                at.get_or_insert_with(Instant::now);
            }
        }
    }

    fn expired(&self) -> bool {
        self.finished
            .lock()
            .ok()
            .and_then(|at| *at)
            .is_some_and(|at| at.elapsed() > TASK_TTL)
    }
}

/// This server's recitation tasks, and the one turn they run in.
#[derive(Debug, Clone)]
pub(crate) struct TaskBook {
    tasks: Arc<Mutex<HashMap<String, Arc<Task>>>>,
    turn: Arc<Semaphore>,
}

impl Default for TaskBook {
    fn default() -> Self {
        Self {
            tasks: Arc::default(),
            turn: Arc::new(Semaphore::new(1)),
        }
    }
}

impl TaskBook {
    /// Files a new task (expired ones go first); refused when the book is
    /// full of unfinished tasks.
    fn file(&self, records: bool) -> ApiResult<Arc<Task>> {
        let mut tasks = self
            .tasks
            .lock()
            .map_err(|_| ApiError::internal("the recitation tasks' lock was poisoned"))?;
        tasks.retain(|_, t| !t.expired());
        if tasks.len() >= MAX_TASKS {
            // The oldest finished task makes room; none finished: refused.
            let oldest = tasks
                .iter()
                .filter_map(|(id, t)| t.finished.lock().ok().and_then(|at| *at).map(|at| (at, id)))
                .min()
                .map(|(_, id)| id.clone());
            match oldest {
                Some(id) => {
                    tasks.remove(&id);
                }
                None => {
                    return Err(ApiError::new(
                        StatusCode::CONFLICT,
                        "recitation.tasks_full",
                        format!(
                            "{MAX_TASKS} recitation tasks are waiting or running: wait for one to finish, or check synchronously with POST /recitation/check"
                        ),
                    ))
                }
            }
        }
        let id = uuid::Uuid::now_v7().to_string();
        let at = now();
        let (state, _) = watch::channel(TaskState {
            task_id: id.clone(),
            status: Status::Queued,
            progress: progress("queued", 0, records),
            result: None,
            error: None,
            created_at: at.clone(),
            updated_at: at,
        });
        let task = Arc::new(Task {
            state,
            finished: Mutex::new(None),
        });
        tasks.insert(id, task.clone());
        Ok(task)
    }

    fn get(&self, id: &str) -> ApiResult<Arc<Task>> {
        self.tasks
            .lock()
            .ok()
            .and_then(|t| t.get(id).filter(|t| !t.expired()).cloned())
            .ok_or_else(|| {
                ApiError::not_found(format!(
                    "no recitation task {id} (tasks live in the server that took them, for an hour after they finish)"
                ))
            })
    }
}

fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

fn progress(phase: &str, step: usize, records: bool) -> Value {
    json!({
        "phase": phase,
        "step": step,
        "steps": CheckPhase::ALL.len(),
        "records": records,
    })
}

fn phase_name(p: CheckPhase) -> &'static str {
    match p {
        CheckPhase::LoadingModels => "loading_models",
        CheckPhase::Hearing => "hearing",
        CheckPhase::Judging => "judging",
        CheckPhase::Recording => "recording",
    }
}

/// `POST /recitation/tasks`: 202 `{task_id, status}`; the check runs in
/// the background.
pub(crate) async fn create(
    State(api): State<Api>,
    body: JsonOrForm<CheckRequest>,
) -> ApiResult<(StatusCode, Json<crate::wire::TaskFiled>)> {
    let prepared = prepare(&api, body).await?;
    let records = prepared.records();
    let task = api.tasks.file(records)?;
    let id = task.state.borrow().task_id.clone();
    tokio::spawn(run(api.clone(), task, prepared, records));
    Ok((
        StatusCode::ACCEPTED,
        Json(crate::wire::TaskFiled {
            task_id: id,
            status: Status::Queued,
        }),
    ))
}

/// Waits for the turn, then runs the check on the blocking pool, telling
/// the task each phase.
async fn run(api: Api, task: Arc<Task>, prepared: Prepared, records: bool) {
    let _turn = api.tasks.turn.clone().acquire_owned().await;
    task.update(|s| {
        s.status = Status::Running;
        s.progress = progress("starting", 0, records);
    });
    let (app, working) = (api.app.clone(), task.clone());
    let outcome = tokio::task::spawn_blocking(move || {
        prepared.run(&app, &mut |phase| {
            working.update(|s| s.progress = progress(phase_name(phase), phase.step(), records));
        })
    })
    .await
    .unwrap_or_else(|e| Err(ApiError::internal(format!("the check stopped: {e}"))));
    task.update(|s| match outcome {
        Ok(result) => {
            s.status = Status::Done;
            s.progress = progress("done", CheckPhase::ALL.len(), records);
            s.result = Some(result);
        }
        Err(e) => {
            s.status = Status::Failed;
            s.progress = progress(
                "failed",
                s.progress["step"].as_u64().unwrap_or(0) as usize,
                records,
            );
            s.error = Some(e);
        }
    });
}

/// `GET /recitation/tasks/{id}`.
pub(crate) async fn get(
    State(api): State<Api>,
    Path(id): Path<String>,
) -> ApiResult<Json<TaskState>> {
    let task = api.tasks.get(&id)?;
    let state = task.state.borrow().clone();
    Ok(Json(state))
}

/// `GET /recitation/tasks/{id}/stream`: the task's state now, then each
/// change, ending with `done` or `failed`.
pub(crate) async fn stream(
    State(api): State<Api>,
    Path(id): Path<String>,
) -> ApiResult<Sse<impl Stream<Item = Result<Event, Infallible>>>> {
    let task = api.tasks.get(&id)?;
    let mut rx = task.state.subscribe();
    rx.mark_changed();
    // `ended` once the last state went out.
    let events = futures_util::stream::unfold((rx, false), |(mut rx, ended)| async move {
        if ended || rx.changed().await.is_err() {
            return None;
        }
        let state = rx.borrow_and_update().clone();
        let name = match state.status {
            Status::Done => "done",
            Status::Failed => "failed",
            Status::Queued | Status::Running => "progress",
        };
        let event = Event::default()
            .event(name)
            .data(serde_json::to_string(&state).unwrap_or_else(|_| "null".into()));
        Some((Ok(event), (rx, state.status.finished())))
    });
    Ok(Sse::new(events).keep_alive(KeepAlive::default()))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn the_book_is_capped_and_finished_tasks_expire() {
        let book = TaskBook::default();
        let first = book.file(false).unwrap();
        let first_id = first.state.borrow().task_id.clone();
        for _ in 1..MAX_TASKS {
            book.file(false).unwrap();
        }
        // Full of unfinished tasks: refused.
        let refused = book.file(true).unwrap_err();
        assert_eq!(
            (refused.status, refused.code.as_str()),
            (StatusCode::CONFLICT, "recitation.tasks_full")
        );
        // One finished: it makes room for the next.
        first.update(|s| s.status = Status::Done);
        assert!(first.finished.lock().unwrap().is_some());
        let next = book.file(true).unwrap();
        assert_eq!(next.state.borrow().progress["records"], true);
        assert_eq!(
            book.get(&first_id).unwrap_err().status,
            StatusCode::NOT_FOUND
        );
        // A task finished longer ago than TASK_TTL is gone.
        let next_id = next.state.borrow().task_id.clone();
        next.update(|s| s.status = Status::Failed);
        assert!(book.get(&next_id).is_ok());
        *next.finished.lock().unwrap() =
            Instant::now().checked_sub(TASK_TTL + Duration::from_secs(1));
        assert_eq!(
            book.get(&next_id).unwrap_err().status,
            StatusCode::NOT_FOUND
        );
        assert_eq!(book.tasks.lock().unwrap().len(), MAX_TASKS);
        book.file(false).unwrap();
        assert_eq!(
            book.tasks.lock().unwrap().len(),
            MAX_TASKS,
            "the expired one went first"
        );
    }
}
