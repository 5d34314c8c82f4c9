//! Memory tips (趣味记忆法) for an error a child has made more than once.
//!
//! A [`TipWriter`] turns one error pattern into a short, concrete tip in
//! Chinese and English. [`TemplateTips`] works offline from the text itself:
//! the pinyin and tone of the confused characters, the line and its
//! neighbours, a rhyme hook, the first characters of every line as a chant.
//! An LLM-backed writer plugs in through the same trait; its tips are checked
//! with [`is_concrete`] (long enough, and naming the text: its characters or
//! words, or for a Chinese text the pinyin with tone; see [`concrete`]) and
//! replaced by the template tip when they are empty or generic. Tips are
//! generated once per pattern and cached on the pattern row
//! ([`crate::patterns`]).

use serde::{Deserialize, Serialize};

use crate::reference::Reference;
use crate::sound;
use crate::verdict::{ErrorKind, ErrorType, RecitationError};
use crate::{Lang, Mode};

pub mod concrete;

pub use concrete::{concrete_rules, is_concrete, MIN_EN_WORDS, MIN_ZH_CHARS};

/// What a tip writer knows about one error pattern.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TipRequest {
    /// The material's language.
    pub lang: Lang,
    pub mode: Mode,
    pub error_type: ErrorType,
    pub kind: ErrorKind,
    /// What the text says where the error is (empty for an insertion).
    pub expected: String,
    /// What the child said or typed (empty for an omission).
    pub actual: String,
    /// 1-based line of the error.
    pub line: usize,
    pub line_text: String,
    pub previous_line: Option<String>,
    pub next_line: Option<String>,
    /// Every line of the text, in order.
    pub lines: Vec<String>,
    /// The material's title (may be empty).
    pub title: String,
    /// How often the child has made this error, this time included.
    pub occurrences: u32,
}

impl TipRequest {
    pub fn from_error(
        reference: &Reference,
        e: &RecitationError,
        mode: Mode,
        title: &str,
        occurrences: u32,
    ) -> Self {
        let lines: Vec<String> = reference.lines().iter().map(|l| l.text.clone()).collect();
        let k = e.line.saturating_sub(1);
        Self {
            lang: reference.lang(),
            mode,
            error_type: e.error_type,
            kind: e.kind,
            expected: e.expected.clone(),
            actual: e.actual.clone(),
            line: e.line,
            line_text: lines.get(k).cloned().unwrap_or_default(),
            previous_line: k.checked_sub(1).and_then(|p| lines.get(p).cloned()),
            next_line: lines.get(k + 1).cloned(),
            lines,
            title: title.to_string(),
            occurrences,
        }
    }
}

/// A memory tip in both languages.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tip {
    pub zh: String,
    pub en: String,
}

#[derive(Debug, thiserror::Error)]
pub enum TipError {
    #[error("the tip writer is unavailable: {0}")]
    Unavailable(String),
    #[error("the tip writer failed: {0}")]
    Failed(String),
}

/// Writes a memory tip for an error pattern. Implementations may be slow (an
/// LLM call): callers invoke them outside database transactions, from a
/// blocking context (`spawn_blocking` in async code).
pub trait TipWriter: Send + Sync {
    fn write_tip(&self, request: &TipRequest) -> Result<Tip, TipError>;

    /// Stored with a cached tip: `template`, `llm`, ….
    fn source(&self) -> &'static str;
}

/// Asks `writer` for a tip and falls back to [`TemplateTips`] when it fails
/// or its tip is not [`is_concrete`]. Returns the tip and its source.
pub fn write_tip_or_template(writer: &dyn TipWriter, request: &TipRequest) -> (Tip, &'static str) {
    match writer.write_tip(request) {
        Ok(tip) if is_concrete(&tip, request) => (tip, writer.source()),
        Ok(_) => {
            tracing::warn!(
                source = writer.source(),
                "tip was empty or generic; using the template tip"
            );
            (TemplateTips.tip(request), TemplateTips.source())
        }
        Err(e) => {
            tracing::warn!(
                source = writer.source(),
                "tip writer failed ({e}); using the template tip"
            );
            (TemplateTips.tip(request), TemplateTips.source())
        }
    }
}

