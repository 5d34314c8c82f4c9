//! The fairness rules on transcripts and recorded scores: what is an
//! error, what is re-asked, what is accepted and put right in what is
//! recorded, and when a recitation reaches its end.

use super::rechecking::{corrected, spoken_form};
use super::*;
use crate::asr::HeardUnit;
use crate::decision::Decision;

fn heard(text: &str, low: &[usize]) -> Transcript {
    let units: Vec<HeardUnit> = text
        .chars()
        .enumerate()
        .map(|(i, c)| HeardUnit {
            text: c.to_string(),
            confidence: if low.contains(&i) { 0.4 } else { 0.98 },
            start_ms: 0,
            end_ms: 0,
        })
        .collect();
    Transcript {
        lang: Lang::Zh,
        text: text.into(),
        raw_text: text.into(),
        units,
        flags: vec![],
        audio_ms: 0,
        asr_ms: 0,
        audio_id: 0,
    }
}

const JING_YE_SI: &str = "床前明月光，疑是地上霜。举头望明月，低头思故乡。";

#[test]
fn a_recitation_reaches_the_end_when_most_of_its_last_line_is_heard() {
    let r = Reference::new(JING_YE_SI, None).unwrap();
    let reaches = |said: &str| {
        judge(&r, &heard(said, &[]), &old_rule())
            .unwrap()
            .reaches_the_end()
    };
    assert!(reaches("床前明月光疑是地上霜举头望明月低头思故乡"));
    // A slip in the last line is still the end of the recitation.
    assert!(reaches("床前明月光疑是地上霜举头望明月低头想故乡"));
    // Stopped after the third line, or two words into the last.
    assert!(!reaches("床前明月光疑是地上霜举头望明月"));
    assert!(!reaches("床前明月光疑是地上霜举头望明月低头"));
    // The last line said first does not end a recitation that has not begun.
    assert!(!reaches("低"));
    // Most of the last line, but not its end: the child may go on.
    assert!(!reaches("床前明月光疑是地上霜举头望明月低头思"));
}

#[test]
fn a_confident_wrong_sound_is_the_childs_error() {
    let r = Reference::new(JING_YE_SI, None).unwrap();
    let v = judge(
        &r,
        &heard("床前明烟光疑是地上霜举头望明月低头思故乡", &[]),
        &old_rule(),
    )
    .unwrap();
    let certain: Vec<_> = v.certain_errors().collect();
    assert_eq!(certain.len(), 1, "{:?}", v.verdict.errors);
    assert_eq!(certain[0].error_type, ErrorType::Substitution);
    assert!(v.uncertain.is_empty());
    assert_eq!(v.fair_accuracy, 95.0);
}

#[test]
fn a_low_confidence_difference_is_uncertain() {
    let r = Reference::new(JING_YE_SI, None).unwrap();
    // 霜 (shuāng) misheard as 生 (shēng) with low confidence.
    let v = judge(
        &r,
        &heard("床前明月光疑是地上生举头望明月低头思故乡", &[9]),
        &old_rule(),
    )
    .unwrap();
    assert_eq!(v.certain_errors().count(), 0, "{:?}", v.verdict.errors);
    assert_eq!(v.uncertain.len(), 1);
    assert_eq!(v.uncertain[0].reason, UncertainReason::LowConfidence);
    assert_eq!(v.fair_accuracy, 100.0);
    // The same mishearing heard confidently is the child's error.
    let v = judge(
        &r,
        &heard("床前明月光疑是地上生举头望明月低头思故乡", &[]),
        &old_rule(),
    )
    .unwrap();
    assert_eq!(v.certain_errors().count(), 1);
}

#[test]
fn a_tone_only_difference_is_uncertain_even_when_confident() {
    let r = Reference::new(JING_YE_SI, None).unwrap();
    // 举头 heard as 举偷 (tóu vs tōu), confidently.
    let v = judge(
        &r,
        &heard("床前明月光疑是地上霜举偷望明月低头思故乡", &[]),
        &old_rule(),
    )
    .unwrap();
    assert_eq!(v.certain_errors().count(), 0, "{:?}", v.verdict.errors);
    assert_eq!(v.uncertain.len(), 1);
    assert_eq!(v.uncertain[0].reason, UncertainReason::ToneOnly);
    let strict = FairnessSettings {
        tone_is_uncertain: false,
        ..old_rule()
    };
    assert_eq!(
        judge(
            &r,
            &heard("床前明月光疑是地上霜举偷望明月低头思故乡", &[]),
            &strict
        )
        .unwrap()
        .certain_errors()
        .count(),
        1
    );
}

