//! The recitation practice scene: a child opens a material, recites (typed
//! or spoken), gets a verdict with feedback, and retries until it passes.
//! The workflow is `deskmate_orchestrator::Practice`; this module stores it
//! after every step (table `practice_sessions`), runs each submission as a
//! background task whose progress is published on the app's event stream
//! ([`crate::events::AppEvent::Task`]), and records the
//! attempt (history, error patterns, review schedule) through the
//! recitation service; the verdict's feedback is then spoken (see
//! [`crate::voice_out`]). Nothing here needs a network or an LLM.

use std::sync::Arc;

use chrono::Utc;
use deskmate_orchestrator::{Practice, PracticeEvent, PracticeState};
use deskmate_recite::practice::{AttemptOutcome, NewAttempt};
use deskmate_recite::{Mode, RecitationError, Transcript};
use deskmate_store::{now_utc, Material, StoreError};
use rusqlite::{params, OptionalExtension};
use serde::{Deserialize, Serialize};

use crate::events::AppEvent;
use crate::{AppError, AppResult, Deskmate};

/// A practice as the practice screen shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PracticeView {
    pub id: String,
    pub profile_id: String,
    pub material: Material,
    pub mode: Mode,
    pub is_review: bool,
    pub attempts: u32,
    pub state: PracticeState,
    pub last_result: Option<PracticeResult>,
}

/// One verdict with what to tell the child.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PracticeResult {
    pub attempt_id: String,
    pub attempt_number: u32,
    pub accuracy: f64,
    pub passed: bool,
    pub units: usize,
    pub correct: usize,
    pub transcript: String,
    pub errors: Vec<RecitationError>,
    /// The reference's lines; an error's `line` is an index + 1.
    pub lines: Vec<String>,
    pub feedback: FeedbackView,
    /// When the review schedule next asks for this material (RFC 3339),
    /// if this attempt scheduled one.
    #[serde(default)]
    pub next_review_at: Option<String>,
    #[serde(default)]
    pub review_interval_days: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FeedbackView {
    pub zh: String,
    pub en: String,
    /// The memory tip for an error seen before, if any.
    pub tip_zh: Option<String>,
    pub tip_en: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// The microphone is open; the task id exists from here on.
    Listening,
    Queued,
    Transcribing,
    Checking,
    Done,
    Failed,
}

/// Progress of one submission, sent to the UI as it happens.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TaskEvent {
    pub practice_id: String,
    pub task_id: String,
    pub status: TaskStatus,
    pub error: Option<String>,
    pub result: Option<PracticeResult>,
}

/// Where task progress goes inside the core; front ends see it as
/// [`AppEvent::Task`] on [`Deskmate::events`].
pub(crate) type TaskSink = Arc<dyn Fn(TaskEvent) + Send + Sync>;

impl Deskmate {
    /// A task sink that publishes on the app's event stream.
    pub(crate) fn task_sink(&self) -> TaskSink {
        let bus = self.bus().clone();
        Arc::new(move |e: TaskEvent| bus.publish(AppEvent::Task(Box::new(e))))
    }
}

pub(crate) struct Row {
    pub(crate) id: String,
    pub(crate) profile_id: String,
    pub(crate) material_id: String,
    pub(crate) mode: Mode,
    pub(crate) practice: Practice,
    pub(crate) last_result: Option<PracticeResult>,
}

fn damaged(what: &str, e: impl std::fmt::Display) -> AppError {
    AppError::Store(StoreError::Invalid(format!(
        "a stored practice is damaged ({what}: {e})"
    )))
}

pub(crate) fn transition(practice: &mut Practice, event: PracticeEvent) -> AppResult<()> {
    practice
        .apply(event)
        .map(|_| ())
        .map_err(|e| AppError::Store(StoreError::Invalid(e.to_string())))
}

