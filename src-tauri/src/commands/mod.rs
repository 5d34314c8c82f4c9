//! The commands the web UI calls. Each is a one-line hop into the core;
//! errors reach the UI as the core's plain-language message. One module per
//! concern; this one holds the family, library and settings commands.

mod chat;
pub mod lamp;
mod models;
mod practice;

use deskmate_app::doctor::Check;
use deskmate_app::store::{Material, MaterialFilter, NewMaterial, NewProfile, Profile};
use deskmate_app::{AppError, Deskmate};
use serde::Serialize;
use tauri::State;

pub(crate) type CmdResult<T> = Result<T, String>;

pub(crate) fn plain<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

/// What the UI needs to know at start.
#[derive(Serialize)]
pub struct AppStatus {
    first_run: bool,
    locale: String,
    data_dir: String,
    schema_version: u32,
}

const LOCALE_KEY: &str = "ui.locale";

/// Runs blocking core work off the async executor.
pub(crate) async fn blocking<T: Send + 'static>(
    app: &Deskmate,
    f: impl FnOnce(Deskmate) -> Result<T, AppError> + Send + 'static,
) -> CmdResult<T> {
    let app = app.clone();
    tauri::async_runtime::spawn_blocking(move || f(app)).await.map_err(plain)?.map_err(plain)
}

#[tauri::command]
async fn app_status(app: State<'_, Deskmate>) -> CmdResult<AppStatus> {
    blocking(&app, |app| {
        Ok(AppStatus {
            first_run: app.is_first_run()?,
            locale: app.store().settings().get(None, LOCALE_KEY)?.unwrap_or_else(|| "zh-CN".into()),
            data_dir: app.config().data_dir.display().to_string(),
            schema_version: app.store().schema_version()?,
        })
    })
    .await
}

#[tauri::command]
async fn profiles_list(app: State<'_, Deskmate>) -> CmdResult<Vec<Profile>> {
    blocking(&app, |app| Ok(app.store().profiles().list()?)).await
}

#[tauri::command]
async fn setup_family(app: State<'_, Deskmate>, parent: NewProfile, child: NewProfile) -> CmdResult<Vec<Profile>> {
    blocking(&app, move |app| app.setup_family(parent, child)).await
}

#[tauri::command]
async fn profiles_add(app: State<'_, Deskmate>, profile: NewProfile) -> CmdResult<Profile> {
    blocking(&app, move |app| Ok(app.store().profiles().add(profile)?)).await
}

#[tauri::command]
async fn parent_unlock(app: State<'_, Deskmate>, profile_id: String, pin: String) -> CmdResult<()> {
    blocking(&app, move |app| app.unlock_parent(&profile_id, &pin)).await
}

#[tauri::command]
async fn materials_list(app: State<'_, Deskmate>, filter: MaterialFilter) -> CmdResult<Vec<Material>> {
    blocking(&app, move |app| Ok(app.store().materials().list(&filter)?)).await
}

#[tauri::command]
async fn materials_add(
    app: State<'_, Deskmate>,
    material: NewMaterial,
    created_by: Option<String>,
) -> CmdResult<Material> {
    blocking(&app, move |app| Ok(app.store().materials().add_custom(material, created_by.as_deref())?)).await
}

#[tauri::command]
async fn locale_set(app: State<'_, Deskmate>, locale: String) -> CmdResult<()> {
    if !matches!(locale.as_str(), "zh-CN" | "en") {
        return Err(format!("unsupported language {locale:?}"));
    }
    blocking(&app, move |app| Ok(app.store().settings().set(None, LOCALE_KEY, &locale)?)).await
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
        models::models_status,
        models::models_fetch
    ]
}
