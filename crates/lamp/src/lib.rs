//! The desk lamp: its USB serial protocol ([`protocol`], [`frame`]), a
//! driver that survives unplugging ([`Lamp`]), a simulator on a real
//! pseudo-terminal ([`simulator`]), and what the agent runtime needs to offer
//! the lamp as tools ([`tools`]). See `PROTOCOL.md` for the wire format and
//! `README.md` for the design.

pub mod discovery;
mod driver;
pub mod error;
pub mod frame;
mod link;
pub mod protocol;
#[cfg(unix)]
pub mod simulator;
pub mod state;
pub mod tools;
mod transport;

pub use discovery::{list_lamps, FoundLamp, PortSelector, USB_PID, USB_VID};
pub use driver::{Command, CommandTicket, Lamp, LampConfig, LinkStats, Reply};
pub use error::{LampError, LampResult};
pub use protocol::{
    ArmPose, Button, Capability, Card, DeviceEvent, DeviceInfo, DeviceState, Expression, Gesture,
    Light, Message, NackError, ProjectorCommand, ProjectorState, PROTOCOL_VERSION,
};
pub use state::{ConnectionState, LampNotice, LampState};
pub use tools::verdict_reaction;
pub use transport::BAUD_RATE;
