//! The two inputs of a check: the reference text, prepared once (normalized,
//! split into units and lines), and the transcript of what the child said or
//! typed, with optional per-character confidences from speech recognition.

use serde::{Deserialize, Serialize};

use crate::normalize::{self, Key, Piece, Unit};
use crate::{CheckError, Lang, Mode};

/// Most units (Chinese characters or English words) a reference may have —
/// the one limit on what can be recited: the library refuses a longer
/// material when it is added, and every material it accepts can be checked
/// against a transcript up to four times its length (a child who restarts and
/// repeats a lot), within the alignment's memory bound
/// (`align::MAX_CELLS`). Far longer than any primary-school
/// recitation text; the built-in ones have at most 85 words.
pub const MAX_REFERENCE_UNITS: usize = 2_000;

/// How many times longer than its reference a transcript may be.
pub const MAX_TRANSCRIPT_FACTOR: usize = 4;

const _: () = assert!(
    (MAX_REFERENCE_UNITS + 1) * (MAX_TRANSCRIPT_FACTOR * MAX_REFERENCE_UNITS + 1)
        <= crate::align::MAX_CELLS
);

/// One line (sentence) of the reference: Chinese lines end at any
/// punctuation (，。！？；：、), English ones at . ! ? ; : or a line break.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Line {
    /// The normalized line (characters run together, words spaced).
    pub text: String,
    /// The line's units are `units[start..end]`.
    pub start: usize,
    pub end: usize,
}

/// A reference text ready to be checked against, many times.
#[derive(Debug, Clone)]
pub struct Reference {
    lang: Lang,
    units: Vec<Unit>,
    /// (0-based line, 0-based offset in line) of each unit.
    places: Vec<(usize, usize)>,
    lines: Vec<Line>,
}

impl Reference {
    /// Prepares `text` for checking. The language is detected when not given.
    /// A text with nothing to recite (only punctuation, emoji, spaces) is an
    /// error.
    pub fn new(text: &str, lang: Option<Lang>) -> Result<Self, CheckError> {
        let composed = nfc(text);
        let text = composed.as_str();
        let lang = lang.unwrap_or_else(|| Lang::detect(text));
        let mut units: Vec<Unit> = Vec::new();
        let mut places = Vec::new();
        let mut lines: Vec<Line> = Vec::new();
        let mut line_start = 0;
        let close_line = |units: &[Unit],
                          lines: &mut Vec<Line>,
                          places: &mut Vec<(usize, usize)>,
                          start: &mut usize| {
            if units.len() > *start {
                let idx = lines.len();
                places.extend((0..units.len() - *start).map(|off| (idx, off)));
                lines.push(Line {
                    text: join_units(&units[*start..], lang),
                    start: *start,
                    end: units.len(),
                });
                *start = units.len();
            }
        };
        for piece in normalize::tokenize(text, lang, true) {
            match piece {
                Piece::Unit(u) => units.push(u),
                Piece::Number {
                    digits,
                    year,
                    ordinal,
                    src,
                } => {
                    let reading = normalize::number_readings(&digits, year, ordinal, lang)
                        .into_iter()
                        .next();
                    units.extend(normalize::number_units(
                        &reading.unwrap_or_default(),
                        lang,
                        &src,
                    ));
                }
                Piece::Break => close_line(&units, &mut lines, &mut places, &mut line_start),
            }
            if units.len() > MAX_REFERENCE_UNITS {
                return Err(CheckError::ReferenceTooLong {
                    max: MAX_REFERENCE_UNITS,
                });
            }
        }
        close_line(&units, &mut lines, &mut places, &mut line_start);
        if units.is_empty() {
            return Err(CheckError::EmptyReference);
        }
        Ok(Self {
            lang,
            units,
            places,
            lines,
        })
    }

    pub fn lang(&self) -> Lang {
        self.lang
    }

    pub fn units(&self) -> &[Unit] {
        &self.units
    }

    pub fn len(&self) -> usize {
        self.units.len()
    }

    pub fn is_empty(&self) -> bool {
        self.units.is_empty()
    }

    pub fn lines(&self) -> &[Line] {
        &self.lines
    }

    /// The 0-based line and offset of unit `i`; one past the end is placed
    /// after the last unit of the last line.
    pub(crate) fn place(&self, i: usize) -> (usize, usize) {
        match self.places.get(i) {
            Some(&p) => p,
            None => {
                let last = self.lines.len().saturating_sub(1);
                (last, self.lines.get(last).map_or(0, |l| l.end - l.start))
            }
        }
    }

