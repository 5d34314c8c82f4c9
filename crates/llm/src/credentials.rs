//! API keys: kept in the OS keyring (service `deskmate`, entry
//! `llm:<provider>`), overridden by an environment variable for headless
//! use, never printed — [`ApiKey`]'s `Debug` hides it and [`redact`] scrubs
//! it from any text that might be logged or stored.

use std::fmt;

use deskmate_secrets::{Secret, SecretError};

use crate::LlmError;

/// Keyring service under which Deskmate keeps its secrets.
pub use deskmate_secrets::SERVICE as KEYRING_SERVICE;
/// Environment variable that overrides the stored API key.
pub const API_KEY_ENV: &str = "DESKMATE_LLM_API_KEY";

/// A secret API key. Its `Debug` and `Display` never show it.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    pub fn new(key: impl Into<String>) -> Result<Self, LlmError> {
        let key = key.into().trim().to_string();
        if key.is_empty() {
            return Err(LlmError::Config("the API key is empty".into()));
        }
        if key.chars().any(|c| c.is_control() || c.is_whitespace()) {
            return Err(LlmError::Config(
                "the API key contains spaces or control characters; paste it again".into(),
            ));
        }
        Ok(Self(key))
    }

    /// The key itself, for the request header only.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey([redacted])")
    }
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}

/// Where a key came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum KeySource {
    Env,
    Keyring,
}

pub use deskmate_secrets::redact;

/// The keyring location of API keys, with the environment override.
#[derive(Debug, Clone)]
pub struct KeyStore {
    service: String,
    env_var: String,
}

impl Default for KeyStore {
    fn default() -> Self {
        Self::new(KEYRING_SERVICE, API_KEY_ENV)
    }
}

impl KeyStore {
    pub fn new(service: &str, env_var: &str) -> Self {
        Self {
            service: service.to_string(),
            env_var: env_var.to_string(),
        }
    }

    fn secret(&self, provider: &str) -> Secret {
        Secret::in_service(&self.service, format!("llm:{provider}"))
    }

    /// The key for `provider`: the environment variable first, then the
    /// keyring. A keyring that cannot be reached (or does not answer in
    /// time) counts as no key (the caller then explains how to set one).
    pub fn resolve(&self, provider: &str) -> Option<(ApiKey, KeySource)> {
        if let Ok(v) = std::env::var(&self.env_var) {
            if let Ok(k) = ApiKey::new(v) {
                return Some((k, KeySource::Env));
            }
        }
        match self.stored(provider) {
            Ok(key) => key.map(|k| (k, KeySource::Keyring)),
            Err(e) => {
                tracing::warn!("cannot read the API key for {provider}: {e}");
                None
            }
        }
    }

    /// The key kept for `provider` in the keyring alone (the environment
    /// is not read): `None` when there is none, or what is kept is not a
    /// key. The error tells a keyring that did not answer from one that
    /// cannot be used.
    pub fn stored(&self, provider: &str) -> Result<Option<ApiKey>, SecretError> {
        Ok(self
            .secret(provider)
            .get()?
            .and_then(|v| ApiKey::new(v).ok()))
    }

    /// Saves `key` for `provider` in the OS keyring.
    pub fn save(&self, provider: &str, key: &ApiKey) -> Result<(), LlmError> {
        self.secret(provider)
            .set(key.expose())
            .map_err(|e| LlmError::Config(format!("cannot save the API key: {e}")))
    }

    /// Removes the key for `provider`; removing a missing key is not an error.
    pub fn delete(&self, provider: &str) -> Result<(), LlmError> {
        self.secret(provider)
            .delete()
            .map_err(|e| LlmError::Config(format!("cannot remove the API key: {e}")))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn keys_never_show_in_debug_or_display() {
        let k = ApiKey::new("sk-live-very-secret-123").unwrap();
        assert!(!format!("{k:?}").contains("secret"));
        assert!(!format!("{k}").contains("secret"));
        assert_eq!(k.expose(), "sk-live-very-secret-123");
        assert_eq!(
            redact("Bearer sk-live-very-secret-123 was bad", k.expose()),
            "Bearer [redacted] was bad"
        );
        assert!(ApiKey::new("  ").is_err());
        assert!(ApiKey::new("a b").is_err());
    }
}
