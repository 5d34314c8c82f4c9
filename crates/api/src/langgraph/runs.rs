//! Runs on a thread, LangGraph-style: `POST /threads/{id}/runs/stream`
//! answers with server-sent events (`metadata {run_id}` first, then the
//! events of each `stream_mode` asked for, `end` last) and
//! `POST /threads/{id}/runs/wait` with the final values. A run is the chat
//! companion's run (`Chat::start`, or `Chat::resume` for a
//! `command: {resume: …}` answering the approval feature's waiting calls);
//! its AG-UI events are translated here, and `values`/`updates` are read
//! back from what the run stored after each step. A run on a busy thread
//! is refused (`reject`) or, with `multitask_strategy: enqueue`, waits its
//! turn ([`ThreadTurns`]).

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::Arc;

use axum::extract::{Path, State};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::IntoResponse;
use axum::Json;
use deskmate_app::chat::agent::persist::{self, ApprovalDecision};
use deskmate_app::chat::agent::{AgUiEvent, RunStatus};
use deskmate_app::chat::{ChatContext, ChatImage, ChatMessage, ChatOptions, ChatRun};
use serde::Deserialize;
use serde_json::{json, Map, Value};
use tokio::sync::mpsc;

use super::shape::{self, ThreadFacts};
use super::translate::Translate;
use crate::error::{ApiError, ApiJson, ApiResult};
use crate::{blocking, Api};

/// A run as LangGraph's `RunCreate` asks for it (the fields Deskmate reads).
#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
pub(crate) struct RunCreate {
    #[serde(default)]
    assistant_id: Option<String>,
    #[serde(default)]
    input: Option<Value>,
    #[serde(default)]
    command: Option<Value>,
    #[serde(default)]
    pub(crate) stream_mode: Option<Value>,
    #[serde(default)]
    config: Option<Value>,
    #[serde(default)]
    context: Option<Value>,
    /// The deep-agents dialect's switch: `false` answers with one JSON.
    #[serde(default)]
    stream: Option<bool>,
    /// A stateless run's thread afterwards: `delete` (the default) or `keep`.
    #[serde(default)]
    on_completion: Option<String>,
    /// A run on a busy thread: `reject` (the default) is refused 409
    /// `chat.busy`; `enqueue` waits its turn; `interrupt` stops the run
    /// going on (its messages stay) and starts; `rollback` stops it,
    /// discards it and what it wrote, and starts.
    #[serde(default)]
    pub(crate) multitask_strategy: Option<String>,
}

/// What a new run does when its thread is busy (LangGraph's
/// `multitask_strategy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Strategy {
    Reject,
    Enqueue,
    Interrupt,
    Rollback,
}

impl Strategy {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Reject => "reject",
            Self::Enqueue => "enqueue",
            Self::Interrupt => "interrupt",
            Self::Rollback => "rollback",
        }
    }
}

impl RunCreate {
    /// The dialect rule: a request naming neither an assistant nor a
    /// stream mode is the deep-agents dialect; otherwise it is LangGraph's.
    pub(crate) fn is_deep_agents(&self) -> bool {
        self.assistant_id.is_none() && self.stream_mode.is_none()
    }

    /// The strategy asked for (`reject` when none is).
    pub(crate) fn strategy(&self) -> ApiResult<Strategy> {
        match self.multitask_strategy.as_deref() {
            None | Some("reject") => Ok(Strategy::Reject),
            Some("enqueue") => Ok(Strategy::Enqueue),
            Some("interrupt") => Ok(Strategy::Interrupt),
            Some("rollback") => Ok(Strategy::Rollback),
            Some(other) => Err(ApiError::invalid(format!(
                "multitask_strategy {other:?} is not one of reject, enqueue, interrupt, rollback"
            ))),
        }
    }

    /// Whether a run on a busy thread waits its turn (`enqueue`).
    pub(crate) fn enqueues(&self) -> bool {
        matches!(self.strategy(), Ok(Strategy::Enqueue))
    }
}

/// How often a run waiting its turn looks whether the thread is free.
const TURN_POLL: std::time::Duration = std::time::Duration::from_millis(20);

/// A thread's queue of runs waiting their turn.
pub(crate) type TurnQueue = Arc<tokio::sync::Mutex<()>>;

