//! Chat with the companion: what the Tauri shell, the CLI and the API call
//! to list and load threads, start a run that streams AG-UI events, stop
//! it, and manage the model provider (settings, the API key in the OS
//! keyring, a connection test).
//!
//! Settings (app-wide): `llm.model` (`provider:model`), `llm.base_url`,
//! `llm.prices` (a [`PriceTable`] laid over the built-in prices; a damaged
//! one stops chat runs with an error saying how to fix it, rather than
//! costs being silently left out). The key: `DESKMATE_LLM_API_KEY` first,
//! then the keyring entry `llm:<provider>`.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use deskmate_agent::persist::{self, Thread, ThreadView};
use deskmate_agent::tools::{SearchConfig, ToolSet};
use deskmate_agent::{
    Agent, AgentConfig, AgentError, CancellationToken, EventSink, RunOutcome, RunRequest,
};
use deskmate_llm::{
    ApiKey, ChatRequest, ContentPart, KeySource, KeyStore, LlmClient, LlmConfig, LlmError, Message,
    ModelSpec, PriceTable,
};
use serde::{Deserialize, Serialize};

pub use deskmate_agent as agent;
pub use deskmate_llm as llm;

use crate::lamp::ConnectedLamp;
use crate::{AppError, AppResult, Config, Deskmate};
use deskmate_protocol as protocol;
use deskmate_store::Store;

pub mod attachments;
pub(crate) mod child_safety;
mod llm_settings;
pub(crate) use llm_settings::llm_prices;
pub(crate) mod model_notice;
mod runs;
mod subagent_runs;
mod threads;

use crate::settings::{
    LLM_BASE_URL as BASE_URL_KEY, LLM_MODEL as MODEL_KEY, LLM_PRICES as PRICES_KEY,
};
const PRICE_TABLE_SHAPE: &str =
    "Prices are US dollars per million tokens, by provider:model or provider:*, shaped like \
     {\"prices\": {\"openai:gpt-4o-mini\": {\"input_per_mtok\": 0.15, \"output_per_mtok\": 0.6}}}.";

/// The provider settings as the settings screen shows them. Never the key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LlmSettings {
    pub model: Option<String>,
    pub base_url: Option<String>,
    /// Where the key for the configured provider comes from, if there is one.
    pub key_source: Option<KeySource>,
}

/// Per-call overrides of the stored settings (CLI flags, a test in Settings).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ChatOptions {
    pub model: Option<String>,
    pub base_url: Option<String>,
    /// The run's own context, which beats the profile's stored one.
    #[serde(default)]
    pub context: Option<ChatContext>,
}

/// How the companion runs for one conversation. Each field is taken from
/// the run's context when set there, else from the profile's stored context
/// (setting `chat.context`), else the defaults: the saved model, the
/// bundled lead's prompt, every tool, subagents per `chat.subagents`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChatContext {
    /// `provider:model`.
    #[serde(default)]
    pub model: Option<String>,
    /// Replaces the lead's instructions (the base rules stay before it).
    #[serde(default)]
    pub system_prompt: Option<String>,
    /// Only these tools (an unknown name is refused with the list of tools;
    /// `task` is always there, answering per `subagents`).
    #[serde(default)]
    pub tools: Option<Vec<String>>,
    #[serde(default)]
    pub subagents: Option<bool>,
    /// Tools whose calls wait for a parent's approval (e.g. a child's
    /// `internet_search`): the run pauses until a parent decides.
    #[serde(default)]
    pub approvals: Option<Vec<String>>,
    /// How many levels of subagents the companion may start (1, the
    /// default: subagents cannot start their own; at most
    /// [`MAX_SUBAGENT_DEPTH`]).
    #[serde(default)]
    pub subagent_depth: Option<u32>,
}

/// The deepest the chat context may let subagents nest.
pub const MAX_SUBAGENT_DEPTH: u32 = 3;

impl ChatContext {
    /// `self`'s fields, with `under`'s where `self` has none.
    pub fn over(self, under: ChatContext) -> ChatContext {
        ChatContext {
            model: self.model.or(under.model),
            system_prompt: self.system_prompt.or(under.system_prompt),
            tools: self.tools.or(under.tools),
            subagents: self.subagents.or(under.subagents),
            approvals: self.approvals.or(under.approvals),
            subagent_depth: self.subagent_depth.or(under.subagent_depth),
        }
    }
}

