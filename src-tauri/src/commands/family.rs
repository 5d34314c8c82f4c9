//! The parent area's screens for a child as a whole (issue 20): questions
//! about progress answered with a chart, usage and daily limits, the
//! notices kept for the parent (a replaced reply read with its
//! conversation), and a child's data exported or deleted — the same
//! `Deskmate` calls as `deskmate ask|usage|limits|notices|profiles
//! export|delete`.
//!
//! Export and delete take the parent's PIN and check it first (a wrong one
//! counts towards the lock, as at the parent area's door). There is no file
//! dialog in the window: `export_default_path` proposes
//! `<Downloads or home>/<child>-<date>.zip`, which the parent sees and may
//! edit; the core refuses a file that is already there.

use std::path::PathBuf;

use deskmate_app::Deskmate;
use deskmate_protocol::family::{
    ChildDeleted, ChildExported, Limits, Notice, ProgressAnswer, ReplacedReply, UsageReport,
};
use tauri::{Manager, State};

use super::{blocking, CmdResult};

#[tauri::command]
pub async fn ask(
    app: State<'_, Deskmate>,
    profile_id: String,
    question: String,
) -> CmdResult<ProgressAnswer> {
    blocking(&app, move |app| {
        app.ask(&profile_id, &question, chrono::Utc::now())
    })
    .await
}

#[tauri::command]
pub async fn usage(
    app: State<'_, Deskmate>,
    profile_id: String,
    days: u32,
) -> CmdResult<UsageReport> {
    blocking(&app, move |app| {
        app.usage(Some(&profile_id), days, chrono::Utc::now())
    })
    .await
}

#[tauri::command]
pub async fn limits_get(app: State<'_, Deskmate>, profile_id: String) -> CmdResult<Limits> {
    blocking(&app, move |app| app.limits(&profile_id)).await
}

/// Saves the limits and returns them as kept (quiet hours written `HH:MM`).
#[tauri::command]
pub async fn limits_set(
    app: State<'_, Deskmate>,
    profile_id: String,
    limits: Limits,
) -> CmdResult<Limits> {
    blocking(&app, move |app| {
        app.set_limits(&profile_id, &limits)?;
        app.limits(&profile_id)
    })
    .await
}

#[tauri::command]
pub async fn notices_list(
    app: State<'_, Deskmate>,
    profile_id: Option<String>,
    unread: bool,
) -> CmdResult<Vec<Notice>> {
    blocking(&app, move |app| app.notices(profile_id.as_deref(), unread)).await
}

#[tauri::command]
pub async fn notice_read(app: State<'_, Deskmate>, notice_id: String) -> CmdResult<()> {
    blocking(&app, move |app| app.mark_notice_read(&notice_id)).await
}

#[tauri::command]
pub async fn notice_replaced_reply(
    app: State<'_, Deskmate>,
    notice_id: String,
) -> CmdResult<ReplacedReply> {
    blocking(&app, move |app| app.replaced_reply(&notice_id)).await
}

/// Where an export goes unless the parent types another path: the
/// Downloads folder (the home folder when there is none), named after the
/// child and today.
#[tauri::command]
pub async fn export_default_path(
    handle: tauri::AppHandle,
    app: State<'_, Deskmate>,
    profile_id: String,
) -> CmdResult<String> {
    let paths = handle.path();
    let dir: PathBuf = paths
        .download_dir()
        .ok()
        .filter(|d| d.is_dir())
        .or_else(|| paths.home_dir().ok())
        .unwrap_or_default();
    blocking(&app, move |app| {
        let child = app.find_profile(&profile_id)?;
        let day = chrono::Local::now().format("%Y-%m-%d");
        Ok(dir
            .join(format!("deskmate-{}-{day}.zip", child.name))
            .display()
            .to_string())
    })
    .await
}

#[tauri::command]
pub async fn profile_export(
    app: State<'_, Deskmate>,
    profile_id: String,
    parent_id: String,
    pin: String,
    path: String,
) -> CmdResult<ChildExported> {
    blocking(&app, move |app| {
        app.unlock_parent(&parent_id, &pin)?;
        app.export_child(&profile_id, &PathBuf::from(path.trim()))
    })
    .await
}

#[tauri::command]
pub async fn profile_delete(
    app: State<'_, Deskmate>,
    profile_id: String,
    parent_id: String,
    pin: String,
) -> CmdResult<ChildDeleted> {
    blocking(&app, move |app| {
        app.delete_child(&profile_id, &parent_id, &pin)
    })
    .await
}
