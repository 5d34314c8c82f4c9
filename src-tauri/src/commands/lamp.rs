//! Lamp commands: connect, disconnect, the panel's state, and the panel's
//! buttons. Lamp notices are forwarded to the UI as `lamp://notice` events.

use deskmate_app::Deskmate;
use deskmate_lamp::{DeviceEvent, LampNotice, LampState};
use tauri::{AppHandle, Emitter, State};

use super::{blocking, CmdResult};

pub const NOTICE_EVENT: &str = "lamp://notice";

#[tauri::command]
pub async fn lamp_status(app: State<'_, Deskmate>) -> CmdResult<Option<LampState>> {
    Ok(app.lamp_state())
}

#[tauri::command]
pub async fn lamp_connect(handle: AppHandle, app: State<'_, Deskmate>, port: Option<String>) -> CmdResult<LampState> {
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
            .map_err(|e| format!("cannot follow the lamp: {e}"))?;
    }
    Ok(())
}

#[tauri::command]
pub async fn lamp_disconnect(app: State<'_, Deskmate>) -> CmdResult<()> {
    app.lamp_disconnect();
    Ok(())
}

/// The virtual panel's buttons: delivered exactly like the lamp's own events.
#[tauri::command]
pub async fn lamp_panel_event(handle: AppHandle, event: DeviceEvent) -> CmdResult<()> {
    let notice = LampNotice::Event { event, at_unix_ms: deskmate_lamp::state::now_unix_ms() };
    handle.emit(NOTICE_EVENT, &notice).map_err(|e| e.to_string())
}
