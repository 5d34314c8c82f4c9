//! Lamp commands: connect, disconnect, the panel's state, and the panel's
//! buttons (pressed on the lamp when the app hosts the simulator). Lamp
//! notices are forwarded to the UI as `lamp://notice` events.

use deskmate_app::lamp::PanelPress;
use deskmate_app::AppError;
use deskmate_app::Deskmate;
use deskmate_lamp::{DeviceEvent, LampState};
use deskmate_protocol::WireError;
use tauri::{AppHandle, Emitter, State};

use super::{blocking, wire, CmdResult};

pub const NOTICE_EVENT: &str = "lamp://notice";

#[tauri::command]
pub async fn lamp_status(app: State<'_, Deskmate>) -> CmdResult<Option<LampState>> {
    Ok(app.lamp_state())
}

#[tauri::command]
pub async fn lamp_connect(
    handle: AppHandle,
    app: State<'_, Deskmate>,
    port: Option<String>,
) -> CmdResult<LampState> {
    let state = blocking(&app, move |app| app.lamp_connect(port.map(Into::into))).await?;
    forward_notices(handle, &app)?;
    Ok(state)
}

/// Sends the connected lamp's notices to the UI as `lamp://notice` events.
pub fn forward_notices(handle: AppHandle, app: &Deskmate) -> CmdResult<()> {
    if let Some(notices) = app.lamp_notices() {
        // Ends by itself when the lamp is disconnected (the senders drop).
        std::thread::Builder::new()
            .name("lamp-notices".into())
            .spawn(move || {
                for notice in notices.iter() {
                    if let Err(e) = handle.emit(NOTICE_EVENT, &notice) {
                        tracing::warn!("cannot forward a lamp notice: {e}");
                    }
                }
            })
            .map_err(|e| {
                wire(AppError::Thread {
                    what: "cannot follow the lamp",
                    reason: e.to_string(),
                })
            })?;
    }
    Ok(())
}

#[tauri::command]
pub async fn lamp_disconnect(app: State<'_, Deskmate>) -> CmdResult<()> {
    app.lamp_disconnect();
    Ok(())
}

/// The virtual panel's buttons act as the lamp's own: pressed on the hosted
/// simulator they come back through the driver (and reach the window as its
/// notices); otherwise the app acts on them directly and the window is shown
/// the same notice a lamp would send.
#[tauri::command]
pub async fn lamp_panel_event(
    handle: AppHandle,
    app: State<'_, Deskmate>,
    event: DeviceEvent,
) -> CmdResult<()> {
    match blocking(&app, move |app| app.lamp_panel_press(event)).await? {
        PanelPress::ThroughLamp => Ok(()),
        PanelPress::Direct { notice, .. } => handle
            .emit(NOTICE_EVENT, &notice)
            .map_err(|e| WireError::generic(e.to_string())),
    }
}
