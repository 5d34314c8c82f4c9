//! Photos of homework from the window, through the one entry.
//!
//! The webview hands the photos over as bytes: the child picks or takes
//! them with an `<input type="file" accept="image/*" capture="environment">`
//! (no dialog plugin: the app has none, and on a tablet the same input
//! opens the camera), the page reads each file and sends it base64-encoded.
//! The shell writes them to `inbox/` in the data directory, hands the paths
//! to `Deskmate::process_photos` — which checks each file by its bytes and
//! size and refuses with a coded error — and removes them again whatever
//! the outcome: the entry keeps what it needs, never the photo files.

use std::path::PathBuf;

use base64::Engine;
use deskmate_app::Deskmate;
use deskmate_protocol::WireError;
use serde::Deserialize;
use tauri::State;

use super::{blocking, CmdResult};

/// One photo as the window sends it: the file's name (for the child's
/// sake only; the kind is told by the bytes) and its bytes in base64.
#[derive(Debug, Deserialize)]
pub struct PhotoUpload {
    pub name: String,
    pub data: String,
}

/// Photos of a worksheet (with any words typed along) through the one
/// entry; the same response as `say`, with the homework card.
#[tauri::command]
pub async fn say_photos(
    app: State<'_, Deskmate>,
    profile_id: String,
    photos: Vec<PhotoUpload>,
    text: String,
) -> CmdResult<deskmate_app::orchestrator::entry::Response> {
    let mut bytes = Vec::with_capacity(photos.len());
    for p in &photos {
        let b = base64::engine::general_purpose::STANDARD
            .decode(p.data.as_bytes())
            .map_err(|e| {
                WireError::new(
                    "homework.photo_unreadable",
                    format!("the photo {} cannot be read ({e})", p.name),
                )
            })?;
        bytes.push(b);
    }
    blocking(&app, move |app| {
        let inbox = app.config().data_dir.join("inbox");
        let written = write_photos(&inbox, &bytes);
        let result = match &written {
            Ok(paths) => app.process_photos(&profile_id, paths, &text),
            Err(e) => Err(deskmate_app::AppError::DataDir {
                path: inbox.clone(),
                reason: e.to_string(),
            }),
        };
        if let Ok(paths) = &written {
            for p in paths {
                if let Err(e) = std::fs::remove_file(p) {
                    tracing::warn!("cannot remove the photo {}: {e}", p.display());
                }
            }
        }
        result
    })
    .await
}

/// Writes each photo to a file of its own under `inbox`, named by the
/// moment and its place, so two windows' photos never meet.
fn write_photos(inbox: &std::path::Path, photos: &[Vec<u8>]) -> std::io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(inbox)?;
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    let mut paths = Vec::with_capacity(photos.len());
    for (i, bytes) in photos.iter().enumerate() {
        let path = inbox.join(format!("photo-{stamp}-{}", i + 1));
        if let Err(e) = std::fs::write(&path, bytes) {
            for p in &paths {
                let _ = std::fs::remove_file(p);
            }
            return Err(e);
        }
        paths.push(path);
    }
    Ok(paths)
}
