//! `deskmate profiles`: list and add the people who use this device;
//! export a child's data to a zip, or delete a child with all their data
//! (a parent's PIN and a typed confirmation first).

use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
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
    /// Export everything stored about a child: JSON and CSV per table in a zip, with a README.txt of the fields.
    Export {
        /// The child (id or name).
        name: String,
        /// The zip file to write (must not exist yet).
        #[arg(long)]
        out: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// Delete a child with all their data on this device (and, when synced, on the family's other devices).
    Delete(DeleteArgs),
}

#[derive(Args)]
pub struct DeleteArgs {
    /// The child (id or name).
    name: String,
    /// Do not ask to type the name (needed when stdin is not a terminal).
    #[arg(long)]
    yes: bool,
    /// The parent whose PIN is given (id or name); the only parent when left out.
    #[arg(long)]
    parent: Option<String>,
    /// The parent's PIN (wrong tries count towards the lock, as in the parent area).
    #[arg(long)]
    pin: String,
    #[arg(long)]
    json: bool,
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
        ProfilesCmd::Export { name, out, json } => {
            let done = app.export_child(&name, &out)?;
            if json {
                output::json(&done)?;
            } else {
                let rows: u64 = done.tables.iter().map(|t| t.rows).sum();
                println!(
                    "exported {} to {}: {rows} rows in {} tables, {} workspace files",
                    done.name,
                    done.file,
                    done.tables.iter().filter(|t| t.rows > 0).count(),
                    done.workspace_files
                );
            }
        }
        ProfilesCmd::Delete(a) => return delete(app, a),
    }
    Ok(ExitCode::SUCCESS)
}

fn delete(app: &Deskmate, a: DeleteArgs) -> anyhow::Result<ExitCode> {
    let child = app.find_profile(&a.name)?;
    let parent = match &a.parent {
        Some(p) => app.find_profile(p)?,
        None => {
            let parents: Vec<_> = app
                .store()
                .profiles()
                .list()?
                .into_iter()
                .filter(|p| p.kind == ProfileKind::Parent)
                .collect();
            match <[_; 1]>::try_from(parents) {
                Ok([p]) => p,
                Err(v) if v.is_empty() => {
                    anyhow::bail!("there is no parent on this device to give a PIN for")
                }
                Err(_) => anyhow::bail!(
                    "there are several parents: say whose PIN it is with --parent NAME"
                ),
            }
        }
    };
    if !a.yes {
        if !std::io::stdin().is_terminal() {
            anyhow::bail!(
                "refusing to delete {} without a confirmation: stdin is not a terminal, so pass --yes to confirm",
                child.name
            );
        }
        eprint!(
            "This deletes {} and everything stored about them, for good. Type the name to confirm: ",
            child.name
        );
        std::io::stderr().flush()?;
        let mut typed = String::new();
        std::io::stdin().lock().read_line(&mut typed)?;
        if typed.trim() != child.name {
            anyhow::bail!("the name did not match; nothing was deleted");
        }
    }
    let done = app.delete_child(&child.id, &parent.id, &a.pin)?;
    if a.json {
        output::json(&done)?;
    } else {
        let rows: u64 = done.tables.iter().map(|t| t.rows).sum();
        println!(
            "deleted {} ({rows} rows, {} folders){}",
            done.name,
            done.paths_removed.len(),
            if done.sent_to_family {
                "; the family's other devices delete them at their next sync"
            } else {
                ""
            }
        );
    }
    Ok(ExitCode::SUCCESS)
}
