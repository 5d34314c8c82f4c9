//! A recorded recitation checked, for every front end that has a file
//! rather than a microphone: `deskmate recite audio` and the HTTP API's
//! uploads (`POST /recitation/check`, recitation tasks). The recording is
//! decoded (WAV, FLAC, MP3, Ogg, M4A), the speech cut out and heard with
//! the practice's own speech models (loaded once per process and kept), and
//! judged by the one function voice practice uses too,
//! [`judge_recording`]: not an attempt (nothing heard, unclear, not the
//! material) comes back as such with nothing recorded, otherwise the fair
//! verdict — recorded for a child only when a profile is named, with the
//! transcript that gives exactly that verdict.
//!
//! The work is split so a front end can refuse bad input before it starts
//! anything slow: [`Deskmate::recording_check`] resolves the material, the
//! reference and the child (the store only), [`Recording::read`] decodes the
//! file, and [`ReadyCheck::judge`] hears and judges it (seconds: the
//! whisper decode), reporting each [`CheckPhase`] as it starts.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use deskmate_protocol::check::{self, HeardVerdict};
use deskmate_protocol::StageTimings;
use deskmate_speech::asr::{AudioContext, GuardFlag, HeardUnit};
use deskmate_speech::attempt::{judge_recording, NotAnAttempt, RecordingVerdict};
use deskmate_speech::audio::{file, Clip};
use deskmate_speech::fairness::{FairnessSettings, Rechecked, UncertainReason, UncertainSpan};
use deskmate_speech::{AsrConfig, Lang, ModelPaths, SpeechError, SpeechPipeline, Transcript};
use deskmate_store::{Material, Profile};
use serde::Serialize;

use crate::recite::{
    AttemptOutcome, Judgement, Mode, NewAttempt, Reference, DEFAULT_PASS_THRESHOLD,
};
use crate::{AppError, AppResult, Deskmate};

/// One recording judged, as `deskmate recite audio --json` prints it and
/// the API answers it: the protocol's shape with the recitation checker's
/// judgement and the attempt recorded for a child.
pub type CheckedRecording = HeardVerdict<Judgement, AttemptOutcome>;

/// What a recording is checked against, and for whom.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RecordingCheck {
    /// A material by id, built-in slug (`zh/jing-ye-si`) or unique title.
    pub material: Option<String>,
    /// The text itself, when it is not a stored material.
    pub reference: Option<String>,
    /// Record the attempt for this child (id or name); needs `material`.
    /// The verdict is then judged by the child's own pass mark.
    pub profile: Option<String>,
    /// `zh` or `en` (from the material, or detected from the reference).
    pub lang: Option<String>,
    /// The pass mark without a child (the default 85).
    pub pass_threshold: Option<f64>,
    /// Whisper's full 30 s encoder window (about 3× slower): a model
    /// loaded for this check alone instead of the shared one.
    pub full_audio_ctx: bool,
}

/// Where a check is, reported as each phase starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckPhase {
    /// The speech models are loaded (first use in this process only).
    LoadingModels,
    /// The voice detector cuts the speech out and whisper hears it.
    Hearing,
    /// The fair verdict is made (differences re-examined against the audio).
    Judging,
    /// The attempt is recorded for the child.
    Recording,
}

impl CheckPhase {
    /// Every phase in order (a front end shows `step` of `steps`).
    pub const ALL: [CheckPhase; 4] = [
        CheckPhase::LoadingModels,
        CheckPhase::Hearing,
        CheckPhase::Judging,
        CheckPhase::Recording,
    ];

    /// 1-based place among [`CheckPhase::ALL`].
    pub fn step(self) -> usize {
        CheckPhase::ALL
            .iter()
            .position(|p| *p == self)
            .map_or(0, |i| i + 1)
    }
}

/// A decoded recording (16 kHz mono) and how long decoding took.
#[derive(Debug, Clone)]
pub struct Recording {
    pub clip: Clip,
    pub decode_ms: u64,
}

