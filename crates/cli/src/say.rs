//! `deskmate say`: what a child says — typed words, a recording with
//! `--wav` heard offline first, the microphone with `--listen` (the
//! window's talk button: heard until the child falls silent), or photos of
//! homework with `--image`, or a button pressed with `--button lamp:next` — through the one entry the window and the HTTP
//! API will use: routed, decided by the guardrails, acted on in its scene (a
//! recitation opens on the poem named, the plan lists today's tasks, a photo
//! is checked by the configured vision model and its mistakes walked
//! through), logged with a trace id. A recording with no words in it, or a
//! file that is not a usable photo, is answered in plain words with a coded
//! error (exit code 1), nothing logged.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use deskmate_app::chat::ChatOptions;
use deskmate_app::handoff::Handoff;
use deskmate_app::orchestrator::entry::Talking;
use deskmate_app::Deskmate;

use crate::output;

#[derive(Debug, Args)]
pub struct SayArgs {
    /// The child speaking, by name or id (default: the only child).
    #[arg(long)]
    profile: Option<String>,
    /// Print the whole response as JSON.
    #[arg(long)]
    json: bool,
    /// A recording of the child speaking (WAV, or another audio file),
    /// heard with the offline speech models instead of typed words.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["text", "image", "listen", "button"])]
    wav: Option<PathBuf>,
    /// Listen to the microphone until the child falls silent, as the
    /// window's talk button does, and answer what was said.
    #[arg(long, conflicts_with_all = ["text", "image", "button"])]
    listen: bool,
    /// A button pressed, where:which — `lamp:next`, `screen:yes`, `lamp:again`,
    /// `lamp:no`: the scene-local reply it stands for where the child is.
    #[arg(long, value_name = "WHERE:WHICH", conflicts_with_all = ["text", "image"])]
    button: Option<String>,
    /// A photo of homework (PNG, JPEG, GIF or WebP, at most 10 MB); give it
    /// again for more pages (at most 4). Words may go with it.
    #[arg(long, value_name = "FILE")]
    image: Vec<PathBuf>,
    /// Only route and answer: when the request goes to the companion (chat
    /// with a model set up), do not run it.
    #[arg(long)]
    no_companion: bool,
    /// What the child said.
    #[arg(required_unless_present_any = ["wav", "listen", "image", "button"], num_args = 1..)]
    text: Vec<String>,
}

pub fn run(app: &Deskmate, args: SayArgs) -> anyhow::Result<ExitCode> {
    let profile = child(app, args.profile.as_deref())?;
    let r = match &args.wav {
        Some(recording) => app.process_voice(&profile.id, recording)?,
        None if args.button.is_some() => {
            let pressed = args
                .button
                .as_deref()
                .unwrap_or_default()
                .parse()
                .map_err(|e: String| anyhow::anyhow!(e))?;
            app.process_button(&profile.id, pressed)?
        }
        None if args.listen => {
            eprintln!("listening… (it ends when {} falls silent)", profile.name);
            app.talk(&profile.id, |t| {
                if t == Talking::Thinking {
                    eprintln!("thinking…");
                }
            })?
        }
        None if !args.image.is_empty() => {
            app.process_photos(&profile.id, &args.image, &args.text.join(" "))?
        }
        None => app.process(&profile.id, &args.text.join(" "))?,
    };
    // The companion takes a chat request from here: run it on the child's
    // words, as the window does, so its answer (and its spans under this
    // request) come with this one command.
    let companion = if r.handoff && !args.no_companion {
        let words = r.heard.clone().unwrap_or_else(|| args.text.join(" "));
        let handoff = Handoff {
            profile_id: profile.id.clone(),
            trace_id: r.trace_id.clone(),
            text: words,
            thread_id: None,
        };
        if !args.json {
            println!("{}", r.text_zh);
        }
        Some(companion(app, handoff, args.json)?)
    } else {
        None
    };
    if let Some((outcome, code)) = companion {
        if args.json {
            let mut v = serde_json::to_value(&r)?;
            v["companion"] = serde_json::json!({
                "thread_id": outcome.thread_id,
                "run_id": outcome.run_id,
                "status": outcome.status.as_str(),
                "answer": outcome.answer,
                "error": outcome.error,
            });
            output::json(&v)?;
        }
        eprintln!("trace {}", r.trace_id);
        return Ok(code);
    }
    if args.json {
        output::json(&r)?;
    } else {
        if let Some(heard) = &r.heard {
            println!("听到 heard: {heard}");
        }
        if let Some(card) = &r.homework {
            if card.total > 0 {
                println!(
                    "作业 homework: {} · {}/{} right",
                    card.subject, card.correct, card.total
                );
            }
        }
        println!("{}", r.text_zh);
        println!("{}", r.text_en);
        eprintln!(
            "scene {:?} · intent {} ({:?}, by the {}) · {} · trace {}",
            r.scene,
            r.intent.as_str(),
            r.confidence,
            r.routed_by.as_str(),
            r.reason,
            r.trace_id
        );
        if let Some(e) = &r.error {
            eprintln!("error {}: {}", e.code, e.message);
        }
    }
    Ok(if r.error.is_some() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// Runs the companion on a handed-off request: its answer streamed (or, with
/// `quiet`, only returned), and how the run ended.
fn companion(
    app: &Deskmate,
    handoff: Handoff,
    quiet: bool,
) -> anyhow::Result<(deskmate_app::chat::agent::RunOutcome, ExitCode)> {
    let rt = crate::runtime()?;
    rt.block_on(async {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let run = app
            .answer_handoff(handoff, &ChatOptions::default(), tx)
            .await?;
        if quiet {
            drop(rx);
            let outcome = run.done.await.context("the companion's run stopped")?;
            let code = if outcome.status == deskmate_app::chat::agent::RunStatus::Completed {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            };
            Ok((outcome, code))
        } else {
            crate::chat::follow_outcome(app, run, rx, false).await
        }
    })
}

/// The child named (by name or id), or the only child there is.
pub fn child(app: &Deskmate, key: Option<&str>) -> anyhow::Result<deskmate_app::store::Profile> {
    if let Some(key) = key {
        return Ok(app.find_profile(key)?);
    }
    let children: Vec<_> = app
        .store()
        .profiles()
        .list()?
        .into_iter()
        .filter(|p| p.kind == deskmate_app::store::ProfileKind::Child)
        .collect();
    match <[_; 1]>::try_from(children) {
        Ok([only]) => Ok(only),
        Err(all) => anyhow::bail!(
            "say which child with --profile ({} children here)",
            all.len()
        ),
    }
}
