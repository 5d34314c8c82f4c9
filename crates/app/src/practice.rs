//! The practice scene, wired: the scene itself (its runner, the microphone,
//! the lamp's buttons) lives in `deskmate_orchestrator::scene`; this is the
//! [`Stage`] it plays on in the app — attempts recorded with memory tips
//! from the configured LLM (else the offline templates), the verdict acted
//! out on the connected lamp and said by the feedback voice, and the
//! scene's events put on the app's one event stream. Front ends reach the
//! scene as [`Deskmate::practice`].

use std::sync::Arc;

use deskmate_orchestrator::scene::{Microphone, PracticeScene, SceneEvent, Stage};
use deskmate_recite::practice::{AttemptOutcome, NewAttempt};
use deskmate_recite::retake::RetakeAttempt;
use deskmate_recite::ReciteError;
use deskmate_store::Store;

pub use deskmate_orchestrator::scene::{
    FeedbackView, LampAction, PracticeResult, PracticeView, SceneError, TaskEvent, TaskStatus,
};

use crate::events::EventBus;
use crate::lamp::ConnectedLamp;
use crate::voice_out::FeedbackVoice;
use crate::{Config, Deskmate};

/// The app's side of the practice scene.
struct AppStage {
    store: Store,
    lamp: ConnectedLamp,
    voice: FeedbackVoice,
    bus: EventBus,
}

impl Stage for AppStage {
    fn record_attempt(&self, attempt: NewAttempt) -> Result<AttemptOutcome, ReciteError> {
        crate::recite::record_attempt(&self.store, attempt)
    }

    fn record_retake(&self, retake: RetakeAttempt) -> Result<AttemptOutcome, ReciteError> {
        crate::recite::record_retake(&self.store, retake)
    }

    fn verdict_given(&self, material_id: &str, passed: bool, feedback: &FeedbackView) {
        self.lamp.react_to_verdict(passed);
        match self.store.materials().get(material_id) {
            Ok(m) => self.voice.speak_feedback(&m.lang, feedback),
            Err(e) => tracing::warn!("feedback not spoken: {e}"),
        }
    }

    fn child_about_to_speak(&self) {
        self.voice.interrupt();
    }

    fn scene_changed(&self) {
        self.voice.clear();
    }

    fn publish(&self, event: SceneEvent) {
        self.bus.publish(crate::events::scene_event(event));
    }
}

/// The practice scene on the app's store, stage and the default microphone,
/// and that microphone (whose speech models the one entry hears recordings
/// with: loaded once for both).
pub(crate) fn scene(
    config: &Config,
    store: &Store,
    lamp: &ConnectedLamp,
    voice: &FeedbackVoice,
    bus: &EventBus,
) -> (PracticeScene, Microphone) {
    let stage = AppStage {
        store: store.clone(),
        lamp: lamp.clone(),
        voice: voice.clone(),
        bus: bus.clone(),
    };
    let ears = Microphone::new(config.models_dir.clone());
    (
        PracticeScene::new(store.clone(), Arc::new(stage), Arc::new(ears.clone())),
        ears,
    )
}

impl Deskmate {
    /// The recitation practice scene: start, resume, submit typed text,
    /// record from the microphone, say an unclear line again (a retake
    /// merged into the same attempt), retry, leave; the lamp's buttons.
    pub fn practice(&self) -> &PracticeScene {
        &self.practice
    }

    /// What a child said, through the one entry: routed, decided by the
    /// guardrails, acted on in its scene, logged (see
    /// `deskmate_orchestrator::entry`). Chat and homework come back with
    /// `needs_model` for the companion to answer.
    pub fn process(
        &self,
        profile_id: &str,
        text: &str,
    ) -> crate::AppResult<deskmate_orchestrator::entry::Response> {
        self.process_input(profile_id, text.into())
    }

    /// A recording of what a child said, through the one entry: heard
    /// offline with the practice's speech models, then as
    /// [`Deskmate::process`]. A recording with no words in it comes back
    /// with the response's coded `error`, nothing stored.
    pub fn process_voice(
        &self,
        profile_id: &str,
        recording: &std::path::Path,
    ) -> crate::AppResult<deskmate_orchestrator::entry::Response> {
        // Not while a recorded recitation is judged: hearing this one would
        // replace the recording the judge re-examines.
        let _turn = self.hearing_turn.take()?;
        self.process_input(
            profile_id,
            deskmate_orchestrator::entry::Input::Voice(recording.to_path_buf()),
        )
    }

