//! Everything that can go wrong talking to a lamp, in words a person can act on.

use std::path::PathBuf;

use crate::protocol::NackError;

/// The fix offered whenever no lamp can be found.
pub const NO_LAMP_FIX: &str = "plug it in or start `deskmate lamp simulate` and pass --port PATH";

#[derive(Debug, Clone, thiserror::Error)]
pub enum LampError {
    #[error("no lamp found; {NO_LAMP_FIX}")]
    NoLampFound,
    #[error("cannot list serial ports: {0}")]
    Discovery(String),
    #[error("cannot open the lamp at {port}: {reason}")]
    Open { port: String, reason: String },
    #[error("the lamp at {port} did not answer the hello: {reason}")]
    Handshake { port: String, reason: String },
    #[error("the lamp is disconnected ({port}); plug it back in — Deskmate reconnects by itself")]
    Disconnected { port: String },
    #[error("the lamp did not acknowledge {command} (#{seq}) after {tries} tries")]
    Timeout {
        command: &'static str,
        seq: u32,
        tries: u32,
    },
    #[error("the lamp refused {command}: {error}")]
    Rejected {
        command: &'static str,
        error: NackError,
    },
    #[error("the link to the lamp was lost during {command}; it will reconnect by itself")]
    LinkLost { command: &'static str },
    #[error("{0}")]
    Invalid(String),
    #[error("the lamp driver has stopped")]
    Stopped,
    #[error("the lamp answered {command} with an unexpected {got}")]
    UnexpectedReply {
        command: &'static str,
        got: &'static str,
    },
    #[error("unknown lamp tool \"{0}\"")]
    UnknownTool(String),
    #[error("bad arguments for {tool}: {reason}")]
    ToolArguments { tool: String, reason: String },
    #[error("lamp simulator: {0}")]
    Simulator(String),
    #[error("the simulator link {path} exists and is not a symlink; pass another --link")]
    LinkOccupied { path: PathBuf },
}

pub type LampResult<T> = Result<T, LampError>;

impl LampError {
    /// A stable, machine-readable name for the failure (`lamp.not_found`, …),
    /// so a front end can say it in the user's language.
    pub fn code(&self) -> &'static str {
        match self {
            Self::NoLampFound => "lamp.not_found",
            Self::Discovery(_) => "lamp.discovery",
            Self::Open { .. } => "lamp.open_failed",
            Self::Handshake { .. } => "lamp.handshake",
            Self::Disconnected { .. } => "lamp.disconnected",
            Self::Timeout { .. } => "lamp.timeout",
            Self::Rejected { .. } => "lamp.rejected",
            Self::LinkLost { .. } => "lamp.link_lost",
            Self::Invalid(_) => "lamp.invalid",
            Self::Stopped => "lamp.stopped",
            Self::UnexpectedReply { .. } => "lamp.unexpected_reply",
            Self::UnknownTool(_) => "lamp.unknown_tool",
            Self::ToolArguments { .. } => "lamp.tool_arguments",
            Self::Simulator(_) => "lamp.simulator",
            Self::LinkOccupied { .. } => "lamp.link_occupied",
        }
    }

    /// Every code [`code`](Self::code) can return.
    pub const CODES: &'static [&'static str] = &[
        "lamp.not_found",
        "lamp.discovery",
        "lamp.open_failed",
        "lamp.handshake",
        "lamp.disconnected",
        "lamp.timeout",
        "lamp.rejected",
        "lamp.link_lost",
        "lamp.invalid",
        "lamp.stopped",
        "lamp.unexpected_reply",
        "lamp.unknown_tool",
        "lamp.tool_arguments",
        "lamp.simulator",
        "lamp.link_occupied",
    ];
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_is_listed() {
        let all = [
            LampError::NoLampFound,
            LampError::Discovery("x".into()),
            LampError::Open {
                port: "p".into(),
                reason: "r".into(),
            },
            LampError::Handshake {
                port: "p".into(),
                reason: "r".into(),
            },
            LampError::Disconnected { port: "p".into() },
            LampError::Timeout {
                command: "c",
                seq: 1,
                tries: 3,
            },
            LampError::Rejected {
                command: "c",
                error: NackError::Busy,
            },
            LampError::LinkLost { command: "c" },
            LampError::Invalid("x".into()),
            LampError::Stopped,
            LampError::UnexpectedReply {
                command: "c",
                got: "g",
            },
            LampError::UnknownTool("t".into()),
            LampError::ToolArguments {
                tool: "t".into(),
                reason: "r".into(),
            },
            LampError::Simulator("s".into()),
            LampError::LinkOccupied {
                path: PathBuf::from("/x"),
            },
        ];
        let codes: Vec<_> = all.iter().map(LampError::code).collect();
        assert_eq!(codes, LampError::CODES);
    }
}
