//! Voice activity detection with Silero VAD (ONNX, through ONNX Runtime
//! loaded from a file path) and the utterance logic on top of it: speech
//! starts after a short run of speech frames, an utterance ends after a
//! configurable silence (~1.2 s by default, so a child's pause between lines
//! does not end the attempt), and no utterance grows past a length cap.

use std::path::Path;
use std::sync::OnceLock;

use ort::session::Session;
use ort::value::Tensor;
use serde::{Deserialize, Serialize};

use crate::audio::SAMPLE_RATE;

/// New samples per Silero step at 16 kHz (32 ms).
pub const CHUNK: usize = 512;
/// Samples of the previous chunk Silero sees again as context.
const CONTEXT: usize = 64;

#[derive(Debug, thiserror::Error)]
pub enum VadError {
    #[error("cannot load ONNX Runtime from {path}: {reason} — models missing: run scripts/fetch-models.sh")]
    Runtime { path: String, reason: String },
    #[error("cannot load the Silero VAD model {path}: {reason}")]
    Model { path: String, reason: String },
    #[error("voice activity detection failed: {0}")]
    Inference(String),
}

/// The ONNX Runtime environment: loaded once per process from the library path
/// (ONNX Runtime allows one per process, so every model shares it).
static ENVIRONMENT: OnceLock<Result<ort::environment::Environment, String>> = OnceLock::new();

/// The process's ONNX Runtime environment, loaded from `library` on the first
/// call; every ONNX model of the app (Silero VAD, the knowledge base's
/// sentence encoder) builds its sessions on it.
pub fn environment(library: &Path) -> Result<&'static ort::environment::Environment, VadError> {
    let env = ENVIRONMENT.get_or_init(|| {
        if !library.is_file() {
            return Err("file not found".to_string());
        }
        ort::init_from(library)
            .map_err(|e| e.to_string())?
            .with_name("deskmate")
            .build()
            .map_err(|e| e.to_string())
    });
    env.as_ref().map_err(|reason| VadError::Runtime {
        path: library.display().to_string(),
        reason: reason.clone(),
    })
}

/// Silero VAD: speech probability per 32 ms chunk, with its recurrent state.
pub struct SileroVad {
    session: Session,
    state: Vec<f32>,
    context: Vec<f32>,
}

impl SileroVad {
    /// Loads ONNX Runtime from `onnxruntime` (first call only) and the model.
    pub fn load(onnxruntime: &Path, model: &Path) -> Result<Self, VadError> {
        let env = environment(onnxruntime)?;
        let model_err = |reason: String| VadError::Model {
            path: model.display().to_string(),
            reason,
        };
        if !model.is_file() {
            return Err(model_err(
                "file not found — models missing: run scripts/fetch-models.sh".into(),
            ));
        }
        let session = Session::builder(env)
            .map_err(|e| model_err(e.to_string()))?
            .with_intra_threads(1)
            .map_err(|e| model_err(e.to_string()))?
            .commit_from_file(model)
            .map_err(|e| model_err(e.to_string()))?;
        Ok(Self {
            session,
            state: vec![0.0; 2 * 128],
            context: vec![0.0; CONTEXT],
        })
    }

    /// Forgets what it heard (a new recording).
    pub fn reset(&mut self) {
        self.state.iter_mut().for_each(|v| *v = 0.0);
        self.context.iter_mut().for_each(|v| *v = 0.0);
    }

    /// Speech probability of one chunk of [`CHUNK`] samples (shorter chunks are zero-padded).
    pub fn probability(&mut self, chunk: &[f32]) -> Result<f32, VadError> {
        let err = |e: ort::Error| VadError::Inference(e.to_string());
        let mut input = Vec::with_capacity(CONTEXT + CHUNK);
        input.extend_from_slice(&self.context);
        input.extend_from_slice(&chunk[..chunk.len().min(CHUNK)]);
        input.resize(CONTEXT + CHUNK, 0.0);
        self.context.copy_from_slice(&input[CHUNK..]);
        let input = Tensor::from_array(([1usize, CONTEXT + CHUNK], input)).map_err(err)?;
        let state = Tensor::from_array(([2usize, 1, 128], self.state.clone())).map_err(err)?;
        let sr =
            Tensor::from_array((Vec::<i64>::new(), vec![i64::from(SAMPLE_RATE)])).map_err(err)?;
        let outputs = self
            .session
            .run(ort::inputs!["input" => input, "state" => state, "sr" => sr])
            .map_err(err)?;
        let (_, p) = outputs["output"].try_extract_tensor::<f32>().map_err(err)?;
        let p = p
            .first()
            .copied()
            .ok_or_else(|| VadError::Inference("empty output".into()))?;
        let (_, new_state) = outputs["stateN"].try_extract_tensor::<f32>().map_err(err)?;
        if new_state.len() == self.state.len() {
            self.state.copy_from_slice(new_state);
        }
        Ok(p)
    }
}