/// A message to send.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ChatMessage {
    /// Continue this thread; a new one is started when absent.
    pub thread_id: Option<String>,
    pub profile_id: Option<String>,
    pub text: String,
    /// Photos (e.g. of homework) as base64 with their media type.
    #[serde(default)]
    pub images: Vec<ChatImage>,
    /// Files and photos kept in the thread's workspace under
    /// `/attachments/` (see [`attachments`]).
    #[serde(default)]
    pub attachments: Vec<attachments::ChatAttachment>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatImage {
    pub media_type: String,
    pub data_base64: String,
}

/// A run in progress: its ids (known at once) and its end.
#[derive(Debug)]
pub struct ChatRun {
    pub thread_id: String,
    pub run_id: String,
    pub done: tokio::task::JoinHandle<RunOutcome>,
}

/// What a connection test found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConnectionReport {
    pub model: String,
    pub reply: String,
    pub latency_ms: u64,
}

/// The chat runs this handle started and has not seen end: each run's stop
/// switch, by run id. Owned by the handle (clones share it), so two handles
/// in one process — two data directories in a test — never see each other's
/// runs.
#[derive(Debug, Clone, Default)]
pub(crate) struct ChatRuns {
    running: Arc<Mutex<HashMap<String, CancellationToken>>>,
}

/// The chat service (`app.chat()`): the companion's model settings and
/// keys (OS keyring), its threads and the runs going on in this process
/// (their stop switches), the team and skills it works with, and its tools
/// (the lamp's while one is connected). Clones share the runs.
#[derive(Debug, Clone)]
pub struct Chat {
    store: Store,
    config: Config,
    runs: ChatRuns,
    lamp: ConnectedLamp,
    pub(crate) skills: crate::skills::LoadedSkills,
    knowledge: crate::knowledge::Knowledge,
}

impl ChatRuns {
    fn insert(&self, run_id: &str, cancel: CancellationToken) {
        if let Ok(mut runs) = self.running.lock() {
            runs.insert(run_id.to_string(), cancel);
        }
    }

    fn remove(&self, run_id: &str) {
        if let Ok(mut runs) = self.running.lock() {
            runs.remove(run_id);
        }
    }

    fn cancel(&self, run_id: &str) -> bool {
        match self.running.lock() {
            Ok(runs) => runs.get(run_id).map(CancellationToken::cancel).is_some(),
            Err(_) => false,
        }
    }
}

fn llm_error(e: LlmError) -> AppError {
    AppError::Llm(e)
}

fn agent_error(e: AgentError) -> AppError {
    match e {
        AgentError::Store(s) => AppError::Store(s),
        other => AppError::Agent(other),
    }
}

fn chat_role(role: deskmate_llm::Role) -> protocol::ChatRole {
    use deskmate_llm::Role;
    match role {
        Role::System => protocol::ChatRole::System,
        Role::User => protocol::ChatRole::User,
        Role::Assistant => protocol::ChatRole::Assistant,
        Role::Tool => protocol::ChatRole::Tool,
    }
}

fn run_status(s: persist::RunStatus) -> protocol::ChatRunStatus {
    use persist::RunStatus as S;
    use protocol::ChatRunStatus as W;
    match s {
        S::Running => W::Running,
        S::Completed => W::Completed,
        S::Cancelled => W::Cancelled,
        S::Error => W::Error,
        S::StepLimit => W::StepLimit,
        S::Interrupted => W::Interrupted,
    }
}

