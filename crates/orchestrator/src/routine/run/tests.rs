//! Runs of routines with scripted work: branches by condition, a tool's
//! output in the messages, waiting for a recitation, a crash mid-run
//! resumed, and (property) every routine the validator accepts finishes.

use std::collections::HashMap;

use deskmate_protocol::routine::{Branch, NodeKind, Routine, RoutineEvent, RoutineNode};
use proptest::prelude::*;

use super::*;
use crate::routine::validate;

/// Work that answers from a script and keeps what happened.
#[derive(Default)]
struct Scripted {
    answers: HashMap<String, String>,
    recited: HashMap<String, String>,
    notes: Vec<String>,
    saved: Vec<RunState>,
    events: Vec<RoutineEvent>,
    /// Fail every save after this many (a crash).
    crash_after_saves: Option<usize>,
    asked: Vec<(String, Vec<String>)>,
}

impl RoutineWork for Scripted {
    async fn agent(
        &mut self,
        agent: &str,
        prompt: &str,
        messages: &[String],
    ) -> Result<String, String> {
        self.asked.push((agent.to_string(), messages.to_vec()));
        Ok(self
            .answers
            .get(prompt)
            .cloned()
            .unwrap_or_else(|| format!("{agent} answers {prompt}")))
    }

    async fn tool(&mut self, tool: &str, args: &serde_json::Value) -> Result<String, String> {
        match tool {
            "due_reviews" => Ok(format!("due: {}", args["poems"])),
            other => Err(format!("no tool called {other}")),
        }
    }

    fn recite(&mut self, _run_id: &str, material: &str) -> Result<Done, String> {
        Ok(match self.recited.get(material) {
            Some(verdict) => Done::Output(verdict.clone()),
            None => Done::Waiting(format!("waiting for {material} to be recited")),
        })
    }

    fn notify_parent(&mut self, message: &str) -> Result<(), String> {
        self.notes.push(message.to_string());
        Ok(())
    }

    fn save(&mut self, state: &RunState) -> Result<(), String> {
        if self
            .crash_after_saves
            .is_some_and(|n| self.saved.len() >= n)
        {
            return Err("the disk went away".into());
        }
        self.saved.push(state.clone());
        Ok(())
    }

    fn event(&mut self, event: RoutineEvent) {
        self.events.push(event);
    }
}

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(f)
}

fn node(id: &str, kind: NodeKind, next: Option<&str>) -> RoutineNode {
    RoutineNode {
        id: id.into(),
        kind,
        next: next.map(str::to_string),
        position: None,
    }
}

/// The evening review: plan → due reviews (tool) → condition on the plan's
/// answer → 静夜思 recited or a quiz → a note to the parent → end.
fn evening() -> Routine {
    Routine {
        name: "evening".into(),
        description: "today's plan, a recitation or a quiz, a note".into(),
        nodes: vec![
            node("start", NodeKind::Start, Some("plan")),
            node(
                "plan",
                NodeKind::Agent {
                    agent: "planner".into(),
                    prompt: "今天做什么?".into(),
                },
                Some("due"),
            ),
            node(
                "due",
                NodeKind::Tool {
                    tool: "due_reviews".into(),
                    args: serde_json::json!({"poems": 2}),
                },
                Some("agent_choice"),
            ),
            node(
                "agent_choice",
                NodeKind::Agent {
                    agent: "companion".into(),
                    prompt: "背诵还是测验?".into(),
                },
                Some("choose"),
            ),
            node(
                "choose",
                NodeKind::Condition {
                    branches: vec![Branch {
                        keyword: "背诵".into(),
                        to: "recite".into(),
                    }],
                    default: Some("quiz".into()),
                },
                None,
            ),
            node(
                "recite",
                NodeKind::Recite {
                    material: "静夜思".into(),
                },
                Some("note"),
            ),
            node(
                "quiz",
                NodeKind::Agent {
                    agent: "quizzer".into(),
                    prompt: "出三道题".into(),
                },
                Some("note"),
            ),
            node(
                "note",
                NodeKind::NotifyParent {
                    message: "今晚: {last}".into(),
                },
                Some("end"),
            ),
            node("end", NodeKind::End, None),
        ],
        children: vec![],
    }
}

fn visited(state: &RunState) -> Vec<&str> {
    state.steps.iter().map(|s| s.node.as_str()).collect()
}

