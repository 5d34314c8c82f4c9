//! The offline speech models as the settings screen shows them: what is
//! installed, and the progress of fetching what is missing.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// One model of the manifest and whether it is installed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ModelStatus {
    pub name: String,
    pub purpose: String,
    pub present: bool,
    /// What the doctor found (a path, or what is wrong).
    pub detail: String,
}

/// Where a model's installation is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ModelPhase {
    Download,
    Convert,
    Verify,
    Done,
    Error,
}

/// One step of fetching the models, streamed to the settings screen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ModelProgress {
    /// The model's name, or `all` for a failure of the whole fetch.
    pub name: String,
    pub phase: ModelPhase,
    pub done_bytes: u64,
    pub total_bytes: u64,
    pub message: Option<String>,
}

/// A model downloaded and verified (`deskmate models download --json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ModelDownloaded {
    pub name: String,
    /// Where the file is now.
    pub path: String,
}
