//! `deskmate runs`: a chat run a crash cut off (status `interrupted`) is
//! continued from its last stored step with `resume`, printing the rest of
//! the answer as `deskmate chat` does. A run paused for a parent's approval
//! (`runs pending` lists what waits) continues the same way, with a
//! decision for each waiting call.

use std::process::ExitCode;

use clap::Subcommand;
use deskmate_app::chat::ChatOptions;
use deskmate_app::Deskmate;

#[derive(Subcommand)]
pub enum RunsCmd {
    /// Continue a run that was cut off (see `deskmate threads show`).
    Resume {
        run: String,
        /// Model as provider:model (default: the saved setting).
        #[arg(long)]
        model: Option<String>,
        #[arg(long)]
        base_url: Option<String>,
        /// Print every AG-UI event as one JSON line instead of the answer.
        #[arg(long)]
        events: bool,
        /// Approve a waiting call (its id, see `runs pending`).
        #[arg(long, value_name = "CALL")]
        approve: Vec<String>,
        /// Run a waiting call with other arguments: CALL=JSON.
        #[arg(long, value_name = "CALL=JSON")]
        edit: Vec<String>,
        /// Do not run a waiting call; the model is told why: CALL=REASON.
        #[arg(long, value_name = "CALL=REASON")]
        reject: Vec<String>,
        /// Answer in place of a waiting call: CALL=ANSWER.
        #[arg(long, value_name = "CALL=ANSWER")]
        respond: Vec<String>,
    },
    /// Tool calls waiting for a parent's approval, newest first.
    Pending {
        #[arg(long)]
        json: bool,
    },
}

/// `CALL=TEXT`, split at the first `=`.
fn call_and(text: &str, flag: &str) -> anyhow::Result<(String, String)> {
    match text.split_once('=') {
        Some((call, rest)) if !call.trim().is_empty() => {
            Ok((call.trim().to_string(), rest.to_string()))
        }
        _ => anyhow::bail!(
            "--{flag} takes CALL=TEXT (the call's id from `deskmate runs pending`), not {text:?}"
        ),
    }
}

pub fn run(app: &Deskmate, cmd: RunsCmd) -> anyhow::Result<ExitCode> {
    let rt = crate::runtime()?;
    match cmd {
        RunsCmd::Pending { json } => {
            let waiting = app.chat().pending_approvals()?;
            if json {
                crate::output::json(&waiting)?;
            } else if waiting.is_empty() {
                println!("nothing waits for approval");
            } else {
                for a in &waiting {
                    println!(
                        "{} run {} · {} {}",
                        a.tool_call_id, a.run_id, a.tool, a.arguments
                    );
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        RunsCmd::Resume {
            run,
            model,
            base_url,
            events,
            approve,
            edit,
            reject,
            respond,
        } => rt.block_on(async {
            use deskmate_app::chat::agent::persist::ApprovalDecision;
            let mut decisions = Vec::new();
            for call in approve {
                decisions.push((call, ApprovalDecision::Approve));
            }
            for e in edit {
                let (call, arguments) = call_and(&e, "edit")?;
                decisions.push((call, ApprovalDecision::Edit { arguments }));
            }
            for r in reject {
                let (call, reason) = call_and(&r, "reject")?;
                decisions.push((call, ApprovalDecision::Reject { reason }));
            }
            for r in respond {
                let (call, answer) = call_and(&r, "respond")?;
                decisions.push((call, ApprovalDecision::Respond { answer }));
            }
            for (call, decision) in &decisions {
                app.chat().decide_approval(&run, call, decision)?;
            }
            let opts = ChatOptions {
                model,
                base_url,
                ..Default::default()
            };
            let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
            let started = app.chat().resume(&run, &opts, tx).await?;
            crate::chat::follow(app, started, rx, events).await
        }),
    }
}
