//! Knowledge bases on the device (issue 19): parents add documents (text,
//! Markdown, PDF, Word) to a named knowledge base; the text is extracted
//! ([`extract`]), cut into overlapping, sentence-aware chunks ([`chunk`]),
//! embedded by a multilingual sentence encoder run through ONNX Runtime
//! ([`encoder`]) and stored with sqlite-vec in the family's database
//! ([`shelf`]), where a question finds the closest passages by cosine.

pub mod chunk;
pub mod encoder;
pub mod extract;
pub mod library;
pub mod shelf;

pub use chunk::{chunk_text, Chunk, CHUNK_CHARS, OVERLAP_CHARS};
pub use encoder::{Embedder, SentenceEncoder, EMBEDDING_DIM};
pub use extract::{extract_file, Extracted};
pub use library::{library_document, sync_library, LibraryText, LIBRARY_BASE};
pub use shelf::{AddProgress, DocumentSummary, KnowledgeBaseSummary, Passage, Shelf};

/// What can go wrong, in plain words.
#[derive(Debug, thiserror::Error)]
pub enum KnowledgeError {
    #[error("the sentence encoder is not installed: {0} — run scripts/fetch-models.sh")]
    ModelMissing(String),
    #[error("the sentence encoder failed: {0}")]
    Encoder(String),
    #[error("cannot read {path}: {reason}")]
    Unreadable { path: String, reason: String },
    #[error("{path} is not a supported document (use .txt, .md, .pdf or .docx)")]
    Unsupported { path: String },
    #[error("{path} has no text to add")]
    Empty { path: String },
    #[error("{source_name} is already in knowledge base {kb}")]
    Duplicate { source_name: String, kb: String },
    #[error("no knowledge base named {0}")]
    NoSuchBase(String),
    #[error("knowledge base {kb} has no document {source_name}")]
    NoSuchDocument { kb: String, source_name: String },
    #[error("the built-in knowledge base {0} cannot be changed")]
    BuiltIn(String),
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Store(#[from] deskmate_store::StoreError),
}

impl KnowledgeError {
    /// A stable name for the failure.
    pub fn code(&self) -> &'static str {
        match self {
            Self::ModelMissing(_) => "knowledge.model_missing",
            Self::Encoder(_) => "knowledge.encoder",
            Self::Unreadable { .. } => "knowledge.unreadable",
            Self::Unsupported { .. } => "knowledge.unsupported",
            Self::Empty { .. } => "knowledge.empty",
            Self::Duplicate { .. } => "knowledge.duplicate",
            Self::NoSuchBase(_) => "knowledge.no_such_base",
            Self::NoSuchDocument { .. } => "knowledge.no_such_document",
            Self::BuiltIn(_) => "knowledge.built_in",
            Self::Invalid(_) => "knowledge.invalid",
            Self::Store(_) => "knowledge.store",
        }
    }
}

pub type KnowledgeResult<T> = Result<T, KnowledgeError>;
