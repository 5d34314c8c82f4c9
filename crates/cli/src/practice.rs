//! `deskmate practice`: the window's practice scene from a shell — open a
//! material for a child, recite it typed (默写) or spoken into the
//! microphone with the text heard so far shown live, get the verdict and its
//! feedback, say an unclear line again (`retake`, merged into the same
//! attempt), retry, leave; an unfinished practice is resumed with `current`.
//! The same core calls as the window's buttons (`app.practice()`), so a
//! practice started here can be finished in the window and the other way
//! round. With `--json`, `submit` and `record` print every progress event as
//! one JSON line (the window's `practice://task` and `practice://partial`
//! payloads); the last line is the verdict.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use clap::{Args, Subcommand};
use deskmate_app::practice::PracticeView;
use deskmate_app::recite::Mode;
use deskmate_app::Deskmate;
use deskmate_protocol::practice::PracticeProgress;
use deskmate_protocol::{AppEvent, PracticeResult, TaskEvent, TaskStatus};
use serde::Serialize;

use crate::output;

#[derive(Subcommand)]
pub enum PracticeCmd {
    /// Open a material for a child (a review if the child has a schedule for it).
    Start(StartArgs),
    /// The child's unfinished practice, resumed as the window resumes it after a restart.
    Current {
        /// The child's profile (id or name).
        #[arg(long)]
        profile: String,
        #[arg(long)]
        json: bool,
    },
    /// Submit a typed recitation (默写) and wait for the verdict.
    Submit {
        #[arg(long)]
        practice: String,
        /// What the child wrote.
        #[arg(long)]
        text: String,
        /// Print each progress event as a JSON line.
        #[arg(long)]
        json: bool,
    },
    /// Recite into the microphone: ends when the child falls silent (or after --seconds), then waits for the verdict.
    Record {
        #[arg(long)]
        practice: String,
        /// Stop listening after this many seconds, as the window's stop button does.
        #[arg(long)]
        seconds: Option<f64>,
        /// Print each progress event (task, partial transcript) as a JSON line.
        #[arg(long)]
        json: bool,
    },
    /// Say one line of the verdict again — a line it could not hear clearly
    /// (`lines_to_say_again`): only that line is recorded, and the take is
    /// merged into the same attempt; then waits for the updated verdict.
    Retake {
        #[arg(long)]
        practice: String,
        /// The line to say again, 1-based.
        #[arg(long)]
        line: usize,
        /// Stop listening after this many seconds, as the window's stop button does.
        #[arg(long)]
        seconds: Option<f64>,
        /// Print each progress event as a JSON line.
        #[arg(long)]
        json: bool,
    },
    /// Try again after a verdict.
    Retry {
        #[arg(long)]
        practice: String,
        #[arg(long)]
        json: bool,
    },
    /// Leave the practice (what was recorded stays recorded).
    Leave {
        #[arg(long)]
        practice: String,
    },
}

#[derive(Args)]
pub struct StartArgs {
    /// The child's profile (id or name).
    #[arg(long)]
    profile: String,
    /// The material (id, built-in slug such as zh/jing-ye-si, or unique title).
    #[arg(long)]
    material: String,
    /// voice: recited aloud and compared by sound; text: typed (默写), exact characters.
    #[arg(long, value_parser = ["voice", "text"], default_value = "voice")]
    mode: String,
    #[arg(long)]
    json: bool,
}

/// How long a check may take before the command gives up waiting (the
/// attempt is still recorded by the core if it finishes).
const CHECK_WAIT: Duration = Duration::from_secs(300);

