//! Audio in and out: decoding files to 16 kHz mono ([`file`]), resampling
//! ([`resample`]), a high voice lowered for whisper ([`voice`]), microphone capture ([`capture`]) and the playback queue
//! ([`playback`]). Everything downstream (VAD, ASR) sees 16 kHz mono f32.

pub mod capture;
pub mod file;
pub mod playback;
pub mod resample;
pub mod voice;

use std::path::PathBuf;

/// The sample rate Silero VAD and whisper take.
pub const SAMPLE_RATE: u32 = 16_000;

/// Mono 16 kHz audio with where it came from.
#[derive(Debug, Clone)]
pub struct Clip {
    pub samples: Vec<f32>,
    /// Rate and channels of the source before conversion.
    pub source_rate: u32,
    pub source_channels: u16,
}

impl Clip {
    pub fn duration_s(&self) -> f32 {
        self.samples.len() as f32 / SAMPLE_RATE as f32
    }

    /// Root-mean-square level (0 for silence, ~0.7 for a full-scale sine).
    pub fn rms(&self) -> f32 {
        rms(&self.samples)
    }
}

/// Root-mean-square of samples.
pub fn rms(samples: &[f32]) -> f32 {
    if samples.is_empty() {
        return 0.0;
    }
    (samples.iter().map(|s| s * s).sum::<f32>() / samples.len() as f32).sqrt()
}

#[derive(Debug, thiserror::Error)]
pub enum AudioError {
    #[error("{0}: no such file")]
    NotFound(PathBuf),
    #[error("{0} is empty (0 bytes)")]
    Empty(PathBuf),
    #[error("{path} is not an audio file Deskmate can read ({detail})")]
    NotAudio { path: PathBuf, detail: String },
    #[error("{path} holds no audio samples")]
    NoSamples { path: PathBuf },
    #[error("{path} is {seconds:.0} s long; a recitation may be at most {limit:.0} s — cut it or record again")]
    TooLong {
        path: PathBuf,
        seconds: f32,
        limit: f32,
    },
    #[error("audio format problem: {0}")]
    Format(String),
    #[error("audio device: {0}")]
    Device(String),
    #[error("file error: {0}")]
    Io(#[from] std::io::Error),
}
