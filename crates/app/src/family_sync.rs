//! The family's sync kept going while the app is open: the window and
//! `deskmate serve` start [`deskmate_sync::background::run`] when they open
//! (one-shot commands do not: a command that ends in a second has no use
//! for a loop) and stop it when they close. The loop runs on a thread of
//! its own with its own small runtime, whichever runtime (or none) the front
//! end has. It idles while sync is off or the device is signed out, so it
//! starts the moment a parent turns sync on. Each round is kept in the
//! store, so [`Deskmate::sync_status`] — and `deskmate sync status` in
//! another process — show the last one.
//!
//! The account, the family's devices and sync on, off and now are here too,
//! for every front end alike (the CLI's `deskmate account|devices|sync` and
//! the window's settings call the same functions). Each call to the server
//! runs on a small runtime of its own, so a caller needs none.

use std::future::Future;
use std::sync::{Arc, Mutex};

use deskmate_protocol::sync::{
    AcceptRequest, AccountStatus, DeviceView, Invitation, LoginRequest, PairRequest, PairingCode,
    RecordKind, SignedIn, SignupRequest, SyncView, TokenPair,
};
use deskmate_sync::background::Cadence;
use deskmate_sync::{KeyringVault, LocalState, Sync, SyncError, SyncReport};
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
        let state = self.sync_client().state()?;
        Ok(SyncStatus { running, state })
    }

    /// How syncing goes, as the window shows it (no secrets).
    pub fn sync_view(&self) -> AppResult<SyncView> {
        let SyncStatus { running, state } = self.sync_status()?;
        Ok(SyncView {
            signed_in: state.server_url.is_some() && state.vault_id.is_some(),
            server_url: state.server_url,
            family_id: state.family_id,
            device_id: state.device_id,
            enabled: state.enabled,
            transcripts: state.transcripts,
            pending: u32::try_from(state.pending).unwrap_or(u32::MAX),
            last_sync_at: state.last_sync_at,
            last_error: state.last_error,
            running,
            background: state.background,
            kinds: RecordKind::ALL.to_vec(),
        })
    }

    fn sync_client(&self) -> Sync<KeyringVault> {
        Sync::new(self.store.clone(), KeyringVault)
    }

    /// Creates a parent account and its family on a sync server and signs
    /// this device in (sync stays off until a parent turns it on).
    pub fn sync_signup(&self, server: &str, req: SignupRequest) -> AppResult<SignedIn> {
        let sync = self.sync_client();
        signed_in(on_own_runtime(sync.signup(server, req)))
    }

    /// Signs this device in with a parent's email and password.
    pub fn sync_login(&self, server: &str, req: LoginRequest) -> AppResult<SignedIn> {
        let sync = self.sync_client();
        signed_in(on_own_runtime(sync.login(server, req)))
    }

    /// Joins a family as its second parent with an invitation's code.
    pub fn sync_accept(&self, server: &str, req: AcceptRequest) -> AppResult<SignedIn> {
        let sync = self.sync_client();
        signed_in(on_own_runtime(sync.accept(server, req)))
    }

    /// The child's device joins the family with the one-time code a
    /// parent's device shows (`deskmate devices pair --code C --server URL`).
    pub fn sync_pair(&self, server: &str, req: PairRequest) -> AppResult<SignedIn> {
        let sync = self.sync_client();
        signed_in(on_own_runtime(sync.pair(server, req)))
    }

    /// A tablet joins the family from the window: pairs with the code,
    /// turns sync on (without transcripts: a parent enables them) and
    /// syncs once, so the family's
    /// children are on it when this returns — what `deskmate devices pair
    /// --code`, `deskmate sync on` and `deskmate sync now` do one by one.
    pub fn sync_join(&self, server: &str, req: PairRequest) -> AppResult<SignedIn> {
        let joined = self.sync_pair(server, req)?;
        self.sync_on(false)?;
        self.sync_now()?;
        Ok(joined)
    }

    /// Signs this device out (the server ends its session; offline, the
    /// tokens are forgotten here all the same) and turns sync off.
    pub fn sync_logout(&self) -> AppResult<()> {
        let sync = self.sync_client();
        on_own_runtime(sync.logout())
    }

    /// Who this device is signed in as, from the server.
    pub fn sync_account(&self) -> AppResult<AccountStatus> {
        let sync = self.sync_client();
        on_own_runtime(sync.status())
    }

    /// A one-time code (8 digits, 10 minutes) for a child's device to join.
    pub fn sync_pairing_code(&self) -> AppResult<PairingCode> {
        let sync = self.sync_client();
        on_own_runtime(sync.pairing_code())
    }

    /// The family's owner invites a second parent by email.
    pub fn sync_invite(&self, email: &str) -> AppResult<Invitation> {
        let sync = self.sync_client();
        on_own_runtime(sync.invite(email))
    }

    /// The family's invitations (without their codes).
    pub fn sync_invitations(&self) -> AppResult<Vec<Invitation>> {
        let sync = self.sync_client();
        on_own_runtime(sync.invitations())
    }

    /// The family's devices.
    pub fn sync_devices(&self) -> AppResult<Vec<DeviceView>> {
        let sync = self.sync_client();
        on_own_runtime(sync.devices())
    }

    /// Removes a device from the family; its sessions end at once.
    pub fn sync_remove_device(&self, id: &str) -> AppResult<()> {
        let sync = self.sync_client();
        on_own_runtime(sync.remove_device(id))
    }

    /// A parent turns sync on (what exists is queued the first time);
    /// returns how many records were queued.
    pub fn sync_on(&self, transcripts: bool) -> AppResult<usize> {
        Ok(self.sync_client().enable(transcripts)?)
    }

    /// Turns sync off: nothing is sent or received until it is on again.
    pub fn sync_off(&self) -> AppResult<()> {
        Ok(self.sync_client().disable()?)
    }

    /// One round now: push this device's changes, pull the family's.
    pub fn sync_now(&self) -> AppResult<SyncReport> {
        let sync = self.sync_client();
        on_own_runtime(sync.sync_now())
    }
}

/// The family and device a sign-in answered with; the tokens went to the keyring.
fn signed_in(tokens: AppResult<TokenPair>) -> AppResult<SignedIn> {
    tokens.map(|t| SignedIn {
        family_id: t.family_id,
        device_id: t.device_id,
    })
}

/// Runs a call to the sync server to its end on a runtime of its own, on a
/// scoped thread, so it works from blocking code inside or outside tokio.
fn on_own_runtime<T: Send>(
    work: impl Future<Output = Result<T, SyncError>> + Send,
) -> AppResult<T> {
    let thread = || AppError::Thread {
        what: "cannot reach the sync server",
        reason: "the sync call's thread stopped".into(),
    };
    std::thread::scope(|s| {
        s.spawn(|| {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| AppError::Thread {
                    what: "cannot reach the sync server",
                    reason: e.to_string(),
                })?;
            Ok(runtime.block_on(work)?)
        })
        .join()
        .unwrap_or_else(|_| Err(thread()))
    })
}
