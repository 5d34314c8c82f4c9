//! Guards against whisper's known failure modes, so the child is never
//! blamed for text the recogniser made up: stock phrases learnt from video
//! subtitles, repetition loops, text "heard" in silence, and output far
//! longer than the material. Each guard removes the made-up part and leaves
//! a [`GuardFlag`] so the verdict can say it is unsure.

use serde::{Deserialize, Serialize};

use super::units::{HeardUnit, Lang};

/// What a guard found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum GuardFlag {
    /// A subtitle-credit phrase whisper invents on quiet or unclear audio.
    StockPhrase { phrase: String },
    /// An n-gram repeated many times in a row (a decoding loop); repeats were cut.
    Repetition { ngram: String, times: usize },
    /// Text came out although no speech was detected; it was dropped.
    TextOnSilence { text: String },
    /// Far more units than the material has; the tail was cut.
    TooLong { heard: usize, expected: usize },
}

/// Phrases whisper produces from its training subtitles, never from a recitation.
const STOCK_PHRASES: &[&str] = &[
    "请不吝点赞",
    "订阅转发",
    "打赏支持明镜",
    "明镜与点点",
    "字幕由",
    "字幕组",
    "字幕志愿者",
    "中文字幕",
    "感谢观看",
    "谢谢观看",
    "谢谢收看",
    "优优独播剧场",
    "amara.org",
    "thank you for watching",
    "thanks for watching",
    "please subscribe",
    "subtitles by",
    "like and subscribe",
];

/// Finds a stock phrase in a segment's text (case- and space-insensitive).
pub fn stock_phrase(segment_text: &str) -> Option<&'static str> {
    let squeezed: String = segment_text
        .chars()
        .filter(|c| !c.is_whitespace() && !"，。！？、,.!?".contains(*c))
        .collect::<String>()
        .to_lowercase();
    STOCK_PHRASES
        .iter()
        .find(|p| squeezed.contains(&p.replace(' ', "")))
        .copied()
}

/// How many consecutive copies of an n-gram make a loop: a single unit
/// four times ("的的的的"), a longer one three times. Poems repeat a
/// syllable twice (关关, 离离) and sometimes a short phrase twice, so those pass.
fn loop_threshold(n: usize) -> usize {
    if n == 1 {
        4
    } else {
        3
    }
}

/// Cuts repetition loops, keeping the first copy. Returns the flag if any.
pub fn cut_repetition(units: &mut Vec<HeardUnit>, lang: Lang) -> Option<GuardFlag> {
    let texts: Vec<&str> = units.iter().map(|u| u.text.as_str()).collect();
    for start in 0..texts.len() {
        for n in 1..=8usize {
            if start + n * loop_threshold(n) > texts.len() {
                break;
            }
            let gram = &texts[start..start + n];
            let mut times = 1;
            while start + (times + 1) * n <= texts.len()
                && &texts[start + times * n..start + (times + 1) * n] == gram
            {
                times += 1;
            }
            if times >= loop_threshold(n) {
                let ngram = if lang == Lang::Zh {
                    gram.concat()
                } else {
                    gram.join(" ")
                };
                units.drain(start + n..start + times * n);
                return Some(GuardFlag::Repetition { ngram, times });
            }
        }
    }
    None
}

/// Cuts loops inside one unit: a Latin/digit run such as `3tw3tw3tw3tw`
/// that whisper emits as one "word" (measured on a dev clip). A period of
/// 1–8 characters repeated 3 times or more is cut to one copy.
pub fn cut_inner_loops(units: &mut [HeardUnit]) -> Option<GuardFlag> {
    let mut flag = None;
    for u in units.iter_mut() {
        let chars: Vec<char> = u.text.chars().collect();
        'search: for start in 0..chars.len() {
            for period in 1..=8usize {
                let mut times = 1;
                while start + (times + 1) * period <= chars.len()
                    && chars[start + times * period..start + (times + 1) * period] == chars[start..start + period]
                {
                    times += 1;
                }
                if times >= 3 {
                    let ngram: String = chars[start..start + period].iter().collect();
                    u.text = chars[..start + period].iter().collect();
                    flag = Some(GuardFlag::Repetition { ngram, times });
                    break 'search;
                }
            }
        }
    }
    flag
}

