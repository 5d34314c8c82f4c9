//! `deskmate workflows`: the routines parents design (issue 21) — saved
//! from a JSON file (checked first: every problem is listed, nothing is
//! saved), shown, listed, deleted, and run for a child, node by node
//! (`--events`: one JSON line per node's start, output and end). A run
//! that waits for a recitation, or was cut short by a crash, goes on with
//! `deskmate workflows resume RUN`. A routine's file may name the children
//! it is for (`"children": [profile ids]`): it is then on their plan.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::Subcommand;
use deskmate_app::Deskmate;
use deskmate_protocol::routine::{NodeKind, Routine, RoutineEvent, RoutineRunView};

use crate::output;
use crate::say::child;

#[derive(Debug, Subcommand)]
pub enum WorkflowsCmd {
    /// Every saved routine.
    List {
        #[arg(long)]
        json: bool,
    },
    /// A routine's nodes, and its runs.
    Show {
        name: String,
        #[arg(long)]
        json: bool,
    },
    /// Saves a new routine from a JSON file (checked first).
    Create {
        #[arg(long)]
        file: PathBuf,
    },
    /// Replaces a routine with the one in a JSON file (same name).
    Update {
        #[arg(long)]
        file: PathBuf,
    },
    /// Deletes a routine and its runs.
    Delete { name: String },
    /// Runs a routine for a child on INPUT.
    Run {
        name: String,
        /// The child, by name or id (default: the only child).
        #[arg(long)]
        profile: Option<String>,
        /// Print each node's start, output and end as a JSON line.
        #[arg(long)]
        events: bool,
        #[arg(long)]
        json: bool,
        #[arg(required = true, num_args = 1..)]
        input: Vec<String>,
    },
    /// Goes on with a run that waits or was cut short.
    Resume {
        run: String,
        #[arg(long)]
        events: bool,
        #[arg(long)]
        json: bool,
    },
}

fn read(file: &Path) -> anyhow::Result<Routine> {
    let text =
        std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
    serde_json::from_str(&text).with_context(|| {
        format!(
            "{} is not a routine: a JSON object with name and nodes (each with id, type and next)",
            file.display()
        )
    })
}

fn node_line(kind: &NodeKind) -> String {
    match kind {
        NodeKind::Start => "start".into(),
        NodeKind::End => "end".into(),
        NodeKind::Agent { agent, prompt } => format!("agent {agent}: {prompt}"),
        NodeKind::Tool { tool, args } => format!("tool {tool} {args}"),
        NodeKind::Condition { branches, default } => {
            let mut parts: Vec<String> = branches
                .iter()
                .map(|b| format!("\"{}\" → {}", b.keyword, b.to))
                .collect();
            parts.extend(default.iter().map(|d| format!("otherwise → {d}")));
            format!("condition {}", parts.join(", "))
        }
        NodeKind::Recite { material } => format!("recite {material}"),
        NodeKind::NotifyParent { message } => format!("notify parent: {message}"),
    }
}

/// The run as JSON, or in words; nothing more when the events were printed.
fn print_run(run: &RoutineRunView, json: bool, events: bool) -> anyhow::Result<ExitCode> {
    if events {
    } else if json {
        output::json(run)?;
    } else {
        println!("run {} of {} · {}", run.id, run.routine, run.status);
        for s in &run.steps {
            if !s.output.is_empty() {
                println!("[{}] {}", s.node, s.output);
            }
        }
        if let Some(at) = run.at.as_deref().filter(|_| run.status != "finished") {
            println!("at {at} (go on: deskmate workflows resume {})", run.id);
        }
    }
    Ok(if run.status == "failed" {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

fn printer(events: bool) -> impl FnMut(RoutineEvent) {
    move |e| {
        if events {
            if let Ok(line) = serde_json::to_string(&e) {
                println!("{line}");
            }
        } else if let RoutineEvent::Failed { node, message, .. } = &e {
            eprintln!("the node {node} failed: {message}");
        }
    }
}

pub fn run(app: &Deskmate, cmd: WorkflowsCmd) -> anyhow::Result<ExitCode> {
    match cmd {
        WorkflowsCmd::List { json } => {
            let all = app.routines()?;
            if json {
                output::json(&all)?;
            } else if all.is_empty() {
                println!("no routines yet (make one: deskmate workflows create --file F.json)");
            } else {
                for r in all {
                    println!("{} · {} nodes · {}", r.name, r.nodes.len(), r.description);
                }
            }
        }
        WorkflowsCmd::Show { name, json } => {
            let routine = app.routine(&name)?;
            let runs = app.routine_runs(Some(&name))?;
            if json {
                output::json(&serde_json::json!({"routine": routine, "runs": runs}))?;
            } else {
                println!("{} · {}", routine.name, routine.description);
                if !routine.children.is_empty() {
                    // Assigned children by name (an id no profile has any more, as it is).
                    let names: Vec<String> = routine
                        .children
                        .iter()
                        .map(|id| {
                            app.store()
                                .profiles()
                                .get(id)
                                .map_or_else(|_| id.clone(), |p| p.name)
                        })
                        .collect();
                    println!("  for {} (on their plan each day)", names.join(", "));
                }
                for n in &routine.nodes {
                    let next = n
                        .next
                        .as_deref()
                        .map(|x| format!(" → {x}"))
                        .unwrap_or_default();
                    println!("  {}: {}{next}", n.id, node_line(&n.kind));
                }
                for r in &runs {
                    println!("run {} · {} · {} steps", r.id, r.status, r.steps.len());
                }
            }
        }
        WorkflowsCmd::Create { file } => {
            let saved = app.save_routine(&read(&file)?, false)?;
            println!(
                "saved the routine {} ({} nodes)",
                saved.name,
                saved.nodes.len()
            );
        }
        WorkflowsCmd::Update { file } => {
            let saved = app.save_routine(&read(&file)?, true)?;
            println!(
                "updated the routine {} ({} nodes)",
                saved.name,
                saved.nodes.len()
            );
        }
        WorkflowsCmd::Delete { name } => {
            app.delete_routine(&name)?;
            println!("deleted the routine {name} and its runs");
        }
        WorkflowsCmd::Run {
            name,
            profile,
            events,
            json,
            input,
        } => {
            let profile = child(app, profile.as_deref())?;
            let mut emit = printer(events);
            let run = crate::runtime()?.block_on(app.run_routine(
                &name,
                &profile.id,
                &input.join(" "),
                &mut emit,
            ))?;
            return print_run(&run, json, events);
        }
        WorkflowsCmd::Resume { run, events, json } => {
            let mut emit = printer(events);
            let run = crate::runtime()?.block_on(app.resume_routine_run(&run, &mut emit))?;
            return print_run(&run, json, events);
        }
    }
    Ok(ExitCode::SUCCESS)
}
