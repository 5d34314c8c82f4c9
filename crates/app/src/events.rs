//! One event stream out of the core. Whatever happens on its own time — a
//! practice task's progress, the level meter and the text heard so far while
//! a child recites, the lamp's notices, what the feedback voice did, reviews
//! falling due — is published once as an [`AppEvent`] on the handle's
//! [`EventBus`]. Front ends subscribe with [`Deskmate::events`] and only move
//! the events on: the shell emits each on its channel to the window, the
//! CLI prints the ones it waits for, the HTTP API will send them as SSE.
//!
//! [`AppEvent`] and its payloads are `deskmate-protocol` types (re-exported
//! here), so a front end needs no core crate to read the stream. The practice
//! scene builds its task progress and verdicts as protocol types already;
//! where a payload mirrors a core type that carries logic — the lamp's
//! notices, the playback queue's events — the functions below convert the
//! core's value into its wire shape when it is published.

use std::sync::{Arc, Mutex};

use deskmate_orchestrator::SceneEvent;
use deskmate_protocol::lamp as wire_lamp;
use deskmate_protocol::voice::PlaybackEvent;

pub use deskmate_protocol::events::{
    AppEvent, ReminderEvent, LAMP_NOTICE_EVENT, REMINDER_EVENT, VOICE_NOTICE_EVENT,
};

use crate::Deskmate;

/// A scene's event as the stream carries it.
pub fn scene_event(e: SceneEvent) -> AppEvent {
    match e {
        SceneEvent::Task(t) => AppEvent::Task(t),
        SceneEvent::Level(l) => AppEvent::Level(l),
        SceneEvent::Partial(p) => AppEvent::Partial(p),
    }
}

/// What went wrong in a recitation, as the protocol says it (the scene's
/// conversion; the CLI's check output uses it too).
pub use deskmate_orchestrator::scene::error_type;

/// A lamp notice as the stream carries it.
pub fn lamp_notice(n: deskmate_lamp::LampNotice) -> wire_lamp::LampNotice {
    use deskmate_lamp::LampNotice as N;
    match n {
        N::Event { event, at_unix_ms } => wire_lamp::LampNotice::Event {
            event: device_event(event),
            at_unix_ms,
        },
        N::Connection {
            state,
            port,
            at_unix_ms,
        } => wire_lamp::LampNotice::Connection {
            state: connection_state(state),
            port,
            at_unix_ms,
        },
        N::State { state, at_unix_ms } => wire_lamp::LampNotice::State {
            state: Box::new(lamp_state(*state)),
            at_unix_ms,
        },
    }
}

/// A lamp's event as the stream carries it.
pub fn device_event(e: deskmate_lamp::DeviceEvent) -> wire_lamp::DeviceEvent {
    use deskmate_lamp::{Button as B, DeviceEvent as E};
    match e {
        E::Button(B::Start) => wire_lamp::DeviceEvent::Button(wire_lamp::Button::Start),
        E::Button(B::Stop) => wire_lamp::DeviceEvent::Button(wire_lamp::Button::Stop),
        E::Touch => wire_lamp::DeviceEvent::Touch,
        E::Presence(p) => wire_lamp::DeviceEvent::Presence(p),
    }
}

fn connection_state(s: deskmate_lamp::ConnectionState) -> wire_lamp::ConnectionState {
    use deskmate_lamp::ConnectionState as C;
    match s {
        C::Disconnected => wire_lamp::ConnectionState::Disconnected,
        C::Connecting => wire_lamp::ConnectionState::Connecting,
        C::Connected => wire_lamp::ConnectionState::Connected,
    }
}

/// What a lamp says about itself, as the stream carries it.
pub fn device_info(d: deskmate_lamp::DeviceInfo) -> wire_lamp::DeviceInfo {
    use deskmate_lamp::Capability as C;
    let capability = |c: C| match c {
        C::Light => wire_lamp::Capability::Light,
        C::Face => wire_lamp::Capability::Face,
        C::Arm => wire_lamp::Capability::Arm,
        C::Projector => wire_lamp::Capability::Projector,
        C::Microphone => wire_lamp::Capability::Microphone,
        C::Speaker => wire_lamp::Capability::Speaker,
        C::Buttons => wire_lamp::Capability::Buttons,
        C::Touch => wire_lamp::Capability::Touch,
        C::Presence => wire_lamp::Capability::Presence,
    };
    wire_lamp::DeviceInfo {
        protocol: d.protocol,
        model: d.model,
        firmware: d.firmware,
        serial: d.serial,
        capabilities: d.capabilities.into_iter().map(capability).collect(),
    }
}