#[test]
fn a_missing_line_stays_the_childs_error() {
    let r = Reference::new(JING_YE_SI, None).unwrap();
    let v = judge(
        &r,
        &heard("床前明月光举头望明月低头思故乡", &[]),
        &old_rule(),
    )
    .unwrap();
    let certain: Vec<_> = v.certain_errors().collect();
    assert_eq!(certain.len(), 1);
    assert_eq!(
        (certain[0].error_type, certain[0].line),
        (ErrorType::Omission, 2)
    );
}

/// A stand-in for whisper's decoder (so the decision rule is tested
/// without a model; the real scorer runs on real audio in
/// tests/speech/recheck.rs and tests/speech/agreement.rs): `fits(text)` is how well
/// the audio fits a text, and a variant's delta is how much better it
/// fits than the base.
fn by_fit(fits: impl Fn(&str) -> f64) -> impl Fn(&str, Vec<String>) -> Result<Vec<f64>, AsrError> {
    move |base: &str, variants: Vec<String>| {
        Ok(variants.iter().map(|v| fits(v) - fits(base)).collect())
    }
}

/// A scorer that dislikes texts containing `bad`.
fn scorer(bad: &'static str) -> impl Fn(&str, Vec<String>) -> Result<Vec<f64>, AsrError> {
    by_fit(move |t| {
        if !bad.is_empty() && t.contains(bad) {
            -10.0
        } else {
            0.0
        }
    })
}

/// How well audio of 哩哩哩曲项向天歌 or 鹅鹅鹅曲项向天歌 fits a text:
/// -9 for each of the first three characters that is neither.
fn three(audio: char) -> impl Fn(&str, Vec<String>) -> Result<Vec<f64>, AsrError> {
    by_fit(move |t| -9.0 * t.chars().take(3).filter(|c| *c != audio).count() as f64)
}

#[test]
fn a_difference_the_audio_also_fits_is_uncertain() {
    let r = Reference::new(JING_YE_SI, None).unwrap();
    // 霜 heard confidently as 生; the audio fits 霜 just as well (delta 0 ≥ -6).
    let h = heard("床前明月光疑是地上生举头望明月低头思故乡", &[]);
    let v = judge_with_fit(&r, &h, &old_rule(), &scorer("")).unwrap();
    assert_eq!(v.certain_errors().count(), 0, "{:?}", v.verdict.errors);
    assert_eq!(v.uncertain[0].reason, UncertainReason::AudioFitsText);
    assert_eq!(v.rechecked.len(), 1);
    assert_eq!(v.rechecked[0].delta, 0.0);
    assert_eq!(v.fair_accuracy, 100.0);
    // The right text fits the audio much worse: the child said 生.
    let v = judge_with_fit(&r, &h, &old_rule(), &scorer("霜")).unwrap();
    assert_eq!(v.certain_errors().count(), 1);
    assert_eq!(v.rechecked[0].delta, -10.0);
    // Re-examining off: the transcript alone decides.
    let off = FairnessSettings {
        recheck_margin: None,
        ..old_rule()
    };
    let v = judge_with_fit(&r, &h, &off, &scorer("")).unwrap();
    assert_eq!(v.certain_errors().count(), 1);
    assert!(v.rechecked.is_empty());
}

