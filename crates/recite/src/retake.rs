//! Re-takes of one unclear line. When the fair verdict could not tell
//! whether a line was right (an `uncertain` error: a re-ask), a teacher asks
//! for that line again — not the whole text. The child says the line alone;
//! that take is checked against the line alone, and [`merge_line`] folds it
//! into the same attempt's verdict:
//!
//! * an unclear stretch the take says right is **accepted** — the error is
//!   removed and its units count as correct;
//! * where the take has a certain error, the unclear stretch becomes that
//!   **certain error** (now the child's, told and counted as a pattern);
//! * where the take is unclear again, the stretch **stays uncertain**: one
//!   re-take per line, never a loop;
//! * everything else — other lines, and the parts of this line already
//!   judged — is left exactly as it was (a re-ask only settles what was
//!   unclear).
//!
//! Accuracy and the pass are recomputed from the merged count. Recording
//! the merge (the attempt's row updated in place under the same id, what it
//! said before kept in `recite_retakes`, new certain errors counted into the
//! patterns, the review schedule graded again) is
//! [`recording::record_retake`].

pub mod recording;

use crate::verdict::{accuracy, ErrorType, RecitationError, Verdict};
use crate::{CheckError, Lang, Reference};

pub use recording::{record_retake, taken_lines, RetakeAttempt, RETAKES_PER_LINE};

/// The lines (1-based, ascending) with something to say again.
pub fn unclear_lines(errors: &[RecitationError]) -> Vec<usize> {
    let mut lines: Vec<usize> = errors
        .iter()
        .filter(|e| e.uncertain)
        .map(|e| e.line)
        .collect();
    lines.sort_unstable();
    lines.dedup();
    lines
}

/// The reference a re-take of `line` (1-based) is checked against: that
/// line alone, in the material's language.
pub fn line_reference(reference: &Reference, line: usize) -> Result<Reference, CheckError> {
    let text = reference
        .lines()
        .get(line.wrapping_sub(1))
        .map(|l| l.text.clone())
        .ok_or_else(|| {
            CheckError::Invalid(format!(
                "the text has {} lines; there is no line {line}",
                reference.lines().len()
            ))
        })?;
    Reference::new(&text, Some(reference.lang()))
}

/// How many reference units an error covers (an insertion: none).
fn units_of(e: &RecitationError, lang: Lang) -> usize {
    match e.error_type {
        ErrorType::Insertion | ErrorType::Order => 0,
        ErrorType::Omission | ErrorType::Substitution => match lang {
            Lang::Zh => e.expected.chars().filter(|c| !c.is_whitespace()).count(),
            Lang::En => e.expected.split_whitespace().count(),
        },
    }
}

/// The units of the line an error sits on: `offset ..` its units (an
/// insertion, the unit it stands before).
fn stretch(e: &RecitationError, lang: Lang) -> std::ops::Range<usize> {
    e.offset..e.offset + units_of(e, lang).max(1)
}

fn overlaps(a: &std::ops::Range<usize>, b: &std::ops::Range<usize>) -> bool {
    a.start < b.end && b.start < a.end
}

