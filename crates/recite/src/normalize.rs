//! Text normalization: from what was typed or recognised to the units the
//! checker compares, each remembering where in the original text it came from.
//!
//! Both languages: full-width forms are folded to half-width, punctuation,
//! symbols, emoji and control characters are dropped (punctuation that ends a
//! line or sentence becomes a line break), and runs of digits are read as
//! numbers. Chinese: Traditional → Simplified (OpenCC's t2s tables through
//! `ferrous-opencc`), one unit per character, digits read as Chinese numerals.
//! English: one unit per word, lower case, hyphenated words split, digits read
//! as words (3 → three), contractions in one canonical form (could not ≡
//! couldn't).

use std::ops::Range;
use std::sync::OnceLock;

use ferrous_opencc::{config::BuiltinConfig, OpenCC};

use crate::numerals;
use crate::sound::Readings;
use crate::Lang;

/// What a unit is compared by.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Key {
    /// A Chinese character and every way to read it.
    Hanzi(Readings),
    /// A word (English, or a Latin word inside Chinese text), by sound: no
    /// apostrophes, homophones folded to one spelling.
    Word(String),
}

/// One compared unit: a Chinese character or a word.
#[derive(Debug, Clone, PartialEq)]
pub struct Unit {
    /// The normalized text (a simplified character, or a lower-case word).
    pub text: String,
    pub(crate) key: Key,
    /// Where the unit came from: char indices into the original text.
    pub src: Range<usize>,
    /// A hesitation filler (嗯, um) that is not penalised in voice mode.
    pub(crate) filler: bool,
}

/// A piece of normalized text: a unit, a number still to be read, or a line break.
#[derive(Debug, Clone)]
pub(crate) enum Piece {
    Unit(Unit),
    Number {
        digits: String,
        year: bool,
        ordinal: bool,
        src: Range<usize>,
    },
    Break,
}

const ZH_FILLERS: &str = "嗯啊呃额唔哦噢诶欸哎呣";
const EN_FILLERS: &[&str] = &[
    "um", "umm", "uh", "uhh", "uhm", "er", "erm", "hmm", "hm", "mm", "mmm", "ah", "eh",
];
/// Abbreviations whose full stop does not end an English sentence.
const EN_ABBREVIATIONS: &[&str] = &["mr", "mrs", "ms", "dr", "st", "jr", "sr", "mt", "vs", "etc"];

/// Contractions in their canonical (contracted) form and what they stand for.
const CONTRACTIONS: &[(&str, &str, &str)] = &[
    ("aren't", "are", "not"),
    ("can't", "can", "not"),
    ("couldn't", "could", "not"),
    ("didn't", "did", "not"),
    ("doesn't", "does", "not"),
    ("don't", "do", "not"),
    ("hadn't", "had", "not"),
    ("hasn't", "has", "not"),
    ("haven't", "have", "not"),
    ("isn't", "is", "not"),
    ("mightn't", "might", "not"),
    ("mustn't", "must", "not"),
    ("needn't", "need", "not"),
    ("shan't", "shall", "not"),
    ("shouldn't", "should", "not"),
    ("wasn't", "was", "not"),
    ("weren't", "were", "not"),
    ("won't", "will", "not"),
    ("wouldn't", "would", "not"),
    ("i'm", "i", "am"),
    ("you're", "you", "are"),
    ("we're", "we", "are"),
    ("they're", "they", "are"),
    ("i've", "i", "have"),
    ("you've", "you", "have"),
    ("we've", "we", "have"),
    ("they've", "they", "have"),
    ("i'll", "i", "will"),
    ("you'll", "you", "will"),
    ("he'll", "he", "will"),
    ("she'll", "she", "will"),
    ("we'll", "we", "will"),
    ("they'll", "they", "will"),
    ("it'll", "it", "will"),
    ("let's", "let", "us"),
    ("it's", "it", "is"),
    ("he's", "he", "is"),
    ("she's", "she", "is"),
    ("that's", "that", "is"),
    ("what's", "what", "is"),
    ("there's", "there", "is"),
    ("here's", "here", "is"),
    ("where's", "where", "is"),
    ("who's", "who", "is"),
    ("i'd", "i", "would"),
    ("you'd", "you", "would"),
    ("he'd", "he", "would"),
    ("she'd", "she", "would"),
    ("we'd", "we", "would"),
    ("they'd", "they", "would"),
];