    /// Units `range` for people: lines separated by "，" (Chinese) or " / "
    /// (English).
    pub fn display(&self, range: std::ops::Range<usize>) -> String {
        let sep = match self.lang {
            Lang::Zh => "，",
            Lang::En => " / ",
        };
        self.lines
            .iter()
            .filter_map(|l| {
                let (s, e) = (l.start.max(range.start), l.end.min(range.end));
                (s < e).then(|| self.text_of(s..e))
            })
            .collect::<Vec<_>>()
            .join(sep)
    }

    /// The text of units `range`, joined as the language writes them.
    pub(crate) fn text_of(&self, range: std::ops::Range<usize>) -> String {
        join_units(self.units.get(range).unwrap_or(&[]), self.lang)
    }
}

pub(crate) fn join_units(units: &[Unit], lang: Lang) -> String {
    let mut s = String::new();
    let mut prev_word = false;
    for u in units {
        let is_word = matches!(u.key, Key::Word(_));
        if !s.is_empty() && (lang == Lang::En || (is_word && prev_word)) {
            s.push(' ');
        }
        s.push_str(&u.text);
        prev_word = is_word;
    }
    s
}

/// What the child said (speech recognition) or typed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Transcript {
    pub text: String,
    /// Optional speech-recognition confidence (0–1) of each `char` of `text`,
    /// in order (`confidences[i]` belongs to `text.chars().nth(i)`). Units
    /// whose characters fall below [`crate::UNCERTAIN_BELOW`] make the errors
    /// they are part of `uncertain`. Without confidences every error is certain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidences: Option<Vec<f32>>,
    /// Char positions in `text` where speech recognition may have dropped
    /// what the child said: an omission heard at one of them is `uncertain`
    /// (set by a speech pipeline that re-examined the audio there).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unsure_gaps: Vec<usize>,
}

impl Transcript {
    /// A typed or recognized text, in Unicode's composed form (NFC): "café"
    /// typed as e + a combining accent is the same word as "café".
    pub fn new(text: impl Into<String>) -> Self {
        Self {
            text: nfc(&text.into()),
            confidences: None,
            unsure_gaps: Vec::new(),
        }
    }

    /// A recognized text with one confidence per `char`. The text is kept as
    /// given (speech recognition writes composed text; composing it here
    /// would change the character count the confidences follow).
    pub fn with_confidences(text: impl Into<String>, confidences: Vec<f32>) -> Self {
        Self {
            text: text.into(),
            confidences: Some(confidences),
            unsure_gaps: Vec::new(),
        }
    }

    /// Units of the transcript; numbers take the reading the reference uses
    /// when one of their readings appears there (1000 → 千 in 千里).
    pub(crate) fn units(&self, reference: &Reference, mode: Mode) -> Vec<Unit> {
        let lang = reference.lang();
        let mut out = Vec::new();
        // Which reading each number takes, decided once per distinct number.
        let mut chosen: std::collections::HashMap<(String, bool, bool), String> =
            std::collections::HashMap::new();
        for piece in normalize::tokenize(&self.text, lang, false) {
            match piece {
                Piece::Unit(u) => out.push(u),
                Piece::Number {
                    digits,
                    year,
                    ordinal,
                    src,
                } => {
                    let reading = chosen.entry((digits, year, ordinal)).or_insert_with_key(
                        |(digits, year, ordinal)| {
                            let readings =
                                normalize::number_readings(digits, *year, *ordinal, lang);
                            let fits = |r: &String| {
                                occurs_in(
                                    &normalize::number_units(r, lang, &(0..0)),
                                    reference.units(),
                                    mode,
                                )
                            };
                            readings
                                .iter()
                                .find(|r| fits(r))
                                .or(readings.first())
                                .cloned()
                                .unwrap_or_default()
                        },
                    );
                    out.extend(normalize::number_units(reading, lang, &src));
                }
                Piece::Break => {}
            }
        }
        if lang == Lang::En {
            out = normalize::reconcile_contractions(out, reference.units());
        }
        out
    }

    /// The lowest confidence among the characters of `src`, when known.
    pub(crate) fn confidence(&self, src: &std::ops::Range<usize>) -> Option<f32> {
        let c = self.confidences.as_ref()?;
        c.get(src.clone())?
            .iter()
            .copied()
            .filter(|v| !v.is_nan())
            .reduce(f32::min)
    }
}

