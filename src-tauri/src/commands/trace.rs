//! What happened in a child's requests, for the parents: the recent ones
//! (what was said, scene, intent, decision) and one request's trace with its
//! spans, drawn as a timeline by the UI (as `deskmate trace show` prints it).

use deskmate_app::orchestrator::entry::Trace;
use deskmate_app::Deskmate;
use tauri::State;

use super::{blocking, CmdResult};

/// How many requests the list shows.
const RECENT: usize = 30;

#[tauri::command]
pub async fn traces_recent(app: State<'_, Deskmate>, profile_id: String) -> CmdResult<Vec<Trace>> {
    blocking(&app, move |app| app.recent_traces(&profile_id, RECENT)).await
}

#[tauri::command]
pub async fn trace_show(app: State<'_, Deskmate>, trace_id: String) -> CmdResult<Trace> {
    blocking(&app, move |app| app.trace(&trace_id)).await
}
