//! Recitation checking, offline and deterministic: judge a child's
//! recitation of a poem or an English text like a careful teacher, then
//! remember what went wrong, schedule reviews and report to parents.
//!
//! The core is a pure function:
//!
//! ```
//! use deskmate_recite::{check, Mode, Reference, Transcript};
//!
//! let reference = Reference::new("床前明月光，疑是地上霜。举头望明月，低头思故乡。", None)?;
//! // Speech recognition wrote 越 for 月: the same sound, not the child's error.
//! let verdict = check(&reference, &Transcript::new("床前明越光，疑是地上霜，举偷望明月"), Mode::Voice)?;
//! assert_eq!(verdict.units, 20);
//! assert_eq!(verdict.correct, 14); // 偷 is a tone error; the last line is missing
//! assert!(!verdict.passed(85.0));
//! # Ok::<(), deskmate_recite::CheckError>(())
//! ```
//!
//! Around it: [`feedback`] (what to tell the child, with memory tips from a
//! [`TipWriter`]), [`patterns`] (recurring errors per child and material),
//! [`schedule`] (FSRS reviews), [`history`] (every attempt, recorded with
//! [`practice::record_attempt`]), [`retake`] (one unclear line said again,
//! merged into the same attempt) and [`report`] (daily and weekly reports).

mod align;
mod check;
pub mod feedback;
pub mod history;
mod normalize;
mod numerals;
pub mod patterns;
pub mod practice;
mod reference;
pub mod report;
pub mod retake;
pub mod schedule;
mod sound;
mod time;
pub mod tips;
mod verdict;

use serde::{Deserialize, Serialize};

pub use align::MAX_CELLS;
pub use check::{check, UNCERTAIN_BELOW};
pub use normalize::{normalize, Unit};
pub use reference::{Line, Reference, Transcript, MAX_REFERENCE_UNITS, MAX_TRANSCRIPT_FACTOR};
pub use tips::{TemplateTips, Tip, TipRequest, TipWriter};
pub use verdict::{ErrorKind, ErrorType, LineScore, RecitationError, Verdict};

pub(crate) use time::{local_day_bounds, parse_ts, time_zone, ts};

/// The pass mark when a profile has not set its own (`recite.pass_threshold`).
pub const DEFAULT_PASS_THRESHOLD: f64 = 85.0;
/// The per-profile setting holding the pass mark, in percent.
pub const PASS_THRESHOLD_SETTING: &str = "recite.pass_threshold";

/// The language of a text: Chinese is compared by character, English by word.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    Zh,
    En,
}

impl Lang {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Zh => "zh",
            Self::En => "en",
        }
    }
}

impl std::str::FromStr for Lang {
    type Err = CheckError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "zh" | "zh-cn" | "cn" | "chinese" => Ok(Self::Zh),
            "en" | "english" => Ok(Self::En),
            other => Err(CheckError::Invalid(format!(
                "language must be zh or en, not {other:?}"
            ))),
        }
    }
}

/// How the recitation reached us.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// From speech recognition: compared by sound; fillers and restarts forgiven.
    Voice,
    /// Typed (默写): exact characters; a homophone is a wrong character.
    Text,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Voice => "voice",
            Self::Text => "text",
        }
    }
}

impl std::str::FromStr for Mode {
    type Err = CheckError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "voice" => Ok(Self::Voice),
            "text" => Ok(Self::Text),
            other => Err(CheckError::Invalid(format!(
                "mode must be voice or text, not {other:?}"
            ))),
        }
    }
}

/// Why a recitation could not be checked.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CheckError {
    #[error(
        "the reference has nothing to recite (no characters or words, only punctuation or symbols)"
    )]
    EmptyReference,
    #[error("the text is too long to recite in one go (more than {max} characters or words); split it into parts")]
    ReferenceTooLong { max: usize },
    #[error(
        "the transcript is far too long for this text ({units} characters or words; at most {max} can be checked against it)"
    )]
    TranscriptTooLong { units: usize, max: usize },
    #[error("the transcript has {chars} characters but {confidences} confidences were given; give one per character")]
    Confidences { chars: usize, confidences: usize },
    #[error("{0}")]
    Invalid(String),
}

/// Why an attempt could not be recorded or a query answered.
#[derive(Debug, thiserror::Error)]
pub enum ReciteError {
    #[error(transparent)]
    Check(#[from] CheckError),
    #[error(transparent)]
    Store(#[from] deskmate_store::StoreError),
    #[error("{0}")]
    Invalid(String),
}

impl CheckError {
    /// A stable, machine-readable name for the failure (`recite.reference_empty`, …).
    pub fn code(&self) -> &'static str {
        match self {
            Self::EmptyReference => "recite.reference_empty",
            Self::ReferenceTooLong { .. } => "recite.reference_too_long",
            Self::TranscriptTooLong { .. } => "recite.transcript_too_long",
            Self::Confidences { .. } => "recite.confidences",
            Self::Invalid(_) => "invalid",
        }
    }

    /// Every code [`code`](Self::code) can return.
    pub const CODES: &'static [&'static str] = &[
        "recite.reference_empty",
        "recite.reference_too_long",
        "recite.transcript_too_long",
        "recite.confidences",
        "invalid",
    ];
}

impl ReciteError {
    /// The failure's stable code: the check's or the store's, passed through.
    pub fn code(&self) -> &'static str {
        match self {
            Self::Check(e) => e.code(),
            Self::Store(e) => e.code(),
            Self::Invalid(_) => "invalid",
        }
    }

    /// The values a translated message needs (the store's, passed through).
    pub fn params(&self) -> serde_json::Map<String, serde_json::Value> {
        let mut params = serde_json::Map::new();
        match self {
            Self::Store(e) => return e.params(),
            Self::Check(CheckError::ReferenceTooLong { max }) => {
                params.insert("max".into(), (*max).into());
            }
            Self::Check(CheckError::TranscriptTooLong { units, max }) => {
                params.insert("units".into(), (*units).into());
                params.insert("max".into(), (*max).into());
            }
            _ => {}
        }
        params
    }
}

/// Checks `transcript` against `reference` text in one call (the reference is
/// prepared each time; prepare a [`Reference`] once to check it repeatedly).
pub fn check_text(
    reference: &str,
    transcript: &str,
    mode: Mode,
    lang: Option<Lang>,
) -> Result<Verdict, CheckError> {
    let reference = Reference::new(reference, lang)?;
    check(&reference, &Transcript::new(transcript), mode)
}

/// The crate's example above, as a unit test: the suite runs no doc tests
/// (see scripts/test-suites.sh), so the example is checked here.
#[cfg(test)]
mod example {
    use crate::{check, CheckError, Mode, Reference, Transcript};

    #[test]
    fn the_crate_example_holds() -> Result<(), CheckError> {
        let reference = Reference::new("床前明月光，疑是地上霜。举头望明月，低头思故乡。", None)?;
        let verdict = check(
            &reference,
            &Transcript::new("床前明越光，疑是地上霜，举偷望明月"),
            Mode::Voice,
        )?;
        assert_eq!(verdict.units, 20);
        assert_eq!(verdict.correct, 14);
        assert!(!verdict.passed(85.0));
        Ok(())
    }
}
