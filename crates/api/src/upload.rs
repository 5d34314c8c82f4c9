//! Request bodies that are JSON or a form with files: the recitation check
//! and tasks and the one entry take `application/json` as before, or
//! `multipart/form-data` with a recording (`audio`) or a photo (`image`)
//! beside the same fields as form fields. [`JsonOrForm`] tells them apart
//! by the `Content-Type`; anything else is 415 `body.wrong_type`. A form is
//! read whole into memory, within the route's body limit (413 beyond it).
//!
//! An uploaded file is handed to the core as a file (the core reads
//! recordings by path, as the CLI does): written into a folder of its own
//! under `<data dir>/inbox/` and removed with it when the request is done,
//! whatever the outcome. The core's messages name the file by the name the
//! client gave it, never by the server's path.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use axum::extract::multipart::{Multipart, MultipartError, MultipartRejection};
use axum::extract::{FromRequest, Request};
use axum::http::{header, StatusCode};
use serde::de::DeserializeOwned;

use crate::error::{ApiError, ApiJson, ApiResult};

/// The largest form the recitation routes read: a recording of at most
/// five minutes (the decoder's limit) as WAV at 44.1 kHz stereo, and more.
pub const MAX_UPLOAD_BYTES: usize = 64 * 1024 * 1024;

/// A body as JSON (`T`) or as a form.
#[derive(Debug)]
pub(crate) enum JsonOrForm<T> {
    Json(T),
    Form(Form),
}

/// A form read whole: its text fields and its files.
#[derive(Debug, Default)]
pub(crate) struct Form {
    fields: HashMap<String, String>,
    files: Vec<Upload>,
}

/// One uploaded file: the form field it came in, the client's name for it
/// and its bytes.
#[derive(Debug, Clone)]
pub(crate) struct Upload {
    pub field: String,
    pub name: String,
    pub bytes: axum::body::Bytes,
}

fn multipart_error(e: MultipartError) -> ApiError {
    match e.status() {
        StatusCode::PAYLOAD_TOO_LARGE => ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "body.too_large",
            format!(
                "the form is larger than this route reads ({} MiB)",
                MAX_UPLOAD_BYTES / (1024 * 1024)
            ),
        ),
        _ => ApiError::new(
            StatusCode::BAD_REQUEST,
            "body.malformed",
            format!("the form cannot be read: {}", e.body_text()),
        ),
    }
}

impl<S, T> FromRequest<S> for JsonOrForm<T>
where
    T: DeserializeOwned + Send,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let kind = req
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(|v| v.to_ascii_lowercase())
            .unwrap_or_default();
        let essence = kind.split(';').next().unwrap_or("").trim().to_string();
        if essence == "application/json" || essence.ends_with("+json") {
            let ApiJson(v) = ApiJson::<T>::from_request(req, state).await?;
            return Ok(Self::Json(v));
        }
        if essence != "multipart/form-data" {
            return Err(ApiError::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "body.wrong_type",
                format!(
                    "send JSON (application/json) or a form with the file (multipart/form-data), not {}",
                    if essence.is_empty() { "a body without a Content-Type" } else { essence.as_str() }
                ),
            ));
        }
        let mut multipart =
            Multipart::from_request(req, state)
                .await
                .map_err(|e: MultipartRejection| {
                    ApiError::new(
                        StatusCode::BAD_REQUEST,
                        "body.malformed",
                        format!("the form cannot be read: {}", e.body_text()),
                    )
                })?;
        let mut form = Form::default();
        while let Some(field) = multipart.next_field().await.map_err(multipart_error)? {
            let name = field.name().unwrap_or_default().to_string();
            match field.file_name().map(str::to_string) {
                Some(file_name) => {
                    let bytes = field.bytes().await.map_err(multipart_error)?;
                    form.files.push(Upload {
                        field: name,
                        name: file_name,
                        bytes,
                    });
                }
                None => {
                    let text = field.text().await.map_err(multipart_error)?;
                    form.fields.insert(name, text);
                }
            }
        }
        Ok(Self::Form(form))
    }
}