/// When speech starts and ends.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct VadSettings {
    /// Probability above which a chunk is speech.
    pub threshold: f32,
    /// Speech must last this long to start an utterance (ignores clicks).
    pub min_speech_ms: u32,
    /// Silence this long ends the utterance.
    pub end_silence_ms: u32,
    /// Kept before the start and after the end, so soft onsets are not cut.
    pub pad_ms: u32,
    /// An utterance is cut here even if the child keeps talking.
    pub max_utterance_ms: u32,
}

impl Default for VadSettings {
    fn default() -> Self {
        Self {
            threshold: 0.5,
            min_speech_ms: 200,
            end_silence_ms: 1200,
            pad_ms: 200,
            max_utterance_ms: 120_000,
        }
    }
}

/// What the segmenter reports while audio streams in.
#[derive(Debug, Clone, PartialEq)]
pub enum VadEvent {
    /// Speech began at this offset (ms from the stream start).
    SpeechStart { at_ms: u64 },
    /// An utterance ended (silence, the cap, or the end of the stream).
    Utterance(Utterance),
}

/// A stretch of speech with its audio.
#[derive(Debug, Clone, PartialEq)]
pub struct Utterance {
    pub start_ms: u64,
    pub end_ms: u64,
    pub samples: Vec<f32>,
    /// Why it ended.
    pub ended_by: EndedBy,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndedBy {
    Silence,
    LengthCap,
    EndOfAudio,
}

/// Streams audio through Silero and cuts utterances.
pub struct Segmenter {
    vad: SileroVad,
    settings: VadSettings,
    /// Every sample seen (bounded by the utterance cap plus padding when idle).
    buffer: Vec<f32>,
    /// Stream offset of `buffer[0]`, in samples.
    buffer_start: u64,
    pending: Vec<f32>,
    processed: u64,
    speech_run: u32,
    silence_run: u32,
    /// Stream offset (samples) where the current utterance began.
    active_since: Option<u64>,
    last_speech_end: u64,
}

fn ms_to_samples(ms: u32) -> u64 {
    u64::from(ms) * u64::from(SAMPLE_RATE) / 1000
}

fn samples_to_ms(n: u64) -> u64 {
    n * 1000 / u64::from(SAMPLE_RATE)
}

impl Segmenter {
    pub fn new(mut vad: SileroVad, settings: VadSettings) -> Self {
        vad.reset();
        Self {
            vad,
            settings,
            buffer: Vec::new(),
            buffer_start: 0,
            pending: Vec::new(),
            processed: 0,
            speech_run: 0,
            silence_run: 0,
            active_since: None,
            last_speech_end: 0,
        }
    }

    /// Whether an utterance is in progress.
    pub fn in_speech(&self) -> bool {
        self.active_since.is_some()
    }

    /// Feeds 16 kHz samples; returns what happened.
    pub fn push(&mut self, samples: &[f32]) -> Result<Vec<VadEvent>, VadError> {
        self.buffer.extend_from_slice(samples);
        self.pending.extend_from_slice(samples);
        self.process_pending()
    }

    fn process_pending(&mut self) -> Result<Vec<VadEvent>, VadError> {
        let mut events = Vec::new();
        let chunk_ms = (CHUNK as u64 * 1000 / u64::from(SAMPLE_RATE)) as u32;
        while self.pending.len() >= CHUNK {
            let chunk: Vec<f32> = self.pending.drain(..CHUNK).collect();
            let p = self.vad.probability(&chunk)?;
            let chunk_start = self.processed;
            self.processed += CHUNK as u64;
            let speech = p >= self.settings.threshold;
            // Hysteresis: once speaking, a chunk counts as silence only well below the threshold.
            let silent = p < (self.settings.threshold - 0.15).max(0.05);
            if speech {
                self.speech_run += chunk_ms;
                self.silence_run = 0;
                self.last_speech_end = self.processed;
            } else if silent || self.active_since.is_none() {
                self.silence_run += chunk_ms;
                self.speech_run = 0;
            }
            match self.active_since {
                None if self.speech_run >= self.settings.min_speech_ms => {
                    let run = ms_to_samples(self.speech_run);
                    let start = (chunk_start + CHUNK as u64).saturating_sub(run);
                    self.active_since = Some(start);
                    events.push(VadEvent::SpeechStart {
                        at_ms: samples_to_ms(start),
                    });
                }
                None => self.trim_idle(),
                Some(since) => {
                    if self.silence_run >= self.settings.end_silence_ms {
                        events.push(VadEvent::Utterance(self.cut(
                            since,
                            self.last_speech_end,
                            EndedBy::Silence,
                        )));
                    } else if samples_to_ms(self.processed - since)
                        >= u64::from(self.settings.max_utterance_ms)
                    {
                        events.push(VadEvent::Utterance(self.cut(
                            since,
                            self.processed,
                            EndedBy::LengthCap,
                        )));
                    }
                }
            }
        }
        Ok(events)
    }

