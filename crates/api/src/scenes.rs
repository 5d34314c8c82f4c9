//! The orchestrator's one entry and the recitation check over HTTP:
//! `POST /orchestrator/process` sends what a child typed (or photos of
//! homework, base64 as the window sends them) through `Deskmate::process`
//! / `Deskmate::process_photo_uploads` and answers the entry's response;
//! `POST /recitation/check` checks a transcript against a material (or a
//! text) synchronously, the pure function `deskmate recite check` runs.

use axum::extract::State;
use axum::Json;
use deskmate_app::photos::PhotoUpload;
use deskmate_app::recite::{check, Judgement, Mode, Reference, Transcript, DEFAULT_PASS_THRESHOLD};
use serde::Deserialize;
use serde_json::Value;

use crate::error::{ApiError, ApiJson, ApiResult};
use crate::{blocking, Api};

/// The largest body `POST /orchestrator/process` reads: four photos of at
/// most 10 MB each, in base64, with room for the rest.
pub const MAX_PHOTOS_BODY_BYTES: usize = 56 * 1024 * 1024;

#[derive(Debug, Deserialize)]
pub(crate) struct Process {
    /// The child (profile id or name).
    profile: String,
    #[serde(default)]
    text: String,
    #[serde(default)]
    photos: Vec<PhotoUpload>,
}

/// `POST /orchestrator/process`.
pub(crate) async fn process(
    State(api): State<Api>,
    ApiJson(body): ApiJson<Process>,
) -> ApiResult<Json<Value>> {
    if body.text.trim().is_empty() && body.photos.is_empty() {
        return Err(ApiError::invalid(
            "say something: give text, or photos of homework",
        ));
    }
    let response = blocking(&api.app, move |app| {
        let child = app
            .find_profile(&body.profile)
            .map_err(deskmate_app::AppError::from)?;
        let response = if body.photos.is_empty() {
            app.process(&child.id, &body.text)?
        } else {
            app.process_photo_uploads(&child.id, &body.photos, &body.text)?
        };
        serde_json::to_value(&response)
            .map_err(|e| ApiError::internal(format!("cannot write the response: {e}")))
    })
    .await?;
    Ok(Json(response))
}

#[derive(Debug, Deserialize)]
pub(crate) struct CheckRequest {
    /// A material by id or title; or `reference`, the text itself.
    #[serde(default)]
    material: Option<String>,
    #[serde(default)]
    reference: Option<String>,
    /// What the child said or wrote.
    transcript: String,
    /// `text` (默写, the default) or `voice`.
    #[serde(default)]
    mode: Option<String>,
    #[serde(default)]
    pass_threshold: Option<f64>,
}

/// `POST /recitation/check`: the verdict, whether it passes, the feedback.
pub(crate) async fn recitation_check(
    State(api): State<Api>,
    ApiJson(body): ApiJson<CheckRequest>,
) -> ApiResult<Json<Judgement>> {
    let threshold = body.pass_threshold.unwrap_or(DEFAULT_PASS_THRESHOLD);
    if !(0.0..=100.0).contains(&threshold) {
        return Err(ApiError::invalid("pass_threshold is between 0 and 100"));
    }
    let judged = blocking(&api.app, move |app| {
        let text = match (&body.material, &body.reference) {
            (Some(key), None) => {
                app.find_material(key)
                    .map_err(deskmate_app::AppError::from)?
                    .body
            }
            (None, Some(text)) => text.clone(),
            _ => {
                return Err(ApiError::invalid(
                    "give the material (id or title) or the reference text, one of them",
                ))
            }
        };
        let mode: Mode = body
            .mode
            .as_deref()
            .unwrap_or("text")
            .parse()
            .map_err(deskmate_app::AppError::from)?;
        let reference = Reference::new(&text, None).map_err(deskmate_app::AppError::from)?;
        let verdict = check(&reference, &Transcript::new(body.transcript), mode)
            .map_err(deskmate_app::AppError::from)?;
        Ok(Judgement::new(&reference, verdict, threshold))
    })
    .await?;
    Ok(Json(judged))
}