/// What a lamp panel shows, as the stream carries it.
pub fn lamp_state(s: deskmate_lamp::LampState) -> wire_lamp::LampState {
    use deskmate_lamp::{ArmPose, Expression as X, Gesture as G};
    let gesture = |g: G| match g {
        G::Nod => wire_lamp::Gesture::Nod,
        G::Shake => wire_lamp::Gesture::Shake,
        G::Wave => wire_lamp::Gesture::Wave,
        G::Point => wire_lamp::Gesture::Point,
        G::Celebrate => wire_lamp::Gesture::Celebrate,
    };
    wire_lamp::LampState {
        connection: connection_state(s.connection),
        port: s.port,
        device: s.device.map(device_info),
        light: wire_lamp::Light {
            brightness: s.light.brightness,
            temperature_k: s.light.temperature_k,
            transition_ms: s.light.transition_ms,
        },
        expression: match s.expression {
            X::Happy => wire_lamp::Expression::Happy,
            X::Encourage => wire_lamp::Expression::Encourage,
            X::Thinking => wire_lamp::Expression::Thinking,
            X::Listening => wire_lamp::Expression::Listening,
            X::Sad => wire_lamp::Expression::Sad,
            X::Surprised => wire_lamp::Expression::Surprised,
            X::Sleep => wire_lamp::Expression::Sleep,
        },
        arm: match s.arm {
            ArmPose::Rest => wire_lamp::ArmPose::Rest,
            ArmPose::Moving { gesture: g, speed } => wire_lamp::ArmPose::Moving {
                gesture: gesture(g),
                speed,
            },
        },
        projector: wire_lamp::ProjectorState {
            on: s.projector.on,
            card: s.projector.card.map(|c| wire_lamp::Card {
                title: c.title,
                lines: c.lines,
            }),
        },
    }
}

/// What the app did about a press on the lamp's panel, as the protocol says it.
pub fn panel_action(press: crate::lamp::PanelPress) -> wire_lamp::PanelAction {
    use deskmate_orchestrator::scene::LampAction as A;
    match press {
        crate::lamp::PanelPress::ThroughLamp => wire_lamp::PanelAction::ThroughLamp,
        crate::lamp::PanelPress::Direct { action, .. } => match action {
            A::RecordingStarted {
                practice_id,
                task_id,
            } => wire_lamp::PanelAction::RecordingStarted {
                practice_id,
                task_id,
            },
            A::RecordingStopped {
                practice_id,
                task_id,
            } => wire_lamp::PanelAction::RecordingStopped {
                practice_id,
                task_id,
            },
            A::Failed { practice_id, error } => {
                wire_lamp::PanelAction::Failed { practice_id, error }
            }
            A::Ignored { why } => wire_lamp::PanelAction::Ignored { why },
        },
    }
}

/// A playback queue event as the stream carries it.
pub fn playback_event(e: deskmate_speech::audio::playback::PlaybackEvent) -> PlaybackEvent {
    use deskmate_speech::audio::playback::PlaybackEvent as P;
    match e {
        P::Started { id } => PlaybackEvent::Started { id },
        P::Finished { id } => PlaybackEvent::Finished { id },
        P::Interrupted { id } => PlaybackEvent::Interrupted { id },
        P::Dropped { id } => PlaybackEvent::Dropped { id },
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
    use deskmate_protocol::ReviewsDueEvent;

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

    fn json(v: impl serde::Serialize) -> serde_json::Value {
        serde_json::to_value(v).unwrap()
    }

    #[test]
    fn lamp_notices_and_playback_reach_the_wire_as_their_crates_wrote_them() {
        use deskmate_lamp::{
            ArmPose, Button, Capability, Card, ConnectionState, DeviceEvent, DeviceInfo,
            Expression, Gesture, LampNotice, LampState, Light, ProjectorState,
        };
        let mut notices = vec![];
        for event in [
            DeviceEvent::Button(Button::Start),
            DeviceEvent::Button(Button::Stop),
            DeviceEvent::Touch,
            DeviceEvent::Presence(true),
        ] {
            notices.push(LampNotice::Event {
                event,
                at_unix_ms: 1,
            });
        }
        notices.push(LampNotice::Connection {
            state: ConnectionState::Connecting,
            port: Some("/dev/ttyACM0".into()),
            at_unix_ms: 2,
        });
        for (i, expression) in Expression::ALL.iter().enumerate() {
            let gesture = Gesture::ALL[i % Gesture::ALL.len()];
            notices.push(LampNotice::State {
                state: Box::new(LampState {
                    connection: ConnectionState::Connected,
                    port: None,
                    device: Some(DeviceInfo {
                        protocol: 1,
                        model: "m".into(),
                        firmware: "f".into(),
                        serial: "s".into(),
                        capabilities: Capability::ALL.to_vec(),
                    }),
                    light: Light {
                        brightness: 40,
                        temperature_k: 4000,
                        transition_ms: 300,
                    },
                    expression: *expression,
                    arm: if i % 2 == 0 {
                        ArmPose::Rest
                    } else {
                        ArmPose::Moving { gesture, speed: 80 }
                    },
                    projector: ProjectorState {
                        on: true,
                        card: Some(Card {
                            title: "静夜思".into(),
                            lines: vec!["床前明月光".into()],
                        }),
                    },
                }),
                at_unix_ms: 3,
            });
        }
        for n in notices {
            assert_eq!(json(lamp_notice(n.clone())), json(&n));
        }
        use deskmate_speech::audio::playback::PlaybackEvent as P;
        for p in [
            P::Started { id: 1 },
            P::Finished { id: 2 },
            P::Interrupted { id: 3 },
            P::Dropped { id: 4 },
        ] {
            assert_eq!(json(playback_event(p)), json(p));
        }
    }
}