#[test]
fn the_variants_put_one_difference_right_each() {
    let r = Reference::new(JING_YE_SI, None).unwrap();
    // A wrong sound (月→烟), a dropped line and an extra 花花.
    let h = heard("床前明烟光举头望明月花花低头思故乡", &[]);
    let asked = std::sync::Mutex::new(Vec::new());
    let fit = |_base: &str, texts: Vec<String>| -> Result<Vec<f64>, AsrError> {
        asked.lock().unwrap().extend(texts.clone());
        Ok(vec![0.0; texts.len()])
    };
    let settings = FairnessSettings {
        tone_is_uncertain: false,
        ..old_rule()
    };
    let v = judge_with_fit(&r, &h, &settings, &fit).unwrap();
    let asked = asked.into_inner().unwrap();
    assert!(
        asked.contains(&"床前明月光举头望明月花花低头思故乡".to_string()),
        "{asked:?}"
    );
    assert!(
        asked.contains(&"床前明烟光疑是地上霜举头望明月花花低头思故乡".to_string()),
        "{asked:?}"
    );
    assert!(
        asked.contains(&"床前明烟光举头望明月低头思故乡".to_string()),
        "{asked:?}"
    );
    assert_eq!(v.rechecked.len(), 3);
}

#[test]
fn a_run_of_mishearings_is_put_right_together() {
    let r = Reference::new("鹅，鹅，鹅，曲项向天歌。", None).unwrap();
    let h = heard("哩哩哩曲项向天歌", &[]);
    // The child said 鹅鹅鹅: one 鹅 put right alone fits worse than 哩哩哩
    // (-9), but in the run put right each 鹅 fits 9 nats better than a 哩.
    let v = judge_with_fit(&r, &h, &old_rule(), &three('鹅')).unwrap();
    assert_eq!(v.verdict.errors.len(), 3, "{:?}", v.verdict.errors);
    assert_eq!(v.certain_errors().count(), 0, "{:?}", v.rechecked);
    assert!(
        v.rechecked.iter().all(|r| r.delta == 9.0),
        "{:?}",
        v.rechecked
    );
    // The child said 哩哩哩: all three stay the child's errors.
    let v = judge_with_fit(&r, &h, &old_rule(), &three('哩')).unwrap();
    assert_eq!(v.certain_errors().count(), 3);
    assert!(
        v.rechecked.iter().all(|r| r.delta == -9.0),
        "{:?}",
        v.rechecked
    );
}

#[test]
fn a_run_puts_right_the_unsure_mishearings_beside_a_certain_one() {
    let r = Reference::new("鹅，鹅，鹅，曲项向天歌。", None).unwrap();
    // The first 哩 is unsure; the run still puts it right, and it is
    // scored too.
    let h = heard("哩哩哩曲项向天歌", &[0]);
    let bases = std::sync::Mutex::new(Vec::new());
    let fits = three('鹅');
    let fit = |base: &str, variants: Vec<String>| -> Result<Vec<f64>, AsrError> {
        bases.lock().unwrap().push(base.to_string());
        fits(base, variants)
    };
    let v = judge_with_fit(&r, &h, &old_rule(), &fit).unwrap();
    assert!(bases
        .into_inner()
        .unwrap()
        .contains(&"鹅鹅鹅曲项向天歌".to_string()));
    assert_eq!(v.certain_errors().count(), 0, "{:?}", v.verdict.errors);
    // Never accepting, only the two certain ones need a score; the
    // unsure one keeps its reason.
    assert_eq!(v.rechecked.len(), 2, "{:?}", v.rechecked);
    assert!(v
        .uncertain
        .iter()
        .any(|u| u.reason == UncertainReason::LowConfidence));
    // Accepting what the audio fits as well: nothing to say at all.
    let v = judge_with_fit(&r, &h, &accepting(), &three('鹅')).unwrap();
    assert!(v.verdict.errors.is_empty(), "{:?}", v.verdict.errors);
    assert!(v.uncertain.is_empty());
    assert_eq!(v.fair_accuracy, 100.0);
    assert_eq!(v.decisions, vec![Decision::Accept; 3]);
    assert_eq!(v.rechecked.len(), 3, "accepting scores every difference");
    // The child said 哩哩哩: errors, except the unsure one, re-asked.
    let v = judge_with_fit(&r, &h, &accepting(), &three('哩')).unwrap();
    assert_eq!(v.certain_errors().count(), 2, "{:?}", v.verdict.errors);
    assert_eq!(v.uncertain.len(), 1);
}

