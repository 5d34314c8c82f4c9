//! The scene's ears: how a spoken attempt becomes a transcript. [`Ears`] is
//! the seam — the practice scene only asks it to listen for one attempt and
//! then to transcribe what was heard — so scene tests run on scripted ears
//! in milliseconds while [`Microphone`] is the real thing: the microphone
//! (cpal) → the level meter → Silero VAD ends the attempt after the child
//! falls silent (or the record button is pressed again) → whisper on its
//! worker thread → the checker, fairly (tone-only and low-confidence
//! differences are `uncertain`, not the child's fault). While the child
//! recites, a live partial transcript is made on the same whisper worker
//! when it is idle (see [`super::live`]), and at each pause the attempt is
//! judged as it stands, so the verdict is ready when the silence ends, or
//! sooner when the material was heard to its end (see [`super::at_pause`]).

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use deskmate_recite::{Reference, Transcript};
use deskmate_speech::asr::{AsrRequest, Lang as AsrLang};
use deskmate_speech::attempt::{judge_recording, RecordingVerdict};
use deskmate_speech::audio::capture::{Capture, Level};
use deskmate_speech::fairness::FairnessSettings;
use deskmate_speech::listen::{
    listen_live, AttemptEnd, EndAtPause, ListenMode, Pause, Pauses, Release, SpeechSoFar,
};
use deskmate_speech::vad::{SileroVad, Utterance, VadSettings};
use deskmate_speech::SpeechPipeline;
use deskmate_store::Material;

use super::at_pause::AtPause;
use super::error::{SceneError, SceneResult};
use super::live::{AsrGate, LiveTranscript, PARTIAL_EVERY};

/// What the ears report while the child recites.
#[derive(Debug, Clone, PartialEq)]
pub enum Listening {
    /// The microphone's level (RMS), about 20 a second.
    Level(f32),
    /// The text heard so far.
    Partial(String),
}

/// Where [`Listening`] reports go; called from the listening thread and
/// from the partial transcript's.
pub type ListeningSink = Arc<dyn Fn(Listening) + Send + Sync>;

/// The speech of one attempt.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Speech {
    /// 16 kHz mono samples.
    pub samples: Vec<f32>,
    pub duration_ms: u64,
}

/// How listening for one attempt ended.
#[derive(Debug, Clone, Default)]
pub struct Listened {
    /// What was said, when anything was.
    pub speech: Option<Speech>,
    /// The microphone went away mid-attempt (what was heard before still counts).
    pub device_lost: Option<String>,
}

/// What a spoken attempt comes to: the text the child is shown as heard,
/// and the transcript the checker compares (which gives the fair verdict).
#[derive(Debug, Clone)]
pub struct Transcribed {
    pub shown: String,
    pub transcript: Transcript,
}

/// How the scene hears a spoken attempt.
pub trait Ears: Send + Sync {
    /// Gets ready to hear (loads the models): fails before the microphone
    /// opens, so the child is told at once.
    fn ready(&self) -> SceneResult<()>;

    /// Listens for one attempt at `material` until the child falls silent,
    /// `release` is released, or nobody speaks for a while; blocks. Levels
    /// and partial texts go to `report` as they come.
    fn listen(
        &self,
        material: &Material,
        release: &Release,
        report: ListeningSink,
    ) -> SceneResult<Listened>;

    /// Transcribes `speech` and judges it fairly against `material`. Not an
    /// attempt (nothing clear heard, not the material) is
    /// [`SceneError::NotAnAttempt`]: nothing is recorded.
    fn transcribe(&self, material: &Material, speech: Speech) -> SceneResult<Transcribed>;
}

/// How long the microphone waits for the child to start.
const NO_SPEECH_AFTER: Duration = Duration::from_secs(15);

/// Silence that counts as a pause, at which the attempt is judged as it
/// stands: the voice detector's 200 ms end padding, so the samples judged
/// are the attempt's own (a shorter pause was measured and not taken: see
/// the speech crate's README).
pub const PAUSE_AFTER: Duration = Duration::from_millis(200);

/// The real ears: the default microphone, the speech models from the models
/// directory (loaded on first use and kept), and the count of whisper jobs
/// in flight (a partial transcript only runs while the worker is idle).
/// Clones share all of it.
#[derive(Clone)]
pub struct Microphone {
    models_dir: PathBuf,
    pipeline: Arc<Mutex<Option<Arc<SpeechPipeline>>>>,
    gate: AsrGate,
    /// The judgements at the pauses of the latest attempt.
    at_pause: Arc<Mutex<Option<Arc<AtPause>>>>,
}

impl std::fmt::Debug for Microphone {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Microphone")
            .field("models_dir", &self.models_dir)
            .finish()
    }
}

pub(super) fn asr_lang(material: &Material) -> AsrLang {
    if material.lang == "en" {
        AsrLang::En
    } else {
        AsrLang::Zh
    }
}

pub(super) fn expected_units(material: &Material) -> Option<usize> {
    Reference::new(&material.body, None)
        .ok()
        .map(|r| r.units().len())
}

