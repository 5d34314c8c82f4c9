//! `deskmate chat`: send a message to the companion and print the answer as
//! it streams, or with `--events` every AG-UI event as one JSON line.
//! Ctrl-C stops the run (what was said so far is kept).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use base64::Engine;
use clap::Args;
use deskmate_app::chat::agent::{AgUiEvent, RunStatus};
use deskmate_app::chat::attachments::ChatAttachment;
use deskmate_app::chat::{ChatContext, ChatMessage, ChatOptions};
use deskmate_app::Deskmate;

#[derive(Args)]
pub struct ChatArgs {
    /// The profile talking, by name or id (a new thread is filed under it).
    #[arg(long)]
    profile: Option<String>,
    /// Continue this thread (see `deskmate threads list`).
    #[arg(long)]
    thread: Option<String>,
    /// Model as provider:model, e.g. openai:gpt-4o-mini or ollama:qwen2.5; beats any context's model
    /// (default: --context's model, else the profile's stored context's, else the saved setting).
    #[arg(long)]
    model: Option<String>,
    /// Base URL of the provider's API (default: the saved setting, else the provider's own).
    #[arg(long)]
    base_url: Option<String>,
    /// This conversation's context as JSON, beating the profile's stored one:
    /// {"model": "provider:model", "system_prompt": "…", "tools": ["read_file", …], "subagents": false,
    /// "approvals": ["write_file"], "subagent_depth": 1}.
    #[arg(long, value_name = "JSON")]
    context: Option<String>,
    /// agent: the companion answers (with its subagents); supervisor: a
    /// supervisor hands the message to the team's agents in turn until it
    /// is answered (at most 25 hand-offs; nothing is stored as a thread).
    #[arg(long, value_parser = ["agent", "supervisor"], default_value = "agent")]
    mode: String,
    /// Print every AG-UI event as one JSON line instead of the answer.
    #[arg(long)]
    events: bool,
    /// Attach a file (text, Markdown, CSV, JSON, PDF, Word .docx, or a
    /// photo) to the message; repeat for more (at most 5, 10 MB each).
    /// Kept in the thread's workspace under /attachments/.
    #[arg(long, value_name = "FILE")]
    attach: Vec<PathBuf>,
    /// The message.
    #[arg(required = true, num_args = 1..)]
    message: Vec<String>,
}

pub fn run(app: &Deskmate, args: ChatArgs) -> anyhow::Result<ExitCode> {
    let rt = crate::runtime()?;
    rt.block_on(chat(app, args))
}

