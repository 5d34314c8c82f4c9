//! Running a routine: from its start, one node at a time, each node's
//! output joining the run's messages, until an end. The run's state is
//! handed to [`RoutineWork::save`] after every node, so a run stopped by a
//! crash goes on from the node it had reached ([`run`] on the saved state).
//! A node whose work was done but not yet saved runs again on resume: work
//! is at least once, and the saved steps exactly once.
//!
//! What nodes do outside the graph (asking an agent, calling a tool, the
//! child's recitation, a note to the parent) is the [`RoutineWork`] the
//! caller gives: the app's ask the real team; tests give scripted ones.

use std::future::Future;

use deskmate_protocol::routine::{NodeKind, Routine, RoutineEvent, RoutineNode, RoutineStep};
use serde::{Deserialize, Serialize};

/// Where a run stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    Running,
    /// Waiting for something outside the run (a recitation); run it again
    /// to look once more.
    Waiting,
    Finished,
    Failed,
}

impl RunStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Running => "running",
            RunStatus::Waiting => "waiting",
            RunStatus::Finished => "finished",
            RunStatus::Failed => "failed",
        }
    }
}

/// A run's saved state: enough to go on after a restart.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunState {
    pub id: String,
    pub input: String,
    pub status: RunStatus,
    /// The node to run next (or the one the run waits on / failed at);
    /// `None` once finished.
    pub at: Option<String>,
    /// The messages so far: the input, then each node's output.
    pub messages: Vec<String>,
    pub steps: Vec<RoutineStep>,
    /// Why the run failed, in plain words.
    #[serde(default)]
    pub error: Option<String>,
}

impl RunState {
    /// A new run of `routine` from its start with `input` as the first message.
    pub fn new(id: &str, routine: &Routine, input: &str) -> Self {
        let start = routine
            .nodes
            .iter()
            .find(|n| matches!(n.kind, NodeKind::Start))
            .map(|n| n.id.clone());
        Self {
            id: id.into(),
            input: input.into(),
            status: RunStatus::Running,
            at: start,
            messages: vec![input.into()],
            steps: Vec::new(),
            error: None,
        }
    }
}

/// What a node's work returned.
pub enum Done {
    /// The node's output (joins the messages; empty joins nothing).
    Output(String),
    /// Not yet: the run waits, for this reason.
    Waiting(String),
}

/// The work nodes do outside the graph, and where a run is saved.
pub trait RoutineWork {
    /// An agent of the team answers `prompt`, given the messages so far.
    fn agent(
        &mut self,
        agent: &str,
        prompt: &str,
        messages: &[String],
    ) -> impl Future<Output = Result<String, String>>;
    /// A tool called with `args`; its output.
    fn tool(
        &mut self,
        tool: &str,
        args: &serde_json::Value,
    ) -> impl Future<Output = Result<String, String>>;
    /// The child's recitation of `material` in this run: the verdict in
    /// words once recited, [`Done::Waiting`] until then.
    fn recite(&mut self, run_id: &str, material: &str) -> Result<Done, String>;
    /// Tells the parent `message`.
    fn notify_parent(&mut self, message: &str) -> Result<(), String>;
    /// Saves the run (after every node). A run that cannot be saved stops.
    fn save(&mut self, state: &RunState) -> Result<(), String>;
    /// What the run reports as it goes.
    fn event(&mut self, event: RoutineEvent);
}

/// At most this many nodes per run: a validated routine never comes near
/// it (it has no cycles); it guards a routine changed under a saved run.
pub const MAX_STEPS: usize = 1000;