fn occurs_in(needle: &[Unit], hay: &[Unit], mode: Mode) -> bool {
    !needle.is_empty()
        && hay.len() >= needle.len()
        && hay.windows(needle.len()).any(|w| {
            w.iter()
                .zip(needle)
                .all(|(r, t)| crate::check::same(mode, r, t))
        })
}

impl Lang {
    /// Chinese when the text has at least as many Chinese characters as
    /// Latin-script words, English otherwise.
    pub fn detect(text: &str) -> Lang {
        let mut cjk = 0usize;
        let mut words = 0usize;
        let mut in_word = false;
        for c in text.chars() {
            if normalize::is_cjk(c) {
                cjk += 1;
                in_word = false;
            } else if c.is_alphabetic() {
                if !in_word {
                    words += 1;
                }
                in_word = true;
            } else {
                in_word = false;
            }
        }
        if cjk > 0 && cjk >= words {
            Lang::Zh
        } else if words == 0 && cjk == 0 {
            // Digits only, or nothing: Chinese reads digits as numerals too.
            Lang::Zh
        } else {
            Lang::En
        }
    }
}

/// `text` in Unicode's composed form (NFC), so that a decomposed "naïve"
/// (i + U+0308) and a composed one are the same units. Most text is already
/// composed; the quick check skips the rewrite then.
pub(crate) fn nfc(text: &str) -> String {
    use unicode_normalization::{is_nfc_quick, IsNormalized, UnicodeNormalization};
    match is_nfc_quick(text.chars()) {
        IsNormalized::Yes => text.to_string(),
        _ => text.nfc().collect(),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn decomposed_text_is_the_same_text() {
        let composed = "The naïve cat ate at the café.";
        let decomposed = "The nai\u{308}ve cat ate at the cafe\u{301}.";
        assert_ne!(composed, decomposed);
        let r = Reference::new(composed, Some(Lang::En)).unwrap();
        let v = crate::check(&r, &Transcript::new(decomposed), Mode::Text).unwrap();
        assert_eq!((v.accuracy, v.errors.len()), (100.0, 0), "{v:?}");
        // And the other way round: a decomposed reference.
        let r = Reference::new(decomposed, Some(Lang::En)).unwrap();
        let v = crate::check(&r, &Transcript::new(composed), Mode::Text).unwrap();
        assert_eq!(v.accuracy, 100.0);
    }

    #[test]
    fn lines_and_places() {
        let r = Reference::new("床前明月光，疑是地上霜。\n举头望明月，低头思故乡。", None).unwrap();
        assert_eq!(r.lang(), Lang::Zh);
        assert_eq!(r.len(), 20);
        assert_eq!(r.lines().len(), 4);
        assert_eq!(r.lines()[1].text, "疑是地上霜");
        assert_eq!(r.place(7), (1, 2));
        assert_eq!(r.place(20), (3, 5));
    }

    #[test]
    fn english_lines_are_sentences() {
        let r = Reference::new(
            "Twinkle, twinkle, little star, how I wonder what you are! Up above the world so high.",
            None,
        )
        .unwrap();
        assert_eq!(r.lang(), Lang::En);
        assert_eq!(r.lines().len(), 2);
        assert_eq!(r.len(), 16);
        assert_eq!(r.lines()[1].text, "up above the world so high");
    }

    #[test]
    fn nothing_to_recite_is_an_error() {
        for text in ["", "  ", "，。！", "😀🎉", "\u{0}\u{7}"] {
            assert!(
                matches!(Reference::new(text, None), Err(CheckError::EmptyReference)),
                "{text:?}"
            );
        }
    }

    #[test]
    fn language_detection() {
        assert_eq!(Lang::detect("床前明月光"), Lang::Zh);
        assert_eq!(Lang::detect("Twinkle twinkle"), Lang::En);
        assert_eq!(Lang::detect("I love 中国 very much"), Lang::En);
        assert_eq!(Lang::detect("我爱 ABC"), Lang::Zh);
    }

    #[test]
    fn transcript_numbers_follow_the_reference() {
        let r = Reference::new("欲穷千里目", None).unwrap();
        let t = Transcript::new("欲穷1000里目");
        let units: String = t
            .units(&r, Mode::Voice)
            .iter()
            .map(|u| u.text.as_str())
            .collect();
        assert_eq!(units, "欲穷千里目");
        let r = Reference::new("两个黄鹂鸣翠柳", None).unwrap();
        let units: String = Transcript::new("2个黄鹂")
            .units(&r, Mode::Text)
            .iter()
            .map(|u| u.text.as_str())
            .collect();
        assert_eq!(units, "两个黄鹂");
    }
}