/// The runs of this server waiting their turn on a thread (`enqueue`), in
/// the order they came: only the first of a thread tries to start, the
/// others wait behind it (tokio's mutex is fair), so they start in order.
#[derive(Debug, Clone, Default)]
pub(crate) struct ThreadTurns {
    queues: Arc<std::sync::Mutex<HashMap<String, TurnQueue>>>,
}

impl ThreadTurns {
    pub(crate) fn queue(&self, thread_id: &str) -> TurnQueue {
        match self.queues.lock() {
            Ok(mut q) => {
                // Queues nobody waits in go (only this map holds them).
                q.retain(|_, m| Arc::strong_count(m) > 1);
                q.entry(thread_id.to_string()).or_default().clone()
            }
            Err(_) => Arc::default(),
        }
    }
}

/// A run's start that may be called off while it waits its turn (a
/// background run with `enqueue` cancelled before it started).
#[derive(Debug, Default)]
pub(crate) struct CallOff {
    pub(crate) called: std::sync::atomic::AtomicBool,
    pub(crate) notify: tokio::sync::Notify,
}

impl CallOff {
    pub(crate) fn call(&self) {
        self.called.store(true, std::sync::atomic::Ordering::SeqCst);
        self.notify.notify_one();
    }

    pub(crate) fn is_called(&self) -> bool {
        self.called.load(std::sync::atomic::Ordering::SeqCst)
    }

    async fn wait_unless_called<T>(&self, f: impl std::future::Future<Output = T>) -> Option<T> {
        if self.is_called() {
            return None;
        }
        tokio::select! {
            v = f => Some(v),
            _ = self.notify.notified() => None,
        }
    }
}

/// Why a run waiting its turn did not start.
pub(crate) enum NotStarted {
    Refused(ApiError),
    CalledOff,
}

impl From<ApiError> for NotStarted {
    fn from(e: ApiError) -> Self {
        Self::Refused(e)
    }
}

/// Starts a new message's run on `thread_id` (`enqueue`): waits while
/// another run holds the thread (whoever started it: this server, the
/// window, the CLI) and runs before it in this server's queue. `held` is
/// the queue's turn when the caller has it already; `off` may call the
/// waiting off (never a start under way).
pub(crate) async fn start_in_turn(
    api: &Api,
    thread_id: &str,
    msg: ChatMessage,
    opts: &ChatOptions,
    tx: mpsc::UnboundedSender<AgUiEvent>,
    held: Option<tokio::sync::OwnedMutexGuard<()>>,
    off: &CallOff,
) -> Result<ChatRun, NotStarted> {
    let _first = match held {
        Some(guard) => guard,
        None => {
            let queue = api.turns.queue(thread_id);
            off.wait_unless_called(queue.lock_owned())
                .await
                .ok_or(NotStarted::CalledOff)?
        }
    };
    loop {
        if off.is_called() {
            return Err(NotStarted::CalledOff);
        }
        match api.app.chat().start(msg.clone(), opts, tx.clone()).await {
            Err(e) if e.code() == "chat.busy" => {}
            other => return Ok(other.map_err(ApiError::from)?),
        }
        // Busy: wait until no run of the thread is going on, then try again.
        loop {
            off.wait_unless_called(tokio::time::sleep(TURN_POLL))
                .await
                .ok_or(NotStarted::CalledOff)?;
            let id = thread_id.to_string();
            let running = blocking(&api.app, move |app| {
                Ok(!persist::running_runs(app.store(), Some(&id))
                    .map_err(deskmate_app::AppError::from)?
                    .is_empty())
            })
            .await?;
            if !running {
                break;
            }
        }
    }
}

/// The stream modes asked for.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Modes {
    pub(super) values: bool,
    pub(super) updates: bool,
    pub(super) messages_tuple: bool,
    pub(super) messages: bool,
    pub(super) custom: bool,
    /// The deep-agents dialect's events instead (`message`, `tool`, `end`,
    /// `error`).
    pub(super) deep: bool,
}

impl Modes {
    /// Every mode but the legacy `messages` (what a background run records).
    pub(crate) fn all() -> Self {
        Self {
            values: true,
            updates: true,
            messages_tuple: true,
            messages: false,
            custom: true,
            deep: false,
        }
    }

    /// The deep-agents dialect.
    pub(crate) fn deep_agents() -> Self {
        Self {
            deep: true,
            ..Self::default()
        }
    }

