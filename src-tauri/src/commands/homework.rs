//! Photos of homework from the window, through the one entry.
//!
//! The webview hands the photos over as bytes: the child picks or takes
//! them with an `<input type="file" accept="image/*" capture="environment">`
//! (no dialog plugin: the app has none, and on a tablet the same input
//! opens the camera), the page reads each file and sends it base64-encoded.
//! The core (`Deskmate::process_photo_uploads`) decodes them, writes them to
//! `inbox/` in the data directory, checks each by its bytes and size
//! (refusing with a coded error) and removes them again whatever the
//! outcome; this command only hands them over.

use deskmate_app::photos::PhotoUpload;
use deskmate_app::Deskmate;
use tauri::State;

use super::{blocking, CmdResult};

/// Photos of a worksheet (with any words typed along) through the one
/// entry; the same response as `say`, with the homework card. Decoding,
/// the inbox and the clean-up are the core's
/// (`Deskmate::process_photo_uploads`), shared with the HTTP API.
#[tauri::command]
pub async fn say_photos(
    app: State<'_, Deskmate>,
    profile_id: String,
    photos: Vec<PhotoUpload>,
    text: String,
) -> CmdResult<deskmate_app::orchestrator::entry::Response> {
    blocking(&app, move |app| {
        app.process_photo_uploads(&profile_id, &photos, &text)
    })
    .await
}