    /// Photos of homework (with any words typed along), through the one
    /// entry: checked by the configured vision model, the mistakes walked
    /// through in the homework scene and stored for the child. A file that
    /// is not a usable photo, or a model that fails or answers out of
    /// shape, comes back as the response's coded `error`, nothing stored.
    pub fn process_photos(
        &self,
        profile_id: &str,
        photos: &[std::path::PathBuf],
        text: &str,
    ) -> crate::AppResult<deskmate_orchestrator::entry::Response> {
        self.process_input(
            profile_id,
            deskmate_orchestrator::entry::Input::Photos {
                photos: photos.to_vec(),
                text: text.to_string(),
            },
        )
    }

    /// A button pressed on the lamp or the screen (`lamp:next`,
    /// `screen:yes`), through the one entry: the scene-local reply it stands
    /// for where the child is, with no model; a button that means nothing
    /// there is answered plainly and changes nothing.
    pub fn process_button(
        &self,
        profile_id: &str,
        pressed: deskmate_orchestrator::entry::Pressed,
    ) -> crate::AppResult<deskmate_orchestrator::entry::Response> {
        self.process_input(
            profile_id,
            deskmate_orchestrator::entry::Input::Button(pressed),
        )
    }

    /// Lets (or stops) the homework scene show a child the correct answer
    /// of a mistake, after the hint and the explanation (a parent's call).
    pub fn set_homework_answers(&self, profile_id: &str, allowed: bool) -> crate::AppResult<()> {
        Ok(self.store().settings().set(
            Some(profile_id),
            deskmate_orchestrator::entry::HOMEWORK_ANSWERS,
            &allowed,
        )?)
    }

    fn process_input(
        &self,
        profile_id: &str,
        input: deskmate_orchestrator::entry::Input,
    ) -> crate::AppResult<deskmate_orchestrator::entry::Response> {
        let (entry, model_ready) = self.answering_entry(profile_id)?;
        let response = entry.process(profile_id, input, chrono::Utc::now(), model_ready)?;
        self.lamp().act_out(&response.lamp);
        Ok(response)
    }

    /// The entry's logged decisions (of one child, or all) taken again with
    /// today's rules: what would change.
    pub fn replay_decisions(
        &self,
        profile_id: Option<&str>,
    ) -> crate::AppResult<Vec<deskmate_orchestrator::entry::Replayed>> {
        Ok(self.entry().replay(profile_id)?)
    }

    /// One request's trace through the entry: its decision and its spans,
    /// root first (what `deskmate trace show` draws as a timeline and the
    /// parents' timeline would show).
    pub fn trace(&self, trace_id: &str) -> crate::AppResult<deskmate_orchestrator::entry::Trace> {
        Ok(self.entry().trace(trace_id)?)
    }

    /// A child's most recent requests through the entry, newest first, each
    /// with its spans: what the parents' "what happened" lists and opens.
    pub fn recent_traces(
        &self,
        profile_id: &str,
        limit: usize,
    ) -> crate::AppResult<Vec<deskmate_orchestrator::entry::Trace>> {
        let most = i64::try_from(limit).unwrap_or(i64::MAX);
        // Decided requests, and the ones refused before a decision (their
        // spans only: nothing heard, photos that could not be used), newest first.
        let mut ids: Vec<(i64, String)> = self.store().with_conn(|c| {
            let mut stmt = c.prepare(
                "SELECT id, created_at FROM scene_decisions WHERE profile_id = ?1 ORDER BY created_at DESC, id DESC LIMIT ?2",
            )?;
            let mut ids = stmt
                .query_map(rusqlite::params![profile_id, most], |r| {
                    Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
                })?
                .collect::<Result<Vec<_>, _>>()?
                .into_iter()
                .map(|(id, at)| {
                    let at = chrono::DateTime::parse_from_rfc3339(&at)
                        .map(|t| t.timestamp_micros())
                        .unwrap_or(0);
                    (at, id)
                })
                .collect::<Vec<_>>();
            let mut stmt = c.prepare(REFUSED_ROOTS)?;
            ids.extend(
                stmt.query_map(rusqlite::params![profile_id, most], |r| {
                    Ok((r.get::<_, i64>(1)?, r.get::<_, String>(0)?))
                })?
                .collect::<Result<Vec<_>, _>>()?,
            );
            Ok(ids)
        })?;
        ids.sort_by(|a, b| b.cmp(a));
        ids.truncate(limit);
        let entry = self.entry();
        ids.iter().map(|(_, id)| Ok(entry.trace(id)?)).collect()
    }

