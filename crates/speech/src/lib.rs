//! Offline speech for Deskmate: a child recites into a microphone (or a file
//! is given), the speech is cut by voice activity detection, transcribed on
//! the device by whisper with a confidence per character, and handed to the
//! recitation checker. Also: the model manifest and fetch/convert step, a
//! playback queue and text-to-speech. See the crate README for the design.

pub mod asr;
pub mod attempt;
pub mod audio;
pub mod decision;
pub mod evaluation;
pub mod fairness;
pub mod listen;
pub mod models;
pub mod pipeline;
pub mod tts;
pub mod vad;

pub use asr::{AsrConfig, AsrEngine, AsrError, AsrRequest, Lang, Transcript};
pub use audio::{AudioError, Clip};
pub use models::{ModelError, ModelPaths};
pub use pipeline::{Heard, SpeechError, SpeechPipeline};
