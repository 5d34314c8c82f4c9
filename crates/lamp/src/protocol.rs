//! The lamp protocol's messages and value types, version 1 (see `PROTOCOL.md`).
//!
//! Everything here is serialized with postcard inside a frame (see
//! [`crate::frame`]). Postcard writes enum variants by their index, so the
//! order of variants below *is* the wire format: append new variants at the
//! end and bump [`PROTOCOL_VERSION`] for anything that is not an append.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::LampError;

/// The protocol version this crate speaks. It is the first byte of every frame.
pub const PROTOCOL_VERSION: u8 = 1;

/// Brightness range, in percent.
pub const BRIGHTNESS_MAX: u8 = 100;
/// Colour temperature range, in kelvin.
pub const TEMPERATURE_MIN_K: u16 = 2700;
pub const TEMPERATURE_MAX_K: u16 = 6500;
/// The longest light transition a lamp accepts, in milliseconds.
pub const TRANSITION_MAX_MS: u16 = 10_000;
/// Gesture speed range, in percent of the arm's top speed.
pub const SPEED_MIN: u8 = 1;
pub const SPEED_MAX: u8 = 100;
/// Projector card limits, counted in characters (a hanzi is one character).
pub const CARD_TITLE_MAX_CHARS: usize = 40;
pub const CARD_LINES_MAX: usize = 6;
pub const CARD_LINE_MAX_CHARS: usize = 60;

/// One protocol message. Host → lamp: `Hello`, `SetLight`, `ShowExpression`,
/// `ArmGesture`, `Projector`, `QueryState`. Lamp → host: `DeviceInfo`,
/// `StateReport`, `Event`. Both ways: `Ack`, `Nack`, `Heartbeat`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Message {
    Hello { protocol: u8, host: String },
    DeviceInfo { reply_to: u32, info: DeviceInfo },
    SetLight(Light),
    ShowExpression(Expression),
    ArmGesture { gesture: Gesture, speed: u8 },
    Projector(ProjectorCommand),
    Ack { seq: u32 },
    Nack { seq: u32, error: NackError },
    Event(DeviceEvent),
    Heartbeat,
    QueryState,
    StateReport { reply_to: u32, state: DeviceState },
}

impl Message {
    /// A short name for messages and logs ("set_light", "heartbeat", …).
    pub fn name(&self) -> &'static str {
        match self {
            Message::Hello { .. } => "hello",
            Message::DeviceInfo { .. } => "device_info",
            Message::SetLight(_) => "set_light",
            Message::ShowExpression(_) => "show_expression",
            Message::ArmGesture { .. } => "arm_gesture",
            Message::Projector(_) => "projector",
            Message::Ack { .. } => "ack",
            Message::Nack { .. } => "nack",
            Message::Event(_) => "event",
            Message::Heartbeat => "heartbeat",
            Message::QueryState => "query_state",
            Message::StateReport { .. } => "state_report",
        }
    }
}

/// What a lamp says about itself in answer to `Hello`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DeviceInfo {
    pub protocol: u8,
    pub model: String,
    pub firmware: String,
    pub serial: String,
    pub capabilities: Vec<Capability>,
}

/// A part of the lamp a host may rely on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
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

impl Capability {
    pub const ALL: [Capability; 9] = [
        Capability::Light,
        Capability::Face,
        Capability::Arm,
        Capability::Projector,
        Capability::Microphone,
        Capability::Speaker,
        Capability::Buttons,
        Capability::Touch,
        Capability::Presence,
    ];
}

/// The light: brightness in percent, colour temperature in kelvin and how
/// long the lamp takes to fade to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Light {
    pub brightness: u8,
    pub temperature_k: u16,
    pub transition_ms: u16,
}

impl Light {
    /// A checked light setting; out-of-range values are an error that names the range.
    pub fn new(brightness: u8, temperature_k: u16, transition_ms: u16) -> Result<Self, LampError> {
        let light = Self {
            brightness,
            temperature_k,
            transition_ms,
        };
        light.check().map_err(LampError::Invalid)?;
        Ok(light)
    }

    /// The light a lamp shows when it powers up: off, neutral white.
    pub const POWER_ON: Light = Light {
        brightness: 0,
        temperature_k: 4000,
        transition_ms: 0,
    };

    /// Checks the ranges; the error says which value is wrong and what is allowed.
    pub fn check(&self) -> Result<(), String> {
        if self.brightness > BRIGHTNESS_MAX {
            return Err(format!(
                "brightness must be 0–{BRIGHTNESS_MAX} %, got {}",
                self.brightness
            ));
        }
        if !(TEMPERATURE_MIN_K..=TEMPERATURE_MAX_K).contains(&self.temperature_k) {
            return Err(format!(
                "colour temperature must be {TEMPERATURE_MIN_K}–{TEMPERATURE_MAX_K} K, got {} K",
                self.temperature_k
            ));
        }
        if self.transition_ms > TRANSITION_MAX_MS {
            return Err(format!(
                "transition must be 0–{TRANSITION_MAX_MS} ms, got {} ms",
                self.transition_ms
            ));
        }
        Ok(())
    }
}

