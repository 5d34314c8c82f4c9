//! Text-to-speech behind one trait, [`Synthesizer`]: offline espeak-ng
//! (robotic, always there) and an OpenAI-compatible `/v1/audio/speech`
//! endpoint (natural voices) when one is configured. [`CachedSynthesizer`]
//! keeps every synthesized clip on disk keyed by (backend, voice, text), so
//! a phrase is synthesized once. Synthesis blocks: call it from a worker
//! thread or `spawn_blocking`, never on the async executor.

use std::io::Cursor;
use std::path::{Path, PathBuf};
use std::process::Command;

use sha2::{Digest, Sha256};

use crate::audio::playback::VoiceClip;

#[derive(Debug, thiserror::Error)]
pub enum TtsError {
    #[error("espeak-ng is not installed or failed to start ({0}); install the espeak-ng package")]
    EspeakMissing(String),
    #[error("speech synthesis failed: {0}")]
    Failed(String),
    #[error("the speech service answered {status}: {body}")]
    Service { status: u16, body: String },
    #[error("the synthesized audio is not a WAV file Deskmate can read: {0}")]
    BadAudio(String),
    #[error("nothing to say (the text is empty)")]
    EmptyText,
    #[error("cache file error: {0}")]
    Io(#[from] std::io::Error),
}

/// Anything that turns text into a voice clip.
pub trait Synthesizer: Send + Sync {
    /// Stable name of the backend (part of the cache key).
    fn name(&self) -> String;
    fn synthesize(&self, voice: &str, text: &str) -> Result<VoiceClip, TtsError>;
}

/// Parses WAV bytes into a mono clip (channels averaged).
pub fn clip_from_wav(bytes: &[u8]) -> Result<VoiceClip, TtsError> {
    let reader =
        hound::WavReader::new(Cursor::new(bytes)).map_err(|e| TtsError::BadAudio(e.to_string()))?;
    let spec = reader.spec();
    let samples: Vec<f32> = match spec.sample_format {
        hound::SampleFormat::Float => reader.into_samples::<f32>().collect::<Result<_, _>>(),
        hound::SampleFormat::Int => {
            let scale = 1.0 / (1u64 << (spec.bits_per_sample.clamp(1, 32) - 1)) as f32;
            reader
                .into_samples::<i32>()
                .map(|s| s.map(|v| v as f32 * scale))
                .collect::<Result<_, _>>()
        }
    }
    .map_err(|e| TtsError::BadAudio(e.to_string()))?;
    let mono = crate::audio::resample::downmix(&samples, usize::from(spec.channels.max(1)));
    Ok(VoiceClip {
        samples: mono,
        sample_rate: spec.sample_rate,
    })
}

/// espeak-ng, run as a process (`espeak-ng -v VOICE --stdout TEXT`).
#[derive(Debug, Clone)]
pub struct EspeakNg {
    pub program: PathBuf,
    /// Words per minute (espeak's default 175 is fast for children).
    pub speed: u32,
}

impl Default for EspeakNg {
    fn default() -> Self {
        Self {
            program: PathBuf::from("espeak-ng"),
            speed: 140,
        }
    }
}

impl Synthesizer for EspeakNg {
    fn name(&self) -> String {
        format!("espeak-ng@{}", self.speed)
    }

