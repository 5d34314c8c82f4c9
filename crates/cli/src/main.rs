//! The `deskmate` command line: the same services as the app window, for
//! scripts, tests and power users. Each subcommand lives in its own module.

mod ask;
mod chat;
mod doctor;
mod events;
mod kb;
mod lamp;
mod llm;
mod materials;
mod mcp;
mod memory;
mod models;
mod output;
mod plan;
mod practice;
mod profiles;
mod recite;
mod runs;
mod say;
mod serve;
mod settings;
mod speech;
mod sync;
mod threads;
mod trace;
mod usage;
mod workflows;

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
    /// Drive the desk lamp, watch its events, or simulate one.
    Lamp(lamp::LampArgs),
    /// Make or download the speech models (whisper, Silero VAD, ONNX Runtime).
    #[command(subcommand)]
    Models(models::ModelsCmd),
    /// Transcribe speech offline (whisper) with a confidence per character.
    #[command(subcommand)]
    Speech(speech::SpeechCmd),
    /// Talk to the companion (needs a model: see `deskmate llm set`).
    Chat(chat::ChatArgs),
    /// List and show chat threads.
    #[command(subcommand)]
    Threads(threads::ThreadsCmd),
    /// Continue a chat run that was cut off.
    #[command(subcommand)]
    Runs(runs::RunsCmd),
    /// Choose the chat model provider, save its key, test the connection.
    #[command(subcommand)]
    Llm(llm::LlmCmd),
    /// Knowledge bases the companion answers from: add documents, list, search, remove.
    #[command(subcommand)]
    Kb(kb::KbCmd),
    /// What the companion remembers about a child: list, add, edit, delete.
    #[command(subcommand)]
    Memory(memory::MemoryCmd),
    /// MCP servers as the companion's tool sources: add, list, tools, allow per child, remove.
    #[command(subcommand)]
    Mcp(mcp::McpCmd),
    /// Check a recitation, or record a child's attempt at a material.
    #[command(subcommand)]
    Recite(recite::ReciteCmd),
    /// Reviews due (FSRS schedule per child and material).
    #[command(subcommand)]
    Reviews(recite::ReviewsCmd),
    /// Daily or weekly practice report for a child.
    Report(recite::ReportArgs),
    /// The practice scene: start, recite typed or into the microphone, retry, leave, resume.
    #[command(subcommand)]
    Practice(practice::PracticeCmd),
    /// App-wide settings the window's settings screen changes (its language).
    #[command(subcommand)]
    Settings(settings::SettingsCmd),
    /// Print the core's events as they happen (what the window receives): due reviews, lamp, practice.
    Events(events::EventsArgs),
    /// What a child says, through the one entry: routed to a scene and acted on (我要背静夜思, 今天做什么, 不背了).
    Say(say::SayArgs),
    /// A child's plan for today with progress, and the goals a parent sets (每天背一首新诗, 每周复习三次).
    #[command(subcommand)]
    Plan(plan::PlanCmd),
    /// Routines a parent designs (start → agents, tools, conditions, a recitation, a note → end): save from JSON, list, show, delete, run for a child.
    #[command(subcommand)]
    Workflows(workflows::WorkflowsCmd),
    /// A parent's question about a child's progress, answered with a chart (这周背得怎么样?).
    Ask(ask::AskArgs),
    /// What the companion cost per day, child and run (tokens, US dollars, minutes of chat), and unread notices.
    Usage(usage::UsageArgs),
    /// A child's daily limits (minutes of chat, model calls, cost) and quiet hours: show, set.
    #[command(subcommand)]
    Limits(usage::LimitsCmd),
    /// What the parent was told: a limit reached, quiet hours, a companion's reply replaced.
    #[command(subcommand)]
    Notices(usage::NoticesCmd),
    /// The entry's logged decisions: replay them against today's rules.
    #[command(subcommand)]
    Trace(trace::TraceCmd),
    /// The local HTTP API (LangGraph-compatible threads and runs) on 127.0.0.1:8123.
    Serve(serve::ServeArgs),
    /// This device's account on the family's sync server: signup, login, logout, status.
    #[command(subcommand)]
    Account(sync::AccountCmd),
    /// The family's devices: pair a tablet with a code, list, remove.
    #[command(subcommand)]
    Devices(sync::DevicesCmd),
    /// Keep the family's devices in step: sync now, status, on, off.
    #[command(subcommand)]
    Sync(sync::SyncCmd),
}

