//! Parents' routines (issue 21) for the front ends: saved only when the
//! orchestrator's validator finds no problem, run for a child node by node
//! with the run saved after each, resumed after a crash or once a
//! recitation it waits for is done. The graph walking is
//! `deskmate_orchestrator::routine`; this module is the work its nodes do
//! here:
//! - `agent`: the team member of that name (the `agents/` folder; the lead
//!   is `companion`) as a ReAct agent on the configured model: its
//!   instructions, the node's prompt and the run's messages, the study tools
//!   for the run's child, at most six model calls; for a child's run its
//!   answer is checked as a reply to a child (a flagged one replaced, the
//!   parent told);
//! - `tool`: one of the companion's study tools (`due_reviews`,
//!   `recent_attempts`, …), for the run's child;
//! - `recite`: the child's first attempt at the material since the run
//!   began (the run waits until there is one);
//! - `notify_parent`: a note kept with the run's steps (`deskmate
//!   workflows show`) and, for a child's run, a `routine_note` notice in the
//!   parent's view.
//!
//! Supervisor mode ([`Deskmate::supervise`]) hands a conversation to the
//! same team's members in turn.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use deskmate_agent::tools::{ToolContext, ToolSet};
use deskmate_agent::Sandbox;
use deskmate_llm::{ChatRequest, LlmClient, Message};
use deskmate_orchestrator::routine::run::Done;
use deskmate_orchestrator::routine::supervisor::{supervise, Supervised, Team as Supervisor, Turn};
use deskmate_orchestrator::routine::{self, RoutineWork, RunState};
use deskmate_protocol::routine::{
    Routine, RoutineEvent, RoutinePart, RoutineParts, RoutineProblem, RoutineRunView,
};
use deskmate_protocol::AgUiEvent;
use deskmate_recite::history::{self, HistoryFilter};
use deskmate_store::Store;

use crate::chat::ChatOptions;
use crate::{AppError, AppResult, Deskmate};

/// The lead's name in an `agent` node.
pub const LEAD: &str = "companion";

/// The built-in routines (the repository's `routines/` folder), offered as
/// examples to start from: embedded in the binary, never saved until a
/// parent saves one (`deskmate workflows create --file routines/…` or the
/// editor's "new from example").
const EXAMPLES: [&str; 2] = [
    include_str!("../../../routines/evening-review.json"),
    include_str!("../../../routines/weekend-reading.json"),
];

impl Deskmate {
    /// Every saved routine.
    pub fn routines(&self) -> AppResult<Vec<Routine>> {
        self.store()
            .routines()
            .list()?
            .into_iter()
            .map(|row| parse(&row.spec))
            .collect()
    }

    /// The routine `name`.
    pub fn routine(&self, name: &str) -> AppResult<Routine> {
        parse(&self.store().routines().get(name)?.spec)
    }

    /// What is wrong with `routine` (nothing when it can be saved), without
    /// saving it: the editor asks on every change to mark the nodes at fault.
    pub fn check_routine(&self, routine: &Routine) -> Vec<RoutineProblem> {
        routine::validate(routine)
    }

    /// The built-in example routines (not saved).
    pub fn routine_examples(&self) -> AppResult<Vec<Routine>> {
        EXAMPLES.iter().map(|text| parse(text)).collect()
    }

    /// What a routine's `agent` and `tool` nodes can name: the team (the
    /// lead first) and the study tools, each with what it is for.
    pub fn routine_parts(&self) -> RoutineParts {
        let team = self.chat().team();
        let part = |name: &str, description: &str| RoutinePart {
            name: name.to_string(),
            description: description.to_string(),
        };
        let agents = team
            .lead
            .iter()
            .map(|a| part(LEAD, &a.description))
            .chain(team.subagents().map(|a| part(&a.name, &a.description)))
            .collect();
        let mut tools = ToolSet::default();
        crate::study_tools::add_study_tools(self.store(), &mut tools);
        // The set keeps its tools in name order.
        let tools = tools
            .specs()
            .iter()
            .map(|s| part(&s.name, &s.description))
            .collect();
        RoutineParts { agents, tools }
    }

