//! `deskmate doctor`: one line per check, with the fix for anything missing.
//! It runs from the configuration, not an open Deskmate, so a data directory
//! that cannot be used is reported like any other failed check.

use std::process::ExitCode;

use clap::Args;
use deskmate_app::doctor::{check_all, Status};
use deskmate_app::Config;

use crate::output;

#[derive(Args)]
pub struct DoctorArgs {
    #[arg(long)]
    json: bool,
}

pub fn run(config: &Config, args: DoctorArgs) -> anyhow::Result<ExitCode> {
    let checks = check_all(config);
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
    Ok(if checks.iter().any(|c| c.status == Status::Fail) {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
