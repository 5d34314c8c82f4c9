//! `deskmate usage`, `deskmate limits` and `deskmate notices`: what the
//! companion cost per day, child and run; a child's daily limits and quiet
//! hours; what the parent was told (a limit reached, quiet hours, a reply
//! replaced).

use std::process::ExitCode;

use clap::{Args, Subcommand};
use deskmate_app::orchestrator::limits::{Limits, QuietHours, QuietHoursRules};
use deskmate_app::Deskmate;

use crate::output;
use crate::say::child;

#[derive(Debug, Args)]
pub struct UsageArgs {
    /// One child (name or id); every child when left out.
    #[arg(long)]
    profile: Option<String>,
    /// How many days, today included.
    #[arg(long, default_value_t = 7)]
    days: u32,
    #[arg(long)]
    json: bool,
}

pub fn run_usage(app: &Deskmate, args: UsageArgs) -> anyhow::Result<ExitCode> {
    let now = chrono::Utc::now();
    let report = app.usage(args.profile.as_deref(), args.days, now)?;
    let notices = app.notices(args.profile.as_deref(), true)?;
    if args.json {
        output::json(&serde_json::json!({"usage": report, "notices": notices}))?;
        return Ok(ExitCode::SUCCESS);
    }
    println!("date        child     runs  calls  tokens in/out (cached)   cost USD  chat min");
    for d in &report.days {
        let unpriced = if d.unpriced_calls > 0 {
            format!(" (+{} unpriced)", d.unpriced_calls)
        } else {
            String::new()
        };
        println!(
            "{}  {:<8}  {:>4}  {:>5}  {:>7}/{:<6} ({:>6})  {:>8.4}{unpriced}  {:>8}",
            d.date,
            d.profile_name,
            d.runs,
            d.model_calls,
            d.input_tokens,
            d.output_tokens,
            d.cached_input_tokens,
            d.cost_usd,
            d.chat_minutes()
        );
    }
    if !report.runs.is_empty() {
        println!("\nruns (newest first):");
        for r in &report.runs {
            println!(
                "  {}  {}  {}  {} calls  {}/{} tokens  {:.4} USD  {}",
                r.started_at,
                r.run_id,
                r.model,
                r.model_calls,
                r.input_tokens,
                r.output_tokens,
                r.cost_usd,
                r.status
            );
        }
    }
    print_notices(&notices, "\nnotices not read yet:");
    Ok(ExitCode::SUCCESS)
}

fn print_notices(notices: &[deskmate_app::store::Notice], header: &str) {
    if notices.is_empty() {
        return;
    }
    println!("{header}");
    for n in notices {
        let what = n
            .detail
            .get("message")
            .and_then(|m| m.as_str())
            .unwrap_or_default();
        let thread = n
            .thread_id
            .as_deref()
            .map(|_| format!(" (deskmate notices show {})", n.id))
            .unwrap_or_default();
        println!("  {}  {}  {}  {what}{thread}", n.day, n.id, n.kind.as_str());
    }
}

