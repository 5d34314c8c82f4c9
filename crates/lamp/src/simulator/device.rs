//! The simulated lamp's firmware logic, free of any I/O: it answers each
//! message the way the real lamp must (hello first, ranges checked, parts it
//! lacks refused, a retried command acknowledged again but carried out once)
//! and keeps its events until the host acknowledges them.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::frame::Envelope;
use crate::protocol::{
    check_speed, ArmPose, Capability, DeviceEvent, DeviceInfo, DeviceState, Expression, Gesture,
    Light, Message, NackError, ProjectorCommand, ProjectorState, PROTOCOL_VERSION,
};

/// How long the lamp waits for the host to acknowledge an event before resending.
pub const EVENT_RETRY: Duration = Duration::from_millis(100);
/// How many times the lamp sends one event before giving up on it.
pub const EVENT_TRIES: u32 = 5;

/// Counters a test or a person can read off the simulated lamp.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeviceCounters {
    pub hellos: u64,
    pub commands_applied: u64,
    pub duplicates: u64,
    pub gestures_performed: u64,
    pub heartbeats: u64,
    pub nacks_sent: u64,
    pub events_sent: u64,
    pub event_retries: u64,
    pub events_acknowledged: u64,
}

/// The result of one message: the answer to send, and a line saying what
/// changed (for the simulator's activity log).
#[derive(Debug, Default)]
pub struct Handled {
    pub reply: Option<Message>,
    pub activity: Option<String>,
}

struct OutgoingEvent {
    seq: u32,
    event: DeviceEvent,
    tries: u32,
    next_send: Instant,
}

/// One simulated lamp, from power-on.
pub struct DeviceModel {
    info: DeviceInfo,
    light: Light,
    expression: Expression,
    gesture: Option<(Gesture, u8, Instant)>,
    projector: ProjectorState,
    greeted: bool,
    last: Option<(u32, Message)>,
    next_seq: u32,
    events: Vec<OutgoingEvent>,
    pub counters: DeviceCounters,
}

impl DeviceModel {
    /// A lamp just powered up: light off, asleep, arm at rest, projector off.
    pub fn power_on(info: DeviceInfo) -> Self {
        let s = DeviceState::power_on();
        Self {
            info,
            light: s.light,
            expression: s.expression,
            gesture: None,
            projector: s.projector,
            greeted: false,
            last: None,
            next_seq: 1,
            events: Vec::new(),
            counters: DeviceCounters::default(),
        }
    }

    /// The lamp's own sequence number for its next frame.
    pub fn take_seq(&mut self) -> u32 {
        let seq = self.next_seq;
        self.next_seq = self.next_seq.wrapping_add(1).max(1);
        seq
    }

    pub fn state(&self) -> DeviceState {
        let arm = match self.gesture {
            Some((gesture, speed, started)) if started.elapsed() < gesture.duration(speed) => {
                ArmPose::Moving { gesture, speed }
            }
            _ => ArmPose::Rest,
        };
        DeviceState {
            light: self.light,
            expression: self.expression,
            arm,
            projector: self.projector.clone(),
        }
    }

    fn has(&self, capability: Capability) -> Result<(), NackError> {
        if self.info.capabilities.contains(&capability) {
            Ok(())
        } else {
            Err(NackError::Unsupported(
                format!("this lamp has no {capability:?}").to_lowercase(),
            ))
        }
    }