impl Recording {
    /// Decodes `path` (at most [`file::DEFAULT_MAX_SECONDS`]): an empty,
    /// missing, over-long or non-audio file is `speech.audio` in plain words.
    pub fn read(path: &Path) -> AppResult<Self> {
        let started = Instant::now();
        let clip = file::load(path, file::DEFAULT_MAX_SECONDS).map_err(SpeechError::from)?;
        Ok(Self {
            clip,
            decode_ms: started.elapsed().as_millis() as u64,
        })
    }
}

/// A check whose material, reference and child are known: ready to judge
/// a recording.
#[derive(Debug, Clone)]
pub struct ReadyCheck {
    reference: Reference,
    lang: Lang,
    material: Option<Material>,
    profile: Option<Profile>,
    threshold: f64,
    full_audio_ctx: bool,
}

impl ReadyCheck {
    /// Whether judging records an attempt (a child was named).
    pub fn records(&self) -> bool {
        self.profile.is_some()
    }
}

/// Only one recording is heard and judged at a time per process: the
/// re-examination asks the whisper worker about the recording it heard
/// last, which another recording heard meanwhile would replace.
#[derive(Debug, Clone, Default)]
pub(crate) struct HearingTurn(Arc<Mutex<()>>);

impl HearingTurn {
    /// Waits for the turn; it is given back when the guard drops.
    pub(crate) fn take(&self) -> AppResult<std::sync::MutexGuard<'_, ()>> {
        self.0
            .lock()
            .map_err(|_| AppError::Poisoned("the speech models' turn lock was poisoned"))
    }
}

impl Deskmate {
    /// Resolves what a recording is checked against (the store only, so a
    /// front end refuses a bad request before anything slow): exactly one
    /// of material and reference, a profile only with a material, the
    /// language and the pass mark.
    pub fn recording_check(&self, ask: &RecordingCheck) -> AppResult<ReadyCheck> {
        let material = match (&ask.material, &ask.reference) {
            (Some(key), None) => Some(self.find_material(key)?),
            (None, Some(_)) => None,
            (Some(_), Some(_)) => {
                return Err(AppError::Invalid(
                    "give the material or the reference text, not both".into(),
                ))
            }
            (None, None) => {
                return Err(AppError::Invalid(
                    "give the material (id, slug or title) or the reference text".into(),
                ))
            }
        };
        if ask.profile.is_some() && material.is_none() {
            return Err(AppError::Invalid(
                "an attempt is recorded against a material: give the material instead of a reference text".into(),
            ));
        }
        let profile = match &ask.profile {
            Some(key) => Some(self.find_profile(key)?),
            None => None,
        };
        let (text, lang_code) = match (&material, &ask.reference) {
            (Some(m), _) => (
                m.body.clone(),
                ask.lang.clone().unwrap_or_else(|| m.lang.clone()),
            ),
            (None, Some(r)) => (
                r.clone(),
                ask.lang
                    .clone()
                    .unwrap_or_else(|| crate::recite::Lang::detect(r).as_str().to_string()),
            ),
            (None, None) => return Err(AppError::Invalid("nothing to check against".into())),
        };
        let lang = Lang::parse(&lang_code).ok_or_else(|| {
            AppError::Invalid(format!("the language is zh or en, not {lang_code:?}"))
        })?;
        let reference = Reference::new(&text, Some(lang_code.parse()?))?;
        // The child's own pass mark when the attempt is recorded for a
        // child, so the verdict given is the one stored.
        let threshold = match (&profile, ask.pass_threshold) {
            (Some(_), Some(_)) => {
                return Err(AppError::Invalid(
                    "a recorded attempt is judged by the child's own pass mark: leave pass_threshold out".into(),
                ))
            }
            (Some(p), None) => self.pass_threshold(&p.id)?,
            (None, Some(t)) if (0.0..=100.0).contains(&t) => t,
            (None, Some(_)) => {
                return Err(AppError::Invalid(
                    "pass_threshold is between 0 and 100".into(),
                ))
            }
            (None, None) => DEFAULT_PASS_THRESHOLD,
        };
        Ok(ReadyCheck {
            reference,
            lang,
            material,
            profile,
            threshold,
            full_audio_ctx: ask.full_audio_ctx,
        })
    }