/// Offline tips built from the text: always concrete, never empty.
#[derive(Debug, Clone, Copy, Default)]
pub struct TemplateTips;

impl TipWriter for TemplateTips {
    fn write_tip(&self, request: &TipRequest) -> Result<Tip, TipError> {
        Ok(self.tip(request))
    }

    fn source(&self) -> &'static str {
        "template"
    }
}

impl TemplateTips {
    pub fn tip(&self, r: &TipRequest) -> Tip {
        match r.lang {
            Lang::Zh => zh_tip(r),
            Lang::En => en_tip(r),
        }
    }
}

fn first_char(s: &str) -> Option<char> {
    s.chars().next()
}

fn last_char(s: &str) -> Option<char> {
    s.chars().last()
}

fn py(c: char) -> String {
    sound::pinyin_with_tone(c).unwrap_or("").to_string()
}

/// The two-character word around `c` in `line` (举头 for 头 in 举头望明月).
/// `c` alone when the line is one character long or lacks it (鹅 in 鹅).
fn word_with(line: &str, c: char) -> String {
    let chars: Vec<char> = line.chars().collect();
    let word = match chars.iter().position(|&x| x == c) {
        Some(p) if p > 0 => chars.get(p - 1..=p),
        Some(_) => chars.get(..2),
        None => None,
    };
    word.map_or_else(|| c.to_string(), |w| w.iter().collect())
}

/// The first character of every line, as a chant (床·疑·举·低).
fn acrostic(lines: &[String]) -> String {
    lines
        .iter()
        .filter_map(|l| first_char(l))
        .map(String::from)
        .collect::<Vec<_>>()
        .join("·")
}

/// Another line ending in a character that rhymes with this line's last one.
fn zh_rhyme_partner(r: &TipRequest) -> Option<(char, char, String)> {
    let mine = last_char(&r.line_text)?;
    let rhyme = sound::rhyme(mine)?;
    r.lines
        .iter()
        .enumerate()
        .filter(|(k, _)| k + 1 != r.line)
        .filter_map(|(_, l)| last_char(l))
        .find(|&c| c != mine && sound::rhyme(c).as_deref() == Some(rhyme.as_str()))
        .map(|c| (mine, c, rhyme))
}

fn tone_gesture_zh(tone: u8) -> &'static str {
    match tone {
        1 => "手平平地向右划",
        2 => "手从下往上扬",
        3 => "手先往下再往上，像打个小对勾",
        4 => "手从上往下一砍",
        _ => "轻轻带过",
    }
}

fn tone_gesture_en(tone: u8) -> &'static str {
    match tone {
        1 => "slide your hand flat to the right",
        2 => "lift your hand upwards",
        3 => "dip your hand down and up, like a tick",
        4 => "chop your hand downwards",
        _ => "say it lightly",
    }
}