/// English words that sound alike: speech recognition picks either, so voice
/// mode does not count them as wrong.
const EN_HOMOPHONES: &[&[&str]] = &[
    &["to", "too", "two"],
    &["for", "four", "fore"],
    &["one", "won"],
    &["eight", "ate"],
    &["i", "eye"],
    &["see", "sea"],
    &["be", "bee"],
    &["there", "their", "theyre"],
    &["here", "hear"],
    &["no", "know"],
    &["new", "knew"],
    &["night", "knight"],
    &["right", "write"],
    &["sun", "son"],
    &["our", "hour"],
    &["whole", "hole"],
    &["would", "wood"],
    &["weather", "whether"],
    &["which", "witch"],
    &["by", "buy", "bye"],
    &["through", "threw"],
    &["meet", "meat"],
    &["tail", "tale"],
    &["flour", "flower"],
    &["dear", "deer"],
    &["made", "maid"],
    &["pail", "pale"],
    &["plain", "plane"],
    &["wait", "weight"],
    &["week", "weak"],
    &["blue", "blew"],
    &["bare", "bear"],
    &["peace", "piece"],
    &["sail", "sale"],
    &["road", "rode"],
    &["mail", "male"],
    &["fair", "fare"],
    &["knows", "nose"],
    &["tide", "tied"],
    &["its", "it's"],
    &["whose", "who's"],
    &["your", "you're"],
    &["red", "read"],
    &["rain", "reign"],
    &["so", "sew", "sow"],
    &["way", "weigh"],
    &["wear", "where"],
    &["hi", "high"],
    &["oh", "o"],
];

fn opencc() -> Option<&'static OpenCC> {
    static CONVERTER: OnceLock<Option<OpenCC>> = OnceLock::new();
    CONVERTER
        .get_or_init(|| match OpenCC::from_config(BuiltinConfig::T2s) {
            Ok(c) => Some(c),
            Err(e) => {
                tracing::warn!("Traditional→Simplified conversion is unavailable: {e}");
                None
            }
        })
        .as_ref()
}

pub(crate) fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x4E00..=0x9FFF | 0x3400..=0x4DBF | 0x20000..=0x2EBEF | 0x30000..=0x3134F | 0xF900..=0xFAFF | 0x3007)
}

fn is_apostrophe(c: char) -> bool {
    matches!(c, '\'' | '\u{2019}' | '\u{2018}' | '\u{02BC}')
}

fn is_hyphen(c: char) -> bool {
    matches!(c, '-' | '\u{2010}' | '\u{2011}')
}

fn is_line_break(c: char, lang: Lang) -> bool {
    match lang {
        Lang::Zh => {
            matches!(
                c,
                '，' | '。'
                    | '！'
                    | '？'
                    | '；'
                    | '：'
                    | '、'
                    | ','
                    | '.'
                    | '!'
                    | '?'
                    | ';'
                    | ':'
                    | '…'
                    | '\n'
            )
        }
        Lang::En => matches!(
            c,
            '。' | '！' | '？' | '；' | '.' | '!' | '?' | ';' | ':' | '…' | '\n'
        ),
    }
}

/// Full-width ASCII forms and the ideographic space folded to half width;
/// curly apostrophes to a straight one.
fn fold_width(c: char) -> char {
    match c as u32 {
        0xFF01..=0xFF5E => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
        0x3000 => ' ',
        _ if is_apostrophe(c) => '\'',
        _ => c,
    }
}

/// The text as simplified characters, one output char per input char (the
/// conversion is redone per character in the rare case it changes length).
/// OpenCC's tables map a few characters in two steps (薴 → 苧 → 苎), so the
/// conversion repeats until nothing changes: normalizing twice is the same
/// as once.
fn to_simplified(chars: &[char]) -> Vec<char> {
    let Some(cc) = opencc() else {
        return chars.to_vec();
    };
    if !chars.iter().any(|&c| is_cjk(c)) {
        return chars.to_vec();
    }
    let mut current = chars.to_vec();
    for _ in 0..4 {
        let next = convert_once(cc, &current);
        if next == current {
            break;
        }
        current = next;
    }
    current
}

fn convert_once(cc: &OpenCC, chars: &[char]) -> Vec<char> {
    let text: String = chars.iter().collect();
    let converted: Vec<char> = cc.convert(&text).chars().collect();
    if converted.len() == chars.len() {
        return converted;
    }
    chars
        .iter()
        .map(|&c| {
            let mut buf = [0u8; 4];
            let one = cc.convert(c.encode_utf8(&mut buf));
            let mut it = one.chars();
            match (it.next(), it.next()) {
                (Some(s), None) => s,
                _ => c,
            }
        })
        .collect()
}