pub fn run(app: &Deskmate, cmd: PracticeCmd) -> anyhow::Result<ExitCode> {
    match cmd {
        PracticeCmd::Start(a) => {
            let profile = app.find_profile(&a.profile)?;
            let material = app.find_material(&a.material)?;
            let mode: Mode = a.mode.parse()?;
            let view = app.practice().start(&profile.id, &material.id, mode)?;
            show_view(&view, a.json)?;
        }
        PracticeCmd::Current { profile, json } => {
            let profile = app.find_profile(&profile)?;
            match app.practice().current(&profile.id)? {
                Some(view) => show_view(&view, json)?,
                None if json => output::json(&serde_json::Value::Null)?,
                None => println!("{} has no practice open", profile.name),
            }
        }
        PracticeCmd::Submit {
            practice,
            text,
            json,
        } => {
            // Subscribed before submitting, so no progress is missed.
            let events = app.events();
            let task_id = app.practice().submit_text(&practice, text)?;
            return finish(wait_for_verdict(&events, &task_id, json, None)?, json);
        }
        PracticeCmd::Record {
            practice,
            seconds,
            json,
        } => {
            let events = app.events();
            let task_id = app.practice().record_start(&practice)?;
            if !json {
                eprintln!("listening… (the recording ends when the child falls silent)");
            }
            let press_stop = || app.practice().record_stop(&practice);
            let stop = seconds
                .filter(|s| s.is_finite() && *s > 0.0)
                .map(|s| StopButton {
                    at: Instant::now() + Duration::from_secs_f64(s),
                    press: &press_stop,
                });
            return finish(wait_for_verdict(&events, &task_id, json, stop)?, json);
        }
        PracticeCmd::Retake {
            practice,
            line,
            seconds,
            json,
        } => return retake(app, &practice, line, seconds, json),
        PracticeCmd::Retry { practice, json } => {
            let view = app.practice().retry(&practice)?;
            show_view(&view, json)?;
        }
        PracticeCmd::Leave { practice } => {
            app.practice().leave(&practice)?;
            println!("left practice {practice}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Follows a recording started elsewhere (the lamp's start button) to its
/// verdict, printing as `practice record` does.
pub fn follow_to_verdict(
    events: &flume::Receiver<AppEvent>,
    task_id: &str,
    json: bool,
) -> anyhow::Result<ExitCode> {
    finish(wait_for_verdict(events, task_id, json, None)?, json)
}

/// `practice retake`: the microphone opens for one line, and the merged
/// verdict of the same attempt is printed (`lines to say again` shows what
/// is left to ask).
fn retake(
    app: &Deskmate,
    practice: &str,
    line: usize,
    seconds: Option<f64>,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let events = app.events();
    let task_id = app.practice().retake_start(practice, line)?;
    if !json {
        eprintln!("listening for line {line}… (the recording ends when the child falls silent)");
    }
    let press_stop = || app.practice().record_stop(practice);
    let stop = seconds
        .filter(|s| s.is_finite() && *s > 0.0)
        .map(|s| StopButton {
            at: Instant::now() + Duration::from_secs_f64(s),
            press: &press_stop,
        });
    finish(wait_for_verdict(&events, &task_id, json, stop)?, json)
}

fn print_line<T: Serialize>(value: &T) {
    match serde_json::to_string(value) {
        Ok(line) => println!("{line}"),
        Err(e) => eprintln!("cannot print a progress event: {e}"),
    }
}

/// The recording's stop button, pressed once at a deadline (`--seconds`).
struct StopButton<'a> {
    at: Instant,
    press: &'a dyn Fn() -> Result<String, deskmate_app::practice::SceneError>,
}

/// Waits for the task's last event (done or failed) on the app's event
/// stream, printing its progress and the text heard so far, pressing `stop`
/// when its deadline comes.
fn wait_for_verdict(
    events: &flume::Receiver<AppEvent>,
    task_id: &str,
    json: bool,
    mut stop: Option<StopButton<'_>>,
) -> anyhow::Result<TaskEvent> {
    let gave_up_at = Instant::now() + CHECK_WAIT;
    let mut practice_id: Option<String> = None;
    loop {
        let now = Instant::now();
        if now >= gave_up_at {
            bail!(
                "no verdict after {} s; the attempt is recorded if the check finishes (see `deskmate practice current`)",
                CHECK_WAIT.as_secs()
            );
        }
        let wake = match &stop {
            Some(button) => button.at.min(gave_up_at),
            None => gave_up_at,
        };
        match events.recv_timeout(wake.saturating_duration_since(now)) {
            Ok(AppEvent::Task(event)) if event.task_id == task_id => {
                practice_id = Some(event.practice_id.clone());
                if json {
                    print_line(&PracticeProgress::Task(event.clone()));
                } else {
                    eprintln!("{}", status_word(event.status));
                }
                if matches!(event.status, TaskStatus::Done | TaskStatus::Failed) {
                    return Ok(*event);
                }
            }
            Ok(AppEvent::Partial(p)) if practice_id.as_deref() == Some(p.practice_id.as_str()) => {
                if json {
                    print_line(&PracticeProgress::Partial(p));
                } else {
                    eprintln!("heard so far: {}", p.text);
                }
            }
            Ok(_) => {}
            Err(flume::RecvTimeoutError::Timeout) => {
                if let Some(button) = stop.take() {
                    if Instant::now() >= button.at {
                        // Already ended by silence: nothing to stop, the verdict is coming.
                        let _ = (button.press)();
                    } else {
                        stop = Some(button);
                    }
                }
            }
            Err(flume::RecvTimeoutError::Disconnected) => {
                bail!("the check ended without a verdict")
            }
        }
    }
}

fn status_word(status: TaskStatus) -> &'static str {
    match status {
        TaskStatus::Listening => "listening…",
        TaskStatus::Queued => "queued…",
        TaskStatus::Transcribing => "transcribing…",
        TaskStatus::Checking => "checking…",
        TaskStatus::Done => "done",
        TaskStatus::Failed => "failed",
    }
}

fn finish(last: TaskEvent, json: bool) -> anyhow::Result<ExitCode> {
    match (last.status, last.result) {
        (TaskStatus::Done, Some(result)) => {
            if !json {
                print_result(&result);
            }
            Ok(ExitCode::SUCCESS)
        }
        _ => {
            let why = last.error.map_or_else(
                || "the check did not give a verdict".to_string(),
                |e| e.message,
            );
            if json {
                Ok(ExitCode::FAILURE)
            } else {
                Err(anyhow::Error::msg(why)).context("the attempt was not checked")
            }
        }
    }
}

fn show_view(view: &PracticeView, json: bool) -> anyhow::Result<()> {
    if json {
        return output::json(view);
    }
    let kind = if view.is_review { "review" } else { "practice" };
    println!(
        "{kind} {} — {} ({}), {} attempt(s), {}",
        view.id,
        view.material.title,
        view.mode.as_str(),
        view.attempts,
        serde_json::to_value(&view.state)
            .ok()
            .and_then(|v| v.get("state").and_then(|s| s.as_str()).map(str::to_owned))
            .unwrap_or_else(|| "open".into())
    );
    if let Some(result) = &view.last_result {
        print_result(result);
    }
    Ok(())
}

fn print_result(r: &PracticeResult) {
    let mark = if r.passed { "passed" } else { "not passed" };
    println!(
        "attempt {}: {:.1}% ({}/{}), {mark}",
        r.attempt_number, r.accuracy, r.correct, r.units
    );
    println!("heard: {}", r.transcript);
    println!("{}", r.feedback.zh);
    println!("{}", r.feedback.en);
    if let Some(tip) = &r.feedback.tip_zh {
        println!("tip: {tip}");
    }
    if let Some(at) = &r.next_review_at {
        println!("next review: {at}");
    }
    if !r.lines_to_say_again.is_empty() {
        let lines: Vec<String> = r.lines_to_say_again.iter().map(|l| l.to_string()).collect();
        println!(
            "lines to say again: {} (deskmate practice retake --line N)",
            lines.join(", ")
        );
    }
}
