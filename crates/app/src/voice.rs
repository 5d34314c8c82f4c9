//! Spoken recitation in the practice scene: the microphone (cpal) → the
//! level meter → Silero VAD ends the attempt after the child falls silent
//! (or the record button is pressed again) → whisper on its worker thread →
//! the checker, fairly (tone-only and low-confidence differences are
//! `uncertain`, not the child's fault) → recorded like a typed attempt.
//! Everything runs on its own thread; the window only sees events.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use deskmate_orchestrator::PracticeEvent;
use deskmate_speech::asr::{AsrRequest, Lang as AsrLang};
use deskmate_speech::audio::capture::{Capture, Level};
use deskmate_speech::fairness::{checker_transcript, FairnessSettings};
use deskmate_speech::listen::{listen, AttemptEnd, ListenMode, Release};
use deskmate_speech::vad::{SileroVad, VadSettings};
use deskmate_speech::SpeechPipeline;

use crate::practice::{transition, TaskEvent, TaskSink, TaskStatus};
use crate::{AppError, AppResult, Deskmate};

/// Where the level meter goes (~20 per second while listening).
pub type LevelSink = Arc<dyn Fn(&str, f32) + Send + Sync>;

/// How long the microphone waits for the child to start.
const NO_SPEECH_AFTER: Duration = Duration::from_secs(15);

/// The loaded speech models, shared by every recording (loading whisper takes a moment).
#[derive(Default, Clone)]
pub struct SpeechSlot {
    pipeline: Arc<Mutex<Option<Arc<SpeechPipeline>>>>,
}

impl std::fmt::Debug for SpeechSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SpeechSlot")
    }
}

/// Recordings in progress, by practice id: pressing the button again releases them.
fn recordings() -> &'static Mutex<HashMap<String, Release>> {
    static MAP: OnceLock<Mutex<HashMap<String, Release>>> = OnceLock::new();
    MAP.get_or_init(|| Mutex::new(HashMap::new()))
}

fn speech_error(e: impl std::fmt::Display) -> AppError {
    AppError::Config(e.to_string())
}

impl Deskmate {
    /// The speech pipeline, loaded from the models directory on first use.
    pub fn speech(&self) -> AppResult<Arc<SpeechPipeline>> {
        let mut slot = self.speech_slot().pipeline.lock().map_err(|_| AppError::Config("speech slot poisoned".into()))?;
        if let Some(p) = slot.as_ref() {
            return Ok(p.clone());
        }
        let pipeline = SpeechPipeline::from_models_dir(&self.config().models_dir).map_err(|e| {
            AppError::Config(format!(
                "voice recitation needs the offline speech models ({e}); a parent can fetch them in Settings, \
                 or run `deskmate models fetch`. Typed recitation (默写) works without them"
            ))
        })?;
        let pipeline = Arc::new(pipeline);
        *slot = Some(pipeline.clone());
        Ok(pipeline)
    }

    /// Opens the microphone for a spoken attempt. The attempt ends when the
    /// child falls silent, or at [`Deskmate::practice_record_stop`]; then it
    /// is transcribed and checked as a task whose progress goes to `sink`.
    pub fn practice_record_start(&self, practice_id: &str, levels: LevelSink, sink: TaskSink) -> AppResult<()> {
        let pipeline = self.speech()?;
        let mut row = self.load_practice(practice_id)?;
        transition(&mut row.practice, PracticeEvent::Listen)?;
        self.save_practice(&row, false)?;
        let release = Release::default();
        if let Ok(mut map) = recordings().lock() {
            map.insert(row.id.clone(), release.clone());
        }
        let app = self.clone();
        std::thread::Builder::new()
            .name("practice-listen".into())
            .spawn(move || app.hear_attempt(row, pipeline, release, levels, sink))
            .map_err(|e| AppError::Config(format!("cannot open the microphone: {e}")))?;
        Ok(())
    }

