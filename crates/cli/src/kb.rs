//! `deskmate kb`: the family's knowledge bases — add documents (text,
//! Markdown, PDF, Word) to a named base with their embedding's progress on
//! stderr, list the bases or one base's documents, search with the
//! passages' source and page, remove a document or a whole base.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Subcommand;
use deskmate_app::knowledge::{DEFAULT_BASE, DEFAULT_TOP_K};
use deskmate_app::Deskmate;

use crate::output;

#[derive(Subcommand)]
pub enum KbCmd {
    /// Add documents (.txt, .md, .pdf, .docx) to a knowledge base (made when new).
    Add {
        /// The knowledge base.
        #[arg(long, default_value = DEFAULT_BASE)]
        base: String,
        /// The files to add.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// List the knowledge bases, or the documents of one (`--base`).
    List {
        #[arg(long)]
        base: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// The passages closest in meaning to a question, best first.
    Search {
        /// Only this knowledge base (default: all).
        #[arg(long)]
        base: Option<String>,
        /// How many passages.
        #[arg(long, default_value_t = DEFAULT_TOP_K)]
        top: usize,
        /// The question (several words are joined).
        #[arg(required = true)]
        question: Vec<String>,
        #[arg(long)]
        json: bool,
    },
    /// Remove a document (by its source, as `kb list --base` shows it), or the whole base.
    Remove {
        #[arg(long)]
        base: String,
        /// The document; without it the whole base goes.
        source: Option<String>,
    },
}

pub fn run(app: &Deskmate, cmd: KbCmd) -> anyhow::Result<ExitCode> {
    let kb = app.knowledge();
    match cmd {
        KbCmd::Add { base, files, json } => {
            let added = kb.add(&base, &files, &mut |p| {
                if p.done_chunks == 0 {
                    eprintln!("{}: {} passages to embed", p.source, p.total_chunks);
                } else {
                    eprintln!("{}: {}/{}", p.source, p.done_chunks, p.total_chunks);
                }
            })?;
            if json {
                output::json(&added)?;
            } else {
                for d in &added {
                    println!(
                        "added {} to {} ({} passages, {} characters)",
                        d.source, d.knowledge_base, d.chunks, d.chars
                    );
                }
            }
        }
        KbCmd::List { base: None, json } => {
            let bases = kb.bases()?;
            if json {
                output::json(&bases)?;
            } else if bases.is_empty() {
                println!(
                    "no knowledge bases; add documents with `deskmate kb add --base NAME FILE…`"
                );
            } else {
                for b in &bases {
                    println!(
                        "{}\t{} document(s)\t{} passages{}",
                        b.name,
                        b.documents,
                        b.chunks,
                        if b.builtin { "\tbuilt in" } else { "" }
                    );
                }
            }
        }
        KbCmd::List {
            base: Some(base),
            json,
        } => {
            let docs = kb.documents(&base)?;
            if json {
                output::json(&docs)?;
            } else {
                for d in &docs {
                    println!(
                        "{}\t{}\t{} passages\t{} characters",
                        d.source, d.title, d.chunks, d.chars
                    );
                }
            }
        }
        KbCmd::Search {
            base,
            top,
            question,
            json,
        } => {
            let passages = kb.search(&question.join(" "), base.as_deref(), top)?;
            if json {
                output::json(&passages)?;
            } else if passages.is_empty() {
                println!("nothing found");
            } else {
                for (i, p) in passages.iter().enumerate() {
                    let page = p.page.map(|n| format!(", page {n}")).unwrap_or_default();
                    println!(
                        "{}. {} — {}{page} ({}, score {:.2})",
                        i + 1,
                        p.source,
                        p.title,
                        p.knowledge_base,
                        p.score
                    );
                    println!("   {}", p.text.trim().replace('\n', "\n   "));
                }
            }
        }
        KbCmd::Remove { base, source } => {
            let n = kb.remove(&base, source.as_deref())?;
            match source {
                Some(s) => println!("removed {s} from {base}"),
                None => println!("removed the knowledge base {base} ({n} document(s))"),
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
