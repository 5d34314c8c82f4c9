//! The recitation practice scene: a child opens a material, recites (typed
//! or spoken), gets a verdict with feedback, and retries until it passes.
//! [`PracticeScene`] runs it: the workflow is [`crate::Practice`], stored
//! after every step (table `practice_sessions`) so a practice survives a
//! crash; each submission runs as a background task whose progress is
//! published as [`SceneEvent::Task`]; a spoken attempt is heard by the
//! scene's [`Ears`] (the real [`Microphone`], or scripted ears in tests) with
//! the level and the text so far published as it goes; the lamp's buttons
//! drive the practice on screen ([`lamp_buttons`]). A verdict that re-asks a
//! line offers a retake of just that line ([`PracticeScene::retake_start`]):
//! heard by the same ears, judged against that line alone, merged into the
//! same attempt.
//!
//! What the scene hands off lies behind [`Stage`]: recording the attempt
//! (history, error patterns, review schedule, memory tips), acting the
//! verdict out on the lamp and saying its feedback, quieting the feedback
//! voice when the child is about to speak or the scene changes, and the
//! app's event stream. The app implements it; nothing here needs a network,
//! an LLM or the window.

pub mod at_pause;
pub mod error;
pub mod hearing;
pub mod lamp_buttons;
pub mod live;
mod rows;
pub mod views;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use chrono::Utc;
use deskmate_protocol::{LevelEvent, PartialEvent};
use deskmate_recite::practice::{AttemptOutcome, NewAttempt};
use deskmate_recite::retake::RetakeAttempt;
use deskmate_recite::{Mode, ReciteError, Transcript};
use deskmate_speech::listen::Release;
use deskmate_store::{Material, Store};

pub use error::{SceneError, SceneResult};
pub use hearing::{Ears, Listened, Listening, ListeningSink, Microphone, Speech, Transcribed};
pub use lamp_buttons::LampAction;
pub use views::{
    error_type, practice_result, recitation_error, FeedbackView, PracticeResult, PracticeView,
    SceneEvent, TaskEvent, TaskStatus,
};

use crate::{Practice, PracticeEvent, PracticeState};
use rows::Row;

/// What the practice scene hands off to the rest of the app.
pub trait Stage: Send + Sync {
    /// Records one attempt (history, error patterns, review schedule,
    /// feedback with memory tips). May block: it runs on the task's thread.
    fn record_attempt(&self, attempt: NewAttempt) -> Result<AttemptOutcome, ReciteError>;
    /// Merges a retake of one unclear line into its attempt (the same
    /// attempt, updated; see `deskmate_recite::retake`). May block.
    fn record_retake(&self, retake: RetakeAttempt) -> Result<AttemptOutcome, ReciteError>;
    /// A verdict was given on `material`: the lamp acts it out, the feedback
    /// voice says it. Never fails the recitation.
    fn verdict_given(&self, material_id: &str, passed: bool, feedback: &FeedbackView);
    /// The child is about to speak: a voice still speaking stops.
    fn child_about_to_speak(&self);
    /// The scene changed: whatever was still to be said is dropped.
    fn scene_changed(&self);
    /// Progress for the front ends.
    fn publish(&self, event: SceneEvent);
}

/// A recording in progress: pressing the button again releases it; its
/// task id exists from the moment the microphone opens.
#[derive(Clone)]
struct Recording {
    release: Release,
    task_id: String,
}

impl Recording {
    /// A microphone about to open, under a new task id.
    fn new() -> Self {
        Self {
            release: Release::default(),
            task_id: uuid::Uuid::now_v7().to_string(),
        }
    }
}

/// The practice scene (see the module comment). Clones share the
/// recordings in progress and the practice open on screen.
#[derive(Clone)]
pub struct PracticeScene {
    store: Store,
    stage: Arc<dyn Stage>,
    ears: Arc<dyn Ears>,
    recordings: Arc<Mutex<HashMap<String, Recording>>>,
    on_screen: Arc<Mutex<Option<String>>>,
}

impl std::fmt::Debug for PracticeScene {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PracticeScene")
            .field("on_screen", &self.open_practice())
            .finish()
    }
}

fn transition(practice: &mut Practice, event: PracticeEvent) -> SceneResult<()> {
    practice.apply(event).map(|_| ()).map_err(SceneError::from)
}

