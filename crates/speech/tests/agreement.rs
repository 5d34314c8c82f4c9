//! The whole pipeline over the 150 dev clips (decode → VAD → whisper →
//! fair verdict), compared with what each clip is known to contain. The
//! bounds are the figures measured when the thresholds were chosen (crate
//! README, "Fair verdicts"), less a small margin: a change that makes the
//! pipeline find fewer errors or blame clean recitations fails here.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use deskmate_speech::evaluation::{hear_all, read_manifest, score, Fits};
use deskmate_speech::fairness::FairnessSettings;
use deskmate_speech::SpeechPipeline;

#[test]
fn dev_clips_agree_with_their_expected_errors() {
    let models = common::models();
    let dir = common::dev_clips_dir();
    let clips = read_manifest(&dir).unwrap();
    assert_eq!(clips.len(), 150, "the dev set changed");
    let pipeline = SpeechPipeline::from_models_dir(&models.dir).unwrap();
    let heard = hear_all(&pipeline, &dir, &clips, Fits::Default, &mut |i, h| {
        eprintln!(
            "{:>3} {:<14} asr {:>5} ms  {}",
            i + 1,
            h.clip.id,
            h.asr_ms,
            h.transcript
                .as_ref()
                .map(|t| t.text.as_str())
                .unwrap_or("-")
        );
    })
    .unwrap();
    let f = score(&heard, &FairnessSettings::default());
    eprintln!(
        "CER {:.3}  syllable ER {:.3}  WER {:.3}  found certain {:.3}  found incl. uncertain {:.3}  false alarms {}/{}  no speech {}",
        f.cer(),
        f.syllable_er(),
        f.wer(),
        f.found_certain_rate(),
        f.found_any_rate(),
        f.false_alarm_clips,
        f.clean_clips,
        f.no_speech
    );
    assert_eq!(f.no_speech, 0, "speech was missed on some clips");
    assert!(
        f.syllable_er() <= SYLLABLE_ER_MAX,
        "syllable error rate {:.3}",
        f.syllable_er()
    );
    assert!(f.cer() <= CER_MAX, "character error rate {:.3}", f.cer());
    assert!(f.wer() <= WER_MAX, "word error rate {:.3}", f.wer());
    assert!(
        f.found_certain_rate() >= FOUND_CERTAIN_MIN,
        "errors found as certain {:.3}",
        f.found_certain_rate()
    );
    assert!(
        f.found_any_rate() >= FOUND_ANY_MIN,
        "errors found (incl. uncertain) {:.3}",
        f.found_any_rate()
    );
    assert!(
        f.false_alarm_rate() <= FALSE_ALARM_MAX,
        "false alarms {}/{}: {:?}",
        f.false_alarm_clips,
        f.clean_clips,
        f.false_alarms
    );
}

// The targets, and regression bounds a little below what was
// measured over all 150 clips (2026-11-24, this test, default settings:
// window sized to the clip, loops blocked, re-examining at 4 and 6 nats):
// CER 40.0 %, syllable ER 8.6 %, WER 22.9 %, found certain 72.4 %, found
// incl. uncertain 93.3 %, false alarms 1/42 = 2.4 % (crate README,
// Benchmark). Two false alarms (4.8 %) still pass; three fail.
const FALSE_ALARM_MAX: f64 = 0.05;
const FOUND_ANY_MIN: f64 = 0.90;
const FOUND_CERTAIN_MIN: f64 = 0.66;
const SYLLABLE_ER_MAX: f64 = 0.10;
const CER_MAX: f64 = 0.44;
const WER_MAX: f64 = 0.28;
