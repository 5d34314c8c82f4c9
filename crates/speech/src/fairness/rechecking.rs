//! Re-examining each difference against the recording: the variants of
//! the heard text with differences put right — alone, with their run of
//! neighbouring mishearings, and with the whole material — and their
//! scores from whisper's decoder ([`super::Fit`]).

use deskmate_recite::{ErrorType, Verdict};

use super::{Fit, Rechecked};
use crate::asr::{Lang, Transcript};

/// Scores every substitution, omission and insertion against the
/// recording: the transcript with that one difference put right against
/// the transcript as heard (`alone`). Differences heard next to each other
/// (only spaces between) form a run: a mishearing covers the audio it was
/// heard on, so the right text only fits once the misheard words around it
/// are put right with it (鹅，鹅，鹅 heard as 哩哩哩: one 鹅 among 哩s reads
/// worse than either; "wagerjack" for "water. Jack": Jack fits only once
/// "wager" is "water"). Within a run, each difference is also scored in
/// that context: the whole run put right against the whole run put right
/// except that difference (`in_run`). A real slip fits worse in context
/// too, while a big mishearing beside it cannot carry it along. Last, each
/// is scored in the context of the whole material (`in_material`): all
/// differences put right against all but that one — the material's text
/// scored against the audio, one place at a time. Order errors are left
/// alone (moving a block is not a mishearing).
pub(super) fn recheck(
    verdict: &Verdict,
    heard: &Transcript,
    fit: Fit<'_>,
    needed: &[bool],
    material: bool,
) -> Vec<Rechecked> {
    let mut fixes: Vec<Fix> = Vec::new();
    for (i, e) in verdict.errors.iter().enumerate() {
        if e.error_type == ErrorType::Order {
            continue;
        }
        let right = match e.error_type {
            ErrorType::Insertion => String::new(),
            _ => spoken_form(&e.expected, heard.lang),
        };
        fixes.push(Fix {
            error: i,
            heard: e.heard.clone(),
            right,
            needed: needed.get(i).copied().unwrap_or(true),
        });
    }
    fixes.sort_by_key(|f| (f.heard.start, f.heard.end));
    let mut out: Vec<Rechecked> = fixes
        .iter()
        .filter(|f| f.needed)
        .filter_map(|f| {
            let e = verdict.errors.get(f.error)?;
            Some(Rechecked {
                error: f.error,
                line: e.line,
                error_type: e.error_type,
                expected: e.expected.clone(),
                heard: e.actual.clone(),
                delta: f64::NEG_INFINITY,
                alone: None,
                in_run: None,
                in_material: None,
            })
        })
        .collect();
    let scored = |base: &str, texts: Vec<String>| match fit(base, texts.clone()) {
        Ok(d) if d.len() == texts.len() => Some(d),
        Ok(_) => None,
        Err(e) => {
            tracing::warn!(
                "could not re-examine the recording ({e}); keeping the differences as heard"
            );
            None
        }
    };
    // Each difference alone.
    let singles: Vec<(usize, String)> = fixes
        .iter()
        .filter(|f| f.needed)
        .filter_map(|f| Some((f.error, put_right(&heard.text, &[f], heard.lang)?)))
        .collect();
    if !singles.is_empty() {
        let Some(deltas) = scored(&heard.text, singles.iter().map(|s| s.1.clone()).collect())
        else {
            return Vec::new();
        };
        for ((error, _), delta) in singles.iter().zip(deltas) {
            if let Some(r) = out.iter_mut().find(|r| r.error == *error) {
                r.alone = Some(delta);
            }
        }
    }
    // Each difference in the context of a group put right (a run, then the
    // whole material): how much better the group fits with it put right.
    let mut in_context = |group: &[&Fix], to_material: bool| {
        if group.len() < 2 || !group.iter().any(|f| f.needed) {
            return;
        }
        let Some(all) = put_right(&heard.text, group, heard.lang) else {
            return;
        };
        let mut leave_one_out: Vec<(usize, String)> = Vec::new();
        for (k, f) in group.iter().enumerate().filter(|(_, f)| f.needed) {
            let others: Vec<&Fix> = group
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != k)
                .map(|(_, f)| *f)
                .collect();
            if let Some(text) = put_right(&heard.text, &others, heard.lang) {
                leave_one_out.push((f.error, text));
            }
        }
        let Some(deltas) = scored(&all, leave_one_out.iter().map(|s| s.1.clone()).collect()) else {
            return;
        };
        for ((error, _), delta) in leave_one_out.iter().zip(deltas) {
            if let Some(r) = out.iter_mut().find(|r| r.error == *error) {
                if to_material {
                    r.in_material = Some(-delta);
                } else {
                    r.in_run = Some(-delta);
                }
            }
        }
    };
    let groups: Vec<Vec<&Fix>> = runs(&fixes, &heard.text)
        .into_iter()
        .map(|run| run.iter().collect())
        .collect();
    for run in &groups {
        in_context(run, false);
    }
    if material && groups.len() > 1 {
        let everything: Vec<&Fix> = fixes.iter().collect();
        in_context(&everything, true);
    }
    for r in &mut out {
        r.delta = r.best(false).unwrap_or(f64::NEG_INFINITY);
    }
    out.sort_by_key(|r| r.error);
    out
}

