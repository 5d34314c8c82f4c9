//! What the CLI prints for recitation checks: one JSON line per line of a
//! `deskmate recite check --batch` file, and the stage timings of
//! `deskmate speech recite-audio --json`.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

/// The verdict on one batch line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct CheckedLine {
    /// The request's `id`, echoed as given (any JSON value; `null` when absent).
    #[ts(type = "unknown")]
    pub id: Value,
    pub accuracy: f64,
    pub passed: bool,
    pub units: usize,
    pub correct: usize,
    pub errors: Vec<CheckedError>,
}

/// One error of a batch verdict, placed in the reference.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct CheckedError {
    /// omission | insertion | substitution | order
    #[serde(rename = "type")]
    pub error_type: String,
    pub kind: String,
    /// 1-based line of the reference.
    pub line: usize,
    /// 0-based unit offset within the line.
    pub offset: usize,
    pub expected: String,
    pub actual: String,
}

/// A batch line that could not be checked. (`error` comes first: the
/// output has always had its keys in that order.)
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct LineFailure {
    /// `line N: why`.
    pub error: String,
    #[ts(type = "unknown")]
    pub id: Value,
}

/// How long each stage of checking a recording took, in milliseconds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct StageTimings {
    pub decode_ms: u64,
    pub vad_ms: u64,
    pub asr_ms: u64,
    pub check_ms: u64,
    /// Decode + VAD + ASR + check (model loading excluded, reported as load_ms).
    pub total_ms: u64,
    pub load_ms: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_line_is_what_the_cli_always_printed() {
        let failure = LineFailure {
            error: "line 2: not a check request".into(),
            id: Value::from(7),
        };
        let before = serde_json::json!({ "id": 7, "error": "line 2: not a check request" });
        assert_eq!(
            serde_json::to_string(&failure).unwrap(),
            serde_json::to_string(&before).unwrap()
        );
    }
}
