//! What a user interface needs to draw the lamp: a [`LampState`] snapshot
//! (connection, light, face, arm, projector card) and the [`LampNotice`]s the
//! driver sends whenever that state changes or the lamp reports an event.

use std::time::{Instant, SystemTime, UNIX_EPOCH};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::protocol::{
    ArmPose, DeviceEvent, DeviceInfo, DeviceState, Expression, Gesture, Light, ProjectorState,
};

/// Whether the driver has a working link to a lamp.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum ConnectionState {
    /// No lamp: never found, or unplugged. Commands fail at once.
    Disconnected,
    /// A port is open and the hello is under way. Commands wait for it.
    Connecting,
    /// Handshake done; commands are carried out.
    Connected,
}

/// A snapshot of the lamp as the driver knows it — everything a virtual lamp
/// panel shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct LampState {
    pub connection: ConnectionState,
    /// The port in use, or last used.
    pub port: Option<String>,
    /// What the lamp said about itself at the last handshake.
    pub device: Option<DeviceInfo>,
    pub light: Light,
    pub expression: Expression,
    pub arm: ArmPose,
    pub projector: ProjectorState,
}

/// Something the driver tells its subscribers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LampNotice {
    /// The lamp reported an event (a button, a touch, presence).
    Event { event: DeviceEvent, at_unix_ms: u64 },
    /// The link came up, went down, or is being re-established.
    Connection {
        state: ConnectionState,
        port: Option<String>,
        at_unix_ms: u64,
    },
    /// Light, face, arm or projector changed.
    State {
        state: Box<LampState>,
        at_unix_ms: u64,
    },
}

/// Milliseconds since the Unix epoch, for notices.
pub fn now_unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// The driver's working copy of the lamp's state (the arm keeps the instant
/// its gesture started, so a snapshot can say whether it is still moving).
#[derive(Debug, Clone)]
pub(crate) struct TrackedState {
    pub connection: ConnectionState,
    pub port: Option<String>,
    pub device: Option<DeviceInfo>,
    pub light: Light,
    pub expression: Expression,
    pub gesture: Option<(Gesture, u8, Instant)>,
    pub projector: ProjectorState,
}

impl TrackedState {
    pub fn new() -> Self {
        let power_on = DeviceState::power_on();
        Self {
            connection: ConnectionState::Disconnected,
            port: None,
            device: None,
            light: power_on.light,
            expression: power_on.expression,
            gesture: None,
            projector: power_on.projector,
        }
    }

    /// Adopts what the lamp reported about itself.
    pub fn adopt(&mut self, device: &DeviceState) {
        self.light = device.light;
        self.expression = device.expression;
        self.projector = device.projector.clone();
        self.gesture = match device.arm {
            ArmPose::Rest => None,
            ArmPose::Moving { gesture, speed } => Some((gesture, speed, Instant::now())),
        };
    }

    pub fn snapshot(&self) -> LampState {
        let arm = match self.gesture {
            Some((gesture, speed, started)) if started.elapsed() < gesture.duration(speed) => {
                ArmPose::Moving { gesture, speed }
            }
            _ => ArmPose::Rest,
        };
        LampState {
            connection: self.connection,
            port: self.port.clone(),
            device: self.device.clone(),
            light: self.light,
            expression: self.expression,
            arm,
            projector: self.projector.clone(),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn arm_reads_moving_during_a_gesture_and_rest_after() {
        let mut t = TrackedState::new();
        t.gesture = Some((Gesture::Nod, 100, Instant::now()));
        assert_eq!(
            t.snapshot().arm,
            ArmPose::Moving {
                gesture: Gesture::Nod,
                speed: 100
            }
        );
        let long_ago = Instant::now().checked_sub(Gesture::Nod.duration(100) * 2);
        if let Some(start) = long_ago {
            t.gesture = Some((Gesture::Nod, 100, start));
            assert_eq!(t.snapshot().arm, ArmPose::Rest);
        }
    }

    #[test]
    fn notice_json_is_tagged_by_kind() {
        let n = LampNotice::Event {
            event: DeviceEvent::Button(crate::protocol::Button::Start),
            at_unix_ms: 1,
        };
        let json = serde_json::to_value(&n).unwrap();
        assert_eq!(json["kind"], "event");
        assert_eq!(json["event"]["button"], "start");
        let s = serde_json::to_value(TrackedState::new().snapshot()).unwrap();
        assert_eq!(s["connection"], "disconnected");
        assert_eq!(s["arm"], "rest");
    }
}