    /// Ends the stream: a running utterance is returned.
    pub fn finish(&mut self) -> Result<Option<Utterance>, VadError> {
        if !self.pending.is_empty() {
            // The last partial chunk is judged padded with silence; the padding is not audio.
            self.pending.resize(CHUNK, 0.0);
            let events = self.process_pending()?;
            if let Some(VadEvent::Utterance(u)) = events
                .into_iter()
                .rev()
                .find(|e| matches!(e, VadEvent::Utterance(_)))
            {
                return Ok(Some(u));
            }
        }
        let end = self.buffer_start + self.buffer.len() as u64;
        Ok(self.active_since.map(|since| {
            self.cut(
                since,
                self.last_speech_end.max(since).min(end),
                EndedBy::EndOfAudio,
            )
        }))
    }

    /// How long the child has been silent within the current utterance
    /// (ms), or `None` outside an utterance. It grows by whole chunks and
    /// goes back to 0 on the next speech.
    pub fn silence_ms(&self) -> Option<u32> {
        self.active_since.map(|_| self.silence_run)
    }

    /// The current utterance as the silence would end it if no more speech
    /// came, with the end padding heard so far: what [`Segmenter::end_now`]
    /// (or the end silence, later) cuts, with more padding after when not
    /// all of it has been heard yet; the segmenter unchanged. `None` outside
    /// an utterance.
    pub fn as_if_ended(&self) -> Option<Utterance> {
        let since = self.active_since?;
        let (from, to) = self.span(since, self.last_speech_end);
        Some(Utterance {
            start_ms: samples_to_ms(from),
            end_ms: samples_to_ms(to),
            samples: self.samples(from, to),
            ended_by: EndedBy::Silence,
        })
    }

    /// Ends the current utterance now, as the end silence would (the
    /// listener knows the child has finished, e.g. the material's last line
    /// was heard). `None` outside an utterance.
    pub fn end_now(&mut self) -> Option<Utterance> {
        let since = self.active_since?;
        Some(self.cut(since, self.last_speech_end, EndedBy::Silence))
    }

    /// Everything heard in the current (unfinished) utterance, e.g. when the
    /// device is unplugged mid-recitation.
    pub fn heard_so_far(&self) -> Option<Utterance> {
        let since = self.active_since?;
        let start = since.saturating_sub(self.buffer_start) as usize;
        Some(Utterance {
            start_ms: samples_to_ms(since),
            end_ms: samples_to_ms(self.buffer_start + self.buffer.len() as u64),
            samples: self
                .buffer
                .get(start..)
                .map(<[f32]>::to_vec)
                .unwrap_or_default(),
            ended_by: EndedBy::EndOfAudio,
        })
    }

    /// The stream offsets (samples) of an utterance from `since` to `until`
    /// with the padding, within the audio kept.
    fn span(&self, since: u64, until: u64) -> (u64, u64) {
        let pad = ms_to_samples(self.settings.pad_ms);
        let end_of_buffer = self.buffer_start + self.buffer.len() as u64;
        let from = since.saturating_sub(pad).max(self.buffer_start);
        let to = (until + pad).min(end_of_buffer).max(from);
        (from, to)
    }

    fn samples(&self, from: u64, to: u64) -> Vec<f32> {
        let a = (from - self.buffer_start) as usize;
        let b = (to - self.buffer_start) as usize;
        self.buffer[a..b].to_vec()
    }

    fn cut(&mut self, since: u64, until: u64, ended_by: EndedBy) -> Utterance {
        let (from, to) = self.span(since, until);
        let samples = self.samples(from, to);
        self.active_since = None;
        self.speech_run = 0;
        self.silence_run = 0;
        Utterance {
            start_ms: samples_to_ms(from),
            end_ms: samples_to_ms(to),
            samples,
            ended_by,
        }
    }

    /// While idle, keep only enough audio for the pre-speech padding.
    fn trim_idle(&mut self) {
        let keep = (ms_to_samples(self.settings.pad_ms + self.settings.min_speech_ms) as usize
            + CHUNK * 2)
            .max(CHUNK * 4);
        if self.buffer.len() > keep * 4 {
            let drop = self.buffer.len() - keep;
            self.buffer.drain(..drop);
            self.buffer_start += drop as u64;
        }
    }
}

/// Speech found in a whole recording: every utterance, for file input.
pub fn utterances(
    vad: SileroVad,
    settings: VadSettings,
    samples: &[f32],
) -> Result<Vec<Utterance>, VadError> {
    let mut seg = Segmenter::new(vad, settings);
    let mut out = Vec::new();
    for piece in samples.chunks(CHUNK * 16) {
        for e in seg.push(piece)? {
            if let VadEvent::Utterance(u) = e {
                out.push(u);
            }
        }
    }
    if let Some(u) = seg.finish()? {
        out.push(u);
    }
    Ok(out)
}