    /// The entry with the configured model behind it, and whether one is
    /// set up: homework is checked with it, and what the offline router is
    /// not sure of is classified by it (waited for at most the
    /// `router.model_limit_ms` setting, 3 s unless set); without one (or
    /// without its key) the entry works offline and the scenes that need a
    /// model say a parent needs to set it up.
    /// The model calls it makes are stored as `profile_id`'s
    /// ([`crate::model_use`]).
    pub(crate) fn answering_entry(
        &self,
        profile_id: &str,
    ) -> crate::AppResult<(deskmate_orchestrator::entry::Entry, bool)> {
        // Ready only once a parent agreed to the model notice too.
        let model_ready = crate::chat::model_notice::agreed(self.store())?;
        let mut entry = self.entry();
        if model_ready {
            use crate::model_use::{ChildCalls, Purpose};
            let opts = crate::chat::ChatOptions::default();
            let prices = crate::model_use::prices(self.store());
            let store = self.store();
            if let Ok(client) = self.chat().llm_client(&opts) {
                let client =
                    ChildCalls::meter(client, store, profile_id, Purpose::Homework, prices.clone());
                entry = entry.with_checker(Arc::new(
                    deskmate_orchestrator::homework::model::ModelChecker::new(client),
                ));
            }
            // The router's call has its own short limit: no retries in it.
            if let Ok(client) = crate::chat::llm_client_without_retries(store, &opts) {
                let client = ChildCalls::meter(client, store, profile_id, Purpose::Route, prices);
                entry = entry.with_intent_model(
                    Arc::new(deskmate_orchestrator::intent_model::LlmIntentModel::new(
                        client,
                    )),
                    self.router_model_limit(),
                );
            }
        }
        Ok((entry, model_ready))
    }

    /// How long the entry waits for the model's classification: the
    /// `router.model_limit_ms` setting (100 ms to 30 s), else 3 s; a value
    /// out of range or unreadable is named in the log and the default used.
    pub fn router_model_limit(&self) -> std::time::Duration {
        let default = deskmate_orchestrator::intent_model::DEFAULT_LIMIT;
        match self
            .store()
            .settings()
            .get::<u64>(None, crate::settings::ROUTER_MODEL_LIMIT_MS)
        {
            Ok(None) => default,
            Ok(Some(ms)) if (100..=30_000).contains(&ms) => std::time::Duration::from_millis(ms),
            Ok(Some(ms)) => {
                tracing::warn!(
                    "router.model_limit_ms = {ms} is not between 100 and 30000; using 3000"
                );
                default
            }
            Err(e) => {
                tracing::warn!("router.model_limit_ms cannot be read ({e}); using 3000");
                default
            }
        }
    }

    pub(crate) fn entry(&self) -> deskmate_orchestrator::entry::Entry {
        deskmate_orchestrator::entry::Entry::new(self.store().clone(), self.practice.clone())
            .with_hearing(Arc::new(self.ears.clone()))
            .with_otlp(self.otlp_endpoint())
    }
}

/// A child's newest requests refused before a decision: their root spans
/// only (read through the `trace_spans_root_profile` index, migration 0014).
pub(crate) const REFUSED_ROOTS: &str = "SELECT trace_id, started_at FROM trace_spans
     WHERE parent_span_id IS NULL AND json_extract(attributes, '$.profile') = ?1
       AND trace_id NOT IN (SELECT id FROM scene_decisions)
     ORDER BY started_at DESC LIMIT ?2";
