//! The wire error: how a failure reaches the window, the CLI's `--json`
//! output and the HTTP API — `{code, message, params}`. `code` is stable and
//! machine-readable (`pin.locked`, `speech.no_microphone`, …; `error` when
//! there is nothing more specific), `message` the core's plain-English text
//! (shown for codes a front end has no words for), `params` what a
//! translated sentence needs (e.g. `until`, RFC 3339 UTC, for `pin.locked`).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use ts_rs::TS;

/// A failure as a front end receives it (see the module comment).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct WireError {
    pub code: String,
    pub message: String,
    #[ts(type = "Record<string, unknown>")]
    pub params: Map<String, Value>,
}

impl WireError {
    /// The catch-all code, for failures no crate gave a name.
    pub const GENERIC: &'static str = "error";

    /// A failure with a code and no params.
    pub fn new(code: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            code: code.into(),
            message: message.into(),
            params: Map::new(),
        }
    }

    /// A failure with nothing more specific to say than its message.
    pub fn generic(message: impl Into<String>) -> Self {
        Self::new(Self::GENERIC, message)
    }
}

impl std::fmt::Display for WireError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for WireError {}
