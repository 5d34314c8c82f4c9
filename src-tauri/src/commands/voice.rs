//! The voice spoken feedback uses: espeak-ng offline, or an
//! OpenAI-compatible speech service a parent sets in Settings (espeak-ng
//! whenever it fails); and a test phrase that says which one spoke.

use deskmate_app::voice_out::{CloudVoice, VoiceTest};
use deskmate_app::Deskmate;
use tauri::State;

use super::{blocking, CmdResult};

#[tauri::command]
pub async fn voice_settings_get(app: State<'_, Deskmate>) -> CmdResult<Option<CloudVoice>> {
    blocking(&app, |app| app.feedback_voice().cloud_voice()).await
}

/// `None` (null) goes back to espeak-ng only.
#[tauri::command]
pub async fn voice_settings_save(
    app: State<'_, Deskmate>,
    cloud: Option<CloudVoice>,
) -> CmdResult<()> {
    blocking(&app, move |app| {
        app.feedback_voice().save_cloud_voice(cloud.as_ref())
    })
    .await
}

/// Speaks a short phrase in `lang` (zh or en) with the configured voice.
#[tauri::command]
pub async fn voice_test(app: State<'_, Deskmate>, lang: String) -> CmdResult<VoiceTest> {
    blocking(&app, move |app| app.feedback_voice().test(&lang)).await
}
