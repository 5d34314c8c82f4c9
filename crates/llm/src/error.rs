//! Typed model-call errors: each says in plain words what went wrong, and
//! whether trying again may help.

use std::time::Duration;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LlmError {
    #[error("{0}")]
    Config(String),
    #[error("the model provider refused the API key (HTTP {status}): {message}. Check the key in Settings or {env}", env = crate::API_KEY_ENV)]
    Auth { status: u16, message: String },
    #[error("the model provider is rate limiting requests{}: {message}", retry_after.map(|d| format!(" (retry after {:.1} s)", d.as_secs_f64())).unwrap_or_default())]
    RateLimited {
        retry_after: Option<Duration>,
        message: String,
    },
    #[error("the account has no quota left with the model provider: {message}")]
    Quota { message: String },
    #[error("the conversation is too long for the model's context window: {message}")]
    ContextOverflow { message: String },
    #[error("the model or endpoint was not found (HTTP 404; check the model name and base URL): {message}")]
    NotFound { message: String },
    #[error("the model provider rejected the request (HTTP {status}): {message}")]
    BadRequest { status: u16, message: String },
    #[error("the model provider had a server error (HTTP {status}): {message}")]
    Server { status: u16, message: String },
    #[error("cannot reach the model provider: {0}")]
    Network(String),
    /// The server sent nothing for this long: no response headers, no
    /// error body, or no next piece of the stream.
    #[error("the model server sent nothing for {}; gave up waiting", seconds(*.0))]
    IdleTimeout(Duration),
    #[error("the model server sent a reply Deskmate cannot read: {0}")]
    Protocol(String),
}

/// `90 s`, or `0.3 s` below a second.
fn seconds(d: Duration) -> String {
    if d.subsec_millis() == 0 && d.as_secs() > 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}

impl LlmError {
    /// Whether the same request may succeed if sent again.
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            LlmError::RateLimited { .. }
                | LlmError::Server { .. }
                | LlmError::Network(_)
                | LlmError::IdleTimeout(_)
        )
    }

    /// A short stable code, for events and stored rows.
    pub fn code(&self) -> &'static str {
        match self {
            LlmError::Config(_) => "config",
            LlmError::Auth { .. } => "auth",
            LlmError::RateLimited { .. } => "rate_limited",
            LlmError::Quota { .. } => "quota",
            LlmError::ContextOverflow { .. } => "context_overflow",
            LlmError::NotFound { .. } => "not_found",
            LlmError::BadRequest { .. } => "bad_request",
            LlmError::Server { .. } => "server",
            LlmError::Network(_) => "network",
            LlmError::IdleTimeout(_) => "idle_timeout",
            LlmError::Protocol(_) => "protocol",
        }
    }

    /// Builds the error for an HTTP error status and its body.
    /// [`code`](Self::code) as it leaves the core: `llm.` + the code
    /// (`llm.auth`, `llm.rate_limited`, …), so it cannot be mistaken for
    /// another crate's `config` or `not_found`.
    pub fn wire_code(&self) -> &'static str {
        match self {
            LlmError::Config(_) => "llm.config",
            LlmError::Auth { .. } => "llm.auth",
            LlmError::RateLimited { .. } => "llm.rate_limited",
            LlmError::Quota { .. } => "llm.quota",
            LlmError::ContextOverflow { .. } => "llm.context_overflow",
            LlmError::NotFound { .. } => "llm.not_found",
            LlmError::BadRequest { .. } => "llm.bad_request",
            LlmError::Server { .. } => "llm.server",
            LlmError::Network(_) => "llm.network",
            LlmError::IdleTimeout(_) => "llm.idle_timeout",
            LlmError::Protocol(_) => "llm.protocol",
        }
    }

    /// Every code [`wire_code`](Self::wire_code) can return.
    pub const WIRE_CODES: &'static [&'static str] = &[
        "llm.config",
        "llm.auth",
        "llm.rate_limited",
        "llm.quota",
        "llm.context_overflow",
        "llm.not_found",
        "llm.bad_request",
        "llm.server",
        "llm.network",
        "llm.idle_timeout",
        "llm.protocol",
    ];

    pub(crate) fn from_status(status: u16, retry_after: Option<Duration>, body: &str) -> Self {
        let (message, code) = error_message(body);
        let lower = format!("{message} {code}").to_lowercase();
        let context = [
            "context_length",
            "context length",
            "maximum context",
            "prompt is too long",
            "too many tokens",
            "context window",
        ]
        .iter()
        .any(|k| lower.contains(k));
        match status {
            401 | 403 => LlmError::Auth { status, message },
            429 if code == "insufficient_quota" => LlmError::Quota { message },
            429 => LlmError::RateLimited {
                retry_after,
                message,
            },
            404 => LlmError::NotFound { message },
            400 | 413 | 422 if context => LlmError::ContextOverflow { message },
            413 => LlmError::ContextOverflow { message },
            500..=599 => LlmError::Server { status, message },
            _ => LlmError::BadRequest { status, message },
        }
    }

    /// The same error with every occurrence of `secret` replaced.
    pub(crate) fn redacted(self, secret: Option<&str>) -> Self {
        let Some(secret) = secret else { return self };
        let r = |s: String| crate::credentials::redact(&s, secret);
        match self {
            LlmError::Config(m) => LlmError::Config(r(m)),
            LlmError::Auth { status, message } => LlmError::Auth {
                status,
                message: r(message),
            },
            LlmError::RateLimited {
                retry_after,
                message,
            } => LlmError::RateLimited {
                retry_after,
                message: r(message),
            },
            LlmError::Quota { message } => LlmError::Quota {
                message: r(message),
            },
            LlmError::ContextOverflow { message } => LlmError::ContextOverflow {
                message: r(message),
            },
            LlmError::NotFound { message } => LlmError::NotFound {
                message: r(message),
            },
            LlmError::BadRequest { status, message } => LlmError::BadRequest {
                status,
                message: r(message),
            },
            LlmError::Server { status, message } => LlmError::Server {
                status,
                message: r(message),
            },
            LlmError::Network(m) => LlmError::Network(r(m)),
            LlmError::IdleTimeout(d) => LlmError::IdleTimeout(d),
            LlmError::Protocol(m) => LlmError::Protocol(r(m)),
        }
    }
}