/// Declares a fieldless enum whose names are shared by serde (snake_case),
/// `FromStr`, `Display` and a `NAMES` list for command-line parsers.
macro_rules! named_enum {
    ($(#[$meta:meta])* $name:ident, $what:literal { $($variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
        #[cfg_attr(feature = "ts", derive(ts_rs::TS))]
        #[serde(rename_all = "snake_case")]
        pub enum $name { $($variant),+ }

        impl $name {
            /// Every value, in wire order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];
            /// Every value's name, in wire order.
            pub const NAMES: &'static [&'static str] = &[$($text),+];

            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl FromStr for $name {
            type Err = LampError;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                let wanted = s.trim().to_ascii_lowercase();
                $name::ALL.iter().copied().find(|v| v.as_str() == wanted).ok_or_else(|| {
                    LampError::Invalid(format!(
                        "unknown {} \"{}\"; choose one of: {}", $what, s, $name::NAMES.join(", ")
                    ))
                })
            }
        }
    };
}

named_enum!(
    /// A face on the lamp's LCD.
    Expression, "expression" {
        Happy => "happy",
        Encourage => "encourage",
        Thinking => "thinking",
        Listening => "listening",
        Sad => "sad",
        Surprised => "surprised",
        Sleep => "sleep",
    }
);

named_enum!(
    /// A movement of the lamp's small arm.
    Gesture, "gesture" {
        Nod => "nod",
        Shake => "shake",
        Wave => "wave",
        Point => "point",
        Celebrate => "celebrate",
    }
);

named_enum!(
    /// The lamp's two hardware buttons.
    Button, "button" {
        Start => "start",
        Stop => "stop",
    }
);

impl Gesture {
    /// How long the gesture takes at full speed. Hosts and lamps both use this
    /// to know when the arm is back at rest: duration = nominal × 100 / speed.
    pub fn nominal(self) -> Duration {
        Duration::from_millis(match self {
            Gesture::Nod => 600,
            Gesture::Shake => 700,
            Gesture::Wave => 900,
            Gesture::Point => 500,
            Gesture::Celebrate => 1200,
        })
    }

    /// How long the gesture takes at `speed` percent (clamped to 1–100).
    pub fn duration(self, speed: u8) -> Duration {
        let speed = u32::from(speed.clamp(SPEED_MIN, SPEED_MAX));
        self.nominal() * 100 / speed
    }
}

/// Checks a gesture speed.
pub fn check_speed(speed: u8) -> Result<(), String> {
    if (SPEED_MIN..=SPEED_MAX).contains(&speed) {
        Ok(())
    } else {
        Err(format!(
            "gesture speed must be {SPEED_MIN}–{SPEED_MAX} %, got {speed}"
        ))
    }
}

/// Where the arm is: at rest, or in the middle of a gesture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum ArmPose {
    Rest,
    Moving { gesture: Gesture, speed: u8 },
}

/// A card the projector shows: a title and a few lines of text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Card {
    pub title: String,
    pub lines: Vec<String>,
}

impl Card {
    /// A checked card; too long a title, too many or too long lines are an error.
    pub fn new(title: impl Into<String>, lines: Vec<String>) -> Result<Self, LampError> {
        let card = Self {
            title: title.into(),
            lines,
        };
        card.check().map_err(LampError::Invalid)?;
        Ok(card)
    }

    pub fn check(&self) -> Result<(), String> {
        let title = self.title.chars().count();
        if title == 0 {
            return Err("a projector card needs a title".into());
        }
        if title > CARD_TITLE_MAX_CHARS {
            return Err(format!(
                "card title is {title} characters; at most {CARD_TITLE_MAX_CHARS} fit"
            ));
        }
        if self.lines.len() > CARD_LINES_MAX {
            return Err(format!(
                "card has {} lines; at most {CARD_LINES_MAX} fit",
                self.lines.len()
            ));
        }
        for (i, line) in self.lines.iter().enumerate() {
            let n = line.chars().count();
            if n > CARD_LINE_MAX_CHARS {
                return Err(format!(
                    "card line {} is {n} characters; at most {CARD_LINE_MAX_CHARS} fit",
                    i + 1
                ));
            }
        }
        Ok(())
    }
}

/// What the host asks of the projector.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ProjectorCommand {
    Off,
    On,
    ShowCard(Card),
}

/// What the projector is doing.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ProjectorState {
    pub on: bool,
    pub card: Option<Card>,
}

