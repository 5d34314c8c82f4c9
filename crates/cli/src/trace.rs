//! `deskmate trace`: what the one entry decided about what children said.
//! `show` prints one request (its stages and their times); `replay` takes every logged decision again with the current rules and
//! library, in the session it was taken in, and shows what would change —
//! run it after changing the router or the guardrails.

use std::process::ExitCode;

use clap::Subcommand;
use deskmate_app::Deskmate;

use crate::output;

#[derive(Subcommand)]
pub enum TraceCmd {
    /// One request: what was said, the intent, the decision, what the child was told, and what happened as a timeline (each step's time and outcome).
    Show {
        /// The trace id (`deskmate say --json` prints it).
        id: String,
        #[arg(long)]
        json: bool,
    },
    /// Take the logged decisions again with today's rules; list what would change.
    Replay {
        /// Only this child's (name or id).
        #[arg(long)]
        profile: Option<String>,
        /// Every decision as JSON, changed or not.
        #[arg(long)]
        json: bool,
    },
}

pub fn run(app: &Deskmate, cmd: TraceCmd) -> anyhow::Result<ExitCode> {
    match cmd {
        TraceCmd::Show { id, json } => {
            let t = app.trace(&id)?;
            if json {
                output::json(&t)?;
            } else {
                println!("{} · {}", t.trace_id, t.at);
                println!("said: {}", t.input);
                println!("scene {} → {}", t.scene_before, t.scene_after);
                println!("route: {} ({})", t.intent, t.confidence);
                println!("decide: {} — {}", t.decision, t.reason);
                println!("told: {}", t.said);
                if t.spans.is_empty() {
                    println!("timings (µs): {}", t.timings);
                } else {
                    println!("what happened:");
                    for line in deskmate_app::orchestrator::trace::timeline(&t.spans).lines() {
                        println!("  {line}");
                    }
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        TraceCmd::Replay { profile, json } => {
            let profile_id = match profile {
                Some(key) => Some(app.find_profile(&key)?.id),
                None => None,
            };
            let replayed = app.replay_decisions(profile_id.as_deref())?;
            if json {
                output::json(&replayed)?;
                return Ok(ExitCode::SUCCESS);
            }
            let changed: Vec<_> = replayed.iter().filter(|r| r.changed).collect();
            for r in &changed {
                println!(
                    "{} {:?}: then {} {:?}; now {} by {} {:?} ({})",
                    r.trace_id,
                    r.input,
                    r.intent_then,
                    r.decision_then,
                    r.intent_now.as_str(),
                    r.routed_by.as_str(),
                    r.decision_now,
                    r.reason_now
                );
            }
            let by_model = replayed
                .iter()
                .filter(|r| r.routed_by.as_str() == "model")
                .count();
            println!(
                "{} decisions replayed, {} would change ({} routed by the rules, {} by the model's logged reply)",
                replayed.len(),
                changed.len(),
                replayed.len() - by_model,
                by_model
            );
            Ok(ExitCode::SUCCESS)
        }
    }
}
