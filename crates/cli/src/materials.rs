//! `deskmate materials`: the library of poems and texts.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Subcommand;
use deskmate_app::store::{MaterialFilter, NewMaterial};
use deskmate_app::Deskmate;

use crate::output;

#[derive(Subcommand)]
pub enum MaterialsCmd {
    /// List materials, optionally by language, grade or a search word.
    List {
        #[arg(long, value_parser = ["zh", "en"])]
        lang: Option<String>,
        #[arg(long)]
        grade: Option<u8>,
        #[arg(long)]
        search: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Add a custom material from a UTF-8 text file.
    Add {
        #[arg(long)]
        title: String,
        #[arg(long, value_parser = ["zh", "en"])]
        lang: String,
        #[arg(long)]
        body_file: PathBuf,
        #[arg(long)]
        author: Option<String>,
        #[arg(long)]
        grade: Option<u8>,
        #[arg(long)]
        json: bool,
    },
}

pub fn run(app: &Deskmate, cmd: MaterialsCmd) -> anyhow::Result<ExitCode> {
    match cmd {
        MaterialsCmd::List {
            lang,
            grade,
            search,
            json,
        } => {
            let list = app.store().materials().list(&MaterialFilter {
                lang,
                grade,
                search,
            })?;
            if json {
                output::json(&list)?;
            } else {
                for m in list {
                    let by = m.author.map(|a| format!(" — {a}")).unwrap_or_default();
                    let grade = m.grade.map(|g| format!(" [grade {g}]")).unwrap_or_default();
                    println!("{}  {} {}{}{}", m.id, m.lang, m.title, by, grade);
                }
            }
        }
        MaterialsCmd::Add {
            title,
            lang,
            body_file,
            author,
            grade,
            json,
        } => {
            let body = std::fs::read_to_string(&body_file)
                .with_context(|| format!("cannot read {} as UTF-8 text", body_file.display()))?;
            let m = app.add_material(
                NewMaterial {
                    lang,
                    title,
                    author,
                    grade,
                    body,
                    ..Default::default()
                },
                None,
            )?;
            if json {
                output::json(&m)?;
            } else {
                println!("added {} ({})", m.title, m.id);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