#[test]
fn the_prior_is_taken_off_only_where_a_word_stands_for_a_word() {
    // 鹂 → 李: one character for one, the prior comes off.
    let d = less_prior(Lang::Zh, "两个黄李", "两个黄鹂", -20.0, Some(-12.0), 0.5);
    assert!((d - -14.0).abs() < 1e-9, "{d}");
    // A dropped line put back: more text, so the plain delta stays
    // (with nothing heard a shorter text always scores better).
    let d = less_prior(
        Lang::Zh,
        "床前明月光",
        "床前明月光疑是地上霜",
        -25.0,
        Some(-30.0),
        1.0,
    );
    assert_eq!(d, -25.0);
    assert_eq!(
        less_prior(Lang::En, "the name", "the dame", -12.0, Some(-2.0), 1.0),
        -10.0
    );
    // Weight 0: the plain delta, prior or not.
    assert_eq!(less_prior(Lang::Zh, "李", "鹂", -3.0, None, 0.0), -3.0);
    // A prior that was not measured cannot excuse anything.
    assert_eq!(
        less_prior(Lang::Zh, "李", "鹂", -3.0, None, 1.0),
        f64::NEG_INFINITY
    );
}

/// The rule before accepting: the audio can only make a difference
/// uncertain.
fn old_rule() -> FairnessSettings {
    FairnessSettings {
        low_confidence_below: 0.8,
        tone_is_uncertain: true,
        recheck_margin: Some(6.0),
        accept_from: None,
        material_context: false,
        prior_weight: 0.0,
        tone_accept_from: None,
    }
}

/// Accepting a difference the audio fits within 2 nats.
fn accepting() -> FairnessSettings {
    FairnessSettings {
        accept_from: Some(-2.0),
        ..old_rule()
    }
}

#[test]
fn an_accepted_difference_is_put_right_in_what_is_recorded() {
    let r = Reference::new(JING_YE_SI, None).unwrap();
    // 霜 heard as 生 and 举头 as 举偷 (tone), the audio fitting both as
    // well; a dropped last line the audio does not fit.
    let h = heard("床前明月光疑是地上生举偷望明月", &[]);
    let v = judge_with_fit(&r, &h, &accepting(), &scorer("低头思故乡")).unwrap();
    assert_eq!(
        v.decisions,
        vec![Decision::Accept, Decision::Accept, Decision::Error],
        "{:?}",
        v.rechecked
    );
    let recorded = v.record_transcript(&h, &accepting());
    assert_eq!(recorded.text, "床前明月光疑是地上霜举头望明月");
    assert_eq!(v.verdict.errors.len(), 1, "{:?}", v.verdict.errors);
    assert_eq!(v.verdict.errors[0].error_type, ErrorType::Omission);
    assert!(!v.verdict.errors[0].uncertain);
    assert_eq!(v.fair_accuracy, 75.0);
    let again = check(&r, &recorded, Mode::Voice).unwrap();
    assert_eq!(again.errors.len(), 1);
    assert_eq!(again.accuracy, v.verdict.accuracy);
}

#[test]
fn omissions_accepted_at_one_place_are_put_right_in_the_materials_order() {
    // 咏鹅 heard with 鹅，鹅，曲 missing between the first 鹅 and 项 (hard
    // 咏鹅-1 came out as 虚像像天歌…): three omissions at one place, all
    // accepted. Put back in the wrong order (曲鹅鹅), the recorded text gave
    // "曲 added on line 2, 曲 missing on line 4" — errors nobody made.
    let r = Reference::new("鹅，鹅，鹅，曲项向天歌。白毛浮绿水，红掌拨清波。", None).unwrap();
    let h = heard("鹅项向天歌白毛浮绿水红掌拨清波", &[]);
    let v = judge_with_fit(&r, &h, &accepting(), &scorer("")).unwrap();
    assert_eq!(v.decisions, vec![Decision::Accept; 3], "{:?}", v.rechecked);
    let recorded = v.record_transcript(&h, &accepting());
    assert_eq!(recorded.text, "鹅鹅鹅曲项向天歌白毛浮绿水红掌拨清波");
    assert!(v.verdict.errors.is_empty(), "{:?}", v.verdict.errors);
}

