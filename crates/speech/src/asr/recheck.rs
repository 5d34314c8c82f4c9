//! Re-examining a recording against texts it might contain. After whisper
//! has transcribed a recording, its encoded audio stays loaded on the worker,
//! and whisper's decoder can tell how likely any other text is for that same
//! audio (teacher forcing: the text's tokens are fed in and the probability
//! of each is read off). The fairness rules use this to ask, for each
//! difference from the material, "does the audio fit the right text about as
//! well as what was heard?" — if so, the recogniser cannot tell, and the
//! child is asked to say it again instead of being blamed.
//!
//! This is not prompting: the transcript was decoded freely, without the
//! material; the material is only *scored* afterwards, one difference at a
//! time, so a real mistake (the audio does not fit the right text) stays a
//! mistake.

use whisper_rs::{WhisperContext, WhisperState, WhisperTokenId};

use super::{AsrError, Lang, MANDARIN_PROMPT};

/// Most tokens a scored text may have (whisper's decoder holds 448).
const MAX_TEXT_TOKENS: usize = 400;

/// Sums of token log-probabilities of `texts` given the audio encoded in
/// `state`, each text followed by the end-of-text token. Texts sharing a
/// beginning share its decoding (the key/value cache is rewound, not
/// rebuilt), so scoring a transcript and a few variants of it costs about
/// one decoding of the transcript plus the tails of the variants.
pub(crate) fn score_texts(
    ctx: &WhisperContext,
    state: &mut WhisperState,
    lang: Lang,
    texts: &[String],
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
    state.decode(&prefix, 0, threads).map_err(whisper)?;
    // decoded[k] is the k-th text token now in the cache; next[k] the
    // log-probabilities of the token after decoded[..k].
    let mut decoded: Vec<WhisperTokenId> = Vec::new();
    let mut next: Vec<Vec<f32>> = vec![log_softmax(state.get_logits().map_err(whisper)?)];
    let eot = ctx.token_eot();
    let mut out = Vec::with_capacity(texts.len());
    for text in texts {
        let mut tokens = if text.trim().is_empty() {
            Vec::new()
        } else {
            ctx.tokenize(text, MAX_TEXT_TOKENS + 1).map_err(whisper)?
        };
        if tokens.len() > MAX_TEXT_TOKENS {
            return Err(AsrError::Whisper(format!(
                "a text of {} tokens is too long to re-examine",
                tokens.len()
            )));
        }
        tokens.push(eot);
        let shared = decoded
            .iter()
            .zip(&tokens)
            .take_while(|(a, b)| a == b)
            .count();
        decoded.truncate(shared);
        next.truncate(shared + 1);
        let mut sum = 0f64;
        for (k, &t) in tokens.iter().enumerate() {
            let Some(dist) = next.get(k) else {
                return Err(AsrError::Whisper("re-examining lost its place".into()));
            };
            sum += f64::from(dist.get(t as usize).copied().unwrap_or(f32::NEG_INFINITY));
            if k + 1 < tokens.len() && k + 1 >= next.len() {
                state
                    .decode(&[t], prefix.len() + k, threads)
                    .map_err(whisper)?;
                decoded.push(t);
                next.push(log_softmax(state.get_logits().map_err(whisper)?));
            }
        }
        out.push(sum);
    }
    Ok(out)
}

/// Natural-log probabilities from logits.
fn log_softmax(logits: &[f32]) -> Vec<f32> {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let sum: f32 = logits.iter().map(|&l| (l - max).exp()).sum();
    let log_sum = max + sum.ln();
    logits.iter().map(|&l| l - log_sum).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_softmax_sums_to_one() {
        let p = log_softmax(&[1.0, 2.0, 3.0]);
        let total: f32 = p.iter().map(|l| l.exp()).sum();
        assert!((total - 1.0).abs() < 1e-5);
        assert!(p[2] > p[1] && p[1] > p[0]);
    }
}
