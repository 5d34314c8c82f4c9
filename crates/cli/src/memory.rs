//! `deskmate memory`: what the companion remembers about a child — list,
//! add (as a parent), edit, delete, and extract (what a model draws from
//! finished conversations). A memory is named by its id, or by the
//! start of it when that names one of the child's memories. Like the
//! other parent commands of the CLI (`plan goals`, `mcp`, `llm context`)
//! it asks no PIN: the command line is the family's own power tool, and
//! the PIN guards the window's parent area.

use std::process::ExitCode;
use std::time::Duration;

use clap::Subcommand;
use deskmate_app::chat::ChatOptions;
use deskmate_app::store::{Memory, MemoryKind};
use deskmate_app::Deskmate;

use crate::output;

#[derive(Subcommand)]
pub enum MemoryCmd {
    /// Everything remembered about a child, newest first.
    List {
        /// The child (name or id).
        #[arg(long)]
        profile: String,
        #[arg(long)]
        json: bool,
    },
    /// Remember something about a child (as a parent).
    Add {
        #[arg(long)]
        profile: String,
        /// likes, finds-hard, working-towards or other.
        #[arg(long, default_value = "other")]
        kind: String,
        /// What to remember (several words are joined).
        #[arg(required = true)]
        text: Vec<String>,
        #[arg(long)]
        json: bool,
    },
    /// Change a memory's words (and kind).
    Edit {
        #[arg(long)]
        profile: String,
        /// The memory's id (or its start).
        id: String,
        #[arg(long)]
        kind: Option<String>,
        /// The new words.
        #[arg(required = true)]
        text: Vec<String>,
        #[arg(long)]
        json: bool,
    },
    /// Read the children's finished conversations with the configured
    /// model and keep what is worth remembering (each conversation is read
    /// once, from where the last reading stopped).
    Extract {
        /// One child (name or id); every child when left out.
        #[arg(long)]
        profile: Option<String>,
        /// Leave conversations whose last message is younger than this
        /// many minutes (still going on).
        #[arg(long, default_value_t = 0)]
        idle_minutes: u64,
        /// `provider:model` instead of the configured one.
        #[arg(long)]
        model: Option<String>,
        /// The model service's base URL instead of the configured one.
        #[arg(long)]
        base_url: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Forget a memory.
    Delete {
        #[arg(long)]
        profile: String,
        /// The memory's id (or its start).
        id: String,
    },
}

fn print_memory(m: &Memory) {
    println!(
        "{}\t{}\t{}\t{}",
        m.id,
        m.kind.as_str(),
        m.text,
        m.source.as_str()
    );
}

pub fn run(app: &Deskmate, cmd: MemoryCmd) -> anyhow::Result<ExitCode> {
    match cmd {
        MemoryCmd::List { profile, json } => {
            let memories = app.memories(&profile)?;
            if json {
                output::json(&memories)?;
            } else if memories.is_empty() {
                println!("nothing remembered about {profile} yet");
            } else {
                memories.iter().for_each(print_memory);
            }
        }
        MemoryCmd::Add {
            profile,
            kind,
            text,
            json,
        } => {
            let kind: MemoryKind = kind.parse()?;
            let m = app.add_memory(&profile, kind, &text.join(" "))?;
            if json {
                output::json(&m)?;
            } else {
                println!("remembered about {profile}: {} ({})", m.text, m.id);
            }
        }
        MemoryCmd::Edit {
            profile,
            id,
            kind,
            text,
            json,
        } => {
            let kind = kind.map(|k| k.parse::<MemoryKind>()).transpose()?;
            let m = app.edit_memory(&profile, &id, &text.join(" "), kind)?;
            if json {
                output::json(&m)?;
            } else {
                println!("changed: {}", m.text);
            }
        }
        MemoryCmd::Extract {
            profile,
            idle_minutes,
            model,
            base_url,
            json,
        } => {
            let opts = ChatOptions {
                model,
                base_url,
                ..ChatOptions::default()
            };
            let idle = Duration::from_secs(idle_minutes.saturating_mul(60));
            let read = crate::runtime()?.block_on(app.extract_memories(
                profile.as_deref(),
                idle,
                &opts,
            ))?;
            if json {
                output::json(&read)?;
                return Ok(ExitCode::SUCCESS);
            }
            for r in &read {
                match &r.error {
                    Some(why) => println!("thread {}: nothing kept: {why}", r.thread_id),
                    None => println!(
                        "thread {}: {} messages read, {} kept",
                        r.thread_id,
                        r.messages,
                        r.added.len()
                    ),
                }
                r.added.iter().for_each(print_memory);
            }
            if read.is_empty() {
                println!("no conversation to read");
            }
        }
        MemoryCmd::Delete { profile, id } => {
            let m = app.delete_memory(&profile, &id)?;
            println!("forgot about {profile}: {}", m.text);
        }
    }
    Ok(ExitCode::SUCCESS)
}