impl PracticeResult {
    fn from_outcome(o: &AttemptOutcome, transcript: &str) -> Self {
        let tip = o.feedback.items.iter().find_map(|i| i.tip.clone());
        Self {
            attempt_id: o.attempt_id.clone(),
            attempt_number: o.attempt_no,
            accuracy: o.verdict.accuracy,
            passed: o.passed,
            units: o.verdict.units,
            correct: o.verdict.correct,
            transcript: transcript.to_string(),
            errors: o.verdict.errors.clone(),
            lines: o.verdict.lines.iter().map(|l| l.text.clone()).collect(),
            feedback: FeedbackView {
                zh: o.feedback.zh.clone(),
                en: o.feedback.en.clone(),
                tip_zh: tip.as_ref().map(|t| t.zh.clone()),
                tip_en: tip.map(|t| t.en),
            },
            next_review_at: o.schedule.as_ref().map(|s| s.next_review_at.clone()),
            review_interval_days: o.schedule.as_ref().map(|s| s.interval_days),
        }
    }
}

impl Deskmate {
    /// Opens a material for practice. A material the child already has a
    /// review schedule for is practised as a review.
    pub fn practice_start(
        &self,
        profile_id: &str,
        material_id: &str,
        mode: Mode,
    ) -> AppResult<PracticeView> {
        let profile = self.store().profiles().get(profile_id)?;
        let material = self.store().materials().get(material_id)?;
        let is_review: bool = self.store().with_conn(|c| {
            Ok(c.query_row(
                "SELECT EXISTS (SELECT 1 FROM recite_reviews WHERE profile_id = ?1 AND material_id = ?2)",
                params![profile.id, material.id],
                |r| r.get(0),
            )?)
        })?;
        let mut practice = Practice::new(is_review);
        transition(&mut practice, PracticeEvent::Start)?;
        // A new scene: whatever was still being said belongs to the last one.
        self.voice_clear();
        let row = Row {
            id: uuid::Uuid::now_v7().to_string(),
            profile_id: profile.id,
            material_id: material.id,
            mode,
            practice,
            last_result: None,
        };
        self.save_practice(&row, true)?;
        self.practice_opened(&row.id);
        self.practice_view(row)
    }

    /// The child's unfinished practice, resumed after a restart: a recording
    /// cut off returns to ready; a check whose verdict was recorded just
    /// before the crash is completed from the stored attempt.
    pub fn practice_current(&self, profile_id: &str) -> AppResult<Option<PracticeView>> {
        let id: Option<String> = self.store().with_conn(|c| {
            Ok(c.query_row(
                "SELECT id FROM practice_sessions WHERE profile_id = ?1 ORDER BY updated_at DESC, id DESC LIMIT 1",
                [profile_id],
                |r| r.get(0),
            )
            .optional()?)
        })?;
        let Some(id) = id else { return Ok(None) };
        let mut row = self.load_practice(&id)?;
        if row.practice.state == PracticeState::Idle {
            return Ok(None);
        }
        let (resumed, pending) = row.practice.clone().resume();
        row.practice = resumed;
        if let Some(task_id) = pending {
            // The task died with the app. Its attempt, if recorded, is the
            // newest of this session; otherwise the child simply tries again.
            let event = match self.latest_attempt_since(&row)? {
                Some((attempt_id, accuracy, passed)) => PracticeEvent::Judged {
                    task_id,
                    attempt_id,
                    accuracy,
                    passed,
                },
                None => PracticeEvent::CheckFailed { task_id },
            };
            transition(&mut row.practice, event)?;
        }
        self.save_practice(&row, false)?;
        self.practice_opened(&row.id);
        self.practice_view(row).map(Some)
    }