    /// Saves a new routine (`update`: replaces the one of that name) after
    /// checking it; a routine with problems is refused with all of them.
    pub fn save_routine(&self, routine: &Routine, update: bool) -> AppResult<Routine> {
        let problems = routine::validate(routine);
        if !problems.is_empty() {
            let lines: Vec<String> = problems
                .iter()
                .map(|p| format!("- {} ({})", p.message, p.code))
                .collect();
            return Err(AppError::Invalid(format!(
                "the routine {:?} cannot be saved:\n{}",
                routine.name,
                lines.join("\n")
            )));
        }
        let spec = serde_json::to_string(routine)
            .map_err(|e| AppError::Invalid(format!("the routine cannot be written: {e}")))?;
        let store = self.store().routines();
        if update {
            store.update(&routine.name, &spec)?;
        } else {
            store.create(&routine.name, &spec)?;
        }
        self.routine(&routine.name)
    }

    /// Deletes the routine `name` and its runs.
    pub fn delete_routine(&self, name: &str) -> AppResult<()> {
        Ok(self.store().routines().delete(name)?)
    }

    /// The runs of `routine` (all when `None`), newest first.
    pub fn routine_runs(&self, routine: Option<&str>) -> AppResult<Vec<RoutineRunView>> {
        self.store()
            .routines()
            .runs(routine)?
            .into_iter()
            .map(|row| Ok(view(&row.routine, &run_state(&row.state)?)))
            .collect()
    }

    /// Starts a run of `name` for the child `profile_id` on `input`; every
    /// node's start, output and end go to `emit`. Returns when the run
    /// finishes, fails or waits (for a recitation: run
    /// [`Deskmate::resume_routine_run`] after it).
    pub async fn run_routine(
        &self,
        name: &str,
        profile_id: &str,
        input: &str,
        emit: &mut (dyn FnMut(RoutineEvent) + Send),
    ) -> AppResult<RoutineRunView> {
        let routine = self.routine(name)?;
        self.store().profiles().get(profile_id)?;
        let id = uuid::Uuid::now_v7().to_string();
        let state = RunState::new(&id, &routine, input);
        self.go_on(&routine, state, Some(profile_id.to_string()), emit)
            .await
    }

    /// Goes on with the run `run_id` from where it was saved (after a crash,
    /// or to look again whether the recitation it waits for is done).
    pub async fn resume_routine_run(
        &self,
        run_id: &str,
        emit: &mut (dyn FnMut(RoutineEvent) + Send),
    ) -> AppResult<RoutineRunView> {
        let row = self.store().routines().run(run_id)?;
        let routine = self.routine(&row.routine)?;
        let state = run_state(&row.state)?;
        self.go_on(&routine, state, row.profile_id, emit).await
    }

    async fn go_on(
        &self,
        routine: &Routine,
        state: RunState,
        profile_id: Option<String>,
        emit: &mut (dyn FnMut(RoutineEvent) + Send),
    ) -> AppResult<RoutineRunView> {
        let begun = run_begun(&state.id);
        let sandbox_dir = self.config().data_dir.join("routines").join(&state.id);
        let mut tools = ToolSet::default();
        crate::study_tools::add_study_tools(self.store(), &mut tools);
        let child = match &profile_id {
            Some(id) => {
                let p = self.store().profiles().get(id)?;
                (p.kind == deskmate_store::ProfileKind::Child).then(|| ChildReader {
                    profile_id: p.id.clone(),
                    english: p.locale.starts_with("en"),
                    time_zone: p.time_zone.clone(),
                    moderation: crate::chat::child_safety::moderation(self.store())
                        .ok()
                        .flatten(),
                })
            }
            None => None,
        };
        let mut work = AppWork {
            store: self.store().clone(),
            routine: routine.name.clone(),
            profile_id,
            begun,
            model: crate::chat::llm_client(self.store(), &ChatOptions::default()).ok(),
            team: self.chat().team(),
            tools,
            sandbox: Arc::new(Sandbox::deferred(&sandbox_dir, Box::new(|_, _| Ok(())))),
            child,
            emit,
        };
        let done = routine::run(routine, state, &mut work)
            .await
            .map_err(AppError::Invalid)?;
        Ok(view(&routine.name, &done))
    }
}