    fn synthesize(&self, voice: &str, text: &str) -> Result<VoiceClip, TtsError> {
        if text.trim().is_empty() {
            return Err(TtsError::EmptyText);
        }
        let out = Command::new(&self.program)
            .args([
                "-v",
                voice,
                "-s",
                &self.speed.to_string(),
                "--stdout",
                "--",
                text,
            ])
            .output()
            .map_err(|e| TtsError::EspeakMissing(e.to_string()))?;
        if !out.status.success() {
            return Err(TtsError::Failed(format!(
                "espeak-ng: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        // espeak-ng streams a WAV with unknown length fields; hound needs them set.
        let mut wav = out.stdout;
        if wav.len() > 44 && &wav[..4] == b"RIFF" {
            let riff = (wav.len() - 8) as u32;
            wav[4..8].copy_from_slice(&riff.to_le_bytes());
            let data = (wav.len() - 44) as u32;
            wav[40..44].copy_from_slice(&data.to_le_bytes());
        }
        clip_from_wav(&wav)
    }
}

/// An OpenAI-compatible speech endpoint: `POST {base_url}/audio/speech`
/// with `{model, voice, input, response_format: "wav"}`.
#[derive(Clone)]
pub struct OpenAiSpeech {
    /// e.g. `https://api.openai.com/v1` or a local server's `/v1`.
    pub base_url: String,
    pub api_key: Option<String>,
    pub model: String,
    /// The longest a phrase may take, connection included; spoken feedback
    /// falls back to espeak-ng after it rather than keep the child waiting.
    pub timeout: std::time::Duration,
}

/// Never prints the key.
impl std::fmt::Debug for OpenAiSpeech {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiSpeech")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("model", &self.model)
            .field("timeout", &self.timeout)
            .finish()
    }
}

impl Synthesizer for OpenAiSpeech {
    fn name(&self) -> String {
        format!("openai:{}@{}", self.model, self.base_url)
    }

    fn synthesize(&self, voice: &str, text: &str) -> Result<VoiceClip, TtsError> {
        if text.trim().is_empty() {
            return Err(TtsError::EmptyText);
        }
        let url = format!("{}/audio/speech", self.base_url.trim_end_matches('/'));
        let client = reqwest::blocking::Client::builder()
            .timeout(self.timeout)
            .build()
            .map_err(|e| TtsError::Failed(e.to_string()))?;
        let mut request = client.post(&url).json(&serde_json::json!({
            "model": self.model,
            "voice": voice,
            "input": text,
            "response_format": "wav",
        }));
        if let Some(key) = &self.api_key {
            request = request.bearer_auth(key);
        }
        let response = request
            .send()
            .map_err(|e| TtsError::Failed(format!("{url}: {e}")))?;
        let status = response.status();
        let bytes = response
            .bytes()
            .map_err(|e| TtsError::Failed(format!("{url}: {e}")))?;
        if !status.is_success() {
            return Err(TtsError::Service {
                status: status.as_u16(),
                body: String::from_utf8_lossy(&bytes).chars().take(300).collect(),
            });
        }
        clip_from_wav(&bytes)
    }
}

/// A synthesizer with an on-disk cache keyed by (backend, voice, text).
pub struct CachedSynthesizer<S: Synthesizer> {
    inner: S,
    dir: PathBuf,
}

impl<S: Synthesizer> CachedSynthesizer<S> {
    pub fn new(inner: S, dir: &Path) -> Self {
        Self {
            inner,
            dir: dir.to_path_buf(),
        }
    }

    /// Where the clip for (voice, text) is cached.
    pub fn cache_path(&self, voice: &str, text: &str) -> PathBuf {
        let mut h = Sha256::new();
        for part in [self.inner.name().as_str(), voice, text] {
            h.update((part.len() as u64).to_le_bytes());
            h.update(part.as_bytes());
        }
        self.dir.join(format!("{}.wav", hex::encode(h.finalize())))
    }
}

impl<S: Synthesizer> Synthesizer for CachedSynthesizer<S> {
    fn name(&self) -> String {
        self.inner.name()
    }

    fn synthesize(&self, voice: &str, text: &str) -> Result<VoiceClip, TtsError> {
        let path = self.cache_path(voice, text);
        if let Ok(bytes) = std::fs::read(&path) {
            if let Ok(clip) = clip_from_wav(&bytes) {
                return Ok(clip);
            }
            // A damaged cache file is replaced below.
        }
        let clip = self.inner.synthesize(voice, text)?;
        std::fs::create_dir_all(&self.dir)?;
        let spec = hound::WavSpec {
            channels: 1,
            sample_rate: clip.sample_rate,
            bits_per_sample: 32,
            sample_format: hound::SampleFormat::Float,
        };
        let partial = path.with_extension("partial");
        {
            let mut w = hound::WavWriter::create(&partial, spec)
                .map_err(|e| TtsError::Failed(e.to_string()))?;
            for s in &clip.samples {
                w.write_sample(*s)
                    .map_err(|e| TtsError::Failed(e.to_string()))?;
            }
            w.finalize().map_err(|e| TtsError::Failed(e.to_string()))?;
        }
        std::fs::rename(&partial, &path)?;
        Ok(clip)
    }
}
