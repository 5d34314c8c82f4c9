//! The commands the web UI calls. Each is a one-line hop into the core;
//! errors reach the UI as the core's plain-language message. One module per
//! concern; this one holds the family, library and settings commands.
//!
//! These commands fail with a [`CmdError`] — `{code, message, params}` — so
//! the UI can say a wrong PIN, a lock, a taken name or a refused material in
//! the user's language (ui/src/errors.ts maps the codes); `message` is the
//! core's English text, shown for codes the UI does not know. Commands that
//! still return [`CmdResult`] send only the message, as a plain string.

mod chat;
pub mod lamp;
mod models;
pub mod practice;
mod voice;

use deskmate_app::doctor::Check;
use deskmate_app::store::{Material, MaterialFilter, NewMaterial, NewProfile, Profile};
use deskmate_app::{AppError, Deskmate};
use serde::Serialize;
use tauri::State;

pub(crate) type CmdResult<T> = Result<T, String>;

pub(crate) fn plain<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

/// A command's failure as the UI receives it (see the module comment).
#[derive(Debug, Serialize)]
pub(crate) struct CmdError {
    /// Stable and machine-readable, e.g. `pin.locked`; `error` when there is nothing more specific.
    code: &'static str,
    /// The core's plain-English explanation.
    message: String,
    /// What a translated message needs, e.g. `until` (RFC 3339, UTC) for `pin.locked`.
    params: serde_json::Map<String, serde_json::Value>,
}

impl From<AppError> for CmdError {
    fn from(e: AppError) -> Self {
        Self {
            code: e.code(),
            message: e.to_string(),
            params: e.params(),
        }
    }
}

impl From<String> for CmdError {
    fn from(message: String) -> Self {
        Self {
            code: "error",
            message,
            params: serde_json::Map::new(),
        }
    }
}

impl std::fmt::Display for CmdError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for CmdError {}

pub(crate) type CodedResult<T> = Result<T, CmdError>;

/// [`blocking`], keeping the core error's code.
pub(crate) async fn coded<T: Send + 'static>(
    app: &Deskmate,
    f: impl FnOnce(Deskmate) -> Result<T, AppError> + Send + 'static,
) -> CodedResult<T> {
    let app = app.clone();
    tauri::async_runtime::spawn_blocking(move || f(app))
        .await
        .map_err(|e| CmdError::from(e.to_string()))?
        .map_err(CmdError::from)
}

/// What the UI needs to know at start.
#[derive(Serialize)]
pub struct AppStatus {
    first_run: bool,
    locale: String,
    data_dir: String,
    schema_version: u32,
}

/// Runs blocking core work off the async executor.
pub(crate) async fn blocking<T: Send + 'static>(
    app: &Deskmate,
    f: impl FnOnce(Deskmate) -> Result<T, AppError> + Send + 'static,
) -> CmdResult<T> {
    let app = app.clone();
    tauri::async_runtime::spawn_blocking(move || f(app))
        .await
        .map_err(plain)?
        .map_err(plain)
}

/// Also answers when Deskmate could not open its data at start: then it tries
/// again (restarting the app once that works) or fails with the reason.
#[tauri::command]
async fn app_status(handle: tauri::AppHandle) -> CodedResult<AppStatus> {
    let Some(app) = tauri::Manager::try_state::<Deskmate>(&handle) else {
        return Err(crate::startup::open_again(&handle).await);
    };
    coded(&app, |app| {
        Ok(AppStatus {
            first_run: app.is_first_run()?,
            locale: app.locale()?,
            data_dir: app.config().data_dir.display().to_string(),
            schema_version: app.store().schema_version()?,
        })
    })
    .await
}

#[tauri::command]
async fn profiles_list(app: State<'_, Deskmate>) -> CodedResult<Vec<Profile>> {
    coded(&app, |app| Ok(app.store().profiles().list()?)).await
}

#[tauri::command]
async fn setup_family(
    app: State<'_, Deskmate>,
    parent: NewProfile,
    child: NewProfile,
) -> CodedResult<Vec<Profile>> {
    coded(&app, move |app| app.setup_family(parent, child)).await
}

#[tauri::command]
async fn profiles_add(app: State<'_, Deskmate>, profile: NewProfile) -> CodedResult<Profile> {
    coded(&app, move |app| Ok(app.store().profiles().add(profile)?)).await
}

#[tauri::command]
async fn parent_unlock(
    app: State<'_, Deskmate>,
    profile_id: String,
    pin: String,
) -> CodedResult<()> {
    coded(&app, move |app| app.unlock_parent(&profile_id, &pin)).await
}

#[tauri::command]
async fn materials_list(
    app: State<'_, Deskmate>,
    filter: MaterialFilter,
) -> CodedResult<Vec<Material>> {
    coded(&app, move |app| {
        Ok(app.store().materials().list(&filter)?)
    })
    .await
}

#[tauri::command]
async fn materials_add(
    app: State<'_, Deskmate>,
    material: NewMaterial,
    created_by: Option<String>,
) -> CodedResult<Material> {
    coded(&app, move |app| {
        Ok(app
            .store()
            .materials()
            .add_custom(material, created_by.as_deref())?)
    })
    .await
}

#[tauri::command]
async fn locale_set(app: State<'_, Deskmate>, locale: String) -> CmdResult<()> {
    blocking(&app, move |app| app.set_locale(&locale)).await
}

#[tauri::command]
async fn doctor(app: State<'_, Deskmate>) -> CmdResult<Vec<Check>> {
    blocking(&app, |app| Ok(app.doctor())).await
}

pub fn handler() -> impl Fn(tauri::ipc::Invoke) -> bool + Send + Sync + 'static {
    tauri::generate_handler![
        app_status,
        profiles_list,
        setup_family,
        profiles_add,
        parent_unlock,
        materials_list,
        materials_add,
        locale_set,
        doctor,
        lamp::lamp_status,
        lamp::lamp_connect,
        lamp::lamp_disconnect,
        lamp::lamp_panel_event,
        chat::chat_threads,
        chat::chat_thread,
        chat::chat_send,
        chat::chat_cancel,
        chat::llm_settings_get,
        chat::llm_settings_save,
        chat::llm_key_delete,
        chat::llm_test,
        practice::reviews_due,
        practice::practice_start,
        practice::practice_current,
        practice::practice_submit_text,
        practice::practice_record_start,
        practice::practice_record_stop,
        practice::practice_retry,
        practice::practice_leave,
        practice::report,
        practice::report_attempts,
        models::models_status,
        models::models_fetch,
        voice::voice_settings_get,
        voice::voice_settings_save,
        voice::voice_test
    ]
}
