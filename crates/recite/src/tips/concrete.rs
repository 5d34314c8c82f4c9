//! When a written memory tip is concrete enough to show a child: long
//! enough, and naming the text itself rather than "read it again". Every tip
//! from a [`TipWriter`](super::TipWriter) is checked with [`is_concrete`];
//! [`concrete_rules`] states the same rule in words for an LLM prompt, so a
//! tip that follows the prompt passes.

use pinyin::ToPinyinMulti;

use super::{Tip, TipRequest};
use crate::normalize::is_cjk;
use crate::sound;
use crate::Lang;

/// The Chinese half of a tip has at least this many characters.
pub const MIN_ZH_CHARS: usize = 12;
/// The English half of a tip has at least this many words.
pub const MIN_EN_WORDS: usize = 5;

/// Characters too common to show that a tip is about this text.
const COMMON_HANZI: &str =
    "的一是不了个在有和也就都这那你我他她它们吗呢吧啊哦很要会能说读背记字句好";
/// English words too common to show that a tip is about this text.
const COMMON_WORDS: [&str; 20] = [
    "the", "and", "but", "for", "with", "you", "your", "are", "was", "not", "this", "that", "they",
    "them", "his", "her", "its", "has", "had", "have",
];

/// Whether a written tip says something about this text rather than "read it
/// again": every tip from a [`TipWriter`] is checked with it, and an LLM
/// prompt asking for a tip should ask for exactly this.
///
/// - `zh` has at least [`MIN_ZH_CHARS`] characters, `en` at least
///   [`MIN_EN_WORDS`] words;
/// - both name the text. For a Chinese text that is two characters in a row
///   of the error's line (the whole line when it is shorter), or a character
///   of the error (expected or said) other than a very common one (的, 一…);
///   the English half may instead give the pinyin, with tone marks (shuāng)
///   or a tone number (shuang1), of a character of the line or the error.
///   For an English text it is a word of the line or the error (three letters
///   or more, not the/and/…), or the whole line.
pub fn is_concrete(tip: &Tip, request: &TipRequest) -> bool {
    let (zh, en) = (tip.zh.trim(), tip.en.trim());
    if zh.chars().count() < MIN_ZH_CHARS || en.split_whitespace().count() < MIN_EN_WORDS {
        return false;
    }
    match request.lang {
        Lang::Zh => {
            names_hanzi(zh, request) && (names_hanzi(en, request) || names_pinyin(en, request))
        }
        Lang::En => names_words(zh, request) && names_words(en, request),
    }
}

/// The tip quotes two characters in a row of the line (or the whole, shorter
/// line), or an uncommon character of the error.
fn names_hanzi(tip: &str, r: &TipRequest) -> bool {
    let line: Vec<char> = r.line_text.chars().filter(|&c| is_cjk(c)).collect();
    let whole_line = !line.is_empty() && line.len() < 2 && line.iter().all(|&c| tip.contains(c));
    let two_in_a_row = line
        .windows(2)
        .any(|w| tip.contains(&w.iter().collect::<String>()));
    let error_char = r
        .expected
        .chars()
        .chain(r.actual.chars())
        .filter(|&c| is_cjk(c) && !COMMON_HANZI.contains(c))
        .any(|c| tip.contains(c));
    whole_line || two_in_a_row || error_char
}

/// The tip gives the pinyin with tone of a character of the line or error.
fn names_pinyin(tip: &str, r: &TipRequest) -> bool {
    let tip = tip.to_lowercase();
    let words: Vec<&str> = tip
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    r.line_text
        .chars()
        .chain(r.expected.chars())
        .chain(r.actual.chars())
        .filter(|&c| is_cjk(c))
        .any(|c| {
            c.to_pinyin_multi().is_some_and(|readings| {
                readings.into_iter().any(|p| {
                    // Toneless forms (he, you, can…) are English words too: only
                    // a tone mark or number counts.
                    [p.with_tone(), p.with_tone_num_end()]
                        .into_iter()
                        .any(|s| s != p.plain() && words.contains(&s))
                })
            })
        })
}

