//! Spoken recitation in the practice scene: the microphone (cpal) → the
//! level meter → Silero VAD ends the attempt after the child falls silent
//! (or the record button is pressed again) → whisper on its worker thread →
//! the checker, fairly (tone-only and low-confidence differences are
//! `uncertain`, not the child's fault) → recorded like a typed attempt.
//! While the child recites, a live partial transcript is made on the same
//! whisper worker when it is idle (see [`crate::live_transcript`]). The
//! task id exists from the moment the microphone opens. Everything runs on
//! its own thread; the window only sees events.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use deskmate_orchestrator::PracticeEvent;
use deskmate_speech::asr::{AsrRequest, Lang as AsrLang};
use deskmate_speech::attempt::{judge_recording, RecordingVerdict};
use deskmate_speech::audio::capture::{Capture, Level};
use deskmate_speech::fairness::{checker_transcript, FairnessSettings};
use deskmate_speech::listen::{listen_live, AttemptEnd, ListenMode, Release, SpeechSoFar};
use deskmate_speech::vad::{SileroVad, Utterance, VadSettings};
use deskmate_speech::SpeechPipeline;
use deskmate_store::Material;

use crate::events::AppEvent;
use crate::live_transcript::{AsrGate, LiveTranscript, PartialSink, PARTIAL_EVERY};
use crate::practice::{transition, Row, TaskEvent, TaskSink, TaskStatus};
use crate::{AppError, AppResult, Deskmate};
use deskmate_protocol::{LevelEvent, PartialEvent};

/// Where the level meter goes (~20 per second while listening).
pub(crate) type LevelSink = Arc<dyn Fn(&str, f32) + Send + Sync>;

/// Where a recording's progress goes inside the core: the level meter, the
/// live partial transcript, and the task (listening → queued → transcribing →
/// checking → done). Front ends see them as [`AppEvent::Level`],
/// [`AppEvent::Partial`] and [`AppEvent::Task`] on [`Deskmate::events`].
#[derive(Clone)]
pub(crate) struct RecordingSinks {
    pub(crate) levels: LevelSink,
    pub(crate) partials: PartialSink,
    pub(crate) tasks: TaskSink,
}

impl Deskmate {
    /// Recording sinks that publish on the app's event stream.
    pub(crate) fn recording_sinks(&self) -> RecordingSinks {
        let (levels_bus, partials_bus) = (self.bus().clone(), self.bus().clone());
        RecordingSinks {
            levels: Arc::new(move |practice_id: &str, level: f32| {
                levels_bus.publish(AppEvent::Level(LevelEvent {
                    practice_id: practice_id.to_string(),
                    level,
                }));
            }),
            partials: Arc::new(move |practice_id: &str, text: &str| {
                partials_bus.publish(AppEvent::Partial(PartialEvent {
                    practice_id: practice_id.to_string(),
                    text: text.to_string(),
                }));
            }),
            tasks: self.task_sink(),
        }
    }
}

/// How long the microphone waits for the child to start.
const NO_SPEECH_AFTER: Duration = Duration::from_secs(15);

/// A recording in progress: pressing the button again releases it; its
/// task id exists from the moment the microphone opens.
#[derive(Clone)]
struct Recording {
    release: Release,
    task_id: String,
}

/// The loaded speech models, shared by every recording (loading whisper
/// takes a moment), the recordings in progress by practice id, and the
/// count of whisper jobs in flight.
#[derive(Default, Clone)]
pub struct Hearing {
    pipeline: Arc<Mutex<Option<Arc<SpeechPipeline>>>>,
    recordings: Arc<Mutex<HashMap<String, Recording>>>,
    gate: AsrGate,
}

impl std::fmt::Debug for Hearing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Hearing")
    }
}

impl Deskmate {
    /// The speech pipeline, loaded from the models directory on first use.
    pub fn speech(&self) -> AppResult<Arc<SpeechPipeline>> {
        let mut slot = self
            .hearing()
            .pipeline
            .lock()
            .map_err(|_| AppError::Poisoned("speech slot poisoned"))?;
        if let Some(p) = slot.as_ref() {
            return Ok(p.clone());
        }
        let pipeline = SpeechPipeline::from_models_dir(&self.config().models_dir)
            .map_err(|e| AppError::ModelsNeeded(e.to_string()))?;
        let pipeline = Arc::new(pipeline);
        *slot = Some(pipeline.clone());
        Ok(pipeline)
    }

