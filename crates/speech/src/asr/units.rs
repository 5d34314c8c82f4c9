//! Turns whisper's tokens into what the recitation checker compares: one
//! unit per hanzi (Mandarin) or per word (English), each with a confidence
//! and a time span. Whisper's byte-level tokens can split one hanzi over 2–3
//! tokens; their bytes are joined and the character takes the lowest
//! probability among the tokens it came from. Output is in Simplified
//! characters (whisper mixes in Traditional ones).

use std::sync::OnceLock;

use ferrous_opencc::{config::BuiltinConfig, OpenCC};
use serde::{Deserialize, Serialize};

/// The language of the material (and so of the expected speech).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    Zh,
    En,
}

impl Lang {
    pub fn code(self) -> &'static str {
        match self {
            Self::Zh => "zh",
            Self::En => "en",
        }
    }

    pub fn parse(code: &str) -> Option<Self> {
        match code {
            "zh" => Some(Self::Zh),
            "en" => Some(Self::En),
            _ => None,
        }
    }
}

/// One decoded token as whisper reports it.
#[derive(Debug, Clone)]
pub struct TokenPiece {
    pub bytes: Vec<u8>,
    /// Probability of the token (0..1).
    pub p: f32,
    /// Start and end in ms from the clip's start.
    pub start_ms: u32,
    pub end_ms: u32,
}

/// A heard character (Mandarin) or word (English).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HeardUnit {
    pub text: String,
    /// The lowest token probability the unit was built from.
    pub confidence: f32,
    pub start_ms: u32,
    pub end_ms: u32,
}

/// One decoded character with where it came from.
#[derive(Debug, Clone)]
struct HeardChar {
    ch: char,
    confidence: f32,
    start_ms: u32,
    end_ms: u32,
}

fn t2s() -> Option<&'static OpenCC> {
    static CONVERTER: OnceLock<Option<OpenCC>> = OnceLock::new();
    CONVERTER
        .get_or_init(|| OpenCC::from_config(BuiltinConfig::T2s).ok())
        .as_ref()
}

/// Converts Traditional characters to Simplified (unchanged if the
/// converter cannot be built, which only happens if its embedded data is damaged).
pub fn to_simplified(text: &str) -> String {
    match t2s() {
        Some(c) => c.convert(text),
        None => text.to_string(),
    }
}

/// Whether a character is a CJK ideograph (a hanzi).
pub fn is_hanzi(c: char) -> bool {
    matches!(c as u32, 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x2FA1F)
}

/// Decodes the token stream into characters, joining byte fragments.
fn characters(tokens: &[TokenPiece]) -> Vec<HeardChar> {
    let mut out = Vec::new();
    let mut pending: Vec<u8> = Vec::new();
    let mut pending_p = 1.0f32;
    let mut pending_start = 0u32;
    for t in tokens {
        if pending.is_empty() {
            pending_start = t.start_ms;
            pending_p = t.p;
        } else {
            pending_p = pending_p.min(t.p);
        }
        pending.extend_from_slice(&t.bytes);
        // Emit every complete UTF-8 character; keep an incomplete tail.
        let valid_up_to = match std::str::from_utf8(&pending) {
            Ok(s) => s.len(),
            Err(e) if e.error_len().is_some() => {
                // Invalid bytes (not just incomplete): drop them.
                pending.clear();
                continue;
            }
            Err(e) => e.valid_up_to(),
        };
        if valid_up_to == 0 {
            continue;
        }
        let text = String::from_utf8_lossy(&pending[..valid_up_to]).into_owned();
        for ch in text.chars() {
            out.push(HeardChar {
                ch,
                confidence: pending_p,
                start_ms: pending_start,
                end_ms: t.end_ms.max(pending_start),
            });
        }
        pending.drain(..valid_up_to);
        if !pending.is_empty() {
            // The tail belongs to the next character, which starts in this token.
            pending_start = t.start_ms;
            pending_p = t.p;
        }
    }
    out
}

