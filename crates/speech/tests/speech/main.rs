//! The speech crate's integration tests, one binary (fewer links on 2 cores):
//! real models (scripts/fetch-models.sh), dev clips from ../shared, ALSA
//! devices configured per test (those run alone in a process of their own).
//! Each module is one former test file.

mod agreement;
mod capture;
mod capture_stall;
mod common;
mod download;
mod files;
mod loops;
mod playback;
mod recheck;
mod tts;
mod vad;
mod voice;