#[derive(Debug, Subcommand)]
pub enum LimitsCmd {
    /// A child's daily limits and quiet hours.
    Show {
        /// The child (name or id; default: the only child).
        #[arg(long)]
        profile: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Sets a child's limits; each flag changes one and leaves the others.
    Set(SetArgs),
}

#[derive(Debug, Args)]
pub struct SetArgs {
    /// The child (name or id; default: the only child).
    #[arg(long)]
    profile: Option<String>,
    /// Minutes of chat with the companion a day ("none": no limit).
    #[arg(long)]
    chat_minutes: Option<String>,
    /// Model calls a day ("none": no limit).
    #[arg(long)]
    model_calls: Option<String>,
    /// US dollars a day ("none": no limit).
    #[arg(long)]
    cost_usd: Option<String>,
    /// Quiet hours, local time, e.g. 21:00-07:00 ("none": no quiet hours).
    #[arg(long)]
    quiet: Option<String>,
    #[arg(long)]
    json: bool,
}

/// `Some(None)` for "none", `Some(Some(v))` for a value, `None` when not given.
fn change<T: std::str::FromStr>(
    flag: &str,
    given: Option<&str>,
) -> anyhow::Result<Option<Option<T>>> {
    match given.map(str::trim) {
        None => Ok(None),
        Some("none") => Ok(Some(None)),
        Some(v) => v
            .parse()
            .map(|v| Some(Some(v)))
            .map_err(|_| anyhow::anyhow!("--{flag} {v:?} is not a number (or \"none\")")),
    }
}

fn print_limits(name: &str, l: &Limits) {
    let or_none = |v: Option<String>| v.unwrap_or_else(|| "no limit".into());
    println!("{name}:");
    println!(
        "  chat minutes a day: {}",
        or_none(l.chat_minutes.map(|v| v.to_string()))
    );
    println!(
        "  model calls a day:  {}",
        or_none(l.model_calls.map(|v| v.to_string()))
    );
    println!(
        "  cost a day (USD):   {}",
        or_none(l.cost_usd.map(|v| v.to_string()))
    );
    println!(
        "  quiet hours:        {}",
        l.quiet
            .as_ref()
            .map(|q| format!("{}-{}", q.from, q.to))
            .unwrap_or_else(|| "none".into())
    );
}

pub fn run_limits(app: &Deskmate, cmd: LimitsCmd) -> anyhow::Result<ExitCode> {
    match cmd {
        LimitsCmd::Show { profile, json } => {
            let who = child(app, profile.as_deref())?;
            let limits = app.limits(&who.id)?;
            if json {
                output::json(&limits)?;
            } else {
                print_limits(&who.name, &limits);
            }
        }
        LimitsCmd::Set(args) => {
            let who = child(app, args.profile.as_deref())?;
            let mut limits = app.limits(&who.id)?;
            if let Some(v) = change("chat-minutes", args.chat_minutes.as_deref())? {
                limits.chat_minutes = v;
            }
            if let Some(v) = change("model-calls", args.model_calls.as_deref())? {
                limits.model_calls = v;
            }
            if let Some(v) = change("cost-usd", args.cost_usd.as_deref())? {
                limits.cost_usd = v;
            }
            match args.quiet.as_deref().map(str::trim) {
                None => {}
                Some("none") => limits.quiet = None,
                Some(span) => {
                    let (from, to) = span.split_once('-').ok_or_else(|| {
                        anyhow::anyhow!("--quiet {span:?} should be two times like 21:00-07:00")
                    })?;
                    limits.quiet = Some(QuietHours::new(from, to).map_err(anyhow::Error::msg)?);
                }
            }
            app.set_limits(&who.id, &limits)?;
            if args.json {
                output::json(&limits)?;
            } else {
                print_limits(&who.name, &limits);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Debug, Subcommand)]
pub enum NoticesCmd {
    /// What the parent was told, newest first.
    List {
        #[arg(long)]
        profile: Option<String>,
        /// Only the ones not read yet.
        #[arg(long)]
        unread: bool,
        #[arg(long)]
        json: bool,
    },
    /// Marks a notice read.
    Read { id: String },
    /// A replaced reply's notice: what the model wrote, why it was
    /// replaced, and the conversation as the child saw it.
    Show {
        id: String,
        #[arg(long)]
        json: bool,
    },
}

pub fn run_notices(app: &Deskmate, cmd: NoticesCmd) -> anyhow::Result<ExitCode> {
    match cmd {
        NoticesCmd::List {
            profile,
            unread,
            json,
        } => {
            let notices = app.notices(profile.as_deref(), unread)?;
            if json {
                output::json(&notices)?;
            } else if notices.is_empty() {
                println!("no notices");
            } else {
                print_notices(&notices, "notices (newest first):");
            }
        }
        NoticesCmd::Read { id } => {
            app.mark_notice_read(&id)?;
            println!("marked read");
        }
        NoticesCmd::Show { id, json } => {
            let replaced = app.replaced_reply(&id)?;
            if json {
                output::json(&replaced)?;
                return Ok(ExitCode::SUCCESS);
            }
            println!("replaced ({}):", replaced.reasons.join(", "));
            println!("  {}", replaced.original);
            println!("\nthe conversation (as the child saw it):");
            for m in &replaced.thread.messages {
                if m.content.is_empty() {
                    continue;
                }
                let mark = if m.id == replaced.message_id {
                    "  <- replaced"
                } else {
                    ""
                };
                println!("  {:?}: {}{mark}", m.role, m.content);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
