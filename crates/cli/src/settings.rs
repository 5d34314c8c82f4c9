//! `deskmate settings`: the app-wide settings the window's settings screen
//! changes — today the window's language.

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
    }
    Ok(ExitCode::SUCCESS)
}
