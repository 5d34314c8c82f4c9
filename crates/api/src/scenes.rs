//! The orchestrator's one entry and the recitation check over HTTP:
//! `POST /orchestrator/process` sends what a child typed (or photos of
//! homework, base64 as the window sends them, or a form with a recording
//! or a photo) through `Deskmate::process` / `process_voice` /
//! `process_photo_uploads` and answers the entry's response;
//! `POST /recitation/check` checks a transcript against a material (or a
//! text) synchronously, the pure function `deskmate recite check` runs, or
//! a recording uploaded in a form with the function `deskmate recite
//! audio` runs (`Deskmate::check_recording`'s parts), answering what its
//! `--json` prints. The recitation tasks ([`crate::recitation_tasks`]) run
//! the same [`Prepared`] checks in the background.

use axum::extract::State;
use axum::Json;
use deskmate_app::photos::PhotoUpload;
use deskmate_app::recite::{check, Judgement, Mode, Reference, Transcript, DEFAULT_PASS_THRESHOLD};
use deskmate_app::recording::{CheckPhase, ReadyCheck, Recording, RecordingCheck};
use deskmate_app::Deskmate;
use serde::Deserialize;
use serde_json::Value;

use crate::error::{ApiError, ApiResult};
use crate::upload::{missing, Form, JsonOrForm, Written};
use crate::{blocking, Api};

/// The largest body `POST /orchestrator/process` reads: four photos of at
/// most 10 MB each, in base64, with room for the rest.
pub const MAX_PHOTOS_BODY_BYTES: usize = 56 * 1024 * 1024;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub(crate) struct Process {
    /// The child (profile id or name).
    profile: String,
    #[serde(default)]
    text: String,
    #[serde(default)]
    photos: Vec<PhotoUpload>,
}

/// The file fields `POST /orchestrator/process` reads in a form.
const PROCESS_FILES: &[&str] = &["audio", "image", "photo", "photos"];

/// `POST /orchestrator/process`: JSON `{profile, text, photos?}`, or a
/// form with `profile`, `text` and a recording (`audio`) or photos of
/// homework (`image`, `photo` or `photos`, up to four).
pub(crate) async fn process(
    State(api): State<Api>,
    body: JsonOrForm<Process>,
) -> ApiResult<Json<crate::wire::CoreAnswer>> {
    let response = match body {
        JsonOrForm::Json(body) => {
            if body.text.trim().is_empty() && body.photos.is_empty() {
                return Err(ApiError::invalid(
                    "say something: give text, or photos of homework",
                ));
            }
            blocking(&api.app, move |app| {
                let child = app
                    .find_profile(&body.profile)
                    .map_err(deskmate_app::AppError::from)?;
                Ok(if body.photos.is_empty() {
                    app.process(&child.id, &body.text)?
                } else {
                    app.process_photo_uploads(&child.id, &body.photos, &body.text)?
                })
            })
            .await?
        }
        JsonOrForm::Form(form) => process_form(&api, form).await?,
    };
    let response = serde_json::to_value(&response)
        .map_err(|e| ApiError::internal(format!("cannot write the response: {e}")))?;
    Ok(Json(crate::wire::CoreAnswer(response)))
}

async fn process_form(
    api: &Api,
    form: Form,
) -> ApiResult<deskmate_app::orchestrator::entry::Response> {
    if let Some(field) = form.unknown_file(PROCESS_FILES) {
        return Err(ApiError::invalid(format!(
            "the form's file field {field:?} is not read here: send a recording as audio or a photo as image"
        )));
    }
    let profile = form
        .text("profile")
        .ok_or_else(|| ApiError::invalid("the form has no profile (the child's id or name)"))?;
    let text = form.text("text").unwrap_or_default();
    let audio = form.file("audio", "recording")?;
    let photos = form.files(&["image", "photo", "photos"]);
    match (audio, photos.is_empty()) {
        (Some(_), false) => Err(ApiError::invalid(
            "send a recording or photos, one at a time",
        )),
        (Some(audio), true) => {
            blocking(&api.app, move |app| {
                let child = app
                    .find_profile(&profile)
                    .map_err(deskmate_app::AppError::from)?;
                let file = Written::new(&app.config().data_dir, &audio)?;
                // A file that is no recording is refused here, before the
                // entry logs anything.
                Recording::read(file.path()).map_err(|e| file.named(e.into()))?;
                app.process_voice(&child.id, file.path())
                    .map_err(|e| file.named(e.into()))
            })
            .await
        }
        (None, false) => {
            blocking(&api.app, move |app| {
                let child = app
                    .find_profile(&profile)
                    .map_err(deskmate_app::AppError::from)?;
                let bytes: Vec<Vec<u8>> = photos.iter().map(|p| p.bytes.to_vec()).collect();
                Ok(app.process_photo_bytes(&child.id, &bytes, &text)?)
            })
            .await
        }
        (None, true) if text.is_empty() => Err(missing(
            "audio",
            "recording (or photo in the image field, or text)",
        )),
        (None, true) => {
            blocking(&api.app, move |app| {
                let child = app
                    .find_profile(&profile)
                    .map_err(deskmate_app::AppError::from)?;
                Ok(app.process(&child.id, &text)?)
            })
            .await
        }
    }
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
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

/// The file fields a recitation form reads.
const CHECK_FILES: &[&str] = &["audio"];

/// A recitation check whose input was read and found usable: a transcript
/// to compare, or a recording decoded and ready to hear and judge.
pub(crate) enum Prepared {
    Text {
        reference: Reference,
        transcript: String,
        mode: Mode,
        threshold: f64,
    },
    Recording {
        ready: Box<ReadyCheck>,
        recording: Recording,
    },
}

impl std::fmt::Debug for Prepared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Text { .. } => f.write_str("Prepared::Text"),
            Self::Recording { .. } => f.write_str("Prepared::Recording"),
        }
    }
}

