//! Silero VAD on real speech (the dev clips): where speech starts and ends,
//! that a pause shorter than the end-of-utterance silence keeps one
//! utterance and a longer one splits it, the length cap, and pauses: the
//! attempt as it stands at a pause is exactly what the end silence cuts.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use deskmate_speech::audio::file;
use deskmate_speech::vad::{
    utterances, EndedBy, Segmenter, SileroVad, Utterance, VadEvent, VadSettings,
};

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

#[test]
fn the_attempt_at_the_last_pause_is_the_one_the_end_silence_cuts() {
    // The clip, then 1.5 s of silence, streamed in 20 ms pieces like a microphone.
    let mut samples = clip("静夜思-1.wav");
    samples.extend(std::iter::repeat_n(0.0, 24_000));
    let mut seg = Segmenter::new(detector(), VadSettings::default());
    assert_eq!(seg.silence_ms(), None, "no utterance yet");
    let mut at_pause: Option<Utterance> = None;
    let mut pauses = 0;
    let mut ended = None;
    'stream: for piece in samples.chunks(320) {
        for e in seg.push(piece).unwrap() {
            if let VadEvent::Utterance(u) = e {
                ended = Some(u);
                break 'stream;
            }
        }
        match seg.silence_ms() {
            Some(s) if s >= 250 => {
                if at_pause.is_none() {
                    pauses += 1;
                    at_pause = seg.as_if_ended();
                }
            }
            _ => at_pause = None,
        }
    }
    let ended = ended.expect("the end silence ended the utterance");
    let at_pause = at_pause.expect("a pause held until the end");
    assert!(pauses >= 1);
    assert_eq!(ended.ended_by, EndedBy::Silence);
    assert_eq!(
        (at_pause.start_ms, at_pause.end_ms),
        (ended.start_ms, ended.end_ms)
    );
    assert!(at_pause.samples == ended.samples, "the same samples");
    assert!(
        ended.samples.len() > 16_000 * 5,
        "{} samples",
        ended.samples.len()
    );
    assert_eq!(seg.silence_ms(), None, "the utterance is over");
}

#[test]
fn ending_at_a_pause_cuts_what_the_pause_offered_and_mid_speech_is_no_pause() {
    let samples = clip("静夜思-1.wav");
    let mut seg = Segmenter::new(detector(), VadSettings::default());
    let mut offered = None;
    let mut ended = None;
    let mut silences_in_speech = Vec::new();
    for piece in samples.chunks(320) {
        seg.push(piece).unwrap();
        if let Some(s) = seg.silence_ms() {
            silences_in_speech.push(s);
        }
        if seg.silence_ms().is_some_and(|s| s >= 250) {
            offered = seg.as_if_ended();
            ended = seg.end_now();
            break;
        }
    }
    let (offered, ended) = (offered.expect("a pause"), ended.expect("ended at it"));
    assert_eq!(offered.samples, ended.samples);
    assert_eq!(ended.ended_by, EndedBy::Silence);
    // While the child spoke, the silence went back to 0 (between words).
    assert!(silences_in_speech.contains(&0));
    // Ending at the pause left no utterance running.
    assert_eq!(seg.silence_ms(), None);
    assert!(seg.as_if_ended().is_none() && seg.end_now().is_none());
}
