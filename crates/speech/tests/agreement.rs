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
    assert!(
        f.found_any_rate() >= FOUND_ANY_MIN,
        "errors found (incl. uncertain) {:.3}",
        f.found_any_rate()
    );
    assert!(
        f.false_alarm_rate() <= FALSE_ALARM_MAX,
        "false alarms {}/{}",
        f.false_alarm_clips,
        f.clean_clips
    );
}

// Regression bounds. Measured over all 150 clips (2026-11-22, this test):
// CER 41.7 %, syllable ER 10.3 %, WER 34.3 %, found certain 74.6 %, found incl.
// uncertain 92.5 %, false alarms 11/42 = 26.2 % (the English clips add them;
// Mandarin alone was 6/35). Re-examining the audio (2026-11-24) took false
// alarms on 73 Mandarin clips from 3/20 to 2/20 without losing any error
// found (README). These are not the targets (≤ 5 % false alarms is
// not met yet); they stop the pipeline from getting worse.
const SYLLABLE_ER_MAX: f64 = 0.15;
const CER_MAX: f64 = 0.50;
const FOUND_ANY_MIN: f64 = 0.85;
const FALSE_ALARM_MAX: f64 = 0.30;
