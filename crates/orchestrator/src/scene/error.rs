//! The practice scene's failures. Each has a stable code (the store's,
//! recitation's and speech's pass through), so a front end can say it in
//! the child's language; [`SceneError::wire`] is the form every front end
//! receives, in a task event as well as from a call.

use deskmate_protocol::WireError;
use deskmate_recite::{CheckError, ReciteError};
use deskmate_speech::attempt::NotAnAttempt;
use deskmate_speech::SpeechError;
use deskmate_store::StoreError;
use serde_json::{Map, Value};

use crate::TransitionError;

#[derive(Debug, thiserror::Error)]
pub enum SceneError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Recite(#[from] ReciteError),
    /// The microphone, the voice detector or whisper failed.
    #[error(transparent)]
    Speech(#[from] SpeechError),
    /// Voice recitation without the offline speech models.
    #[error("voice recitation needs the offline speech models ({0}); a parent can fetch them in Settings, or run `deskmate models fetch`. Typed recitation (默写) works without them")]
    ModelsNeeded(String),
    /// A step asked for at the wrong moment (retry before a verdict, stop
    /// with no microphone open, …).
    #[error("{0}")]
    NotNow(String),
    /// A stored practice that cannot be read back.
    #[error("a stored practice is damaged ({what}: {reason})")]
    Damaged { what: &'static str, reason: String },
    /// What was heard is no attempt at the material; nothing was recorded.
    #[error("{}", .0.message_en())]
    NotAnAttempt(NotAnAttempt),
    /// The microphone went away before anything was heard.
    #[error("the microphone went away before anything was heard ({0})")]
    MicrophoneLost(String),
    /// A lock some earlier crash in this process left poisoned.
    #[error("{0}")]
    Poisoned(&'static str),
    /// A worker thread could not be started.
    #[error("{what}: {reason}")]
    Thread { what: &'static str, reason: String },
    /// A photo of homework that cannot be used; nothing was stored.
    #[error(transparent)]
    Photo(#[from] crate::homework::photo::PhotoError),
    /// The model checking homework could not be reached or refused
    /// (`code` is the provider error's: `auth`, `rate_limited`, …).
    #[error("the model checking the homework failed ({code}): {reason}")]
    Model { code: &'static str, reason: String },
    /// The model answered, but not with a checked worksheet; nothing was stored.
    #[error("{0}")]
    ModelReply(String),
    /// Quiet hours, or a daily limit a parent set, stop this request
    /// ([`crate::limits`]).
    #[error("{0}")]
    Limited(crate::limits::Refusal),
}

pub type SceneResult<T> = Result<T, SceneError>;

impl From<TransitionError> for SceneError {
    fn from(e: TransitionError) -> Self {
        Self::NotNow(e.to_string())
    }
}

impl From<crate::homework::NotNow> for SceneError {
    fn from(e: crate::homework::NotNow) -> Self {
        Self::NotNow(e.to_string())
    }
}

impl From<CheckError> for SceneError {
    fn from(e: CheckError) -> Self {
        Self::Recite(ReciteError::Check(e))
    }
}

impl SceneError {
    /// The codes the scene adds itself (its sources list their own).
    pub const CODES: &'static [&'static str] = &[
        "models.needed",
        "practice.not_now",
        "practice.damaged",
        "speech.microphone_lost",
        "internal.poisoned",
        "internal.thread",
        "homework.model_failed",
        "homework.model_reply",
        "limits.quiet_hours",
        "limits.reached",
    ];

    /// A stable, machine-readable name for the failure.
    pub fn code(&self) -> &'static str {
        match self {
            Self::Store(e) => e.code(),
            Self::Recite(e) => e.code(),
            Self::Speech(e) => e.code(),
            Self::ModelsNeeded(_) => "models.needed",
            Self::NotNow(_) => "practice.not_now",
            Self::Damaged { .. } => "practice.damaged",
            Self::NotAnAttempt(why) => why.code(),
            Self::MicrophoneLost(_) => "speech.microphone_lost",
            Self::Poisoned(_) => "internal.poisoned",
            Self::Thread { .. } => "internal.thread",
            Self::Photo(e) => e.code(),
            Self::Model { .. } => "homework.model_failed",
            Self::ModelReply(_) => "homework.model_reply",
            Self::Limited(r) => r.code(),
        }
    }

    /// The values a translated message needs.
    pub fn params(&self) -> Map<String, Value> {
        match self {
            Self::Store(e) => e.params(),
            Self::Recite(e) => e.params(),
            Self::Limited(r) => r.params(),
            Self::Model { code, .. } => {
                let mut m = Map::new();
                m.insert("llm_code".into(), Value::from(*code));
                m
            }
            _ => Map::new(),
        }
    }

    /// The failure as a front end receives it.
    pub fn wire(&self) -> WireError {
        WireError {
            code: self.code().to_string(),
            message: self.to_string(),
            params: self.params(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_keep_their_codes_and_the_wire_error_says_the_same() {
        let e = SceneError::from(StoreError::NotFound("practice p".into()));
        assert_eq!(e.code(), "not_found");
        let e = SceneError::NotAnAttempt(NotAnAttempt::NotTheMaterial);
        let wire = e.wire();
        assert_eq!(wire.code, "speech.not_the_material");
        assert!(wire.message.contains("does not sound like the text"));
        let e = SceneError::from(SpeechError::Audio(deskmate_speech::AudioError::Device(
            "gone".into(),
        )));
        assert_eq!(e.code(), "speech.microphone");
    }

    #[test]
    fn every_own_code_is_listed() {
        let samples = [
            SceneError::ModelsNeeded("m".into()),
            SceneError::NotNow("n".into()),
            SceneError::Damaged {
                what: "state",
                reason: "r".into(),
            },
            SceneError::MicrophoneLost("m".into()),
            SceneError::Poisoned("p"),
            SceneError::Thread {
                what: "w",
                reason: "r".into(),
            },
            SceneError::Model {
                code: "auth",
                reason: "r".into(),
            },
            SceneError::ModelReply("r".into()),
        ];
        for e in &samples {
            assert!(SceneError::CODES.contains(&e.code()), "{}", e.code());
        }
        for why in [
            NotAnAttempt::NothingHeard,
            NotAnAttempt::PromptEcho,
            NotAnAttempt::NotTheMaterial,
        ] {
            assert!(SpeechError::CODES.contains(&why.code()), "{}", why.code());
        }
    }
}
