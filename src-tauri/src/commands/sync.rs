//! The family's sync in the parent's settings: an account on a sync server
//! (sign up, sign in, sign out), the family's devices (a pairing code for a
//! child's tablet, the list, removing one), sync on and off, a round now,
//! and how syncing goes (the header's indicator reads it too). A tablet
//! joins a family from the first-run screen with a code. Each command is a
//! hop into `Deskmate`'s family-sync functions, the ones the
//! `deskmate account|devices|sync` commands call.

use deskmate_app::Deskmate;
use deskmate_protocol::sync::{
    AccountStatus, DeviceView, LoginRequest, PairRequest, PairingCode, SignedIn, SignupRequest,
    SyncView,
};
use tauri::State;

use super::{blocking, CmdResult};

/// How syncing goes on this device.
#[tauri::command]
pub async fn sync_view(app: State<'_, Deskmate>) -> CmdResult<SyncView> {
    blocking(&app, |app| app.sync_view()).await
}

/// A new parent account and family; this device is signed in.
#[tauri::command]
pub async fn sync_signup(
    app: State<'_, Deskmate>,
    server: String,
    request: SignupRequest,
) -> CmdResult<SignedIn> {
    blocking(&app, move |app| app.sync_signup(&server, request)).await
}

/// Signs this device in with a parent's account.
#[tauri::command]
pub async fn sync_login(
    app: State<'_, Deskmate>,
    server: String,
    request: LoginRequest,
) -> CmdResult<SignedIn> {
    blocking(&app, move |app| app.sync_login(&server, request)).await
}

/// A tablet joins its family with a parent's code, turns sync on and
/// brings the family's children over.
#[tauri::command]
pub async fn sync_join(
    app: State<'_, Deskmate>,
    server: String,
    request: PairRequest,
) -> CmdResult<SignedIn> {
    blocking(&app, move |app| app.sync_join(&server, request)).await
}

/// Signs this device out; sync turns off.
#[tauri::command]
pub async fn sync_logout(app: State<'_, Deskmate>) -> CmdResult<()> {
    blocking(&app, |app| app.sync_logout()).await
}

/// Who this device is signed in as (from the server).
#[tauri::command]
pub async fn sync_account(app: State<'_, Deskmate>) -> CmdResult<AccountStatus> {
    blocking(&app, |app| app.sync_account()).await
}

/// A one-time code for a child's tablet.
#[tauri::command]
pub async fn sync_pairing_code(app: State<'_, Deskmate>) -> CmdResult<PairingCode> {
    blocking(&app, |app| app.sync_pairing_code()).await
}

#[tauri::command]
pub async fn sync_devices(app: State<'_, Deskmate>) -> CmdResult<Vec<DeviceView>> {
    blocking(&app, |app| app.sync_devices()).await
}

#[tauri::command]
pub async fn sync_remove_device(app: State<'_, Deskmate>, id: String) -> CmdResult<()> {
    blocking(&app, move |app| app.sync_remove_device(&id)).await
}

/// Sync on (with or without transcripts) and the window's background loop
/// started, or off and the loop stopped; answers how syncing goes then.
#[tauri::command]
pub async fn sync_set(
    app: State<'_, Deskmate>,
    on: bool,
    transcripts: bool,
) -> CmdResult<SyncView> {
    blocking(&app, move |app| {
        if on {
            app.sync_on(transcripts)?;
            app.start_sync()?;
        } else {
            app.sync_off()?;
            app.stop_sync();
        }
        app.sync_view()
    })
    .await
}

/// A round now; answers how syncing goes after it.
#[tauri::command]
pub async fn sync_now(app: State<'_, Deskmate>) -> CmdResult<SyncView> {
    blocking(&app, |app| {
        app.sync_now()?;
        app.sync_view()
    })
    .await
}