    pub(crate) fn parse(v: Option<&Value>) -> ApiResult<Self> {
        let names: Vec<String> = match v {
            None | Some(Value::Null) => vec!["values".into()],
            Some(Value::String(s)) => vec![s.clone()],
            Some(Value::Array(a)) => a
                .iter()
                .map(|m| {
                    m.as_str().map(str::to_string).ok_or_else(|| {
                        ApiError::invalid("stream_mode is a name or a list of names")
                    })
                })
                .collect::<ApiResult<_>>()?,
            Some(_) => {
                return Err(ApiError::invalid(
                    "stream_mode is a name or a list of names",
                ))
            }
        };
        let mut m = Modes::default();
        for n in names {
            match n.as_str() {
                "values" => m.values = true,
                "updates" => m.updates = true,
                "messages-tuple" => m.messages_tuple = true,
                "messages" => m.messages = true,
                "custom" => m.custom = true,
                other => {
                    return Err(ApiError::invalid(format!(
                        "stream_mode {other:?} is not served (values, updates, messages, messages-tuple, custom)"
                    )))
                }
            }
        }
        Ok(m)
    }
}

/// The companion's context keys a run may set in `config.configurable` or
/// `context`.
const CONTEXT_KEYS: &[&str] = &[
    "model",
    "system_prompt",
    "tools",
    "subagents",
    "approvals",
    "subagent_depth",
];

fn options(body: &RunCreate) -> ApiResult<ChatOptions> {
    let configurable = body
        .config
        .as_ref()
        .and_then(|c| c.get("configurable"))
        .and_then(Value::as_object);
    chat_options(&[
        configurable,
        body.context.as_ref().and_then(Value::as_object),
    ])
}

/// The companion's options from the context keys of `sources` (a later
/// source's key wins).
pub(crate) fn chat_options(sources: &[Option<&Map<String, Value>>]) -> ApiResult<ChatOptions> {
    let mut ctx = Map::new();
    for source in sources.iter().flatten() {
        for k in CONTEXT_KEYS {
            if let Some(v) = source.get(*k) {
                ctx.insert((*k).to_string(), v.clone());
            }
        }
    }
    let context = if ctx.is_empty() {
        None
    } else {
        Some(
            serde_json::from_value::<ChatContext>(Value::Object(ctx))
                .map_err(|e| ApiError::invalid(format!("the run's context cannot be used: {e}")))?,
        )
    };
    Ok(ChatOptions {
        model: None,
        base_url: None,
        context,
    })
}

/// The last human message of `input.messages`: its text and data-URL images.
fn message_of(thread_id: &str, input: &Value) -> ApiResult<ChatMessage> {
    let messages = input
        .get("messages")
        .and_then(Value::as_array)
        .ok_or_else(|| {
            ApiError::invalid(
                "input.messages is missing: give [{\"role\": \"user\", \"content\": \"…\"}]",
            )
        })?;
    let last = messages
        .iter()
        .rev()
        .find(|m| {
            matches!(
                m.get("role")
                    .or_else(|| m.get("type"))
                    .and_then(Value::as_str),
                Some("user" | "human")
            )
        })
        .ok_or_else(|| ApiError::invalid("input.messages has no user message"))?;
    let mut text = String::new();
    let mut images = Vec::new();
    match last.get("content") {
        Some(Value::String(s)) => text.push_str(s),
        Some(Value::Array(parts)) => {
            for p in parts {
                match p.get("type").and_then(Value::as_str) {
                    Some("text") => {
                        text.push_str(p.get("text").and_then(Value::as_str).unwrap_or(""))
                    }
                    Some("image_url") => {
                        let url = p
                            .get("image_url")
                            .and_then(|u| u.get("url").or(Some(u)))
                            .and_then(Value::as_str)
                            .unwrap_or("");
                        let (media_type, data) = url
                            .strip_prefix("data:")
                            .and_then(|r| r.split_once(";base64,"))
                            .ok_or_else(|| {
                                ApiError::invalid(
                                    "an image is sent as a data URL (data:image/png;base64,…)",
                                )
                            })?;
                        images.push(ChatImage {
                            media_type: media_type.to_string(),
                            data_base64: data.to_string(),
                        });
                    }
                    _ => return Err(ApiError::invalid("a message part is text or image_url")),
                }
            }
        }
        _ => return Err(ApiError::invalid("the user message has no content")),
    }
    Ok(ChatMessage {
        thread_id: Some(thread_id.to_string()),
        profile_id: None,
        text,
        images,
        attachments: vec![],
    })
}

