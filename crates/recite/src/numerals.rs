//! Reading Arabic numerals aloud: as Chinese numerals in Chinese text
//! (3000 → 三千, 2 → 二) and as English number words in English text
//! (3 → three, 21st → twenty first). A child says the number, speech
//! recognition often writes digits, and a typed answer may use either.
//!
//! Chinese has several correct readings of one number (1000 is 一千 or, in
//! verse, 千; 2 before a measure word is 两), so [`zh_readings`] returns every
//! reading, the standard one first; the checker picks the one the reference
//! uses.

const ZH_DIGITS: [char; 10] = ['零', '一', '二', '三', '四', '五', '六', '七', '八', '九'];

/// Longest digit string read as a number; longer ones are read digit by digit.
const MAX_NUMBER_DIGITS: usize = 12;

/// Every Chinese reading of a run of ASCII digits (optionally with one
/// decimal point), the standard reading first. `year` marks digits followed
/// by 年, which are read digit by digit (2024年 → 二零二四年).
pub fn zh_readings(digits: &str, year: bool) -> Vec<String> {
    let by_digit: String = digits
        .chars()
        .map(|c| match c.to_digit(10) {
            Some(d) => ZH_DIGITS[d as usize],
            None => '点',
        })
        .collect();
    let (int_part, frac_part) = match digits.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (digits, None),
    };
    let as_number = (!int_part.is_empty()
        && int_part.len() <= MAX_NUMBER_DIGITS
        && !(int_part.len() > 1 && int_part.starts_with('0')))
    .then(|| int_part.parse::<u64>().ok())
    .flatten();
    let Some(n) = as_number else {
        return vec![by_digit];
    };
    let mut standard = zh_integer(n);
    if let Some(f) = frac_part {
        standard.push('点');
        standard.extend(
            f.chars()
                .filter_map(|c| c.to_digit(10))
                .map(|d| ZH_DIGITS[d as usize]),
        );
    }
    let mut out = Vec::with_capacity(4);
    if year && frac_part.is_none() && int_part.len() == 4 {
        out.push(by_digit.clone());
    }
    out.push(standard.clone());
    // Verse and everyday speech drop the leading 一 of 一百/一千/一万 (千里, 百尺).
    for unit in ['百', '千', '万', '亿'] {
        let mut prefix = String::from('一');
        prefix.push(unit);
        if standard.starts_with(&prefix) {
            out.push(standard.chars().skip(1).collect());
        }
    }
    // 2 before a measure word or a big unit is usually 两 (两个黄鹂, 两千).
    if standard.starts_with('二') && !standard.starts_with("二十") {
        out.push(
            std::iter::once('两')
                .chain(standard.chars().skip(1))
                .collect(),
        );
    }
    if digits.len() > 1 && !out.contains(&by_digit) {
        out.push(by_digit);
    }
    out
}

/// The standard Chinese reading of an integer (10 → 十, 105 → 一百零五,
/// 10050 → 一万零五十).
pub fn zh_integer(n: u64) -> String {
    if n == 0 {
        return "零".into();
    }
    const BIG: [&str; 4] = ["", "万", "亿", "万亿"];
    let mut groups = Vec::new();
    let mut rest = n;
    while rest > 0 {
        groups.push((rest % 10_000) as u16);
        rest /= 10_000;
    }
    let mut out = String::new();
    let mut pending_zero = false;
    for (k, &g) in groups.iter().enumerate().rev() {
        if g == 0 {
            pending_zero = !out.is_empty();
            continue;
        }
        if !out.is_empty() && (pending_zero || g < 1000) {
            out.push('零');
        }
        out.push_str(&zh_group(g));
        out.push_str(BIG.get(k).copied().unwrap_or(""));
        pending_zero = false;
    }
    if let Some(rest) = out.strip_prefix("一十") {
        out = format!("十{rest}");
    }
    out
}

fn zh_group(g: u16) -> String {
    let mut out = String::new();
    let mut zero = false;
    for (pos, unit) in [(1000u16, "千"), (100, "百"), (10, "十"), (1, "")] {
        let d = usize::from(g / pos % 10);
        if d == 0 {
            zero = !out.is_empty();
        } else {
            if zero {
                out.push('零');
                zero = false;
            }
            out.push(ZH_DIGITS[d]);
            out.push_str(unit);
        }
    }
    out
}

