//! `deskmate settings`: the app-wide settings the window's settings screen
//! changes — the window's language, where request traces are sent, and the
//! moderation endpoint replies to children are also checked with.

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
    /// Show the moderation endpoint every reply to a child is also checked
    /// with (OpenAI-compatible `/moderations`; the key is the chat
    /// provider's), or set it; `--off` leaves the kept rules alone.
    Moderation {
        /// The API's base URL, e.g. https://api.openai.com/v1; omit to show it.
        base_url: Option<String>,
        /// The moderation model (the server's default when left out).
        #[arg(long, requires = "base_url")]
        model: Option<String>,
        #[arg(long, conflicts_with = "base_url")]
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
        SettingsCmd::Moderation {
            base_url,
            model,
            off,
        } => {
            if off {
                app.set_moderation(None)?;
            } else if let Some(base_url) = base_url {
                app.set_moderation(Some(deskmate_app::orchestrator::safety::ModerationConfig {
                    base_url,
                    model,
                }))?;
            }
            match app.moderation()? {
                Some(c) => println!(
                    "{} ({})",
                    c.base_url,
                    c.model.as_deref().unwrap_or("the server's default model")
                ),
                None => println!("off: replies to children are checked by the kept rules alone"),
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