/// One decision from a `resume` value: `"approve"`, `"reject"`, or the
/// protocol's `{"decision": "approve"|"edit"|"reject"|"respond", …}`.
pub(crate) fn decision_of(v: &Value) -> ApiResult<ApprovalDecision> {
    match v {
        Value::String(s) => match s.as_str() {
            "approve" | "approved" | "accept" | "yes" => Ok(ApprovalDecision::Approve),
            "reject" | "rejected" | "no" => Ok(ApprovalDecision::Reject {
                reason: "a parent said no".into(),
            }),
            other => Err(ApiError::invalid(format!(
                "resume {other:?} is no decision: give \"approve\", \"reject\" or {{\"decision\": \"edit\", \"arguments\": \"…\"}}"
            ))),
        },
        Value::Object(_) => serde_json::from_value(v.clone()).map_err(|e| {
            ApiError::invalid(format!(
                "the resume value is no decision ({e}): give {{\"decision\": \"approve\"}}, \"edit\" with arguments, \"reject\" with a reason or \"respond\" with an answer"
            ))
        }),
        _ => Err(ApiError::invalid("resume takes a decision or a map of interrupt ids to decisions")),
    }
}

/// Applies `command.resume` to the thread's waiting calls and returns the
/// lead's run to continue. Call off the executor.
fn apply_resume(
    app: &deskmate_app::Deskmate,
    thread_id: &str,
    resume: &Value,
) -> ApiResult<String> {
    let facts = ThreadFacts::read(app, thread_id)?;
    if facts.waiting.is_empty() {
        return Err(ApiError::conflict(format!(
            "nothing waits on thread {thread_id}: a resume answers an interrupt"
        )));
    }
    let per_call = resume.as_object().filter(|m| {
        !m.contains_key("decision")
            && m.keys()
                .any(|k| facts.waiting.iter().any(|w| &w.tool_call_id == k))
    });
    for w in &facts.waiting {
        let v = match per_call {
            Some(m) => match m.get(&w.tool_call_id) {
                Some(v) => v,
                None => continue,
            },
            None => resume,
        };
        app.chat()
            .decide_approval(&w.run_id, &w.tool_call_id, &decision_of(v)?)?;
    }
    let first = facts
        .waiting
        .first()
        .map(|w| w.run_id.clone())
        .unwrap_or_default();
    Ok(persist::root_run(app.store(), &first)
        .map_err(deskmate_app::AppError::from)?
        .id)
}

/// A run started: its handle, its AG-UI events and whether it was resumed.
pub(crate) type Started = (ChatRun, mpsc::UnboundedReceiver<AgUiEvent>, bool);

/// A run a request asks for, checked: a new message's, or the run an
/// interrupt's answer continues.
pub(crate) enum Launch {
    New { msg: ChatMessage, opts: ChatOptions },
    Resume { run_id: String, opts: ChatOptions },
}

/// Checks what a request asks for (the assistant, the thread, the input)
/// and, for a resume, applies its decisions: refusals come before any run
/// starts.
pub(crate) async fn prepare_launch(
    api: &Api,
    thread_id: &str,
    body: &RunCreate,
) -> ApiResult<Launch> {
    if let Some(a) = &body.assistant_id {
        if !shape::is_assistant(a) {
            return Err(ApiError::not_found(format!(
                "no assistant {a}: use {} or {}",
                shape::GRAPH_ID,
                shape::assistant_id()
            )));
        }
    }
    body.strategy()?;
    let opts = options(body)?;
    let id = thread_id.to_string();
    let resume = body.command.as_ref().and_then(|c| c.get("resume")).cloned();
    match resume {
        Some(resume) => {
            let run_id = blocking(&api.app, move |app| apply_resume(&app, &id, &resume)).await?;
            Ok(Launch::Resume { run_id, opts })
        }
        None => {
            // Not found before anything is stored.
            let check = id.clone();
            blocking(&api.app, move |app| {
                ThreadFacts::read(&app, &check).map(|_| ())
            })
            .await?;
            let input = body.input.as_ref().ok_or_else(|| {
                ApiError::invalid(
                    "a run needs input.messages, or command.resume to answer an interrupt",
                )
            })?;
            let msg = message_of(&id, input)?;
            Ok(Launch::New { msg, opts })
        }
    }
}

