//! The offline path from audio to text: a recording (a file or a finished
//! microphone attempt) is cut by the VAD to the span where the child spoke,
//! then transcribed on the whisper worker. Timings are measured for each
//! stage so the recitation result can report them.

use std::path::Path;
use std::time::Instant;

use serde::Serialize;

use crate::asr::{AsrConfig, AsrEngine, AsrError, AsrRequest, Lang, Transcript};
use crate::audio::{file, AudioError, Clip, SAMPLE_RATE};
use crate::models::{ModelError, ModelPaths};
use crate::vad::{self, SileroVad, VadError, VadSettings};

#[derive(Debug, thiserror::Error)]
pub enum SpeechError {
    #[error(transparent)]
    Audio(#[from] AudioError),
    #[error(transparent)]
    Vad(#[from] VadError),
    #[error(transparent)]
    Asr(#[from] AsrError),
    #[error(transparent)]
    Models(#[from] ModelError),
}

impl SpeechError {
    /// Every code [`SpeechError::code`] and [`NotAnAttempt::code`] can give.
    ///
    /// [`NotAnAttempt::code`]: crate::attempt::NotAnAttempt::code
    pub const CODES: &'static [&'static str] = &[
        "speech.microphone",
        "speech.audio",
        "speech.vad",
        "speech.asr",
        "speech.nothing_heard",
        "speech.unclear",
        "speech.not_the_material",
        "models.missing",
        "models.checksum",
        "models.format",
        "models.manifest",
        "models.download",
        "models.io",
    ];

    /// A stable name for the failure by where it happened: the microphone
    /// (or an audio file), the voice detector, the recognizer, the models.
    pub fn code(&self) -> &'static str {
        match self {
            Self::Audio(AudioError::Device(_)) => "speech.microphone",
            Self::Audio(_) => "speech.audio",
            Self::Vad(_) => "speech.vad",
            Self::Asr(_) => "speech.asr",
            Self::Models(m) => m.code(),
        }
    }
}

/// What was heard in one recording.
#[derive(Debug, Clone, Serialize)]
pub struct Heard {
    /// None when the VAD found no speech at all (silence, noise).
    pub transcript: Option<Transcript>,
    /// Where speech was, in ms from the start of the recording.
    pub speech_start_ms: Option<u64>,
    pub speech_end_ms: Option<u64>,
    pub utterances: usize,
    pub audio_ms: u64,
    pub vad_ms: u64,
    pub asr_ms: u64,
}

/// Models loaded once, used for many recordings.
pub struct SpeechPipeline {
    asr: AsrEngine,
    paths: ModelPaths,
    pub vad_settings: VadSettings,
}

impl SpeechPipeline {
    /// Loads whisper (on its worker) and checks the VAD can load.
    pub fn load(paths: &ModelPaths, asr: AsrConfig) -> Result<Self, SpeechError> {
        // Fail early, in plain words, when the VAD cannot load.
        SileroVad::load(&paths.onnxruntime, &paths.silero_vad)?;
        let asr = AsrEngine::start(asr)?;
        Ok(Self {
            asr,
            paths: paths.clone(),
            vad_settings: VadSettings::default(),
        })
    }

    /// The models directory's files, with the default engine settings.
    pub fn from_models_dir(dir: &Path) -> Result<Self, SpeechError> {
        let paths = ModelPaths::present_in(dir)?;
        let config = AsrConfig::new(&paths.whisper);
        Self::load(&paths, config)
    }

    pub fn asr(&self) -> &AsrEngine {
        &self.asr
    }

    pub fn model_paths(&self) -> &ModelPaths {
        &self.paths
    }

    /// Decodes a file and hears it.
    pub fn hear_file(
        &self,
        path: &Path,
        lang: Lang,
        expected_units: Option<usize>,
    ) -> Result<Heard, SpeechError> {
        let clip = file::load(path, file::DEFAULT_MAX_SECONDS)?;
        self.hear(&clip, lang, expected_units)
    }

    /// Cuts the speech out of a recording and transcribes it as one attempt
    /// (pauses between lines stay in; silence before and after goes).
    pub fn hear(
        &self,
        clip: &Clip,
        lang: Lang,
        expected_units: Option<usize>,
    ) -> Result<Heard, SpeechError> {
        let audio_ms = clip.samples.len() as u64 * 1000 / u64::from(SAMPLE_RATE);
        let started = Instant::now();
        let detector = SileroVad::load(&self.paths.onnxruntime, &self.paths.silero_vad)?;
        let found = vad::utterances(detector, self.vad_settings, &clip.samples)?;
        let vad_ms = started.elapsed().as_millis() as u64;
        let (Some(first), Some(last)) = (found.first(), found.last()) else {
            return Ok(Heard {
                transcript: None,
                speech_start_ms: None,
                speech_end_ms: None,
                utterances: 0,
                audio_ms,
                vad_ms,
                asr_ms: 0,
            });
        };
        let (start_ms, end_ms) = (first.start_ms, last.end_ms);
        let from = (start_ms * u64::from(SAMPLE_RATE) / 1000) as usize;
        let to = ((end_ms * u64::from(SAMPLE_RATE) / 1000) as usize).min(clip.samples.len());
        let speech = clip
            .samples
            .get(from..to.max(from))
            .map(<[f32]>::to_vec)
            .unwrap_or_default();
        let transcript = self.asr.transcribe(AsrRequest {
            samples: speech,
            lang,
            expected_units,
            speech_detected: Some(true),
        })?;
        let asr_ms = transcript.asr_ms;
        Ok(Heard {
            transcript: Some(transcript),
            speech_start_ms: Some(start_ms),
            speech_end_ms: Some(end_ms),
            utterances: found.len(),
            audio_ms,
            vad_ms,
            asr_ms,
        })
    }
}