    /// Decodes, hears and judges the recording at `path` (see
    /// [`ReadyCheck::judge`]). Blocks for seconds: call off the executor.
    pub fn check_recording(
        &self,
        ask: &RecordingCheck,
        path: &Path,
        progress: &mut dyn FnMut(CheckPhase),
    ) -> AppResult<CheckedRecording> {
        let ready = self.recording_check(ask)?;
        let recording = Recording::read(path)?;
        ready.judge(self, recording, progress)
    }

    /// The speech models: the practice's shared ones, or (full audio
    /// context) a pipeline loaded for one check.
    fn hearing_pipeline(&self, full_audio_ctx: bool) -> AppResult<Arc<SpeechPipeline>> {
        if !full_audio_ctx {
            return Ok(self.ears.pipeline()?);
        }
        let paths = ModelPaths::present_in(&self.config().models_dir)?;
        let mut config = AsrConfig::new(&paths.whisper);
        config.audio_context = AudioContext::Full;
        Ok(Arc::new(SpeechPipeline::load(&paths, config)?))
    }
}

impl ReadyCheck {
    /// Hears `recording` and judges it with [`judge_recording`]: not an
    /// attempt comes back with `not_an_attempt` and the words for the
    /// child, nothing recorded; an attempt with the fair verdict, recorded
    /// for the child when one was named. `progress` hears each phase as it
    /// starts. Blocks for seconds: call off the executor.
    pub fn judge(
        &self,
        app: &Deskmate,
        recording: Recording,
        progress: &mut dyn FnMut(CheckPhase),
    ) -> AppResult<CheckedRecording> {
        progress(CheckPhase::LoadingModels);
        let loading = Instant::now();
        let pipeline = app.hearing_pipeline(self.full_audio_ctx)?;
        let load_ms = loading.elapsed().as_millis() as u64;

        let started = Instant::now();
        let turn = app.hearing_turn.take()?;
        progress(CheckPhase::Hearing);
        let heard = pipeline.hear(&recording.clip, self.lang, Some(self.reference.len()))?;
        progress(CheckPhase::Judging);
        let settings = FairnessSettings::default();
        let checking = Instant::now();
        let judged = judge_recording(
            &self.reference,
            heard.transcript.as_ref(),
            &settings,
            Some(pipeline.asr()),
        )?;
        drop(turn);
        let check_ms = checking.elapsed().as_millis() as u64;
        let timings = |check_ms| StageTimings {
            decode_ms: recording.decode_ms,
            vad_ms: heard.vad_ms,
            asr_ms: heard.asr_ms,
            check_ms,
            total_ms: recording.decode_ms + started.elapsed().as_millis() as u64,
            load_ms,
        };
        let (transcript, voice) = match (&heard.transcript, judged) {
            (Some(t), RecordingVerdict::Judged(v)) => (t, *v),
            (transcript, RecordingVerdict::NotAnAttempt(why)) => {
                return Ok(HeardVerdict {
                    speech: transcript.is_some(),
                    not_an_attempt: Some(not_an_attempt(why)),
                    message: Some(why.message_zh().to_string()),
                    transcript: transcript.as_ref().map(heard_text),
                    verdict: None,
                    uncertain: vec![],
                    rechecked: vec![],
                    fair_accuracy: None,
                    timings: timings(0),
                    attempt: None,
                });
            }
            (None, RecordingVerdict::Judged(_)) => {
                return Err(AppError::Invalid("nothing was heard to judge".into()))
            }
        };
        let judgement = Judgement::new(&self.reference, voice.verdict.clone(), self.threshold);
        let timings = timings(check_ms);
        let attempt = match (&self.profile, &self.material) {
            (Some(p), Some(m)) => {
                progress(CheckPhase::Recording);
                Some(
                    app.record_attempt(NewAttempt {
                        profile_id: p.id.clone(),
                        material_id: m.id.clone(),
                        transcript: voice.record_transcript(transcript, &settings),
                        mode: Mode::Voice,
                        at: chrono::Utc::now(),
                        duration_ms: heard
                            .speech_end_ms
                            .zip(heard.speech_start_ms)
                            .map(|(e, s)| e.saturating_sub(s)),
                        session_id: None,
                    })?,
                )
            }
            _ => None,
        };
        Ok(HeardVerdict {
            speech: true,
            not_an_attempt: None,
            message: None,
            transcript: Some(heard_text(transcript)),
            verdict: Some(judgement),
            uncertain: voice.uncertain.iter().map(uncertain_span).collect(),
            rechecked: voice.rechecked.iter().map(rechecked).collect(),
            fair_accuracy: Some(voice.fair_accuracy),
            timings,
            attempt,
        })
    }
}

