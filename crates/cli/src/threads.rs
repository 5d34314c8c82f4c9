//! `deskmate threads`: the chat threads kept on this device.

use std::process::ExitCode;

use clap::Subcommand;
use deskmate_app::chat::llm::Role;
use deskmate_app::Deskmate;

use crate::output;

#[derive(Subcommand)]
pub enum ThreadsCmd {
    /// List threads, newest first.
    List {
        #[arg(long)]
        profile: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Show one thread: its messages, tool calls, runs and todos.
    Show {
        id: String,
        #[arg(long)]
        json: bool,
    },
}

pub fn run(app: &Deskmate, cmd: ThreadsCmd) -> anyhow::Result<ExitCode> {
    match cmd {
        ThreadsCmd::List { profile, json } => {
            let threads = app.chat().threads(profile.as_deref())?;
            if json {
                output::json(&threads)?;
            } else if threads.is_empty() {
                println!("no threads yet; start one with `deskmate chat MESSAGE`");
            } else {
                for t in threads {
                    println!("{}  {}  {}", t.id, t.updated_at, t.title);
                }
            }
        }
        ThreadsCmd::Show { id, json } => {
            let view = app.chat().thread(&id)?;
            if json {
                output::json(&view)?;
                return Ok(ExitCode::SUCCESS);
            }
            println!("{} — {}", view.thread.title, view.thread.id);
            for m in &view.messages {
                let who = match m.message.role {
                    Role::User => "you",
                    Role::Assistant => "deskmate",
                    Role::Tool => "tool",
                    Role::System => "system",
                };
                let text = m.message.text();
                if !text.is_empty() {
                    let shown: String = text.chars().take(400).collect();
                    println!("[{who}] {shown}");
                }
                for c in &m.message.tool_calls {
                    let status = view
                        .tool_calls
                        .iter()
                        .find(|t| t.id == c.id)
                        .map(|t| format!("{:?}", t.status).to_lowercase());
                    println!(
                        "  → {}({}) {}",
                        c.name,
                        c.arguments,
                        status.unwrap_or_default()
                    );
                    // A subagent's work, under the `task` call that started it.
                    for child in view
                        .children
                        .iter()
                        .filter(|ch| ch.run.parent_tool_call_id.as_deref() == Some(c.id.as_str()))
                    {
                        println!(
                            "    ┌ {} ({}, {} steps)",
                            child.run.agent.as_deref().unwrap_or("subagent"),
                            child.run.status.as_str(),
                            child.run.steps
                        );
                        for cm in &child.messages {
                            let text: String = cm.message.text().chars().take(200).collect();
                            if !text.is_empty() {
                                println!("    │ [{}] {text}", cm.message.role.as_str());
                            }
                            for cc in &cm.message.tool_calls {
                                println!("    │   → {}({})", cc.name, cc.arguments);
                            }
                        }
                    }
                }
            }
            for t in &view.state.todos {
                println!("todo [{:?}] {}", t.status, t.content);
            }
            for r in &view.runs {
                let usage = view
                    .usage
                    .iter()
                    .find(|u| u.run_id == r.id)
                    .map(|u| {
                        let with = match u.subagent_runs {
                            0 => String::new(),
                            1 => ", with its subagent".to_string(),
                            n => format!(", with its {n} subagents"),
                        };
                        format!(
                            " — {} model calls, {} tokens in / {} out, ${:.4}{with}",
                            u.model_calls, u.input_tokens, u.output_tokens, u.cost_usd
                        )
                    })
                    .unwrap_or_default();
                println!(
                    "run {} {} steps={}{usage} {}",
                    r.id,
                    r.status.as_str(),
                    r.steps,
                    r.error.clone().unwrap_or_default()
                );
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
