//! The agent: what it needs (store, model client, tools, limits) and how a
//! run begins — the thread is found or created, its run lock taken, any
//! crashed run on it closed as `interrupted`, the run row and the user's
//! message written — before [`PreparedRun::execute`] drives the loop.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use deskmate_llm::{ContentPart, LlmClient, Message, PriceTable};
use deskmate_store::{Store, StoreResult};
use serde::Serialize;

use crate::persist::{self, Run, RunStatus, Thread};
use crate::run_lock::ThreadLock;
use crate::skills::SkillLibrary;
use crate::tools::{SearchConfig, ThreadState, ToolSet, ToolTimeLimits};
use crate::{AgentError, AgentResult, Sandbox};

/// Limits and instructions of an agent.
#[derive(Debug, Clone)]
pub struct AgentConfig {
    /// Model calls per run before it stops with `step_limit`.
    pub max_steps: u32,
    /// Tool results above this many tokens go to `/large_tool_results/`.
    pub large_result_tokens: usize,
    pub system_prompt: String,
    pub max_tokens: Option<u32>,
    pub temperature: Option<f32>,
    pub prices: PriceTable,
    /// How long a tool call may take before the model is told it ran out
    /// of time (default 60 s; `internet_search` 35 s). Replaces the limits
    /// of the tool set the agent is given.
    pub tool_time_limits: ToolTimeLimits,
    /// Skills listed in the system prompt and copied read-only into each
    /// thread's workspace at `/skills/` (see [`crate::skills`]).
    pub skills: Arc<SkillLibrary>,
    /// The model's context window in tokens; `None`: from the table of
    /// known models, else 170k (see [`crate::summarize`]).
    pub context_window: Option<u64>,
    /// Tools whose calls wait for a parent's approval: the run pauses with
    /// them pending and continues once each is decided (see
    /// [`crate::persist::ApprovalDecision`]). A subagent's call of one
    /// waits the same way: its run holds the call and the lead's run pauses
    /// with it.
    pub approvals: std::collections::BTreeSet<String>,
    /// How many levels of subagents this agent may start below itself: 1
    /// (the default) lets the lead start subagents that cannot start their
    /// own; with 2 a subagent whose `AGENTS.md` names `task` may start one
    /// more level; 0 starts none (`task` answers that it may not).
    pub subagent_depth: u32,
    /// Model calls a subagent's run may make before it ends `step_limit`
    /// (default [`crate::tools::SUBAGENT_MAX_STEPS`]).
    pub subagent_max_steps: u32,
}

impl Default for AgentConfig {
    fn default() -> Self {
        Self {
            max_steps: 25,
            large_result_tokens: 20_000,
            system_prompt: crate::prompt::BASE_PROMPT.to_string(),
            max_tokens: None,
            temperature: None,
            prices: PriceTable::builtin(),
            tool_time_limits: ToolTimeLimits::default(),
            skills: Arc::new(SkillLibrary::default()),
            context_window: None,
            approvals: std::collections::BTreeSet::new(),
            subagent_depth: 1,
            subagent_max_steps: crate::tools::SUBAGENT_MAX_STEPS,
        }
    }
}

pub(crate) struct AgentInner {
    pub(crate) store: Store,
    pub(crate) llm: LlmClient,
    pub(crate) tools: ToolSet,
    /// The tools' specifications, built once (schemas are not free).
    pub(crate) specs: Vec<deskmate_llm::ToolSpec>,
    pub(crate) config: AgentConfig,
    pub(crate) threads_dir: PathBuf,
    /// The lead's tools, which every subagent below it (at any depth) takes
    /// its own from: a subagent started by a subagent is not limited to the
    /// tools of the one that started it.
    pub(crate) team_tools: Arc<ToolSet>,
}

/// A deep agent bound to one model. Cheap to clone; runs on different
/// threads may go on at the same time.
#[derive(Clone)]
pub struct Agent {
    pub(crate) inner: Arc<AgentInner>,
}

impl std::fmt::Debug for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Agent")
            .field("llm", &self.inner.llm)
            .field("tools", &self.inner.tools)
            .finish()
    }
}

/// What to run: a message on a thread (a new one when `thread_id` is `None`).
#[derive(Debug, Clone, Default)]
pub struct RunRequest {
    pub thread_id: Option<String>,
    pub profile_id: Option<String>,
    pub content: Vec<ContentPart>,
}

