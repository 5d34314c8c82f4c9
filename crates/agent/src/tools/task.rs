//! `task(description, subagent_type)`: the lead hands a self-contained piece
//! of work to a specialist subagent from `agents/` (see [`crate::team`]).
//!
//! The subagent runs with a fresh history holding only the description, its
//! own instructions (plus the skills list) and its own tools — `task` only
//! while depth remains ([`crate::AgentConfig::subagent_depth`], 1 by
//! default: subagents cannot start subagents) — and its own step limit
//! ([`crate::AgentConfig::subagent_max_steps`]), on the same workspace as
//! the lead. Only its final message comes back as the tool's
//! result. Several `task` calls in one reply run at the same time (the loop
//! runs a reply's tool calls concurrently). The subagent's run is stored as
//! a child of the lead's run ([`crate::persist::start_child_run`]): its
//! messages and tool calls are kept and shown under the `task` call, and
//! left out of the lead's own history. It stops when the lead's run stops.
//! Its AG-UI events stream live in the lead's stream as CUSTOM
//! [`SUBAGENT_EVENT`] events carrying the lane (`tool_call_id`,
//! `subagent_type`) and the subagent's own event, so a window can follow
//! several subagents side by side.
//! Its todo list is its own and is not stored as the thread's.
//!
//! With subagents turned off, `task` answers [`SUBAGENTS_OFF`] and starts
//! nothing (the single-agent mode of the deep-agents design).
//!
//! A subagent's call of a tool that needs a parent's approval pauses it:
//! its run holds the call and ends `interrupted`, and `task` hands the
//! waiting call up instead of a result ([`ToolOutput::waiting`]), so the
//! lead's run pauses too with its `task` call unanswered. When the lead's
//! run continues, that call is run again with the subagent's run to
//! continue ([`super::RunContext::resume_run`]): the subagent goes on from
//! its stored history — the decided call first — and its final answer is
//! the `task` call's result.
//!
//! A subagent whose `AGENTS.md` names a `model` runs on that model, built by
//! the [`ModelSource`] the app gives ([`Task::with_models`]); a model that
//! cannot be built is told to the lead as the call's error, never silently
//! swapped for the lead's. Without a source every subagent uses the lead's.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use deskmate_llm::{LlmClient, Message};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

use super::{parse_args, schema, Tool, ToolContext, ToolFuture, ToolOutput, ToolSet};
use crate::events::AgUiEvent;
use crate::persist::{self, RunStatus};
use crate::runtime::{continuation, db, AgentInner, PreparedRun};
use crate::team::Team;
use crate::Agent;

/// The name of the CUSTOM events that carry a subagent's own events.
pub const SUBAGENT_EVENT: &str = "subagent_event";

/// What `task` answers when subagents are turned off.
pub const SUBAGENTS_OFF: &str = "未开启子代理，不创建新 agent";

/// How long one subagent may work before the lead is told it ran out of time.
pub const TASK_TIME_LIMIT: Duration = Duration::from_secs(10 * 60);

/// Model calls a subagent's run may make.
pub const SUBAGENT_MAX_STEPS: u32 = 15;

/// Hand a self-contained task to a specialist subagent.
#[derive(Deserialize, JsonSchema)]
struct TaskArgs {
    /// The whole task for the subagent: it sees nothing else of this
    /// conversation, so include what it needs (the child's grade, the exact
    /// problem or text, what answer you want back).
    description: String,
    /// Which subagent does it (see the list in this parameter's enum).
    subagent_type: String,
}

/// Builds a client for a `provider:model` a subagent asks for (with the
/// app's keys and settings), or says why it cannot.
pub type ModelSource = Arc<dyn Fn(&str) -> Result<LlmClient, String> + Send + Sync>;

/// The `task` tool over a team.
pub struct Task {
    team: Arc<Team>,
    enabled: bool,
    models: Option<ModelSource>,
}

impl Task {
    /// `task` over `team`'s subagents; with `enabled` false it starts nothing.
    pub fn new(team: Arc<Team>, enabled: bool) -> Self {
        Self {
            team,
            enabled,
            models: None,
        }
    }

    /// Runs a subagent that names its own `model` on that model, built by `models`.
    pub fn with_models(mut self, models: ModelSource) -> Self {
        self.models = Some(models);
        self
    }
}

