//! Which model to call: `provider:model` names, the wire format each
//! provider speaks and its default base URL.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::LlmError;

/// The two wire formats Deskmate speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Wire {
    /// OpenAI Chat Completions (`POST {base}/chat/completions`), spoken by
    /// OpenAI, DashScope/Qwen, DeepSeek, SiliconFlow, vLLM, Ollama, LiteLLM…
    OpenAi,
    /// Anthropic Messages (`POST {base}/messages`).
    Anthropic,
}

/// A known provider: its name, wire format, default base URL and whether a
/// key is required.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProviderInfo {
    pub name: &'static str,
    pub wire: Wire,
    pub default_base_url: &'static str,
    pub needs_key: bool,
}

/// The providers Deskmate knows by name. Any other name works as an
/// OpenAI-compatible server when a base URL is given.
pub const PROVIDERS: &[ProviderInfo] = &[
    ProviderInfo {
        name: "openai",
        wire: Wire::OpenAi,
        default_base_url: "https://api.openai.com/v1",
        needs_key: true,
    },
    ProviderInfo {
        name: "anthropic",
        wire: Wire::Anthropic,
        default_base_url: "https://api.anthropic.com/v1",
        needs_key: true,
    },
    ProviderInfo {
        name: "dashscope",
        wire: Wire::OpenAi,
        default_base_url: "https://dashscope.aliyuncs.com/compatible-mode/v1",
        needs_key: true,
    },
    ProviderInfo {
        name: "qwen",
        wire: Wire::OpenAi,
        default_base_url: "https://dashscope.aliyuncs.com/compatible-mode/v1",
        needs_key: true,
    },
    ProviderInfo {
        name: "deepseek",
        wire: Wire::OpenAi,
        default_base_url: "https://api.deepseek.com/v1",
        needs_key: true,
    },
    ProviderInfo {
        name: "siliconflow",
        wire: Wire::OpenAi,
        default_base_url: "https://api.siliconflow.cn/v1",
        needs_key: true,
    },
    ProviderInfo {
        name: "moonshot",
        wire: Wire::OpenAi,
        default_base_url: "https://api.moonshot.cn/v1",
        needs_key: true,
    },
    ProviderInfo {
        name: "openrouter",
        wire: Wire::OpenAi,
        default_base_url: "https://openrouter.ai/api/v1",
        needs_key: true,
    },
    ProviderInfo {
        name: "ollama",
        wire: Wire::OpenAi,
        default_base_url: "http://localhost:11434/v1",
        needs_key: false,
    },
    ProviderInfo {
        name: "vllm",
        wire: Wire::OpenAi,
        default_base_url: "http://localhost:8000/v1",
        needs_key: false,
    },
    ProviderInfo {
        name: "litellm",
        wire: Wire::OpenAi,
        default_base_url: "http://localhost:4000/v1",
        needs_key: false,
    },
];

/// A model named `provider:model`, e.g. `openai:gpt-4o-mini`,
/// `anthropic:claude-3-5-haiku-latest`, `ollama:qwen2.5:7b` (only the first
/// colon separates).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ModelSpec {
    pub provider: String,
    pub model: String,
}

