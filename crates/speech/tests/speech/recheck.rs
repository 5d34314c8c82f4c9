//! Re-examining the recording on real audio: whisper's decoder, scoring the
//! transcript with one difference put right, must tell a mishearing (the
//! right text fits the audio as well) from a real slip (it fits far worse).
//! Two dev clips of 静夜思: one recited right but misheard in places, one
//! with its second line left out.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use deskmate_recite::{check, ErrorType, Mode, Reference};
use deskmate_speech::asr::{AsrError, Lang, Transcript};
use deskmate_speech::audio::file;
use deskmate_speech::decision::Decision;
use deskmate_speech::fairness::{judge, judge_with_audio, FairnessSettings};
use deskmate_speech::SpeechPipeline;

const JING_YE_SI: &str = "床前明月光，疑是地上霜。举头望明月，低头思故乡。";

fn pipeline() -> SpeechPipeline {
    SpeechPipeline::from_models_dir(&common::models().dir).unwrap()
}

/// What whisper heard on a Mandarin dev clip of `units` hanzi.
fn hear_clip(p: &SpeechPipeline, clip: &str, units: usize) -> Transcript {
    let audio = file::load(&common::dev_clip(clip), 60.0).unwrap();
    p.hear(&audio, Lang::Zh, Some(units))
        .unwrap()
        .transcript
        .unwrap_or_else(|| panic!("nothing heard on {clip}"))
}

#[test]
fn a_dropped_line_stays_the_childs_error_and_mishearings_do_not() {
    // Whisper runs one test at a time in this binary (both cores each).
    let _turn = deskmate_testkit::process::speech_turn();
    let p = pipeline();
    let reference = Reference::new(JING_YE_SI, None).unwrap();
    let settings = FairnessSettings::default();

    // 静夜思-4: the second line was left out.
    let heard = hear_clip(&p, "静夜思-4.wav", 20);
    let v = judge_with_audio(&reference, &heard, &settings, p.asr()).unwrap();
    let omission = v
        .differences
        .iter()
        .position(|e| e.error_type == ErrorType::Omission && e.line == 2)
        .unwrap_or_else(|| panic!("no omission on line 2: {:?}", v.differences));
    assert_eq!(v.decisions[omission], Decision::Error, "{:?}", v.rechecked);
    assert!(
        v.certain_errors()
            .any(|e| e.error_type == ErrorType::Omission && e.line == 2),
        "{:?}",
        v.verdict.errors
    );
    let r = v.rechecked.iter().find(|r| r.error == omission).unwrap();
    assert!(
        r.delta < -20.0,
        "a dropped line must fit the audio far worse: {r:?}"
    );
    // What is recorded gives the same verdict when checked again.
    let again = check(
        &reference,
        &v.record_transcript(&heard, &settings),
        Mode::Voice,
    )
    .unwrap();
    let flags = |es: &[deskmate_recite::RecitationError]| {
        es.iter().map(|e| e.uncertain).collect::<Vec<_>>()
    };
    assert_eq!(flags(&again.errors), flags(&v.verdict.errors));

    // 静夜思-1: recited right; whisper hears 疑是地上霜 as 一世地上生 or so.
    let heard = hear_clip(&p, "静夜思-1.wav", 20);
    let plain = judge(
        &reference,
        &heard,
        &FairnessSettings {
            recheck_margin: None,
            ..settings
        },
    )
    .unwrap();
    let v = judge_with_audio(&reference, &heard, &settings, p.asr()).unwrap();
    assert_eq!(
        v.certain_errors().count(),
        0,
        "heard {:?}: {:?} / {:?}",
        heard.text,
        v.verdict.errors,
        v.rechecked
    );
    assert!(v.certain_errors().count() <= plain.certain_errors().count());
    assert_eq!(v.fair_accuracy, 100.0, "{:?}", v.uncertain);
}

#[test]
fn re_examining_needs_the_last_recording() {
    // Whisper runs one test at a time in this binary (both cores each).
    let _turn = deskmate_testkit::process::speech_turn();
    let p = pipeline();
    let a = file::load(&common::dev_clip("静夜思-1.wav"), 60.0).unwrap();
    let first = p.hear(&a, Lang::Zh, Some(20)).unwrap().transcript.unwrap();
    // The same text is no difference at all.
    assert_eq!(
        p.asr().recheck(&first, vec![first.text.clone()]).unwrap(),
        vec![0.0]
    );
    let _second = p.hear(&a, Lang::Zh, Some(20)).unwrap().transcript.unwrap();
    match p.asr().recheck(&first, vec![JING_YE_SI.into()]) {
        Err(AsrError::RecordingGone) => {}
        other => panic!("expected RecordingGone, got {other:?}"),
    }
    // The fair judgement still works: the differences stay as heard.
    let reference = Reference::new(JING_YE_SI, None).unwrap();
    let v = judge_with_audio(&reference, &first, &FairnessSettings::default(), p.asr()).unwrap();
    assert!(v.rechecked.is_empty());
}