/// Runs `state` on through `routine` until it finishes, waits or fails;
/// returns the state as last saved. The routine must have passed
/// [`super::validate`].
pub async fn run<W: RoutineWork>(
    routine: &Routine,
    mut state: RunState,
    work: &mut W,
) -> Result<RunState, String> {
    if matches!(state.status, RunStatus::Finished | RunStatus::Failed) {
        return Ok(state);
    }
    state.status = RunStatus::Running;
    let run_id = state.id.clone();
    for _ in 0..MAX_STEPS {
        let Some(at) = state.at.clone() else {
            state.status = RunStatus::Finished;
            work.save(&state)?;
            work.event(RoutineEvent::Finished { run_id });
            return Ok(state);
        };
        let Some(node) = routine.nodes.iter().find(|n| n.id == at) else {
            return fail(
                state,
                work,
                &at,
                format!("the routine has no node \"{at}\" any more"),
            );
        };
        work.event(RoutineEvent::NodeStarted {
            run_id: run_id.clone(),
            node: at.clone(),
            kind: kind_name(&node.kind).into(),
        });
        let outcome = match step(node, &state, work).await {
            Ok(outcome) => outcome,
            Err(message) => return fail(state, work, &at, message),
        };
        match outcome {
            (Done::Waiting(reason), _) => {
                state.status = RunStatus::Waiting;
                work.save(&state)?;
                work.event(RoutineEvent::Waiting {
                    run_id,
                    node: at,
                    reason,
                });
                return Ok(state);
            }
            (Done::Output(text), next) => {
                if !text.is_empty() {
                    work.event(RoutineEvent::NodeOutput {
                        run_id: run_id.clone(),
                        node: at.clone(),
                        text: text.clone(),
                    });
                    state.messages.push(text.clone());
                }
                state.steps.push(RoutineStep {
                    node: at.clone(),
                    output: text,
                });
                state.at = next;
                work.save(&state)?;
                work.event(RoutineEvent::NodeFinished {
                    run_id: run_id.clone(),
                    node: at,
                });
            }
        }
    }
    let at = state.at.clone().unwrap_or_default();
    fail(
        state,
        work,
        &at,
        format!("the run went past {MAX_STEPS} steps"),
    )
}

/// Runs one node: what it did and the node that follows.
async fn step<W: RoutineWork>(
    node: &RoutineNode,
    state: &RunState,
    work: &mut W,
) -> Result<(Done, Option<String>), String> {
    let next = node.next.clone();
    let last = state.messages.last().map(String::as_str).unwrap_or("");
    Ok(match &node.kind {
        NodeKind::Start => (Done::Output(String::new()), next),
        NodeKind::End => (Done::Output(String::new()), None),
        NodeKind::Agent { agent, prompt } => (
            Done::Output(work.agent(agent, prompt, &state.messages).await?),
            next,
        ),
        NodeKind::Tool { tool, args } => (Done::Output(work.tool(tool, args).await?), next),
        NodeKind::Condition { branches, default } => {
            let chosen = branches
                .iter()
                .find(|b| last.contains(b.keyword.as_str()))
                .map(|b| b.to.clone())
                .or_else(|| default.clone());
            (Done::Output(String::new()), chosen)
        }
        NodeKind::Recite { material } => (work.recite(&state.id, material)?, next),
        NodeKind::NotifyParent { message } => {
            let text = message.replace("{last}", last);
            work.notify_parent(&text)?;
            (Done::Output(text), next)
        }
    })
}

fn fail<W: RoutineWork>(
    mut state: RunState,
    work: &mut W,
    at: &str,
    message: String,
) -> Result<RunState, String> {
    state.status = RunStatus::Failed;
    state.error = Some(message.clone());
    work.save(&state)?;
    work.event(RoutineEvent::Failed {
        run_id: state.id.clone(),
        node: at.into(),
        message,
    });
    Ok(state)
}

/// The node type's name as in the routine file (`agent`, `tool`, …).
pub fn kind_name(kind: &NodeKind) -> &'static str {
    match kind {
        NodeKind::Start => "start",
        NodeKind::End => "end",
        NodeKind::Agent { .. } => "agent",
        NodeKind::Tool { .. } => "tool",
        NodeKind::Condition { .. } => "condition",
        NodeKind::Recite { .. } => "recite",
        NodeKind::NotifyParent { .. } => "notify_parent",
    }
}

#[cfg(test)]
mod tests;
