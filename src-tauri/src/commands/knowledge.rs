//! The parent area's knowledge bases: list the bases and a base's
//! documents, add documents the parent picked or dropped (handed over as
//! bytes: a webview has no paths) with each document's embedding progress
//! streamed over a channel, and remove a document or a whole base — the
//! same `Knowledge` calls as `deskmate kb`.

use deskmate_app::Deskmate;
use deskmate_protocol::files::FileUpload;
use deskmate_protocol::knowledge::{KnowledgeBaseView, KnowledgeDocumentView, KnowledgeProgress};
use tauri::ipc::Channel;
use tauri::State;

use super::{blocking, CmdResult};

#[tauri::command]
pub async fn kb_list(app: State<'_, Deskmate>) -> CmdResult<Vec<KnowledgeBaseView>> {
    blocking(&app, |app| app.knowledge().bases()).await
}

#[tauri::command]
pub async fn kb_documents(
    app: State<'_, Deskmate>,
    base: String,
) -> CmdResult<Vec<KnowledgeDocumentView>> {
    blocking(&app, move |app| app.knowledge().documents(&base)).await
}

/// Adds the files to `base` (made when new); `on_progress` hears each
/// document's embedding, as `deskmate kb add` prints it.
#[tauri::command]
pub async fn kb_add(
    app: State<'_, Deskmate>,
    base: String,
    files: Vec<FileUpload>,
    on_progress: Channel<KnowledgeProgress>,
) -> CmdResult<Vec<KnowledgeDocumentView>> {
    blocking(&app, move |app| {
        app.knowledge().add_uploads(&base, &files, &mut |p| {
            let _ = on_progress.send(p);
        })
    })
    .await
}

/// Removes one document (`source`) of `base`, or the whole base; answers
/// how many documents went.
#[tauri::command]
pub async fn kb_remove(
    app: State<'_, Deskmate>,
    base: String,
    source: Option<String>,
) -> CmdResult<usize> {
    blocking(&app, move |app| {
        app.knowledge().remove(&base, source.as_deref())
    })
    .await
}