fn message_view(m: persist::StoredMessage) -> protocol::MessageView {
    let content = m
        .message
        .content
        .iter()
        .filter_map(|p| match p {
            deskmate_llm::ContentPart::Text { text } => Some(text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("");
    let tool_calls = (!m.message.tool_calls.is_empty()).then(|| {
        m.message
            .tool_calls
            .into_iter()
            .map(|c| protocol::ToolCallRef {
                id: c.id,
                name: c.name,
                arguments: c.arguments,
            })
            .collect()
    });
    protocol::MessageView {
        id: m.id,
        role: chat_role(m.message.role),
        content,
        tool_calls,
        tool_call_id: m.message.tool_call_id,
        is_error: m.message.is_error,
        created_at: m.created_at,
    }
}

/// How a subagent that names its own model (`model:` in its `AGENTS.md`)
/// gets its client: the keys and settings of `store`. The base URL (the
/// run's, else the setting) only applies when the subagent's provider is the
/// lead's: another provider is reached at its own default address.
fn subagent_models(
    store: Store,
    run_base_url: Option<String>,
) -> deskmate_agent::tools::ModelSource {
    Arc::new(move |spec: &str| {
        let wanted = ModelSpec::parse(spec).map_err(|e| e.to_string())?;
        let settings = llm_settings(&store).map_err(|e| e.to_string())?;
        let lead_provider = settings
            .model
            .as_deref()
            .and_then(|m| ModelSpec::parse(m).ok())
            .map(|m| m.provider);
        let same_provider = lead_provider.as_deref() == Some(wanted.provider.as_str());
        let mut config = LlmConfig::new(wanted.clone());
        config.base_url = if same_provider {
            run_base_url.clone().or(settings.base_url)
        } else {
            None
        };
        // The address it reaches must be the one a parent agreed to (or the
        // one the command named): another provider's is not.
        if run_base_url.is_none() {
            let endpoint = wanted
                .base_url(config.base_url.as_deref())
                .map_err(|e| e.to_string())?;
            if !model_notice::agreed_for(&store, &endpoint).map_err(|e| e.to_string())? {
                return Err(AppError::NoticeNotAgreed { endpoint }.to_string());
            }
        }
        config.api_key = key_store().resolve(&wanted.provider).map(|(k, _)| k);
        LlmClient::new(config).map_err(|e| e.to_string())
    })
}

/// The model provider settings in `store` (and where the key comes from).
pub(crate) fn llm_settings(store: &Store) -> AppResult<LlmSettings> {
    let model: Option<String> = store.settings().get(None, MODEL_KEY)?;
    let base_url: Option<String> = store.settings().get(None, BASE_URL_KEY)?;
    let key_source = model
        .as_deref()
        .and_then(|m| ModelSpec::parse(m).ok())
        .and_then(|spec| key_store().resolve(&spec.provider))
        .map(|(_, source)| source);
    Ok(LlmSettings {
        model,
        base_url,
        key_source,
    })
}

/// A client for the model configured in `store`, with `opts` laid over it.
pub(crate) fn llm_client(store: &Store, opts: &ChatOptions) -> AppResult<LlmClient> {
    LlmClient::new(llm_config(store, opts)?).map_err(llm_error)
}

/// The configured model's client with no retries: for a call with a short
/// budget of its own (the router's classification), where waiting to try
/// again would only use the budget up.
pub(crate) fn llm_client_without_retries(
    store: &Store,
    opts: &ChatOptions,
) -> AppResult<LlmClient> {
    let mut config = llm_config(store, opts)?;
    config.retry.max_retries = 0;
    LlmClient::new(config).map_err(llm_error)
}

/// What a client of the configured (or the run's) model is made from.
fn llm_config(store: &Store, opts: &ChatOptions) -> AppResult<LlmConfig> {
    model_notice::require(store, opts)?;
    llm_config_before_notice(store, opts)
}

/// The same, before the notice is agreed to: only for the connection test,
/// which sends nothing of a child's.
fn llm_config_before_notice(store: &Store, opts: &ChatOptions) -> AppResult<LlmConfig> {
    let settings = llm_settings(store)?;
    let model = opts
        .model
        .clone()
        .or(settings.model)
        .ok_or(AppError::NoModel)?;
    let spec = ModelSpec::parse(&model).map_err(llm_error)?;
    let mut config = LlmConfig::new(spec.clone());
    config.base_url = opts.base_url.clone().or(settings.base_url);
    config.api_key = key_store().resolve(&spec.provider).map(|(k, _)| k);
    Ok(config)
}

pub(crate) fn key_store() -> KeyStore {
    KeyStore::default()
}

impl Chat {
    pub(crate) fn new(store: Store, config: Config, lamp: ConnectedLamp) -> Self {
        let knowledge = crate::knowledge::Knowledge::new(store.clone(), config.models_dir.clone());
        Self {
            store,
            config,
            runs: ChatRuns::default(),
            lamp,
            skills: crate::skills::LoadedSkills::default(),
            knowledge,
        }
    }

    fn store(&self) -> &Store {
        &self.store
    }

    pub(crate) fn config(&self) -> &Config {
        &self.config
    }

    /// The family's knowledge bases (their encoder is shared with the
    /// lead's `rag_retrieval`).
    pub fn knowledge(&self) -> &crate::knowledge::Knowledge {
        &self.knowledge
    }

    fn chat_runs(&self) -> &ChatRuns {
        &self.runs
    }

    /// Where threads keep their folders (each has its `workspace`).
    pub fn threads_dir(&self) -> PathBuf {
        self.config().data_dir.join("threads")
    }

    /// A profile's stored chat context (setting `chat.context`), if any.
    pub fn context(&self, profile_id: &str) -> AppResult<Option<ChatContext>> {
        self.store()
            .settings()
            .get::<ChatContext>(Some(profile_id), crate::settings::CHAT_CONTEXT)
            .map_err(|e| {
                AppError::Config(format!(
                    "the chat context stored for this profile cannot be read ({e}); set it again with `deskmate llm context`"
                ))
            })
    }

    /// Stores (or with `None` removes) a profile's chat context.
    pub fn set_context(&self, profile_id: &str, context: Option<&ChatContext>) -> AppResult<()> {
        let settings = self.store().settings();
        match context {
            Some(c) => settings.set(Some(profile_id), crate::settings::CHAT_CONTEXT, c)?,
            None => settings.remove(Some(profile_id), crate::settings::CHAT_CONTEXT)?,
        }
        Ok(())
    }

    fn agent(
        &self,
        opts: &ChatOptions,
        profile_id: Option<&str>,
        mcp: crate::mcp::RunTools,
        said: &str,
    ) -> AppResult<Agent> {
        // The run's context beats the profile's, which beats the defaults.
        let stored = match profile_id {
            Some(p) => self.context(p)?.unwrap_or_default(),
            None => ChatContext::default(),
        };
        let context = opts.context.clone().unwrap_or_default().over(stored);
        let opts = ChatOptions {
            model: opts.model.clone().or(context.model.clone()),
            ..opts.clone()
        };
        let llm = self.llm_client(&opts)?;
        let prices = self.llm_prices()?;
        let team = self.team();
        // The lead's own instructions (agents/AGENTS.md, or the context's)
        // after the base ones.
        let instructions = context
            .system_prompt
            .clone()
            .or_else(|| team.lead.as_ref().map(|l| l.instructions.clone()));
        let mut system_prompt = match instructions {
            Some(text) => format!("{}\n\n{text}", deskmate_agent::BASE_PROMPT),
            None => deskmate_agent::BASE_PROMPT.to_string(),
        };
        // What is remembered about the child, most relevant to what was said.
        if let Some(p) = profile_id {
            let memories = self.store().memories().list(p)?;
            let ranking = deskmate_orchestrator::memory::Overlap;
            if let Some(block) =
                deskmate_orchestrator::memory::prompt_block(&ranking, &memories, said)
            {
                system_prompt.push_str("\n\n");
                system_prompt.push_str(&block);
            }
            // A child's conversation keeps the child policy, last, whatever
            // the context's prompt says.
            let profile = self.store().profiles().get(p)?;
            if profile.kind == deskmate_store::ProfileKind::Child {
                let answers = self
                    .store()
                    .settings()
                    .get::<bool>(Some(p), deskmate_orchestrator::entry::HOMEWORK_ANSWERS)?
                    .unwrap_or(false)
                    || context.system_prompt.as_deref().is_some_and(|s| {
                        s.contains(deskmate_orchestrator::entry::ANSWERS_ALLOWED_SENTENCE)
                    });
                system_prompt.push_str("\n\n");
                system_prompt.push_str(&deskmate_orchestrator::safety::child_policy(
                    profile.grade,
                    answers,
                ));
            }
        }
        let subagent_depth = context.subagent_depth.unwrap_or(1);
        if !(1..=MAX_SUBAGENT_DEPTH).contains(&subagent_depth) {
            return Err(AppError::Invalid(format!(
                "the chat context's subagent_depth must be from 1 to {MAX_SUBAGENT_DEPTH} (1: subagents cannot start their own), not {subagent_depth}; to turn subagents off set \"subagents\": false"
            )));
        }
        // An untrusted MCP server's tools wait for a parent, like the
        // tools the context names; each MCP tool has its server's limit.
        let mut tool_time_limits = deskmate_agent::ToolTimeLimits::default();
        for (name, limit) in &mcp.limits {
            tool_time_limits = tool_time_limits.with(name.clone(), *limit);
        }
        let config = AgentConfig {
            subagent_depth,
            prices,
            system_prompt,
            skills: self.current_skills(),
            approvals: context
                .approvals
                .clone()
                .unwrap_or_default()
                .into_iter()
                .chain(mcp.approvals)
                .collect(),
            tool_time_limits,
            ..AgentConfig::default()
        };
        let subagents = match context.subagents {
            Some(on) => on,
            None => self.subagents()?,
        };
        let mut tools = self.tools();
        for tool in mcp.tools {
            tools.add(tool);
        }
        if let Some(names) = &context.tools {
            let known = tools.names();
            if let Some(unknown) = names
                .iter()
                .find(|n| *n != "task" && !known.contains(&n.as_str()))
            {
                return Err(AppError::Invalid(format!(
                    "the chat context names a tool {unknown:?} that does not exist; the tools are: {}",
                    known.join(", ")
                )));
            }
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            tools = tools.only(&names);
        }
        if let Some(names) = &context.approvals {
            let known = tools.names();
            if let Some(unknown) = names.iter().find(|n| !known.contains(&n.as_str())) {
                return Err(AppError::Invalid(format!(
                    "the chat context asks approval for a tool {unknown:?} that does not exist; the tools are: {}",
                    known.join(", ")
                )));
            }
        }
        let task = deskmate_agent::tools::Task::new(Arc::new(team), subagents)
            .with_models(subagent_models(self.store().clone(), opts.base_url.clone()));
        tools.add(Arc::new(task));
        Ok(Agent::with_tools(
            self.store().clone(),
            llm,
            config,
            self.threads_dir(),
            tools,
        ))
    }

    /// Sends a one-line question to the model and reports the answer and
    /// how long it took.
    pub async fn test_connection(&self, opts: &ChatOptions) -> AppResult<ConnectionReport> {
        // It sends one fixed line, nothing of a child's: a parent may test
        // the connection before agreeing to the model notice.
        let client =
            LlmClient::new(llm_config_before_notice(self.store(), opts)?).map_err(llm_error)?;
        let started = Instant::now();
        let req = ChatRequest {
            messages: vec![Message::user("Reply with the single word OK.")],
            max_tokens: Some(16),
            ..Default::default()
        };
        let done = client.complete(&req).await.map_err(llm_error)?;
        Ok(ConnectionReport {
            model: client.model().to_string(),
            reply: done.text,
            latency_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        })
    }

    /// The names of the companion's tools for a new run, sorted: the
    /// built-in, study and lamp tools, and `task` unless a parent turned
    /// subagents off.
    pub fn tool_names(&self) -> AppResult<Vec<String>> {
        let mut names: Vec<String> = self.tools().names().iter().map(|n| n.to_string()).collect();
        if self.subagents()? && !names.iter().any(|n| n == "task") {
            names.push("task".into());
        }
        names.sort();
        Ok(names)
    }

    /// The companion's tools for a new run: the built-in ones, the study
    /// tools, plus the lamp's while a lamp is connected.
    pub(crate) fn tools(&self) -> ToolSet {
        let mut tools = ToolSet::builtin(SearchConfig::from_env());
        crate::study_tools::add_study_tools(self.store(), &mut tools);
        if let Some(lamp) = self.lamp.current() {
            crate::lamp::add_lamp_tools(&lamp, &mut tools);
        }
        // Searching the knowledge bases, when there is something to find
        // and the encoder to find it with.
        if self.knowledge.encoder_installed() {
            match self.knowledge.bases() {
                Ok(bases) if bases.iter().any(|b| b.documents > 0) => {
                    let names: Vec<String> = bases
                        .into_iter()
                        .filter(|b| b.documents > 0)
                        .map(|b| b.name)
                        .collect();
                    tools.add(Arc::new(crate::knowledge::tool::RagRetrieval::new(
                        self.knowledge.clone(),
                        &names,
                    )));
                }
                Ok(_) => {}
                Err(e) => {
                    tracing::warn!("the knowledge bases cannot be read, so no rag_retrieval: {e}")
                }
            }
        }
        tools
    }

    /// Whether the companion may hand work to subagents (`true` unless a
    /// parent turned it off).
    pub fn subagents(&self) -> AppResult<bool> {
        Ok(self
            .store()
            .settings()
            .get::<bool>(None, crate::settings::CHAT_SUBAGENTS)?
            .unwrap_or(true))
    }

    pub fn set_subagents(&self, on: bool) -> AppResult<()> {
        Ok(self
            .store()
            .settings()
            .set(None, crate::settings::CHAT_SUBAGENTS, &on)?)
    }
}

impl Deskmate {
    /// The chat companion: its model settings and keys, threads, runs, the
    /// team and skills it works with.
    pub fn chat(&self) -> &Chat {
        &self.chat
    }
}

#[cfg(test)]
mod tests;