fn thread_error(what: &'static str) -> impl FnOnce(std::io::Error) -> SceneError {
    move |e| SceneError::Thread {
        what,
        reason: e.to_string(),
    }
}

impl PracticeScene {
    pub fn new(store: Store, stage: Arc<dyn Stage>, ears: Arc<dyn Ears>) -> Self {
        Self {
            store,
            stage,
            ears,
            recordings: Arc::default(),
            on_screen: Arc::default(),
        }
    }

    /// Opens a material for practice. A material the child already has a
    /// review schedule for is practised as a review.
    pub fn start(
        &self,
        profile_id: &str,
        material_id: &str,
        mode: Mode,
    ) -> SceneResult<PracticeView> {
        let profile = self.store.profiles().get(profile_id)?;
        let material = self.store.materials().get(material_id)?;
        let is_review = rows::has_review(&self.store, &profile.id, &material.id)?;
        let mut practice = Practice::new(is_review);
        transition(&mut practice, PracticeEvent::Start)?;
        // A new scene: whatever was still being said belongs to the last one.
        self.stage.scene_changed();
        let row = Row {
            id: uuid::Uuid::now_v7().to_string(),
            profile_id: profile.id,
            material_id: material.id,
            mode,
            practice,
            last_result: None,
        };
        rows::save(&self.store, &row, true)?;
        self.opened(&row.id);
        self.view(row)
    }