/// One difference and how to put it right in the heard text.
struct Fix {
    error: usize,
    /// Where it was heard (chars of the transcript's text).
    heard: std::ops::Range<usize>,
    /// The right text there (empty for an insertion).
    right: String,
    /// Whether it needs a score (the settings may decide it without).
    needed: bool,
}

/// Runs of differences (sorted by position) heard next to each other, with
/// nothing but spaces between.
fn runs<'a>(fixes: &'a [Fix], text: &str) -> Vec<&'a [Fix]> {
    let chars: Vec<char> = text.chars().collect();
    let touch = |a: &std::ops::Range<usize>, b: &std::ops::Range<usize>| {
        b.start <= a.end
            || chars
                .get(a.end..b.start)
                .is_some_and(|gap| gap.iter().all(|c| c.is_whitespace()))
    };
    let mut out = Vec::new();
    let mut start = 0;
    for k in 1..=fixes.len() {
        if k < fixes.len() && touch(&fixes[k - 1].heard, &fixes[k].heard) {
            continue;
        }
        out.push(&fixes[start..k]);
        start = k;
    }
    out
}

/// `text` with `fixes` (sorted by position) put right; None if one does not fit it.
fn put_right<F: std::borrow::Borrow<Fix>>(text: &str, fixes: &[F], lang: Lang) -> Option<String> {
    let mut out = text.to_string();
    for f in fixes.iter().rev() {
        let f = f.borrow();
        out = corrected(&out, f.heard.clone(), &f.right, lang)?;
    }
    Some(out)
}

/// The material's words as the transcript writes them: hanzi only for
/// Mandarin; lower-case words for English.
pub(super) fn spoken_form(text: &str, lang: Lang) -> String {
    match lang {
        Lang::Zh => text
            .chars()
            .filter(|c| crate::asr::units::is_hanzi(*c))
            .collect(),
        Lang::En => text
            .split(|c: char| !(c.is_alphanumeric() || c == '\''))
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect::<Vec<_>>()
            .join(" "),
    }
}

/// `text` with the chars in `range` replaced by `with` (words kept apart by
/// single spaces in English). None when the range does not fit the text.
pub(super) fn corrected(
    text: &str,
    range: std::ops::Range<usize>,
    with: &str,
    lang: Lang,
) -> Option<String> {
    let chars: Vec<char> = text.chars().collect();
    if range.start > range.end || range.end > chars.len() {
        return None;
    }
    let before: String = chars[..range.start].iter().collect();
    let after: String = chars[range.end..].iter().collect();
    Some(match lang {
        Lang::Zh => format!("{before}{with}{after}"),
        Lang::En => [before.trim(), with.trim(), after.trim()]
            .into_iter()
            .filter(|p| !p.is_empty())
            .collect::<Vec<_>>()
            .join(" "),
    })
}
