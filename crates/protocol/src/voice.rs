//! The feedback voice: what it did (on `voice://notice`), the cloud voice
//! a parent may set, its test, and a phrase spoken into a file.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// What happened to a queued clip (the wire shape of the speech crate's
/// playback queue event of the same name).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum PlaybackEvent {
    Started {
        id: u64,
    },
    Finished {
        id: u64,
    },
    /// Stopped while playing (the child spoke, or the scene changed).
    Interrupted {
        id: u64,
    },
    /// Removed before it started.
    Dropped {
        id: u64,
    },
}

/// What the voice did, published as `AppEvent::Voice` on `voice://notice`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum VoiceNotice {
    /// A phrase was synthesized and queued as clip `id`.
    Queued { id: u64, text: String },
    /// The queue's account of a clip: started, finished, interrupted or dropped.
    Playback { playback: PlaybackEvent },
    /// Nothing can be spoken (no speaker, no synthesizer): shown, not said.
    Unavailable { reason: String },
}

/// An OpenAI-compatible speech service to speak feedback with (the
/// app-wide setting `voice.cloud`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct CloudVoice {
    /// e.g. `https://api.openai.com/v1` (the service's `/v1`).
    pub base_url: String,
    /// e.g. `tts-1`.
    pub model: String,
    /// e.g. `alloy` (used for both languages).
    pub voice: String,
    /// Whose API key to send: a chat provider name (`deskmate llm key
    /// PROVIDER`); none for a service without keys.
    #[serde(default)]
    pub key_provider: Option<String>,
}

/// What the feedback voice's test said, and with what.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct VoiceTest {
    pub text: String,
    /// The synthesizer that spoke (`openai:…` or `espeak-ng@…`).
    pub backend: String,
    /// Why the cloud voice was not used although configured.
    pub fell_back: Option<String>,
    pub seconds: f32,
}

/// The voice spoken feedback uses (`deskmate speech voice --json`): the
/// cloud voice a parent set, or none for espeak-ng alone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct VoiceSetting {
    pub cloud: Option<CloudVoice>,
}

/// A phrase synthesized into a WAV file (`deskmate speech say --json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct SpokenPhrase {
    pub wav: String,
    /// The synthesizer that spoke (`openai:…` or `espeak-ng@…`).
    pub backend: String,
    /// Why the cloud voice was not used although configured.
    pub fell_back: Option<String>,
    pub seconds: f32,
}