fn word_sound(word: &str) -> String {
    static MAP: OnceLock<std::collections::HashMap<&'static str, &'static str>> = OnceLock::new();
    let map = MAP.get_or_init(|| {
        EN_HOMOPHONES
            .iter()
            .flat_map(|group| group.iter().map(move |w| (*w, group[0])))
            .collect()
    });
    let plain: String = word.chars().filter(|&c| c != '\'').collect();
    match map.get(word).or_else(|| map.get(plain.as_str())) {
        Some(rep) => (*rep).to_string(),
        None => plain,
    }
}

pub(crate) fn hanzi_unit(c: char, src: Range<usize>) -> Unit {
    Unit {
        text: c.to_string(),
        key: Key::Hanzi(Readings::of(c)),
        src,
        filler: ZH_FILLERS.contains(c),
    }
}

pub(crate) fn word_unit(word: String, src: Range<usize>) -> Unit {
    let filler = EN_FILLERS.contains(&word.as_str());
    Unit {
        key: Key::Word(word_sound(&word)),
        text: word,
        src,
        filler,
    }
}

/// Splits `text` into units, numbers and line breaks. `soft_breaks` makes a
/// space between two Chinese characters a line break (a reference written as
/// 床前明月光 疑是地上霜).
pub(crate) fn tokenize(text: &str, lang: Lang, soft_breaks: bool) -> Vec<Piece> {
    let raw: Vec<char> = text.chars().map(fold_width).collect();
    let chars = if lang == Lang::Zh || raw.iter().any(|&c| is_cjk(c)) {
        to_simplified(&raw)
    } else {
        raw
    };
    let n = chars.len();
    let mut out: Vec<Piece> = Vec::with_capacity(n);
    let mut i = 0;
    while i < n {
        let c = chars[i];
        if is_cjk(c) {
            out.push(Piece::Unit(hanzi_unit(c, i..i + 1)));
            i += 1;
        } else if c.is_ascii_digit() {
            i = scan_number(&chars, i, &mut out);
        } else if c.is_alphanumeric() {
            i = scan_word(&chars, i, lang, &mut out);
        } else if is_line_break(c, lang) {
            out.push(Piece::Break);
            i += 1;
        } else if c.is_whitespace() {
            if soft_breaks && lang == Lang::Zh {
                let prev_cjk = i > 0 && is_cjk(chars[i - 1]);
                let next = chars[i..].iter().find(|c| !c.is_whitespace());
                if prev_cjk && next.is_some_and(|&c| is_cjk(c)) {
                    out.push(Piece::Break);
                }
            }
            i += 1;
        } else {
            // Quotes, brackets, symbols, emoji, control characters: not recited.
            i += 1;
        }
    }
    if lang == Lang::En {
        merge_contractions(&mut out);
    }
    out
}

fn scan_number(chars: &[char], start: usize, out: &mut Vec<Piece>) -> usize {
    let n = chars.len();
    let mut i = start;
    let mut digits = String::new();
    let mut seen_point = false;
    while i < n {
        let c = chars[i];
        if c.is_ascii_digit() {
            digits.push(c);
            i += 1;
        } else if c == '.' && !seen_point && i + 1 < n && chars[i + 1].is_ascii_digit() {
            seen_point = true;
            digits.push('.');
            i += 1;
        } else if c == ','
            && !seen_point
            && i + 3 < n + 1
            && chars
                .get(i + 1..i + 4)
                .is_some_and(|d| d.iter().all(char::is_ascii_digit))
            && !chars.get(i + 4).is_some_and(char::is_ascii_digit)
        {
            i += 1; // thousands separator
        } else {
            break;
        }
    }
    let mut ordinal = false;
    if i + 1 < n + 1 {
        let suffix: String = chars
            .get(i..(i + 2).min(n))
            .unwrap_or(&[])
            .iter()
            .collect::<String>()
            .to_lowercase();
        let after_is_letter = chars.get(i + 2).is_some_and(|c| c.is_alphabetic());
        if matches!(suffix.as_str(), "st" | "nd" | "rd" | "th") && !after_is_letter && !seen_point {
            ordinal = true;
            i += 2;
        }
    }
    let year = chars.get(i) == Some(&'年');
    out.push(Piece::Number {
        digits,
        year,
        ordinal,
        src: start..i,
    });
    i
}

