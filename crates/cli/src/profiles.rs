//! `deskmate profiles`: list and add the people who use this device.

use std::process::ExitCode;

use clap::{Args, Subcommand};
use deskmate_app::store::{NewProfile, ProfileKind};
use deskmate_app::Deskmate;

use crate::output;

#[derive(Subcommand)]
pub enum ProfilesCmd {
    /// List all profiles.
    List {
        #[arg(long)]
        json: bool,
    },
    /// Add a parent (with a PIN) or a child.
    Add(AddArgs),
    /// First-run setup, as the window's welcome screen: a parent with a PIN and a first child, together.
    Setup(SetupArgs),
    /// Give a profile a new name (a synced device sends the change to the family).
    Rename {
        /// The profile (id or name).
        #[arg(long)]
        profile: String,
        /// Its new name.
        #[arg(long)]
        name: String,
        #[arg(long)]
        json: bool,
    },
    /// Open the parent area: check a parent's PIN (wrong tries are counted and lock it for a while).
    Unlock {
        /// The parent's profile (id or name).
        #[arg(long)]
        profile: String,
        #[arg(long)]
        pin: String,
    },
}

#[derive(Args)]
pub struct SetupArgs {
    #[arg(long)]
    parent_name: String,
    /// The parent's PIN, 4–8 digits.
    #[arg(long)]
    pin: String,
    #[arg(long)]
    child_name: String,
    /// The child's school grade, 1–12.
    #[arg(long)]
    grade: Option<u8>,
    /// zh-CN or en, for both.
    #[arg(long)]
    locale: Option<String>,
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub struct AddArgs {
    #[arg(long)]
    name: String,
    #[arg(long, value_parser = ["parent", "child"])]
    kind: String,
    /// School grade, 1–12 (children).
    #[arg(long)]
    grade: Option<u8>,
    /// 4–8 digits; required for parents.
    #[arg(long)]
    pin: Option<String>,
    /// IANA time zone used for daily reports (default Asia/Shanghai).
    #[arg(long)]
    time_zone: Option<String>,
    /// zh-CN or en.
    #[arg(long)]
    locale: Option<String>,
    #[arg(long)]
    json: bool,
}

pub fn run(app: &Deskmate, cmd: ProfilesCmd) -> anyhow::Result<ExitCode> {
    match cmd {
        ProfilesCmd::List { json } => {
            let list = app.store().profiles().list()?;
            if json {
                output::json(&list)?;
            } else if list.is_empty() {
                println!("no profiles yet: add one with `deskmate profiles add`");
            } else {
                for p in list {
                    let grade = p.grade.map(|g| format!(" grade {g}")).unwrap_or_default();
                    println!("{}  {:<6} {}{}", p.id, p.kind.as_str(), p.name, grade);
                }
            }
        }
        ProfilesCmd::Add(a) => {
            let kind: ProfileKind = a.kind.parse()?;
            let p = app.store().profiles().add(NewProfile {
                kind: Some(kind),
                name: a.name,
                grade: a.grade,
                locale: a.locale,
                time_zone: a.time_zone,
                pin: a.pin,
            })?;
            if a.json {
                output::json(&p)?;
            } else {
                println!("added {} {} ({})", p.kind.as_str(), p.name, p.id);
            }
        }
        ProfilesCmd::Setup(a) => {
            let parent = NewProfile {
                name: a.parent_name,
                pin: Some(a.pin),
                locale: a.locale.clone(),
                ..Default::default()
            };
            let child = NewProfile {
                name: a.child_name,
                grade: a.grade,
                locale: a.locale,
                ..Default::default()
            };
            let made = app.setup_family(parent, child)?;
            if a.json {
                output::json(&made)?;
            } else {
                for p in made {
                    println!("added {} {} ({})", p.kind.as_str(), p.name, p.id);
                }
            }
        }
        ProfilesCmd::Rename {
            profile,
            name,
            json,
        } => {
            let found = app.find_profile(&profile)?;
            let renamed = app.store().profiles().rename(&found.id, &name)?;
            if json {
                output::json(&renamed)?;
            } else {
                println!("{} is now {}", found.name, renamed.name);
            }
        }
        ProfilesCmd::Unlock { profile, pin } => {
            let parent = app.find_profile(&profile)?;
            app.unlock_parent(&parent.id, &pin)?;
            println!("the parent area is open for {}", parent.name);
        }
    }
    Ok(ExitCode::SUCCESS)
}
