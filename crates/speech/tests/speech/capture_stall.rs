//! A real cpal capture through ALSA whose "microphone" is a FIFO: the test
//! writes the first seconds of a recitation and then stops writing while
//! keeping the pipe open, so the driver's read blocks — a microphone that
//! stalls mid-recitation. The attempt must end with a clear reason and keep
//! what was heard, and closing the capture must not freeze the caller.
//! It runs in a process of its own (`deskmate_testkit::process::alone`):
//! the ALSA configuration is process-wide.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::time::{Duration, Instant};

use deskmate_speech::audio::capture::{Capture, CLOSE_TIMEOUT};
use deskmate_speech::listen::{listen, AttemptEnd, ListenMode, Release, STALLED_AFTER};
use deskmate_speech::vad::{SileroVad, VadSettings};
use deskmate_testkit::clips::dev_clip_samples;
use deskmate_testkit::mic::FifoMic;

#[test]
fn a_microphone_that_stalls_mid_recitation_ends_the_attempt_and_keeps_the_speech() {
    // ALSA's configuration is process-wide: this test runs in a process of its own.
    if !deskmate_testkit::process::alone(
        module_path!(),
        "a_microphone_that_stalls_mid_recitation_ends_the_attempt_and_keeps_the_speech",
    ) {
        return;
    }
    let models = common::models();
    let dir = tempfile::tempdir().unwrap();
    // 0.5 s of silence then 2.5 s of speech: the child is mid-line when the
    // microphone stops delivering.
    let (samples, _) = dev_clip_samples("静夜思-1.wav");
    let mic = FifoMic::new(dir.path());
    let feeder = mic.feed_then_stall(&samples[..16_000 * 3]);
    // SAFETY (edition 2021 set_var): this process runs this single test (`alone`), before any ALSA use.
    std::env::set_var("ALSA_CONFIG_PATH", mic.alsa_config());

    let capture = Capture::start(None).expect("the ALSA FIFO device opens as the microphone");
    let vad = SileroVad::load(&models.onnxruntime, &models.silero_vad).unwrap();
    let attempt = listen(
        &capture,
        vad,
        VadSettings::default(),
        ListenMode::Vad,
        &Release::default(),
        Duration::from_secs(60),
        &mut |_| {},
    )
    .unwrap();
    let AttemptEnd::DeviceLost { detail } = &attempt.ended else {
        panic!(
            "the stalled microphone ended the attempt as {:?}",
            attempt.ended
        );
    };
    assert!(detail.contains("no sound"), "{detail}");
    let utterance = attempt.utterance.expect("what was heard is kept");
    let seconds = utterance.samples.len() as f32 / 16_000.0;
    assert!((1.5..=3.0).contains(&seconds), "kept {seconds} s of speech");

    // The driver is still blocked in its read: closing must give up on it
    // after CLOSE_TIMEOUT instead of waiting for ever.
    let closing = Instant::now();
    drop(capture);
    assert!(
        closing.elapsed() < CLOSE_TIMEOUT + STALLED_AFTER,
        "closing took {:?}",
        closing.elapsed()
    );
    drop(feeder.join().unwrap());
}
