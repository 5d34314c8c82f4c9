//! What the CLI prints for recitation checks and speech recognition: one
//! JSON line per line of a `deskmate recite check --batch` file, a recording
//! heard and judged (`deskmate recite audio --json`) and an audio file
//! transcribed (`deskmate speech transcribe --json`).
//!
//! The speech crate's types these carry (a heard unit, a guard's flag, an
//! uncertain span, a re-examined difference, why a recording is not an
//! attempt) have their wire shapes here under the same names; the
//! recitation checker's verdict and recorded attempt, whole reports of
//! their own, are the type parameters of [`HeardVerdict`].

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use crate::practice::ErrorType;

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

/// A heard character (Mandarin) or word (English).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct HeardUnit {
    pub text: String,
    /// The lowest token probability the unit was built from.
    pub confidence: f32,
    /// Start and end in ms from the clip's start.
    pub start_ms: u32,
    pub end_ms: u32,
}

/// What a guard against whisper's inventions found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum GuardFlag {
    /// A subtitle-credit phrase whisper invents on quiet or unclear audio.
    StockPhrase { phrase: String },
    /// An n-gram repeated many times in a row (a decoding loop); repeats were cut.
    Repetition { ngram: String, times: usize },
    /// Text came out although no speech was detected; it was dropped.
    TextOnSilence { text: String },
    /// Far more units than the material has; the tail was cut.
    TooLong { heard: usize, expected: usize },
}

/// What whisper heard.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct HeardText {
    pub text: String,
    pub raw_text: String,
    pub units: Vec<HeardUnit>,
    pub flags: Vec<GuardFlag>,
}

/// What `deskmate speech transcribe --json` prints.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct Transcription {
    pub file: String,
    /// `zh` or `en`.
    pub lang: String,
    /// False when no speech was detected (silence or noise).
    pub speech: bool,
    pub text: String,
    pub raw_text: String,
    pub units: Vec<HeardUnit>,
    pub flags: Vec<GuardFlag>,
    pub audio_ms: u64,
    pub vad_ms: u64,
    pub asr_ms: u64,
}

/// Why a recording is not an attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum NotAnAttempt {
    /// No speech was detected, or whisper heard no words.
    NothingHeard,
    /// Whisper gave back its own neutral prompt.
    PromptEcho,
    /// Only punctuation came back (a very quiet recording).
    OnlyPunctuation,
    /// Nothing heard sounds like the material.
    NotTheMaterial,
}

/// Why a difference is not blamed on the child.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum UncertainReason {
    ToneOnly,
    LowConfidence,
    RecogniserGuard,
    /// Re-examined: the audio fits the right text about as well.
    AudioFitsText,
}

/// A place to ask the child to say again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct UncertainSpan {
    pub line: usize,
    pub offset: usize,
    pub expected: String,
    pub heard: String,
    #[serde(rename = "type")]
    pub error_type: ErrorType,
    pub reason: UncertainReason,
}

/// One difference re-examined against the recording.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct Rechecked {
    /// Index into the verdict's differences.
    pub error: usize,
    pub line: usize,
    #[serde(rename = "type")]
    pub error_type: ErrorType,
    pub expected: String,
    pub heard: String,
    /// Log-probability of the corrected transcript minus the heard one, in
    /// nats, as the decision used it: near 0 or above, the audio fits the
    /// right text as well.
    pub delta: f64,
    /// The difference put right alone.
    pub alone: Option<f64>,
    /// … in the context of its run of neighbouring differences put right.
    pub in_run: Option<f64>,
    /// … in the context of the whole material put right.
    pub in_material: Option<f64>,
}

/// What `deskmate recite audio --json` prints: one recording judged.
/// `Verdict` is the recitation checker's judgement (accuracy, errors, lines,
/// feedback) and `Attempt` the attempt recorded for a child. Not an attempt
/// (`not_an_attempt` says why, `message` what to tell the child): no
/// verdict, nothing recorded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct HeardVerdict<Verdict, Attempt> {
    /// Whether the voice detector found speech.
    pub speech: bool,
    pub not_an_attempt: Option<NotAnAttempt>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub message: Option<String>,
    pub transcript: Option<HeardText>,
    pub verdict: Option<Verdict>,
    pub uncertain: Vec<UncertainSpan>,
    pub rechecked: Vec<Rechecked>,
    pub fair_accuracy: Option<f64>,
    pub timings: StageTimings,
    pub attempt: Option<Attempt>,
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
