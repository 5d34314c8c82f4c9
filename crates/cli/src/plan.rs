//! `deskmate plan`: a child's plan for today (the tasks from due reviews,
//! unfinished practice and the parent's goals, each done or not by today's
//! attempts) and the goals a parent sets — as a parent says them
//! (每天背一首新诗, 每周复习三次) or as `new-per-day N` / `reviews-per-week N`.

use std::process::ExitCode;

use clap::{Args, Subcommand};
use deskmate_app::orchestrator::plan::goal_from_words;
use deskmate_app::store::GoalKind;
use deskmate_app::Deskmate;

use crate::output;
use crate::say::child;

#[derive(Debug, Subcommand)]
pub enum PlanCmd {
    /// Today's plan for a child: each task, done or not.
    Show(ShowArgs),
    /// The goals a parent sets for a child.
    #[command(subcommand)]
    Goals(GoalsCmd),
}

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The child, by name or id (default: the only child).
    #[arg(long)]
    profile: Option<String>,
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Subcommand)]
pub enum GoalsCmd {
    /// Sets a goal (or changes its target): 每天背一首新诗, 每周复习三次,
    /// or new-per-day N / reviews-per-week N.
    Set {
        #[arg(long)]
        profile: Option<String>,
        #[arg(long)]
        json: bool,
        /// The goal, in words or as KIND N.
        #[arg(required = true, num_args = 1..)]
        goal: Vec<String>,
    },
    /// A child's goals.
    List {
        #[arg(long)]
        profile: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Removes a goal: new-per-day or reviews-per-week.
    Remove {
        #[arg(long)]
        profile: Option<String>,
        kind: String,
    },
}

/// A goal from what the parent typed: `KIND N`, or words.
fn goal_of(words: &[String]) -> anyhow::Result<(GoalKind, u32)> {
    if let [kind, n] = words {
        if let (Ok(kind), Ok(n)) = (kind.parse::<GoalKind>(), n.parse::<u32>()) {
            return Ok((kind, n));
        }
    }
    let said = words.join(" ");
    goal_from_words(&said).ok_or_else(|| {
        anyhow::anyhow!(
            "{said:?} is not a goal Deskmate knows: say it like 每天背一首新诗 or 每周复习三次, or give new-per-day N or reviews-per-week N"
        )
    })
}

fn goal_line(kind: GoalKind, target: u32) -> String {
    match kind {
        GoalKind::NewPerDay => format!("每天学 {target} 首新的 · {target} new a day"),
        GoalKind::ReviewsPerWeek => format!("每周复习 {target} 次 · {target} reviews a week"),
    }
}

pub fn run(app: &Deskmate, cmd: PlanCmd) -> anyhow::Result<ExitCode> {
    match cmd {
        PlanCmd::Show(args) => {
            let profile = child(app, args.profile.as_deref())?;
            let plan = app.plan_today(&profile.id)?;
            if args.json {
                output::json(&plan)?;
            } else {
                println!(
                    "{} · {} · {}/{} done",
                    profile.name, plan.day, plan.done, plan.total
                );
                if plan.tasks.is_empty() {
                    println!("nothing planned (no reviews due, nothing unfinished, no goals)");
                }
                for t in &plan.tasks {
                    println!(
                        "{} {} · {}",
                        if t.done { "[x]" } else { "[ ]" },
                        t.text_zh,
                        t.text_en
                    );
                }
            }
        }
        PlanCmd::Goals(GoalsCmd::Set {
            profile,
            json,
            goal,
        }) => {
            let profile = child(app, profile.as_deref())?;
            let (kind, target) = goal_of(&goal)?;
            let g = app.set_goal(&profile.id, kind, target)?;
            if json {
                output::json(&g)?;
            } else {
                println!("{}: {}", profile.name, goal_line(g.kind, g.target));
            }
        }
        PlanCmd::Goals(GoalsCmd::List { profile, json }) => {
            let profile = child(app, profile.as_deref())?;
            let goals = app.goals(&profile.id)?;
            if json {
                output::json(&goals)?;
            } else if goals.is_empty() {
                println!(
                    "{} has no goals (set one: deskmate plan goals set 每天背一首新诗)",
                    profile.name
                );
            } else {
                for g in goals {
                    println!("{} · {}", g.kind.as_str(), goal_line(g.kind, g.target));
                }
            }
        }
        PlanCmd::Goals(GoalsCmd::Remove { profile, kind }) => {
            let profile = child(app, profile.as_deref())?;
            app.remove_goal(&profile.id, kind.parse()?)?;
            println!("removed the {} goal of {}", kind, profile.name);
        }
    }
    Ok(ExitCode::SUCCESS)
}