impl RunRequest {
    pub fn text(thread_id: Option<String>, text: impl Into<String>) -> Self {
        Self {
            thread_id,
            profile_id: None,
            content: vec![ContentPart::Text { text: text.into() }],
        }
    }
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunOutcome {
    pub thread_id: String,
    pub run_id: String,
    pub status: RunStatus,
    /// The final answer (empty unless completed).
    pub answer: String,
    pub error: Option<String>,
    pub steps: u32,
    /// A run paused for a parent's approval: the calls it waits on (its
    /// own and its subagents').
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub waiting: Vec<crate::tools::WaitingCall>,
}

/// A run whose thread is locked and whose user message is stored.
pub struct PreparedRun {
    pub(crate) agent: Agent,
    pub(crate) thread: Thread,
    pub(crate) run: Run,
    /// The thread's lock, held by the lead's run; a subagent's run runs
    /// under its lead's and holds none.
    pub(crate) _lock: Option<ThreadLock>,
    /// A subagent's run: its todo list is its own, not the thread's.
    pub(crate) child: bool,
    pub(crate) history: Vec<Message>,
    pub(crate) known_call_ids: HashSet<String>,
    pub(crate) state: ThreadState,
    pub(crate) sandbox: Arc<Sandbox>,
    /// The system prompt and tool specifications this run sends with every
    /// model call: copied once per run and lent to each request, not cloned
    /// per step (see `turn::model_turn`).
    pub(crate) system: Option<String>,
    pub(crate) specs: Vec<deskmate_llm::ToolSpec>,
    /// Where the run's events go, once it executes.
    pub(crate) events: Option<crate::turn::EventSink>,
    /// The number of the run's first step (a continued run goes on counting).
    pub(crate) first_step: u32,
    /// Calls a parent approved while the run was paused: run first, before
    /// the model is called again. They include the `task` calls whose
    /// subagents paused (see `resumed`).
    pub(crate) approved: Vec<deskmate_llm::ToolCall>,
    /// `task` calls whose subagent's run paused for a parent: the call id
    /// and that run, which the call continues instead of starting anew.
    pub(crate) resumed: HashMap<String, String>,
}

impl PreparedRun {
    pub fn thread_id(&self) -> &str {
        &self.thread.id
    }
    pub fn run_id(&self) -> &str {
        &self.run.id
    }
}

/// Runs `f` on the blocking pool (SQLite never blocks the async executor).
pub(crate) async fn db<T: Send + 'static>(
    store: &Store,
    f: impl FnOnce(&Store) -> StoreResult<T> + Send + 'static,
) -> AgentResult<T> {
    let store = store.clone();
    match tokio::task::spawn_blocking(move || f(&store)).await {
        Ok(r) => r.map_err(AgentError::from),
        Err(e) => Err(AgentError::Io(format!("a database task stopped: {e}"))),
    }
}

/// Where thread `id` keeps its files.
pub fn thread_dir(threads_dir: &Path, id: &str) -> PathBuf {
    threads_dir.join(id)
}

/// The sandbox root of thread `id`.
pub fn workspace_dir(threads_dir: &Path, id: &str) -> PathBuf {
    thread_dir(threads_dir, id).join("workspace")
}

impl Agent {
    /// The model this agent's runs call.
    pub fn model(&self) -> &deskmate_llm::ModelSpec {
        self.inner.llm.model()
    }

    /// An agent on `store`, calling `llm`, keeping thread folders under
    /// `threads_dir` (`<data dir>/threads`).
    pub fn new(
        store: Store,
        llm: LlmClient,
        config: AgentConfig,
        threads_dir: PathBuf,
        search: SearchConfig,
    ) -> Self {
        Self::with_tools(store, llm, config, threads_dir, ToolSet::builtin(search))
    }

    pub fn with_tools(
        store: Store,
        llm: LlmClient,
        config: AgentConfig,
        threads_dir: PathBuf,
        mut tools: ToolSet,
    ) -> Self {
        tools.set_time_limits(config.tool_time_limits.clone());
        let specs = tools.specs();
        let team_tools = Arc::new(tools.clone());
        Self {
            inner: Arc::new(AgentInner {
                store,
                llm,
                tools,
                specs,
                config,
                threads_dir,
                team_tools,
            }),
        }
    }

    pub fn store(&self) -> &Store {
        &self.inner.store
    }

    pub fn tools(&self) -> &ToolSet {
        &self.inner.tools
    }