    /// Answers one message from the host.
    pub fn handle(&mut self, envelope: &Envelope) -> Handled {
        let seq = envelope.seq;
        match &envelope.message {
            Message::Ack { seq: acked } => {
                let before = self.events.len();
                self.events.retain(|e| e.seq != *acked);
                if self.events.len() < before {
                    self.counters.events_acknowledged += 1;
                }
                return Handled::default();
            }
            Message::Hello { protocol, host } => {
                if *protocol != PROTOCOL_VERSION {
                    return self.nack(
                        seq,
                        NackError::UnsupportedProtocol {
                            supported: PROTOCOL_VERSION,
                        },
                    );
                }
                self.counters.hellos += 1;
                self.greeted = true;
                self.last = None;
                return Handled {
                    reply: Some(Message::DeviceInfo {
                        reply_to: seq,
                        info: self.info.clone(),
                    }),
                    activity: Some(format!("hello from {host}")),
                };
            }
            _ => {}
        }
        if !self.greeted {
            return self.nack(seq, NackError::NotReady);
        }
        if let Some((last_seq, reply)) = &self.last {
            if *last_seq == seq {
                self.counters.duplicates += 1;
                return Handled {
                    reply: Some(reply.clone()),
                    activity: None,
                };
            }
        }
        let outcome = self.apply(seq, &envelope.message);
        let handled = match outcome {
            Ok((reply, activity)) => Handled {
                reply: Some(reply),
                activity,
            },
            Err(error) => self.nack(seq, error),
        };
        if let Some(reply) = &handled.reply {
            self.last = Some((seq, reply.clone()));
        }
        handled
    }

    fn nack(&mut self, seq: u32, error: NackError) -> Handled {
        self.counters.nacks_sent += 1;
        let activity = Some(format!("refused #{seq}: {error}"));
        Handled {
            reply: Some(Message::Nack { seq, error }),
            activity,
        }
    }

    /// Carries out a command; returns the answer and what changed.
    fn apply(
        &mut self,
        seq: u32,
        message: &Message,
    ) -> Result<(Message, Option<String>), NackError> {
        let ack = Message::Ack { seq };
        let activity = match message {
            Message::SetLight(light) => {
                self.has(Capability::Light)?;
                light.check().map_err(NackError::OutOfRange)?;
                self.light = *light;
                format!(
                    "light {} % at {} K over {} ms",
                    light.brightness, light.temperature_k, light.transition_ms
                )
            }
            Message::ShowExpression(expression) => {
                self.has(Capability::Face)?;
                self.expression = *expression;
                format!("face {expression}")
            }
            Message::ArmGesture { gesture, speed } => {
                self.has(Capability::Arm)?;
                check_speed(*speed).map_err(NackError::OutOfRange)?;
                self.gesture = Some((*gesture, *speed, Instant::now()));
                self.counters.gestures_performed += 1;
                format!("arm {gesture} at {speed} %")
            }
            Message::Projector(command) => {
                self.has(Capability::Projector)?;
                if let ProjectorCommand::ShowCard(card) = command {
                    card.check().map_err(NackError::OutOfRange)?;
                }
                self.projector.apply(command);
                match command {
                    ProjectorCommand::Off => "projector off".to_string(),
                    ProjectorCommand::On => "projector on".to_string(),
                    ProjectorCommand::ShowCard(card) => {
                        format!(
                            "projector card \"{}\" ({} lines)",
                            card.title,
                            card.lines.len()
                        )
                    }
                }
            }
            Message::Heartbeat => {
                self.counters.heartbeats += 1;
                return Ok((ack, None));
            }
            Message::QueryState => {
                return Ok((
                    Message::StateReport {
                        reply_to: seq,
                        state: self.state(),
                    },
                    None,
                ));
            }
            other => {
                return Err(NackError::Unsupported(format!(
                    "{} is sent by lamps, not to them",
                    other.name()
                )))
            }
        };
        self.counters.commands_applied += 1;
        Ok((ack, Some(activity)))
    }

    /// Queues an event to send (until the host acknowledges it).
    pub fn raise(&mut self, event: DeviceEvent) {
        let seq = self.take_seq();
        self.events.push(OutgoingEvent {
            seq,
            event,
            tries: 0,
            next_send: Instant::now(),
        });
    }

    /// The events to (re)send now, each with its sequence number.
    pub fn due_events(&mut self, now: Instant) -> Vec<(u32, Message)> {
        // An event sent its last time and still unacknowledged is given up.
        self.events
            .retain(|e| e.tries < EVENT_TRIES || e.next_send > now);
        let mut due = Vec::new();
        for e in &mut self.events {
            if e.next_send <= now {
                e.tries += 1;
                e.next_send = now + EVENT_RETRY;
                if e.tries == 1 {
                    self.counters.events_sent += 1;
                } else {
                    self.counters.event_retries += 1;
                }
                due.push((e.seq, Message::Event(e.event)));
            }
        }
        due
    }

