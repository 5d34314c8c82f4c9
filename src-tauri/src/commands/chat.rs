//! Chat commands: threads, a run streamed to the UI as AG-UI events over a
//! Tauri channel, stopping a run, and the model provider settings (the key
//! goes to the OS keyring, never to the database).

use deskmate_app::chat::agent::Thread;
use deskmate_app::chat::attachments::ChatAttachment;
use deskmate_app::chat::llm::ModelSpec;
use deskmate_app::chat::{ChatMessage, ChatOptions, ChatRun};
use deskmate_app::handoff::Handoff;
use deskmate_app::{AppError, Deskmate};
use deskmate_protocol::{ApprovalAnswer, LlmSettingsView, ModelNoticeView, RunIds, ThreadView};
use tauri::ipc::Channel;
use tauri::State;

use super::{blocking, wire, CmdResult};

#[tauri::command]
pub async fn chat_threads(
    app: State<'_, Deskmate>,
    profile_id: Option<String>,
) -> CmdResult<Vec<Thread>> {
    blocking(&app, move |app| app.chat().threads(profile_id.as_deref())).await
}

#[tauri::command]
pub async fn chat_thread(app: State<'_, Deskmate>, thread_id: String) -> CmdResult<ThreadView> {
    blocking(&app, move |app| app.chat().thread_view(&thread_id)).await
}

/// Starts a run; its AG-UI events arrive on `on_event` until RUN_FINISHED or
/// RUN_ERROR. `attachments` are files and photos the window read from its
/// picker or a drop (checked, kept in the thread's workspace and shown to
/// the model by the core, as `deskmate chat --attach`).
#[tauri::command]
pub async fn chat_send(
    app: State<'_, Deskmate>,
    thread_id: Option<String>,
    profile_id: Option<String>,
    message: String,
    attachments: Option<Vec<ChatAttachment>>,
    on_event: Channel<serde_json::Value>,
) -> CmdResult<RunIds> {
    let msg = ChatMessage {
        thread_id,
        profile_id,
        text: message,
        images: Vec::new(),
        attachments: attachments.unwrap_or_default(),
    };
    let opts = ChatOptions::default();
    streamed(on_event, |tx| app.chat().start(msg, &opts, tx)).await
}

/// Runs the companion on a request the one entry handed off (`handoff` in
/// the say response): its AG-UI events arrive on `on_event`; when it ends,
/// its spans join the request's trace and the chat scene stops waiting.
#[tauri::command]
pub async fn chat_handoff(
    app: State<'_, Deskmate>,
    profile_id: String,
    trace_id: String,
    message: String,
    on_event: Channel<serde_json::Value>,
) -> CmdResult<RunIds> {
    let handoff = Handoff {
        profile_id,
        trace_id,
        text: message,
        thread_id: None,
    };
    let opts = ChatOptions::default();
    streamed(on_event, |tx| app.answer_handoff(handoff, &opts, tx)).await
}

/// Continues a run a crash cut off (`interrupted`) from its last stored
/// step; its AG-UI events arrive on `on_event` as a new run's do.
#[tauri::command]
pub async fn chat_resume(
    app: State<'_, Deskmate>,
    run_id: String,
    on_event: Channel<serde_json::Value>,
) -> CmdResult<RunIds> {
    let opts = ChatOptions::default();
    streamed(on_event, |tx| app.chat().resume(&run_id, &opts, tx)).await
}

/// A parent's decisions on the calls a run paused on (the window asks for
/// the parent's PIN first), then the run continues; its events arrive on
/// `on_event` as a new run's do.
#[tauri::command]
pub async fn chat_decide(
    app: State<'_, Deskmate>,
    run_id: String,
    answers: Vec<ApprovalAnswer>,
    on_event: Channel<serde_json::Value>,
) -> CmdResult<RunIds> {
    let run = run_id.clone();
    let decided = blocking(&app, move |app| {
        for a in &answers {
            app.chat()
                .decide_approval(&run, &a.tool_call_id, &a.decision)?;
        }
        Ok(())
    });
    decided.await?;
    let opts = ChatOptions::default();
    streamed(on_event, |tx| app.chat().resume(&run_id, &opts, tx)).await
}

/// Starts a run with `start` (given where its events go), moves its events
/// to the window's channel until it ends, and returns its ids at once.
async fn streamed<F, Fut>(on_event: Channel<serde_json::Value>, start: F) -> CmdResult<RunIds>
where
    F: FnOnce(deskmate_app::chat::agent::EventSink) -> Fut,
    Fut: std::future::Future<Output = deskmate_app::AppResult<ChatRun>>,
{
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let run = start(tx).await.map_err(wire)?;
    forward(rx, on_event);
    Ok(RunIds {
        thread_id: run.thread_id,
        run_id: run.run_id,
    })
}

