//! The recitation practice workflow as an explicit state machine.
//!
//! ```text
//!            start                      utterance ended        verdict
//!   Idle ─────────────▶ Ready ──listen──▶ Listening ─────────▶ Checking ─────────▶ Feedback
//!                         ▲                  │ cancel                │ failed            │ passed
//!                         └──────────────────┘◀──────────────────────┘                   ▼
//!                         ▲                        retry (not passed)                   Done
//!                         └──────────────────────────────────────────── Feedback ◀───────┘
//!
//!   Feedback / Done ──retake {line}──▶ Retaking ──rejudged──▶ Feedback / Done (same attempt)
//!                                          └──retake failed──▶ the verdict it came from
//! ```
//!
//! A verdict that could not tell whether a line was right (an `uncertain`
//! error: a re-ask) offers a **retake** of that line: the child says only
//! that line (`Retaking`, the microphone open, then the take checked), and
//! the take is merged into the same attempt's verdict — the attempt count
//! does not move, because it is the same attempt. Which lines may be said
//! again (one retake per unclear line) is the scene's to check; a retake
//! that fails or hears nothing returns to the verdict it came from.
//!
//! A child may retry until the verdict passes (the attempt count is kept);
//! after a pass the practice is done and history, patterns and the review
//! schedule have been written by the recitation service. The state is plain
//! data: the app stores it after each transition, and [`Practice::resume`]
//! turns a state read back after a crash or restart into one the child can
//! continue from (a recording that was cut off returns to `Ready`; nothing
//! that was already judged is lost).

use serde::{Deserialize, Serialize};

/// Where a practice is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum PracticeState {
    /// Nothing chosen yet.
    Idle,
    /// A material is open; the child can start speaking or typing.
    Ready,
    /// The microphone is open.
    Listening,
    /// The recitation was handed to the checker as a background task.
    Checking { task_id: String },
    /// A verdict is shown with feedback; retry unless it passed.
    Feedback {
        attempt_id: String,
        accuracy: f64,
        passed: bool,
    },
    /// Passed: the practice is complete.
    Done { attempt_id: String, accuracy: f64 },
    /// The child says one unclear line of the verdict again: the
    /// microphone is open, then the take is checked, under `task_id`. The
    /// verdict it came from (`accuracy`, `passed`) is kept to return to.
    Retaking {
        attempt_id: String,
        /// The line said again, 1-based.
        line: usize,
        task_id: String,
        accuracy: f64,
        passed: bool,
    },
}

impl PracticeState {
    pub fn name(&self) -> &'static str {
        match self {
            Self::Idle => "idle",
            Self::Ready => "ready",
            Self::Listening => "listening",
            Self::Checking { .. } => "checking",
            Self::Feedback { .. } => "feedback",
            Self::Done { .. } => "done",
            Self::Retaking { .. } => "retaking",
        }
    }
}

/// What can happen to a practice.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum PracticeEvent {
    /// The child opens a material.
    Start,
    /// The record button (or the VAD's speech start) opens the microphone.
    Listen,
    /// Recording or typing ended; the submission became a background task.
    Submitted { task_id: String },
    /// The microphone closed without anything to check (cancel, silence, device lost).
    Cancelled,
    /// The checker's task ended with a verdict (already recorded as an attempt).
    Judged {
        task_id: String,
        attempt_id: String,
        accuracy: f64,
        passed: bool,
    },
    /// The checker's task failed (bad audio, crash): back to Ready to try again.
    CheckFailed { task_id: String },
    /// The child tries again after a verdict that did not pass.
    Retry,
    /// The child says one unclear line of the verdict again (the
    /// microphone opened under `task_id`).
    Retake { line: usize, task_id: String },
    /// The retake was merged into the same attempt: its verdict now.
    Rejudged {
        task_id: String,
        accuracy: f64,
        passed: bool,
    },
    /// The retake ended without a take (cancel, silence, a failed check):
    /// back to the verdict it came from.
    RetakeFailed { task_id: String },
    /// The child leaves (any state): the practice returns to idle.
    Leave,
}

