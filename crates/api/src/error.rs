//! Errors as the API answers them: `{code, message}` with an HTTP status.
//! The code is the core's own (`AppError::code()`: `not_found`,
//! `chat.busy`, `llm.no_model`, …) or one of the API's (`auth.missing`,
//! `auth.wrong_token`, `host.refused`, `body.too_large`, `body.malformed`,
//! `invalid`); the status follows from the code.

use axum::extract::rejection::JsonRejection;
use axum::extract::{FromRequest, Request};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use deskmate_app::AppError;
use serde::Serialize;

/// A failed request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ApiError {
    #[serde(skip)]
    pub status: StatusCode,
    pub code: String,
    pub message: String,
}

pub type ApiResult<T> = Result<T, ApiError>;

impl ApiError {
    pub fn new(status: StatusCode, code: &str, message: impl Into<String>) -> Self {
        Self {
            status,
            code: code.to_string(),
            message: message.into(),
        }
    }

    /// A request that cannot be met as asked (422).
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid", message)
    }

    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, "not_found", message)
    }

    pub fn conflict(message: impl Into<String>) -> Self {
        Self::new(StatusCode::CONFLICT, "conflict", message)
    }

    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(StatusCode::INTERNAL_SERVER_ERROR, "error", message)
    }
}

/// The status a core error code is answered with.
pub fn status_of(code: &str) -> StatusCode {
    match code {
        "not_found" | "chat.thread_not_found" => StatusCode::NOT_FOUND,
        "conflict"
        | "chat.busy"
        | "chat.awaiting_approval"
        | "chat.not_resumable"
        | "profile.name_taken"
        | "llm.no_model"
        | "llm.notice_not_agreed"
        | "models.missing"
        | "models.needed"
        | "knowledge.duplicate"
        | "knowledge.built_in"
        | "knowledge.model_missing" => StatusCode::CONFLICT,
        "invalid" | "chat.empty_message" | "plan.goal_unreadable" | "speech.audio" => {
            StatusCode::UNPROCESSABLE_ENTITY
        }
        c if c.ends_with(".not_found") => StatusCode::NOT_FOUND,
        c if c.starts_with("knowledge.") => StatusCode::UNPROCESSABLE_ENTITY,
        c if c.starts_with("homework.")
            && c != "homework.model_failed"
            && c != "homework.model_reply" =>
        {
            StatusCode::UNPROCESSABLE_ENTITY
        }
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

impl From<AppError> for ApiError {
    fn from(e: AppError) -> Self {
        let code = e.code();
        Self::new(status_of(code), code, e.to_string())
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, axum::Json(&self)).into_response()
    }
}

impl From<JsonRejection> for ApiError {
    fn from(r: JsonRejection) -> Self {
        let status = r.status();
        let code = match status {
            StatusCode::PAYLOAD_TOO_LARGE => "body.too_large",
            StatusCode::UNSUPPORTED_MEDIA_TYPE => "body.not_json",
            StatusCode::UNPROCESSABLE_ENTITY => "invalid",
            _ => "body.malformed",
        };
        Self::new(status, code, r.body_text())
    }
}

/// `axum::Json` whose refusals (too large, not JSON, the wrong shape) are
/// answered as `{code, message}` like every other error.
#[derive(Debug, Clone, Copy, Default)]
pub struct ApiJson<T>(pub T);

impl<S, T> FromRequest<S> for ApiJson<T>
where
    axum::Json<T>: FromRequest<S, Rejection = JsonRejection>,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let axum::Json(v) = axum::Json::<T>::from_request(req, state).await?;
        Ok(Self(v))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn codes_map_to_the_documented_statuses() {
        assert_eq!(status_of("not_found"), StatusCode::NOT_FOUND);
        assert_eq!(status_of("chat.thread_not_found"), StatusCode::NOT_FOUND);
        assert_eq!(status_of("chat.busy"), StatusCode::CONFLICT);
        assert_eq!(status_of("invalid"), StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(
            status_of("homework.not_an_image"),
            StatusCode::UNPROCESSABLE_ENTITY
        );
        assert_eq!(
            status_of("homework.model_failed"),
            StatusCode::INTERNAL_SERVER_ERROR
        );
        assert_eq!(status_of("db.error"), StatusCode::INTERNAL_SERVER_ERROR);
        // A recording that cannot be read is the request's fault; speech
        // models missing on the server are its state, like a missing model.
        assert_eq!(status_of("speech.audio"), StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(status_of("models.needed"), StatusCode::CONFLICT);
        assert_eq!(status_of("speech.asr"), StatusCode::INTERNAL_SERVER_ERROR);
    }
}
