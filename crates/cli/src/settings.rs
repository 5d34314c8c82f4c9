//! `deskmate settings`: the app-wide settings the window's settings screen
//! changes — the window's language, and where request traces are sent.

use std::process::ExitCode;

use clap::Subcommand;
use deskmate_app::Deskmate;
use deskmate_protocol::settings::LocaleSetting;

use crate::output;

#[derive(Subcommand)]
pub enum SettingsCmd {
    /// Show the window's language, or set it (zh-CN or en).
    Locale {
        /// zh-CN or en; omit to show the current one.
        locale: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Show where each request's spans are sent (an OpenTelemetry
    /// collector, OTLP/HTTP), or set it; `--off` sends nothing.
    OtlpEndpoint {
        /// The collector's URL, e.g. http://127.0.0.1:4318; omit to show it.
        endpoint: Option<String>,
        #[arg(long, conflicts_with = "endpoint")]
        off: bool,
    },
}

pub fn run(app: &Deskmate, cmd: SettingsCmd) -> anyhow::Result<ExitCode> {
    match cmd {
        SettingsCmd::Locale { locale, json } => {
            if let Some(locale) = locale {
                app.set_locale(&locale)?;
            }
            let locale = app.locale()?;
            if json {
                output::json(&LocaleSetting { locale })?;
            } else {
                println!("{locale}");
            }
        }
        SettingsCmd::OtlpEndpoint { endpoint, off } => {
            if off {
                app.set_otlp_endpoint(None)?;
            } else if let Some(url) = endpoint {
                app.set_otlp_endpoint(Some(&url))?;
            }
            match app.otlp_endpoint() {
                Some(url) => println!("{url}"),
                None => println!("off: nothing leaves this device"),
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
