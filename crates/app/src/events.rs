//! One event stream out of the core. Whatever happens on its own time — a
//! practice task's progress, the level meter and the text heard so far while
//! a child recites, the lamp's notices, what the feedback voice did, reviews
//! falling due — is published once as an [`AppEvent`] on the handle's
//! [`EventBus`]. Front ends subscribe with [`Deskmate::events`] and only move
//! the events on: the shell emits each on its channel to the window, the
//! CLI prints the ones it waits for, the HTTP API will send them as SSE.
//!
//! Every event names its channel (`practice://task`, …), which is also the
//! window's event name; the payload is the channel's protocol type.
//!
//! [`AppEvent`] lives here rather than in `deskmate-protocol` because its
//! payloads are core types (a task's result is a recitation verdict, a lamp
//! notice is the lamp's); the channel names and the small payloads are
//! protocol types.

use std::sync::{Arc, Mutex};

use deskmate_lamp::LampNotice;
use deskmate_protocol::practice::{LEVEL_EVENT, PARTIAL_EVENT, REVIEWS_DUE_EVENT, TASK_EVENT};
use deskmate_protocol::{LevelEvent, PartialEvent, ReviewsDueEvent};
use serde::Serialize;

use deskmate_orchestrator::SceneEvent;

use crate::practice::TaskEvent;
use crate::voice_out::VoiceNotice;
use crate::Deskmate;

/// The channel of the lamp's notices.
pub const LAMP_NOTICE_EVENT: &str = "lamp://notice";
/// The channel of what the feedback voice did.
pub const VOICE_NOTICE_EVENT: &str = "voice://notice";
/// The channel of review reminders worth a desktop notification.
pub const REMINDER_EVENT: &str = "reviews://reminder";

/// A reminder worth telling the family outside the window (a desktop
/// notification), already in the app's language.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ReminderEvent {
    pub profile_id: String,
    pub title: String,
    pub body: String,
}

/// Something the core tells every front end, tagged with its channel. The
/// UI's `EventPayloads` (channel → payload) is derived from its TypeScript.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
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

impl From<SceneEvent> for AppEvent {
    fn from(e: SceneEvent) -> Self {
        match e {
            SceneEvent::Task(t) => Self::Task(t),
            SceneEvent::Level(l) => Self::Level(l),
            SceneEvent::Partial(p) => Self::Partial(p),
        }
    }
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

/// Publishes events to every subscriber. Clones share the subscribers; a
/// subscriber that went away (its receiver dropped) is forgotten at the next
/// event. Publishing never blocks: each subscriber has an unbounded queue.
#[derive(Clone, Default)]
pub struct EventBus {
    subscribers: Arc<Mutex<Vec<flume::Sender<AppEvent>>>>,
}

impl std::fmt::Debug for EventBus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.subscribers.lock().map_or(0, |s| s.len());
        f.debug_struct("EventBus").field("subscribers", &n).finish()
    }
}

impl EventBus {
    /// Every event published from now on.
    pub fn subscribe(&self) -> flume::Receiver<AppEvent> {
        let (tx, rx) = flume::unbounded();
        if let Ok(mut subscribers) = self.subscribers.lock() {
            subscribers.push(tx);
        }
        rx
    }

    pub fn publish(&self, event: AppEvent) {
        if let Ok(mut subscribers) = self.subscribers.lock() {
            subscribers.retain(|s| s.send(event.clone()).is_ok());
        }
    }
}

impl Deskmate {
    /// Every event the core publishes from now on (see the module docs).
    pub fn events(&self) -> flume::Receiver<AppEvent> {
        self.bus().subscribe()
    }

    pub(crate) fn publish(&self, event: AppEvent) {
        self.bus().publish(event);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn due(n: usize) -> AppEvent {
        AppEvent::ReviewsDue(ReviewsDueEvent {
            profile_id: "p".into(),
            count: n,
        })
    }

    #[test]
    fn every_subscriber_gets_every_event_and_a_gone_one_is_forgotten() {
        let bus = EventBus::default();
        let a = bus.subscribe();
        let b = bus.clone().subscribe();
        bus.publish(due(1));
        drop(b);
        bus.publish(due(2));
        assert_eq!(a.try_iter().collect::<Vec<_>>(), [due(1), due(2)]);
        assert_eq!(bus.subscribers.lock().unwrap().len(), 1);
    }

    #[test]
    fn an_event_names_its_channel_and_carries_the_channels_payload() {
        let e = due(3);
        assert_eq!(e.channel(), "reviews://due");
        assert_eq!(
            e.payload().unwrap(),
            serde_json::json!({"profile_id": "p", "count": 3})
        );
        assert_eq!(
            serde_json::to_value(&e).unwrap(),
            serde_json::json!({"channel": "reviews://due", "payload": {"profile_id": "p", "count": 3}})
        );
    }
}