fn parse(spec: &str) -> AppResult<Routine> {
    serde_json::from_str(spec)
        .map_err(|e| AppError::Invalid(format!("a stored routine cannot be read: {e}")))
}

fn run_state(state: &str) -> AppResult<RunState> {
    serde_json::from_str(state)
        .map_err(|e| AppError::Invalid(format!("a stored routine run cannot be read: {e}")))
}

/// When the run `id` (a UUIDv7) began: its first 48 bits are Unix ms.
fn run_begun(id: &str) -> DateTime<Utc> {
    uuid::Uuid::parse_str(id)
        .ok()
        .and_then(|u| u.get_timestamp())
        .map(|t| t.to_unix())
        .and_then(|(s, ns)| DateTime::from_timestamp(i64::try_from(s).ok()?, ns))
        .unwrap_or_else(Utc::now)
}

fn view(routine: &str, state: &RunState) -> RoutineRunView {
    RoutineRunView {
        id: state.id.clone(),
        routine: routine.to_string(),
        input: state.input.clone(),
        status: state.status.as_str().into(),
        at: state.at.clone(),
        steps: state.steps.clone(),
    }
}

impl AppWork<'_> {
    /// A step's words as the child will read them: checked as a reply to a
    /// child (the kept rules, then the moderation endpoint); a flagged one
    /// becomes the safe reply and the parent gets a notice with the
    /// original. A run for no child (or a parent) is not checked.
    async fn checked(&mut self, agent: &str, text: String) -> Result<String, String> {
        let Some(child) = &self.child else {
            return Ok(text);
        };
        // The moderation endpoint is asked with a blocking client: off the
        // executor, as the chat's guard does.
        let (said, moderation, english) = (text.clone(), child.moderation.clone(), child.english);
        let verdict = tokio::task::spawn_blocking(move || {
            deskmate_orchestrator::safety::check(&said, moderation.as_ref())
        })
        .await
        .map_err(|e| format!("the safety check stopped: {e}"))?;
        if !verdict.flagged() {
            return Ok(text);
        }
        let safe = deskmate_orchestrator::safety::safe_reply(english).to_string();
        self.notice(serde_json::json!({
            "routine": self.routine,
            "agent": agent,
            "note": format!("a step's reply was replaced by a safe one ({})", verdict.reasons.join(", ")),
            "reasons": verdict.reasons,
            "original": text,
        }))?;
        Ok(safe)
    }

    /// A `routine_note` notice for the run's child (none for a run with no child).
    fn notice(&self, detail: serde_json::Value) -> Result<(), String> {
        let Some(child) = &self.child else {
            return Ok(());
        };
        let day = Utc::now()
            .with_timezone(&deskmate_orchestrator::usage::zone(&child.time_zone))
            .date_naive()
            .to_string();
        self.store
            .notices()
            .add(&deskmate_store::NewNotice {
                profile_id: &child.profile_id,
                kind: deskmate_store::NoticeKind::RoutineNote,
                day: &day,
                detail,
                thread_id: None,
            })
            .map(|_| ())
            .map_err(|e| format!("the note to the parent could not be kept: {e}"))
    }
}

/// The work of a run's nodes in the app.
struct AppWork<'e> {
    store: Store,
    routine: String,
    profile_id: Option<String>,
    begun: DateTime<Utc>,
    model: Option<LlmClient>,
    team: deskmate_agent::team::Team,
    tools: ToolSet,
    sandbox: Arc<Sandbox>,
    /// Set when the run is for a child: what a step says is checked as a
    /// reply to them.
    child: Option<ChildReader>,
    emit: &'e mut (dyn FnMut(RoutineEvent) + Send),
}

