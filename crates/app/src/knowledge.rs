//! The family's knowledge bases as every front end uses them (issue 19,
//! point 2): parents add documents to a named base, list and remove them,
//! and search; the companion's lead searches with the `rag_retrieval` tool
//! ([`tool`]). The work is `deskmate_knowledge`'s; this service opens the
//! sentence encoder once per app (on first use: loading it takes a moment)
//! and hands the results out as the protocol's views.
//!
//! Adding several files reads every one of them first: a file that cannot
//! be read (unsupported, damaged, not UTF-8, empty) stops the add before
//! anything is embedded or stored. Each document is then stored whole or
//! not at all.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use deskmate_knowledge::{
    extract_file, AddProgress, DocumentSummary, Extracted, KnowledgeError, Passage,
    SentenceEncoder, Shelf,
};
use deskmate_protocol::knowledge::{KnowledgeBaseView, KnowledgeDocumentView, KnowledgePassage};
use deskmate_store::Store;

use crate::{AppError, AppResult, Deskmate};

pub(crate) mod tool;

pub use deskmate_knowledge::shelf::DEFAULT_BASE;

/// Passages a search returns when the caller does not say.
pub const DEFAULT_TOP_K: usize = 5;

/// The knowledge bases of this device's family, and the encoder that
/// searches them (shared by clones).
#[derive(Clone)]
pub struct Knowledge {
    store: Store,
    models_dir: PathBuf,
    encoder: Arc<Mutex<Option<Arc<SentenceEncoder>>>>,
}

impl std::fmt::Debug for Knowledge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Knowledge")
            .field("models_dir", &self.models_dir)
            .finish_non_exhaustive()
    }
}

fn base_view(b: deskmate_knowledge::KnowledgeBaseSummary) -> KnowledgeBaseView {
    KnowledgeBaseView {
        name: b.name,
        builtin: b.builtin,
        documents: b.documents as u64,
        chunks: b.chunks as u64,
    }
}

fn document_view(d: DocumentSummary) -> KnowledgeDocumentView {
    KnowledgeDocumentView {
        knowledge_base: d.knowledge_base,
        source: d.source,
        title: d.title,
        chunks: d.chunks as u64,
        chars: d.chars as u64,
    }
}

fn passage_view(p: Passage) -> KnowledgePassage {
    KnowledgePassage {
        knowledge_base: p.knowledge_base,
        source: p.source,
        title: p.title,
        position: p.position as u64,
        start_char: p.start_char as u64,
        end_char: p.end_char as u64,
        page: p.page.map(|n| n as u64),
        text: p.text,
        score: p.score,
    }
}

impl Knowledge {
    pub(crate) fn new(store: Store, models_dir: PathBuf) -> Self {
        Self {
            store,
            models_dir,
            encoder: Arc::default(),
        }
    }

    fn shelf(&self) -> Shelf<'_> {
        Shelf::new(&self.store)
    }

    /// Whether the sentence encoder's files are installed (nothing is loaded).
    pub fn encoder_installed(&self) -> bool {
        SentenceEncoder::installed(&self.models_dir)
    }

    /// The sentence encoder, loaded on first use.
    fn encoder(&self) -> AppResult<Arc<SentenceEncoder>> {
        let mut slot = self
            .encoder
            .lock()
            .map_err(|_| AppError::Poisoned("the sentence encoder's slot was poisoned"))?;
        if let Some(e) = slot.as_ref() {
            return Ok(e.clone());
        }
        let loaded = Arc::new(SentenceEncoder::in_dir(&self.models_dir)?);
        *slot = Some(loaded.clone());
        Ok(loaded)
    }

    /// Every base with its counts, the built-in ones first.
    pub fn bases(&self) -> AppResult<Vec<KnowledgeBaseView>> {
        Ok(self.shelf().list()?.into_iter().map(base_view).collect())
    }

    /// The documents of base `base`.
    pub fn documents(&self, base: &str) -> AppResult<Vec<KnowledgeDocumentView>> {
        Ok(self
            .shelf()
            .documents(base)?
            .into_iter()
            .map(document_view)
            .collect())
    }

    /// Adds `files` to base `base` (made when new). Every file is read
    /// first, so one that cannot be read stops the add with nothing
    /// stored; `progress` hears each document's embedding.
    pub fn add(
        &self,
        base: &str,
        files: &[PathBuf],
        progress: &mut dyn FnMut(&str, AddProgress),
    ) -> AppResult<Vec<KnowledgeDocumentView>> {
        if files.is_empty() {
            return Err(AppError::Invalid("name at least one file to add".into()));
        }
        let docs = files
            .iter()
            .map(|f| extract_file(f))
            .collect::<Result<Vec<Extracted>, _>>()?;
        let encoder = self.encoder()?;
        let shelf = self.shelf();
        let mut added = Vec::with_capacity(docs.len());
        for doc in &docs {
            let mut heard = |p: AddProgress| progress(&doc.source, p);
            match shelf.add_document(base, doc, encoder.as_ref(), &mut heard) {
                Ok(d) => added.push(document_view(d)),
                Err(e) if added.is_empty() => return Err(e.into()),
                Err(e) => {
                    let kept: Vec<&str> = added
                        .iter()
                        .map(|d: &KnowledgeDocumentView| d.source.as_str())
                        .collect();
                    return Err(AppError::Invalid(format!(
                        "{e}; added before it, and kept in {base}: {}",
                        kept.join(", ")
                    )));
                }
            }
        }
        Ok(added)
    }

    /// The `top_k` passages closest to `query`, in base `base` or in all.
    pub fn search(
        &self,
        query: &str,
        base: Option<&str>,
        top_k: usize,
    ) -> AppResult<Vec<KnowledgePassage>> {
        let encoder = self.encoder()?;
        Ok(self
            .shelf()
            .search(query, base, top_k, encoder.as_ref())?
            .into_iter()
            .map(passage_view)
            .collect())
    }

    /// Removes one document (`source`) of base `base`, or the whole base;
    /// returns how many documents went.
    pub fn remove(&self, base: &str, source: Option<&str>) -> AppResult<usize> {
        Ok(self.shelf().remove(base, source)?)
    }
}

impl Deskmate {
    /// The family's knowledge bases.
    pub fn knowledge(&self) -> &Knowledge {
        self.chat().knowledge()
    }
}

impl From<KnowledgeError> for AppError {
    fn from(e: KnowledgeError) -> Self {
        AppError::Knowledge(e)
    }
}