/// The human message and machine code of an error body in either wire
/// format (`{"error": {"message", "type"/"code"}}`), else the raw text cut short.
pub(crate) fn error_message(body: &str) -> (String, String) {
    if let Ok(v) = serde_json::from_str::<serde_json::Value>(body) {
        let err = v.get("error").unwrap_or(&v);
        let message = err
            .get("message")
            .and_then(|m| m.as_str())
            .map(str::to_string)
            .or_else(|| err.as_str().map(str::to_string));
        let code = err
            .get("code")
            .and_then(|c| c.as_str())
            .or_else(|| err.get("type").and_then(|c| c.as_str()))
            .unwrap_or_default()
            .to_string();
        if let Some(message) = message {
            return (message, code);
        }
    }
    let trimmed: String = body.trim().chars().take(500).collect();
    (
        if trimmed.is_empty() {
            "(no details)".to_string()
        } else {
            trimmed
        },
        String::new(),
    )
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn statuses_map_to_kinds() {
        assert!(matches!(
            LlmError::from_status(401, None, "{}"),
            LlmError::Auth { .. }
        ));
        let e = LlmError::from_status(
            429,
            Some(Duration::from_secs(2)),
            r#"{"error":{"message":"slow down"}}"#,
        );
        assert_eq!(
            e,
            LlmError::RateLimited {
                retry_after: Some(Duration::from_secs(2)),
                message: "slow down".into()
            }
        );
        assert!(e.is_retryable());
        let q = LlmError::from_status(
            429,
            None,
            r#"{"error":{"message":"no money","code":"insufficient_quota"}}"#,
        );
        assert!(matches!(q, LlmError::Quota { .. }) && !q.is_retryable());
        let ctx = r#"{"error":{"message":"This model's maximum context length is 8192 tokens","code":"context_length_exceeded"}}"#;
        assert!(matches!(
            LlmError::from_status(400, None, ctx),
            LlmError::ContextOverflow { .. }
        ));
        let anth = r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}"#;
        assert!(matches!(
            LlmError::from_status(400, None, anth),
            LlmError::ContextOverflow { .. }
        ));
        assert!(matches!(
            LlmError::from_status(400, None, "bad"),
            LlmError::BadRequest { status: 400, .. }
        ));
        assert!(matches!(
            LlmError::from_status(503, None, "down"),
            LlmError::Server { status: 503, .. }
        ));
        assert!(matches!(
            LlmError::from_status(529, None, "overloaded"),
            LlmError::Server { status: 529, .. }
        ));
        assert!(!LlmError::from_status(400, None, "bad").is_retryable());
    }

    #[test]
    fn wire_codes_are_the_codes_under_llm() {
        let all = [
            LlmError::Config("x".into()),
            LlmError::Auth {
                status: 401,
                message: "m".into(),
            },
            LlmError::RateLimited {
                retry_after: None,
                message: "m".into(),
            },
            LlmError::Quota {
                message: "m".into(),
            },
            LlmError::ContextOverflow {
                message: "m".into(),
            },
            LlmError::NotFound {
                message: "m".into(),
            },
            LlmError::BadRequest {
                status: 400,
                message: "m".into(),
            },
            LlmError::Server {
                status: 500,
                message: "m".into(),
            },
            LlmError::Network("m".into()),
            LlmError::IdleTimeout(Duration::from_secs(1)),
            LlmError::Protocol("m".into()),
        ];
        let wire: Vec<_> = all.iter().map(LlmError::wire_code).collect();
        assert_eq!(wire, LlmError::WIRE_CODES);
        for e in &all {
            assert_eq!(e.wire_code(), format!("llm.{}", e.code()));
        }
    }

    #[test]
    fn idle_timeouts_say_how_long() {
        assert_eq!(
            LlmError::IdleTimeout(Duration::from_secs(90)).to_string(),
            "the model server sent nothing for 90 s; gave up waiting"
        );
        assert!(LlmError::IdleTimeout(Duration::from_millis(300))
            .to_string()
            .contains("0.3 s"));
    }

    #[test]
    fn raw_bodies_are_cut_short() {
        let long = "x".repeat(2000);
        let (m, _) = error_message(&long);
        assert_eq!(m.len(), 500);
        assert_eq!(error_message("").0, "(no details)");
    }
}