#[test]
fn the_condition_picks_the_branch_whose_keyword_the_last_message_has() {
    let routine = evening();
    assert_eq!(validate(&routine), vec![]);

    let mut work = Scripted::default();
    work.answers
        .insert("背诵还是测验?".into(), "我们先背诵静夜思".into());
    work.recited
        .insert("静夜思".into(), "静夜思: 100 分, 没有错".into());
    let done = block_on(run(
        &routine,
        RunState::new("r1", &routine, "晚上好"),
        &mut work,
    ))
    .unwrap();
    assert_eq!(done.status, RunStatus::Finished);
    assert_eq!(
        visited(&done),
        [
            "start",
            "plan",
            "due",
            "agent_choice",
            "choose",
            "recite",
            "note",
            "end"
        ]
    );
    assert_eq!(work.notes, ["今晚: 静夜思: 100 分, 没有错"]);

    let mut work = Scripted::default();
    work.answers
        .insert("背诵还是测验?".into(), "今天做个小测验".into());
    let done = block_on(run(
        &routine,
        RunState::new("r2", &routine, "晚上好"),
        &mut work,
    ))
    .unwrap();
    assert_eq!(
        visited(&done),
        [
            "start",
            "plan",
            "due",
            "agent_choice",
            "choose",
            "quiz",
            "note",
            "end"
        ]
    );
    assert_eq!(work.notes, ["今晚: quizzer answers 出三道题"]);
}

#[test]
fn a_tool_nodes_output_joins_the_messages_the_next_agent_sees() {
    let routine = evening();
    let mut work = Scripted::default();
    block_on(run(
        &routine,
        RunState::new("r", &routine, "晚上好"),
        &mut work,
    ))
    .unwrap();
    let (agent, seen) = &work.asked[1];
    assert_eq!(agent, "companion");
    assert_eq!(
        seen,
        &vec![
            "晚上好".to_string(),
            "planner answers 今天做什么?".into(),
            "due: 2".into()
        ]
    );
    // Each node's start, output and end were reported, in order.
    let kinds: Vec<String> = work
        .events
        .iter()
        .filter_map(|e| match e {
            RoutineEvent::NodeStarted { node, .. } if node == "due" => Some("started".into()),
            RoutineEvent::NodeOutput { node, text, .. } if node == "due" => {
                Some(format!("output {text}"))
            }
            RoutineEvent::NodeFinished { node, .. } if node == "due" => Some("finished".into()),
            _ => None,
        })
        .collect();
    assert_eq!(kinds, ["started", "output due: 2", "finished"]);
}

#[test]
fn a_recitation_not_yet_done_makes_the_run_wait_and_it_goes_on_once_it_is() {
    let routine = evening();
    let mut work = Scripted::default();
    work.answers.insert("背诵还是测验?".into(), "背诵".into());
    let waiting = block_on(run(&routine, RunState::new("r", &routine, "hi"), &mut work)).unwrap();
    assert_eq!(waiting.status, RunStatus::Waiting);
    assert_eq!(waiting.at.as_deref(), Some("recite"));
    assert!(matches!(
        work.events.last(),
        Some(RoutineEvent::Waiting { reason, .. }) if reason.contains("静夜思")
    ));
    // Looked at again before the child recited: still waiting, nothing repeated.
    let again = block_on(run(&routine, waiting.clone(), &mut work)).unwrap();
    assert_eq!(again.status, RunStatus::Waiting);
    assert_eq!(again.steps, waiting.steps);

    work.recited.insert("静夜思".into(), "背对了".into());
    let done = block_on(run(&routine, again, &mut work)).unwrap();
    assert_eq!(done.status, RunStatus::Finished);
    assert_eq!(work.notes, ["今晚: 背对了"]);
    // The agents before the wait were asked once only.
    assert_eq!(work.asked.len(), 2);
}

#[test]
fn a_run_stopped_by_a_crash_goes_on_from_its_last_saved_node() {
    let routine = evening();
    // The companion's answer has 背诵 in it: the run takes the recitation,
    // which the child has done.
    let work = |crash_after_saves| {
        let mut w = Scripted {
            crash_after_saves,
            ..Scripted::default()
        };
        w.recited.insert("静夜思".into(), "背对了".into());
        w
    };
    let whole = block_on(run(
        &routine,
        RunState::new("r", &routine, "hi"),
        &mut work(None),
    ))
    .unwrap();
    assert_eq!(whole.status, RunStatus::Finished);
    for crash_at in 1..whole.steps.len() {
        let mut crashing = work(Some(crash_at));
        let err = block_on(run(
            &routine,
            RunState::new("r", &routine, "hi"),
            &mut crashing,
        ))
        .unwrap_err();
        assert!(err.contains("disk"), "{err}");
        // After the restart: what was saved last, run on with working disks.
        let saved = crashing.saved.last().cloned().unwrap();
        assert_eq!(saved.steps.len(), crash_at);
        let done = block_on(run(&routine, saved, &mut work(None))).unwrap();
        assert_eq!(done.status, RunStatus::Finished, "crash after {crash_at}");
        assert_eq!(done.steps, whole.steps, "crash after {crash_at}");
        assert_eq!(done.messages, whole.messages, "crash after {crash_at}");
    }
}