/// The child a run's steps speak to: their words are checked as the
/// companion's replies are (the kept rules, then the moderation endpoint).
struct ChildReader {
    profile_id: String,
    english: bool,
    time_zone: String,
    moderation: Option<deskmate_orchestrator::safety::Moderation>,
}

/// How many model calls an agent step may make (its tool rounds included).
const AGENT_STEP_CALLS: usize = 6;

impl RoutineWork for AppWork<'_> {
    async fn agent(
        &mut self,
        agent: &str,
        prompt: &str,
        messages: &[String],
    ) -> Result<String, String> {
        let instructions = if agent == LEAD {
            self.team.lead.as_ref().map(|a| a.instructions.clone())
        } else {
            self.team.subagent(agent).map(|a| a.instructions.clone())
        }
        .ok_or_else(|| {
            let names: Vec<&str> = std::iter::once(LEAD)
                .chain(self.team.subagents().map(|a| a.name.as_str()))
                .collect();
            format!(
                "the team has no agent called {agent:?} (it has {})",
                names.join(", ")
            )
        })?;
        let model = self.model.as_ref().ok_or(
            "no chat model is configured: a parent sets one with `deskmate llm set` before a routine's agent can answer",
        )?;
        let conversation = messages
            .iter()
            .enumerate()
            .map(|(i, m)| format!("[{}] {m}", if i == 0 { "input" } else { "step" }))
            .collect::<Vec<_>>()
            .join("\n");
        let model = model.clone();
        let mut req = ChatRequest {
            system: Some(format!(
                "{instructions}\n\nYou are one step of a routine a parent set up for their child. \
                 Look up what you need with the study tools (they read this child's learning), then answer."
            )),
            messages: vec![Message::user(format!(
                "{conversation}\n\nYour task in this step: {prompt}"
            ))],
            tools: self.tools.specs(),
            max_tokens: Some(800),
            temperature: None,
        };
        // A ReAct agent: call tools until it answers in words.
        for _ in 0..AGENT_STEP_CALLS {
            let reply = model
                .complete(&req)
                .await
                .map_err(|e| format!("{agent} could not answer: {e}"))?;
            if reply.tool_calls.is_empty() {
                return self.checked(agent, reply.text).await;
            }
            req.messages.push(Message::assistant(
                reply.text.clone(),
                reply.tool_calls.clone(),
            ));
            for call in &reply.tool_calls {
                let result = match serde_json::from_str::<serde_json::Value>(&call.arguments) {
                    Ok(args) => self.tool(&call.name, &args).await,
                    Err(e) => Err(format!("the arguments are not JSON ({e})")),
                };
                let (text, is_error) = match result {
                    Ok(t) => (t, false),
                    Err(e) => (e, true),
                };
                req.messages
                    .push(Message::tool_result(&call.id, text, is_error));
            }
        }
        Err(format!(
            "{agent} did not answer within {AGENT_STEP_CALLS} model calls"
        ))
    }

    async fn tool(&mut self, tool: &str, args: &serde_json::Value) -> Result<String, String> {
        let found = self.tools.get(tool).cloned().ok_or_else(|| {
            format!(
                "no study tool called {tool:?} (there are {})",
                self.tools.names().join(", ")
            )
        })?;
        let mut args = args.clone();
        if let (Some(child), Some(obj)) = (&self.profile_id, args.as_object_mut()) {
            obj.entry("child")
                .or_insert_with(|| serde_json::Value::String(child.clone()));
        } else if args.is_null() {
            args = serde_json::json!({ "child": self.profile_id });
        }
        let ctx = ToolContext {
            sandbox: Arc::clone(&self.sandbox),
            thread_id: String::new(),
            tool_call_id: format!("routine-{}", self.routine),
            run: None,
        };
        let out = found.call(ctx, args).await;
        if out.is_error {
            Err(format!("{tool}: {}", out.content))
        } else {
            Ok(out.content)
        }
    }

    fn recite(&mut self, _run_id: &str, material: &str) -> Result<Done, String> {
        let child = self
            .profile_id
            .as_deref()
            .ok_or("a recitation needs the child the routine runs for")?;
        let found =
            crate::recite::find_material(&self.store, material).map_err(|e| e.to_string())?;
        let attempts = history::list(
            &self.store,
            child,
            &HistoryFilter {
                material_id: Some(found.id.clone()),
                from: Some(self.begun),
                to: None,
                limit: 100,
            },
        )
        .map_err(|e| e.to_string())?;
        // The first attempt since the run began (the list is newest first).
        Ok(match attempts.last() {
            Some(a) => Done::Output(format!(
                "{}: {:.0}% {}",
                found.title,
                a.accuracy,
                if a.passed { "passed" } else { "not passed yet" }
            )),
            None => Done::Waiting(format!("waiting for {} to be recited", found.title)),
        })
    }

    fn notify_parent(&mut self, message: &str) -> Result<(), String> {
        // Kept with the run's steps (`deskmate workflows show`) and, for a
        // child's run, as a notice in the parent's view.
        tracing::info!(routine = %self.routine, "a note to the parent");
        self.notice(serde_json::json!({ "routine": self.routine, "note": message }))
    }

    fn save(&mut self, state: &RunState) -> Result<(), String> {
        let text = serde_json::to_string(state).map_err(|e| e.to_string())?;
        self.store
            .routines()
            .save_run(
                &state.id,
                &self.routine,
                self.profile_id.as_deref(),
                state.status.as_str(),
                &text,
            )
            .map_err(|e| format!("the run could not be saved: {e}"))
    }

    fn event(&mut self, event: RoutineEvent) {
        (self.emit)(event);
    }
}