    /// When the next event resend is due, if any.
    pub fn next_event_due(&self) -> Option<Instant> {
        self.events.iter().map(|e| e.next_send).min()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn info(capabilities: Vec<Capability>) -> DeviceInfo {
        DeviceInfo {
            protocol: 1,
            model: "m".into(),
            firmware: "f".into(),
            serial: "s".into(),
            capabilities,
        }
    }

    fn env(seq: u32, message: Message) -> Envelope {
        Envelope { seq, message }
    }

    fn greeted(capabilities: Vec<Capability>) -> DeviceModel {
        let mut d = DeviceModel::power_on(info(capabilities));
        let r = d.handle(&env(
            1,
            Message::Hello {
                protocol: 1,
                host: "t".into(),
            },
        ));
        assert!(matches!(
            r.reply,
            Some(Message::DeviceInfo { reply_to: 1, .. })
        ));
        d
    }

    #[test]
    fn commands_before_hello_are_refused() {
        let mut d = DeviceModel::power_on(info(Capability::ALL.to_vec()));
        let r = d.handle(&env(5, Message::Heartbeat));
        assert_eq!(
            r.reply,
            Some(Message::Nack {
                seq: 5,
                error: NackError::NotReady
            })
        );
    }

    #[test]
    fn retried_gesture_is_acknowledged_twice_but_performed_once() {
        let mut d = greeted(Capability::ALL.to_vec());
        let gesture = Message::ArmGesture {
            gesture: Gesture::Wave,
            speed: 50,
        };
        assert_eq!(
            d.handle(&env(2, gesture.clone())).reply,
            Some(Message::Ack { seq: 2 })
        );
        assert_eq!(
            d.handle(&env(2, gesture.clone())).reply,
            Some(Message::Ack { seq: 2 })
        );
        assert_eq!(d.counters.gestures_performed, 1);
        assert_eq!(d.counters.duplicates, 1);
        d.handle(&env(3, gesture));
        assert_eq!(d.counters.gestures_performed, 2);
    }

    #[test]
    fn out_of_range_and_missing_parts_are_nacked() {
        let mut d = greeted(vec![Capability::Light]);
        let bad = Light {
            brightness: 150,
            temperature_k: 4000,
            transition_ms: 0,
        };
        assert!(matches!(
            d.handle(&env(2, Message::SetLight(bad))).reply,
            Some(Message::Nack {
                seq: 2,
                error: NackError::OutOfRange(_)
            })
        ));
        assert!(matches!(
            d.handle(&env(3, Message::ShowExpression(Expression::Happy)))
                .reply,
            Some(Message::Nack {
                seq: 3,
                error: NackError::Unsupported(_)
            })
        ));
        assert_eq!(d.state().light, Light::POWER_ON);
    }

    #[test]
    fn events_resend_until_acknowledged() {
        let mut d = greeted(Capability::ALL.to_vec());
        d.raise(DeviceEvent::Touch);
        let t0 = Instant::now();
        let first = d.due_events(t0);
        assert_eq!(first.len(), 1);
        assert!(d.due_events(t0).is_empty());
        let again = d.due_events(t0 + EVENT_RETRY);
        assert_eq!(again, first);
        d.handle(&env(9, Message::Ack { seq: first[0].0 }));
        assert!(d.due_events(t0 + EVENT_RETRY * 3).is_empty());
        assert_eq!(d.counters.events_acknowledged, 1);
    }

    #[test]
    fn unacknowledged_event_is_given_up_after_its_tries() {
        let mut d = greeted(Capability::ALL.to_vec());
        d.raise(DeviceEvent::Presence(true));
        let mut now = Instant::now();
        let mut sent = 0;
        for _ in 0..EVENT_TRIES * 2 {
            sent += d.due_events(now).len();
            now += EVENT_RETRY;
        }
        assert_eq!(sent, EVENT_TRIES as usize);
        assert_eq!(d.next_event_due(), None);
    }
}
