//! Who may talk to the API: a token on every route but `GET /ok` (sent as
//! `Authorization: Bearer …` or `x-api-key: …`, which the LangGraph SDK
//! sends), and a `Host` header naming this machine (no DNS rebinding: a web
//! page that points a name of its own at 127.0.0.1 is refused). The token
//! comes from `DESKMATE_API_TOKEN`, else from `<data dir>/api-token`,
//! generated on first use with mode 0600.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rand::RngCore;

use crate::error::ApiError;

/// The environment variable that sets the token.
pub const TOKEN_ENV: &str = "DESKMATE_API_TOKEN";
/// The token's file in the data directory.
pub const TOKEN_FILE: &str = "api-token";

/// The token and the host names the server answers to.
#[derive(Debug, Clone)]
pub struct Security {
    token: Arc<str>,
    hosts: Arc<[String]>,
}

impl Security {
    /// `token` is required on every route but `GET /ok`; `host` is the
    /// address the server listens on: loopback names are always accepted in
    /// the `Host` header, and `host` itself when it is another name.
    pub fn new(token: &str, host: &str) -> Self {
        let mut hosts: Vec<String> = ["localhost", "127.0.0.1", "[::1]", "::1"]
            .iter()
            .map(|h| h.to_string())
            .collect();
        let own = host.trim().to_ascii_lowercase();
        if !own.is_empty() && !hosts.contains(&own) {
            hosts.push(if own.contains(':') && !own.starts_with('[') {
                format!("[{own}]")
            } else {
                own
            });
        }
        Self {
            token: Arc::from(token),
            hosts: hosts.into(),
        }
    }

    /// Whether a `Host` header (with or without a port) names this server.
    pub fn host_allowed(&self, value: &str) -> bool {
        let value = value.trim().to_ascii_lowercase();
        let name = if value.starts_with('[') {
            // [::1]:8123 → [::1]
            match value.find(']') {
                Some(end) => &value[..=end],
                None => return false,
            }
        } else {
            match value.rsplit_once(':') {
                Some((name, port)) if port.chars().all(|c| c.is_ascii_digit()) => name,
                _ => value.as_str(),
            }
        };
        self.hosts.iter().any(|h| h == name)
    }

    /// Whether `given` is the token (compared in constant time).
    pub fn token_matches(&self, given: &str) -> bool {
        let (a, b) = (self.token.as_bytes(), given.as_bytes());
        if a.len() != b.len() {
            return false;
        }
        a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
    }
}

/// The token: `DESKMATE_API_TOKEN` when set and not empty, else the one in
/// `<data dir>/api-token`, created (64 hex digits, mode 0600) when missing.
pub fn load_or_create_token(data_dir: &Path) -> std::io::Result<String> {
    if let Ok(t) = std::env::var(TOKEN_ENV) {
        if !t.trim().is_empty() {
            return Ok(t.trim().to_string());
        }
    }
    let path = data_dir.join(TOKEN_FILE);
    match std::fs::read_to_string(&path) {
        Ok(t) if !t.trim().is_empty() => return Ok(t.trim().to_string()),
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    let mut bytes = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    let token = hex::encode(bytes);
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut opts, 0o600);
    let mut f = opts.open(&path)?;
    f.write_all(token.as_bytes())?;
    f.write_all(b"\n")?;
    f.sync_all()?;
    Ok(token)
}

/// Refuses a foreign `Host` (400 `host.refused`), then a missing or wrong
/// token (401 `auth.missing` / `auth.wrong_token`) on every route but
/// `GET /ok`.
pub async fn guard(State(sec): State<Security>, req: Request, next: Next) -> Response {
    let host = req
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
    if !sec.host_allowed(host) {
        return ApiError::new(
            StatusCode::BAD_REQUEST,
            "host.refused",
            format!("this server answers to localhost only, not to the host {host:?}"),
        )
        .into_response();
    }
    if req.uri().path() == "/ok" && req.method() == axum::http::Method::GET {
        return next.run(req).await;
    }
    let bearer = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|h| h.to_str().ok())
        .and_then(|h| {
            h.strip_prefix("Bearer ")
                .or_else(|| h.strip_prefix("bearer "))
        })
        .map(str::trim);
    let key = req
        .headers()
        .get("x-api-key")
        .and_then(|h| h.to_str().ok())
        .map(str::trim);
    let given =
        match (bearer, key) {
            (Some(t), _) | (None, Some(t)) => t,
            (None, None) => return ApiError::new(
                StatusCode::UNAUTHORIZED,
                "auth.missing",
                "this API needs a token: send `Authorization: Bearer TOKEN` or `x-api-key: TOKEN` \
                 (see `deskmate serve --print-token`)",
            )
            .into_response(),
        };
    if !sec.token_matches(given) {
        return ApiError::new(
            StatusCode::UNAUTHORIZED,
            "auth.wrong_token",
            "the token is not this server's (see `deskmate serve --print-token`)",
        )
        .into_response();
    }
    next.run(req).await
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn loopback_names_pass_and_others_do_not() {
        let sec = Security::new("t", "127.0.0.1");
        for ok in [
            "localhost:8123",
            "127.0.0.1:8123",
            "[::1]:8123",
            "LOCALHOST",
            "127.0.0.1",
        ] {
            assert!(sec.host_allowed(ok), "{ok}");
        }
        for bad in ["evil.example:8123", "", "127.0.0.1.evil.example", "[::1"] {
            assert!(!sec.host_allowed(bad), "{bad}");
        }
        let lan = Security::new("t", "192.168.1.20");
        assert!(lan.host_allowed("192.168.1.20:8123"));
        assert!(!lan.host_allowed("evil.example"));
    }

    #[test]
    fn the_token_file_is_made_once_and_private() {
        let dir = tempfile::tempdir().unwrap();
        // Only when the environment does not set one.
        if std::env::var(TOKEN_ENV).is_ok() {
            return;
        }
        let first = load_or_create_token(dir.path()).unwrap();
        assert_eq!(first.len(), 64);
        assert_eq!(load_or_create_token(dir.path()).unwrap(), first);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.path().join(TOKEN_FILE))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let sec = Security::new(&first, "127.0.0.1");
        assert!(sec.token_matches(&first));
        assert!(!sec.token_matches("nope"));
    }
}