#[test]
fn a_failing_tool_fails_the_run_with_its_words_and_keeps_the_steps_before() {
    let mut routine = evening();
    if let NodeKind::Tool { tool, .. } = &mut routine.nodes[2].kind {
        *tool = "weather".into();
    }
    let mut work = Scripted::default();
    let failed = block_on(run(&routine, RunState::new("r", &routine, "hi"), &mut work)).unwrap();
    assert_eq!(failed.status, RunStatus::Failed);
    assert_eq!(failed.at.as_deref(), Some("due"));
    assert_eq!(failed.error.as_deref(), Some("no tool called weather"));
    assert_eq!(visited(&failed), ["start", "plan"]);
    assert_eq!(work.saved.last(), Some(&failed));
    // A failed run stays failed.
    let again = block_on(run(&routine, failed.clone(), &mut work)).unwrap();
    assert_eq!(again, failed);
}

/// A random graph: `n` nodes, node 0 the start; each node's kind and
/// successors drawn from the indexes, mostly the next node along (so that
/// some graphs pass) and otherwise any node (so cycles, dead ends and
/// strays happen and the validator must refuse them).
fn graph(n: usize) -> impl Strategy<Value = Routine> {
    let nodes = prop::collection::vec(
        (
            0u8..5,
            0..n,
            0..n,
            prop::bool::ANY,
            prop::bool::weighted(0.7),
        ),
        n,
    );
    nodes.prop_map(move |drawn| {
        let id = |i: usize| format!("n{i}");
        let nodes = drawn
            .into_iter()
            .enumerate()
            .map(|(i, (kind, a, b, default, along))| {
                let a = if along && i + 1 < n { i + 1 } else { a };
                let kind = if i + 1 == n && along { 0 } else { kind };
                let (kind, next) = match (i, kind) {
                    (0, _) => (NodeKind::Start, Some(id(a))),
                    (_, 0) => (NodeKind::End, None),
                    (_, 1) => (
                        NodeKind::Condition {
                            branches: vec![Branch {
                                keyword: "yes".into(),
                                to: id(a),
                            }],
                            default: default.then(|| id(b)),
                        },
                        None,
                    ),
                    (_, 2) => (
                        NodeKind::Tool {
                            tool: "due_reviews".into(),
                            args: serde_json::json!({"poems": a}),
                        },
                        Some(id(a)),
                    ),
                    _ => (
                        NodeKind::Agent {
                            agent: "companion".into(),
                            prompt: if b % 2 == 0 { "yes" } else { "no" }.into(),
                        },
                        Some(id(a)),
                    ),
                };
                RoutineNode {
                    id: id(i),
                    kind,
                    next,
                    position: None,
                }
            })
            .collect();
        Routine {
            name: "random".into(),
            description: String::new(),
            nodes,
            children: vec![],
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 300,
        max_global_rejects: 100_000,
        ..ProptestConfig::default()
    })]

    /// Whatever the validator accepts finishes at an end, visiting each
    /// node at most once, whichever branches the answers choose.
    #[test]
    fn every_routine_the_validator_accepts_finishes(routine in (2usize..9).prop_flat_map(graph)) {
        prop_assume!(validate(&routine).is_empty());
        let mut work = Scripted::default();
        work.answers.insert("yes".into(), "yes".into());
        work.answers.insert("no".into(), "no".into());
        let done = block_on(run(&routine, RunState::new("r", &routine, "go"), &mut work)).unwrap();
        prop_assert_eq!(done.status, RunStatus::Finished);
        prop_assert!(done.steps.len() <= routine.nodes.len());
        let mut seen = std::collections::HashSet::new();
        prop_assert!(done.steps.iter().all(|s| seen.insert(s.node.clone())));
        let last = done.steps.last().and_then(|s| routine.nodes.iter().find(|n| n.id == s.node));
        prop_assert!(matches!(last.map(|n| &n.kind), Some(NodeKind::End)));
    }
}