    /// Starts a run: everything up to and including storing the message.
    pub async fn prepare(&self, req: RunRequest) -> AgentResult<PreparedRun> {
        let has_content = req.content.iter().any(|p| match p {
            ContentPart::Text { text } => !text.trim().is_empty(),
            _ => true,
        });
        if !has_content {
            return Err(AgentError::EmptyMessage);
        }
        let agent = self.clone();
        let model = self.inner.llm.model().to_string();
        let threads_dir = self.inner.threads_dir.clone();
        let joined = tokio::task::spawn_blocking(move || -> AgentResult<PreparedRun> {
            let store = &agent.inner.store;
            let user = Message {
                content: req.content,
                ..Message::user("")
            };
            let thread = match &req.thread_id {
                Some(id) => persist::get_thread(store, id).map_err(|e| match e {
                    deskmate_store::StoreError::NotFound(_) => {
                        AgentError::ThreadNotFound(id.clone())
                    }
                    other => AgentError::Store(other),
                })?,
                None => persist::create_thread(
                    store,
                    req.profile_id.as_deref(),
                    &persist::title_from(&user.text()),
                )?,
            };
            let lock = ThreadLock::try_acquire(&threads_dir, &thread.id)?
                .ok_or_else(|| AgentError::Busy(thread.id.clone()))?;
            // A run of this thread waiting for a parent's approval comes first:
            // its calls are still open, and a new message would talk past them.
            if let Some(waiting) = persist::open_approvals_of_thread(store, &thread.id)?.first() {
                return Err(AgentError::AwaitingApproval {
                    run: waiting.run_id.clone(),
                    calls: format!("{} ({})", waiting.tool_call_id, waiting.tool),
                });
            }
            // We hold the lock, so any run still marked running here is dead.
            for run in persist::running_runs(store, Some(&thread.id))? {
                persist::interrupt_run(store, &run)?;
            }
            let run = persist::start_run_with_message(store, &thread.id, &model, &user)?;
            agent.open(thread, run, lock, 1)
        })
        .await;
        match joined {
            Ok(r) => r,
            Err(e) => Err(AgentError::Io(format!("starting the run stopped: {e}"))),
        }
    }

    /// Continues a run that a crash cut off (status `interrupted`) from its
    /// last stored step: its calls left pending were answered when it was
    /// closed, so the model is called again with the thread as stored, and
    /// the run goes on under the same id with a fresh step budget. A
    /// subagent's run is continued with its lead's (naming either does).
    ///
    /// A run paused for a parent's approval continues once every call it
    /// waits on — its own and its subagents' — is decided: its approved
    /// calls run first, and each subagent that paused continues its own run
    /// from its stored history (nothing else of the lead's reply runs again).
    pub async fn prepare_resume(&self, run_id: &str) -> AgentResult<PreparedRun> {
        let agent = self.clone();
        let run_id = run_id.to_string();
        let threads_dir = self.inner.threads_dir.clone();
        let joined = tokio::task::spawn_blocking(move || -> AgentResult<PreparedRun> {
            let store = &agent.inner.store;
            let run = persist::root_run(store, &run_id)?;
            let run_id = run.id.clone();
            let thread = persist::get_thread(store, &run.thread_id)?;
            let lock = ThreadLock::try_acquire(&threads_dir, &thread.id)?
                .ok_or_else(|| AgentError::Busy(thread.id.clone()))?;
            for dead in persist::running_runs(store, Some(&thread.id))? {
                persist::interrupt_run(store, &dead)?;
            }
            let run = persist::get_run(store, &run_id)?;
            if run.status != RunStatus::Interrupted {
                return Err(AgentError::NotResumable {
                    run: run.id,
                    status: run.status.as_str().to_string(),
                });
            }
            // A run paused for approvals continues only once each is
            // decided, its subagents' included.
            let waiting = persist::open_approvals_of_tree(store, &run.id)?;
            let undecided: Vec<String> = waiting
                .iter()
                .filter(|a| a.decision.is_none())
                .map(|a| format!("{} ({})", a.tool_call_id, a.tool))
                .collect();
            if !undecided.is_empty() {
                return Err(AgentError::AwaitingApproval {
                    run: run.id,
                    calls: undecided.join(", "),
                });
            }
            let (approved, resumed) = continuation(store, &run)?;
            persist::reopen_run(store, &run.id)?;
            let first_step = run.steps + 1;
            let run = persist::get_run(store, &run.id)?;
            let mut prepared = agent.open(thread, run, lock, first_step)?;
            prepared.approved = approved;
            prepared.resumed = resumed;
            Ok(prepared)
        })
        .await;
        match joined {
            Ok(r) => r,
            Err(e) => Err(AgentError::Io(format!("continuing the run stopped: {e}"))),
        }
    }