impl Prepared {
    /// Whether the check records an attempt (a recording for a child).
    pub fn records(&self) -> bool {
        matches!(self, Self::Recording { ready, .. } if ready.records())
    }

    /// Runs the check (a recording: seconds, so off the executor),
    /// reporting each phase as it starts: the verdict as JSON.
    pub fn run(self, app: &Deskmate, progress: &mut dyn FnMut(CheckPhase)) -> ApiResult<Value> {
        let answer = match self {
            Self::Text {
                reference,
                transcript,
                mode,
                threshold,
            } => {
                progress(CheckPhase::Judging);
                let verdict = check(&reference, &Transcript::new(transcript), mode)
                    .map_err(deskmate_app::AppError::from)?;
                serde_json::to_value(Judgement::new(&reference, verdict, threshold))
            }
            Self::Recording { ready, recording } => {
                serde_json::to_value(ready.judge(app, recording, progress)?)
            }
        };
        answer.map_err(|e| ApiError::internal(format!("cannot write the verdict: {e}")))
    }
}

/// Reads a check request (JSON, or a form with the recording) and refuses
/// what cannot be checked — no material or reference, an unknown child, a
/// file that is no recording — before anything slow starts or anything is
/// stored.
pub(crate) async fn prepare(api: &Api, body: JsonOrForm<CheckRequest>) -> ApiResult<Prepared> {
    match body {
        JsonOrForm::Json(body) => {
            let threshold = body.pass_threshold.unwrap_or(DEFAULT_PASS_THRESHOLD);
            if !(0.0..=100.0).contains(&threshold) {
                return Err(ApiError::invalid("pass_threshold is between 0 and 100"));
            }
            blocking(&api.app, move |app| {
                let text =
                    match (&body.material, &body.reference) {
                        (Some(key), None) => {
                            app.find_material(key)
                                .map_err(deskmate_app::AppError::from)?
                                .body
                        }
                        (None, Some(text)) => text.clone(),
                        _ => return Err(ApiError::invalid(
                            "give the material (id or title) or the reference text, one of them",
                        )),
                    };
                let mode: Mode = body
                    .mode
                    .as_deref()
                    .unwrap_or("text")
                    .parse()
                    .map_err(deskmate_app::AppError::from)?;
                let reference =
                    Reference::new(&text, None).map_err(deskmate_app::AppError::from)?;
                Ok(Prepared::Text {
                    reference,
                    transcript: body.transcript,
                    mode,
                    threshold,
                })
            })
            .await
        }
        JsonOrForm::Form(form) => {
            if let Some(field) = form.unknown_file(CHECK_FILES) {
                return Err(ApiError::invalid(format!(
                    "the form's file field {field:?} is not read here: send the recording as audio"
                )));
            }
            let ask = RecordingCheck {
                material: form.text("material"),
                reference: form.text("reference"),
                profile: form.text("profile"),
                lang: form.text("lang"),
                pass_threshold: form.number("pass_threshold")?,
                full_audio_ctx: false,
            };
            let audio = form
                .file("audio", "recording")?
                .ok_or_else(|| missing("audio", "recording (WAV, FLAC, MP3 or Ogg)"))?;
            blocking(&api.app, move |app| {
                let ready = app.recording_check(&ask)?;
                let file = Written::new(&app.config().data_dir, &audio)?;
                let recording = Recording::read(file.path()).map_err(|e| file.named(e.into()))?;
                Ok(Prepared::Recording {
                    ready: Box::new(ready),
                    recording,
                })
            })
            .await
        }
    }
}

/// `POST /recitation/check`: a transcript's verdict (accuracy, typed
/// errors, lines, `passed`, the feedback), or a recording's as `deskmate
/// recite audio --json` prints it.
pub(crate) async fn recitation_check(
    State(api): State<Api>,
    body: JsonOrForm<CheckRequest>,
) -> ApiResult<Json<crate::wire::CoreAnswer>> {
    let prepared = prepare(&api, body).await?;
    let answer = blocking(&api.app, move |app| prepared.run(&app, &mut |_| {})).await?;
    Ok(Json(crate::wire::CoreAnswer(answer)))
}