/// The state a verdict on `attempt_id` leads to.
fn verdict(attempt_id: &str, accuracy: f64, passed: bool) -> PracticeState {
    if passed {
        PracticeState::Done {
            attempt_id: attempt_id.to_string(),
            accuracy,
        }
    } else {
        PracticeState::Feedback {
            attempt_id: attempt_id.to_string(),
            accuracy,
            passed: false,
        }
    }
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("cannot {event} while the practice is {state}")]
pub struct TransitionError {
    pub state: &'static str,
    pub event: &'static str,
}

/// A practice of one material by one child.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Practice {
    pub state: PracticeState,
    /// Verdicts received so far in this practice (the attempt number within the session).
    pub attempts: u32,
    /// True when this practice is a scheduled review, not first learning.
    pub is_review: bool,
}

fn event_name(e: &PracticeEvent) -> &'static str {
    match e {
        PracticeEvent::Start => "start",
        PracticeEvent::Listen => "listen",
        PracticeEvent::Submitted { .. } => "submit",
        PracticeEvent::Cancelled => "cancel",
        PracticeEvent::Judged { .. } => "judge",
        PracticeEvent::CheckFailed { .. } => "fail a check",
        PracticeEvent::Retry => "retry",
        PracticeEvent::Retake { .. } => "retake a line",
        PracticeEvent::Rejudged { .. } => "merge a retake",
        PracticeEvent::RetakeFailed { .. } => "fail a retake",
        PracticeEvent::Leave => "leave",
    }
}

impl Practice {
    pub fn new(is_review: bool) -> Self {
        Self {
            state: PracticeState::Idle,
            attempts: 0,
            is_review,
        }
    }

    /// Applies one event, or says why it does not fit the current state
    /// (the state is then unchanged).
    pub fn apply(&mut self, event: PracticeEvent) -> Result<&PracticeState, TransitionError> {
        use PracticeEvent as E;
        use PracticeState as S;
        let next = match (&self.state, &event) {
            (_, E::Leave) => S::Idle,
            (S::Idle, E::Start) => S::Ready,
            (S::Ready, E::Listen) => S::Listening,
            // Typed recitations (默写) are submitted straight from Ready.
            (S::Ready | S::Listening, E::Submitted { task_id }) => S::Checking {
                task_id: task_id.clone(),
            },
            (S::Listening, E::Cancelled) => S::Ready,
            (
                S::Checking { task_id },
                E::Judged {
                    task_id: t,
                    attempt_id,
                    accuracy,
                    passed,
                },
            ) if t == task_id => {
                self.attempts += 1;
                if *passed {
                    S::Done {
                        attempt_id: attempt_id.clone(),
                        accuracy: *accuracy,
                    }
                } else {
                    S::Feedback {
                        attempt_id: attempt_id.clone(),
                        accuracy: *accuracy,
                        passed: false,
                    }
                }
            }
            (S::Checking { task_id }, E::CheckFailed { task_id: t }) if t == task_id => S::Ready,
            (S::Feedback { passed: false, .. }, E::Retry) => S::Ready,
            // A child who passed may practise once more: a new round, same count.
            (S::Done { .. }, E::Retry) => S::Ready,
            (
                S::Feedback {
                    attempt_id,
                    accuracy,
                    passed,
                },
                E::Retake { line, task_id },
            ) => S::Retaking {
                attempt_id: attempt_id.clone(),
                line: *line,
                task_id: task_id.clone(),
                accuracy: *accuracy,
                passed: *passed,
            },
            (
                S::Done {
                    attempt_id,
                    accuracy,
                },
                E::Retake { line, task_id },
            ) => S::Retaking {
                attempt_id: attempt_id.clone(),
                line: *line,
                task_id: task_id.clone(),
                accuracy: *accuracy,
                passed: true,
            },
            (
                S::Retaking {
                    attempt_id,
                    task_id,
                    ..
                },
                E::Rejudged {
                    task_id: t,
                    accuracy,
                    passed,
                },
            ) if t == task_id => verdict(attempt_id, *accuracy, *passed),
            (
                S::Retaking {
                    attempt_id,
                    task_id,
                    accuracy,
                    passed,
                    ..
                },
                E::RetakeFailed { task_id: t },
            ) if t == task_id => verdict(attempt_id, *accuracy, *passed),
            _ => {
                return Err(TransitionError {
                    state: self.state.name(),
                    event: event_name(&event),
                })
            }
        };
        self.state = next;
        Ok(&self.state)
    }