    /// A lead's run ready to execute on `thread`, whose lock is held: the
    /// workspace with the skills as they are now, the history from the
    /// newest summary on, the thread's state.
    fn open(
        &self,
        thread: Thread,
        run: Run,
        lock: ThreadLock,
        first_step: u32,
    ) -> AgentResult<PreparedRun> {
        let store = &self.inner.store;
        // Made when a tool first uses it, with the skills as they are now
        // (a run before may have had others).
        let sandbox = Arc::new(Sandbox::deferred(
            &workspace_dir(&self.inner.threads_dir, &thread.id),
            Arc::clone(&self.inner.config.skills).seed(),
        ));
        // From the newest summary on, when the conversation was summarized.
        let history: Vec<Message> = persist::model_history(store, &thread.id)?;
        let known_call_ids = persist::all_tool_calls(store, &thread.id)?
            .into_iter()
            .map(|c| c.id)
            .collect();
        let state = persist::load_state(store, &thread.id)?;
        let config = &self.inner.config;
        let system = Some(format!(
            "{}{}",
            config.system_prompt,
            config.skills.prompt_section()
        ))
        .filter(|s| !s.trim().is_empty());
        Ok(PreparedRun {
            agent: self.clone(),
            thread,
            run,
            _lock: Some(lock),
            child: false,
            history,
            known_call_ids,
            state,
            sandbox,
            system,
            specs: self.inner.specs.clone(),
            events: None,
            first_step,
            approved: Vec::new(),
            resumed: HashMap::new(),
        })
    }
}

/// What a paused run does first when it continues (its calls and its
/// subagents' are all decided): the parent's decisions on its own calls are
/// applied — approved calls returned to run, the others answered — and its
/// `task` calls whose subagents paused are returned with them, each with
/// the subagent's run to continue.
pub(crate) fn continuation(
    store: &Store,
    run: &persist::Run,
) -> AgentResult<(Vec<deskmate_llm::ToolCall>, HashMap<String, String>)> {
    let own = persist::open_approvals(store, Some(&run.id))?;
    let mut calls = apply_decisions(store, run, &own)?;
    let mut resumed = HashMap::new();
    let paused = persist::paused_children(store, &run.id)?;
    if !paused.is_empty() {
        let stored = persist::all_tool_calls(store, &run.thread_id)?;
        for child in paused {
            let Some(task) = child
                .parent_tool_call_id
                .as_deref()
                .and_then(|id| stored.iter().find(|c| c.id == id))
            else {
                continue;
            };
            calls.push(deskmate_llm::ToolCall {
                id: task.id.clone(),
                name: task.name.clone(),
                arguments: task.arguments.clone(),
            });
            resumed.insert(task.id.clone(), child.id);
        }
    }
    Ok((calls, resumed))
}

/// Applies the decisions on a paused run's calls: a rejected call and one a
/// parent answered get their result now (the model reads it next); approved
/// ones (with their arguments as changed, if they were) are returned to run
/// first when the run continues.
fn apply_decisions(
    store: &Store,
    run: &persist::Run,
    decided: &[persist::Approval],
) -> AgentResult<Vec<deskmate_llm::ToolCall>> {
    use persist::ApprovalDecision as D;
    let mut approved = Vec::new();
    for a in decided {
        let result = match &a.decision {
            Some(D::Approve) => {
                approved.push(deskmate_llm::ToolCall {
                    id: a.tool_call_id.clone(),
                    name: a.tool.clone(),
                    arguments: a.arguments.clone(),
                });
                None
            }
            Some(D::Edit { arguments }) => {
                persist::set_call_arguments(store, &a.thread_id, &a.tool_call_id, arguments)?;
                approved.push(deskmate_llm::ToolCall {
                    id: a.tool_call_id.clone(),
                    name: a.tool.clone(),
                    arguments: arguments.clone(),
                });
                None
            }
            Some(D::Reject { reason }) => Some((
                format!(
                    "Error: a parent did not allow this call ({}): {reason}",
                    a.tool
                ),
                persist::ToolCallStatus::Error,
            )),
            Some(D::Respond { answer }) => {
                Some((answer.clone(), persist::ToolCallStatus::Completed))
            }
            None => None,
        };
        if let Some((content, status)) = result {
            persist::finish_tool_call(
                store,
                &a.thread_id,
                Some(&run.id),
                &a.tool_call_id,
                &content,
                status,
            )?;
        }
    }
    let ids: Vec<String> = decided.iter().map(|a| a.tool_call_id.clone()).collect();
    persist::mark_applied(store, &run.id, &ids)?;
    Ok(approved)
}

/// Closes every run that a crash cut off: a `running` run whose thread lock
/// is free has no live owner; it becomes `interrupted` and its unanswered
/// tool calls get a synthesized result (calls waiting for a parent's
/// approval stay pending). Returns how many runs were closed.
pub fn recover_interrupted_runs(store: &Store, threads_dir: &Path) -> AgentResult<usize> {
    let mut closed = 0;
    for run in persist::running_runs(store, None)? {
        if let Some(_lock) = ThreadLock::try_acquire(threads_dir, &run.thread_id)? {
            // Re-read under the lock: the owner may have just finished it.
            if persist::get_run(store, &run.id)?.status == RunStatus::Running {
                persist::interrupt_run(store, &run)?;
                closed += 1;
            }
        }
    }
    Ok(closed)
}