#[test]
fn deltas_do_not_depend_on_what_else_is_scored_with_them() {
    // Whisper runs one test at a time in this binary (both cores each).
    let _turn = deskmate_testkit::process::speech_turn();
    // Variants scored together share the decoded text before their
    // differences; each must score as it does alone.
    let p = pipeline();
    let heard = hear_clip(&p, "静夜思-1.wav", 20);
    let chars: Vec<char> = heard.text.chars().collect();
    assert!(chars.len() >= 10, "{}", heard.text);
    let swap = |at: usize, with: char| {
        let mut c = chars.clone();
        c[at] = with;
        c.into_iter().collect::<String>()
    };
    let variants = vec![
        swap(8, '霜'),
        swap(2, '明'),
        JING_YE_SI
            .chars()
            .filter(|c| !"，。".contains(*c))
            .collect(),
        heard.text.clone(),
        swap(8, '月'),
        chars[..5].iter().collect(),
    ];
    let together = p.asr().recheck(&heard, variants.clone()).unwrap();
    for (v, d) in variants.iter().zip(&together) {
        let alone = p.asr().recheck(&heard, vec![v.clone()]).unwrap()[0];
        eprintln!("{v}: {alone:.3} alone, {d:.3} together");
        assert!((alone - d).abs() < 0.05, "{v}: {alone} alone, {d} together");
    }
    assert_eq!(together[3], 0.0);
}

/// Whisper's expectation of a text with nothing heard (scored against
/// silence) holds a rare character against the text: 鹂 is spelled in
/// several byte tokens, so 黄鹂 scores far below 黄李 on any audio. On a
/// clean recitation of 绝句 heard as 黄李, taking that preference off
/// leaves what the audio itself says, and the verdict does not blame the
/// child for the rare character.
#[test]
fn the_prior_takes_a_rare_characters_spelling_off_its_score() {
    // Whisper runs one test at a time in this binary (both cores each).
    let _turn = deskmate_testkit::process::speech_turn();
    let p = pipeline();
    let prior = p
        .asr()
        .prior_against(
            Lang::Zh,
            "两个黄李鸣翠柳",
            vec!["两个黄鹂鸣翠柳".into(), "两个黄李鸣翠柳".into()],
        )
        .unwrap();
    assert!(
        prior[0] < -2.0,
        "the rare 鹂 scores low with nothing heard: {prior:?}"
    );
    assert_eq!(prior[1], 0.0, "the same text scores the same: {prior:?}");
    // Works at any time: no recording needed, and it leaves the last one loaded.
    let reference = Reference::new(
        "两个黄鹂鸣翠柳，一行白鹭上青天。窗含西岭千秋雪，门泊东吴万里船。",
        None,
    )
    .unwrap();
    let heard = hear_clip(&p, "绝句-7.wav", 28);
    let plain = FairnessSettings {
        prior_weight: 0.0,
        ..FairnessSettings::default()
    };
    let with_prior = FairnessSettings {
        prior_weight: 1.0,
        ..FairnessSettings::default()
    };
    let score_of = |settings: &FairnessSettings| {
        let v = judge_with_audio(&reference, &heard, settings, p.asr()).unwrap();
        v.rechecked
            .iter()
            .find(|r| r.expected == "鹂")
            .map(|r| r.delta)
    };
    // Whisper base hears 黄鹂 as 黄李 on this clip (the bench's dev run).
    let (Some(plain), Some(less)) = (score_of(&plain), score_of(&with_prior)) else {
        panic!("鹂 was not a re-examined difference: heard {}", heard.text);
    };
    assert!(
        less > plain + 5.0,
        "with the prior taken off, 鹂 fits much better: {plain:.1} → {less:.1}"
    );
}

/// The prior scored beside the recording (two threads at once, one
/// job) gives what scoring each on its own gives, and a prior job needs the
/// recording to still be loaded like any re-examining.
#[test]
fn scoring_the_prior_beside_the_recording_gives_the_same_scores() {
    // Whisper runs one test at a time in this binary (both cores each).
    let _turn = deskmate_testkit::process::speech_turn();
    let p = pipeline();
    let heard = hear_clip(&p, "静夜思-1.wav", 20);
    let chars: Vec<char> = heard.text.chars().collect();
    assert!(chars.len() > 6, "too little heard: {}", heard.text);
    let mut changed = chars.clone();
    changed[1] = '钱';
    let changed: String = changed.into_iter().collect();
    let shorter: String = chars[..chars.len() - 3].iter().collect();
    let variants = vec![changed.clone(), shorter, heard.text.clone()];
    let priors = vec![changed, heard.text.clone()];
    let (deltas, prior) = p
        .asr()
        .recheck_with_prior(&heard, &heard.text, variants.clone(), priors.clone())
        .unwrap();
    let deltas_alone = p.asr().recheck(&heard, variants).unwrap();
    let prior_alone = p
        .asr()
        .prior_against(Lang::Zh, &heard.text, priors)
        .unwrap();
    eprintln!("{deltas:?} / {deltas_alone:?}; {prior:?} / {prior_alone:?}");
    assert_eq!(deltas.len(), 3);
    assert_eq!(prior.len(), 2);
    for (a, b) in deltas
        .iter()
        .zip(&deltas_alone)
        .chain(prior.iter().zip(&prior_alone))
    {
        assert!(
            (a - b).abs() < 0.01,
            "{deltas:?} against {deltas_alone:?}, {prior:?} against {prior_alone:?}"
        );
    }
    assert!(
        deltas[0] < 0.0,
        "a changed character fits worse: {deltas:?}"
    );
    assert_eq!(deltas[2], 0.0);
    assert_eq!(prior[1], 0.0);
    // Another recording transcribed: the first one is gone, for the pair too.
    let _other = hear_clip(&p, "静夜思-1.wav", 20);
    assert!(matches!(
        p.asr().recheck_with_prior(
            &heard,
            &heard.text,
            vec![heard.text.clone()],
            vec![heard.text.clone()]
        ),
        Err(AsrError::RecordingGone)
    ));
}
