//! The transcript that records a voice verdict: what was heard with each
//! accepted difference put right, each error's characters trusted and each
//! re-asked difference's untrusted, so the recitation checker, checking it
//! again when the attempt is stored, gives exactly the verdict the child saw.

use deskmate_recite::{ErrorType, RecitationError};

use super::rechecking::spoken_form;
use crate::asr::{Lang, Transcript};
use crate::decision::Decision;

/// The transcript that records the decisions: each accepted difference put
/// right (as the material says it, trusted), the heard characters of each
/// error trusted and of each re-asked difference untrusted, an unsure gap
/// where a re-asked omission belongs. Edits run from the end of the text
/// so earlier positions stay valid; gaps already placed move with them.
/// `differences` are in the material's order, as the checker lists them.
pub(super) fn recorded_transcript(
    heard: &Transcript,
    plain: &deskmate_recite::Transcript,
    differences: &[RecitationError],
    decisions: &[Decision],
) -> deskmate_recite::Transcript {
    let mut chars: Vec<char> = plain.text.chars().collect();
    let mut trust: Vec<f32> = plain
        .confidences
        .clone()
        .filter(|c| c.len() == chars.len())
        .unwrap_or_else(|| vec![1.0; chars.len()]);
    let mut gaps: Vec<usize> = Vec::new();
    let mut order: Vec<usize> = (0..differences.len().min(decisions.len())).collect();
    // From the end of the text; differences at one place (omissions of
    // 鹅，鹅，曲 all heard between 虚 and 像) from the last in the material's
    // order, each put in front of the one after it, so they keep that order.
    order.sort_by_key(|&i| {
        let r = &differences[i].heard;
        std::cmp::Reverse((r.start, r.end, i))
    });
    for i in order {
        let (e, decision) = (&differences[i], decisions[i]);
        let r = e.heard.start.min(chars.len())..e.heard.end.min(chars.len());
        match decision {
            Decision::Accept if e.error_type != ErrorType::Order => {
                let right = match e.error_type {
                    ErrorType::Insertion => String::new(),
                    _ => spoken_form(&e.expected, heard.lang),
                };
                let with: Vec<char> = match heard.lang {
                    Lang::Zh => right.chars().collect(),
                    Lang::En => format!(" {right} ").chars().collect(),
                };
                let shift = with.len() as isize - r.len() as isize;
                for g in gaps.iter_mut() {
                    *g = g.saturating_add_signed(shift);
                }
                trust.splice(r.clone(), std::iter::repeat_n(1.0, with.len()));
                chars.splice(r, with);
            }
            Decision::Accept | Decision::Error => {
                for t in trust.iter_mut().take(r.end).skip(r.start) {
                    *t = 1.0;
                }
            }
            Decision::ReAsk(_) => {
                if r.is_empty() {
                    gaps.push(r.start);
                }
                for t in trust.iter_mut().take(r.end).skip(r.start) {
                    *t = 0.0;
                }
            }
        }
    }
    if heard.lang == Lang::En {
        // Words kept apart by single spaces, none at either end.
        let mut kept_chars = Vec::with_capacity(chars.len());
        let mut kept_trust = Vec::with_capacity(chars.len());
        let mut new_index = Vec::with_capacity(chars.len() + 1);
        for (c, t) in chars.iter().zip(&trust) {
            new_index.push(kept_chars.len());
            let dup =
                c.is_whitespace() && kept_chars.last().is_none_or(|p: &char| p.is_whitespace());
            if !dup {
                kept_chars.push(*c);
                kept_trust.push(*t);
            }
        }
        new_index.push(kept_chars.len());
        for g in gaps.iter_mut() {
            *g = new_index.get(*g).copied().unwrap_or(kept_chars.len());
        }
        if kept_chars.last().is_some_and(|c| c.is_whitespace()) {
            kept_chars.pop();
            kept_trust.pop();
        }
        chars = kept_chars;
        trust = kept_trust;
    }
    let n = chars.len();
    let mut t =
        deskmate_recite::Transcript::with_confidences(chars.into_iter().collect::<String>(), trust);
    t.unsure_gaps = gaps.into_iter().map(|g| g.min(n)).collect();
    t
}