    /// The child's unfinished practice, resumed after a restart: a recording
    /// cut off returns to ready; a check whose verdict was recorded just
    /// before the crash is completed from the stored attempt.
    pub fn current(&self, profile_id: &str) -> SceneResult<Option<PracticeView>> {
        let Some(id) = rows::newest(&self.store, profile_id)? else {
            return Ok(None);
        };
        let mut row = self.load(&id)?;
        if row.practice.state == PracticeState::Idle {
            return Ok(None);
        }
        let (resumed, pending) = row.practice.clone().resume();
        row.practice = resumed;
        if let Some(task_id) = pending {
            // The task died with the app. Its attempt, if recorded, is the
            // newest of this session; otherwise the child simply tries again.
            let event = match rows::lost_attempt(&self.store, &row)? {
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
        self.save(&row)?;
        self.opened(&row.id);
        self.view(row).map(Some)
    }

    /// Submits a recitation's text (typed, or an ASR transcript) as a
    /// background task and returns its id at once; progress and the verdict
    /// are published as [`SceneEvent::Task`].
    pub fn submit_text(&self, practice_id: &str, text: String) -> SceneResult<String> {
        let mut row = self.load(practice_id)?;
        let task_id = uuid::Uuid::now_v7().to_string();
        transition(
            &mut row.practice,
            PracticeEvent::Submitted {
                task_id: task_id.clone(),
            },
        )?;
        self.save(&row)?;
        self.task(&row.id, &task_id, TaskStatus::Queued, None, None);
        let scene = self.clone();
        let id = task_id.clone();
        std::thread::Builder::new()
            .name("practice-check".into())
            .spawn(move || {
                let transcript = Transcript::new(text.clone());
                scene.check(row, &id, &text, transcript, None);
            })
            .map_err(thread_error("cannot start checking"))?;
        Ok(task_id)
    }

    /// Another try after a verdict.
    pub fn retry(&self, practice_id: &str) -> SceneResult<PracticeView> {
        self.step(practice_id, PracticeEvent::Retry)
    }

    /// The child leaves the practice (what was recorded stays recorded).
    pub fn leave(&self, practice_id: &str) -> SceneResult<()> {
        let mut row = self.load(practice_id)?;
        transition(&mut row.practice, PracticeEvent::Leave)?;
        self.save(&row)?;
        // A scene change: the microphone closes (what it heard finds the
        // practice left and is dropped), nothing more is said about it.
        let _ = self.record_stop(practice_id);
        self.stage.scene_changed();
        self.closed(practice_id);
        Ok(())
    }

    /// Applies a workflow event from a front end (listening started or cancelled).
    pub fn step(&self, practice_id: &str, event: PracticeEvent) -> SceneResult<PracticeView> {
        let mut row = self.load(practice_id)?;
        transition(&mut row.practice, event)?;
        self.save(&row)?;
        self.view(row)
    }

    /// The practice open on screen, if any: the one the lamp's buttons drive.
    pub fn open_practice(&self) -> Option<String> {
        self.on_screen.lock().ok().and_then(|p| p.clone())
    }

    /// Opens the microphone for a spoken attempt and returns its task id at
    /// once (the first task event, `listening`, carries it too). Any voice
    /// still speaking stops: the child is about to speak. The attempt ends
    /// when the child falls silent, or at [`PracticeScene::record_stop`];
    /// then it is queued, transcribed and checked under the same task id.
    pub fn record_start(&self, practice_id: &str) -> SceneResult<String> {
        self.stage.child_about_to_speak();
        let mut row = self.load(practice_id)?;
        self.ears.ready()?;
        let material = self.store.materials().get(&row.material_id)?;
        transition(&mut row.practice, PracticeEvent::Listen)?;
        self.save(&row)?;
        let recording = Recording::new();
        let scene = self.clone();
        self.listen_in_background(&row.id.clone(), &recording, "practice-listen", move |r| {
            scene.hear(row, material, r)
        })
    }

    /// Registers `recording` as the practice's open microphone (so
    /// [`PracticeScene::record_stop`] can end it), says `listening` under its
    /// task id, and hears it on a thread of its own; returns the task id.
    fn listen_in_background(
        &self,
        practice_id: &str,
        recording: &Recording,
        thread: &str,
        hear: impl FnOnce(Recording) + Send + 'static,
    ) -> SceneResult<String> {
        if let Ok(mut map) = self.recordings.lock() {
            map.insert(practice_id.to_string(), recording.clone());
        }
        self.task(
            practice_id,
            &recording.task_id,
            TaskStatus::Listening,
            None,
            None,
        );
        let owned = recording.clone();
        std::thread::Builder::new()
            .name(thread.into())
            .spawn(move || hear(owned))
            .map_err(thread_error("cannot open the microphone"))?;
        Ok(recording.task_id.clone())
    }

    /// Ends the recording now (the record button pressed again); returns the
    /// task id the attempt is checked under.
    pub fn record_stop(&self, practice_id: &str) -> SceneResult<String> {
        let recording = self
            .recordings
            .lock()
            .ok()
            .and_then(|mut m| m.remove(practice_id));
        match recording {
            Some(r) => {
                r.release.release();
                Ok(r.task_id)
            }
            None => Err(SceneError::NotNow(
                "the microphone is not open for this practice".into(),
            )),
        }
    }

    /// Opens the microphone for the child to say one unclear line of the
    /// verdict again — a teacher's re-ask — and returns its task id at once.
    /// The take is heard by the same ears, judged fairly against that line
    /// alone, and merged into the same attempt's verdict (no new attempt);
    /// its progress and the updated verdict come as [`SceneEvent::Task`].
    /// Only a line the verdict offers (`lines_to_say_again`) can be said
    /// again, once.
    pub fn retake_start(&self, practice_id: &str, line: usize) -> SceneResult<String> {
        let mut row = self.load(practice_id)?;
        let Some(result) = row.last_result.clone() else {
            return Err(SceneError::NotNow(
                "there is no verdict yet to say a line of again".into(),
            ));
        };
        if !result.lines_to_say_again.contains(&line) {
            return Err(SceneError::NotNow(format!(
                "line {line} is not one this verdict asks to hear again"
            )));
        }
        let text = result
            .lines
            .get(line - 1)
            .cloned()
            .ok_or_else(|| SceneError::NotNow(format!("the text has no line {line}")))?;
        self.stage.child_about_to_speak();
        self.ears.ready()?;
        // The ears listen for, and judge against, that line alone.
        let material = Material {
            body: text,
            ..self.store.materials().get(&row.material_id)?
        };
        let recording = Recording::new();
        transition(
            &mut row.practice,
            PracticeEvent::Retake {
                line,
                task_id: recording.task_id.clone(),
            },
        )?;
        self.save(&row)?;
        let scene = self.clone();
        self.listen_in_background(&row.id.clone(), &recording, "practice-retake", move |r| {
            scene.hear_retake(row, material, r, line, result)
        })
    }

    /// Whether the microphone is open for this practice.
    pub fn is_recording(&self, practice_id: &str) -> bool {
        self.recordings
            .lock()
            .map(|m| m.contains_key(practice_id))
            .unwrap_or(false)
    }

    fn task(
        &self,
        practice_id: &str,
        task_id: &str,
        status: TaskStatus,
        error: Option<&SceneError>,
        result: Option<PracticeResult>,
    ) {
        self.stage.publish(SceneEvent::Task(Box::new(TaskEvent {
            practice_id: practice_id.to_string(),
            task_id: task_id.to_string(),
            status,
            error: error.map(SceneError::wire),
            result,
        })));
    }

    /// A task that ended without a verdict: the practice goes back to
    /// `ready` (`cancelled` while listening) and the front ends are told why.
    fn fail(&self, row: &mut Row, task_id: &str, event: PracticeEvent, why: &SceneError) {
        let _ = transition(&mut row.practice, event);
        if let Err(e) = self.save(row) {
            tracing::warn!("cannot store the practice after a failed task: {e}");
        }
        self.task(&row.id, task_id, TaskStatus::Failed, Some(why), None);
    }

    /// Listens for one take (an attempt, or a line said again) until it
    /// ends; the recording is closed whatever happens.
    fn listen_for(
        &self,
        practice_id: &str,
        material: &Material,
        recording: &Recording,
    ) -> SceneResult<Speech> {
        let stage = self.stage.clone();
        let id = practice_id.to_string();
        let report: ListeningSink = Arc::new(move |heard: Listening| {
            let practice_id = id.clone();
            stage.publish(match heard {
                Listening::Level(level) => SceneEvent::Level(LevelEvent { practice_id, level }),
                Listening::Partial(text) => SceneEvent::Partial(PartialEvent { practice_id, text }),
            });
        });
        let listened = self.ears.listen(material, &recording.release, report);
        if let Ok(mut map) = self.recordings.lock() {
            map.remove(practice_id);
        }
        let listened = listened?;
        let Some(speech) = listened.speech else {
            return Err(match listened.device_lost {
                Some(d) => SceneError::MicrophoneLost(d),
                None => {
                    SceneError::NotAnAttempt(deskmate_speech::attempt::NotAnAttempt::NothingHeard)
                }
            });
        };
        if let Some(d) = listened.device_lost {
            tracing::warn!("microphone lost mid-recitation ({d}); checking what was heard");
        }
        Ok(speech)
    }

    /// Hears one spoken attempt, then checks it; runs on its own thread.
    fn hear(&self, mut row: Row, material: Material, recording: Recording) {
        let task_id = recording.task_id.clone();
        let cancelled = |scene: &Self, row: &mut Row, why: SceneError| {
            scene.fail(row, &task_id, PracticeEvent::Cancelled, &why);
        };
        let speech = match self.listen_for(&row.id, &material, &recording) {
            Ok(s) => s,
            Err(e) => return cancelled(self, &mut row, e),
        };
        // The practice may have changed while the child spoke (left, say): go on from what is stored.
        match self.load(&row.id) {
            Ok(fresh) => row = fresh,
            Err(e) => return cancelled(self, &mut row, e),
        }
        let submitted = PracticeEvent::Submitted {
            task_id: task_id.clone(),
        };
        if let Err(e) = transition(&mut row.practice, submitted).and_then(|()| self.save(&row)) {
            return cancelled(self, &mut row, e);
        }
        self.task(&row.id, &task_id, TaskStatus::Queued, None, None);
        self.task(&row.id, &task_id, TaskStatus::Transcribing, None, None);
        let duration_ms = speech.duration_ms;
        match self.ears.transcribe(&material, speech) {
            Ok(t) => self.check(row, &task_id, &t.shown, t.transcript, Some(duration_ms)),
            // Not an attempt, or whisper failed: nothing is recorded; the child tries again.
            Err(e) => {
                let failed = PracticeEvent::CheckFailed {
                    task_id: task_id.clone(),
                };
                self.fail(&mut row, &task_id, failed, &e);
            }
        }
    }

    /// Hears one line said again, judges it against that line and merges it
    /// into the attempt `before` was the verdict of; runs on its own thread.
    fn hear_retake(
        &self,
        mut row: Row,
        line_material: Material,
        recording: Recording,
        line: usize,
        before: PracticeResult,
    ) {
        let task_id = recording.task_id.clone();
        let failed = PracticeEvent::RetakeFailed {
            task_id: task_id.clone(),
        };
        let merged = (|| {
            let speech = self.listen_for(&row.id, &line_material, &recording)?;
            self.task(&row.id, &task_id, TaskStatus::Queued, None, None);
            self.task(&row.id, &task_id, TaskStatus::Transcribing, None, None);
            let heard = self.ears.transcribe(&line_material, speech)?;
            self.task(&row.id, &task_id, TaskStatus::Checking, None, None);
            let outcome = self.stage.record_retake(RetakeAttempt {
                attempt_id: before.attempt_id.clone(),
                line,
                transcript: heard.transcript,
                at: Utc::now(),
            })?;
            let mut result = practice_result(&outcome, &before.transcript);
            let taken = deskmate_recite::retake::taken_lines(&self.store, &outcome.attempt_id)?;
            result.lines_to_say_again.retain(|l| !taken.contains(l));
            Ok::<_, SceneError>((outcome, result))
        })();
        // Go on from the stored practice: the child may have left meanwhile.
        if let Ok(fresh) = self.load(&row.id) {
            row = fresh;
        }
        let done = merged.and_then(|(o, result)| {
            let rejudged = PracticeEvent::Rejudged {
                task_id: task_id.clone(),
                accuracy: o.verdict.accuracy,
                passed: o.passed,
            };
            row.last_result = Some(result.clone());
            transition(&mut row.practice, rejudged)?;
            self.save(&row)?;
            self.stage
                .verdict_given(&row.material_id, o.passed, &result.feedback);
            Ok(result)
        });
        match done {
            Ok(result) => self.task(&row.id, &task_id, TaskStatus::Done, None, Some(result)),
            Err(e) => self.fail(&mut row, &task_id, failed, &e),
        }
    }

    /// Checks a submission and records it; runs on the task's thread. `shown`
    /// is what the child is shown as heard or typed; `transcript` is what
    /// the checker compares (with ASR confidences for speech).
    fn check(
        &self,
        mut row: Row,
        task_id: &str,
        shown: &str,
        transcript: Transcript,
        duration_ms: Option<u64>,
    ) {
        self.task(&row.id, task_id, TaskStatus::Checking, None, None);
        let attempt = NewAttempt {
            profile_id: row.profile_id.clone(),
            material_id: row.material_id.clone(),
            transcript,
            mode: row.mode,
            at: Utc::now(),
            duration_ms,
            session_id: Some(row.id.clone()),
        };
        let outcome = self.stage.record_attempt(attempt);
        // Go on from the stored practice: the child may have left while it was checked.
        if let Ok(fresh) = self.load(&row.id) {
            row = fresh;
        }
        let done = outcome.map_err(SceneError::from).and_then(|o| {
            let result = practice_result(&o, shown);
            let judged = PracticeEvent::Judged {
                task_id: task_id.to_string(),
                attempt_id: o.attempt_id.clone(),
                accuracy: o.verdict.accuracy,
                passed: o.passed,
            };
            row.last_result = Some(result.clone());
            transition(&mut row.practice, judged)?;
            self.save(&row)?;
            self.stage
                .verdict_given(&row.material_id, o.passed, &result.feedback);
            Ok(result)
        });
        match done {
            Ok(result) => self.task(&row.id, task_id, TaskStatus::Done, None, Some(result)),
            Err(e) => {
                let failed = PracticeEvent::CheckFailed {
                    task_id: task_id.to_string(),
                };
                self.fail(&mut row, task_id, failed, &e);
            }
        }
    }

    fn opened(&self, practice_id: &str) {
        if let Ok(mut open) = self.on_screen.lock() {
            *open = Some(practice_id.to_string());
        }
    }

    fn closed(&self, practice_id: &str) {
        if let Ok(mut open) = self.on_screen.lock() {
            if open.as_deref() == Some(practice_id) {
                *open = None;
            }
        }
    }

    fn view(&self, row: Row) -> SceneResult<PracticeView> {
        Ok(PracticeView {
            material: self.store.materials().get(&row.material_id)?,
            id: row.id,
            profile_id: row.profile_id,
            mode: row.mode,
            is_review: row.practice.is_review,
            attempts: row.practice.attempts,
            state: row.practice.state,
            last_result: row.last_result,
        })
    }

    fn load(&self, id: &str) -> SceneResult<Row> {
        rows::load(&self.store, id)
    }

    fn save(&self, row: &Row) -> SceneResult<()> {
        rows::save(&self.store, row, false)
    }
}

#[cfg(test)]
pub(crate) mod tests;