/// Starts (or resumes) a checked run; on a busy thread a new one waits its
/// turn (`enqueue`) or takes the thread over (`interrupt`, `rollback`).
pub(crate) async fn launch(
    api: &Api,
    thread_id: &str,
    launch: Launch,
    strategy: Strategy,
) -> ApiResult<Started> {
    let (tx, rx) = mpsc::unbounded_channel();
    match launch {
        Launch::Resume { run_id, opts } => {
            let run = api.app.chat().resume(&run_id, &opts, tx).await?;
            Ok((run, rx, true))
        }
        Launch::New { msg, opts } if strategy == Strategy::Reject => {
            let run = api.app.chat().start(msg, &opts, tx).await?;
            Ok((run, rx, false))
        }
        Launch::New { msg, opts } if strategy != Strategy::Enqueue => {
            let rollback = strategy == Strategy::Rollback;
            let run = take_over(api, thread_id, msg, &opts, tx, rollback).await?;
            Ok((run, rx, false))
        }
        Launch::New { msg, opts } => {
            let off = CallOff::default();
            match start_in_turn(api, thread_id, msg, &opts, tx, None, &off).await {
                Ok(run) => Ok((run, rx, false)),
                Err(NotStarted::Refused(e)) => Err(e),
                Err(NotStarted::CalledOff) => Err(ApiError::conflict("the run was called off")),
            }
        }
    }
}

/// Starts (or resumes) the run a request asks for.
pub(crate) async fn start(api: &Api, thread_id: &str, body: &RunCreate) -> ApiResult<Started> {
    let l = prepare_launch(api, thread_id, body).await?;
    launch(api, thread_id, l, body.strategy()?).await
}

/// How long `interrupt` and `rollback` wait for the run going on to stop.
const STOP_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// Starts a new message's run on a busy thread by stopping the lead's run
/// going on (`interrupt`: what it wrote stays, its status `interrupted`);
/// with `rollback` the stopped run is then discarded with everything it
/// wrote, so the new run starts from the thread as it was before it. A
/// run this server cannot stop (the window's or the CLI's, in another
/// process) is left alone: 409 `chat.busy`.
async fn take_over(
    api: &Api,
    thread_id: &str,
    msg: ChatMessage,
    opts: &ChatOptions,
    tx: mpsc::UnboundedSender<AgUiEvent>,
    rollback: bool,
) -> ApiResult<ChatRun> {
    let until = std::time::Instant::now() + STOP_WAIT;
    let mut stopped: Vec<String> = Vec::new();
    loop {
        let id = thread_id.to_string();
        let running: Vec<String> = blocking(&api.app, move |app| {
            Ok(persist::running_runs(app.store(), Some(&id))
                .map_err(deskmate_app::AppError::from)?
                .into_iter()
                .filter(|r| r.parent_run_id.is_none())
                .map(|r| r.id)
                .collect())
        })
        .await?;
        if running.is_empty() {
            if rollback && !stopped.is_empty() {
                let gone = std::mem::take(&mut stopped);
                blocking(&api.app, move |app| {
                    for run in &gone {
                        persist::discard_run(app.store(), run)
                            .map_err(deskmate_app::AppError::from)?;
                    }
                    Ok(())
                })
                .await?;
            }
            match api.app.chat().start(msg.clone(), opts, tx.clone()).await {
                // The stopped run still lets go of the thread.
                Err(e) if e.code() == "chat.busy" => {}
                other => return Ok(other?),
            }
        }
        for run in running {
            if stopped.contains(&run) {
                continue;
            }
            if !api.app.chat().cancel_run(&run) {
                return Err(ApiError::new(
                    axum::http::StatusCode::CONFLICT,
                    "chat.busy",
                    format!(
                        "run {run} on thread {thread_id} is not this server's to stop (the window's or the CLI's): try again when it has finished, or use multitask_strategy enqueue"
                    ),
                ));
            }
            stopped.push(run);
        }
        if std::time::Instant::now() > until {
            return Err(ApiError::new(
                axum::http::StatusCode::CONFLICT,
                "chat.busy",
                format!(
                    "the run going on on thread {thread_id} did not stop within {} s",
                    STOP_WAIT.as_secs()
                ),
            ));
        }
        tokio::time::sleep(TURN_POLL).await;
    }
}

