//! `deskmate doctor`: one line per check, with the fix for anything missing.

use std::process::ExitCode;

use clap::Args;
use deskmate_app::doctor::Status;
use deskmate_app::Deskmate;

use crate::output;

#[derive(Args)]
pub struct DoctorArgs {
    #[arg(long)]
    json: bool,
}

pub fn run(app: &Deskmate, args: DoctorArgs) -> anyhow::Result<ExitCode> {
    let checks = app.doctor();
    if args.json {
        output::json(&checks)?;
    } else {
        for c in &checks {
            let mark = match c.status {
                Status::Ok => "ok  ",
                Status::Warn => "warn",
                Status::Fail => "FAIL",
            };
            match &c.fix {
                Some(fix) => println!("{mark} {:<13} {} — fix: {fix}", c.name, c.detail),
                None => println!("{mark} {:<13} {}", c.name, c.detail),
            }
        }
    }
    // Warnings are normal on a machine without a microphone or LLM; only a failure is an error.
    Ok(if checks.iter().any(|c| c.status == Status::Fail) { ExitCode::FAILURE } else { ExitCode::SUCCESS })
}
