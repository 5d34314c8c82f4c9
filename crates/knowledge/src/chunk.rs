//! Cutting a document's text into passages of about [`CHUNK_CHARS`]
//! characters, each overlapping the previous one by [`OVERLAP_CHARS`], so
//! an answer that straddles a cut is still whole in one passage. Cuts fall
//! at a sentence end when one lies in the second half of the window —
//! Chinese 。！？； (with a closing quote kept on its sentence), a line
//! break, or an English `.`/`!`/`?` followed by a space — else at a space,
//! else exactly at the window's end. Offsets are in characters, not bytes.

/// Characters per chunk (at most).
pub const CHUNK_CHARS: usize = 1000;
/// Characters each chunk shares with the one before it.
pub const OVERLAP_CHARS: usize = 200;

/// One passage of a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// 0-based index in the document.
    pub position: usize,
    /// Character offset of the first character in the text.
    pub start: usize,
    /// Character offset just past the last character.
    pub end: usize,
    pub text: String,
}

const CLOSERS: &[char] = &['”', '’', '」', '』', '）', ')', '"', '\''];

/// True when a cut between `chars[i - 1]` and `chars[i]` ends a sentence.
fn ends_sentence(chars: &[char], i: usize) -> bool {
    if i == 0 || i > chars.len() {
        return false;
    }
    let next = chars.get(i).copied();
    if next.is_some_and(|c| CLOSERS.contains(&c)) {
        // The closing quote belongs to the sentence: cut after it.
        return false;
    }
    let mut j = i - 1;
    while j > 0 && CLOSERS.contains(&chars[j]) {
        j -= 1;
    }
    match chars[j] {
        '。' | '！' | '？' | '；' | '\n' => true,
        '.' | '!' | '?' => next.is_none_or(char::is_whitespace),
        _ => false,
    }
}

/// Cuts `text` into chunks of at most `size` characters overlapping by
/// `overlap` (which must be under half of `size`). Whitespace-only text
/// gives no chunks.
pub fn chunk_text(text: &str, size: usize, overlap: usize) -> Vec<Chunk> {
    let chars: Vec<char> = text.chars().collect();
    let n = chars.len();
    let mut out = Vec::new();
    if text.trim().is_empty() || size == 0 {
        return out;
    }
    let overlap = overlap.min(size.saturating_sub(1) / 2);
    let mut start = 0usize;
    loop {
        if n - start <= size {
            push(&mut out, &chars, start, n);
            break;
        }
        let hard_end = start + size;
        let floor = start + size / 2;
        let cut = (floor + 1..=hard_end)
            .rev()
            .find(|&i| ends_sentence(&chars, i))
            .or_else(|| {
                (floor + 1..=hard_end)
                    .rev()
                    .find(|&i| chars[i - 1].is_whitespace())
            })
            .unwrap_or(hard_end);
        push(&mut out, &chars, start, cut);
        start = cut - overlap;
    }
    out
}

fn push(out: &mut Vec<Chunk>, chars: &[char], start: usize, end: usize) {
    let text: String = chars[start..end].iter().collect();
    if text.trim().is_empty() {
        return;
    }
    out.push(Chunk {
        position: out.len(),
        start,
        end,
        text,
    });
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn chinese(sentences: usize) -> String {
        (0..sentences)
            .map(|i| format!("这是第{i}句话，讲的是春天的花和秋天的月亮。"))
            .collect()
    }

    #[test]
    fn short_text_is_one_chunk_and_blank_text_none() {
        let c = chunk_text("床前明月光。", CHUNK_CHARS, OVERLAP_CHARS);
        assert_eq!(c.len(), 1);
        assert_eq!((c[0].start, c[0].end), (0, 6));
        assert!(chunk_text(" \n\t ", CHUNK_CHARS, OVERLAP_CHARS).is_empty());
    }

    #[test]
    fn chinese_chunks_end_at_a_full_stop_and_overlap_by_200() {
        let text = chinese(200);
        let chars: Vec<char> = text.chars().collect();
        let chunks = chunk_text(&text, CHUNK_CHARS, OVERLAP_CHARS);
        assert!(chunks.len() > 5, "{}", chunks.len());
        for pair in chunks.windows(2) {
            let (a, b) = (&pair[0], &pair[1]);
            assert!(a.end - a.start <= CHUNK_CHARS);
            assert!(a.end - a.start > CHUNK_CHARS / 2);
            assert_eq!(chars[a.end - 1], '。', "cut mid-sentence: {:?}", a.text);
            assert_eq!(a.end - b.start, OVERLAP_CHARS, "overlap");
            let tail: String = chars[b.start..a.end].iter().collect();
            assert!(a.text.ends_with(&tail) && b.text.starts_with(&tail));
        }
        let last = chunks.last().unwrap();
        assert_eq!(last.end, chars.len(), "the text's end is covered");
        assert_eq!(chunks[0].start, 0);
        for (i, c) in chunks.iter().enumerate() {
            assert_eq!(c.position, i);
            assert_eq!(c.text, chars[c.start..c.end].iter().collect::<String>());
        }
    }

    #[test]
    fn a_closing_quote_stays_with_its_sentence() {
        let body = "他说：“今天的月亮真圆啊！”".repeat(90);
        let chunks = chunk_text(&body, CHUNK_CHARS, OVERLAP_CHARS);
        assert!(chunks.len() > 1);
        assert!(chunks[0].text.ends_with("！”"), "{:?}", &chunks[0].text);
    }

    #[test]
    fn english_cuts_at_sentence_ends_not_at_decimal_points() {
        let text = "The value of pi is 3.14 and it never ends. ".repeat(60);
        let chunks = chunk_text(&text, CHUNK_CHARS, OVERLAP_CHARS);
        assert!(chunks.len() > 1);
        assert!(
            chunks[0].text.ends_with("never ends."),
            "{:?}",
            &chunks[0].text[chunks[0].text.len() - 20..]
        );
    }

    #[test]
    fn text_without_boundaries_is_cut_at_the_window() {
        let text = "月".repeat(2500);
        let chunks = chunk_text(&text, CHUNK_CHARS, OVERLAP_CHARS);
        let spans: Vec<(usize, usize)> = chunks.iter().map(|c| (c.start, c.end)).collect();
        assert_eq!(spans, vec![(0, 1000), (800, 1800), (1600, 2500)]);
    }

    #[test]
    fn a_line_break_is_a_boundary_and_spaces_are_a_fallback() {
        let mut text = "a".repeat(700);
        text.push('\n');
        text.push_str(&"b".repeat(600));
        let c = chunk_text(&text, CHUNK_CHARS, OVERLAP_CHARS);
        assert_eq!(c[0].end, 701);
        let words = "word ".repeat(400);
        let c = chunk_text(&words, CHUNK_CHARS, OVERLAP_CHARS);
        assert!(c[0].text.ends_with("word "), "{:?}", &c[0].text[990..]);
    }
}
