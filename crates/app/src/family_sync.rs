//! The family's sync kept going while the app is open: the window and
//! `deskmate serve` start [`deskmate_sync::background::run`] when they open
//! (one-shot commands do not: a command that ends in a second has no use
//! for a loop) and stop it when they close. The loop runs on a thread of
//! its own with its own small runtime, whichever runtime (or none) the front
//! end has. It idles while sync is off or the device is signed out, so it
//! starts the moment a parent turns sync on. Each round is kept in the
//! store, so [`Deskmate::sync_status`] — and `deskmate sync status` in
//! another process — show the last one.

use std::sync::{Arc, Mutex};

use deskmate_sync::background::Cadence;
use deskmate_sync::{KeyringVault, LocalState, Sync};
use serde::Serialize;

use crate::{AppError, AppResult, Deskmate};

/// The running loop, if any (shared by the handle's clones).
#[derive(Debug, Clone, Default)]
pub struct SyncLoop {
    running: Arc<Mutex<Option<Running>>>,
}

#[derive(Debug)]
struct Running {
    stop: tokio::sync::oneshot::Sender<()>,
    thread: std::thread::JoinHandle<()>,
}

/// How syncing goes, for a status line: this device's sync state (on or
/// off, what waits in the outbox, the last sync, the background loop's last
/// round in `background`) and whether this process runs the loop.
#[derive(Debug, Clone, Serialize)]
pub struct SyncStatus {
    /// This process runs the background loop.
    pub running: bool,
    #[serde(flatten)]
    pub state: LocalState,
}

impl Deskmate {
    /// Starts the background sync loop (the normal cadence: changes out
    /// within 10 s, a pull every 5 minutes, backoff while offline). `false`
    /// when it already runs.
    pub fn start_sync(&self) -> AppResult<bool> {
        self.start_sync_every(Cadence::default())
    }

    /// As [`Deskmate::start_sync`] with another cadence (tests).
    pub fn start_sync_every(&self, cadence: Cadence) -> AppResult<bool> {
        let mut running = self
            .sync_loop
            .running
            .lock()
            .map_err(|_| AppError::Thread {
                what: "cannot start syncing",
                reason: "the sync loop's lock is poisoned".into(),
            })?;
        if running.as_ref().is_some_and(|r| !r.thread.is_finished()) {
            return Ok(false);
        }
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let store = self.store.clone();
        let thread = std::thread::Builder::new()
            .name("family-sync".into())
            .spawn(move || {
                let runtime = match tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                {
                    Ok(r) => r,
                    Err(e) => {
                        tracing::warn!("the family's sync cannot run: {e}");
                        return;
                    }
                };
                let sync = Sync::new(store, KeyringVault);
                runtime.block_on(async {
                    tokio::select! {
                        () = deskmate_sync::background::run(&sync, cadence, |_| {}) => {}
                        _ = stopped => {}
                    }
                });
            })
            .map_err(|e| AppError::Thread {
                what: "cannot start syncing",
                reason: e.to_string(),
            })?;
        *running = Some(Running { stop, thread });
        Ok(true)
    }

    /// Stops the loop (a round in flight is cut off: what it had not
    /// finished is sent or pulled again next time) and waits for its thread.
    pub fn stop_sync(&self) {
        let taken = match self.sync_loop.running.lock() {
            Ok(mut running) => running.take(),
            Err(_) => None,
        };
        if let Some(r) = taken {
            let _ = r.stop.send(());
            if r.thread.join().is_err() {
                tracing::warn!("the family's sync stopped with a panic");
            }
        }
    }

    /// How syncing goes: the device's sync state with the loop's last round.
    pub fn sync_status(&self) -> AppResult<SyncStatus> {
        let running = self
            .sync_loop
            .running
            .lock()
            .map(|r| r.as_ref().is_some_and(|r| !r.thread.is_finished()))
            .unwrap_or(false);
        let state = Sync::new(self.store.clone(), KeyringVault)
            .state()
            .map_err(|e| AppError::Invalid(e.to_string()))?;
        Ok(SyncStatus { running, state })
    }
}
