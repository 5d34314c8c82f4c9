//! The knowledge crate's integration tests, one binary (fewer links on 2
//! cores): the real sentence encoder (scripts/fetch-models.sh) and real SQLite
//! with sqlite-vec. Each module is one former test file (`shelf` was
//! `tests/knowledge.rs`).

mod retrieval;
mod shelf;