/// Follows a run to its end, translating its events onto `out`.
pub(crate) async fn follow(
    api: Api,
    thread_id: String,
    modes: Modes,
    (run, rx, resumed): Started,
    out: mpsc::UnboundedSender<(String, Value)>,
) -> Translate {
    let mut rx = rx;
    let mut t = Translate {
        app: api.app.clone(),
        thread_id,
        run_id: run.run_id.clone(),
        modes,
        seen: 0,
        partial: HashMap::new(),
        step: 0,
        out,
        last_values: json!({}),
        values_sent: false,
        error: None,
        status: "error",
    };
    if !modes.deep {
        t.send("metadata", json!({"run_id": run.run_id, "attempt": 1}));
    }
    // The input as the graph took it: the conversation with the new message.
    let begun = t.begin(resumed).await;
    if let Err(e) = begun.and(t.sync(false).await) {
        t.send("error", json!({"error": e.code, "message": e.message}));
    }
    while let Some(ev) = rx.recv().await {
        if let Err(e) = t.on(ev).await {
            t.send("error", json!({"error": e.code, "message": e.message}));
        }
    }
    match run.done.await {
        Ok(outcome) => {
            t.status = match outcome.status {
                RunStatus::Completed => "success",
                RunStatus::Interrupted | RunStatus::Cancelled => "interrupted",
                _ => "error",
            };
        }
        Err(e) => {
            let err =
                json!({"error": "error", "message": format!("the run stopped unexpectedly: {e}")});
            t.send("error", err.clone());
            t.error = Some(err);
        }
    }
    t
}

/// `POST /threads/{id}/runs/stream`.
pub(crate) async fn stream(
    State(api): State<Api>,
    Path(thread_id): Path<String>,
    ApiJson(body): ApiJson<RunCreate>,
) -> ApiResult<axum::response::Response> {
    stream_on(api, thread_id, body, false).await
}

/// A stateless run's thread: made for the run, deleted after it unless
/// `on_completion` is `keep`.
async fn stateless_thread(api: &Api, body: &RunCreate) -> ApiResult<(String, bool)> {
    let delete = match body.on_completion.as_deref() {
        None | Some("delete") => true,
        Some("keep") => false,
        Some(other) => {
            return Err(ApiError::invalid(format!(
                "on_completion is delete or keep, not {other:?}"
            )))
        }
    };
    let id = blocking(&api.app, |app| {
        Ok(app.chat().create_thread(None, &Map::new())?.id)
    })
    .await?;
    Ok((id, delete))
}

/// Deletes a stateless run's thread once its run has ended.
async fn forget(api: &Api, thread_id: String) {
    let gone = blocking(&api.app, move |app| {
        Ok(app.chat().delete_thread(&thread_id)?)
    })
    .await;
    // A thread that cannot be deleted stays, like a kept one.
    if let Err(e) = gone {
        tracing::warn!("a stateless run's thread stays: {}", e.message);
    }
}

/// `POST /runs/stream`: a stateless run (on a thread of its own).
pub(crate) async fn stream_stateless(
    State(api): State<Api>,
    ApiJson(body): ApiJson<RunCreate>,
) -> ApiResult<axum::response::Response> {
    let (thread_id, delete) = stateless_thread(&api, &body).await?;
    stream_on(api, thread_id, body, delete).await
}

/// `POST /runs/wait`: a stateless run waited for.
pub(crate) async fn wait_stateless(
    State(api): State<Api>,
    ApiJson(body): ApiJson<RunCreate>,
) -> ApiResult<Json<Value>> {
    let (thread_id, delete) = stateless_thread(&api, &body).await?;
    let answer = wait_on(api.clone(), thread_id.clone(), body).await;
    if delete {
        forget(&api, thread_id).await;
    }
    answer
}

