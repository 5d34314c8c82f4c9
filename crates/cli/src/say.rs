//! `deskmate say`: what a child says, through the one entry the window and
//! the HTTP API will use — routed, decided by the guardrails, acted on in
//! its scene (a recitation opens on the poem named, the plan lists today's
//! reviews), logged with a trace id.

use std::process::ExitCode;

use clap::Args;
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
    /// What the child said.
    #[arg(required = true, num_args = 1..)]
    text: Vec<String>,
}

pub fn run(app: &Deskmate, args: SayArgs) -> anyhow::Result<ExitCode> {
    let profile = match &args.profile {
        Some(key) => app.find_profile(key)?,
        None => {
            let children: Vec<_> = app
                .store()
                .profiles()
                .list()?
                .into_iter()
                .filter(|p| p.kind == deskmate_app::store::ProfileKind::Child)
                .collect();
            match <[_; 1]>::try_from(children) {
                Ok([only]) => only,
                Err(all) => anyhow::bail!(
                    "say who is speaking with --profile ({} children here)",
                    all.len()
                ),
            }
        }
    };
    let r = app.process(&profile.id, &args.text.join(" "))?;
    if args.json {
        output::json(&r)?;
    } else {
        println!("{}", r.text_zh);
        println!("{}", r.text_en);
        eprintln!(
            "scene {:?} · intent {} ({:?}) · {} · trace {}",
            r.scene,
            r.intent.as_str(),
            r.confidence,
            r.reason,
            r.trace_id
        );
    }
    Ok(ExitCode::SUCCESS)
}
