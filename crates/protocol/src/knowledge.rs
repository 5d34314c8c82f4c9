//! The family's knowledge bases as front ends receive them (`deskmate kb …
//! --json`, and the parent screen): the bases with their counts,
//! a base's documents, and the passages a search finds with their source
//! and position, and the progress of an add. The core's own rows are `deskmate_knowledge`'s; the app
//! converts them here.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// One knowledge base and what it holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct KnowledgeBaseView {
    pub name: String,
    /// Made by Deskmate (the poem library), not by a parent: it cannot be changed.
    pub builtin: bool,
    pub documents: u64,
    pub chunks: u64,
}

/// One document of a base.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct KnowledgeDocumentView {
    pub knowledge_base: String,
    /// The file name it was added from (what a passage cites).
    pub source: String,
    pub title: String,
    pub chunks: u64,
    pub chars: u64,
}

/// A passage a search found, best first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct KnowledgePassage {
    pub knowledge_base: String,
    pub source: String,
    pub title: String,
    /// 0-based index of the passage in its document.
    pub position: u64,
    pub start_char: u64,
    pub end_char: u64,
    /// 1-based PDF page where the passage starts.
    pub page: Option<u64>,
    pub text: String,
    /// Cosine similarity to the question (1 = the same meaning).
    pub score: f32,
}

/// How far the embedding of one document has got while it is added (the
/// parent screen's progress bar; `deskmate kb add` prints the same on
/// stderr). `done_chunks` is 0 once the document is cut, then grows to
/// `total_chunks`; the document is stored after the last.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct KnowledgeProgress {
    /// The document's file name.
    pub source: String,
    pub done_chunks: u64,
    pub total_chunks: u64,
}
