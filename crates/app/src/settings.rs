//! The device's settings, each key defined once: the model provider
//! (`llm.*`), the feedback voice (`voice.cloud`), the window's language
//! (`ui.locale`) and the OpenTelemetry collector request traces go to
//! (`traces.otlp_endpoint`). Values are JSON in the store's `settings` table; secrets
//! never are (API keys live in the OS keyring).

use crate::{AppError, AppResult, Deskmate};
use deskmate_store::StoreError;

/// The chat model, `provider:model` (e.g. `openai:gpt-4o-mini`).
pub const LLM_MODEL: &str = "llm.model";
/// The provider's base URL, when not its default.
pub const LLM_BASE_URL: &str = "llm.base_url";
/// A parent's agreement to the model notice (its version and the endpoint
/// it named): model use waits for it (`chat::model_notice`).
pub const LLM_NOTICE: &str = "llm.notice";
/// Prices per million tokens, for the cost stored with each model call.
pub const LLM_PRICES: &str = "llm.prices";
/// The OpenAI-compatible speech service for spoken feedback, if any.
pub const VOICE_CLOUD: &str = "voice.cloud";
/// The window's language: `zh-CN` or `en`.
pub const UI_LOCALE: &str = "ui.locale";
/// Whether the companion may hand work to subagents (`true` unless set).
pub const CHAT_SUBAGENTS: &str = "chat.subagents";
/// A profile's chat context (model, prompt, tools, subagents), JSON.
pub const CHAT_CONTEXT: &str = "chat.context";

/// How long the one entry waits for the model's classification of what
/// the offline router is not sure of, in milliseconds (100 to 30000; 3000
/// unless set).
pub const ROUTER_MODEL_LIMIT_MS: &str = "router.model_limit_ms";

/// The OpenTelemetry collector (OTLP/HTTP) each request's spans are sent
/// to; unset, nothing leaves the device (`OTEL_EXPORTER_OTLP_ENDPOINT`
/// stands in when set).
pub const TRACES_OTLP_ENDPOINT: &str = "traces.otlp_endpoint";
/// The environment variable OpenTelemetry names for the same.
pub const OTEL_ENDPOINT_ENV: &str = "OTEL_EXPORTER_OTLP_ENDPOINT";

/// The languages the window speaks.
pub const LOCALES: [&str; 2] = ["zh-CN", "en"];

impl Deskmate {
    /// The window's language, `zh-CN` until a parent chooses.
    pub fn locale(&self) -> AppResult<String> {
        Ok(self
            .store()
            .settings()
            .get::<String>(None, UI_LOCALE)?
            .unwrap_or_else(|| LOCALES[0].to_string()))
    }

    /// Sets the window's language; anything but `zh-CN` and `en` is refused.
    pub fn set_locale(&self, locale: &str) -> AppResult<()> {
        if !LOCALES.contains(&locale) {
            return Err(AppError::Store(StoreError::Invalid(format!(
                "unsupported language {locale:?} (zh-CN or en)"
            ))));
        }
        Ok(self.store().settings().set(None, UI_LOCALE, &locale)?)
    }

    /// Where each request's spans are sent: the setting, else
    /// `OTEL_EXPORTER_OTLP_ENDPOINT`; none, nothing is sent. A setting that
    /// cannot be read sends nothing.
    pub fn otlp_endpoint(&self) -> Option<String> {
        self.store()
            .settings()
            .get::<String>(None, TRACES_OTLP_ENDPOINT)
            .ok()
            .flatten()
            .or_else(|| std::env::var(OTEL_ENDPOINT_ENV).ok())
            .filter(|e| !e.trim().is_empty())
    }

    /// Sets the collector's URL (`http://` or `https://`), or with `None`
    /// stops sending.
    pub fn set_otlp_endpoint(&self, endpoint: Option<&str>) -> AppResult<()> {
        let settings = self.store().settings();
        match endpoint.map(str::trim) {
            None | Some("") => Ok(settings.remove(None, TRACES_OTLP_ENDPOINT)?),
            Some(url) if url.starts_with("http://") || url.starts_with("https://") => {
                Ok(settings.set(None, TRACES_OTLP_ENDPOINT, &url)?)
            }
            Some(other) => Err(AppError::Store(StoreError::Invalid(format!(
                "{other:?} is not a collector's address (http://… or https://…)"
            )))),
        }
    }

    /// Waits a few seconds at most for the spans being sent to finish (a
    /// short-lived process calls it before it exits).
    pub fn wait_traces_sent(&self) -> bool {
        deskmate_orchestrator::trace::otlp::wait_sent(deskmate_orchestrator::trace::otlp::TIMEOUT)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::Config;

    #[test]
    fn locale_defaults_to_chinese_and_refuses_what_the_window_cannot_say() {
        let dir = tempfile::tempdir().unwrap();
        let app = Deskmate::open(Config::in_dir(dir.path())).unwrap();
        assert_eq!(app.locale().unwrap(), "zh-CN");
        app.set_locale("en").unwrap();
        assert_eq!(app.locale().unwrap(), "en");
        let err = app.set_locale("fr").unwrap_err();
        assert!(err.to_string().contains("fr"), "{err}");
        assert_eq!(app.locale().unwrap(), "en");
    }
}
