//! A real cpal capture stream through ALSA, with the default device
//! configured (ALSA_CONFIG_PATH, the shared `deskmate_testkit::mic`
//! configuration) to read a dev clip from a raw file and to play to a null
//! sink: microphone → VAD → whisper → transcript, no sound
//! card needed. It runs in a process of its own
//! (`deskmate_testkit::process::alone`): the ALSA configuration is
//! process-wide.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::time::Duration;

use deskmate_speech::asr::{AsrConfig, AsrEngine, AsrRequest, Lang};
use deskmate_speech::audio::capture::Capture;
use deskmate_speech::listen::{
    listen, listen_live, AttemptEnd, EndAtPause, ListenMode, Pause, Pauses, Release, SpeechSoFar,
};
use deskmate_speech::vad::{SileroVad, Utterance, VadSettings};

/// Makes the default ALSA device read `name` (a dev clip), then 3 s of
/// silence so the VAD sees the end of speech. Process-wide: only in a test
/// that runs `alone`.
fn clip_as_the_microphone(dir: &std::path::Path, name: &str) {
    let clip = common::dev_clip(name);
    let mut reader = hound::WavReader::open(&clip).unwrap();
    let mut raw = Vec::new();
    for s in reader.samples::<i16>() {
        raw.extend_from_slice(&s.unwrap().to_le_bytes());
    }
    raw.extend(std::iter::repeat_n(0u8, 16_000 * 2 * 3));
    let raw_path = dir.join("mic.raw");
    std::fs::write(&raw_path, &raw).unwrap();
    // The shared ALSA configuration (crates/testkit/alsa-file-mic.conf), reading the file.
    let conf_path = dir.join("asound.conf");
    std::fs::write(&conf_path, deskmate_testkit::mic::alsa_config(&raw_path)).unwrap();
    // SAFETY (edition 2021 set_var): this process runs this single test (`alone`), before any ALSA use.
    std::env::set_var("ALSA_CONFIG_PATH", &conf_path);
}

#[test]
fn a_listener_that_knows_the_child_finished_ends_the_attempt_at_the_pause() {
    if !deskmate_testkit::process::alone(
        module_path!(),
        "a_listener_that_knows_the_child_finished_ends_the_attempt_at_the_pause",
    ) {
        return;
    }
    let models = common::models();
    let dir = tempfile::tempdir().unwrap();
    clip_as_the_microphone(dir.path(), "静夜思-1.wav");
    let capture = Capture::start(None).unwrap();
    let vad = SileroVad::load(&models.onnxruntime, &models.silero_vad).unwrap();
    // The listener "knows" the child finished once 5 s have been said (the
    // window knows it from the verdict at the pause); shorter pauses pass.
    let end = EndAtPause::default();
    let mut offered: Vec<Utterance> = Vec::new();
    let mut resumed = 0;
    let mut on_pause = |p: Pause| match p {
        Pause::Began(u) => {
            if u.samples.len() >= 16_000 * 5 {
                end.end(u.end_ms);
            }
            offered.push(u);
        }
        Pause::Resumed => resumed += 1,
    };
    let mut on_speech = |_u: Utterance| {};
    let mut so_far = SpeechSoFar::new(Duration::from_secs(2), &mut on_speech).with_pauses(
        Pauses::new(Duration::from_millis(250), &mut on_pause, end.clone()),
    );
    let attempt = listen_live(
        &capture,
        vad,
        VadSettings::default(),
        ListenMode::Vad,
        &Release::default(),
        Duration::from_secs(20),
        &mut |_| {},
        Some(&mut so_far),
    )
    .unwrap();
    drop(so_far);
    drop(capture);
    assert_eq!(
        attempt.ended,
        AttemptEnd::HeardToTheEnd,
        "{:?}",
        attempt.ended
    );
    let heard = attempt.utterance.expect("speech was heard");
    let last = offered.last().expect("a pause was offered");
    assert!(heard.samples == last.samples, "the attempt is the pause's");
    assert!(heard.samples.len() >= 16_000 * 5);
    // Every pause but the last was followed by more speech.
    assert_eq!(resumed, offered.len() - 1, "{} pauses", offered.len());
}

#[test]
fn a_dev_clip_fed_as_the_microphone_is_heard_and_transcribed() {
    // Whisper runs one test at a time in this binary (both cores each).
    let _turn = deskmate_testkit::process::speech_turn();
    // ALSA's configuration is process-wide: this test runs in a process of its own.
    if !deskmate_testkit::process::alone(
        module_path!(),
        "a_dev_clip_fed_as_the_microphone_is_heard_and_transcribed",
    ) {
        return;
    }
    let models = common::models();
    let dir = tempfile::tempdir().unwrap();
    clip_as_the_microphone(dir.path(), "静夜思-1.wav");

    let capture =
        Capture::start(None).expect("the ALSA file device opens as the default microphone");
    let vad = SileroVad::load(&models.onnxruntime, &models.silero_vad).unwrap();
    let mut levels = Vec::new();
    let attempt = listen(
        &capture,
        vad,
        VadSettings::default(),
        ListenMode::Vad,
        &Release::default(),
        Duration::from_secs(20),
        &mut |l| levels.push(l),
    )
    .unwrap();
    drop(capture);
    assert_eq!(attempt.ended, AttemptEnd::Silence, "{:?}", attempt.ended);
    let utterance = attempt.utterance.expect("speech was heard");
    let seconds = utterance.samples.len() as f32 / 16_000.0;
    // The clip is 6.65 s with 0.5 s of silence at each end.
    assert!((5.0..=6.9).contains(&seconds), "utterance of {seconds} s");
    // The level meter ran at ~20 readings a second and saw speech.
    assert!(levels.len() >= 100, "{} level readings", levels.len());
    assert!(levels.iter().any(|l| l.rms > 0.05), "no loud level reading");
    assert!(levels.windows(2).all(|w| w[1].at_ms > w[0].at_ms));

    let asr = AsrEngine::start(AsrConfig::new(&models.whisper)).unwrap();
    let t = asr
        .transcribe(AsrRequest {
            samples: utterance.samples,
            lang: Lang::Zh,
            expected_units: Some(20),
            speech_detected: Some(true),
        })
        .unwrap();
    let hits = common::chars_in_common(&t.text, "床前明月光疑是地上霜举头望明月低头思故乡");
    assert!(
        hits >= 15,
        "heard {:?} ({hits} of 20 characters right)",
        t.text
    );
}