/// The async runtime a command that talks to a model or a server runs on
/// (two workers: the machines Deskmate runs on are small).
fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    use anyhow::Context;
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

fn main() -> ExitCode {
    // Behave like other Unix tools when the reader goes away (`deskmate … | head`):
    // end quietly instead of panicking on a broken pipe.
    #[cfg(unix)]
    // SAFETY: called first thing in main, before any other thread exists;
    // restoring the default disposition of SIGPIPE has no other effect.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_env("DESKMATE_LOG"))
        .with_writer(std::io::stderr)
        // Colour codes only for a person at a terminal, never into a log file or pipe.
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {}", said_once(&e));
            ExitCode::FAILURE
        }
    }
}

/// The error and its causes, each said once: a cause whose words are
/// already in the message (an error that quotes the one it wraps) is not
/// repeated.
fn said_once(e: &anyhow::Error) -> String {
    let mut text = e.to_string();
    for cause in e.chain().skip(1) {
        let cause = cause.to_string();
        if !text.contains(&cause) {
            text.push_str(": ");
            text.push_str(&cause);
        }
    }
    text
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    // A plain check is a pure function: it needs no data directory.
    let command = match cli.command {
        Command::Recite(recite::ReciteCmd::Check(args)) => return recite::run_check(args),
        // The doctor opens the data directory itself: one it cannot use is a
        // FAIL line among all the other checks, not the only thing printed.
        Command::Doctor(args) => return doctor::run(&Config::resolve(cli.data_dir)?, args),
        other => other,
    };
    let app = Deskmate::open(Config::resolve(cli.data_dir)?)?;
    let done = match command {
        Command::Profiles(cmd) => profiles::run(&app, cmd),
        Command::Materials(cmd) => materials::run(&app, cmd),
        Command::Doctor(args) => doctor::run(app.config(), args),
        Command::Lamp(args) => lamp::run(&app, args),
        Command::Models(cmd) => models::run(&app, cmd),
        Command::Speech(cmd) => speech::run(&app, cmd),
        Command::Chat(args) => chat::run(&app, args),
        Command::Threads(cmd) => threads::run(&app, cmd),
        Command::Runs(cmd) => runs::run(&app, cmd),
        Command::Llm(cmd) => llm::run(&app, cmd),
        Command::Kb(cmd) => kb::run(&app, cmd),
        Command::Mcp(cmd) => mcp::run(&app, cmd),
        Command::Memory(cmd) => memory::run(&app, cmd),
        Command::Recite(cmd) => recite::run(&app, cmd),
        Command::Reviews(cmd) => recite::run_reviews(&app, cmd),
        Command::Report(args) => recite::run_report(&app, args),
        Command::Practice(cmd) => practice::run(&app, cmd),
        Command::Settings(cmd) => settings::run(&app, cmd),
        Command::Events(args) => events::run(&app, args),
        Command::Say(args) => say::run(&app, args),
        Command::Plan(cmd) => plan::run(&app, cmd),
        Command::Workflows(cmd) => workflows::run(&app, cmd),
        Command::Trace(cmd) => trace::run(&app, cmd),
        Command::Ask(args) => ask::run(&app, args),
        Command::Usage(args) => usage::run_usage(&app, args),
        Command::Limits(cmd) => usage::run_limits(&app, cmd),
        Command::Notices(cmd) => usage::run_notices(&app, cmd),
        Command::Serve(args) => serve::run(&app, args),
        Command::Account(cmd) => sync::run_account(&app, cmd),
        Command::Devices(cmd) => sync::run_devices(&app, cmd),
        Command::Sync(cmd) => sync::run_sync(&app, cmd),
    };
    // Spans still on their way to a collector are let finish (a few
    // seconds at most), not cut off by the exit.
    app.wait_traces_sent();
    done
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn each_cause_is_said_once() {
        // A wrapper that quotes its cause: said once.
        let e = anyhow::anyhow!("FOREIGN KEY constraint failed")
            .context("database error: FOREIGN KEY constraint failed");
        assert_eq!(
            said_once(&e),
            "database error: FOREIGN KEY constraint failed"
        );
        // A cause with words of its own is kept.
        let e = anyhow::anyhow!("Is a directory").context("cannot open /tmp");
        assert_eq!(said_once(&e), "cannot open /tmp: Is a directory");
    }
}
