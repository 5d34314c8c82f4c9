//! whisper's repetition loops on real audio. whisper base falls into a loop
//! on repeated syllables: 咏鹅 opens with 鹅，鹅，鹅 and came out as 哲 ×43
//! (the rest of the poem lost), Humpty Dumpty as "tidump" ×17. The decoder
//! now may not begin a fourth copy of a loop, so it finds its place again
//! and the rest of the recitation is heard.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use deskmate_speech::asr::{AsrConfig, GuardFlag, Lang};
use deskmate_speech::audio::file;
use deskmate_speech::SpeechPipeline;

/// Hears a dev clip that made whisper loop, and checks most of it was heard.
fn heard_most_of(p: &SpeechPipeline, clip: &str, lang: Lang, units: usize) {
    let audio = file::load(&common::dev_clip(clip), 60.0).unwrap();
    let t = p
        .hear(&audio, lang, Some(units))
        .unwrap()
        .transcript
        .unwrap();
    let long_loop = t
        .flags
        .iter()
        .any(|f| matches!(f, GuardFlag::Repetition { times, .. } if *times > 4));
    assert!(
        !long_loop,
        "{clip}: whisper looped: {:?} ({})",
        t.flags, t.text
    );
    assert!(
        t.units.len() * 3 >= units * 2,
        "{clip}: only {} of {units} units heard: {}",
        t.units.len(),
        t.text
    );
}

#[test]
fn repeated_syllables_no_longer_swallow_the_recitation() {
    // Whisper runs one test at a time in this binary (both cores each).
    let _turn = deskmate_testkit::process::speech_turn();
    let p = SpeechPipeline::from_models_dir(&common::models().dir).unwrap();
    // 咏鹅, recited right with a restarted line: 18 hanzi.
    heard_most_of(&p, "咏鹅-13.wav", Lang::Zh, 18);
    // Humpty Dumpty, recited right: 26 words.
    heard_most_of(&p, "humpty-1.wav", Lang::En, 26);
}

#[test]
fn a_beam_decode_keeps_the_loop_guard() {
    // The guard is a logits filter: whisper.cpp calls it for every
    // hypothesis of a beam too, so the optional beam search (measured and
    // not taken: README, "A wider beam") also hears 咏鹅 to the end.
    let _turn = deskmate_testkit::process::speech_turn();
    let models = common::models();
    let mut config = AsrConfig::new(&models.whisper);
    config.beam_size = Some(3);
    let p = SpeechPipeline::load(&models, config).unwrap();
    heard_most_of(&p, "咏鹅-13.wav", Lang::Zh, 18);
}
