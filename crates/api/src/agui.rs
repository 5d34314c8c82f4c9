//! AG-UI over HTTP: `POST /ag-ui` takes AG-UI's `RunAgentInput` and answers
//! with the companion's run as AG-UI events, one `data:` line each (what
//! `@ag-ui/client`'s `HttpAgent` reads). The events are the ones the core
//! emits for the window (`deskmate chat --events` prints the same), with
//! the run's `threadId` and `runId` the client's own. A client's thread id
//! is kept in the chat thread's metadata (`ag_ui_thread_id`), so the next
//! run with that id continues the same conversation.
//!
//! Interrupts (AG-UI 1.0): a run that pauses for a parent's approval ends
//! with `RUN_FINISHED` whose `outcome` is `{type: "interrupt", interrupts}`
//! (one per waiting call, its id the call's); a second `POST /ag-ui` on the
//! same thread whose `resume` answers every one of them continues the same
//! run — the core's run, as `command.resume` does on the LangGraph side.
//! `forwardedProps` may carry the companion's context (`approvals`,
//! `model`, `system_prompt`, `tools`, `subagents`, `subagent_depth`), and
//! `mode: "supervisor"` for supervisor mode (seed 004): a supervisor hands
//! the message to the team's agents in turn, each hand-off a
//! `STEP_STARTED`/`STEP_FINISHED` pair named after the agent with its reply
//! as a text message inside, at most 25 hand-offs (not stored as a
//! conversation yet).

use std::convert::Infallible;

use axum::extract::State;
use axum::response::sse::{Event, KeepAlive, Sse};
use deskmate_app::chat::agent::persist::ApprovalDecision;
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
    /// Answers to the interrupts that ended the thread's last run: the run
    /// continues instead of a new one starting (its messages are not read).
    #[serde(default)]
    resume: Option<Vec<ResumeEntry>>,
    /// Values for the agent: the companion's context keys are read, and
    /// `mode` (`"agent"`, the default, or `"supervisor"`).
    #[serde(default)]
    forwarded_props: Option<Value>,
}

/// AG-UI 1.0's answer to one interrupt.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ResumeEntry {
    /// The interrupt's id: the waiting tool call's.
    interrupt_id: String,
    status: ResumeStatus,
    /// The decision: `"approve"`, `"reject"`, `{approved: bool, reason?}`,
    /// `{editedArgs: {…}}`, or the protocol's `{decision: approve|edit|reject|respond, …}`;
    /// absent with `resolved` approves.
    #[serde(default)]
    payload: Option<Value>,
}

/// Whether an interrupt was answered or abandoned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum ResumeStatus {
    Resolved,
    Cancelled,
}