/// The lowercase words of `s`, split at anything but letters, digits and `'`.
fn words_of(s: &str) -> Vec<String> {
    s.to_lowercase()
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// The tip quotes a word of the line or error that is not a common one, or
/// the whole line.
fn names_words(tip: &str, r: &TipRequest) -> bool {
    let said = words_of(tip);
    let line = words_of(&r.line_text);
    let whole_line = !line.is_empty() && said.windows(line.len()).any(|w| w == line.as_slice());
    whole_line
        || line
            .iter()
            .chain(&words_of(&r.expected))
            .chain(&words_of(&r.actual))
            .filter(|w| w.chars().count() >= 3 && !COMMON_WORDS.contains(&w.as_str()))
            .any(|w| said.contains(w))
}

/// What [`is_concrete`] checks, in words for an LLM prompt, with examples
/// from this request: a tip that follows them passes the check.
pub fn concrete_rules(r: &TipRequest) -> String {
    match r.lang {
        Lang::Zh => {
            let line: Vec<char> = r.line_text.chars().filter(|&c| is_cjk(c)).collect();
            let quote = match line.as_slice() {
                [a, b, ..] => format!(
                    "at least two characters in a row from the line (for example 「{a}{b}」)"
                ),
                [a] => format!("the line 「{a}」"),
                [] => "the characters of the error".to_string(),
            };
            let pinyin = r
                .expected
                .chars()
                .chain(r.actual.chars())
                .chain(line.iter().copied())
                .find(|&c| is_cjk(c) && sound::tone(c).is_some_and(|t| t < 5))
                .map(|c| {
                    format!(
                        " (for example {c} {})",
                        sound::pinyin_with_tone(c).unwrap_or_default()
                    )
                })
                .unwrap_or_default();
            format!(
                "\"zh\" is in Chinese, at least {MIN_ZH_CHARS} characters, and quotes {quote}. \"en\" is in English, \
                 at least {MIN_EN_WORDS} words, and names the character(s) in Chinese or gives their pinyin with \
                 tone marks{pinyin}."
            )
        }
        Lang::En => {
            let word = words_of(&r.expected)
                .into_iter()
                .chain(words_of(&r.line_text))
                .find(|w| w.chars().count() >= 3 && !COMMON_WORDS.contains(&w.as_str()));
            let quote = match word {
                Some(w) => format!(
                    "at least one word of the line of three letters or more other than the, and, you… \
                     (for example \"{w}\")"
                ),
                None => format!("the whole line \"{}\"", r.line_text),
            };
            format!(
                "\"en\" is in English, at least {MIN_EN_WORDS} words; \"zh\" is in Chinese, at least \
                 {MIN_ZH_CHARS} characters. Both quote {quote}."
            )
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::tips::TemplateTips;
    use crate::{check, Mode, Reference, Transcript};

    const POEM: &str = "床前明月光，疑是地上霜。举头望明月，低头思故乡。";

    fn tip_for(reference: &str, transcript: &str, mode: Mode) -> (TipRequest, Tip) {
        let r = Reference::new(reference, None).unwrap();
        let v = check(&r, &Transcript::new(transcript), mode).unwrap();
        let req = TipRequest::from_error(&r, v.errors.first().unwrap(), mode, "静夜思", 2);
        let tip = TemplateTips.tip(&req);
        (req, tip)
    }

    fn tip(zh: &str, en: &str) -> Tip {
        Tip {
            zh: zh.into(),
            en: en.into(),
        }
    }

    #[test]
    fn a_chinese_tip_names_the_text_in_both_halves() {
        // 明烟光 for 明月光: expected 月, said 烟, line 床前明月光.
        let (req, _) = tip_for(
            POEM,
            "床前明烟光，疑是地上霜。举头望明月，低头思故乡。",
            Mode::Voice,
        );
        let zh = "「明月」是天上的月亮，不是冒出来的烟";
        // The English half may name the character or give its pinyin with tone.
        assert!(is_concrete(
            &tip(zh, "Think of the bright 月 moon above the bed"),
            &req
        ));
        assert!(is_concrete(
            &tip(zh, "Yuè is the moon, not smoke: look up at it"),
            &req
        ));
        assert!(is_concrete(
            &tip(zh, "Say yue4 like the moon rising over the bed"),
            &req
        ));
        // Toneless pinyin is an English word as often as not: not enough.
        assert!(!is_concrete(
            &tip(zh, "Yue is the moon, not smoke: look up at it"),
            &req
        ));
        assert!(!is_concrete(
            &tip(zh, "Practice makes perfect, keep reading it every day!"),
            &req
        ));
        assert!(!is_concrete(&tip(zh, "月 moon"), &req), "too short");
        // The Chinese half must quote the text, not just be long.
        assert!(!is_concrete(
            &tip(
                "多读几遍就一定能记住了，加油哦！",
                "The moon 月 (yuè) shines on the bed"
            ),
            &req
        ));
        assert!(
            !is_concrete(
                &tip("「明月」", "The moon 月 (yuè) shines on the bed"),
                &req
            ),
            "too short"
        );
        // A common character alone does not show the tip is about this text.
        let (req, _) = tip_for(
            POEM,
            "床前明月光，疑地上霜。举头望明月，低头思故乡。",
            Mode::Text,
        );
        assert_eq!(req.expected, "是");
        assert!(!is_concrete(
            &tip(
                "是不是很好记呀？多读几遍就会了。",
                "Say the line again five times"
            ),
            &req
        ));
        assert!(is_concrete(
            &tip(
                "「疑是」：好像是，月光好像是霜",
                "疑是 (yí shì) means it looks like"
            ),
            &req
        ));
    }

    #[test]
    fn a_tip_that_follows_the_rules_passes_the_check() {
        let (req, _) = tip_for(
            POEM,
            "床前明烟光，疑是地上霜。举头望明月，低头思故乡。",
            Mode::Voice,
        );
        let rules = concrete_rules(&req);
        assert!(
            rules.contains("「床前」") && rules.contains("月 yuè") && rules.contains("at least 12"),
            "{rules}"
        );
        assert!(is_concrete(
            &tip(
                "「床前」的月光亮亮的，不会冒烟",
                "Look up: 月 yuè is the moon"
            ),
            &req
        ));
        let (req, _) = tip_for(
            "鹅，鹅，鹅，曲项向天歌。",
            "饿，鹅，鹅，曲项向天歌。",
            Mode::Voice,
        );
        let rules = concrete_rules(&req);
        assert!(
            rules.contains("the line 「鹅」") && rules.contains("鹅 é"),
            "{rules}"
        );
        assert!(is_concrete(
            &tip(
                "「鹅」是大白鹅，不是肚子饿的饿哦",
                "鹅 é rises like a goose's neck"
            ),
            &req
        ));
        let (req, _) = tip_for(
            "Humpty Dumpty sat on a wall. Humpty Dumpty had a great fall.",
            "Humpty Dumpty sat on a ball. Humpty Dumpty had a great fall.",
            Mode::Voice,
        );
        let rules = concrete_rules(&req);
        assert!(
            rules.contains("\"wall\"") && rules.contains("at least 5 words"),
            "{rules}"
        );
        assert!(is_concrete(
            &tip(
                "蛋蛋坐在墙上，墙是 wall 不是球",
                "Humpty sits on a wall, not a ball"
            ),
            &req
        ));
    }

    #[test]
    fn an_english_tip_names_a_word_of_the_text() {
        let (req, _) = tip_for(
            "Humpty Dumpty sat on a wall. Humpty Dumpty had a great fall.",
            "Humpty Dumpty sat on a ball. Humpty Dumpty had a great fall.",
            Mode::Voice,
        );
        let en = "Humpty sits on a WALL, and a wall is not a ball";
        assert!(is_concrete(
            &tip("墙是 wall，球才是 ball，蛋蛋坐在墙上", en),
            &req
        ));
        assert!(!is_concrete(
            &tip("多读几遍就一定能记住了，加油哦！", en),
            &req
        ));
        // Only common words of the line: generic.
        assert!(!is_concrete(
            &tip(
                "多读几遍就一定能记住了，加油哦！",
                "Say the line and say it again"
            ),
            &req
        ));
        assert!(!is_concrete(
            &tip(
                "墙是 wall，球才是 ball，蛋蛋坐在墙上",
                "Say the line and say it again"
            ),
            &req
        ));
    }

    /// The templates pass the rule LLM tips must pass, on every error of the
    /// shared development fixture.
    #[test]
    fn template_tips_are_concrete_on_the_fixture() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../../shared/recite-dev-cases.jsonl");
        let text = std::fs::read_to_string(&path).unwrap();
        let mut seen = 0;
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let c: serde_json::Value = serde_json::from_str(line).unwrap();
            let lang: Lang = c["lang"].as_str().unwrap().parse().unwrap();
            let mode: Mode = c["mode"].as_str().unwrap().parse().unwrap();
            let r = Reference::new(c["reference"].as_str().unwrap(), Some(lang)).unwrap();
            let v = check(
                &r,
                &Transcript::new(c["transcript"].as_str().unwrap()),
                mode,
            )
            .unwrap();
            for e in &v.errors {
                let req = TipRequest::from_error(&r, e, mode, "", 2);
                let tip = TemplateTips.tip(&req);
                assert!(is_concrete(&tip, &req), "{}: {e:?}\n{tip:?}", c["id"]);
                seen += 1;
            }
        }
        assert!(seen > 150, "only {seen} errors in the fixture");
    }
}