    /// Counts the app's whisper jobs (a partial transcript waits for idle).
    pub fn asr_gate(&self) -> AsrGate {
        self.hearing().gate.clone()
    }

    /// Opens the microphone for a spoken attempt and returns its task id at
    /// once (the first task event, `listening`, carries it too). Any voice
    /// still speaking stops: the child is about to speak. The attempt ends
    /// when the child falls silent, or at [`Deskmate::practice_record_stop`];
    /// then it is queued, transcribed and checked under the same task id.
    pub fn practice_record_start(&self, practice_id: &str) -> AppResult<String> {
        let sinks = self.recording_sinks();
        self.voice_interrupt();
        let mut row = self.load_practice(practice_id)?;
        let pipeline = self.speech()?;
        let material = self.store().materials().get(&row.material_id)?;
        transition(&mut row.practice, PracticeEvent::Listen)?;
        self.save_practice(&row, false)?;
        let recording = Recording {
            release: Release::default(),
            task_id: uuid::Uuid::now_v7().to_string(),
        };
        if let Ok(mut map) = self.hearing().recordings.lock() {
            map.insert(row.id.clone(), recording.clone());
        }
        (sinks.tasks)(TaskEvent {
            practice_id: row.id.clone(),
            task_id: recording.task_id.clone(),
            status: TaskStatus::Listening,
            error: None,
            result: None,
        });
        let app = self.clone();
        let task_id = recording.task_id.clone();
        std::thread::Builder::new()
            .name("practice-listen".into())
            .spawn(move || app.hear_attempt(row, material, pipeline, recording, sinks))
            .map_err(|e| AppError::Thread {
                what: "cannot open the microphone",
                reason: e.to_string(),
            })?;
        Ok(task_id)
    }

    /// Ends the recording now (the record button pressed again); returns the
    /// task id the attempt is checked under.
    pub fn practice_record_stop(&self, practice_id: &str) -> AppResult<String> {
        let recording = self
            .hearing()
            .recordings
            .lock()
            .ok()
            .and_then(|mut m| m.remove(practice_id));
        match recording {
            Some(r) => {
                r.release.release();
                Ok(r.task_id)
            }
            None => Err(AppError::Practice(
                "the microphone is not open for this practice".into(),
            )),
        }
    }

    /// Whether the microphone is open for this practice.
    pub fn practice_is_recording(&self, practice_id: &str) -> bool {
        self.hearing()
            .recordings
            .lock()
            .map(|m| m.contains_key(practice_id))
            .unwrap_or(false)
    }

