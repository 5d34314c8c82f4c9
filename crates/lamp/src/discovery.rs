//! Finding lamps: by USB vendor and product id among the serial ports the OS
//! lists, or by an explicit port path (pseudo-terminals carry no USB ids).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serialport::SerialPortType;

use crate::error::{LampError, LampResult};

/// The lamp's USB vendor id: pid.codes, the open-hardware vendor id.
pub const USB_VID: u16 = 0x1209;
/// The lamp's USB product id. A placeholder until a product id is registered
/// with pid.codes; firmware and driver must change together if it moves.
pub const USB_PID: u16 = 0xD35C;

/// How the driver picks its port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PortSelector {
    /// The first serial port whose USB ids are the lamp's (on reconnect, the
    /// one with the serial number seen before, if it is back).
    Auto,
    /// This path, exactly (a tty, or a symlink to one such as the simulator's).
    Path(PathBuf),
}

impl PortSelector {
    /// `Path` when a path is given, otherwise `Auto`.
    pub fn from_option(path: Option<PathBuf>) -> Self {
        path.map_or(PortSelector::Auto, PortSelector::Path)
    }
}

/// A lamp seen on the USB bus.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FoundLamp {
    pub port: String,
    pub serial_number: Option<String>,
    pub manufacturer: Option<String>,
    pub product: Option<String>,
}

/// Every serial port whose USB ids match the lamp's.
pub fn list_lamps() -> LampResult<Vec<FoundLamp>> {
    let ports = serialport::available_ports().map_err(|e| LampError::Discovery(e.to_string()))?;
    Ok(ports
        .into_iter()
        .filter_map(|p| match p.port_type {
            SerialPortType::UsbPort(info) if is_lamp(info.vid, info.pid) => Some(FoundLamp {
                port: p.port_name,
                serial_number: info.serial_number,
                manufacturer: info.manufacturer,
                product: info.product,
            }),
            _ => None,
        })
        .collect())
}

fn is_lamp(vid: u16, pid: u16) -> bool {
    vid == USB_VID && pid == USB_PID
}

/// The port to try now: the explicit path, or a discovered lamp (preferring
/// the serial number `prefer`). `Ok(None)` means nothing to try yet.
pub fn resolve(selector: &PortSelector, prefer: Option<&str>) -> LampResult<Option<String>> {
    match selector {
        PortSelector::Path(path) => Ok(path_if_present(path)),
        PortSelector::Auto => {
            let lamps = list_lamps()?;
            let preferred = prefer.and_then(|serial| {
                lamps
                    .iter()
                    .find(|l| l.serial_number.as_deref() == Some(serial))
                    .map(|l| l.port.clone())
            });
            Ok(preferred.or_else(|| lamps.into_iter().next().map(|l| l.port)))
        }
    }
}

/// The path as a string if something is there (following symlinks).
fn path_if_present(path: &Path) -> Option<String> {
    path.exists().then(|| path.to_string_lossy().into_owned())
}

/// A readable name for the selector, for error messages.
pub fn describe(selector: &PortSelector) -> String {
    match selector {
        PortSelector::Auto => format!("USB {USB_VID:04x}:{USB_PID:04x}"),
        PortSelector::Path(p) => p.display().to_string(),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn missing_path_resolves_to_nothing_and_present_path_to_itself() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lamp0");
        assert_eq!(
            resolve(&PortSelector::Path(path.clone()), None).unwrap(),
            None
        );
        std::fs::write(&path, b"").unwrap();
        assert_eq!(
            resolve(&PortSelector::Path(path.clone()), None).unwrap(),
            Some(path.display().to_string())
        );
    }

    #[test]
    fn ids_match_only_the_lamp() {
        assert!(is_lamp(0x1209, 0xD35C));
        assert!(!is_lamp(0x1209, 0x0001));
        assert!(!is_lamp(0x2341, 0xD35C));
    }
}