impl Tool for Task {
    fn name(&self) -> &'static str {
        "task"
    }

    fn description(&self) -> &'static str {
        "Hands a self-contained task to a specialist subagent and returns its final answer. The subagent sees only your description, \
so make it complete. Use it for work a subagent's description fits; independent tasks may be given in the same reply and run at the same time. \
The subagents and what each is for are listed under subagent_type."
    }

    fn parameters(&self) -> Value {
        let mut params = schema::<TaskArgs>();
        let names: Vec<&str> = self.team.subagents().map(|a| a.name.as_str()).collect();
        let listed: Vec<String> = self
            .team
            .subagents()
            .map(|a| format!("- {}: {}", a.name, a.description.replace('\n', " ")))
            .collect();
        if let Some(kind) = params.pointer_mut("/properties/subagent_type") {
            kind["enum"] = json!(names);
            kind["description"] = json!(format!("The subagent to use:\n{}", listed.join("\n")));
        }
        params
    }

    fn evictable(&self) -> bool {
        false
    }

    fn call(&self, ctx: ToolContext, args: Value) -> ToolFuture {
        let team = Arc::clone(&self.team);
        let enabled = self.enabled;
        let models = self.models.clone();
        Box::pin(async move {
            let args: TaskArgs = match parse_args("task", args) {
                Ok(a) => a,
                Err(e) => return e,
            };
            if !enabled {
                return ToolOutput::ok(SUBAGENTS_OFF);
            }
            let Some(profile) = team.subagent(args.subagent_type.trim()) else {
                let known: Vec<&str> = team.subagents().map(|a| a.name.as_str()).collect();
                return ToolOutput::error(format!(
                    "there is no subagent {:?}; the subagents are: {}",
                    args.subagent_type,
                    known.join(", ")
                ));
            };
            if args.description.trim().is_empty() {
                return ToolOutput::error(
                    "the description is empty; say what the subagent should do",
                );
            }
            let Some(run) = ctx.run.clone() else {
                return ToolOutput::error("a subagent can only be started from inside a run");
            };
            let lead = &run.agent.inner;
            let Some(depth_left) = lead.config.subagent_depth.checked_sub(1) else {
                return ToolOutput::error(
                    "this agent may not start subagents (the subagent depth is used up); do the task yourself",
                );
            };
            let llm = match (&profile.model, &models) {
                (Some(spec), Some(make)) => match make(spec) {
                    Ok(client) => client,
                    Err(why) => {
                        return ToolOutput::error(format!(
                            "the subagent {} runs on the model {spec}, which cannot be used: {why}",
                            profile.name
                        ))
                    }
                },
                _ => lead.llm.clone(),
            };
            // Its own tools; `task` only while depth remains below it.
            let names: Vec<&str> = profile
                .tools
                .iter()
                .map(String::as_str)
                .filter(|t| *t != "task" || depth_left > 0)
                .collect();
            // From the lead's tools, whoever starts it.
            let tools = lead.team_tools.only(&names);
            let mut config = lead.config.clone();
            config.max_steps = lead.config.subagent_max_steps;
            config.subagent_depth = depth_left;
            config.system_prompt = profile.instructions.clone();
            let system = format!("{}{}", config.system_prompt, config.skills.prompt_section());
            let specs = tools.specs();
            let child = Agent {
                inner: Arc::new(AgentInner {
                    store: lead.store.clone(),
                    llm: llm.clone(),
                    tools,
                    specs: specs.clone(),
                    config,
                    threads_dir: lead.threads_dir.clone(),
                    team_tools: Arc::clone(&lead.team_tools),
                }),
            };
            let (thread_id, parent_run, call_id, agent_name, model) = (
                ctx.thread_id.clone(),
                run.run_id.clone(),
                ctx.tool_call_id.clone(),
                profile.name.clone(),
                llm.model().to_string(),
            );
            let user = Message::user(args.description.clone());
            let resume = run.resume_run.clone();
            let continuing = resume.is_some();
            let started = db(&lead.store, move |s| {
                let thread = persist::get_thread(s, &thread_id)?;
                let known: HashSet<String> = persist::all_tool_calls(s, &thread_id)?
                    .into_iter()
                    .map(|c| c.id)
                    .collect();
                let state = persist::load_state(s, &thread_id)?;
                let Some(paused) = resume else {
                    let run = persist::start_child_run(
                        s,
                        &thread_id,
                        &model,
                        &parent_run,
                        &call_id,
                        &agent_name,
                    )?;
                    persist::insert_message(s, &thread_id, Some(&run.id), None, &user)?;
                    let history = vec![user];
                    return Ok((thread, run, known, state, history, Continued::default()));
                };
                // The subagent's run paused for a parent: it goes on from its
                // stored history, the parent's decisions applied.
                let run = persist::get_run(s, &paused)?;
                let (approved, resumed) = continuation(s, &run).map_err(|e| match e {
                    crate::AgentError::Store(e) => e,
                    other => deskmate_store::StoreError::Invalid(other.to_string()),
                })?;
                persist::reopen_run(s, &run.id)?;
                let history = persist::run_messages(s, &thread_id, &run.id)?
                    .into_iter()
                    .map(|m| m.message)
                    .collect();
                let next = Continued {
                    first_step: run.steps + 1,
                    approved,
                    resumed,
                };
                let run = persist::get_run(s, &run.id)?;
                Ok((thread, run, known, state, history, next))
            })
            .await;
            let (thread, child_run, known_call_ids, state, history, next) = match started {
                Ok(v) => v,
                Err(e) if continuing => {
                    return ToolOutput::error(format!("the subagent could not continue: {e}"))
                }
                Err(e) => return ToolOutput::error(format!("the subagent could not start: {e}")),
            };
            let child_run_id = child_run.id.clone();
            let prepared = PreparedRun {
                agent: child,
                thread,
                run: child_run,
                _lock: None,
                child: true,
                history,
                known_call_ids,
                state,
                sandbox: Arc::clone(&ctx.sandbox),
                system: Some(system),
                specs,
                events: None,
                first_step: next.first_step.max(1),
                approved: next.approved,
                resumed: next.resumed,
            };
            // The subagent's events stream live into the lead's, each in a
            // CUSTOM `subagent_event` that names its lane (this call and the
            // subagent): a run inside a run would break AG-UI's order.
            let (events, mut lane) = tokio::sync::mpsc::unbounded_channel::<AgUiEvent>();
            let forward = run.events.clone().map(|lead| {
                let (call, kind) = (ctx.tool_call_id.clone(), profile.name.clone());
                tokio::spawn(async move {
                    while let Some(event) = lane.recv().await {
                        let value =
                            json!({"tool_call_id": call, "subagent_type": kind, "event": event});
                        let _ = lead.send(AgUiEvent::Custom {
                            name: SUBAGENT_EVENT.into(),
                            value,
                        });
                    }
                })
            });
            let outcome = prepared.execute(events, run.cancel.child_token()).await;
            if let Some(forward) = forward {
                // Every event of the subagent is out before its result is.
                let _ = forward.await;
            }
            match outcome.status {
                // Paused for a parent's approval: the lead pauses with it,
                // this call unanswered until the subagent continues.
                RunStatus::Interrupted if !outcome.waiting.is_empty() => {
                    let waiting = outcome
                        .waiting
                        .into_iter()
                        .map(|mut w| {
                            w.task_call_id = Some(ctx.tool_call_id.clone());
                            w.subagent_type.get_or_insert_with(|| profile.name.clone());
                            w
                        })
                        .collect();
                    tracing::debug!(run = %child_run_id, "a subagent paused for a parent's approval");
                    ToolOutput::waiting(waiting)
                }
                RunStatus::Completed if outcome.answer.trim().is_empty() => {
                    ToolOutput::ok(format!("({} finished without an answer)", profile.name))
                }
                RunStatus::Completed => ToolOutput::ok(outcome.answer),
                RunStatus::StepLimit => ToolOutput::error(format!(
                    "the subagent {} used all its {} steps (model calls) without a final answer; give it a smaller task or do it yourself",
                    profile.name, outcome.steps
                )),
                RunStatus::Cancelled => ToolOutput::error(format!(
                    "the subagent {} was stopped with the run",
                    profile.name
                )),
                _ => ToolOutput::error(format!(
                    "the subagent {} did not finish: {}",
                    profile.name,
                    outcome
                        .error
                        .unwrap_or_else(|| outcome.status.as_str().to_string())
                )),
            }
        })
    }
}

/// Where a subagent's run starts: a new one at step 1 with nothing to
/// run first; a paused one after its last step, with the calls a parent
/// decided (see [`continuation`]).
#[derive(Default)]
struct Continued {
    first_step: u32,
    approved: Vec<deskmate_llm::ToolCall>,
    resumed: std::collections::HashMap<String, String>,
}

impl ToolSet {
    /// The tools of this set named in `names` (unknown names are skipped),
    /// with the same time limits.
    pub fn only(&self, names: &[&str]) -> ToolSet {
        let mut set = ToolSet {
            time_limits: self.time_limits.clone(),
            ..ToolSet::default()
        };
        for name in names {
            if let Some(tool) = self.get(name) {
                set.add(Arc::clone(tool));
            }
        }
        set
    }
}
