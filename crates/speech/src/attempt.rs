//! Judging one recording of a recitation — the one function both the CLI
//! (`deskmate recite audio`) and the window's voice practice call, so the
//! two cannot drift apart. First it decides whether what whisper heard is
//! an attempt at all: nothing heard, whisper's own neutral prompt echoed
//! back (以下是普通话的句子, a degraded recording), only punctuation ("。。。",
//! a very quiet one), or nothing that sounds like the material are **not an
//! attempt** — the child is asked to try again closer to the microphone,
//! and nothing is scored or recorded. Otherwise the fair verdict
//! ([`crate::fairness`]) is made against the same recording.

use deskmate_recite::{CheckError, Reference};
use pinyin::ToPinyin;
use serde::Serialize;

use crate::asr::units::is_hanzi;
use crate::asr::{AsrEngine, Lang, Transcript, MANDARIN_PROMPT};
use crate::fairness::{judge, judge_with_audio, FairnessSettings, VoiceVerdict};

/// Why a recording is not an attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NotAnAttempt {
    /// No speech was detected, or whisper heard no words.
    NothingHeard,
    /// Whisper gave back its own neutral prompt: it heard no words it could
    /// trust.
    PromptEcho,
    /// Only punctuation came back (a very quiet recording).
    OnlyPunctuation,
    /// Nothing heard sounds like the material.
    NotTheMaterial,
}

impl NotAnAttempt {
    /// A stable name for why (listed in `SpeechError::CODES`), so a front
    /// end can say it in the child's language.
    pub fn code(&self) -> &'static str {
        match self {
            Self::NothingHeard => "speech.nothing_heard",
            Self::PromptEcho | Self::OnlyPunctuation => "speech.unclear",
            Self::NotTheMaterial => "speech.not_the_material",
        }
    }

    /// What to tell the child, in Chinese.
    pub fn message_zh(&self) -> &'static str {
        "没听清楚，请靠近麦克风再背一遍。"
    }

    /// What to tell the child, in English.
    pub fn message_en(&self) -> &'static str {
        match self {
            Self::NothingHeard => {
                "nothing was heard — try again closer to the microphone; nothing was recorded"
            }
            Self::PromptEcho | Self::OnlyPunctuation => {
                "the recording was too unclear to hear any words — try again closer to the microphone; nothing was recorded"
            }
            Self::NotTheMaterial => {
                "what was heard does not sound like the text — try again closer to the microphone; nothing was recorded"
            }
        }
    }
}

/// The outcome of one recording.
#[derive(Debug, Clone)]
pub enum RecordingVerdict {
    /// Not an attempt: say [`NotAnAttempt::message_zh`], record nothing.
    NotAnAttempt(NotAnAttempt),
    /// The fair verdict on the attempt (record it with
    /// [`VoiceVerdict::record_transcript`]).
    Judged(Box<VoiceVerdict>),
}

/// Judges a recording: `heard` is what the pipeline heard (None when voice
/// activity detection found no speech). With `engine` (the whisper worker
/// that transcribed it, still holding it), the differences are re-examined
/// against the audio; without, the transcript alone decides. Blocks on the
/// worker: call from a blocking thread.
pub fn judge_recording(
    reference: &Reference,
    heard: Option<&Transcript>,
    settings: &FairnessSettings,
    engine: Option<&AsrEngine>,
) -> Result<RecordingVerdict, CheckError> {
    let Some(heard) = heard else {
        return Ok(RecordingVerdict::NotAnAttempt(NotAnAttempt::NothingHeard));
    };
    if let Some(why) = not_an_attempt(reference, heard) {
        return Ok(RecordingVerdict::NotAnAttempt(why));
    }
    let verdict = match engine {
        Some(engine) => judge_with_audio(reference, heard, settings, engine)?,
        None => judge(reference, heard, settings)?,
    };
    Ok(RecordingVerdict::Judged(Box::new(verdict)))
}

/// Whether what was heard is no attempt at the material (see the module
/// documentation), and why.
pub fn not_an_attempt(reference: &Reference, heard: &Transcript) -> Option<NotAnAttempt> {
    let words = heard.text.trim();
    if words.is_empty() {
        let raw = heard.raw_text.trim();
        return Some(
            if !raw.is_empty() && !raw.chars().any(char::is_alphanumeric) {
                NotAnAttempt::OnlyPunctuation
            } else {
                NotAnAttempt::NothingHeard
            },
        );
    }
    if heard.lang == Lang::Zh {
        let prompt: String = MANDARIN_PROMPT.chars().filter(|c| is_hanzi(*c)).collect();
        let said: String = words.chars().filter(|c| is_hanzi(*c)).collect();
        let material: String = material_text(reference)
            .chars()
            .filter(|c| is_hanzi(*c))
            .collect();
        // The prompt, or most of it, and not words the material has too.
        if said.chars().count() >= 4 && prompt.contains(&said) && !material.contains(&said) {
            return Some(NotAnAttempt::PromptEcho);
        }
        if said.is_empty() {
            return Some(NotAnAttempt::OnlyPunctuation);
        }
        let syllables = |s: &str| -> Vec<String> {
            s.chars()
                .map(|c| {
                    c.to_pinyin()
                        .map(|p| p.plain().to_string())
                        .unwrap_or_else(|| c.to_string())
                })
                .collect()
        };
        let in_material = syllables(&material);
        if !syllables(&said).iter().any(|s| in_material.contains(s)) {
            return Some(NotAnAttempt::NotTheMaterial);
        }
    } else {
        let words_of = |s: &str| -> Vec<String> {
            s.split(|c: char| !(c.is_alphanumeric() || c == '\''))
                .filter(|w| !w.is_empty())
                .map(str::to_lowercase)
                .collect()
        };
        let material = words_of(&material_text(reference));
        let said = words_of(words);
        if said.is_empty() {
            return Some(NotAnAttempt::OnlyPunctuation);
        }
        if !said.iter().any(|w| material.contains(w)) {
            return Some(NotAnAttempt::NotTheMaterial);
        }
    }
    None
}