fn scan_word(chars: &[char], start: usize, lang: Lang, out: &mut Vec<Piece>) -> usize {
    let n = chars.len();
    let mut i = start;
    let mut word = String::new();
    let mut word_start = start;
    let flush = |word: &mut String, from: usize, to: usize, out: &mut Vec<Piece>| {
        if !word.is_empty() {
            out.push(Piece::Unit(word_unit(std::mem::take(word), from..to)));
        }
    };
    while i < n {
        let c = chars[i];
        let next_is_letter = chars
            .get(i + 1)
            .is_some_and(|c| c.is_alphanumeric() && !is_cjk(*c));
        if c.is_alphanumeric() && !is_cjk(c) {
            // Lower case without the marks some letters gain (İ → i, not i̇).
            word.extend(c.to_lowercase().filter(|l| l.is_alphanumeric()));
            i += 1;
        } else if c == '\'' && !word.is_empty() && next_is_letter {
            word.push('\'');
            i += 1;
        } else if is_hyphen(c) && !word.is_empty() && next_is_letter {
            flush(&mut word, word_start, i, out);
            i += 1;
            word_start = i;
            if chars.get(i).is_some_and(char::is_ascii_digit) {
                // "ten-3": the digits are a number of their own.
                return i;
            }
        } else {
            break;
        }
    }
    // "Mr." and friends do not end a sentence: skip their full stop.
    let is_abbreviation = lang == Lang::En && EN_ABBREVIATIONS.contains(&word.as_str());
    flush(&mut word, word_start, i, out);
    if is_abbreviation && chars.get(i) == Some(&'.') {
        i += 1;
    }
    i
}

/// Writes "cannot" as `can't` (one unit either way).
fn merge_contractions(pieces: &mut [Piece]) {
    for piece in pieces.iter_mut() {
        if let Piece::Unit(u) = piece {
            if u.text == "cannot" {
                *u = word_unit("can't".into(), u.src.clone());
            }
        }
    }
}

/// Makes the transcript's contractions follow the reference: "could not" is
/// merged into `couldn't` where the reference has `couldn't`, and `couldn't`
/// is split into "could not" where the reference has that. Each unit of the
/// reference stays one unit, so accuracy counts the words as written.
pub(crate) fn reconcile_contractions(units: Vec<Unit>, reference: &[Unit]) -> Vec<Unit> {
    let has_word = |w: &str| reference.iter().any(|u| u.text == w);
    let has_pair = |a: &str, b: &str| {
        reference
            .windows(2)
            .any(|p| p[0].text == a && p[1].text == b)
    };
    let mut out: Vec<Unit> = Vec::with_capacity(units.len());
    for u in units {
        if let Some((_, a, b)) = CONTRACTIONS.iter().find(|(full, _, _)| *full == u.text) {
            if !has_word(&u.text) && has_pair(a, b) {
                out.push(word_unit((*a).to_string(), u.src.clone()));
                out.push(word_unit((*b).to_string(), u.src.clone()));
                continue;
            }
        }
        if let Some(prev) = out.last() {
            if let Some((full, _, _)) = CONTRACTIONS
                .iter()
                .find(|(_, a, b)| *a == prev.text && *b == u.text)
            {
                if has_word(full) && !has_pair(&prev.text, &u.text) {
                    let src = prev.src.start..u.src.end;
                    out.pop();
                    out.push(word_unit((*full).to_string(), src));
                    continue;
                }
            }
        }
        out.push(u);
    }
    out
}

/// Expands a number into units: Chinese numerals in Chinese text, number
/// words in English.
pub(crate) fn number_units(reading: &str, lang: Lang, src: &Range<usize>) -> Vec<Unit> {
    match lang {
        Lang::Zh => reading
            .chars()
            .map(|c| hanzi_unit(c, src.clone()))
            .collect(),
        Lang::En => reading
            .split(' ')
            .filter(|w| !w.is_empty())
            .map(|w| word_unit(w.to_string(), src.clone()))
            .collect(),
    }
}

/// Every reading of a number, the standard one first, as space-free (Chinese)
/// or space-separated (English) text.
pub(crate) fn number_readings(digits: &str, year: bool, ordinal: bool, lang: Lang) -> Vec<String> {
    match lang {
        Lang::Zh => numerals::zh_readings(digits, year),
        Lang::En => vec![numerals::en_words(digits, ordinal).join(" ")],
    }
}

