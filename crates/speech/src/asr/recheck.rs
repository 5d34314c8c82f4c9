//! Re-examining a recording against texts it might contain. After whisper
//! has transcribed a recording, its encoded audio stays loaded on the worker,
//! and whisper's decoder can tell how likely any other text is for that same
//! audio (teacher forcing: the text's tokens are fed in and the probability
//! of each is read off). The fairness rules use this to ask, for each
//! difference from the material, "does the audio fit the right text about as
//! well as what was heard?" — if so, the recogniser cannot tell, and the
//! child is asked to say it again instead of being blamed.
//!
//! Only the stretch where a variant differs is compared (plus a couple of
//! tokens after it): the rest is the same text, scored the same.
//!
//! This is not prompting: the transcript was decoded freely, without the
//! material; the material is only *scored* afterwards, one difference at a
//! time, so a real mistake (the audio does not fit the right text) stays a
//! mistake.

use whisper_rs::{WhisperContext, WhisperState, WhisperTokenId};

use super::{AsrError, Lang, MANDARIN_PROMPT};

/// Most tokens a scored text may have (whisper's decoder holds 448).
const MAX_TEXT_TOKENS: usize = 400;

/// Tokens after a difference that are scored with it: how well the text
/// picks up again after the change belongs to the change.
const AFTER: usize = 2;

/// For each variant of `heard`, how much better (positive) or worse
/// (negative) the audio encoded in `state` fits it than `heard`, in nats:
/// the difference of the token log-probabilities over the stretch where the
/// two differ (plus [`AFTER`] tokens). Whatever comes before the stretch is
/// decoded once in one batch; only the stretch is decoded token by token,
/// for the heard text and then, rewinding the key/value cache, the variant.
pub(crate) fn deltas(
    ctx: &WhisperContext,
    state: &mut WhisperState,
    lang: Lang,
    heard: &str,
    variants: &[String],
    threads: usize,
) -> Result<Vec<f64>, AsrError> {
    let whisper = |e: whisper_rs::WhisperError| AsrError::Whisper(e.to_string());
    let mut prefix: Vec<WhisperTokenId> = Vec::new();
    if lang == Lang::Zh {
        // The same context the transcript was decoded with.
        prefix.push(ctx.token_prev());
        prefix.extend(ctx.tokenize(MANDARIN_PROMPT, MAX_TEXT_TOKENS).map_err(whisper)?);
    }
    let lang_id = whisper_rs::get_lang_id(lang.code())
        .ok_or_else(|| AsrError::Whisper(format!("whisper has no language {}", lang.code())))?;
    prefix.extend([
        ctx.token_sot(),
        ctx.token_lang(lang_id),
        ctx.token_transcribe(),
        ctx.token_not(),
    ]);
    let eot = ctx.token_eot();
    let tokens_of = |text: &str| -> Result<Vec<WhisperTokenId>, AsrError> {
        let mut t = if text.trim().is_empty() {
            Vec::new()
        } else {
            ctx.tokenize(text, MAX_TEXT_TOKENS + 1).map_err(whisper)?
        };
        if t.len() > MAX_TEXT_TOKENS {
            return Err(AsrError::Whisper(format!(
                "a text of {} tokens is too long to re-examine",
                t.len()
            )));
        }
        t.push(eot);
        Ok(t)
    };
    let h = tokens_of(heard)?;
    let mut out = Vec::with_capacity(variants.len());
    for variant in variants {
        let v = tokens_of(variant)?;
        let same_start = h.iter().zip(&v).take_while(|(a, b)| a == b).count();
        if same_start == h.len() && same_start == v.len() {
            out.push(0.0);
            continue;
        }
        let room = (h.len() - same_start).min(v.len() - same_start);
        let same_end = h
            .iter()
            .rev()
            .zip(v.iter().rev())
            .take(room)
            .take_while(|(a, b)| a == b)
            .count();
        let after = AFTER.min(same_end);
        let h_stretch = &h[same_start..h.len() - same_end + after];
        let v_stretch = &v[same_start..v.len() - same_end + after];
        // Everything before the stretch, in one batch.
        let mut context = prefix.clone();
        context.extend_from_slice(&h[..same_start]);
        state.decode(&context, 0, threads).map_err(whisper)?;
        let first = LogProbs::of(state.get_logits().map_err(whisper)?);
        let heard_lp = stretch_log_prob(state, &first, h_stretch, context.len(), threads)?;
        let variant_lp = stretch_log_prob(state, &first, v_stretch, context.len(), threads)?;
        out.push(variant_lp - heard_lp);
    }
    Ok(out)
}

/// Sum of log-probabilities of `stretch` following the decoded context
/// (`n_past` tokens; `first` is the distribution after them). Decodes token
/// by token from `n_past`, which rewinds whatever the cache held past it.
fn stretch_log_prob(
    state: &mut WhisperState,
    first: &LogProbs,
    stretch: &[WhisperTokenId],
    n_past: usize,
    threads: usize,
) -> Result<f64, AsrError> {
    let mut sum = 0f64;
    let mut dist: Option<LogProbs> = None;
    for (k, &t) in stretch.iter().enumerate() {
        sum += dist.as_ref().unwrap_or(first).of_token(t);
        if k + 1 < stretch.len() {
            state
                .decode(&[t], n_past + k, threads)
                .map_err(|e| AsrError::Whisper(e.to_string()))?;
            dist = Some(LogProbs::of(
                state
                    .get_logits()
                    .map_err(|e| AsrError::Whisper(e.to_string()))?,
            ));
        }
    }
    Ok(sum)
}

/// A next-token distribution: the logits and their log-sum-exp.
struct LogProbs {
    logits: Vec<f32>,
    log_sum: f64,
}

impl LogProbs {
    fn of(logits: &[f32]) -> Self {
        let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let sum: f64 = logits.iter().map(|&l| f64::from(l - max).exp()).sum();
        Self {
            logits: logits.to_vec(),
            log_sum: f64::from(max) + sum.ln(),
        }
    }

    /// Natural-log probability of `token` (−∞ for an unknown token).
    fn of_token(&self, token: WhisperTokenId) -> f64 {
        usize::try_from(token)
            .ok()
            .and_then(|i| self.logits.get(i))
            .map_or(f64::NEG_INFINITY, |&l| f64::from(l) - self.log_sum)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_probs_sum_to_one() {
        let p = LogProbs::of(&[1.0, 2.0, 3.0]);
        let total: f64 = (0..3).map(|t| p.of_token(t).exp()).sum();
        assert!((total - 1.0).abs() < 1e-9);
        assert!(p.of_token(2) > p.of_token(1) && p.of_token(1) > p.of_token(0));
        assert_eq!(p.of_token(7), f64::NEG_INFINITY);
        assert_eq!(p.of_token(-1), f64::NEG_INFINITY);
    }
}