const EN_ONES: [&str; 20] = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
];
const EN_TENS: [&str; 10] = [
    "", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
];

/// English words for a run of digits (with an optional decimal point) and an
/// optional ordinal suffix (`st`, `nd`, `rd`, `th`): "21" → ["twenty", "one"],
/// "3rd" → ["third"]. Over-long numbers are read digit by digit.
pub fn en_words(digits: &str, ordinal: bool) -> Vec<String> {
    let digit_word = |c: char| {
        c.to_digit(10)
            .map_or("point", |d| EN_ONES[d as usize])
            .to_string()
    };
    let (int_part, frac_part) = match digits.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (digits, None),
    };
    let n = (!int_part.is_empty() && int_part.len() <= MAX_NUMBER_DIGITS)
        .then(|| int_part.parse::<u64>().ok())
        .flatten();
    let Some(n) = n else {
        return digits.chars().map(digit_word).collect();
    };
    let mut words = en_integer(n);
    if let Some(f) = frac_part {
        words.push("point".into());
        words.extend(f.chars().map(digit_word));
    } else if ordinal {
        if let Some(last) = words.pop() {
            words.push(en_ordinal(&last));
        }
    }
    words
}

fn en_integer(n: u64) -> Vec<String> {
    if n < 20 {
        return vec![EN_ONES[n as usize].into()];
    }
    if n < 100 {
        let mut w = vec![EN_TENS[(n / 10) as usize].to_string()];
        if !n.is_multiple_of(10) {
            w.push(EN_ONES[(n % 10) as usize].into());
        }
        return w;
    }
    let (div, name) = match n {
        _ if n < 1_000 => (100, "hundred"),
        _ if n < 1_000_000 => (1_000, "thousand"),
        _ if n < 1_000_000_000 => (1_000_000, "million"),
        _ => (1_000_000_000, "billion"),
    };
    let mut w = en_integer(n / div);
    w.push(name.into());
    if !n.is_multiple_of(div) {
        w.extend(en_integer(n % div));
    }
    w
}

fn en_ordinal(word: &str) -> String {
    match word {
        "one" => "first".into(),
        "two" => "second".into(),
        "three" => "third".into(),
        "five" => "fifth".into(),
        "eight" => "eighth".into(),
        "nine" => "ninth".into(),
        "twelve" => "twelfth".into(),
        w if w.ends_with('y') => format!("{}ieth", &w[..w.len() - 1]),
        w => format!("{w}th"),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn chinese_integers() {
        for (n, s) in [
            (0, "零"),
            (2, "二"),
            (10, "十"),
            (15, "十五"),
            (20, "二十"),
            (105, "一百零五"),
            (110, "一百一十"),
            (1000, "一千"),
            (3000, "三千"),
            (10050, "一万零五十"),
            (100_000, "十万"),
            (20_0000_0001, "二十亿零一"),
        ] {
            assert_eq!(zh_integer(n), s, "{n}");
        }
    }

    #[test]
    fn chinese_readings_offer_verse_and_measure_forms() {
        assert_eq!(zh_readings("1000", false), ["一千", "千", "一零零零"]);
        assert_eq!(zh_readings("3000", false)[0], "三千");
        assert!(zh_readings("2", false).contains(&"两".to_string()));
        assert_eq!(zh_readings("2024", true)[0], "二零二四");
        assert_eq!(zh_readings("3.5", false)[0], "三点五");
        assert_eq!(zh_readings("007", false), ["零零七"]);
        assert_eq!(zh_readings("12345678901234567890", false).len(), 1);
    }

    #[test]
    fn english_words() {
        assert_eq!(en_words("3", false), ["three"]);
        assert_eq!(en_words("21", false), ["twenty", "one"]);
        assert_eq!(en_words("100", false), ["one", "hundred"]);
        assert_eq!(
            en_words("1999", false),
            ["one", "thousand", "nine", "hundred", "ninety", "nine"]
        );
        assert_eq!(en_words("3", true), ["third"]);
        assert_eq!(en_words("20", true), ["twentieth"]);
        assert_eq!(en_words("2.5", false), ["two", "point", "five"]);
    }
}
