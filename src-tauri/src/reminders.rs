//! Review reminders: at start and then hourly, each child with reviews due
//! today gets a `reviews://due` event (the due strip reloads) and, when it is
//! news, one OS notification (tauri-plugin-notification). Which children and
//! what is news is the core's (`Deskmate::reviews_due_reminders`,
//! `ReminderLog`). No notification service (a CI machine) → logged once; the
//! reminders still reach the window.

use std::time::Duration;

use chrono::Utc;
use deskmate_app::review_reminders::ReminderLog;
use deskmate_app::Deskmate;
use deskmate_protocol::practice::REVIEWS_DUE_EVENT;
use deskmate_protocol::ReviewsDueEvent;
use tauri::{AppHandle, Emitter};
use tauri_plugin_notification::NotificationExt;

/// How often the schedule is looked at again.
const EVERY: Duration = Duration::from_secs(60 * 60);

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

fn english(app: &Deskmate) -> bool {
    app.locale().is_ok_and(|l| l.starts_with("en"))
}

fn check(handle: &AppHandle, app: &Deskmate, log: &mut ReminderLog, notify: bool) {
    let now = Utc::now();
    let reminders = match app.reviews_due_reminders(now) {
        Ok(r) => r,
        Err(e) => {
            tracing::warn!("cannot look at the review schedule: {e}");
            return;
        }
    };
    for r in &reminders {
        let event = ReviewsDueEvent {
            profile_id: r.profile_id.clone(),
            count: r.count,
        };
        if let Err(e) = handle.emit(REVIEWS_DUE_EVENT, event) {
            tracing::warn!("cannot tell the window reviews are due: {e}");
        }
    }
    let en = english(app);
    for r in log.news(&reminders, now) {
        let (title, body) = r.notification(en);
        if !notify {
            tracing::info!("{title} — {body}");
            continue;
        }
        if let Err(e) = handle
            .notification()
            .builder()
            .title(&title)
            .body(&body)
            .show()
        {
            tracing::warn!("cannot show the review reminder: {e}");
        }
    }
}

/// Starts the hourly reminder thread.
pub fn start(handle: AppHandle, app: Deskmate) -> Result<(), Box<dyn std::error::Error>> {
    std::thread::Builder::new()
        .name("review-reminders".into())
        .spawn(move || {
            let notify = notifications_work();
            let mut log = ReminderLog::default();
            loop {
                check(&handle, &app, &mut log, notify);
                std::thread::sleep(EVERY);
            }
        })?;
    Ok(())
}
