//! The commands the web UI calls. Each is a one-line hop into the core;
//! one module per concern; this one holds the family, library and settings
//! commands.
//!
//! Every command fails with a [`WireError`] — `{code, message, params}` — so
//! the UI can say a wrong PIN, a lock, a taken name, a missing microphone or
//! a refused material in the user's language (ui/src/errors.ts has words for
//! every code the core sends); `message` is the core's English text, shown
//! for codes the UI does not know. Argument and result types are the
//! protocol crate's and the core's serde types; the UI's TypeScript for
//! them is generated (ui/src/protocol.ts).

mod chat;
mod family;
mod homework;
mod knowledge;
pub mod lamp;
mod mcp;
mod memories;
mod models;
mod plan;
pub mod practice;
mod routines;
mod sync;
mod trace;
mod voice;

use deskmate_app::doctor::Check;
use deskmate_app::store::{Material, MaterialFilter, NewMaterial, NewProfile, Profile};
use deskmate_app::{AppError, Deskmate};
use deskmate_protocol::{AppStatus, WireError};
use tauri::State;

/// A command's result: the value, or the failure as the UI receives it.
pub(crate) type CmdResult<T> = Result<T, WireError>;

/// The wire form of a core error: its stable code, message and params.
pub(crate) fn wire(e: AppError) -> WireError {
    WireError {
        code: e.code().to_string(),
        message: e.to_string(),
        params: e.params(),
    }
}

/// Runs blocking core work off the async executor, keeping the core error's code.
pub(crate) async fn blocking<T: Send + 'static>(
    app: &Deskmate,
    f: impl FnOnce(Deskmate) -> Result<T, AppError> + Send + 'static,
) -> CmdResult<T> {
    let app = app.clone();
    tauri::async_runtime::spawn_blocking(move || f(app))
        .await
        .map_err(|e| WireError::generic(e.to_string()))?
        .map_err(wire)
}

/// Also answers when Deskmate could not open its data at start: then it tries
/// again (restarting the app once that works) or fails with the reason.
#[tauri::command]
async fn app_status(handle: tauri::AppHandle) -> CmdResult<AppStatus> {
    let Some(app) = tauri::Manager::try_state::<Deskmate>(&handle) else {
        return Err(crate::startup::open_again(&handle).await);
    };
    blocking(&app, |app| {
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
async fn profiles_list(app: State<'_, Deskmate>) -> CmdResult<Vec<Profile>> {
    blocking(&app, |app| Ok(app.store().profiles().list()?)).await
}

#[tauri::command]
async fn setup_family(
    app: State<'_, Deskmate>,
    parent: NewProfile,
    child: NewProfile,
) -> CmdResult<Vec<Profile>> {
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
async fn materials_list(
    app: State<'_, Deskmate>,
    filter: MaterialFilter,
) -> CmdResult<Vec<Material>> {
    blocking(&app, move |app| {
        Ok(app.store().materials().list(&filter)?)
    })
    .await
}

#[tauri::command]
async fn materials_add(
    app: State<'_, Deskmate>,
    material: NewMaterial,
    created_by: Option<String>,
) -> CmdResult<Material> {
    blocking(&app, move |app| {
        Ok(app.add_material(material, created_by.as_deref())?)
    })
    .await
}

#[tauri::command]
async fn locale_set(app: State<'_, Deskmate>, locale: String) -> CmdResult<()> {
    if !matches!(locale.as_str(), "zh-CN" | "en") {
        return Err(WireError::new(
            "locale.unsupported",
            format!("unsupported language {locale:?}"),
        ));
    }
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
        chat::chat_supervise,
        chat::chat_handoff,
        chat::chat_resume,
        chat::chat_decide,
        chat::chat_cancel,
        chat::llm_settings_get,
        chat::llm_settings_save,
        chat::llm_key_delete,
        chat::llm_test,
        chat::llm_notice_agree,
        chat::llm_notice_withdraw,
        practice::reviews_due,
        practice::say,
        practice::say_button,
        practice::talk,
        practice::talk_stop,
        homework::say_photos,
        plan::plan_today,
        plan::goals_list,
        plan::goal_set,
        plan::goal_set_words,
        plan::goal_remove,
        trace::traces_recent,
        trace::trace_show,
        practice::practice_start,
        practice::practice_current,
        practice::practice_submit_text,
        practice::practice_record_start,
        practice::practice_record_stop,
        practice::practice_retake_start,
        practice::practice_retry,
        practice::practice_leave,
        practice::report,
        practice::report_attempts,
        practice::report_keepsake_save,
        models::models_status,
        models::models_fetch,
        models::models_download,
        voice::voice_settings_get,
        voice::voice_settings_save,
        voice::voice_test,
        sync::sync_view,
        sync::sync_signup,
        sync::sync_login,
        sync::sync_join,
        sync::sync_logout,
        sync::sync_account,
        sync::sync_pairing_code,
        sync::sync_devices,
        sync::sync_remove_device,
        sync::sync_set,
        sync::sync_now,
        knowledge::kb_list,
        knowledge::kb_documents,
        knowledge::kb_add,
        knowledge::kb_remove,
        memories::memories_list,
        memories::memory_add,
        memories::memory_edit,
        memories::memory_delete,
        mcp::mcp_servers,
        mcp::mcp_add,
        mcp::mcp_remove,
        mcp::mcp_allow,
        mcp::mcp_set,
        mcp::mcp_tools,
        family::ask,
        family::usage,
        family::limits_get,
        family::limits_set,
        family::notices_list,
        family::notice_read,
        family::notice_replaced_reply,
        family::export_default_path,
        family::profile_export,
        family::profile_delete,
        routines::routines_list,
        routines::routine_get,
        routines::routine_examples,
        routines::routine_parts,
        routines::routine_check,
        routines::routine_save,
        routines::routine_delete,
        routines::routine_runs,
        routines::routine_run,
        routines::routine_resume
    ]
}
