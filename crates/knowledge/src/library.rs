//! The built-in material library (classical poems, English rhymes and
//! stories) as a built-in knowledge base, searchable like a parent's
//! documents by title, author and lines. One document per text, headed by
//! its title and author so a question naming either finds it. The base is
//! rebuilt only when the library's texts change.

use sha2::{Digest, Sha256};

use crate::encoder::Embedder;
use crate::extract::Extracted;
use crate::shelf::Shelf;
use crate::KnowledgeResult;

/// Name of the built-in base.
pub const LIBRARY_BASE: &str = "library";

/// One text of the built-in library.
#[derive(Debug, Clone)]
pub struct LibraryText {
    /// `zh/jing-ye-si`, `en/humpty-dumpty`: what passages are cited by.
    pub slug: String,
    pub title: String,
    pub author: Option<String>,
    pub dynasty: Option<String>,
    pub body: String,
}

/// The text as a document: title, author line, body.
pub fn library_document(t: &LibraryText) -> Extracted {
    let zh = t.slug.starts_with("zh/");
    let mut text = if zh {
        format!("《{}》\n", t.title)
    } else {
        format!("{}\n", t.title)
    };
    match (&t.dynasty, &t.author) {
        (Some(d), Some(a)) => text.push_str(&format!("{d}·{a}\n")),
        (None, Some(a)) if zh => text.push_str(&format!("{a}\n")),
        (None, Some(a)) => text.push_str(&format!("by {a}\n")),
        _ => {}
    }
    text.push_str(t.body.trim());
    text.push('\n');
    Extracted {
        source: t.slug.clone(),
        title: t.title.clone(),
        text,
        page_starts: Vec::new(),
    }
}

/// Brings the built-in base up to date with `texts`: nothing is done when
/// it already holds exactly these texts; otherwise it is rebuilt. Returns
/// whether it was rebuilt.
pub fn sync_library(
    shelf: &Shelf<'_>,
    texts: &[LibraryText],
    embedder: &dyn Embedder,
) -> KnowledgeResult<bool> {
    let docs: Vec<Extracted> = texts.iter().map(library_document).collect();
    let mut wanted: Vec<String> = docs
        .iter()
        .map(|d| hex::encode(Sha256::digest(d.text.as_bytes())))
        .collect();
    wanted.sort();
    wanted.dedup();
    if shelf.document_hashes(LIBRARY_BASE)? == wanted {
        return Ok(false);
    }
    shelf.replace_builtin(LIBRARY_BASE, &docs, embedder)?;
    Ok(true)
}