async fn chat(app: &Deskmate, args: ChatArgs) -> anyhow::Result<ExitCode> {
    let context = args
        .context
        .as_deref()
        .map(serde_json::from_str::<ChatContext>)
        .transpose()
        .context("--context is not a chat context: give JSON like {\"system_prompt\": \"…\", \"tools\": [\"read_file\"], \"subagents\": false} (keys: model, system_prompt, tools, subagents, approvals, subagent_depth)")?;
    let opts = ChatOptions {
        model: args.model,
        base_url: args.base_url,
        context,
    };
    if args.mode == "supervisor" {
        return supervised(app, &args.message.join(" "), &opts, args.events).await;
    }
    let attachments = args
        .attach
        .iter()
        .map(|path| {
            let bytes = std::fs::read(path)
                .with_context(|| format!("cannot read the file to attach: {}", path.display()))?;
            Ok(ChatAttachment {
                name: path
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                data_base64: base64::engine::general_purpose::STANDARD.encode(bytes),
            })
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let msg = ChatMessage {
        thread_id: args.thread,
        profile_id: args.profile,
        text: args.message.join(" "),
        images: vec![],
        attachments,
    };
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let run = app.chat().start(msg, &opts, tx).await?;
    follow(app, run, rx, args.events).await
}

/// Prints a run as it streams (or every AG-UI event with `events`), lets
/// Ctrl-C stop it, and says how it ended.
pub(crate) async fn follow(
    app: &Deskmate,
    run: deskmate_app::chat::ChatRun,
    rx: tokio::sync::mpsc::UnboundedReceiver<AgUiEvent>,
    events: bool,
) -> anyhow::Result<ExitCode> {
    Ok(follow_outcome(app, run, rx, events).await?.1)
}

/// [`follow`], also returning how the run ended.
pub(crate) async fn follow_outcome(
    app: &Deskmate,
    run: deskmate_app::chat::ChatRun,
    mut rx: tokio::sync::mpsc::UnboundedReceiver<AgUiEvent>,
    events: bool,
) -> anyhow::Result<(deskmate_app::chat::agent::RunOutcome, ExitCode)> {
    eprintln!("thread {} · run {}", run.thread_id, run.run_id);
    let (app2, run_id) = (app.clone(), run.run_id.clone());
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            app2.chat().cancel_run(&run_id);
        }
    });
    let mut out = std::io::stdout().lock();
    let mut printed_text = false;
    while let Some(ev) = rx.recv().await {
        if events {
            writeln!(out, "{}", serde_json::to_string(&ev)?)?;
            out.flush()?;
            continue;
        }
        match ev {
            AgUiEvent::TextMessageContent { delta, .. } => {
                write!(out, "{delta}")?;
                out.flush()?;
                printed_text = true;
            }
            AgUiEvent::TextMessageEnd { .. } if printed_text => {
                writeln!(out)?;
                printed_text = false;
            }
            AgUiEvent::ToolCallStart { tool_call_name, .. } => eprintln!("· {tool_call_name}…"),
            _ => {}
        }
    }
    let outcome = run.done.await.context("the run stopped unexpectedly")?;
    let code = match outcome.status {
        RunStatus::Completed => ExitCode::SUCCESS,
        RunStatus::Cancelled => {
            eprintln!("stopped; continue with --thread {}", outcome.thread_id);
            ExitCode::from(130)
        }
        // Paused for a parent's approval: say what waits and how to go on.
        RunStatus::Interrupted => {
            let waiting = app.chat().pending_approvals()?;
            // The run's own calls and its subagents' (held by their runs).
            for a in waiting.iter().filter(|a| a.thread_id == outcome.thread_id) {
                let by = if a.run_id == outcome.run_id {
                    String::new()
                } else {
                    format!(" (in subagent run {})", a.run_id)
                };
                eprintln!(
                    "waiting for a parent's approval: {} {} {}{by}",
                    a.tool_call_id, a.tool, a.arguments
                );
            }
            eprintln!(
                "continue with `deskmate runs resume {} --approve CALL` (or --edit CALL=JSON, --reject CALL=REASON, --respond CALL=ANSWER)",
                outcome.run_id
            );
            ExitCode::from(3)
        }
        _ => {
            eprintln!(
                "error: {}",
                outcome.error.as_deref().unwrap_or("the run failed")
            );
            eprintln!(
                "the thread is kept; continue with --thread {}",
                outcome.thread_id
            );
            ExitCode::FAILURE
        }
    };
    Ok((outcome, code))
}

/// Supervisor mode: each agent's turn as it ends (`[agent] …`), or with
/// `events` each hand-off as AG-UI step events; then how it ended.
async fn supervised(
    app: &Deskmate,
    input: &str,
    opts: &ChatOptions,
    events: bool,
) -> anyhow::Result<ExitCode> {
    let mut emit = |e: AgUiEvent| {
        if events {
            if let Ok(line) = serde_json::to_string(&e) {
                println!("{line}");
            }
        }
    };
    let done = app.supervise(input, opts, &mut emit).await?;
    if !events {
        for t in done.turns.iter().skip(1) {
            println!("[{}] {}", t.speaker, t.text);
        }
    }
    eprintln!("{}", done.ending_text());
    Ok(ExitCode::SUCCESS)
}