fn zh_tip(r: &TipRequest) -> Tip {
    let line = &r.line_text;
    let chant = acrostic(&r.lines);
    let rhyme_zh = zh_rhyme_partner(r)
        .map(|(a, b, y)| {
            format!("这句最后的「{a}」和「{b}」押韵（都收在 -{y}），背到这里嘴巴会“顺”过去。")
        })
        .unwrap_or_default();
    let rhyme_en = zh_rhyme_partner(r)
        .map(|(a, b, y)| {
            format!(" The last character 「{a}」 rhymes with 「{b}」 (both end in -{y}).")
        })
        .unwrap_or_default();
    let e = first_char(&r.expected);
    let a = first_char(&r.actual);
    match (r.error_type, r.kind, e, a) {
        (ErrorType::Substitution, ErrorKind::Tone, Some(e), Some(a)) => {
            let (te, ta) = (sound::tone(e).unwrap_or(5), sound::tone(a).unwrap_or(5));
            let word = word_with(line, e);
            Tip {
                zh: format!(
                    "「{e}」读 {}，是{}，不是 {}（{}）。读「{word}」时{}，声调就不会跑：{line}。",
                    py(e),
                    sound::tone_name_zh(te),
                    py(a),
                    sound::tone_name_zh(ta),
                    tone_gesture_zh(te)
                ),
                en: format!(
                    "「{e}」 is read {} ({}), not {} ({}). Say 「{word}」 and {} as you say it: {line}.",
                    py(e),
                    sound::tone_name_en(te),
                    py(a),
                    sound::tone_name_en(ta),
                    tone_gesture_en(te)
                ),
            }
        }
        (ErrorType::Substitution, ErrorKind::Homophone, Some(e), Some(a)) => {
            let word = word_with(line, e);
            Tip {
                zh: format!(
                    "同音字小陷阱：「{e}」和「{a}」都读 {}。这句是「{line}」，把「{word}」当成一个词来记，\
                     写之前先在心里说“{word}的{e}”，再动笔。",
                    py(e)
                ),
                en: format!(
                    "Sound-alike trap: 「{e}」 and 「{a}」 both sound like {}. In 「{line}」 it is 「{word}」 — \
                     think “the {e} of {word}” before you write.",
                    py(e)
                ),
            }
        }
        (ErrorType::Substitution, _, Some(e), Some(a)) => {
            let pos = line.chars().position(|c| c == e).map_or(1, |p| p + 1);
            let word = word_with(line, e);
            Tip {
                zh: format!(
                    "「{e}」读 {}，不是「{a}」（{}）。「{word}」要连在一起记：把「{line}」慢慢读一遍，\
                     读到第{pos}个字「{e}」时停一下、加重一点。{rhyme_zh}",
                    py(e),
                    py(a)
                ),
                en: format!(
                    "It is 「{e}」 ({}), not 「{a}」 ({}). Keep 「{word}」 together: read 「{line}」 slowly and \
                     stress character {pos}, 「{e}」.{rhyme_en}",
                    py(e),
                    py(a)
                ),
            }
        }
        (ErrorType::Omission, ErrorKind::Line, _, _) => {
            let (link_zh, link_en) = match &r.previous_line {
                Some(prev) => (
                    format!("它跟在「{prev}」后面：说完「{prev}」，马上接「{line}」，像接龙一样。"),
                    format!("It comes right after 「{prev}」: chain them — 「{prev}」 → 「{line}」."),
                ),
                None => (
                    format!("它是开头第一句：先深吸一口气，从「{line}」开始。"),
                    format!("It is the very first line: take a breath and start with 「{line}」."),
                ),
            };
            Tip {
                zh: format!("第{}句「{line}」容易被跳过。{link_zh}每句开头的字连起来念：{chant}。{rhyme_zh}", r.line),
                en: format!(
                    "Line {} 「{line}」 is easy to skip. {link_en} Chant the first character of each line: {chant}.{rhyme_en}",
                    r.line
                ),
            }
        }
        (ErrorType::Omission, _, _, _) => {
            let n = line.chars().count();
            let clapped: String = line.chars().map(String::from).collect::<Vec<_>>().join("·");
            Tip {
                zh: format!(
                    "「{line}」里的「{}」容易漏。这句有{n}个字，拍手数一数，一拍一个字：{clapped}。",
                    r.expected
                ),
                en: format!(
                    "「{}」 tends to drop out of 「{line}」. The line has {n} characters: clap once for each — {clapped}.",
                    r.expected
                ),
            }
        }
        (ErrorType::Insertion, _, _, _) => {
            let n = line.chars().count();
            let clapped: String = line.chars().map(String::from).collect::<Vec<_>>().join("·");
            Tip {
                zh: format!(
                    "「{line}」只有{n}个字，「{}」是多出来的。一边拍手一边背，一拍一个字，拍完{n}下就停：{clapped}。",
                    r.actual
                ),
                en: format!(
                    "「{line}」 has only {n} characters; 「{}」 is extra. Clap once per character and stop after {n}: {clapped}.",
                    r.actual
                ),
            }
        }
        (ErrorType::Order, ErrorKind::Swap, _, _) => {
            let chars: Vec<char> = r.expected.chars().collect();
            let order_zh: String = chars.iter().map(|&c| format!("「{c}」{}", py(c))).collect::<Vec<_>>().join(" → ");
            Tip {
                zh: format!("顺序是「{}」：{order_zh}。把它当成一个词连读三遍：{line}。", r.expected),
                en: format!("The order is 「{}」: {order_zh}. Say it as one word three times: {line}.", r.expected),
            }
        }
        _ => Tip {
            zh: format!(
                "先后顺序要记牢：每句开头的字连成口诀「{chant}」，像念咒语一样念三遍。第{}句是「{line}」。",
                r.line
            ),
            en: format!(
                "Keep the lines in order with a chant of their first characters: 「{chant}」. Line {} is 「{line}」.",
                r.line
            ),
        },
    }
}