impl Microphone {
    pub fn new(models_dir: PathBuf) -> Self {
        Self {
            models_dir,
            pipeline: Arc::default(),
            gate: AsrGate::default(),
            at_pause: Arc::default(),
        }
    }

    /// The speech pipeline, loaded from the models directory on first use.
    pub fn pipeline(&self) -> SceneResult<Arc<SpeechPipeline>> {
        let mut slot = self
            .pipeline
            .lock()
            .map_err(|_| SceneError::Poisoned("the speech models' lock was poisoned"))?;
        if let Some(p) = slot.as_ref() {
            return Ok(p.clone());
        }
        let pipeline = SpeechPipeline::from_models_dir(&self.models_dir)
            .map_err(|e| SceneError::ModelsNeeded(e.to_string()))?;
        let pipeline = Arc::new(pipeline);
        *slot = Some(pipeline.clone());
        Ok(pipeline)
    }

    /// Listens to the default microphone until the child falls silent (the
    /// voice detector's end of speech), `release` is released, or nobody
    /// speaks for a while; blocks. Levels and the text heard so far (in
    /// `lang`) go to `report`. A practice attempt and the talk button both
    /// hear with it.
    pub fn listen_for_speech(
        &self,
        lang: AsrLang,
        expected_units: Option<usize>,
        release: &Release,
        report: ListeningSink,
    ) -> SceneResult<Listened> {
        self.hear(lang, expected_units, None, release, report)
    }

    /// [`Microphone::listen_for_speech`]; with `material`, the attempt at it
    /// is also judged at each pause ([`AtPause`]) and ends at a pause once
    /// the material was heard to its end.
    fn hear(
        &self,
        lang: AsrLang,
        expected_units: Option<usize>,
        material: Option<&Material>,
        release: &Release,
        report: ListeningSink,
    ) -> SceneResult<Listened> {
        let pipeline = self.pipeline()?;
        let partials = report.clone();
        let live = Arc::new(LiveTranscript::new(
            pipeline.clone(),
            self.gate.clone(),
            lang,
            expected_units,
            Arc::new(move |text: &str| partials(Listening::Partial(text.to_string()))),
        ));
        let end = EndAtPause::default();
        let at_pause = material.map(|m| {
            let live = live.clone();
            Arc::new(
                AtPause::new(pipeline.clone(), self.gate.clone(), m.clone(), end.clone())
                    // What the pause's transcription heard is the speech so
                    // far: shown as a partial, as the one it took the place of.
                    .showing(Arc::new(move |text: &str| live.show(text))),
            )
        });
        if let Ok(mut slot) = self.at_pause.lock() {
            slot.clone_from(&at_pause);
        }
        let heard = (|| {
            let capture = Capture::start(None)?;
            let paths = pipeline.model_paths();
            let vad = SileroVad::load(&paths.onnxruntime, &paths.silero_vad)?;
            let mut on_level = |l: Level| report(Listening::Level(l.rms));
            let mut on_speech = |u: Utterance| {
                live.offer(u.samples);
            };
            let mut on_pause = |p: Pause| {
                if let Some(at_pause) = &at_pause {
                    match p {
                        Pause::Began(u) => {
                            live.pause();
                            at_pause.began(u);
                        }
                        Pause::Resumed => at_pause.resumed(),
                    }
                }
            };
            let mut so_far = SpeechSoFar::new(PARTIAL_EVERY, &mut on_speech);
            if at_pause.is_some() {
                so_far = so_far.with_pauses(Pauses::new(PAUSE_AFTER, &mut on_pause, end.clone()));
            }
            Ok::<_, deskmate_speech::SpeechError>(listen_live(
                &capture,
                vad,
                VadSettings::default(),
                ListenMode::Vad,
                release,
                NO_SPEECH_AFTER,
                &mut on_level,
                Some(&mut so_far),
            )?)
        })();
        // The final transcription goes first: a partial still running is cancelled.
        live.finish();
        let heard = heard?;
        if heard.ended == AttemptEnd::HeardToTheEnd {
            tracing::info!("the material was heard to its end: the attempt ended at the pause");
        }
        Ok(Listened {
            device_lost: match heard.ended {
                AttemptEnd::DeviceLost { detail } => Some(detail),
                _ => None,
            },
            speech: heard.utterance.map(|u| Speech {
                duration_ms: u.end_ms.saturating_sub(u.start_ms),
                samples: u.samples,
            }),
        })
    }

    /// Transcribes speech the microphone heard, in `lang`, on the whisper
    /// worker (no partial transcript replaces it meanwhile): what was said,
    /// judged against no material.
    pub fn transcribe_speech(
        &self,
        speech: &Speech,
        lang: AsrLang,
    ) -> SceneResult<deskmate_speech::asr::Transcript> {
        let pipeline = self.pipeline()?;
        let _job = self.gate.enter();
        Ok(pipeline
            .asr()
            .transcribe(AsrRequest {
                samples: speech.samples.clone(),
                lang,
                expected_units: None,
                speech_detected: Some(true),
            })
            .map_err(deskmate_speech::SpeechError::from)?)
    }
}

impl Ears for Microphone {
    fn ready(&self) -> SceneResult<()> {
        self.pipeline().map(|_| ())
    }