impl ResumeEntry {
    /// The parent's decision this entry carries.
    fn decision(&self) -> ApiResult<ApprovalDecision> {
        if self.status == ResumeStatus::Cancelled {
            return Ok(ApprovalDecision::Reject {
                reason: "the request was cancelled".into(),
            });
        }
        let Some(payload) = &self.payload else {
            return Ok(ApprovalDecision::Approve);
        };
        if let Some(args) = payload.get("editedArgs") {
            let arguments = match args {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            return Ok(ApprovalDecision::Edit { arguments });
        }
        if let Some(approved) = payload.get("approved").and_then(Value::as_bool) {
            return Ok(if approved {
                ApprovalDecision::Approve
            } else {
                ApprovalDecision::Reject {
                    reason: payload
                        .get("reason")
                        .and_then(Value::as_str)
                        .unwrap_or("a parent said no")
                        .to_string(),
                }
            });
        }
        crate::langgraph::decision_of(payload).map_err(|e| {
            ApiError::invalid(format!(
                "resume for interrupt {}: {}",
                self.interrupt_id, e.message
            ))
        })
    }
}

/// The chat thread of an AG-UI thread id, when there is one.
fn find_thread(app: &deskmate_app::Deskmate, client_thread: &str) -> ApiResult<Option<String>> {
    let store = app.store();
    for t in persist::list_threads(store, None).map_err(deskmate_app::AppError::from)? {
        let meta = persist::thread_metadata(store, &t.id).map_err(deskmate_app::AppError::from)?;
        if meta.get(THREAD_KEY).and_then(Value::as_str) == Some(client_thread) {
            return Ok(Some(t.id));
        }
    }
    Ok(None)
}

/// Applies `resume` to the waiting calls of the AG-UI thread
/// `client_thread` and returns the core's run to continue. Every waiting
/// call must be answered, and nothing else: a refusal decides nothing.
/// Call off the executor.
fn apply_resume(
    app: &deskmate_app::Deskmate,
    client_thread: &str,
    resume: &[ResumeEntry],
) -> ApiResult<String> {
    let thread_id = find_thread(app, client_thread)?.ok_or_else(|| {
        ApiError::not_found(format!(
            "no thread {client_thread}: a resume continues a run that paused on it"
        ))
    })?;
    let waiting: Vec<_> = persist::open_approvals_of_thread(app.store(), &thread_id)
        .map_err(deskmate_app::AppError::from)?
        .into_iter()
        .filter(|a| a.decision.is_none())
        .collect();
    if waiting.is_empty() {
        return Err(ApiError::conflict(format!(
            "nothing waits on thread {client_thread}: resume answers the interrupts of a paused run"
        )));
    }
    if let Some(stray) = resume
        .iter()
        .find(|r| !waiting.iter().any(|w| w.tool_call_id == r.interrupt_id))
    {
        return Err(ApiError::invalid(format!(
            "no interrupt {} waits on thread {client_thread}",
            stray.interrupt_id
        )));
    }
    let mut decisions = Vec::new();
    for w in &waiting {
        let entry = resume
            .iter()
            .find(|r| r.interrupt_id == w.tool_call_id)
            .ok_or_else(|| {
                ApiError::invalid(format!(
                    "resume answers every interrupt: {} ({}) has no entry",
                    w.tool_call_id, w.tool
                ))
            })?;
        decisions.push((w, entry.decision()?));
    }
    for (w, decision) in &decisions {
        app.chat()
            .decide_approval(&w.run_id, &w.tool_call_id, decision)?;
    }
    let first = waiting
        .first()
        .map(|w| w.run_id.clone())
        .unwrap_or_default();
    Ok(persist::root_run(app.store(), &first)
        .map_err(deskmate_app::AppError::from)?
        .id)
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
    if let Some(id) = find_thread(app, client_thread)? {
        return Ok(id);
    }
    let mut meta = Map::new();
    meta.insert(THREAD_KEY.into(), Value::String(client_thread.to_string()));
    Ok(app.chat().create_thread(None, &meta)?.id)
}

/// `POST /ag-ui`.
pub(crate) async fn run(
    State(api): State<Api>,
    ApiJson(mut input): ApiJson<RunAgentInput>,
) -> ApiResult<Sse<impl Stream<Item = Result<Event, Infallible>>>> {
    let opts = match &input.forwarded_props {
        None | Some(Value::Null) => ChatOptions::default(),
        Some(Value::Object(props)) => crate::langgraph::chat_options(&[Some(props)])?,
        Some(_) => return Err(ApiError::invalid("forwardedProps is an object")),
    };
    let (tx, rx) = mpsc::unbounded_channel();
    if supervisor_mode(input.forwarded_props.as_ref())? {
        if input.resume.as_ref().is_some_and(|r| !r.is_empty()) {
            return Err(ApiError::invalid(
                "a supervisor run never pauses, so there is nothing to resume",
            ));
        }
        let text = last_user_text(&input.messages)?;
        // Refused before the stream opens, as the companion's runs are: no
        // model set up, or the notice not agreed to.
        api.app.start_supervised(&text, &opts, tx)?;
        return Ok(stream(rx, input.thread_id, input.run_id));
    }
    match input.resume.take().filter(|r| !r.is_empty()) {
        Some(resume) => {
            let client_thread = input.thread_id.clone();
            let run_id = blocking(&api.app, move |app| {
                apply_resume(&app, &client_thread, &resume)
            })
            .await?;
            api.app.chat().resume(&run_id, &opts, tx).await?;
        }
        None => {
            let text = last_user_text(&input.messages)?;
            let client_thread = input.thread_id.clone();
            let thread_id = blocking(&api.app, move |app| thread_for(&app, &client_thread)).await?;
            let msg = ChatMessage {
                thread_id: Some(thread_id),
                profile_id: None,
                text,
                images: vec![],
                attachments: vec![],
            };
            api.app.chat().start(msg, &opts, tx).await?;
        }
    }
    Ok(stream(rx, input.thread_id, input.run_id))
}

/// Whether `forwardedProps.mode` asks for supervisor mode (`"supervisor"`;
/// `"agent"` or nothing: the companion).
fn supervisor_mode(props: Option<&Value>) -> ApiResult<bool> {
    match props.and_then(|p| p.get("mode")) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::String(m)) if m == "agent" => Ok(false),
        Some(Value::String(m)) if m == "supervisor" => Ok(true),
        Some(other) => Err(ApiError::invalid(format!(
            "forwardedProps.mode is \"agent\" or \"supervisor\", not {other}"
        ))),
    }
}

/// The run's events as server-sent events, under the client's own ids.
fn stream(
    rx: mpsc::UnboundedReceiver<AgUiEvent>,
    client_thread: String,
    client_run: String,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
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
    Sse::new(events).keep_alive(KeepAlive::default())
}