/// A parent's message in supervisor mode (issue 21): a supervisor hands
/// it to the team's agents in turn; each hand-off a step with the agent's
/// reply, on `on_event`. Not stored as a conversation (the thread id is
/// empty). Only the parent's chat offers it: a child's replies go through
/// the companion's safety check, which supervisor mode does not have.
#[tauri::command]
pub async fn chat_supervise(
    app: State<'_, Deskmate>,
    message: String,
    on_event: Channel<serde_json::Value>,
) -> CmdResult<RunIds> {
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let run_id = app
        .start_supervised(&message, &ChatOptions::default(), tx)
        .map_err(wire)?;
    forward(rx, on_event);
    Ok(RunIds {
        thread_id: String::new(),
        run_id,
    })
}

/// Sends a run's AG-UI events to the window as they come.
fn forward(
    mut rx: tokio::sync::mpsc::UnboundedReceiver<deskmate_app::chat::agent::AgUiEvent>,
    on_event: Channel<serde_json::Value>,
) {
    tauri::async_runtime::spawn(async move {
        while let Some(event) = rx.recv().await {
            match serde_json::to_value(&event) {
                Ok(v) => {
                    if on_event.send(v).is_err() {
                        break; // the window went away; the run goes on and is stored
                    }
                }
                Err(e) => tracing::warn!("cannot serialize an AG-UI event: {e}"),
            }
        }
    });
}

#[tauri::command]
pub async fn chat_cancel(app: State<'_, Deskmate>, run_id: String) -> CmdResult<()> {
    if app.chat().cancel_run(&run_id) {
        Ok(())
    } else {
        Err(wire(AppError::Invalid(
            "that answer has already finished".into(),
        )))
    }
}

#[tauri::command]
pub async fn llm_settings_get(app: State<'_, Deskmate>) -> CmdResult<LlmSettingsView> {
    let (s, notice) = blocking(&app, |app| {
        Ok((app.chat().llm_settings()?, app.chat().model_notice()?))
    })
    .await?;
    Ok(LlmSettingsView {
        model: s.model,
        base_url: s.base_url,
        has_key: s.key_source.is_some(),
        notice,
    })
}

/// A parent agrees to the model notice shown in Settings.
#[tauri::command]
pub async fn llm_notice_agree(app: State<'_, Deskmate>) -> CmdResult<ModelNoticeView> {
    blocking(&app, |app| app.chat().agree_model_notice()).await
}

/// A parent withdraws the agreement: no model is used until agreed again.
#[tauri::command]
pub async fn llm_notice_withdraw(app: State<'_, Deskmate>) -> CmdResult<()> {
    blocking(&app, |app| app.chat().withdraw_model_notice()).await
}

fn provider_of(model: &str) -> Result<String, AppError> {
    Ok(ModelSpec::parse(model)?.provider)
}

#[tauri::command]
pub async fn llm_settings_save(
    app: State<'_, Deskmate>,
    model: String,
    base_url: Option<String>,
    api_key: Option<String>,
) -> CmdResult<()> {
    let provider = provider_of(&model).map_err(wire)?;
    blocking(&app, move |app| {
        app.chat().save_llm_settings(&model, base_url.as_deref())?;
        match api_key.as_deref().map(str::trim) {
            Some(key) if !key.is_empty() => app.chat().save_llm_api_key(&provider, key),
            _ => Ok(()),
        }
    })
    .await
}

#[tauri::command]
pub async fn llm_key_delete(app: State<'_, Deskmate>) -> CmdResult<()> {
    blocking(&app, |app| {
        let model = app.chat().llm_settings()?.model.ok_or_else(|| {
            AppError::Config("no AI provider is configured, so there is no key to delete".into())
        })?;
        let provider = provider_of(&model)?;
        app.chat().delete_llm_api_key(&provider)
    })
    .await
}

#[tauri::command]
pub async fn llm_test(app: State<'_, Deskmate>) -> CmdResult<String> {
    let report = app
        .chat()
        .test_connection(&ChatOptions::default())
        .await
        .map_err(wire)?;
    Ok(format!(
        "{} answered in {} ms: {}",
        report.model,
        report.latency_ms,
        report.reply.trim()
    ))
}