    fn hear_attempt(
        &self,
        mut row: Row,
        material: Material,
        pipeline: Arc<SpeechPipeline>,
        recording: Recording,
        sinks: RecordingSinks,
    ) {
        let practice_id = row.id.clone();
        let task_id = recording.task_id.clone();
        let tasks = sinks.tasks.clone();
        let event = |status, error: Option<String>| TaskEvent {
            practice_id: practice_id.clone(),
            task_id: task_id.clone(),
            status,
            error,
            result: None,
        };
        let fail = |row: &mut Row, message: String| {
            let _ = transition(&mut row.practice, PracticeEvent::Cancelled);
            if let Err(e) = self.save_practice(row, false) {
                tracing::warn!("cannot store the practice after a recording problem: {e}");
            }
            tasks(event(TaskStatus::Failed, Some(message)));
        };
        let lang = if material.lang == "en" {
            AsrLang::En
        } else {
            AsrLang::Zh
        };
        let expected_units = deskmate_recite::Reference::new(&material.body, None)
            .ok()
            .map(|r| r.units().len());
        let live = LiveTranscript::new(
            pipeline.clone(),
            self.asr_gate(),
            lang,
            expected_units,
            &practice_id,
            sinks.partials.clone(),
        );
        let heard = (|| {
            let capture = Capture::start(None).map_err(|e| AppError::Speech(e.into()))?;
            let paths = pipeline.model_paths();
            let vad = SileroVad::load(&paths.onnxruntime, &paths.silero_vad)
                .map_err(|e| AppError::Speech(e.into()))?;
            let mut on_level = |l: Level| (sinks.levels)(&practice_id, l.rms);
            let mut on_speech = |u: Utterance| {
                live.offer(u.samples);
            };
            let mut so_far = SpeechSoFar::new(PARTIAL_EVERY, &mut on_speech);
            listen_live(
                &capture,
                vad,
                VadSettings::default(),
                ListenMode::Vad,
                &recording.release,
                NO_SPEECH_AFTER,
                &mut on_level,
                Some(&mut so_far),
            )
            .map_err(|e| AppError::Speech(e.into()))
        })();
        // The final transcription goes first: a partial still running is cancelled.
        live.finish();
        if let Ok(mut map) = self.hearing().recordings.lock() {
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
        // The practice may have changed while the child spoke (left, say): go on from what is stored.
        match self.load_practice(&practice_id) {
            Ok(fresh) => row = fresh,
            Err(e) => return fail(&mut row, e.to_string()),
        }
        if let Err(e) = transition(
            &mut row.practice,
            PracticeEvent::Submitted {
                task_id: task_id.clone(),
            },
        )
        .and_then(|()| self.save_practice(&row, false))
        {
            return fail(&mut row, e.to_string());
        }
        tasks(event(TaskStatus::Queued, None));
        tasks(event(TaskStatus::Transcribing, None));
        let duration_ms = Some(utterance.end_ms.saturating_sub(utterance.start_ms));
        let request = AsrRequest {
            samples: utterance.samples,
            lang,
            expected_units,
            speech_detected: Some(true),
        };
        let job = self.asr_gate().enter();
        // The one place voice practice applies the fairness rules: the
        // differences are re-examined against this recording while the
        // worker still holds it (inside the gate, so no partial transcript
        // replaces it), and the attempt is recorded with the transcript that
        // gives exactly that fair verdict.
        let settings = FairnessSettings::default();
        let transcribed = pipeline.asr().transcribe(request).map(|t| {
            // One function judges a recording, here and in `deskmate recite audio`.
            let judged =
                deskmate_recite::Reference::new(&material.body, material.lang.parse().ok())
                    .ok()
                    .and_then(|reference| {
                        judge_recording(&reference, Some(&t), &settings, Some(pipeline.asr())).ok()
                    });
            let transcript = match judged {
                Some(RecordingVerdict::NotAnAttempt(why)) => Err(why),
                Some(RecordingVerdict::Judged(v)) => Ok(v.record_transcript(&t, &settings)),
                None => Ok(checker_transcript(&t, &settings)),
            };
            (t, transcript)
        });
        drop(job);
        match transcribed {
            Ok((_, Err(why))) => {
                // Not an attempt: nothing is recorded; the child tries again.
                let _ = transition(
                    &mut row.practice,
                    PracticeEvent::CheckFailed {
                        task_id: task_id.clone(),
                    },
                );
                if let Err(save) = self.save_practice(&row, false) {
                    tracing::warn!("cannot store the practice: {save}");
                }
                tasks(event(
                    TaskStatus::Failed,
                    Some(why.message_en().to_string()),
                ));
            }
            Ok((t, Ok(transcript))) => {
                self.run_check(
                    row,
                    task_id.clone(),
                    t.text.clone(),
                    transcript,
                    duration_ms,
                    sinks.tasks,
                );
            }
            Err(e) => {
                let _ = transition(
                    &mut row.practice,
                    PracticeEvent::CheckFailed {
                        task_id: task_id.clone(),
                    },
                );
                if let Err(save) = self.save_practice(&row, false) {
                    tracing::warn!("cannot store the practice: {save}");
                }
                tasks(event(
                    TaskStatus::Failed,
                    Some(format!("could not understand the recording: {e}")),
                ));
            }
        }
    }
}
