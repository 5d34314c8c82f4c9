//! The core's one event stream, moved to the window: every
//! [`AppEvent`] is emitted on its channel (`practice://task`,
//! `lamp://notice`, `reviews://due`, …) with its payload, except review
//! reminders, which become one OS notification each
//! (tauri-plugin-notification). No notification service (a CI machine) →
//! logged once; the due strip still updates from `reviews://due`.

use deskmate_app::Deskmate;
use deskmate_protocol::AppEvent;
use tauri::{AppHandle, Emitter};
use tauri_plugin_notification::NotificationExt;

/// Whether a desktop notification service answers (it is asked once).
fn notifications_work() -> bool {
    #[cfg(target_os = "linux")]
    {
        match notify_rust::get_server_information() {
            Ok(info) => {
                tracing::debug!("notifications go to {} {}", info.name, info.version);
                true
            }
            Err(e) => {
                tracing::warn!("no desktop notification service ({e}); due reviews are shown in the window only");
                false
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        true
    }
}

fn forward(handle: &AppHandle, event: &AppEvent, notify: bool) {
    if let AppEvent::Reminder(r) = event {
        if !notify {
            tracing::info!("{} — {}", r.title, r.body);
            return;
        }
        if let Err(e) = handle
            .notification()
            .builder()
            .title(&r.title)
            .body(&r.body)
            .show()
        {
            tracing::warn!("cannot show the review reminder: {e}");
        }
        return;
    }
    let payload = match event.payload() {
        Ok(p) => p,
        Err(e) => {
            tracing::warn!("cannot encode a {} event: {e}", event.channel());
            return;
        }
    };
    if let Err(e) = handle.emit(event.channel(), payload) {
        // A dropped meter reading is harmless; anything else is worth a line.
        if !matches!(event, AppEvent::Level(_)) {
            tracing::warn!("cannot send a {} event to the window: {e}", event.channel());
        }
    }
}

/// Subscribes to the core's events now (so nothing published after this
/// call is missed) and forwards them on a thread of their own.
pub fn forward_to_window(handle: AppHandle, app: &Deskmate) -> std::io::Result<()> {
    let events = app.events();
    std::thread::Builder::new()
        .name("app-events".into())
        .spawn(move || {
            let notify = notifications_work();
            for event in events.iter() {
                forward(&handle, &event, notify);
            }
        })?;
    Ok(())
}