/// The ending an English word rhymes on: from its last vowel group on, a
/// silent final e dropped (star/are → "ar", wall/fall → "all").
fn en_rhyme(word: &str) -> Option<String> {
    let w = word.trim_end_matches('e');
    let w = if w.len() < 2 { word } else { w };
    let chars: Vec<char> = w.chars().collect();
    let is_vowel = |c: char| "aeiouy".contains(c);
    let last_vowel = chars.iter().rposition(|&c| is_vowel(c))?;
    let mut start = last_vowel;
    while start > 0 && is_vowel(chars[start - 1]) {
        start -= 1;
    }
    Some(chars[start..].iter().collect())
}

fn en_rhyme_partner(r: &TipRequest) -> Option<(String, String)> {
    let mine = r.line_text.split_whitespace().last()?.to_string();
    let rhyme = en_rhyme(&mine)?;
    r.lines
        .iter()
        .enumerate()
        .filter(|(k, _)| k + 1 != r.line)
        .filter_map(|(_, l)| l.split_whitespace().last())
        .find(|w| *w != mine && en_rhyme(w).as_deref() == Some(rhyme.as_str()))
        .map(|w| (mine, w.to_string()))
}

fn en_tip(r: &TipRequest) -> Tip {
    let line = &r.line_text;
    let n = line.split_whitespace().count();
    let first_words = r
        .lines
        .iter()
        .filter_map(|l| l.split_whitespace().next())
        .collect::<Vec<_>>()
        .join(" → ");
    let (rhyme_en, rhyme_zh) = en_rhyme_partner(r)
        .map(|(a, b)| {
            (
                format!(" “{a}” rhymes with “{b}” — let the rhyme carry you."),
                format!("“{a}”和“{b}”押韵，顺着韵脚背。"),
            )
        })
        .unwrap_or_default();
    match r.error_type {
        ErrorType::Substitution => {
            let start: String = r.expected.chars().take(2).collect();
            Tip {
                en: format!(
                    "The word is “{}”, not “{}”. It starts with “{start}”: read “{line}” slowly and tap the table on “{}”.{rhyme_en}",
                    r.expected, r.actual, r.expected
                ),
                zh: format!(
                    "这里是单词“{}”，不是“{}”。它以“{start}”开头：慢慢读“{line}”，读到“{}”时轻轻敲一下桌子。{rhyme_zh}",
                    r.expected, r.actual, r.expected
                ),
            }
        }
        ErrorType::Omission if r.kind == ErrorKind::Line => {
            let link = r.previous_line.as_ref().map_or_else(
                || format!("It is the first line: start with “{line}”."),
                |p| format!("It follows “{p}”: link them — “{p}” → “{line}”."),
            );
            Tip {
                en: format!("Line {} “{line}” is easy to skip. {link} First words in order: {first_words}.{rhyme_en}", r.line),
                zh: format!(
                    "第{}句“{line}”容易被跳过。每句的第一个词按顺序念一遍：{first_words}。{rhyme_zh}",
                    r.line
                ),
            }
        }
        ErrorType::Omission => Tip {
            en: format!(
                "Don't drop “{}” from “{line}”. The line has {n} words: count them on your fingers as you say it.",
                r.expected
            ),
            zh: format!("“{line}”里的“{}”容易漏掉。这句有{n}个词，边背边用手指数。", r.expected),
        },
        ErrorType::Insertion => Tip {
            en: format!("“{line}” has {n} words — “{}” is extra. Clap once per word and stop at {n}.", r.actual),
            zh: format!("“{line}”只有{n}个词，“{}”是多出来的。一词一拍，拍到{n}下就停。", r.actual),
        },
        ErrorType::Order => Tip {
            en: format!(
                "The order is “{}”. Say the line as a chain, one word leading to the next: {line}. First words of the lines: {first_words}.",
                r.expected
            ),
            zh: format!("顺序是“{}”。把这句像链子一样一个词接一个词地念：{line}。各句开头：{first_words}。", r.expected),
        },
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::{check, Transcript};

    fn tip_for(reference: &str, transcript: &str, mode: Mode) -> (TipRequest, Tip) {
        let r = Reference::new(reference, None).unwrap();
        let v = check(&r, &Transcript::new(transcript), mode).unwrap();
        let e = v.errors.first().unwrap();
        let req = TipRequest::from_error(&r, e, mode, "静夜思", 2);
        let tip = TemplateTips.tip(&req);
        (req, tip)
    }

    const POEM: &str = "床前明月光，疑是地上霜。举头望明月，低头思故乡。";

    #[test]
    fn tone_tip_names_pinyin_and_tone() {
        let (req, tip) = tip_for(
            POEM,
            "床前明月光，疑是地上霜。举偷望明月，低头思故乡。",
            Mode::Voice,
        );
        assert_eq!(req.kind, ErrorKind::Tone);
        assert!(
            tip.zh.contains("tóu") && tip.zh.contains("第二声") && tip.zh.contains("举头"),
            "{}",
            tip.zh
        );
        assert!(
            tip.en.contains("tóu") && tip.en.contains("rising"),
            "{}",
            tip.en
        );
    }

    #[test]
    fn homophone_tip_names_both_characters() {
        let (_, tip) = tip_for(
            POEM,
            "床前明月光，宜是地上霜。举头望明月，低头思故乡。",
            Mode::Text,
        );
        assert!(
            tip.zh.contains("疑") && tip.zh.contains("宜") && tip.zh.contains("yí"),
            "{}",
            tip.zh
        );
    }

    #[test]
    fn omitted_line_tip_chains_and_rhymes() {
        let (_, tip) = tip_for(POEM, "床前明月光，举头望明月，低头思故乡。", Mode::Voice);
        assert!(
            tip.zh.contains("床前明月光") && tip.zh.contains("疑是地上霜"),
            "{}",
            tip.zh
        );
        assert!(tip.zh.contains("床·疑·举·低"), "{}", tip.zh);
        assert!(tip.zh.contains("押韵"), "{}", tip.zh);
    }

    #[test]
    fn english_tips_rhyme() {
        let (_, tip) = tip_for(
            "Humpty Dumpty sat on a wall. Humpty Dumpty had a great fall.",
            "Humpty Dumpty sat on a ball. Humpty Dumpty had a great fall.",
            Mode::Voice,
        );
        assert!(
            tip.en.contains("“wall”") && tip.en.contains("rhymes with “fall”"),
            "{}",
            tip.en
        );
    }

    struct Generic;
    impl TipWriter for Generic {
        fn write_tip(&self, _: &TipRequest) -> Result<Tip, TipError> {
            Ok(Tip {
                zh: "多读几遍就记住了。".into(),
                en: "Practice makes perfect!".into(),
            })
        }
        fn source(&self) -> &'static str {
            "llm"
        }
    }

    struct Down;
    impl TipWriter for Down {
        fn write_tip(&self, _: &TipRequest) -> Result<Tip, TipError> {
            Err(TipError::Unavailable("no network".into()))
        }
        fn source(&self) -> &'static str {
            "llm"
        }
    }

    #[test]
    fn generic_or_failed_llm_tips_fall_back_to_templates() {
        let (req, template) = tip_for(
            POEM,
            "床前明烟光，疑是地上霜。举头望明月，低头思故乡。",
            Mode::Voice,
        );
        for writer in [&Generic as &dyn TipWriter, &Down] {
            let (tip, source) = write_tip_or_template(writer, &req);
            assert_eq!(source, "template");
            assert_eq!(tip, template);
        }
        assert!(!is_concrete(
            &Tip {
                zh: String::new(),
                en: String::new()
            },
            &req
        ));
    }

    #[test]
    fn a_repeated_slip_on_a_one_character_line_gets_a_concrete_tip() {
        // 咏鹅's first line is the single character 鹅.
        const YONG_E: &str = "鹅，鹅，鹅，曲项向天歌。白毛浮绿水，红掌拨清波。";
        for (transcript, mode, kind) in [
            (
                "饿，鹅，鹅，曲项向天歌。白毛浮绿水，红掌拨清波。",
                Mode::Voice,
                ErrorKind::Tone,
            ),
            (
                "我，鹅，鹅，曲项向天歌。白毛浮绿水，红掌拨清波。",
                Mode::Text,
                ErrorKind::Other,
            ),
        ] {
            let (req, tip) = tip_for(YONG_E, transcript, mode);
            assert_eq!(
                (req.line, req.line_text.as_str(), req.error_type, req.kind),
                (1, "鹅", ErrorType::Substitution, kind)
            );
            assert!(
                tip.zh.contains("「鹅」读 é") && tip.en.contains("é"),
                "{tip:?}"
            );
            assert!(is_concrete(&tip, &req), "{tip:?}");
        }
    }

    #[test]
    fn word_with_stays_inside_the_line() {
        assert_eq!(word_with("鹅", '鹅'), "鹅");
        assert_eq!(word_with("", '鹅'), "鹅");
        assert_eq!(word_with("鹅鸭", '鹅'), "鹅鸭");
        assert_eq!(word_with("举头望明月", '头'), "举头");
        assert_eq!(word_with("举头望明月", '举'), "举头");
        assert_eq!(en_rhyme("e").as_deref(), Some("e"));
        assert_eq!(en_rhyme(""), None);
        assert_eq!(en_rhyme("wall").as_deref(), Some("all"));
    }

    const TYPES: [ErrorType; 4] = [
        ErrorType::Omission,
        ErrorType::Insertion,
        ErrorType::Substitution,
        ErrorType::Order,
    ];
    const KINDS: [ErrorKind; 10] = [
        ErrorKind::Line,
        ErrorKind::Part,
        ErrorKind::Extra,
        ErrorKind::Tone,
        ErrorKind::Sound,
        ErrorKind::Homophone,
        ErrorKind::Spelling,
        ErrorKind::Other,
        ErrorKind::Swap,
        ErrorKind::Move,
    ];

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4096))]
        /// Short, empty or odd lines and errors never make a tip panic, and
        /// every tip says something.
        #[test]
        fn template_tips_never_panic(
            en in proptest::bool::ANY,
            t in 0..TYPES.len(),
            k in 0..KINDS.len(),
            expected in "[鹅a]{0,2}",
            actual in "[饿b]{0,2}",
            lines in proptest::collection::vec("[鹅a,]{0,2}", 0..3),
            line in 0usize..4,
        ) {
            let req = TipRequest {
                lang: if en { Lang::En } else { Lang::Zh },
                mode: Mode::Voice,
                error_type: TYPES[t],
                kind: KINDS[k],
                expected,
                actual,
                line,
                line_text: line.checked_sub(1).and_then(|k| lines.get(k)).cloned().unwrap_or_default(),
                previous_line: None,
                next_line: None,
                lines,
                title: String::new(),
                occurrences: 2,
            };
            let tip = TemplateTips.tip(&req);
            proptest::prop_assert!(!tip.zh.trim().is_empty() && !tip.en.trim().is_empty());
            let _ = is_concrete(&tip, &req);
        }
    }
}
