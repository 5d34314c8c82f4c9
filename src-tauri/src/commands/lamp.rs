//! Lamp commands: connect, disconnect, the panel's state, and the panel's
//! buttons (pressed on the lamp when the app hosts the simulator). Lamp
//! notices reach the UI as `lamp://notice` events from the core's event
//! stream (see `events.rs`).

use deskmate_app::Deskmate;
use deskmate_lamp::{DeviceEvent, LampState};
use tauri::State;

use super::{blocking, CmdResult};

#[tauri::command]
pub async fn lamp_status(app: State<'_, Deskmate>) -> CmdResult<Option<LampState>> {
    Ok(app.lamp().state())
}

#[tauri::command]
pub async fn lamp_connect(app: State<'_, Deskmate>, port: Option<String>) -> CmdResult<LampState> {
    blocking(&app, move |app| app.lamp().connect(port.map(Into::into))).await
}

#[tauri::command]
pub async fn lamp_disconnect(app: State<'_, Deskmate>) -> CmdResult<()> {
    app.lamp().disconnect();
    Ok(())
}

/// The virtual panel's buttons act as the lamp's own: pressed on the hosted
/// simulator they come back through the driver; otherwise the app acts on
/// them directly. Either way the window sees the lamp's notice on the event
/// stream.
#[tauri::command]
pub async fn lamp_panel_event(app: State<'_, Deskmate>, event: DeviceEvent) -> CmdResult<()> {
    blocking(&app, move |app| app.lamp().panel_press(event).map(|_| ())).await
}