    /// The practice as it should continue after the app restarted with this
    /// state stored. A microphone cannot survive a restart, so `Listening`
    /// returns to `Ready` and `Retaking` to the verdict it came from (a take
    /// merged just before the crash is in the attempt's stored row); a `Checking` task whose result never arrived is
    /// handed back to the caller to look up (`Some(task_id)`), because the
    /// attempt may have been recorded just before the crash.
    pub fn resume(mut self) -> (Self, Option<String>) {
        match &self.state {
            PracticeState::Listening => {
                self.state = PracticeState::Ready;
                (self, None)
            }
            PracticeState::Retaking {
                attempt_id,
                accuracy,
                passed,
                ..
            } => {
                self.state = verdict(attempt_id, *accuracy, *passed);
                (self, None)
            }
            PracticeState::Checking { task_id } => {
                let id = task_id.clone();
                (self, Some(id))
            }
            _ => (self, None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use PracticeEvent as E;

    fn judged(task: &str, passed: bool) -> E {
        E::Judged {
            task_id: task.into(),
            attempt_id: format!("a-{task}"),
            accuracy: if passed { 95.0 } else { 70.0 },
            passed,
        }
    }

    #[test]
    fn fail_retry_then_pass() {
        let mut p = Practice::new(false);
        p.apply(E::Start).unwrap();
        p.apply(E::Listen).unwrap();
        p.apply(E::Submitted {
            task_id: "t1".into(),
        })
        .unwrap();
        assert_eq!(p.apply(judged("t1", false)).unwrap().name(), "feedback");
        assert_eq!(p.attempts, 1);
        p.apply(E::Retry).unwrap();
        p.apply(E::Listen).unwrap();
        p.apply(E::Submitted {
            task_id: "t2".into(),
        })
        .unwrap();
        assert_eq!(
            p.apply(judged("t2", true)).unwrap(),
            &PracticeState::Done {
                attempt_id: "a-t2".into(),
                accuracy: 95.0
            }
        );
        assert_eq!(p.attempts, 2);
    }

    #[test]
    fn typed_recitation_submits_from_ready() {
        let mut p = Practice::new(true);
        p.apply(E::Start).unwrap();
        p.apply(E::Submitted {
            task_id: "t".into(),
        })
        .unwrap();
        assert_eq!(p.state.name(), "checking");
        assert!(p.is_review);
    }

    #[test]
    fn a_late_verdict_for_another_task_is_refused() {
        let mut p = Practice::new(false);
        p.apply(E::Start).unwrap();
        p.apply(E::Submitted {
            task_id: "t2".into(),
        })
        .unwrap();
        let err = p.apply(judged("t1", true)).unwrap_err();
        assert_eq!(err.state, "checking");
        assert_eq!(
            p.state,
            PracticeState::Checking {
                task_id: "t2".into()
            }
        );
        assert_eq!(p.attempts, 0);
    }

    #[test]
    fn failed_check_and_cancel_return_to_ready() {
        let mut p = Practice::new(false);
        p.apply(E::Start).unwrap();
        p.apply(E::Listen).unwrap();
        p.apply(E::Cancelled).unwrap();
        assert_eq!(p.state, PracticeState::Ready);
        p.apply(E::Submitted {
            task_id: "t".into(),
        })
        .unwrap();
        p.apply(E::CheckFailed {
            task_id: "t".into(),
        })
        .unwrap();
        assert_eq!(p.state, PracticeState::Ready);
        assert_eq!(p.attempts, 0);
    }

    #[test]
    fn invalid_transitions_leave_the_state_alone() {
        let mut p = Practice::new(false);
        for e in [
            E::Listen,
            E::Retry,
            E::Cancelled,
            judged("x", true),
            E::Submitted {
                task_id: "x".into(),
            },
        ] {
            assert!(p.apply(e).is_err());
            assert_eq!(p.state, PracticeState::Idle);
        }
        p.apply(E::Start).unwrap();
        assert!(p.apply(E::Retry).is_err(), "no retry before a verdict");
        assert!(p.apply(E::Start).is_err(), "already started");
    }

    #[test]
    fn leave_works_from_anywhere() {
        let mut p = Practice::new(false);
        p.apply(E::Start).unwrap();
        p.apply(E::Listen).unwrap();
        p.apply(E::Leave).unwrap();
        assert_eq!(p.state, PracticeState::Idle);
    }

    #[test]
    fn restart_mid_practice() {
        // Stored while listening: the microphone is gone after a restart.
        let mut p = Practice::new(false);
        p.apply(E::Start).unwrap();
        p.apply(judged("x", true)).unwrap_err();
        p.apply(E::Listen).unwrap();
        let stored = serde_json::to_string(&p).unwrap();
        let (resumed, pending) = serde_json::from_str::<Practice>(&stored).unwrap().resume();
        assert_eq!(resumed.state, PracticeState::Ready);
        assert_eq!(pending, None);

        // Stored while checking: the caller must look the task up.
        let mut p = Practice::new(false);
        p.apply(E::Start).unwrap();
        p.apply(E::Submitted {
            task_id: "t9".into(),
        })
        .unwrap();
        let stored = serde_json::to_string(&p).unwrap();
        let (mut resumed, pending) = serde_json::from_str::<Practice>(&stored).unwrap().resume();
        assert_eq!(pending.as_deref(), Some("t9"));
        resumed.apply(judged("t9", false)).unwrap();
        assert_eq!(resumed.attempts, 1);

        // Stored after feedback: unchanged.
        let stored = serde_json::to_string(&resumed).unwrap();
        let (again, _) = serde_json::from_str::<Practice>(&stored).unwrap().resume();
        assert_eq!(again, resumed);
    }

    fn at(state: PracticeState, attempts: u32) -> Practice {
        Practice {
            state,
            attempts,
            is_review: false,
        }
    }

    fn checking() -> PracticeState {
        PracticeState::Checking {
            task_id: "t1".into(),
        }
    }

    fn feedback() -> PracticeState {
        PracticeState::Feedback {
            attempt_id: "a-t1".into(),
            accuracy: 70.0,
            passed: false,
        }
    }

    fn done() -> PracticeState {
        PracticeState::Done {
            attempt_id: "a-t1".into(),
            accuracy: 95.0,
        }
    }

    fn retaking() -> PracticeState {
        PracticeState::Retaking {
            attempt_id: "a-t1".into(),
            line: 2,
            task_id: "r1".into(),
            accuracy: 70.0,
            passed: false,
        }
    }

    fn retake() -> E {
        E::Retake {
            line: 2,
            task_id: "r1".into(),
        }
    }

    fn rejudged(task: &str, accuracy: f64, passed: bool) -> E {
        E::Rejudged {
            task_id: task.into(),
            accuracy,
            passed,
        }
    }

    #[test]
    fn a_retake_merges_into_the_same_attempt_without_counting_another() {
        let mut p = at(feedback(), 1);
        assert_eq!(p.apply(retake()).unwrap(), &retaking());
        assert_eq!(
            p.apply(rejudged("r1", 90.0, true)).unwrap(),
            &PracticeState::Done {
                attempt_id: "a-t1".into(),
                accuracy: 90.0
            }
        );
        assert_eq!(p.attempts, 1, "the same attempt, not another");
        // Still unclear after the take: back to feedback on the same attempt.
        let mut p = at(feedback(), 1);
        p.apply(retake()).unwrap();
        assert_eq!(p.apply(rejudged("r1", 70.0, false)).unwrap(), &feedback());
        // A passed verdict with an unclear line can be retaken too.
        let mut p = at(done(), 1);
        p.apply(retake()).unwrap();
        assert!(
            matches!(p.state, PracticeState::Retaking { passed: true, accuracy, .. } if accuracy == 95.0)
        );
        assert_eq!(
            p.apply(E::RetakeFailed {
                task_id: "r1".into()
            })
            .unwrap(),
            &done()
        );
    }

    #[test]
    fn a_retake_cut_off_by_a_restart_returns_to_its_verdict() {
        let (resumed, pending) = at(retaking(), 1).resume();
        assert_eq!(resumed, at(feedback(), 1));
        assert_eq!(pending, None);
    }

    #[test]
    fn retry_after_a_pass_starts_a_new_round_with_the_same_count() {
        let mut p = at(done(), 3);
        assert_eq!(p.apply(E::Retry).unwrap(), &PracticeState::Ready);
        assert_eq!(p.attempts, 3);
    }

    #[test]
    fn leave_from_every_state_returns_to_idle_and_keeps_the_count() {
        for state in [
            PracticeState::Idle,
            PracticeState::Ready,
            PracticeState::Listening,
            checking(),
            feedback(),
            done(),
        ] {
            let mut p = at(state.clone(), 2);
            assert_eq!(
                p.apply(E::Leave).unwrap(),
                &PracticeState::Idle,
                "leave from {}",
                state.name()
            );
            assert_eq!(
                p.attempts,
                2,
                "leave from {} must not change the count",
                state.name()
            );
        }
    }

    #[test]
    fn resume_leaves_ready_feedback_done_and_idle_as_they_were() {
        for state in [
            PracticeState::Idle,
            PracticeState::Ready,
            feedback(),
            done(),
        ] {
            let p = at(state.clone(), 1);
            let (resumed, pending) = p.clone().resume();
            assert_eq!(resumed, p, "resume from {}", state.name());
            assert_eq!(pending, None, "nothing to look up after {}", state.name());
        }
    }

    #[test]
    fn resume_from_listening_and_checking() {
        let (resumed, pending) = at(PracticeState::Listening, 1).resume();
        assert_eq!(resumed, at(PracticeState::Ready, 1));
        assert_eq!(pending, None);
        let (resumed, pending) = at(checking(), 1).resume();
        assert_eq!(
            resumed,
            at(checking(), 1),
            "the check stays pending until the caller looks it up"
        );
        assert_eq!(pending.as_deref(), Some("t1"));
    }

    /// Every (state, event) pair: the state it leads to, or `None` when the
    /// event is refused (and the practice is left exactly as it was).
    #[test]
    fn the_whole_transition_table() {
        let states = [
            PracticeState::Idle,
            PracticeState::Ready,
            PracticeState::Listening,
            checking(),
            feedback(),
            done(),
            retaking(),
        ];
        let events = [
            E::Start,
            E::Listen,
            E::Submitted {
                task_id: "t2".into(),
            },
            E::Cancelled,
            judged("t1", false),
            judged("t1", true),
            judged("other", true),
            E::CheckFailed {
                task_id: "t1".into(),
            },
            E::CheckFailed {
                task_id: "other".into(),
            },
            E::Retry,
            retake(),
            rejudged("r1", 100.0, true),
            rejudged("other", 100.0, true),
            E::RetakeFailed {
                task_id: "r1".into(),
            },
            E::RetakeFailed {
                task_id: "other".into(),
            },
            E::Leave,
        ];
        let expected = |state: &PracticeState, event: &E| -> Option<(PracticeState, u32)> {
            use PracticeState as S;
            let fb = S::Feedback {
                attempt_id: "a-t1".into(),
                accuracy: 70.0,
                passed: false,
            };
            let ok = S::Done {
                attempt_id: "a-t1".into(),
                accuracy: 95.0,
            };
            match (state, event) {
                (_, E::Leave) => Some((S::Idle, 1)),
                (S::Idle, E::Start) => Some((S::Ready, 1)),
                (S::Ready, E::Listen) => Some((S::Listening, 1)),
                (S::Ready | S::Listening, E::Submitted { .. }) => Some((
                    S::Checking {
                        task_id: "t2".into(),
                    },
                    1,
                )),
                (S::Listening, E::Cancelled) => Some((S::Ready, 1)),
                (
                    S::Checking { .. },
                    E::Judged {
                        task_id, passed, ..
                    },
                ) if task_id == "t1" => Some((if *passed { ok } else { fb }, 2)),
                (S::Checking { .. }, E::CheckFailed { task_id }) if task_id == "t1" => {
                    Some((S::Ready, 1))
                }
                (S::Feedback { .. } | S::Done { .. }, E::Retry) => Some((S::Ready, 1)),
                (S::Feedback { .. }, E::Retake { .. }) => Some((retaking(), 1)),
                (S::Done { .. }, E::Retake { .. }) => Some((
                    S::Retaking {
                        attempt_id: "a-t1".into(),
                        line: 2,
                        task_id: "r1".into(),
                        accuracy: 95.0,
                        passed: true,
                    },
                    1,
                )),
                (S::Retaking { .. }, E::Rejudged { task_id, .. }) if task_id == "r1" => Some((
                    S::Done {
                        attempt_id: "a-t1".into(),
                        accuracy: 100.0,
                    },
                    1,
                )),
                (S::Retaking { .. }, E::RetakeFailed { task_id }) if task_id == "r1" => {
                    Some((fb, 1))
                }
                _ => None,
            }
        };
        for state in &states {
            for event in &events {
                let mut p = at(state.clone(), 1);
                let got = p.apply(event.clone()).cloned();
                match expected(state, event) {
                    Some((next, attempts)) => {
                        assert_eq!(got, Ok(next), "{} + {event:?}", state.name());
                        assert_eq!(p.attempts, attempts, "{} + {event:?}", state.name());
                    }
                    None => {
                        let err = got.unwrap_err();
                        assert_eq!(err.state, state.name());
                        assert_eq!(
                            p,
                            at(state.clone(), 1),
                            "a refused {event:?} changed {}",
                            state.name()
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn a_feedback_that_passed_cannot_be_retried() {
        // Only reachable from stored data; the table above never produces it.
        let mut p = at(
            PracticeState::Feedback {
                attempt_id: "a".into(),
                accuracy: 90.0,
                passed: true,
            },
            1,
        );
        assert!(p.apply(E::Retry).is_err());
        assert_eq!(p.state.name(), "feedback");
    }

    proptest::proptest! {
        /// Whatever events arrive, a refused event changes nothing and the
        /// attempt count equals the verdicts accepted.
        #[test]
        fn any_event_sequence_keeps_invariants(events in proptest::collection::vec(0u8..8, 0..60)) {
            let mut p = Practice::new(false);
            let mut verdicts = 0u32;
            let mut task = 0u32;
            for e in events {
                let ev = match e {
                    0 => E::Start,
                    1 => E::Listen,
                    2 => { task += 1; E::Submitted { task_id: task.to_string() } }
                    3 => E::Cancelled,
                    4 => judged(&task.to_string(), false),
                    5 => judged(&task.to_string(), true),
                    6 => E::Retry,
                    _ => E::CheckFailed { task_id: task.to_string() },
                };
                let before = p.clone();
                match p.apply(ev.clone()) {
                    Ok(_) => if matches!(ev, E::Judged { .. }) { verdicts += 1 },
                    Err(_) => proptest::prop_assert_eq!(&p, &before),
                }
                proptest::prop_assert_eq!(p.attempts, verdicts);
            }
        }
    }
}
