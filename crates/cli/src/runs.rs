//! `deskmate runs`: a chat run a crash cut off (status `interrupted`) is
//! continued from its last stored step with `resume`, printing the rest of
//! the answer as `deskmate chat` does.

use std::process::ExitCode;

use anyhow::Context;
use clap::Subcommand;
use deskmate_app::chat::ChatOptions;
use deskmate_app::Deskmate;

#[derive(Subcommand)]
pub enum RunsCmd {
    /// Continue a run that was cut off (see `deskmate threads show`).
    Resume {
        run: String,
        /// Model as provider:model (default: the saved setting).
        #[arg(long)]
        model: Option<String>,
        #[arg(long)]
        base_url: Option<String>,
        /// Print every AG-UI event as one JSON line instead of the answer.
        #[arg(long)]
        events: bool,
    },
}

pub fn run(app: &Deskmate, cmd: RunsCmd) -> anyhow::Result<ExitCode> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    match cmd {
        RunsCmd::Resume {
            run,
            model,
            base_url,
            events,
        } => rt.block_on(async {
            let opts = ChatOptions {
                model,
                base_url,
                ..Default::default()
            };
            let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
            let started = app.chat().resume(&run, &opts, tx).await?;
            crate::chat::follow(app, started, rx, events).await
        }),
    }
}