/// The team as the supervisor sees it: each subagent of `agents/` answers
/// on the configured model with its instructions and the conversation.
struct SupervisedTeam {
    team: deskmate_agent::team::Team,
    model: LlmClient,
}

impl Supervisor for SupervisedTeam {
    fn agents(&self) -> Vec<(String, String)> {
        self.team
            .subagents()
            .map(|a| (a.name.clone(), a.description.clone()))
            .collect()
    }

    async fn turn(&mut self, agent: &str, conversation: &[Turn]) -> Result<String, String> {
        let instructions = self
            .team
            .subagent(agent)
            .map(|a| a.instructions.clone())
            .ok_or_else(|| format!("the team has no agent called {agent:?}"))?;
        let said: Vec<String> = conversation
            .iter()
            .map(|t| format!("[{}] {}", t.speaker, t.text))
            .collect();
        answer_as(
            &self.model,
            agent,
            &instructions,
            "You are one member of a team answering a child together; \
             a supervisor handed the conversation to you. Add your part only.",
            said.join("\n"),
        )
        .await
    }
}

/// One team member's answer on `model`: its `instructions` with what its
/// part is (`role`), given `said`. Used by a routine's agent node and by a
/// supervisor's hand-off.
async fn answer_as(
    model: &LlmClient,
    agent: &str,
    instructions: &str,
    role: &str,
    said: String,
) -> Result<String, String> {
    let req = ChatRequest {
        system: Some(format!("{instructions}\n\n{role}")),
        messages: vec![Message::user(said)],
        tools: vec![],
        max_tokens: Some(800),
        temperature: None,
    };
    model
        .complete(&req)
        .await
        .map(|r| r.text)
        .map_err(|e| format!("{agent} could not answer: {e}"))
}

