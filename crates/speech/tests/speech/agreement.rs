//! The whole pipeline over both dev sets (decode → VAD → whisper → the
//! teacher's verdict), compared with what each clip is known to contain:
//! `recite-audio-dev` and the same clips made harder (child-like pitch,
//! tempo, noise, echo). To keep CI's speech suites within a few minutes,
//! every second clip of each set is run (the bench runs them all, with the
//! thresholds cross-validated). The bounds are the figures measured on
//! these clips with the default settings (crate README), less a small
//! margin: a change that finds fewer slips, re-asks more clean
//! recitations or blames them fails here.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::path::Path;

use deskmate_speech::evaluation::{hear_all, read_manifest, score, Figures, Fits};
use deskmate_speech::fairness::FairnessSettings;
use deskmate_speech::SpeechPipeline;

/// Every second clip of a set, heard and scored with the default settings.
fn agree(pipeline: &SpeechPipeline, label: &str, dir: &Path, clips_in_set: usize) -> Figures {
    let clips = read_manifest(dir).unwrap();
    assert_eq!(clips.len(), clips_in_set, "the {label} set changed");
    let clips: Vec<_> = clips.into_iter().step_by(2).collect();
    let heard = hear_all(
        pipeline,
        dir,
        &clips,
        &FairnessSettings::default(),
        Fits::Default,
        &mut |i, h| {
            eprintln!(
                "[{label}] {:>3} {:<14} asr {:>5} ms  verdict {:>5} ms  re-examined {:>3}  {}",
                i + 1,
                h.clip.id,
                h.asr_ms,
                h.to_verdict_ms,
                h.fits.len(),
                h.transcript
                    .as_ref()
                    .map(|t| t.text.as_str())
                    .unwrap_or("-")
            );
        },
    )
    .unwrap();
    let f = score(&heard, &FairnessSettings::default());
    eprintln!(
        "[{label}] CER {:.3}  syllable ER {:.3}  WER {:.3}  clean passed {}/{}  false errors {}/{}  found as errors {}/{}  counting re-asks {}/{}  no speech {}  {:?}",
        f.cer(),
        f.syllable_er(),
        f.wer(),
        f.clean_passed(),
        f.clean_clips,
        f.false_alarm_clips,
        f.clean_clips,
        f.found_certain,
        f.expected_errors,
        f.found_any,
        f.expected_errors,
        f.no_speech,
        f.false_alarms
    );
    assert_eq!(f.no_speech, 0, "[{label}] speech was missed on some clips");
    f
}

fn bounds(label: &str, f: &Figures, b: &Bounds) {
    assert!(
        f.clean_passed() >= b.clean_passed_min,
        "[{label}] clean recitations passed with no re-ask {}/{} (at least {})",
        f.clean_passed(),
        f.clean_clips,
        b.clean_passed_min
    );
    assert!(
        f.false_alarm_clips <= b.false_errors_max,
        "[{label}] false errors {}/{} (at most {}): {:?}",
        f.false_alarm_clips,
        f.clean_clips,
        b.false_errors_max,
        f.false_alarms
    );
    assert!(
        f.found_certain >= b.found_certain_min,
        "[{label}] slips found as errors {}/{} (at least {})",
        f.found_certain,
        f.expected_errors,
        b.found_certain_min
    );
    assert!(
        f.found_any >= b.found_any_min,
        "[{label}] slips found counting re-asks {}/{} (at least {})",
        f.found_any,
        f.expected_errors,
        b.found_any_min
    );
}

/// Counts on every second clip of a set.
struct Bounds {
    clean_passed_min: usize,
    false_errors_max: usize,
    found_certain_min: usize,
    found_any_min: usize,
}

#[test]
fn both_dev_sets_agree_with_their_expected_errors() {
    // Whisper runs one test at a time in this binary (both cores each).
    let _turn = deskmate_testkit::process::speech_turn();
    let models = common::models();
    let pipeline = SpeechPipeline::from_models_dir(&models.dir).unwrap();
    let dev = agree(&pipeline, "dev", &common::dev_clips_dir(), 150);
    assert!(
        dev.syllable_er() <= SYLLABLE_ER_MAX,
        "syllable error rate {:.3}",
        dev.syllable_er()
    );
    assert!(
        dev.cer() <= CER_MAX,
        "character error rate {:.3}",
        dev.cer()
    );
    assert!(dev.wer() <= WER_MAX, "word error rate {:.3}", dev.wer());
    bounds("dev", &dev, &DEV);
    let hard = agree(&pipeline, "hard", &common::hard_clips_dir(), 90);
    bounds("hard", &hard, &HARD);
}

// Every second clip: dev 75 clips (21 clean, 67 expected slips), hard 45
// (21 clean, 24 slips), with the default settings (accepting on, the prior
// at weight 1, tone-only differences accepted from −13). Measured on
// 2026-11-27 on the 2-core CI machine (the full bench's saved run scored on
// these clips: `BENCH_STEP=2 BENCH_SCORE=…`): dev: clean passed 17/21,
// false errors 0/21, found as errors 54/67, counting re-asks 59/67; hard:
// 18/21, 1/21, 23/24, 23/24 (before the tone threshold: dev 14/21 clean
// passed and 60/67 counting re-asks, hard 17/21). On 2026-11-28, with
// the checker pairing a doubled or rhyming heard unit with the material's
// (recite README, steps 6–7) and omissions put back in order, hard gave
// 19/21, 0/21, 23/24, 23/24 and dev was unchanged (17/21, 0/21, 54/67,
// 59/67). These are floors against a slide on the clips the bounds were
// read from; the held-out figures are the speech README's. A slip counts as
// found by an error of any type on its line or the next (the issue's
// definition: a swap heard as a character left out and another added is
// found); of the same type it is dev 53/67 and hard 16/24 as errors (the
// bench prints both). The bounds are those figures less a margin of about
// one clip in twenty (whisper's floating point may differ on another CPU).
// The thresholds were chosen on both sets, so these figures are not held
// out: the crate README's cross-validated table is the honest estimate.
// The targets (≥ 85 % clean passed, ≤ 3 % false errors, ≥ 90 % /
// 97 % found) are the bar to reach; not all are reached on both sets yet.
const DEV: Bounds = Bounds {
    clean_passed_min: 16,
    false_errors_max: 1,
    found_certain_min: 51,
    found_any_min: 56,
};
const HARD: Bounds = Bounds {
    clean_passed_min: 18,
    false_errors_max: 1,
    found_certain_min: 22,
    found_any_min: 22,
};
const SYLLABLE_ER_MAX: f64 = 0.10;
const CER_MAX: f64 = 0.44;
const WER_MAX: f64 = 0.28;