    fn listen(
        &self,
        material: &Material,
        release: &Release,
        report: ListeningSink,
    ) -> SceneResult<Listened> {
        self.hear(
            asr_lang(material),
            expected_units(material),
            Some(material),
            release,
            report,
        )
    }

    fn transcribe(&self, material: &Material, speech: Speech) -> SceneResult<Transcribed> {
        // Judged at the child's last pause already, on these samples?
        let at_pause = self.at_pause.lock().ok().and_then(|mut slot| slot.take());
        if let Some(verdict) = at_pause.and_then(|a| a.take(material, &speech.samples)) {
            return verdict;
        }
        let pipeline = self.pipeline()?;
        let request = AsrRequest {
            samples: speech.samples,
            lang: asr_lang(material),
            expected_units: expected_units(material),
            speech_detected: Some(true),
        };
        // The one place voice practice applies the fairness rules: the
        // differences are re-examined against this recording while the
        // worker still holds it (inside the gate, so no partial transcript
        // replaces it), and the attempt is recorded with the transcript that
        // gives exactly that fair verdict ([`judge_heard`]).
        let _job = self.gate.enter();
        let heard = pipeline
            .asr()
            .transcribe(request)
            .map_err(deskmate_speech::SpeechError::from)?;
        judge_heard(material, &heard, Some(pipeline.asr()))
    }
}

/// The fair verdict on what was heard of `material`, as the attempt is
/// recorded: the same function `deskmate recite audio` calls
/// ([`judge_recording`]), and the same outcome — not an attempt is
/// [`SceneError::NotAnAttempt`], a recording that cannot be judged is the
/// checker's coded error (said to the child in words), never a silent
/// fall-back to a less fair check. With `engine` (the whisper worker still
/// holding the recording) the differences are re-examined against the audio.
pub fn judge_heard(
    material: &Material,
    heard: &deskmate_speech::asr::Transcript,
    engine: Option<&deskmate_speech::asr::AsrEngine>,
) -> SceneResult<Transcribed> {
    judge_heard_to_the_end(material, heard, engine).map(|(t, _)| t)
}

/// [`judge_heard`], and whether the child was heard to the end of the
/// material (`VoiceVerdict::reaches_the_end`).
pub fn judge_heard_to_the_end(
    material: &Material,
    heard: &deskmate_speech::asr::Transcript,
    engine: Option<&deskmate_speech::asr::AsrEngine>,
) -> SceneResult<(Transcribed, bool)> {
    let settings = FairnessSettings::default();
    let reference = Reference::new(&material.body, material.lang.parse().ok())?;
    let (transcript, to_the_end) =
        match judge_recording(&reference, Some(heard), &settings, engine)? {
            RecordingVerdict::NotAnAttempt(why) => return Err(SceneError::NotAnAttempt(why)),
            RecordingVerdict::Judged(v) => {
                (v.record_transcript(heard, &settings), v.reaches_the_end())
            }
        };
    Ok((
        Transcribed {
            shown: heard.text.clone(),
            transcript,
        },
        to_the_end,
    ))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use super::*;
    use deskmate_speech::asr::{HeardUnit, Transcript as Heard};

    fn material(body: &str) -> Material {
        Material {
            id: "m".into(),
            slug: None,
            source: deskmate_store::MaterialSource::Custom,
            lang: "zh".into(),
            title: "t".into(),
            author: None,
            dynasty: None,
            grade: None,
            level: None,
            body: body.into(),
            created_at: String::new(),
            updated_at: String::new(),
        }
    }

    fn heard(text: &str) -> Heard {
        Heard {
            lang: AsrLang::Zh,
            text: text.into(),
            raw_text: text.into(),
            units: text
                .chars()
                .map(|c| HeardUnit {
                    text: c.to_string(),
                    confidence: 0.99,
                    start_ms: 0,
                    end_ms: 0,
                })
                .collect(),
            flags: vec![],
            audio_ms: 1000,
            asr_ms: 0,
            audio_id: 0,
        }
    }

    #[test]
    fn a_recording_that_cannot_be_judged_is_a_coded_error_not_a_less_fair_check() {
        // The longest text there is, and a transcript far longer than the
        // checker can align against it: the CLI fails with this error, and so
        // does the window — it no longer records an unfair check instead.
        let body = "床前明月光".repeat(400);
        let said = "床前明月光".repeat(1_700);
        let err = judge_heard(&material(&body), &heard(&said), None).unwrap_err();
        assert_eq!(err.code(), "recite.transcript_too_long", "{err}");
        assert!(err.wire().params.contains_key("max"));
    }

    #[test]
    fn a_recording_is_judged_fairly_or_refused_as_no_attempt() {
        let poem = material("床前明月光，疑是地上霜。");
        let fine = judge_heard(&poem, &heard("床前明月光疑是地上霜"), None).unwrap();
        assert_eq!(fine.shown, "床前明月光疑是地上霜");
        let not = judge_heard(&poem, &heard("谢谢观看"), None).unwrap_err();
        assert_eq!(not.code(), "speech.not_the_material");
    }
}