/// Folds `take` — the verdict on a re-take of `line` (1-based), checked
/// against that line alone (its errors are on line 1) — into `before`, the
/// attempt's verdict (see the module documentation). Pure.
pub fn merge_line(before: &Verdict, line: usize, take: &Verdict) -> Verdict {
    let lang = before.lang;
    let mut merged = before.clone();
    let mut errors: Vec<RecitationError> = Vec::with_capacity(before.errors.len());
    let mut used = vec![false; take.errors.len()];
    // Units gained (accepted) and lost (a take error wider than the unclear stretch).
    let (mut gained, mut lost) = (0usize, 0usize);
    for e in &before.errors {
        if !(e.uncertain && e.line == line) {
            errors.push(e.clone());
            continue;
        }
        let here = stretch(e, lang);
        let heard: Vec<usize> = take
            .errors
            .iter()
            .enumerate()
            .filter(|(_, t)| overlaps(&stretch(t, lang), &here))
            .map(|(i, _)| i)
            .collect();
        let certain: Vec<usize> = heard
            .iter()
            .copied()
            .filter(|&i| !take.errors[i].uncertain)
            .collect();
        if heard.is_empty() {
            // Said right this time: accepted.
            gained += units_of(e, lang);
        } else if certain.is_empty() {
            // Unclear again: it stays a request, never asked a second time.
            errors.push(e.clone());
        } else {
            // The child's error after all, as the take has it.
            gained += units_of(e, lang);
            for i in certain {
                if std::mem::replace(&mut used[i], true) {
                    continue;
                }
                let mut t = take.errors[i].clone();
                t.line = line;
                t.uncertain = false;
                lost += units_of(&t, lang);
                errors.push(t);
            }
        }
    }
    // Reading order: by line, then place in the line (stable for ties).
    errors.sort_by_key(|e| (e.line, e.offset));
    merged.errors = errors;
    merged.correct = (before.correct + gained)
        .saturating_sub(lost)
        .min(before.units);
    merged.accuracy = accuracy(merged.correct, merged.units);
    if let Some(score) = merged.lines.iter_mut().find(|l| l.line == line) {
        score.correct = (score.correct + gained)
            .saturating_sub(lost)
            .min(score.units);
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{check, Mode, Transcript};

    const POEM: &str = "床前明月光，疑是地上霜。举头望明月，低头思故乡。";

    /// The attempt as recorded: 霜 heard as 光 with low confidence (a
    /// re-ask on line 2), 头 said as 偷 in line 3 (heard clearly: an error).
    fn attempt() -> (Reference, Verdict) {
        let r = Reference::new(POEM, None).unwrap();
        let heard = "床前明月光，疑是地上光。举偷望明月，低头思故乡。";
        let mut conf = vec![0.99_f32; heard.chars().count()];
        conf[10] = 0.3;
        let v = check(&r, &Transcript::with_confidences(heard, conf), Mode::Voice).unwrap();
        assert_eq!(unclear_lines(&v.errors), vec![2], "{:?}", v.errors);
        assert!(v.errors.iter().any(|e| e.line == 3 && !e.uncertain));
        (r, v)
    }

    fn take(r: &Reference, line: usize, heard: &str, unsure_at: Option<usize>) -> Verdict {
        let lr = line_reference(r, line).unwrap();
        let mut conf = vec![0.99_f32; heard.chars().count()];
        if let Some(i) = unsure_at {
            conf[i] = 0.3;
        }
        check(&lr, &Transcript::with_confidences(heard, conf), Mode::Voice).unwrap()
    }

    #[test]
    fn a_take_said_right_removes_the_unclear_span() {
        let (r, before) = attempt();
        let after = merge_line(&before, 2, &take(&r, 2, "疑是地上霜", None));
        assert!(
            after.errors.iter().all(|e| e.line != 2),
            "{:?}",
            after.errors
        );
        assert_eq!(after.correct, before.correct + 1);
        assert_eq!(after.accuracy, accuracy(before.correct + 1, 20));
        assert_eq!(after.lines[1].correct, 5);
        assert!(!before.passed(95.0) && after.passed(95.0));
        // Line 3's error is untouched.
        let line3 = |v: &Verdict| -> Vec<RecitationError> {
            v.errors.iter().filter(|e| e.line == 3).cloned().collect()
        };
        assert_eq!(line3(&after), line3(&before));
        assert_eq!(after.lines[2], before.lines[2]);
    }

    #[test]
    fn an_error_in_the_take_makes_the_span_a_certain_error() {
        let (r, before) = attempt();
        let after = merge_line(&before, 2, &take(&r, 2, "疑是地上光", None));
        let line2: Vec<_> = after.errors.iter().filter(|e| e.line == 2).collect();
        assert_eq!(line2.len(), 1, "{:?}", after.errors);
        assert!(!line2[0].uncertain);
        assert_eq!(line2[0].error_type, ErrorType::Substitution);
        assert_eq!(
            (
                line2[0].offset,
                line2[0].expected.as_str(),
                line2[0].actual.as_str()
            ),
            (4, "霜", "光")
        );
        assert_eq!(after.correct, before.correct);
        assert_eq!(after.accuracy, before.accuracy);
        // Reading order kept.
        let lines: Vec<usize> = after.errors.iter().map(|e| e.line).collect();
        assert_eq!(lines, vec![2, 3]);
    }

    #[test]
    fn a_take_unclear_again_stays_uncertain() {
        let (r, before) = attempt();
        let after = merge_line(&before, 2, &take(&r, 2, "疑是地上光", Some(4)));
        assert_eq!(after, before);
    }

    #[test]
    fn a_take_missing_the_stretch_is_an_omission_and_costs_it() {
        let (r, before) = attempt();
        let after = merge_line(&before, 2, &take(&r, 2, "疑是地上", None));
        let line2: Vec<_> = after.errors.iter().filter(|e| e.line == 2).collect();
        assert_eq!(line2.len(), 1);
        assert_eq!(line2[0].error_type, ErrorType::Omission);
        assert!(!line2[0].uncertain);
        assert_eq!(after.correct, before.correct);
    }

    #[test]
    fn other_lines_and_a_line_with_nothing_unclear_are_untouched() {
        let (r, before) = attempt();
        // A take of line 3 (nothing unclear there) changes nothing, even right.
        assert_eq!(
            merge_line(&before, 3, &take(&r, 3, "举头望明月", None)),
            before
        );
        // A slip elsewhere on line 2 in the take does not reopen what was judged.
        let after = merge_line(&before, 2, &take(&r, 2, "一是地上霜", None));
        assert!(after.errors.iter().all(|e| e.line != 2));
    }

    #[test]
    fn a_line_past_the_end_is_refused_in_plain_words() {
        let r = Reference::new(POEM, None).unwrap();
        let err = line_reference(&r, 5).unwrap_err();
        assert!(err.to_string().contains("no line 5"), "{err}");
        assert!(line_reference(&r, 0).is_err());
    }

    #[test]
    fn an_english_take_counts_words() {
        let r = Reference::new(
            "Twinkle, twinkle, little star. How I wonder what you are.",
            None,
        )
        .unwrap();
        let heard = "twinkle twinkle little car how i wonder what you are";
        let mut conf = vec![0.99_f32; heard.chars().count()];
        for c in conf.iter_mut().take(26).skip(23) {
            *c = 0.3;
        }
        let before = check(&r, &Transcript::with_confidences(heard, conf), Mode::Voice).unwrap();
        assert_eq!(
            unclear_lines(&before.errors),
            vec![1],
            "{:?}",
            before.errors
        );
        let lr = line_reference(&r, 1).unwrap();
        let t = check(
            &lr,
            &Transcript::new("twinkle twinkle little star"),
            Mode::Voice,
        )
        .unwrap();
        let after = merge_line(&before, 1, &t);
        assert!(after.errors.is_empty(), "{:?}", after.errors);
        assert_eq!(after.correct, after.units);
        assert!(after.is_perfect());
    }
}
