//! Silero VAD on real speech (the dev clips): where speech starts and ends,
//! that a pause shorter than the end-of-utterance silence keeps one
//! utterance and a longer one splits it, and the length cap.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use deskmate_speech::audio::file;
use deskmate_speech::vad::{utterances, EndedBy, SileroVad, VadSettings};

fn clip(name: &str) -> Vec<f32> {
    file::load(&common::dev_clip(name), 60.0).unwrap().samples
}

fn detector() -> SileroVad {
    let m = common::models();
    SileroVad::load(&m.onnxruntime, &m.silero_vad).unwrap()
}

#[test]
fn speech_is_found_between_the_padding() {
    // 6.65 s clip with 0.5 s of silence added at both ends.
    let samples = clip("静夜思-1.wav");
    let found = utterances(detector(), VadSettings::default(), &samples).unwrap();
    let spans: Vec<(u64, u64)> = found.iter().map(|u| (u.start_ms, u.end_ms)).collect();
    assert_eq!(found.len(), 1, "{spans:?}");
    let u = &found[0];
    // Start: 0.5 s of padding minus the 200 ms kept before speech.
    assert!((150..=600).contains(&u.start_ms), "{spans:?}");
    assert!((5_900..=6_650).contains(&u.end_ms), "{spans:?}");
    assert_eq!(u.ended_by, EndedBy::EndOfAudio);
}
