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

use base64::Engine;
use deskmate_knowledge::extract::{extract_bytes, MAX_FILE_BYTES};
use deskmate_knowledge::{
    extract_file, AddProgress, DocumentSummary, Extracted, KnowledgeError, Passage,
    SentenceEncoder, Shelf,
};
use deskmate_protocol::files::FileUpload;
use deskmate_protocol::knowledge::{
    KnowledgeBaseView, KnowledgeDocumentView, KnowledgePassage, KnowledgeProgress,
};
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
        progress: &mut dyn FnMut(KnowledgeProgress),
    ) -> AppResult<Vec<KnowledgeDocumentView>> {
        if files.is_empty() {
            return Err(AppError::Invalid("name at least one file to add".into()));
        }
        let docs = files
            .iter()
            .map(|f| extract_file(f))
            .collect::<Result<Vec<Extracted>, _>>()?;
        self.add_extracted(base, &docs, progress)
    }

    /// Adds files a front end handed over as bytes (the window's picker and
    /// drag-and-drop) to base `base`, as [`Knowledge::add`] adds files by
    /// path: every one is read before anything is embedded.
    pub fn add_uploads(
        &self,
        base: &str,
        uploads: &[FileUpload],
        progress: &mut dyn FnMut(KnowledgeProgress),
    ) -> AppResult<Vec<KnowledgeDocumentView>> {
        if uploads.is_empty() {
            return Err(AppError::Invalid("choose at least one file to add".into()));
        }
        let docs = uploads
            .iter()
            .map(|u| {
                let name = u.name.rsplit(['/', '\\']).next().unwrap_or(&u.name).trim();
                // The size from the base64 length first: a huge upload is not decoded.
                if u.data_base64.len() as u64 / 4 * 3 > MAX_FILE_BYTES + 3 {
                    return Err(AppError::Invalid(format!(
                        "{name} is larger than {} MB, the most a document can be",
                        MAX_FILE_BYTES / (1024 * 1024)
                    )));
                }
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(u.data_base64.trim())
                    .map_err(|_| {
                        AppError::Invalid(format!(
                            "{name} could not be read (its data is not base64)"
                        ))
                    })?;
                Ok(extract_bytes(name, &bytes)?)
            })
            .collect::<AppResult<Vec<Extracted>>>()?;
        self.add_extracted(base, &docs, progress)
    }

    /// Embeds and stores documents already read, each whole or not at all.
    fn add_extracted(
        &self,
        base: &str,
        docs: &[Extracted],
        progress: &mut dyn FnMut(KnowledgeProgress),
    ) -> AppResult<Vec<KnowledgeDocumentView>> {
        let encoder = self.encoder()?;
        let shelf = self.shelf();
        let mut added = Vec::with_capacity(docs.len());
        for doc in docs {
            let mut heard = |p: AddProgress| {
                progress(KnowledgeProgress {
                    source: doc.source.clone(),
                    done_chunks: p.done_chunks as u64,
                    total_chunks: p.total_chunks as u64,
                })
            };
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

#[cfg(test)]
mod tests {
    use super::*;
    use base64::engine::general_purpose::STANDARD;

    fn upload(name: &str, bytes: &[u8]) -> FileUpload {
        FileUpload {
            name: name.into(),
            data_base64: STANDARD.encode(bytes),
        }
    }

    #[test]
    fn uploads_that_cannot_be_read_stop_the_add_before_anything_is_embedded() {
        let dir = tempfile::tempdir().unwrap();
        // No encoder in this models directory: a refusal must come first.
        let mut config = crate::Config::in_dir(dir.path());
        config.models_dir = dir.path().join("no-models");
        let app = Deskmate::open(config).unwrap();
        let kb = app.knowledge();
        let mut heard = Vec::new();
        let good = upload("notes/生字.md", "# 生字\n床前明月光".as_bytes());
        let cases = [
            (
                upload("C:\\tmp\\run.exe", b"MZ\x90\0"),
                "knowledge.unsupported",
                "run.exe",
            ),
            (
                upload("scan.pdf", b"%PDF-1.4\ngarbage"),
                "knowledge.unreadable",
                "scan.pdf",
            ),
            (upload("empty.txt", b"  \n"), "knowledge.empty", "empty.txt"),
        ];
        for (bad, code, file) in cases {
            let err = kb
                .add_uploads("语文", &[good.clone(), bad], &mut |p| heard.push(p))
                .unwrap_err();
            assert_eq!(err.code(), code, "{err}");
            assert_eq!(err.params()["file"], file, "{err}");
        }
        let err = kb
            .add_uploads(
                "语文",
                &[FileUpload {
                    name: "a.txt".into(),
                    data_base64: "!!".into(),
                }],
                &mut |p| heard.push(p),
            )
            .unwrap_err();
        assert!(err.to_string().contains("not base64"), "{err}");
        assert!(kb.add_uploads("语文", &[], &mut |_| {}).is_err());
        assert!(heard.is_empty());
        // Readable files reach the encoder, which is missing here.
        let err = kb.add_uploads("语文", &[good], &mut |_| {}).unwrap_err();
        assert_eq!(err.code(), "knowledge.model_missing", "{err}");
        assert!(kb.bases().unwrap().iter().all(|b| b.name != "语文"));
    }
}
