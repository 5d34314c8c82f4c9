//! What the agent's integration tests share: a store in a temporary folder,
//! a model client pointed at a scripted loopback server, and a run driven to
//! its end with its AG-UI events checked for order.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Duration;

use deskmate_agent::*;
use deskmate_llm::scripted::ScriptedServer;
use deskmate_llm::{ApiKey, LlmClient, LlmConfig, ModelSpec, RetryPolicy};
use deskmate_store::Store;

/// A store and a threads folder in a temporary directory.
pub struct Env {
    pub dir: tempfile::TempDir,
    pub store: Store,
}

impl Env {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("db.sqlite3")).unwrap();
        Self { dir, store }
    }

    pub fn threads(&self) -> std::path::PathBuf {
        self.dir.path().join("threads")
    }

    /// An agent on this store with `tools`, calling `server` as `model`.
    pub fn agent(
        &self,
        server: &ScriptedServer,
        model: &str,
        config: AgentConfig,
        tools: ToolSet,
    ) -> Agent {
        self.agent_with(client(server, model, KEY, 1), config, tools)
    }

    /// An agent on this store calling `llm`.
    pub fn agent_with(&self, llm: LlmClient, config: AgentConfig, tools: ToolSet) -> Agent {
        Agent::with_tools(self.store.clone(), llm, config, self.threads(), tools)
    }
}

/// The API key the tests' clients send.
pub const KEY: &str = "sk-agent-test-key-5f3a9c";

/// A client for `server` as `model` (`provider:name`), retrying quickly
/// `retries` times.
pub fn client(server: &ScriptedServer, model: &str, key: &str, retries: u32) -> LlmClient {
    let mut c = LlmConfig::new(ModelSpec::parse(model).unwrap());
    c.base_url = Some(server.base_url());
    c.api_key = Some(ApiKey::new(key).unwrap());
    c.retry = RetryPolicy {
        max_retries: retries,
        base_delay: Duration::from_millis(5),
        ..Default::default()
    };
    c.idle_timeout = Duration::from_secs(10);
    LlmClient::new(c).unwrap()
}

/// Sends `text` (in `thread`, or a new one) and runs it to its end; the
/// events are checked to be well-ordered AG-UI.
pub async fn run(
    agent: &Agent,
    thread: Option<String>,
    text: &str,
) -> (RunOutcome, Vec<AgUiEvent>) {
    let prepared = agent.prepare(RunRequest::text(thread, text)).await.unwrap();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let out = prepared.execute(tx, CancellationToken::new()).await;
    let mut events = Vec::new();
    while let Ok(ev) = rx.try_recv() {
        events.push(ev);
    }
    EventOrder::check_run(&events).unwrap_or_else(|e| panic!("bad event order: {e}\n{events:#?}"));
    (out, events)
}