/// Cuts output far longer than the material: more than twice the expected
/// units plus a margin of 10 (a child may add a title or an author's name).
pub fn cut_too_long(units: &mut Vec<HeardUnit>, expected: usize) -> Option<GuardFlag> {
    let limit = expected * 2 + 10;
    if expected > 0 && units.len() > limit {
        let heard = units.len();
        units.truncate(limit);
        return Some(GuardFlag::TooLong { heard, expected });
    }
    None
}

/// The largest number of tokens whisper may emit for a recitation of
/// `expected_units`: Mandarin hanzi take up to 3 byte-tokens, English words
/// ~1.5, plus room for punctuation and timestamps. Bounds runaway loops.
pub fn max_tokens(expected_units: Option<usize>, lang: Lang) -> i32 {
    let Some(n) = expected_units else { return 0 }; // 0 = whisper's own limit
    let per_unit = if lang == Lang::Zh { 3 } else { 2 };
    i32::try_from((n * per_unit + 32).min(440)).unwrap_or(440)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn units_of(s: &str) -> Vec<HeardUnit> {
        s.chars()
            .map(|c| HeardUnit {
                text: c.to_string(),
                confidence: 0.9,
                start_ms: 0,
                end_ms: 0,
            })
            .collect()
    }
    fn text(u: &[HeardUnit]) -> String {
        u.iter().map(|u| u.text.as_str()).collect()
    }

    #[test]
    fn stock_phrases_are_found() {
        assert_eq!(
            stock_phrase("请不吝点赞 订阅 转发 打赏支持明镜与点点栏目"),
            Some("请不吝点赞")
        );
        assert_eq!(
            stock_phrase(" Thank you for watching!"),
            Some("thank you for watching")
        );
        assert_eq!(stock_phrase("床前明月光，疑是地上霜。"), None);
    }

    #[test]
    fn loops_are_cut_but_poetic_doubling_is_kept() {
        let mut u = units_of("低头思故乡乡乡乡乡乡");
        let flag = cut_repetition(&mut u, Lang::Zh).unwrap();
        assert_eq!(text(&u), "低头思故乡");
        assert_eq!(
            flag,
            GuardFlag::Repetition {
                ngram: "乡".into(),
                times: 6
            }
        );

        let mut u = units_of("春眠不觉晓不觉晓不觉晓不觉晓");
        cut_repetition(&mut u, Lang::Zh).unwrap();
        assert_eq!(text(&u), "春眠不觉晓");

        let mut u = units_of("关关雎鸠在河之洲离离原上草");
        assert!(cut_repetition(&mut u, Lang::Zh).is_none());
        assert_eq!(text(&u), "关关雎鸠在河之洲离离原上草");
    }

    #[test]
    fn loops_inside_one_word_are_cut() {
        let mut u = vec![HeardUnit { text: "2tw3tw3tw3tw3tw3t".into(), confidence: 0.3, start_ms: 0, end_ms: 0 }];
        assert_eq!(cut_inner_loops(&mut u), Some(GuardFlag::Repetition { ngram: "tw3".into(), times: 5 }));
        assert_eq!(u[0].text, "2tw3");
        let mut u = vec![HeardUnit { text: "little".into(), confidence: 0.9, start_ms: 0, end_ms: 0 }];
        assert!(cut_inner_loops(&mut u).is_none());
        assert_eq!(u[0].text, "little");
    }

    #[test]
    fn output_far_longer_than_the_material_is_cut() {
        let mut u = units_of(&"好".repeat(60));
        assert_eq!(
            cut_too_long(&mut u, 20),
            Some(GuardFlag::TooLong {
                heard: 60,
                expected: 20
            })
        );
        assert_eq!(u.len(), 50);
        let mut u = units_of(&"好".repeat(45));
        assert!(cut_too_long(&mut u, 20).is_none());
    }

    #[test]
    fn token_cap_grows_with_the_material() {
        assert_eq!(max_tokens(Some(20), Lang::Zh), 92);
        assert_eq!(max_tokens(Some(1000), Lang::Zh), 440);
        assert_eq!(max_tokens(None, Lang::En), 0);
    }
}