    /// Submits a recitation's text (typed, or an ASR transcript) as a
    /// background task and returns its id at once; progress and the verdict
    /// are published as [`AppEvent::Task`] events.
    pub fn practice_submit_text(&self, practice_id: &str, text: String) -> AppResult<String> {
        let sink = self.task_sink();
        let mut row = self.load_practice(practice_id)?;
        let task_id = uuid::Uuid::now_v7().to_string();
        transition(
            &mut row.practice,
            PracticeEvent::Submitted {
                task_id: task_id.clone(),
            },
        )?;
        self.save_practice(&row, false)?;
        sink(TaskEvent {
            practice_id: row.id.clone(),
            task_id: task_id.clone(),
            status: TaskStatus::Queued,
            error: None,
            result: None,
        });
        let app = self.clone();
        let id = task_id.clone();
        std::thread::Builder::new()
            .name("practice-check".into())
            .spawn(move || {
                let transcript = Transcript::new(text.clone());
                app.run_check(row, id, text, transcript, None, sink)
            })
            .map_err(|e| AppError::Thread {
                what: "cannot start checking",
                reason: e.to_string(),
            })?;
        Ok(task_id)
    }

    /// Checks a submission and records it; runs on its own thread. `text` is
    /// what the child is shown as heard or typed; `transcript` is what the
    /// checker compares (with ASR confidences for speech).
    pub(crate) fn run_check(
        &self,
        mut row: Row,
        task_id: String,
        text: String,
        transcript: Transcript,
        duration_ms: Option<u64>,
        sink: TaskSink,
    ) {
        let practice_id = row.id.clone();
        let event = |status, error: Option<String>, result: Option<PracticeResult>| TaskEvent {
            practice_id: practice_id.clone(),
            task_id: task_id.clone(),
            status,
            error,
            result,
        };
        sink(event(TaskStatus::Checking, None, None));
        let attempt = NewAttempt {
            profile_id: row.profile_id.clone(),
            material_id: row.material_id.clone(),
            transcript,
            mode: row.mode,
            at: Utc::now(),
            duration_ms,
            session_id: Some(row.id.clone()),
        };
        let outcome = self.record_attempt(attempt);
        // Go on from the stored practice: the child may have left while it was checked.
        if let Ok(fresh) = self.load_practice(&row.id) {
            row = fresh;
        }
        let done = match outcome {
            Ok(o) => {
                let result = PracticeResult::from_outcome(&o, &text);
                let judged = PracticeEvent::Judged {
                    task_id: task_id.clone(),
                    attempt_id: o.attempt_id.clone(),
                    accuracy: o.verdict.accuracy,
                    passed: o.passed,
                };
                row.last_result = Some(result.clone());
                transition(&mut row.practice, judged)
                    .and_then(|()| self.save_practice(&row, false))
                    .map(|()| {
                        self.lamp_react_to_verdict(o.passed);
                        self.speak_feedback(&row.material_id, &result.feedback);
                        result
                    })
            }
            Err(e) => Err(AppError::from(e)),
        };
        match done {
            Ok(result) => sink(event(TaskStatus::Done, None, Some(result))),
            Err(e) => {
                let _ = transition(
                    &mut row.practice,
                    PracticeEvent::CheckFailed {
                        task_id: task_id.clone(),
                    },
                );
                if let Err(save) = self.save_practice(&row, false) {
                    tracing::warn!("cannot store the practice after a failed check: {save}");
                }
                sink(event(TaskStatus::Failed, Some(e.to_string()), None));
            }
        }
    }

    /// Another try after a verdict.
    pub fn practice_retry(&self, practice_id: &str) -> AppResult<PracticeView> {
        let mut row = self.load_practice(practice_id)?;
        transition(&mut row.practice, PracticeEvent::Retry)?;
        self.save_practice(&row, false)?;
        self.practice_view(row)
    }

    /// The child leaves the practice (what was recorded stays recorded).
    pub fn practice_leave(&self, practice_id: &str) -> AppResult<()> {
        let mut row = self.load_practice(practice_id)?;
        transition(&mut row.practice, PracticeEvent::Leave)?;
        self.save_practice(&row, false)?;
        // A scene change: the microphone closes (what it heard finds the
        // practice left and is dropped), nothing more is said about it.
        let _ = self.practice_record_stop(practice_id);
        self.voice_clear();
        self.practice_closed(practice_id);
        Ok(())
    }

