//! What the window does when Deskmate cannot open its data at start (a data
//! directory it cannot write, a database from a newer Deskmate): a line on
//! stderr is invisible to someone who started the app from a menu, so the
//! window opens anyway, with the usual UI and no [`Deskmate`] behind it.
//! The UI's first call, `app_status`, then fails with the coded reason, which
//! the UI shows in the user's language with the fix (ui/src/errors.ts). Its
//! retry button calls `app_status` again: that opens the data once more and,
//! if it now works (the folder was fixed), restarts the app into the real thing.

use deskmate_app::{Config, Deskmate};
use tauri::{AppHandle, Manager};

use deskmate_protocol::WireError;

use crate::commands::{self, wire};

/// Managed instead of [`Deskmate`] while the data cannot be opened.
struct StartupFailure {
    config: Config,
}

/// Runs the window until it is closed; returns the event loop's exit code.
pub fn show_failure(config: Config) -> tauri::Result<i32> {
    let app = tauri::Builder::default()
        .manage(StartupFailure { config })
        // Every command is there, so the UI loads as usual; those needing the
        // Deskmate handle fail with Tauri's "state not managed" message.
        .invoke_handler(commands::handler())
        .build(tauri::generate_context!())?;
    Ok(app.run_return(|_, _| {}))
}

/// Tries to open the data again. Success restarts the app (this never
/// returns then); failure is the reason, coded for the UI.
pub async fn open_again(handle: &AppHandle) -> WireError {
    let Some(failure) = handle.try_state::<StartupFailure>() else {
        return WireError::generic("Deskmate has not finished starting; try again in a moment");
    };
    let config = failure.config.clone();
    match tauri::async_runtime::spawn_blocking(move || Deskmate::open(config)).await {
        Ok(Ok(app)) => {
            drop(app);
            tracing::info!("the data directory can be used now; restarting");
            handle.restart()
        }
        Ok(Err(e)) => wire(e),
        Err(e) => WireError::generic(e.to_string()),
    }
}