fn heard_unit(u: &HeardUnit) -> check::HeardUnit {
    check::HeardUnit {
        text: u.text.clone(),
        confidence: u.confidence,
        start_ms: u.start_ms,
        end_ms: u.end_ms,
    }
}

fn guard_flag(f: &GuardFlag) -> check::GuardFlag {
    match f.clone() {
        GuardFlag::StockPhrase { phrase } => check::GuardFlag::StockPhrase { phrase },
        GuardFlag::Repetition { ngram, times } => check::GuardFlag::Repetition { ngram, times },
        GuardFlag::TextOnSilence { text } => check::GuardFlag::TextOnSilence { text },
        GuardFlag::TooLong { heard, expected } => check::GuardFlag::TooLong { heard, expected },
    }
}

/// What whisper heard, in the protocol's shape.
pub fn heard_text(t: &Transcript) -> check::HeardText {
    check::HeardText {
        text: t.text.clone(),
        raw_text: t.raw_text.clone(),
        units: t.units.iter().map(heard_unit).collect(),
        flags: t.flags.iter().map(guard_flag).collect(),
    }
}

fn not_an_attempt(why: NotAnAttempt) -> check::NotAnAttempt {
    match why {
        NotAnAttempt::NothingHeard => check::NotAnAttempt::NothingHeard,
        NotAnAttempt::PromptEcho => check::NotAnAttempt::PromptEcho,
        NotAnAttempt::OnlyPunctuation => check::NotAnAttempt::OnlyPunctuation,
        NotAnAttempt::NotTheMaterial => check::NotAnAttempt::NotTheMaterial,
    }
}

fn uncertain_span(u: &UncertainSpan) -> check::UncertainSpan {
    check::UncertainSpan {
        line: u.line,
        offset: u.offset,
        expected: u.expected.clone(),
        heard: u.heard.clone(),
        error_type: crate::events::error_type(u.error_type),
        reason: match u.reason {
            UncertainReason::ToneOnly => check::UncertainReason::ToneOnly,
            UncertainReason::LowConfidence => check::UncertainReason::LowConfidence,
            UncertainReason::RecogniserGuard => check::UncertainReason::RecogniserGuard,
            UncertainReason::AudioFitsText => check::UncertainReason::AudioFitsText,
        },
    }
}

fn rechecked(r: &Rechecked) -> check::Rechecked {
    check::Rechecked {
        error: r.error,
        line: r.line,
        error_type: crate::events::error_type(r.error_type),
        expected: r.expected.clone(),
        heard: r.heard.clone(),
        delta: r.delta,
        alone: r.alone,
        in_run: r.in_run,
        in_material: r.in_material,
    }
}
