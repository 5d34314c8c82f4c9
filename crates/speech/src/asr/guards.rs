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
                    && chars[start + times * period..start + (times + 1) * period]
                        == chars[start..start + period]
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

/// Copies of one token n-gram in a row after which whisper may not begin
/// another (see [`tokens_to_block`]). Three copies pass: 鹅，鹅，鹅 and
/// "row, row, row" are real text.
const DECODE_LOOP_COPIES: usize = 4;

/// Longest token n-gram whose loops the decoder blocks.
const DECODE_LOOP_LONGEST: usize = 8;

/// Keeps whisper's greedy decoder out of repetition loops: the text tokens
/// it would emit next that would begin a fourth copy in a row of a 1–8
/// token n-gram. whisper base falls into such loops on repeated syllables
/// (咏鹅's 鹅，鹅，鹅 came out as 哲 ×43, Humpty Dumpty as "tidump" ×17) and
/// then loses the rest of the recitation; with the loop's next step
/// forbidden, the decoder takes its next best guess and finds its place
/// again. The output guards still cut whatever loops remain.
pub fn tokens_to_block(text_tokens: &[i32]) -> Vec<i32> {
    let len = text_tokens.len();
    let mut blocked = Vec::new();
    for n in 1..=DECODE_LOOP_LONGEST {
        let span = n * (DECODE_LOOP_COPIES - 1);
        if span > len {
            break;
        }
        let tail = &text_tokens[len - span..];
        if (n..span).all(|i| tail[i] == tail[i - n]) && !blocked.contains(&tail[0]) {
            blocked.push(tail[0]);
        }
    }
    blocked
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
        let mut u = vec![HeardUnit {
            text: "2tw3tw3tw3tw3tw3t".into(),
            confidence: 0.3,
            start_ms: 0,
            end_ms: 0,
        }];
        assert_eq!(
            cut_inner_loops(&mut u),
            Some(GuardFlag::Repetition {
                ngram: "tw3".into(),
                times: 5
            })
        );
        assert_eq!(u[0].text, "2tw3");
        let mut u = vec![HeardUnit {
            text: "little".into(),
            confidence: 0.9,
            start_ms: 0,
            end_ms: 0,
        }];
        assert!(cut_inner_loops(&mut u).is_none());
        assert_eq!(u[0].text, "little");
    }

    #[test]
    fn the_decoder_may_not_begin_a_fourth_copy() {
        // 哲 ×3: a fourth is blocked.
        assert_eq!(tokens_to_block(&[7, 9, 9, 9]), vec![9]);
        assert!(tokens_to_block(&[7, 9, 9]).is_empty());
        // 鹅，鹅，鹅 is three copies of (鹅 ，) with the last comma missing: passes.
        assert!(tokens_to_block(&[5, 1, 5, 1, 5]).is_empty());
        // … and a fourth 鹅 after the comma is blocked.
        assert_eq!(tokens_to_block(&[5, 1, 5, 1, 5, 1]), vec![5]);
        // A two-token hanzi (bytes 3, 4) three times, then a three-token phrase three times.
        assert_eq!(tokens_to_block(&[3, 4, 3, 4, 3, 4]), vec![3]);
        assert_eq!(tokens_to_block(&[8, 1, 2, 3, 1, 2, 3, 1, 2, 3]), vec![1]);
        // Nothing repeats: nothing is blocked.
        assert!(tokens_to_block(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]).is_empty());
        assert!(tokens_to_block(&[]).is_empty());
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