    /// Applies a workflow event from a front end (listening started or cancelled).
    pub fn practice_event(
        &self,
        practice_id: &str,
        event: PracticeEvent,
    ) -> AppResult<PracticeView> {
        let mut row = self.load_practice(practice_id)?;
        transition(&mut row.practice, event)?;
        self.save_practice(&row, false)?;
        self.practice_view(row)
    }

    fn practice_view(&self, row: Row) -> AppResult<PracticeView> {
        Ok(PracticeView {
            material: self.store().materials().get(&row.material_id)?,
            id: row.id,
            profile_id: row.profile_id,
            mode: row.mode,
            is_review: row.practice.is_review,
            attempts: row.practice.attempts,
            state: row.practice.state,
            last_result: row.last_result,
        })
    }

    fn latest_attempt_since(&self, row: &Row) -> AppResult<Option<(String, f64, bool)>> {
        let found = self.store().with_conn(|c| {
            Ok(c.query_row(
                "SELECT id, accuracy, passed FROM recite_attempts WHERE session_id = ?1 ORDER BY attempt_no DESC LIMIT 1",
                [&row.id],
                |r| Ok((r.get::<_, String>(0)?, r.get::<_, f64>(1)?, r.get::<_, bool>(2)?)),
            )
            .optional()?)
        })?;
        // Only an attempt beyond those already counted belongs to the lost task.
        let counted: i64 = self.store().with_conn(|c| {
            Ok(c.query_row(
                "SELECT count(*) FROM recite_attempts WHERE session_id = ?1",
                [&row.id],
                |r| r.get(0),
            )?)
        })?;
        Ok(found.filter(|_| counted > i64::from(row.practice.attempts)))
    }