impl ModelSpec {
    pub fn parse(s: &str) -> Result<Self, LlmError> {
        let s = s.trim();
        let Some((provider, model)) = s.split_once(':') else {
            return Err(LlmError::Config(format!(
                "model {s:?} must be written provider:model, for example openai:gpt-4o-mini or ollama:qwen2.5"
            )));
        };
        let provider = provider.trim().to_ascii_lowercase();
        let model = model.trim().to_string();
        if provider.is_empty()
            || model.is_empty()
            || !provider
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            return Err(LlmError::Config(format!(
                "model {s:?} must be written provider:model, for example openai:gpt-4o-mini or ollama:qwen2.5"
            )));
        }
        Ok(Self { provider, model })
    }

    /// What Deskmate knows about this provider, if it is a known one.
    pub fn provider_info(&self) -> Option<&'static ProviderInfo> {
        PROVIDERS.iter().find(|p| p.name == self.provider)
    }

    /// The wire format to speak: known providers' own, else OpenAI-compatible.
    pub fn wire(&self) -> Wire {
        self.provider_info().map(|p| p.wire).unwrap_or(Wire::OpenAi)
    }

    /// The base URL to use: the given one, else the provider's default.
    pub fn base_url(&self, configured: Option<&str>) -> Result<String, LlmError> {
        match configured.map(str::trim).filter(|u| !u.is_empty()) {
            Some(u) => {
                if !(u.starts_with("http://") || u.starts_with("https://")) {
                    return Err(LlmError::Config(format!("base URL {u:?} must start with http:// or https://")));
                }
                Ok(u.trim_end_matches('/').to_string())
            }
            None => self.provider_info().map(|p| p.default_base_url.to_string()).ok_or_else(|| {
                let known: Vec<&str> = PROVIDERS.iter().map(|p| p.name).collect();
                LlmError::Config(format!(
                    "unknown provider {:?}: use one of {} or give a base URL for any OpenAI-compatible server",
                    self.provider,
                    known.join(", ")
                ))
            }),
        }
    }

    /// Whether calls need an API key (hosted providers do; local servers do not).
    pub fn needs_key(&self) -> bool {
        self.provider_info().is_some_and(|p| p.needs_key)
    }

    /// Whether the model reads images: `Some(false)` for the families
    /// known to be text only (so a photo is refused before it is sent),
    /// `Some(true)` for those known to see, `None` when Deskmate does not
    /// know (a local or proxied model: the photo is sent, and a model that
    /// cannot see answers with its own error).
    pub fn sees_images(&self) -> Option<bool> {
        let m = self.model.to_ascii_lowercase();
        let m = m.rsplit('/').next().unwrap_or(&m);
        const TEXT_ONLY: &[&str] = &[
            "gpt-3.5",
            "o1-mini",
            "o3-mini",
            "deepseek-chat",
            "deepseek-reasoner",
            "deepseek-r1",
            "qwen2.5:",
            "qwen2.5-coder",
            "llama3.1",
            "llama3.2:1b",
            "llama3.2:3b",
            "mistral:",
        ];
        const SEES: &[&str] = &[
            "gpt-4o",
            "gpt-4.1",
            "gpt-4-turbo",
            "gpt-5",
            "o1",
            "o3",
            "o4",
            "claude-3",
            "claude-sonnet",
            "claude-opus",
            "claude-haiku",
            "gemini",
            "qwen-vl",
            "qwen2.5-vl",
            "qwen3-vl",
            "llava",
            "llama3.2-vision",
            "glm-4v",
            "pixtral",
        ];
        if TEXT_ONLY.iter().any(|p| m.starts_with(p)) {
            Some(false)
        } else if SEES.iter().any(|p| m.starts_with(p)) {
            Some(true)
        } else {
            None
        }
    }
}

impl fmt::Display for ModelSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.provider, self.model)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn which_models_see_images() {
        let sees = |m: &str| ModelSpec::parse(m).unwrap().sees_images();
        assert_eq!(sees("openai:gpt-4o-mini"), Some(true));
        assert_eq!(sees("anthropic:claude-3-5-haiku-latest"), Some(true));
        assert_eq!(sees("openrouter:openai/gpt-4.1-mini"), Some(true));
        assert_eq!(sees("openai:gpt-3.5-turbo"), Some(false));
        assert_eq!(sees("deepseek:deepseek-chat"), Some(false));
        assert_eq!(sees("openai:o3-mini"), Some(false));
        assert_eq!(sees("ollama:qwen2.5:7b"), Some(false));
        assert_eq!(sees("vllm:my-finetune"), None);
    }

    #[test]
    fn parses_provider_and_model() {
        let m = ModelSpec::parse("openai:gpt-4o-mini").unwrap();
        assert_eq!(
            (m.provider.as_str(), m.model.as_str()),
            ("openai", "gpt-4o-mini")
        );
        let o = ModelSpec::parse("Ollama:qwen2.5:7b").unwrap();
        assert_eq!(
            (o.provider.as_str(), o.model.as_str()),
            ("ollama", "qwen2.5:7b")
        );
        assert_eq!(o.to_string(), "ollama:qwen2.5:7b");
        assert_eq!(
            ModelSpec::parse("anthropic:claude-3-5-haiku-latest")
                .unwrap()
                .wire(),
            Wire::Anthropic
        );
        for bad in ["gpt-4o", ":x", "openai:", "a b:c", ""] {
            assert!(
                matches!(ModelSpec::parse(bad), Err(LlmError::Config(_))),
                "{bad}"
            );
        }
    }

    #[test]
    fn base_urls() {
        let m = ModelSpec::parse("deepseek:deepseek-chat").unwrap();
        assert_eq!(m.base_url(None).unwrap(), "https://api.deepseek.com/v1");
        assert_eq!(
            m.base_url(Some("http://127.0.0.1:9/v1/")).unwrap(),
            "http://127.0.0.1:9/v1"
        );
        assert!(m.base_url(Some("ftp://x")).is_err());
        let custom = ModelSpec::parse("mylab:llama").unwrap();
        assert!(custom
            .base_url(None)
            .unwrap_err()
            .to_string()
            .contains("unknown provider"));
        assert_eq!(custom.wire(), Wire::OpenAi);
        assert!(!custom.needs_key());
        assert!(m.needs_key());
        assert!(!ModelSpec::parse("ollama:qwen2.5").unwrap().needs_key());
    }
}
