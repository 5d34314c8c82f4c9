//! Model providers for Deskmate: one client that speaks OpenAI-compatible
//! Chat Completions (OpenAI, DashScope/Qwen, DeepSeek, SiliconFlow, vLLM,
//! Ollama, LiteLLM…) and Anthropic Messages, streaming replies as
//! provider-neutral [`StreamEvent`]s, with typed errors, retries, an idle
//! timeout, usage and cost, and API keys kept out of sight.
//!
//! ```no_run
//! # async fn demo() -> Result<(), deskmate_llm::LlmError> {
//! use deskmate_llm::{ChatRequest, LlmClient, LlmConfig, Message, ModelSpec};
//! let client = LlmClient::new(LlmConfig::new(ModelSpec::parse("ollama:qwen2.5")?))?;
//! let reply = client.complete(&ChatRequest { messages: vec![Message::user("你好")], ..Default::default() }).await?;
//! println!("{}", reply.text);
//! # Ok(()) }
//! ```

mod anthropic;
mod client;
mod credentials;
mod error;
mod message;
mod model;
mod openai;
mod pricing;
mod retry;
#[cfg(feature = "scripted")]
pub mod scripted;

pub use client::{CallMeter, ChatStream, Completion, LlmClient, LlmConfig, MeteredCall};
pub use credentials::{redact, ApiKey, KeySource, KeyStore, API_KEY_ENV, KEYRING_SERVICE};
pub use error::LlmError;
pub use message::{
    ChatRequest, ContentPart, Message, Role, StopReason, StreamEvent, ToolCall, ToolSpec, Usage,
};
pub use model::{ModelSpec, ProviderInfo, Wire, PROVIDERS};
pub use pricing::{Price, PriceTable};
pub use retry::RetryPolicy;

/// The crate's example above, compiled as a unit test: the suite runs no
/// doc tests (see scripts/test-suites.sh). Only built, never called: it
/// would reach a model server.
#[cfg(test)]
mod example {
    #[allow(dead_code)]
    async fn demo() -> Result<(), crate::LlmError> {
        use crate::{ChatRequest, LlmClient, LlmConfig, Message, ModelSpec};
        let client = LlmClient::new(LlmConfig::new(ModelSpec::parse("ollama:qwen2.5")?))?;
        let reply = client
            .complete(&ChatRequest {
                messages: vec![Message::user("你好")],
                ..Default::default()
            })
            .await?;
        println!("{}", reply.text);
        Ok(())
    }

    #[test]
    fn the_crate_example_builds_its_client() {
        let spec = crate::ModelSpec::parse("ollama:qwen2.5");
        assert!(spec.is_ok_and(|s| crate::LlmClient::new(crate::LlmConfig::new(s)).is_ok()));
    }
}
