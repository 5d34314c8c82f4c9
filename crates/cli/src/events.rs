//! `deskmate events`: the core's one event stream, printed. Starts what the
//! window starts — the hourly look at due reviews and, when asked, the lamp
//! — and prints every event as it is published: one JSON line
//! `{"channel", "payload"}` each with `--json` (what the window receives on
//! that channel), a short line otherwise.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use deskmate_app::review_reminders::REVIEWS_EVERY;
use deskmate_app::Deskmate;
use deskmate_protocol::AppEvent;

#[derive(Args)]
pub struct EventsArgs {
    /// Also follow the desk lamp at this port (e.g. a `deskmate lamp simulate` link).
    #[arg(long)]
    lamp: Option<PathBuf>,
    /// Stop after this many events (default: run until interrupted).
    #[arg(long)]
    count: Option<usize>,
    #[arg(long)]
    json: bool,
}

pub fn run(app: &Deskmate, args: EventsArgs) -> anyhow::Result<ExitCode> {
    // Subscribed before anything starts, so the first events are printed too.
    let events = app.events();
    if let Some(port) = args.lamp {
        app.lamp().watch(Some(port))?;
    }
    app.follow_reviews(REVIEWS_EVERY)?;
    for (seen, event) in events.iter().enumerate() {
        if args.json {
            println!("{}", serde_json::to_string(&event)?);
        } else {
            println!("{}", line(&event));
        }
        if args.count.is_some_and(|n| seen + 1 >= n) {
            break;
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn line(event: &AppEvent) -> String {
    let what = match event {
        AppEvent::Reminder(r) => format!("{} — {}", r.title, r.body),
        AppEvent::ReviewsDue(d) => format!("{} review(s) due for {}", d.count, d.profile_id),
        other => other
            .payload()
            .map(|p| p.to_string())
            .unwrap_or_else(|e| format!("(cannot show: {e})")),
    };
    format!("{}  {what}", event.channel())
}
