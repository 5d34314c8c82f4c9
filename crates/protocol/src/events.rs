//! The one event stream out of the core. Whatever happens on its own time —
//! a practice task's progress, the level meter and the text heard so far
//! while a child recites, the lamp's notices, what the feedback voice did,
//! reviews falling due — is published once as an [`AppEvent`]. Front ends
//! only move the events on: the shell emits each on its channel to the
//! window, the CLI prints the ones it waits for, the HTTP API will send them
//! as SSE.
//!
//! Every event names its channel (`practice://task`, …), which is also the
//! window's event name; the payload is the channel's type.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::lamp::LampNotice;
use crate::practice::{
    LevelEvent, PartialEvent, ReviewsDueEvent, TaskEvent, LEVEL_EVENT, PARTIAL_EVENT,
    REVIEWS_DUE_EVENT, TASK_EVENT,
};
use crate::voice::VoiceNotice;

/// The channel of the lamp's notices.
pub const LAMP_NOTICE_EVENT: &str = "lamp://notice";
/// The channel of what the feedback voice did.
pub const VOICE_NOTICE_EVENT: &str = "voice://notice";
/// The channel of review reminders worth a desktop notification.
pub const REMINDER_EVENT: &str = "reviews://reminder";

/// A reminder worth telling the family outside the window (a desktop
/// notification), already in the app's language.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ReminderEvent {
    pub profile_id: String,
    pub title: String,
    pub body: String,
}

/// Something the core tells every front end, tagged with its channel. The
/// UI's `EventPayloads` (channel → payload) is derived from its TypeScript.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "channel", content = "payload")]
pub enum AppEvent {
    /// A practice submission's progress (listening → … → done or failed).
    #[serde(rename = "practice://task")]
    Task(Box<TaskEvent>),
    /// The microphone's level while a child recites (about 20 a second).
    #[serde(rename = "practice://level")]
    Level(LevelEvent),
    /// The text heard so far while a child recites.
    #[serde(rename = "practice://partial")]
    Partial(PartialEvent),
    /// The lamp's events, connection and state.
    #[serde(rename = "lamp://notice")]
    Lamp(LampNotice),
    /// What the feedback voice queued, played or could not say.
    #[serde(rename = "voice://notice")]
    Voice(VoiceNotice),
    /// A child has reviews due today (the due strip reloads).
    #[serde(rename = "reviews://due")]
    ReviewsDue(ReviewsDueEvent),
    /// News worth a desktop notification.
    #[serde(rename = "reviews://reminder")]
    Reminder(ReminderEvent),
}

impl AppEvent {
    /// The channel: the window's event name, the SSE event type.
    pub fn channel(&self) -> &'static str {
        match self {
            Self::Task(_) => TASK_EVENT,
            Self::Level(_) => LEVEL_EVENT,
            Self::Partial(_) => PARTIAL_EVENT,
            Self::Lamp(_) => LAMP_NOTICE_EVENT,
            Self::Voice(_) => VOICE_NOTICE_EVENT,
            Self::ReviewsDue(_) => REVIEWS_DUE_EVENT,
            Self::Reminder(_) => REMINDER_EVENT,
        }
    }

    /// The payload alone, as the channel's listeners expect it.
    pub fn payload(&self) -> serde_json::Result<serde_json::Value> {
        match self {
            Self::Task(e) => serde_json::to_value(e),
            Self::Level(e) => serde_json::to_value(e),
            Self::Partial(e) => serde_json::to_value(e),
            Self::Lamp(e) => serde_json::to_value(e),
            Self::Voice(e) => serde_json::to_value(e),
            Self::ReviewsDue(e) => serde_json::to_value(e),
            Self::Reminder(e) => serde_json::to_value(e),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn due(n: usize) -> AppEvent {
        AppEvent::ReviewsDue(ReviewsDueEvent {
            profile_id: "p".into(),
            count: n,
        })
    }

    #[test]
    fn an_event_names_its_channel_and_carries_the_channels_payload() {
        let e = due(3);
        assert_eq!(e.channel(), "reviews://due");
        assert_eq!(
            e.payload().unwrap(),
            serde_json::json!({"profile_id": "p", "count": 3})
        );
        let json = serde_json::to_value(&e).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"channel": "reviews://due", "payload": {"profile_id": "p", "count": 3}})
        );
        // A front end that receives the stream as JSON (the CLI, SSE) reads it back.
        assert_eq!(serde_json::from_value::<AppEvent>(json).unwrap(), e);
    }
}
