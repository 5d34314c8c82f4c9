//! The `deskmate` command line: the same services as the app window, for
//! scripts, tests and power users. Each subcommand lives in its own module.

mod doctor;
mod materials;
mod output;
mod profiles;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use deskmate_app::{Config, Deskmate};

#[derive(Parser)]
#[command(name = "deskmate", version, about = "同桌 Deskmate — an offline-first study companion", long_about = None)]
struct Cli {
    /// Where Deskmate keeps its database and files (default: the platform's data directory).
    #[arg(long, global = true, env = "DESKMATE_DATA_DIR")]
    data_dir: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List and add parent and child profiles.
    #[command(subcommand)]
    Profiles(profiles::ProfilesCmd),
    /// List and add materials (poems and texts to recite).
    #[command(subcommand)]
    Materials(materials::MaterialsCmd),
    /// Check everything Deskmate depends on and explain what is missing.
    Doctor(doctor::DoctorArgs),
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_env("DESKMATE_LOG"))
        .with_writer(std::io::stderr)
        .init();
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let app = Deskmate::open(Config::resolve(cli.data_dir)?)?;
    match cli.command {
        Command::Profiles(cmd) => profiles::run(&app, cmd),
        Command::Materials(cmd) => materials::run(&app, cmd),
        Command::Doctor(args) => doctor::run(&app, args),
    }
}