impl Deskmate {
    /// Starts supervisor mode on a thread of its own (the team's turns are
    /// not `Send`, so it has its own runtime): `RUN_STARTED` with the
    /// returned run id (and no thread: it is not stored as a
    /// conversation), each hand-off's step with the agent's reply, then
    /// `RUN_FINISHED` with `{ending, rounds}` or `RUN_ERROR`. No model, or
    /// the model notice not agreed to, is refused before anything starts.
    pub fn start_supervised(
        &self,
        input: &str,
        opts: &ChatOptions,
        events: deskmate_agent::EventSink,
    ) -> AppResult<String> {
        crate::chat::llm_client(self.store(), opts)?;
        let run_id = uuid::Uuid::now_v7().to_string();
        let (app, input, opts, id) = (
            self.clone(),
            input.to_string(),
            opts.clone(),
            run_id.clone(),
        );
        std::thread::Builder::new()
            .name("supervisor".into())
            .spawn(move || {
                let _ = events.send(AgUiEvent::RunStarted {
                    thread_id: String::new(),
                    run_id: id.clone(),
                });
                let done = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map_err(|e| AppError::Thread {
                        what: "cannot run the supervisor",
                        reason: e.to_string(),
                    })
                    .and_then(|rt| {
                        rt.block_on(async {
                            let mut emit = |e: AgUiEvent| {
                                let _ = events.send(e);
                            };
                            app.supervise(&input, &opts, &mut emit).await
                        })
                    });
                let last = match done {
                    Ok(done) => AgUiEvent::RunFinished {
                        thread_id: String::new(),
                        run_id: id,
                        result: Some(serde_json::json!({
                            "ending": done.ending_text(),
                            "rounds": done.rounds,
                        })),
                        outcome: None,
                    },
                    Err(e) => AgUiEvent::RunError {
                        message: e.to_string(),
                        code: Some(e.code().to_string()),
                    },
                };
                let _ = events.send(last);
            })
            .map_err(|e| AppError::Thread {
                what: "cannot start the supervisor",
                reason: e.to_string(),
            })?;
        Ok(run_id)
    }

    /// A conversation in supervisor mode: a supervisor on the configured
    /// model (`opts` laid over it) hands `input` to the team's agents in
    /// turn until it ends it (at most 25 hand-offs); each hand-off is a
    /// `STEP_STARTED` / `STEP_FINISHED` pair sent to `emit`.
    pub async fn supervise(
        &self,
        input: &str,
        opts: &ChatOptions,
        emit: &mut dyn FnMut(deskmate_protocol::AgUiEvent),
    ) -> AppResult<Supervised> {
        let model = crate::chat::llm_client(self.store(), opts)?;
        let mut team = SupervisedTeam {
            team: self.chat().team(),
            model: model.clone(),
        };
        supervise(&model, &mut team, input, emit)
            .await
            .map_err(AppError::Invalid)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use deskmate_protocol::routine::NodeKind;

    use crate::{Config, Deskmate};

    /// The examples the editor offers are valid routines, and every agent
    /// and tool they name is one the editor's pickers list.
    #[test]
    fn the_examples_check_clean_and_name_only_offered_parts() {
        let dir = tempfile::tempdir().unwrap();
        let app = Deskmate::open(Config::in_dir(dir.path())).unwrap();
        let parts = app.routine_parts();
        assert_eq!(parts.agents[0].name, super::LEAD);
        let agents: Vec<&str> = parts.agents.iter().map(|a| a.name.as_str()).collect();
        let tools: Vec<&str> = parts.tools.iter().map(|t| t.name.as_str()).collect();
        assert!(tools.contains(&"due_reviews"), "{tools:?}");
        let examples = app.routine_examples().unwrap();
        assert_eq!(examples.len(), 2);
        for r in &examples {
            assert_eq!(app.check_routine(r), vec![], "{}", r.name);
            for n in &r.nodes {
                match &n.kind {
                    NodeKind::Agent { agent, .. } => {
                        assert!(agents.contains(&agent.as_str()), "{agent}")
                    }
                    NodeKind::Tool { tool, .. } => {
                        assert!(tools.contains(&tool.as_str()), "{tool}")
                    }
                    _ => {}
                }
            }
        }
        // A graph with a fault is explained, node by node, without saving.
        let mut broken = examples[1].clone();
        broken.nodes.retain(|n| n.id != "end");
        let codes: Vec<String> = app
            .check_routine(&broken)
            .into_iter()
            .map(|p| p.code)
            .collect();
        assert!(codes.contains(&"routine.no_end".to_string()), "{codes:?}");
        assert!(app.routines().unwrap().is_empty(), "nothing was saved");
    }
}
