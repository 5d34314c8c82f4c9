//! How a Chinese character sounds: every reading (heteronyms included) from
//! the `pinyin` crate, packed into small integers so that comparing two
//! characters by sound costs a few integer compares.
//!
//! Voice mode compares by sound because speech recognition cannot tell 疑 from
//! 移: two characters sound the same when they share a reading with tone; a
//! shared syllable with another tone is a tone error.

use pinyin::{Pinyin, ToPinyin, ToPinyinMulti};

/// Most readings kept per character (the pinyin data has a few characters
/// with more; the rare extra readings are dropped).
const MAX_READINGS: usize = 8;

/// One reading: the toneless syllable packed into the high bytes, the tone
/// (1–4, 5 for the neutral tone) in the lowest byte.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Reading(u64);

impl Reading {
    fn from_pinyin(p: Pinyin) -> Self {
        let plain = p.plain().as_bytes();
        let mut packed: u64 = 0;
        for &b in plain.iter().take(7) {
            packed = (packed << 8) | u64::from(b);
        }
        let tone = p
            .with_tone_num_end()
            .bytes()
            .last()
            .filter(u8::is_ascii_digit)
            .map_or(5, |d| d - b'0');
        Self((packed << 8) | u64::from(tone))
    }

    /// The syllable without its tone.
    pub fn syllable(self) -> u64 {
        self.0 >> 8
    }

    pub fn tone(self) -> u8 {
        (self.0 & 0xff) as u8
    }
}

/// Every reading of one character.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Readings {
    len: u8,
    items: [Reading; MAX_READINGS],
}

impl Readings {
    /// The readings of `c`, or none for a character the pinyin data lacks.
    pub fn of(c: char) -> Self {
        let mut r = Self::default();
        if let Some(multi) = c.to_pinyin_multi() {
            for p in multi {
                let reading = Reading::from_pinyin(p);
                if usize::from(r.len) < MAX_READINGS && !r.as_slice().contains(&reading) {
                    r.items[usize::from(r.len)] = reading;
                    r.len += 1;
                }
            }
        }
        r
    }

    pub fn as_slice(&self) -> &[Reading] {
        &self.items[..usize::from(self.len)]
    }

    /// True when the two characters share a reading, tone included.
    pub fn same_sound(&self, other: &Self) -> bool {
        self.as_slice().iter().any(|a| other.as_slice().contains(a))
    }

    /// True when the two characters share a syllable, whatever the tone.
    pub fn same_syllable(&self, other: &Self) -> bool {
        self.as_slice().iter().any(|a| {
            other
                .as_slice()
                .iter()
                .any(|b| a.syllable() == b.syllable())
        })
    }
}

/// The usual reading of `c` with its tone mark (`"yuè"`), for feedback.
pub fn pinyin_with_tone(c: char) -> Option<&'static str> {
    c.to_pinyin().map(Pinyin::with_tone)
}

/// The usual reading of `c` without tone (`"yue"`).
pub fn pinyin_plain(c: char) -> Option<&'static str> {
    c.to_pinyin().map(Pinyin::plain)
}

/// The usual tone of `c` (1–4, 5 for neutral).
pub fn tone(c: char) -> Option<u8> {
    c.to_pinyin().map(|p| Reading::from_pinyin(p).tone())
}

/// The final (韵母) of the usual reading of `c`, for rhyme hooks: "guāng" → "uang"
/// is reduced to its rhyming part "ang".
pub fn rhyme(c: char) -> Option<String> {
    let plain = pinyin_plain(c)?;
    const INITIALS: [&str; 23] = [
        "zh", "ch", "sh", "b", "p", "m", "f", "d", "t", "n", "l", "g", "k", "h", "j", "q", "x",
        "r", "z", "c", "s", "y", "w",
    ];
    let mut fin = plain;
    for i in INITIALS {
        if let Some(rest) = plain.strip_prefix(i) {
            fin = rest;
            break;
        }
    }
    // Medials do not change the rhyme: guang/shuang/xiang all rhyme in -ang.
    let rhyme = match fin {
        f if f.len() > 1
            && (f.starts_with('i')
                || f.starts_with('u')
                || f.starts_with('ü')
                || f.starts_with('v')) =>
        {
            let tail = &f[f.chars().next().map_or(0, char::len_utf8)..];
            if tail.starts_with(['a', 'o', 'e']) {
                tail
            } else {
                f
            }
        }
        f => f,
    };
    Some(rhyme.to_string())
}

/// A plain-words description of a tone for a child.
pub fn tone_name_zh(tone: u8) -> &'static str {
    match tone {
        1 => "第一声（平平的 ˉ）",
        2 => "第二声（往上扬 ˊ）",
        3 => "第三声（先降再升 ˇ）",
        4 => "第四声（往下降 ˋ）",
        _ => "轻声",
    }
}

pub fn tone_name_en(tone: u8) -> &'static str {
    match tone {
        1 => "first tone (high and flat)",
        2 => "second tone (rising)",
        3 => "third tone (dips then rises)",
        4 => "fourth tone (falling)",
        _ => "neutral tone",
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn homophones_share_a_reading() {
        assert!(Readings::of('月').same_sound(&Readings::of('越')));
        assert!(Readings::of('疑').same_sound(&Readings::of('移')));
        assert!(!Readings::of('头').same_sound(&Readings::of('偷')));
        assert!(Readings::of('头').same_syllable(&Readings::of('偷')));
        assert!(!Readings::of('月').same_syllable(&Readings::of('烟')));
    }

    #[test]
    fn heteronyms_count() {
        // 行 is xíng and háng: both 形 and 航 sound like it.
        assert!(Readings::of('行').same_sound(&Readings::of('形')));
        assert!(Readings::of('行').same_sound(&Readings::of('航')));
    }

    #[test]
    fn non_hanzi_have_no_reading() {
        assert!(Readings::of('a').as_slice().is_empty());
        assert!(Readings::of('😀').as_slice().is_empty());
    }

    #[test]
    fn tones_and_rhymes() {
        assert_eq!(tone('头'), Some(2));
        assert_eq!(tone('偷'), Some(1));
        assert_eq!(pinyin_with_tone('月'), Some("yuè"));
        assert_eq!(rhyme('光').as_deref(), Some("ang"));
        assert_eq!(rhyme('霜').as_deref(), Some("ang"));
        assert_eq!(rhyme('乡').as_deref(), Some("ang"));
        assert_eq!(rhyme('流').as_deref(), Some("iu"));
    }
}