#[test]
fn english_differences_a_space_apart_are_put_right_together() {
    let r = Reference::new(
        "Jack and Jill went up the hill to fetch a pail of water. Jack fell down.",
        None,
    )
    .unwrap();
    // "water. Jack" run together as one misheard word.
    let mut h = heard("", &[]);
    h.lang = Lang::En;
    h.text = "jack and jill went up the hill to fetch a pail of wagerjack fell down".into();
    h.units = h
        .text
        .split(' ')
        .map(|w| HeardUnit {
            text: w.into(),
            confidence: if w == "wagerjack" { 0.4 } else { 0.98 },
            start_ms: 0,
            end_ms: 0,
        })
        .collect();
    // The audio says "water jack"; what was heard fits it less well, and
    // "jack" beside "wagerjack" or "water" without "jack" worse still.
    let fits = by_fit(|t| {
        if t.contains("water jack fell") {
            0.0
        } else if t.contains("wagerjack fell") {
            -2.0
        } else {
            -9.0
        }
    });
    let asked = std::sync::Mutex::new(Vec::new());
    let fit = |base: &str, variants: Vec<String>| -> Result<Vec<f64>, AsrError> {
        asked.lock().unwrap().push(base.to_string());
        fits(base, variants)
    };
    let v = judge_with_fit(&r, &h, &old_rule(), &fit).unwrap();
    let asked = asked.into_inner().unwrap();
    assert!(
        asked
            .iter()
            .any(|t| t.ends_with("pail of water jack fell down")),
        "{asked:?} {:?}",
        v.verdict.errors
    );
    assert_eq!(v.certain_errors().count(), 0, "{:?}", v.verdict.errors);
    assert_eq!(v.rechecked.len(), 1, "{:?}", v.rechecked);
    assert!(
        v.rechecked.iter().all(|r| r.delta == 9.0),
        "{:?}",
        v.rechecked
    );
    // Accepted, the words are put right, kept apart by single spaces.
    let v = judge_with_fit(&r, &h, &accepting(), &fits).unwrap();
    assert!(v.verdict.errors.is_empty(), "{:?}", v.verdict.errors);
    assert_eq!(
        v.record_transcript(&h, &accepting()).text,
        "jack and jill went up the hill to fetch a pail of water jack fell down"
    );
}

#[test]
fn english_variants_keep_words_apart() {
    assert_eq!(
        corrected("humpty sat on a wall", 7..10, "dumpty", Lang::En).as_deref(),
        Some("humpty dumpty on a wall")
    );
    assert_eq!(
        corrected("humpty on a wall", 6..6, "dumpty sat", Lang::En).as_deref(),
        Some("humpty dumpty sat on a wall")
    );
    assert_eq!(corrected("a b", 0..1, "", Lang::En).as_deref(), Some("b"));
    assert_eq!(corrected("床前", 3..4, "", Lang::Zh), None);
    assert_eq!(
        spoken_form("Humpty Dumpty, sat!", Lang::En),
        "humpty dumpty sat"
    );
    assert_eq!(spoken_form("疑是地上霜。", Lang::Zh), "疑是地上霜");
}

#[test]
fn the_recorded_transcript_gives_the_same_uncertain_errors() {
    let r = Reference::new(JING_YE_SI, None).unwrap();
    // A tone slip (偷), a low-confidence mishearing (生), a dropped line
    // the audio fits (scorer: every variant as good), and a wrong sound
    // the audio does not fit (烟 where 月 would score badly).
    let h = heard("床前明烟光疑是地上生举偷望明月", &[9]);
    let v = judge_with_fit(&r, &h, &old_rule(), &scorer("明月光")).unwrap();
    let uncertain: Vec<bool> = v.verdict.errors.iter().map(|e| e.uncertain).collect();
    assert!(
        uncertain.iter().any(|u| *u) && uncertain.iter().any(|u| !*u),
        "{:?}",
        v.verdict.errors
    );
    let again = check(&r, &v.record_transcript(&h, &old_rule()), Mode::Voice).unwrap();
    let again: Vec<bool> = again.errors.iter().map(|e| e.uncertain).collect();
    assert_eq!(again, uncertain);
}
