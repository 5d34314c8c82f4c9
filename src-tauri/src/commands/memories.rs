//! What the companion remembers about each child, in the parent area
//! (reached through the parent's PIN): see, add, edit and delete — the same
//! `Deskmate` calls as `deskmate memory`.

use deskmate_app::store::{Memory, MemoryKind};
use deskmate_app::Deskmate;
use tauri::State;

use super::{blocking, CmdResult};

#[tauri::command]
pub async fn memories_list(app: State<'_, Deskmate>, profile_id: String) -> CmdResult<Vec<Memory>> {
    blocking(&app, move |app| app.memories(&profile_id)).await
}

#[tauri::command]
pub async fn memory_add(
    app: State<'_, Deskmate>,
    profile_id: String,
    kind: MemoryKind,
    text: String,
) -> CmdResult<Memory> {
    blocking(&app, move |app| app.add_memory(&profile_id, kind, &text)).await
}

#[tauri::command]
pub async fn memory_edit(
    app: State<'_, Deskmate>,
    profile_id: String,
    memory_id: String,
    text: String,
    kind: Option<MemoryKind>,
) -> CmdResult<Memory> {
    blocking(&app, move |app| {
        app.edit_memory(&profile_id, &memory_id, &text, kind)
    })
    .await
}

#[tauri::command]
pub async fn memory_delete(
    app: State<'_, Deskmate>,
    profile_id: String,
    memory_id: String,
) -> CmdResult<Memory> {
    blocking(&app, move |app| app.delete_memory(&profile_id, &memory_id)).await
}