impl Form {
    /// A text field, trimmed; an empty one counts as absent.
    pub fn text(&self, name: &str) -> Option<String> {
        self.fields
            .get(name)
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
    }

    /// A number field (absent is `None`; not a number is 422).
    pub fn number(&self, name: &str) -> ApiResult<Option<f64>> {
        self.text(name)
            .map(|v| {
                v.parse::<f64>()
                    .map_err(|_| ApiError::invalid(format!("{name} is a number, not {v:?}")))
            })
            .transpose()
    }

    /// The one file sent in field `name` (none, or more than one, is 422).
    pub fn file(&self, name: &str, what: &str) -> ApiResult<Option<Upload>> {
        let mut found = self.files.iter().filter(|f| f.field == name);
        let first = found.next().cloned();
        if found.next().is_some() {
            return Err(ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "upload.too_many",
                format!("send one {what} in the form's {name} field, not several"),
            ));
        }
        Ok(first)
    }

    /// The files sent in any of `names`.
    pub fn files(&self, names: &[&str]) -> Vec<Upload> {
        self.files
            .iter()
            .filter(|f| names.contains(&f.field.as_str()))
            .cloned()
            .collect()
    }

    /// A file field the route does not read, if one was sent (so a typo
    /// such as `audo` is said, not silently ignored).
    pub fn unknown_file(&self, known: &[&str]) -> Option<&str> {
        self.files
            .iter()
            .map(|f| f.field.as_str())
            .find(|f| !known.contains(f))
    }
}

/// The 422 for a form without the file it needs.
pub(crate) fn missing(field: &str, what: &str) -> ApiError {
    ApiError::new(
        StatusCode::UNPROCESSABLE_ENTITY,
        "upload.missing",
        format!("the form has no {what}: send it as a file in the {field} field"),
    )
}

/// An upload written to a folder of its own under `<data dir>/inbox/`,
/// removed (folder and file) when dropped.
#[derive(Debug)]
pub(crate) struct Written {
    dir: tempfile::TempDir,
    path: PathBuf,
    name: String,
}

impl Written {
    /// Writes `upload` under `data_dir/inbox/`, keeping the extension of
    /// the client's file name (the decoder's hint for the format).
    pub fn new(data_dir: &Path, upload: &Upload) -> ApiResult<Self> {
        let inbox = data_dir.join("inbox");
        let unusable = |e: std::io::Error| {
            ApiError::internal(format!(
                "cannot keep the upload in {}: {e}",
                inbox.display()
            ))
        };
        std::fs::create_dir_all(&inbox).map_err(unusable)?;
        let dir = tempfile::Builder::new()
            .prefix("upload-")
            .tempdir_in(&inbox)
            .map_err(unusable)?;
        let ext: String = Path::new(&upload.name)
            .extension()
            .and_then(|e| e.to_str())
            .map(|e| {
                e.chars()
                    .filter(char::is_ascii_alphanumeric)
                    .take(8)
                    .collect()
            })
            .unwrap_or_default();
        let file = if ext.is_empty() {
            "upload".to_string()
        } else {
            format!("upload.{ext}")
        };
        let path = dir.path().join(file);
        std::fs::write(&path, &upload.bytes).map_err(unusable)?;
        let name = Path::new(&upload.name)
            .file_name()
            .and_then(|n| n.to_str())
            .filter(|n| !n.is_empty())
            .unwrap_or("the upload")
            .to_string();
        Ok(Self { dir, path, name })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// `e` with the server's path of the file put as the client's name,
    /// and a recording that cannot be read named when the decoder did not.
    pub fn named(&self, mut e: ApiError) -> ApiError {
        let here = self.path.display().to_string();
        e.message = e.message.replace(&here, &self.name);
        let folder = self.dir.path().display().to_string();
        e.message = e.message.replace(&folder, "the upload's folder");
        if e.code == "speech.audio" && !e.message.contains(&self.name) {
            e.message = format!(
                "{} is not a recording Deskmate can read ({})",
                self.name,
                e.message.trim_end_matches('.')
            );
        }
        e
    }
}
