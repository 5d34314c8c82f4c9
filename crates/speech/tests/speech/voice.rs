//! A high voice lowered for whisper (`audio::voice`), on real clips: the
//! pitch found on a hard clip is its dev original's raised by the cents the
//! hard set's manifest says, and whisper's times on the slowed audio come
//! back in the recording's own milliseconds.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use deskmate_speech::asr::{AsrConfig, AsrEngine, AsrRequest, Lang};
use deskmate_speech::audio::{file, voice, SAMPLE_RATE};
use deskmate_speech::evaluation::read_manifest;

/// The hard set's `pitch_cents` for one clip id.
fn cents_of(id: &str) -> f32 {
    read_manifest(&common::hard_clips_dir())
        .unwrap()
        .into_iter()
        .find(|c| c.id == id)
        .unwrap_or_else(|| panic!("{id} is not in the hard set"))
        .augment
        .unwrap_or_else(|| panic!("{id} has no augment in the hard set's manifest"))
        .pitch_cents
}

#[test]
fn a_raised_voice_is_found_raised_by_what_the_hard_set_says() {
    for id in ["静夜思-1", "游子吟-1"] {
        let dev = file::load(&common::dev_clip(&format!("{id}.wav")), 60.0).unwrap();
        let hard = file::load(&common::hard_clips_dir().join(format!("{id}.wav")), 60.0).unwrap();
        let low = voice::median_pitch(&dev.samples).expect("the dev voice is voiced");
        let high = voice::median_pitch(&hard.samples).expect("the hard voice is voiced");
        let cents = 1200.0 * (high / low).log2();
        let said = cents_of(id);
        // Noise and echo blur the estimate: within a semitone.
        assert!(
            (cents - said).abs() < 100.0,
            "{id}: {low:.0} Hz → {high:.0} Hz is {cents:.0} cents, the set says {said}"
        );
    }
}

#[test]
fn whispers_times_on_a_lowered_voice_are_the_recordings_own() {
    let _turn = deskmate_testkit::process::speech_turn();
    let clip = file::load(&common::hard_clips_dir().join("静夜思-1.wav"), 60.0).unwrap();
    let (slowed, warp) =
        voice::lower(&clip.samples, Some(voice::MEASURED_VOICE_CEILING_HZ)).unwrap();
    assert!(warp.factor < 0.85, "the raised voice is lowered: {warp:?}");
    assert!(slowed.len() as f32 > clip.samples.len() as f32 / 0.85);

    let mut config = AsrConfig::new(&common::models().whisper);
    config.voice_ceiling_hz = Some(voice::MEASURED_VOICE_CEILING_HZ);
    let engine = AsrEngine::start(config).unwrap();
    let heard = engine
        .transcribe(AsrRequest {
            samples: clip.samples.clone(),
            lang: Lang::Zh,
            expected_units: Some(20),
            speech_detected: Some(true),
        })
        .unwrap();
    let audio_ms = clip.samples.len() as u32 * 1000 / SAMPLE_RATE;
    assert_eq!(u64::from(audio_ms), heard.audio_ms);
    let last = heard.units.last().expect("something heard");
    // Mapped back: the last character ends inside the recording, and in its
    // last third (not stretched past it by 1/factor, nor shrunk).
    assert!(
        last.end_ms <= audio_ms + 300 && last.end_ms * 3 >= audio_ms * 2,
        "last unit {:?} in {audio_ms} ms",
        last
    );
    assert!(
        common::chars_in_common(&heard.text, "床前明月光疑是地上霜举头望明月低头思故乡") >= 14,
        "heard {}",
        heard.text
    );
}
