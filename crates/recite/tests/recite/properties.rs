//! Properties that hold for any input: a recitation identical to the text
//! scores 100, an empty one 0, accuracy stays within [0, 100], normalizing is
//! idempotent, and nothing panics whatever the characters. (256 cases per
//! property; set PROPTEST_CASES for more.)

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use deskmate_recite::{check, check_text, normalize, Lang, Mode, Reference, Transcript};
use proptest::prelude::*;

/// Chinese text with punctuation, numbers, traditional forms and fillers mixed in.
fn chinese() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            8 => prop::sample::select("床前明月光疑是地上霜举头望明月低头思故乡白日依山尽黄河入海流鹅曲项向天歌嗯啊行长乐".chars().collect::<Vec<_>>()),
            2 => prop::sample::select("，。！？、 \n".chars().collect::<Vec<_>>()),
            1 => prop::sample::select("舉頭鄉樂長".chars().collect::<Vec<_>>()),
            1 => prop::sample::select("0123456789".chars().collect::<Vec<_>>()),
        ],
        1..60,
    )
    .prop_map(|v| v.into_iter().collect())
}

fn english() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            6 => prop::sample::select(vec![
                "twinkle", "Little", "STAR", "how", "I", "wonder", "couldn't", "could", "not", "king's", "well-known",
                "3", "21st", "um", "pail", "pale", "can't", "cannot", "you", "are", "you're",
            ]),
            2 => prop::sample::select(vec![",", ".", "!", "?", ";", " ", "\n", "—"]),
        ],
        1..40,
    )
    .prop_map(|v| v.join(" "))
}

proptest! {
    #[test]
    fn identity_scores_100(text in prop_oneof![chinese(), english()], voice in any::<bool>()) {
        let mode = if voice { Mode::Voice } else { Mode::Text };
        if let Ok(reference) = Reference::new(&text, None) {
            let v = check(&reference, &Transcript::new(text.clone()), mode).unwrap();
            prop_assert_eq!(v.accuracy, 100.0);
            prop_assert_eq!(v.correct, v.units);
            prop_assert!(v.errors.is_empty(), "{:?}", v.errors);
        }
    }

    #[test]
    fn empty_transcript_scores_0(text in prop_oneof![chinese(), english()], voice in any::<bool>()) {
        let mode = if voice { Mode::Voice } else { Mode::Text };
        if let Ok(reference) = Reference::new(&text, None) {
            let v = check(&reference, &Transcript::new(""), mode).unwrap();
            prop_assert_eq!(v.accuracy, 0.0);
            prop_assert_eq!(v.correct, 0);
            // Every unit is reported missing, once, line by line.
            let missing: usize = v.errors.iter().map(|e| match reference.lang() {
                Lang::Zh => e.expected.chars().filter(|c| !c.is_whitespace()).count(),
                Lang::En => e.expected.split_whitespace().count(),
            }).sum();
            prop_assert_eq!(missing, v.units);
            prop_assert_eq!(v.errors.len(), reference.lines().len());
        }
    }

    #[test]
    fn accuracy_stays_in_range(reference in any::<String>(), transcript in any::<String>(), voice in any::<bool>()) {
        let mode = if voice { Mode::Voice } else { Mode::Text };
        if let Ok(v) = check_text(&reference, &transcript, mode, None) {
            prop_assert!((0.0..=100.0).contains(&v.accuracy));
            prop_assert!(v.correct <= v.units);
            for e in &v.errors {
                prop_assert!(e.line >= 1 && e.line <= v.lines.len());
            }
        }
    }

    #[test]
    fn accuracy_stays_in_range_for_near_misses(reference in chinese(), transcript in chinese(), voice in any::<bool>()) {
        let mode = if voice { Mode::Voice } else { Mode::Text };
        if let Ok(v) = check_text(&reference, &transcript, mode, None) {
            prop_assert!((0.0..=100.0).contains(&v.accuracy));
            let line_total: usize = v.lines.iter().map(|l| l.correct).sum();
            prop_assert_eq!(line_total, v.correct);
        }
    }

    #[test]
    fn normalization_is_idempotent(text in prop_oneof![chinese(), english(), any::<String>()]) {
        for lang in [Lang::Zh, Lang::En] {
            let once = normalize(&text, lang);
            prop_assert_eq!(normalize(&once, lang), once.clone(), "{:?}", text);
        }
    }
}
