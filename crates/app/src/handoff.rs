//! A chat request the one entry handed to the companion. The entry answers
//! "好的，我来想一想" and leaves its chat scene in `handoff_wait`; the
//! front end then runs the companion on the child's words through
//! [`Deskmate::answer_handoff`]. When that run ends, what it did — the run,
//! each model call and tool call, each subagent's run — is stored as spans
//! under the request's trace (so "发生了什么" and `deskmate trace show` show
//! the whole request), and the chat scene stops waiting.

use deskmate_agent::persist::{self, CallKind, RunTimeline};
use deskmate_orchestrator::trace::{Later, Outcome};
use serde_json::{Map, Value};

use crate::chat::{ChatMessage, ChatOptions, ChatRun};
use crate::{AppResult, Deskmate};

/// The request handed off, and where its answer goes.
#[derive(Debug, Clone, PartialEq)]
pub struct Handoff {
    pub profile_id: String,
    /// The request's trace id (`Response::trace_id`).
    pub trace_id: String,
    /// What the child said (the request's words).
    pub text: String,
    /// Continue this chat thread; a new one when absent.
    pub thread_id: Option<String>,
}

fn unix_us(rfc3339: &str) -> i64 {
    chrono::DateTime::parse_from_rfc3339(rfc3339)
        .map(|t| t.timestamp_micros())
        .unwrap_or(0)
}

fn outcome_of(status: &str) -> (Outcome, Option<String>) {
    match status {
        "completed" => (Outcome::Ok, None),
        other => (Outcome::Error, Some(format!("chat.{other}"))),
    }
}

/// A run and what it did as spans to hang under the request.
fn later(t: &RunTimeline) -> Later {
    let mut attributes = Map::new();
    attributes.insert("run_id".into(), Value::from(t.run.id.clone()));
    attributes.insert("model".into(), Value::from(t.run.model.clone()));
    attributes.insert("steps".into(), Value::from(t.run.steps));
    if let Some(agent) = &t.run.agent {
        attributes.insert("agent".into(), Value::from(agent.clone()));
    }
    let started = unix_us(&t.run.started_at);
    let ended = t
        .run
        .finished_at
        .as_deref()
        .map(unix_us)
        .unwrap_or_else(|| chrono::Utc::now().timestamp_micros());
    let (outcome, error_code) = outcome_of(t.run.status.as_str());
    let mut children: Vec<(i64, Later)> = t
        .calls
        .iter()
        .map(|c| {
            let (name, key) = match c.kind {
                CallKind::Model => ("model.call", "model"),
                CallKind::Tool => ("tool.call", "tool"),
            };
            let mut attributes = Map::new();
            attributes.insert(key.into(), Value::from(c.name.clone()));
            let (outcome, error_code) = outcome_of(&c.status);
            let at = unix_us(&c.started_at);
            (
                at,
                Later {
                    name: name.into(),
                    started_at: at,
                    duration_us: c.duration_ms.saturating_mul(1000),
                    outcome,
                    error_code,
                    attributes,
                    children: Vec::new(),
                },
            )
        })
        .chain(t.subagents.iter().map(|s| {
            let l = later(s);
            (l.started_at, l)
        }))
        .collect();
    children.sort_by_key(|(at, _)| *at);
    Later {
        name: if t.run.parent_run_id.is_some() {
            "subagent.run".into()
        } else {
            "companion.run".into()
        },
        started_at: started,
        duration_us: u64::try_from(ended - started).unwrap_or(0),
        outcome,
        error_code,
        attributes,
        children: children.into_iter().map(|(_, l)| l).collect(),
    }
}

impl Deskmate {
    /// Runs the companion on a request the entry handed off; its AG-UI
    /// events go to `events`. When the run ends — unless it waits for a
    /// parent's approval — its spans join the request's trace and the chat
    /// scene stops waiting. Call from inside a tokio runtime.
    pub async fn answer_handoff(
        &self,
        handoff: Handoff,
        opts: &ChatOptions,
        events: deskmate_agent::EventSink,
    ) -> AppResult<ChatRun> {
        let msg = ChatMessage {
            thread_id: handoff.thread_id.clone(),
            profile_id: Some(handoff.profile_id.clone()),
            text: handoff.text.clone(),
            images: Vec::new(),
            attachments: Vec::new(),
        };
        let ChatRun {
            thread_id,
            run_id,
            done: running,
        } = self.chat().start(msg, opts, events).await?;
        let app = self.clone();
        let (thread, run) = (thread_id.clone(), run_id.clone());
        let done = tokio::spawn(async move {
            let outcome = match running.await {
                Ok(o) => o,
                Err(e) => deskmate_agent::RunOutcome {
                    thread_id: thread,
                    run_id: run.clone(),
                    status: persist::RunStatus::Error,
                    answer: String::new(),
                    error: Some(format!("the run stopped unexpectedly: {e}")),
                    steps: 0,
                    waiting: Vec::new(),
                },
            };
            if outcome.waiting.is_empty() {
                let done = app.clone();
                let answered =
                    tokio::task::spawn_blocking(move || done.companion_answered(&handoff, &run))
                        .await;
                match answered {
                    Ok(Ok(())) => {}
                    Ok(Err(e)) => tracing::warn!("the handed-off request could not be closed: {e}"),
                    Err(e) => tracing::warn!("the handed-off request could not be closed: {e}"),
                }
            }
            outcome
        });
        Ok(ChatRun {
            thread_id,
            run_id,
            done,
        })
    }

    /// Stores the run's spans under the request and ends the chat scene's wait.
    fn companion_answered(&self, handoff: &Handoff, run_id: &str) -> AppResult<()> {
        let timeline = persist::run_timeline(self.store(), run_id)?;
        self.entry().companion_answered(
            &handoff.profile_id,
            &handoff.trace_id,
            &[later(&timeline)],
            chrono::Utc::now(),
        )?;
        Ok(())
    }
}