/// The normalized form of a text: units joined (Chinese without spaces,
/// English words with one space), lines on separate lines. Applying it twice
/// gives the same result as once.
pub fn normalize(text: &str, lang: Lang) -> String {
    let mut lines: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut prev_word = false;
    let push = |current: &mut String, prev_word: &mut bool, u: &Unit| {
        let is_word = matches!(u.key, Key::Word(_));
        if !current.is_empty() && (lang == Lang::En || (is_word && *prev_word)) {
            current.push(' ');
        }
        current.push_str(&u.text);
        *prev_word = is_word;
    };
    for piece in tokenize(text, lang, true) {
        match piece {
            Piece::Unit(u) => push(&mut current, &mut prev_word, &u),
            Piece::Number {
                digits,
                year,
                ordinal,
                src,
            } => {
                let reading = number_readings(&digits, year, ordinal, lang)
                    .into_iter()
                    .next()
                    .unwrap_or_default();
                for u in number_units(&reading, lang, &src) {
                    push(&mut current, &mut prev_word, &u);
                }
            }
            Piece::Break => {
                if !current.is_empty() {
                    lines.push(std::mem::take(&mut current));
                    prev_word = false;
                }
            }
        }
    }
    if !current.is_empty() {
        lines.push(current);
    }
    lines.join("\n")
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn chinese_punctuation_width_and_traditional() {
        assert_eq!(
            normalize("牀前明月光，疑是地上霜。", Lang::Zh),
            "床前明月光\n疑是地上霜"
        );
        assert_eq!(
            normalize("舉頭望明月 低頭思故鄉", Lang::Zh),
            "举头望明月\n低头思故乡"
        );
        assert_eq!(
            normalize("ＡＢＣ　１２３！", Lang::En),
            "abc one hundred twenty three"
        );
        assert_eq!(normalize("“床前”😀\u{7}明月光", Lang::Zh), "床前明月光");
        // Two-step mappings are followed to the end.
        assert_eq!(
            normalize(&normalize("薴", Lang::Zh), Lang::Zh),
            normalize("薴", Lang::Zh)
        );
    }

    #[test]
    fn chinese_numerals() {
        assert_eq!(normalize("飞流直下3000尺", Lang::Zh), "飞流直下三千尺");
        assert_eq!(normalize("2月春风", Lang::Zh), "二月春风");
        assert_eq!(normalize("２０２４年", Lang::Zh), "二零二四年");
    }

    #[test]
    fn english_case_contractions_numbers_hyphens() {
        assert_eq!(
            normalize("Couldn't put Humpty", Lang::En),
            "couldn't put humpty"
        );
        assert_eq!(
            normalize("could not put humpty", Lang::En),
            "could not put humpty"
        );
        assert_eq!(normalize("I cannot", Lang::En), "i can't");
        assert_eq!(
            normalize("Yes sir, 3 bags full.", Lang::En),
            "yes sir three bags full"
        );
        assert_eq!(
            normalize("a well-known tale", Lang::En),
            "a well known tale"
        );
        assert_eq!(normalize("room a-3", Lang::En), "room a three");
        assert_eq!(
            normalize("Mr. Fox ran. Then he hid!", Lang::En),
            "mr fox ran\nthen he hid"
        );
        assert_eq!(
            normalize("It’s the 1st day", Lang::En),
            "it's the first day"
        );
        assert_eq!(
            normalize("1,000 stars and 3.5 moons", Lang::En),
            "one thousand stars and three point five moons"
        );
    }

    #[test]
    fn contractions_follow_the_reference() {
        let words = |text: &str| -> Vec<Unit> {
            tokenize(text, Lang::En, false)
                .into_iter()
                .filter_map(|p| {
                    if let Piece::Unit(u) = p {
                        Some(u)
                    } else {
                        None
                    }
                })
                .collect()
        };
        let texts = |units: Vec<Unit>| {
            units
                .into_iter()
                .map(|u| u.text)
                .collect::<Vec<_>>()
                .join(" ")
        };
        let reference = words("couldn't put Humpty");
        assert_eq!(
            texts(reconcile_contractions(
                words("could not put humpty"),
                &reference
            )),
            "couldn't put humpty"
        );
        let reference = words("how I wonder what you are");
        assert_eq!(
            texts(reconcile_contractions(words("what you're"), &reference)),
            "what you are"
        );
        assert_eq!(
            texts(reconcile_contractions(words("what you are"), &reference)),
            "what you are"
        );
    }

    #[test]
    fn fillers_are_marked() {
        let pieces = tokenize("嗯床 um", Lang::Zh, false);
        let fillers: Vec<bool> = pieces
            .iter()
            .filter_map(|p| {
                if let Piece::Unit(u) = p {
                    Some(u.filler)
                } else {
                    None
                }
            })
            .collect();
        assert_eq!(fillers, [true, false, true]);
    }

    #[test]
    fn english_homophones_share_a_sound_key() {
        assert_eq!(word_sound("pale"), word_sound("pail"));
        assert_eq!(word_sound("king's"), word_sound("kings"));
        assert_ne!(word_sound("star"), word_sound("are"));
    }
}
