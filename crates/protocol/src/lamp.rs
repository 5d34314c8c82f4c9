//! The desk lamp as front ends see it: its state and the notices its driver
//! sends (`lamp://notice`). These are the wire shapes of `deskmate-lamp`'s
//! types of the same names (which carry the lamp's logic: parsing, gesture
//! timing, the device protocol); the app converts one into the other, and
//! a test of `deskmate-app` checks both serialize alike.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Whether the driver has a working link to a lamp.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ConnectionState {
    /// No lamp: never found, or unplugged. Commands fail at once.
    Disconnected,
    /// A port is open and the hello is under way. Commands wait for it.
    Connecting,
    /// Handshake done; commands are carried out.
    Connected,
}

/// A part of the lamp a host may rely on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum Capability {
    Light,
    Face,
    Arm,
    Projector,
    Microphone,
    Speaker,
    Buttons,
    Touch,
    Presence,
}

/// What a lamp says about itself in answer to `Hello`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct DeviceInfo {
    pub protocol: u8,
    pub model: String,
    pub firmware: String,
    pub serial: String,
    pub capabilities: Vec<Capability>,
}

/// The light: brightness in percent, colour temperature in kelvin and how
/// long the lamp takes to fade to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Light {
    pub brightness: u8,
    pub temperature_k: u16,
    pub transition_ms: u16,
}

/// A face on the lamp's LCD.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum Expression {
    Happy,
    Encourage,
    Thinking,
    Listening,
    Sad,
    Surprised,
    Sleep,
}

/// A movement of the lamp's small arm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum Gesture {
    Nod,
    Shake,
    Wave,
    Point,
    Celebrate,
}

/// Where the arm is: at rest, or in the middle of a gesture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ArmPose {
    Rest,
    Moving { gesture: Gesture, speed: u8 },
}

/// A card the projector shows: a title and a few lines of text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Card {
    pub title: String,
    pub lines: Vec<String>,
}

/// What the projector is doing.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ProjectorState {
    pub on: bool,
    pub card: Option<Card>,
}

/// The lamp's two hardware buttons.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum Button {
    Start,
    Stop,
}

/// Something that happened at the lamp.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum DeviceEvent {
    /// A button was pressed.
    Button(Button),
    /// The touch strip was touched.
    Touch,
    /// Someone sat down at (true) or left (false) the desk.
    Presence(bool),
}

/// A snapshot of the lamp as the driver knows it — everything a virtual lamp
/// panel shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
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

/// A connected lamp: what it is and what it shows (`deskmate lamp status --json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct LampStatus {
    pub device: DeviceInfo,
    pub state: LampState,
}

/// What the app did about a press on the lamp's panel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum PanelAction {
    /// Pressed on the simulator the app hosts: it comes back as the lamp's
    /// own event, and the app acts on that.
    ThroughLamp,
    /// The open voice practice started recording.
    RecordingStarted {
        practice_id: String,
        task_id: String,
    },
    /// The recording in the open practice was ended.
    RecordingStopped {
        practice_id: String,
        task_id: String,
    },
    /// The practice could not start recording.
    Failed { practice_id: String, error: String },
    /// Nothing to do (no voice practice open, already recording, …).
    Ignored { why: String },
}

/// A press on the lamp's panel and what came of it (`deskmate lamp press --json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct PanelPressed {
    pub event: DeviceEvent,
    #[serde(flatten)]
    pub action: PanelAction,
}
