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
