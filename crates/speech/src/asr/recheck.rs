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
//! tokens after it): the rest is the same text, scored the same. The text
//! before the stretch is decoded once per batch of variants and only
//! extended for the next one, and a variant already far worse than what
//! was heard is not scored to its end ([`SURE_BELOW`]).
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
        prefix.extend(
            ctx.tokenize(MANDARIN_PROMPT, MAX_TEXT_TOKENS)
                .map_err(whisper)?,
        );
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
    let mut out = vec![0.0; variants.len()];
    // Where each variant starts to differ; variants are scored in that order
    // so the context before the stretch is decoded once and then only extended.
    let mut jobs: Vec<(usize, Vec<WhisperTokenId>, usize)> = Vec::with_capacity(variants.len());
    for (i, variant) in variants.iter().enumerate() {
        let v = tokens_of(variant)?;
        let same_start = h.iter().zip(&v).take_while(|(a, b)| a == b).count();
        jobs.push((i, v, same_start));
    }
    jobs.sort_by_key(|j| j.2);
    let mut cache = Cache::default();
    for (i, v, same_start) in jobs {
        if same_start == h.len() && same_start == v.len() {
            continue; // the same text: 0
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
        let mut context = prefix.clone();
        context.extend_from_slice(&h[..same_start]);
        let first = cache.decode_up_to(state, &context, threads)?;
        let heard_lp = stretch_log_prob(
            state,
            &first,
            h_stretch,
            context.len(),
            threads,
            f64::NEG_INFINITY,
        )?;
        let variant_lp = stretch_log_prob(
            state,
            &first,
            v_stretch,
            context.len(),
            threads,
            heard_lp + SURE_BELOW,
        )?;
        out[i] = variant_lp - heard_lp;
    }
    Ok(out)
}

/// A variant already this many nats worse than the heard text is not
/// scored further: a dropped line is sure to stay the child's error
/// (measured −30 to −65 in full), and scoring the rest of it token by
/// token cost up to half a second. Its delta is reported as where scoring
/// stopped, below this. Every margin the fairness rules use (≤ 8) lies
/// above it.
pub(crate) const SURE_BELOW: f64 = -20.0;

/// The decoded context the key/value cache holds (positions
/// `0..tokens.len()`), and the next-token distribution after it.
#[derive(Default)]
struct Cache {
    tokens: Vec<WhisperTokenId>,
    after: Option<LogProbs>,
}

impl Cache {
    /// Makes the cache hold `context` and returns the distribution after
    /// it, decoding only what differs from what the cache held.
    fn decode_up_to(
        &mut self,
        state: &mut WhisperState,
        context: &[WhisperTokenId],
        threads: usize,
    ) -> Result<LogProbs, AsrError> {
        let whisper = |e: whisper_rs::WhisperError| AsrError::Whisper(e.to_string());
        if let (true, Some(after)) = (self.tokens == context, &self.after) {
            return Ok(after.clone());
        }
        let common = self
            .tokens
            .iter()
            .zip(context)
            .take_while(|(a, b)| a == b)
            .count();
        // The last token is always decoded on its own: whisper.cpp fills
        // only the last row of a batch's logits, and whisper-rs's
        // `get_logits` reads the first row — after a batch of several
        // tokens that row is left over from an earlier decode.
        let last = context.len().saturating_sub(1);
        let from = common.min(last);
        if last > from {
            state
                .decode(&context[from..last], from, threads)
                .map_err(whisper)?;
        }
        state
            .decode(&context[last..], last, threads)
            .map_err(whisper)?;
        let after = LogProbs::of(state.get_logits().map_err(whisper)?);
        self.tokens = context.to_vec();
        self.after = Some(after.clone());
        Ok(after)
    }
}

/// Sum of log-probabilities of `stretch` following the decoded context
/// (`n_past` tokens; `first` is the distribution after them). Decodes token
/// by token from `n_past`, which rewinds whatever the cache held past it.
/// Stops early, returning the sum so far, once it falls below `stop_below`
/// (the rest could only lower it further).
fn stretch_log_prob(
    state: &mut WhisperState,
    first: &LogProbs,
    stretch: &[WhisperTokenId],
    n_past: usize,
    threads: usize,
    stop_below: f64,
) -> Result<f64, AsrError> {
    let mut sum = 0f64;
    let mut dist: Option<LogProbs> = None;
    for (k, &t) in stretch.iter().enumerate() {
        sum += dist.as_ref().unwrap_or(first).of_token(t);
        if sum < stop_below {
            break;
        }
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
#[derive(Clone)]
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
