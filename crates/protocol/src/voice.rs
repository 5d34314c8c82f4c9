//! What the feedback voice did, on `voice://notice`.

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