async fn stream_on(
    api: Api,
    thread_id: String,
    body: RunCreate,
    delete_after: bool,
) -> ApiResult<axum::response::Response> {
    let deep = body.is_deep_agents();
    let modes = if deep {
        Modes::deep_agents()
    } else {
        Modes::parse(body.stream_mode.as_ref())?
    };
    let started = match start(&api, &thread_id, &body).await {
        Ok(started) => started,
        Err(e) => {
            if delete_after {
                forget(&api, thread_id).await;
            }
            return Err(e);
        }
    };
    if deep && body.stream == Some(false) {
        let answer = deep_answer(api.clone(), thread_id.clone(), started).await;
        if delete_after {
            forget(&api, thread_id).await;
        }
        return Ok(Json(answer).into_response());
    }
    // Where the run is (the SDK's `on_run_created` reads it); never
    // `Location`, which the SDK would reconnect to.
    let location = format!("/threads/{thread_id}/runs/{}", started.0.run_id);
    let (tx, out) = mpsc::unbounded_channel::<(String, Value)>();
    tokio::spawn(async move {
        let t = follow(api.clone(), thread_id.clone(), modes, started, tx).await;
        let end = if deep {
            deep_end(&t)
        } else {
            json!({"run_id": t.run_id, "status": t.status})
        };
        if delete_after {
            forget(&api, thread_id).await;
        }
        t.send("end", end);
    });
    let events = futures_util::stream::unfold((out, 0usize), |(mut out, n)| async move {
        let (name, data) = out.recv().await?;
        let event = Event::default()
            .id(n.to_string())
            .event(name)
            .data(serde_json::to_string(&data).unwrap_or_else(|_| "null".into()));
        Some((Ok::<_, Infallible>(event), (out, n + 1)))
    });
    Ok((
        [(axum::http::header::CONTENT_LOCATION, location)],
        Sse::new(events).keep_alive(KeepAlive::default()),
    )
        .into_response())
}

/// The deep-agents dialect's `end`: `completed`, `interrupted` or `error`
/// with the error's message.
fn deep_end(t: &Translate) -> Value {
    let status = match t.status {
        "success" => "completed",
        other => other,
    };
    let error = t
        .error
        .as_ref()
        .and_then(|e| e.get("message"))
        .cloned()
        .unwrap_or(Value::Null);
    json!({"run_id": t.run_id, "status": status, "error": error})
}

/// The deep-agents dialect with `stream: false`: the run's `message` and
/// `tool` events gathered into one answer with how it ended.
async fn deep_answer(api: Api, thread_id: String, started: Started) -> Value {
    let (tx, mut out) = mpsc::unbounded_channel::<(String, Value)>();
    let gather = tokio::spawn(async move {
        let (mut messages, mut tools) = (Vec::new(), Vec::new());
        while let Some((event, data)) = out.recv().await {
            match event.as_str() {
                "message" => messages.push(data),
                "tool" => tools.push(data),
                _ => {}
            }
        }
        (messages, tools)
    });
    let t = follow(api, thread_id.clone(), Modes::deep_agents(), started, tx).await;
    let mut answer = deep_end(&t);
    drop(t);
    let (messages, tools) = gather.await.unwrap_or_default();
    if let Some(o) = answer.as_object_mut() {
        o.insert("thread_id".into(), json!(thread_id));
        o.insert("messages".into(), Value::Array(messages));
        o.insert("tools".into(), Value::Array(tools));
    }
    answer
}

/// `POST /threads/{id}/runs/wait`: the final values (with `__interrupt__`
/// when the run paused, `__error__` when it failed).
pub(crate) async fn wait(
    State(api): State<Api>,
    Path(thread_id): Path<String>,
    ApiJson(body): ApiJson<RunCreate>,
) -> ApiResult<Json<Value>> {
    wait_on(api, thread_id, body).await
}

async fn wait_on(api: Api, thread_id: String, body: RunCreate) -> ApiResult<Json<Value>> {
    let started = start(&api, &thread_id, &body).await?;
    let (tx, mut out) = mpsc::unbounded_channel();
    // Nothing reads the parts: drop them as they come.
    let drain = tokio::spawn(async move { while out.recv().await.is_some() {} });
    let t = follow(api, thread_id, Modes::default(), started, tx).await;
    let mut values = t.last_values.clone();
    if let (Some(err), Some(obj)) = (&t.error, values.as_object_mut()) {
        obj.insert("__error__".into(), err.clone());
    }
    drop(t);
    let _ = drain.await;
    Ok(Json(values))
}