impl ProjectorState {
    /// The state after `command` is carried out.
    pub fn apply(&mut self, command: &ProjectorCommand) {
        match command {
            ProjectorCommand::Off => {
                self.on = false;
                self.card = None;
            }
            ProjectorCommand::On => self.on = true,
            ProjectorCommand::ShowCard(card) => {
                self.on = true;
                self.card = Some(card.clone());
            }
        }
    }

    /// The command that brings a freshly powered lamp to this state.
    pub fn restore_command(&self) -> Option<ProjectorCommand> {
        match (&self.card, self.on) {
            (Some(card), true) => Some(ProjectorCommand::ShowCard(card.clone())),
            (None, true) => Some(ProjectorCommand::On),
            _ => None,
        }
    }
}

/// Something that happened at the lamp.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum DeviceEvent {
    /// A button was pressed.
    Button(Button),
    /// The touch strip was touched.
    Touch,
    /// Someone sat down at (true) or left (false) the desk.
    Presence(bool),
}

/// The lamp's own account of what it shows, in answer to `QueryState`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct DeviceState {
    pub light: Light,
    pub expression: Expression,
    pub arm: ArmPose,
    pub projector: ProjectorState,
}

impl DeviceState {
    /// What a lamp shows right after it powers up.
    pub fn power_on() -> Self {
        Self {
            light: Light::POWER_ON,
            expression: Expression::Sleep,
            arm: ArmPose::Rest,
            projector: ProjectorState::default(),
        }
    }
}

/// Why a lamp refused a command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
pub enum NackError {
    #[error("a value is out of range: {0}")]
    OutOfRange(String),
    #[error("this lamp cannot do that: {0}")]
    Unsupported(String),
    #[error("the lamp speaks protocol version {supported}, not this one")]
    UnsupportedProtocol { supported: u8 },
    #[error("the lamp could not read the message")]
    Malformed,
    #[error("the lamp needs a hello first")]
    NotReady,
    #[error("the lamp is busy")]
    Busy,
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_back_to_the_same_value() {
        for e in Expression::ALL {
            assert_eq!(e.as_str().parse::<Expression>().ok(), Some(*e));
        }
        for g in Gesture::ALL {
            assert_eq!(g.to_string().parse::<Gesture>().ok(), Some(*g));
        }
        assert_eq!(" Wave ".parse::<Gesture>().ok(), Some(Gesture::Wave));
    }

    #[test]
    fn unknown_name_lists_the_choices() {
        let err = "grumpy"
            .parse::<Expression>()
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            err.contains("grumpy") && err.contains("happy") && err.contains("sleep"),
            "{err}"
        );
    }

    #[test]
    fn light_ranges_are_checked() {
        assert!(Light::new(100, 2700, 0).is_ok());
        assert!(Light::new(0, 6500, TRANSITION_MAX_MS).is_ok());
        let too_bright = Light::new(101, 4000, 0)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(too_bright.contains("0–100"), "{too_bright}");
        assert!(Light::new(50, 2699, 0).is_err());
        assert!(Light::new(50, 6501, 0).is_err());
        assert!(Light::new(50, 4000, TRANSITION_MAX_MS + 1).is_err());
    }

    #[test]
    fn card_limits_count_characters_not_bytes() {
        let hanzi_line = "床".repeat(CARD_LINE_MAX_CHARS);
        assert!(Card::new("静夜思", vec![hanzi_line.clone(); CARD_LINES_MAX]).is_ok());
        assert!(Card::new("静夜思", vec![format!("{hanzi_line}光")]).is_err());
        assert!(Card::new("", vec![]).is_err());
        assert!(Card::new("t", vec![String::new(); CARD_LINES_MAX + 1]).is_err());
    }

    #[test]
    fn gesture_duration_scales_with_speed() {
        assert_eq!(Gesture::Wave.duration(100), Duration::from_millis(900));
        assert_eq!(Gesture::Wave.duration(50), Duration::from_millis(1800));
        assert_eq!(Gesture::Nod.duration(0), Gesture::Nod.duration(1));
    }

    #[test]
    fn projector_state_follows_commands_and_restores() {
        let mut p = ProjectorState::default();
        assert_eq!(p.restore_command(), None);
        p.apply(&ProjectorCommand::On);
        assert_eq!(p.restore_command(), Some(ProjectorCommand::On));
        let card = Card {
            title: "t".into(),
            lines: vec!["a".into()],
        };
        p.apply(&ProjectorCommand::ShowCard(card.clone()));
        assert_eq!(p.restore_command(), Some(ProjectorCommand::ShowCard(card)));
        p.apply(&ProjectorCommand::Off);
        assert_eq!(p, ProjectorState::default());
    }
}