    /// Ends the recording now (the record button pressed again).
    pub fn practice_record_stop(&self, practice_id: &str) -> AppResult<()> {
        let release = recordings().lock().ok().and_then(|mut m| m.remove(practice_id));
        match release {
            Some(r) => {
                r.release();
                Ok(())
            }
            None => Err(AppError::Config("the microphone is not open for this practice".into())),
        }
    }

    fn hear_attempt(
        &self,
        mut row: crate::practice::Row,
        pipeline: Arc<SpeechPipeline>,
        release: Release,
        levels: LevelSink,
        sink: TaskSink,
    ) {
        let practice_id = row.id.clone();
        let fail = |row: &mut crate::practice::Row, message: String| {
            let _ = transition(&mut row.practice, PracticeEvent::Cancelled);
            if let Err(e) = self.save_practice(row, false) {
                tracing::warn!("cannot store the practice after a recording problem: {e}");
            }
            sink(TaskEvent {
                practice_id: row.id.clone(),
                task_id: String::new(),
                status: TaskStatus::Failed,
                error: Some(message),
                result: None,
            });
        };
        let heard = (|| {
            let capture = Capture::start(None).map_err(speech_error)?;
            let paths = pipeline.model_paths();
            let vad = SileroVad::load(&paths.onnxruntime, &paths.silero_vad).map_err(speech_error)?;
            let mut on_level = |l: Level| levels(&practice_id, l.rms);
            listen(&capture, vad, VadSettings::default(), ListenMode::Vad, &release, NO_SPEECH_AFTER, &mut on_level)
                .map_err(speech_error)
        })();
        if let Ok(mut map) = recordings().lock() {
            map.remove(&practice_id);
        }
        let heard = match heard {
            Ok(h) => h,
            Err(e) => return fail(&mut row, e.to_string()),
        };
        let device_lost = match &heard.ended {
            AttemptEnd::DeviceLost { detail } => Some(detail.clone()),
            _ => None,
        };
        let Some(utterance) = heard.utterance else {
            let why = device_lost
                .map(|d| format!("the microphone went away before anything was heard ({d})"))
                .unwrap_or_else(|| "nothing was heard — press the button and recite again".into());
            return fail(&mut row, why);
        };
        if let Some(d) = device_lost {
            tracing::warn!("microphone lost mid-recitation ({d}); checking what was heard");
        }
        let task_id = uuid::Uuid::now_v7().to_string();
        if let Err(e) = transition(&mut row.practice, PracticeEvent::Submitted { task_id: task_id.clone() })
            .and_then(|()| self.save_practice(&row, false))
        {
            return fail(&mut row, e.to_string());
        }
        sink(TaskEvent {
            practice_id: practice_id.clone(),
            task_id: task_id.clone(),
            status: TaskStatus::Transcribing,
            error: None,
            result: None,
        });
        let material = match self.store().materials().get(&row.material_id) {
            Ok(m) => m,
            Err(e) => return fail(&mut row, e.to_string()),
        };
        let lang = if material.lang == "en" { AsrLang::En } else { AsrLang::Zh };
        let expected_units = deskmate_recite::Reference::new(&material.body, None).ok().map(|r| r.units().len());
        let duration_ms = Some(utterance.end_ms.saturating_sub(utterance.start_ms));
        let request = AsrRequest { samples: utterance.samples, lang, expected_units, speech_detected: Some(true) };
        match pipeline.asr().transcribe(request) {
            Ok(t) => {
                let transcript = checker_transcript(&t, &FairnessSettings::default());
                self.run_check(row, task_id, t.text.clone(), transcript, duration_ms, sink);
            }
            Err(e) => {
                let _ = transition(&mut row.practice, PracticeEvent::CheckFailed { task_id: task_id.clone() });
                if let Err(save) = self.save_practice(&row, false) {
                    tracing::warn!("cannot store the practice: {save}");
                }
                sink(TaskEvent {
                    practice_id,
                    task_id,
                    status: TaskStatus::Failed,
                    error: Some(format!("could not understand the recording: {e}")),
                    result: None,
                });
            }
        }
    }
}
