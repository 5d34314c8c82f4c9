//! The Deskmate app window. Thin by design: it builds the one [`Deskmate`]
//! composition root and exposes it to the web UI as typed commands. When the
//! data cannot be opened, the window still opens and says why ([`startup`]).

#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

mod commands;
mod events;
mod startup;

use deskmate_app::{Config, Deskmate};

fn main() {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_env("DESKMATE_LOG"))
        .init();
    if let Err(e) = run() {
        eprintln!("Deskmate could not start: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    if cfg!(target_os = "linux")
        && std::env::var_os("DISPLAY").is_none()
        && std::env::var_os("WAYLAND_DISPLAY").is_none()
    {
        return Err("no display found (DISPLAY and WAYLAND_DISPLAY are unset). Run Deskmate in a desktop session, \
                    or under Xvfb: xvfb-run -a scripts/run.sh. The `deskmate` command works without a display."
            .into());
    }
    let data_dir = std::env::args_os()
        .skip_while(|a| a != "--data-dir")
        .nth(1)
        .map(std::path::PathBuf::from);
    let config = Config::resolve(data_dir)?;
    let app = match Deskmate::open(config.clone()) {
        Ok(app) => app,
        Err(e) => {
            // The line for a terminal, then a window for everyone else; still a failed start.
            eprintln!("Deskmate could not start: {e}");
            let code = startup::show_failure(config)?;
            std::process::exit(if code == 0 { 1 } else { code });
        }
    };
    tauri::Builder::default()
        .plugin(tauri_plugin_notification::init())
        .setup(|tauri_app| {
            let app = tauri::Manager::state::<Deskmate>(tauri_app).inner().clone();
            let handle = tauri_app.handle().clone();
            // Everything the core publishes reaches the window; subscribed
            // first, so the lamp's first notices below are not missed.
            events::forward_to_window(handle, &app)?;
            // Feedback is spoken (DESKMATE_SPOKEN_FEEDBACK=0 keeps the window quiet).
            if std::env::var_os("DESKMATE_SPOKEN_FEEDBACK").is_none_or(|v| v != "0") {
                if let Err(e) = app.feedback_voice().enable() {
                    tracing::warn!("feedback will not be spoken: {e}");
                }
            }
            // Follow the desk lamp from the start, so its panel appears when it is
            // plugged in (DESKMATE_LAMP_PORT names a port, e.g. an outside simulator's);
            // DESKMATE_LAMP_SIMULATE=1 hosts the simulator in the app instead.
            let simulate =
                std::env::var_os(deskmate_app::lamp::LAMP_SIMULATE_ENV).is_some_and(|v| v == "1");
            let port = std::env::var_os("DESKMATE_LAMP_PORT").map(std::path::PathBuf::from);
            let attached = if simulate {
                app.lamp().host_simulator().map(|_| ())
            } else {
                app.lamp().watch(port)
            };
            if let Err(e) = attached {
                tracing::warn!("not following the lamp: {e}");
            }
            // Due reviews at start and then hourly (reviews://due, reminders).
            app.follow_reviews(deskmate_app::review_reminders::REVIEWS_EVERY)?;
            // The family's devices kept in step while the window is open
            // (idle while sync is off); stopped when it closes, below.
            app.start_sync()?;
            // Quiet conversations read for memories when a model is set.
            app.follow_conversations(
                deskmate_app::memories::SWEEP_EVERY,
                deskmate_app::memories::QUIET_FOR,
            )?;
            Ok(())
        })
        .manage(app.clone())
        .invoke_handler(commands::handler())
        .build(tauri::generate_context!())?
        .run(move |_, event| {
            if let tauri::RunEvent::Exit = event {
                app.stop_sync();
            }
        });
    Ok(())
}