    pub(crate) fn load_practice(&self, id: &str) -> AppResult<Row> {
        let raw = self.store().with_conn(|c| {
            c.query_row(
                "SELECT id, profile_id, material_id, mode, practice, last_result FROM practice_sessions WHERE id = ?1",
                [id],
                |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, String>(1)?,
                        r.get::<_, String>(2)?,
                        r.get::<_, String>(3)?,
                        r.get::<_, String>(4)?,
                        r.get::<_, Option<String>>(5)?,
                    ))
                },
            )
            .optional()?
            .ok_or_else(|| StoreError::NotFound(format!("practice {id}")))
        })?;
        let (id, profile_id, material_id, mode, practice, last_result) = raw;
        Ok(Row {
            id,
            profile_id,
            material_id,
            mode: mode.parse().map_err(|e| damaged("mode", e))?,
            practice: serde_json::from_str(&practice).map_err(|e| damaged("state", e))?,
            last_result: last_result
                .map(|s| serde_json::from_str(&s))
                .transpose()
                .map_err(|e| damaged("result", e))?,
        })
    }

    pub(crate) fn save_practice(&self, row: &Row, insert: bool) -> AppResult<()> {
        let practice = serde_json::to_string(&row.practice).map_err(|e| damaged("state", e))?;
        let last = row
            .last_result
            .as_ref()
            .map(serde_json::to_string)
            .transpose()
            .map_err(|e| damaged("result", e))?;
        let now = now_utc();
        self.store().with_conn(|c| {
            if insert {
                c.execute(
                    "INSERT INTO practice_sessions (id, profile_id, material_id, mode, practice, last_result, created_at, updated_at)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7)",
                    params![row.id, row.profile_id, row.material_id, row.mode.as_str(), practice, last, now],
                )?;
            } else {
                c.execute(
                    "UPDATE practice_sessions SET practice = ?2, last_result = ?3, updated_at = ?4 WHERE id = ?1",
                    params![row.id, practice, last, now],
                )?;
            }
            Ok(())
        })?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Config;
    use deskmate_store::{MaterialFilter, NewProfile};
    use std::sync::mpsc;
    use std::time::Duration;

    struct Fixture {
        _dir: tempfile::TempDir,
        app: Deskmate,
        child: String,
        poem: String,
    }

    fn fixture() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let app = Deskmate::open(Config::in_dir(dir.path())).unwrap();
        let child = app
            .store()
            .profiles()
            .add(NewProfile {
                name: "小明".into(),
                grade: Some(1),
                ..Default::default()
            })
            .unwrap();
        let poem = app
            .store()
            .materials()
            .list(&MaterialFilter {
                search: Some("静夜思".into()),
                ..Default::default()
            })
            .unwrap()
            .remove(0);
        Fixture {
            _dir: dir,
            app,
            child: child.id,
            poem: poem.id,
        }
    }

    /// The task events the app publishes from now on.
    fn tasks(app: &Deskmate) -> mpsc::Receiver<TaskEvent> {
        let events = app.events();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for e in events.iter() {
                if let AppEvent::Task(t) = e {
                    if tx.send(*t).is_err() {
                        break;
                    }
                }
            }
        });
        rx
    }

    fn verdict(rx: &mpsc::Receiver<TaskEvent>) -> TaskEvent {
        loop {
            let e = rx.recv_timeout(Duration::from_secs(30)).unwrap();
            if matches!(e.status, TaskStatus::Done | TaskStatus::Failed) {
                return e;
            }
        }
    }

    #[test]
    fn omission_then_pass_then_review() {
        let f = fixture();
        let p = f.app.practice_start(&f.child, &f.poem, Mode::Text).unwrap();
        assert_eq!(p.state, PracticeState::Ready);
        assert!(!p.is_review);

        let rx = tasks(&f.app);
        let task = f
            .app
            .practice_submit_text(&p.id, "床前明月光，举头望明月，低头思故乡。".into())
            .unwrap();
        // The task is queued the moment its id is handed out, then checked.
        let queued = rx.recv_timeout(Duration::from_secs(30)).unwrap();
        assert_eq!(
            (queued.task_id.as_str(), queued.status),
            (task.as_str(), TaskStatus::Queued)
        );
        let done = verdict(&rx);
        assert_eq!(done.task_id, task);
        let r = done.result.unwrap();
        assert!(!r.passed);
        assert_eq!(r.attempt_number, 1);
        let omission = r
            .errors
            .iter()
            .find(|e| e.error_type == deskmate_recite::ErrorType::Omission)
            .unwrap();
        assert_eq!(omission.line, 2);
        assert!(!r.feedback.zh.is_empty() && !r.feedback.en.is_empty());

        let view = f.app.practice_current(&f.child).unwrap().unwrap();
        assert_eq!(view.state.name(), "feedback");
        assert_eq!(
            view.last_result.as_ref().map(|r| r.attempt_id.clone()),
            Some(r.attempt_id.clone())
        );

        f.app.practice_retry(&p.id).unwrap();
        let rx = tasks(&f.app);
        f.app
            .practice_submit_text(
                &p.id,
                "床前明月光，疑是地上霜。举头望明月，低头思故乡。".into(),
            )
            .unwrap();
        let r = verdict(&rx).result.unwrap();
        assert!(r.passed);
        assert_eq!(r.attempt_number, 2);
        // The pass scheduled the first review; the result says when.
        let next =
            chrono::DateTime::parse_from_rfc3339(r.next_review_at.as_deref().unwrap()).unwrap();
        let days = r.review_interval_days.unwrap();
        assert!(
            days >= 1 && next > Utc::now(),
            "next review {next} in {days} days"
        );
        assert!(f
            .app
            .reviews_due(&f.child, next.with_timezone(&Utc))
            .unwrap()
            .iter()
            .any(|d| d.material_id == f.poem));
        let view = f.app.practice_current(&f.child).unwrap().unwrap();
        assert_eq!(view.state.name(), "done");
        assert_eq!(view.attempts, 2);

        // The first pass scheduled a review; a new practice of it is a review.
        let later = Utc::now() + chrono::Duration::days(60);
        assert!(f
            .app
            .reviews_due(&f.child, later)
            .unwrap()
            .iter()
            .any(|d| d.material_id == f.poem));
        assert!(
            f.app
                .practice_start(&f.child, &f.poem, Mode::Voice)
                .unwrap()
                .is_review
        );
    }

    #[test]
    fn restart_while_listening_returns_to_ready() {
        let f = fixture();
        let p = f
            .app
            .practice_start(&f.child, &f.poem, Mode::Voice)
            .unwrap();
        f.app.practice_event(&p.id, PracticeEvent::Listen).unwrap();
        // A new handle on the same data directory is a restarted app.
        let again = Deskmate::open(f.app.config().clone()).unwrap();
        let view = again.practice_current(&f.child).unwrap().unwrap();
        assert_eq!(view.id, p.id);
        assert_eq!(view.state, PracticeState::Ready);
    }

    #[test]
    fn restart_mid_check_keeps_a_recorded_verdict() {
        let f = fixture();
        let p = f.app.practice_start(&f.child, &f.poem, Mode::Text).unwrap();
        // Simulate a crash between recording the attempt and storing the verdict:
        // the practice is left in `checking` while the attempt exists.
        let mut row = f.app.load_practice(&p.id).unwrap();
        transition(
            &mut row.practice,
            PracticeEvent::Submitted {
                task_id: "lost".into(),
            },
        )
        .unwrap();
        f.app.save_practice(&row, false).unwrap();
        f.app
            .record_attempt(NewAttempt {
                profile_id: f.child.clone(),
                material_id: f.poem.clone(),
                transcript: Transcript::new("床前明月光，疑是地上霜。举头望明月，低头思故乡。"),
                mode: Mode::Text,
                at: Utc::now(),
                duration_ms: None,
                session_id: Some(p.id.clone()),
            })
            .unwrap();
        let again = Deskmate::open(f.app.config().clone()).unwrap();
        let view = again.practice_current(&f.child).unwrap().unwrap();
        assert_eq!(view.state.name(), "done");
        assert_eq!(view.attempts, 1);
    }

    #[test]
    fn restart_mid_check_without_a_verdict_allows_a_retry() {
        let f = fixture();
        let p = f.app.practice_start(&f.child, &f.poem, Mode::Text).unwrap();
        let mut row = f.app.load_practice(&p.id).unwrap();
        transition(
            &mut row.practice,
            PracticeEvent::Submitted {
                task_id: "lost".into(),
            },
        )
        .unwrap();
        f.app.save_practice(&row, false).unwrap();
        let view = f.app.practice_current(&f.child).unwrap().unwrap();
        assert_eq!(view.state, PracticeState::Ready);
        assert_eq!(view.attempts, 0);
    }

    #[test]
    fn bad_input_is_refused_plainly() {
        let f = fixture();
        assert!(f
            .app
            .practice_start(&f.child, "no-such-material", Mode::Text)
            .is_err());
        let p = f.app.practice_start(&f.child, &f.poem, Mode::Text).unwrap();
        assert!(f
            .app
            .practice_retry(&p.id)
            .unwrap_err()
            .to_string()
            .contains("cannot retry"));
        // An empty submission is judged (0 %), not a crash.
        let rx = tasks(&f.app);
        f.app.practice_submit_text(&p.id, String::new()).unwrap();
        let e = verdict(&rx);
        assert!(e.result.is_some_and(|r| r.accuracy == 0.0) || e.error.is_some());
        f.app.practice_leave(&p.id).unwrap();
        assert!(f.app.practice_current(&f.child).unwrap().is_none());
    }
}