/// The material's lines as one text.
fn material_text(reference: &Reference) -> String {
    reference
        .lines()
        .iter()
        .map(|l| l.text.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::asr::HeardUnit;

    const JING_YE_SI: &str = "床前明月光，疑是地上霜。举头望明月，低头思故乡。";

    fn heard(lang: Lang, text: &str, raw: &str) -> Transcript {
        let units = match lang {
            Lang::Zh => text
                .chars()
                .map(|c| HeardUnit {
                    text: c.to_string(),
                    confidence: 0.9,
                    start_ms: 0,
                    end_ms: 0,
                })
                .collect(),
            Lang::En => text
                .split_whitespace()
                .map(|w| HeardUnit {
                    text: w.into(),
                    confidence: 0.9,
                    start_ms: 0,
                    end_ms: 0,
                })
                .collect(),
        };
        Transcript {
            lang,
            text: text.into(),
            raw_text: raw.into(),
            units,
            flags: vec![],
            audio_ms: 6000,
            asr_ms: 0,
            audio_id: 0,
        }
    }

    fn zh(text: &str, raw: &str) -> Option<NotAnAttempt> {
        let r = Reference::new(JING_YE_SI, None).unwrap();
        not_an_attempt(&r, &heard(Lang::Zh, text, raw))
    }

    #[test]
    fn the_prompt_echoed_back_is_not_an_attempt() {
        assert_eq!(
            zh("以下是普通话的句子", "以下是普通话的句子。"),
            Some(NotAnAttempt::PromptEcho)
        );
        assert_eq!(
            zh("普通话的句子", "普通话的句子"),
            Some(NotAnAttempt::PromptEcho)
        );
    }

    #[test]
    fn only_punctuation_is_not_an_attempt() {
        assert_eq!(zh("", "。。。"), Some(NotAnAttempt::OnlyPunctuation));
        assert_eq!(zh("", ""), Some(NotAnAttempt::NothingHeard));
    }

    #[test]
    fn words_that_sound_nothing_like_the_material_are_not_an_attempt() {
        assert_eq!(
            zh("谢谢观看", "谢谢观看"),
            Some(NotAnAttempt::NotTheMaterial)
        );
        // One line, even misheard by sound (鞋 for 霜? no: 一世 for 疑是), is an attempt.
        assert_eq!(zh("一世地上生", "一世地上生"), None);
        assert_eq!(zh("床前", "床前"), None);
        assert_eq!(zh(&JING_YE_SI.replace(['，', '。'], ""), JING_YE_SI), None);
    }

    #[test]
    fn english_needs_a_word_of_the_material() {
        let r = Reference::new(
            "Twinkle, twinkle, little star, how I wonder what you are.",
            None,
        )
        .unwrap();
        assert_eq!(
            not_an_attempt(&r, &heard(Lang::En, "please subscribe to the channel", "")),
            Some(NotAnAttempt::NotTheMaterial)
        );
        assert_eq!(
            not_an_attempt(&r, &heard(Lang::En, "twinkle twinkle little car", "")),
            None
        );
    }

    #[test]
    fn a_recording_that_is_not_an_attempt_is_not_judged() {
        let r = Reference::new(JING_YE_SI, None).unwrap();
        let s = FairnessSettings::default();
        let echo = heard(Lang::Zh, "以下是普通话的句子", "以下是普通话的句子。");
        assert!(matches!(
            judge_recording(&r, Some(&echo), &s, None).unwrap(),
            RecordingVerdict::NotAnAttempt(NotAnAttempt::PromptEcho)
        ));
        assert!(matches!(
            judge_recording(&r, None, &s, None).unwrap(),
            RecordingVerdict::NotAnAttempt(NotAnAttempt::NothingHeard)
        ));
        let right = heard(
            Lang::Zh,
            "床前明月光疑是地上霜举头望明月低头思故乡",
            JING_YE_SI,
        );
        match judge_recording(&r, Some(&right), &s, None).unwrap() {
            RecordingVerdict::Judged(v) => assert_eq!(v.fair_accuracy, 100.0),
            other => panic!("{other:?}"),
        }
    }
}