/// Builds the units for `lang`: every hanzi for Mandarin (Latin letters and
/// digits heard in Mandarin become word units too), every word for English.
/// Punctuation and spaces are not units.
pub fn units(tokens: &[TokenPiece], lang: Lang) -> Vec<HeardUnit> {
    let chars = characters(tokens);
    // Normalize to Simplified character by character so confidences stay aligned.
    let chars: Vec<HeardChar> = chars
        .into_iter()
        .flat_map(|c| {
            let s = if is_hanzi(c.ch) {
                to_simplified(&c.ch.to_string())
            } else {
                c.ch.to_string()
            };
            s.chars()
                .map(move |ch| HeardChar { ch, ..c.clone() })
                .collect::<Vec<_>>()
        })
        .collect();
    let mut out: Vec<HeardUnit> = Vec::new();
    let mut word: Option<HeardUnit> = None;
    let flush = |word: &mut Option<HeardUnit>, out: &mut Vec<HeardUnit>| {
        if let Some(w) = word.take() {
            out.push(w);
        }
    };
    for c in chars {
        if lang == Lang::Zh && is_hanzi(c.ch) {
            flush(&mut word, &mut out);
            out.push(HeardUnit {
                text: c.ch.to_string(),
                confidence: c.confidence,
                start_ms: c.start_ms,
                end_ms: c.end_ms,
            });
        } else if c.ch.is_alphanumeric() || (c.ch == '\'' && word.is_some()) {
            match word.as_mut() {
                Some(w) => {
                    w.text.push(c.ch);
                    w.confidence = w.confidence.min(c.confidence);
                    w.end_ms = c.end_ms;
                }
                None => {
                    word = Some(HeardUnit {
                        text: c.ch.to_string(),
                        confidence: c.confidence,
                        start_ms: c.start_ms,
                        end_ms: c.end_ms,
                    })
                }
            }
        } else {
            flush(&mut word, &mut out);
        }
    }
    flush(&mut word, &mut out);
    for u in &mut out {
        if lang == Lang::En {
            u.text = u.text.to_lowercase();
        }
        u.text = u.text.trim_end_matches('\'').to_string();
    }
    out.retain(|u| !u.text.is_empty());
    out
}

/// The units joined as plain text: hanzi run together, words with spaces.
pub fn join(units: &[HeardUnit], lang: Lang) -> String {
    let sep = if lang == Lang::Zh { "" } else { " " };
    let mut s = String::new();
    for (i, u) in units.iter().enumerate() {
        let latin = u
            .text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '\'');
        if i > 0 && (lang == Lang::En || (latin && !sep.is_empty())) {
            s.push(' ');
        }
        s.push_str(&u.text);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tok(bytes: &[u8], p: f32, start: u32, end: u32) -> TokenPiece {
        TokenPiece {
            bytes: bytes.to_vec(),
            p,
            start_ms: start,
            end_ms: end,
        }
    }

    #[test]
    fn byte_fragments_of_one_hanzi_merge_with_the_lowest_probability() {
        let yue = "月".as_bytes(); // 3 bytes
        let tokens = vec![
            tok("明".as_bytes(), 0.98, 0, 300),
            tok(&yue[..2], 0.9, 300, 400),
            tok(&yue[2..], 0.45, 400, 600),
            tok("光，".as_bytes(), 0.97, 600, 900),
        ];
        let u = units(&tokens, Lang::Zh);
        let text: Vec<&str> = u.iter().map(|u| u.text.as_str()).collect();
        assert_eq!(text, ["明", "月", "光"]);
        assert_eq!(u[1].confidence, 0.45);
        assert_eq!((u[1].start_ms, u[1].end_ms), (300, 600));
        assert_eq!(u[2].confidence, 0.97);
    }

    #[test]
    fn traditional_output_becomes_simplified() {
        let tokens = vec![tok("舉頭望明月".as_bytes(), 0.9, 0, 1000)];
        assert_eq!(join(&units(&tokens, Lang::Zh), Lang::Zh), "举头望明月");
        assert_eq!(to_simplified("low頭思故鄉"), "low头思故乡");
    }

    #[test]
    fn english_words_take_their_weakest_token() {
        let tokens = vec![
            tok(b" Twinkle", 0.9, 0, 400),
            tok(b",", 0.99, 400, 410),
            tok(b" twin", 0.8, 410, 600),
            tok(b"kle", 0.3, 600, 800),
            tok(b" little star's", 0.95, 800, 1500),
        ];
        let u = units(&tokens, Lang::En);
        let words: Vec<&str> = u.iter().map(|u| u.text.as_str()).collect();
        assert_eq!(words, ["twinkle", "twinkle", "little", "star's"]);
        assert_eq!(u[1].confidence, 0.3);
        assert_eq!(join(&u, Lang::En), "twinkle twinkle little star's");
    }

    #[test]
    fn invalid_bytes_are_dropped_not_panicked_on() {
        let tokens = vec![
            tok(&[0xff, 0xfe], 0.5, 0, 10),
            tok("好".as_bytes(), 0.9, 10, 20),
        ];
        assert_eq!(join(&units(&tokens, Lang::Zh), Lang::Zh), "好");
    }
}
