//! The companion's memory of each child, as the chat scene and the lead's
//! prompt use it (issue 19 point 3):
//!
//! - [`Request::parse`]: "记住我喜欢恐龙" / "remember that I like dinosaurs"
//!   asks to remember, "你记得我什么?" / "what do you remember about me?"
//!   asks what is remembered; both are answered offline by the chat scene;
//! - [`Ranking`]: which memories matter for the message now. The offline
//!   [`Overlap`] ranking scores shared characters and words plus recency;
//!   an embedding-based one can replace it behind the same trait;
//! - [`prompt_block`]: the few most relevant memories, bounded in
//!   characters, for the lead companion's system prompt;
//! - [`extract`]: the facts worth keeping drawn from a finished
//!   conversation by a model, checked before they are stored.

pub mod extract;

use std::collections::HashSet;

use deskmate_store::{Memory, MemoryKind};

/// What the child asked of the memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    /// Remember this (the words after "记住" / "remember that").
    Remember { kind: MemoryKind, text: String },
    /// What do you remember about me?
    Recall,
}

const REMEMBER_ZH: &[&str] = &["请记住", "你要记住", "记住", "记得"];
const REMEMBER_EN: &[&str] = &["please remember that ", "remember that ", "remember "];
const RECALL: &[&str] = &[
    "你记得我什么",
    "你记住了我什么",
    "你还记得我什么",
    "你都记得我什么",
    "关于我你记得什么",
    "what do you remember about me",
    "what do you know about me",
];

impl Request {
    /// The request in `text`, if it is one. "记得" counts only at the start
    /// and not as a question ("记得吗?" is not a request to remember).
    pub fn parse(text: &str) -> Option<Self> {
        let t = text.trim();
        let bare: String = t
            .trim_end_matches(['?', '？', '。', '.', '!', '！', '呀', '呢', '吗'])
            .trim()
            .to_string();
        let lower = bare.to_lowercase();
        if RECALL.iter().any(|r| lower == *r || lower.starts_with(r)) {
            return Some(Self::Recall);
        }
        if t.ends_with(['?', '？', '吗']) {
            return None;
        }
        let rest = REMEMBER_ZH
            .iter()
            .find_map(|p| bare.strip_prefix(p))
            .map(|r| {
                r.trim_start_matches(['，', ',', ':', '：', ' '])
                    .to_string()
            })
            .or_else(|| {
                REMEMBER_EN.iter().find_map(|p| {
                    lower
                        .starts_with(p)
                        .then(|| bare.get(p.len()..).unwrap_or("").trim().to_string())
                })
            })?;
        if rest.chars().filter(|c| c.is_alphanumeric()).count() < 2 {
            return None;
        }
        Some(Self::Remember {
            kind: kind_of(&rest),
            text: rest,
        })
    }
}

/// The kind a remembered sentence reads as.
pub fn kind_of(text: &str) -> MemoryKind {
    let l = text.to_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| l.contains(w));
    if has(&[
        "不会",
        "很难",
        "难",
        "怕",
        "find it hard",
        "hard",
        "struggle",
        "difficult",
    ]) {
        MemoryKind::FindsHard
    } else if has(&[
        "想学会",
        "目标",
        "在练",
        "正在学",
        "working on",
        "learning to",
        "want to learn",
        "practis",
        "practic",
    ]) {
        MemoryKind::WorkingTowards
    } else if has(&[
        "喜欢",
        "爱",
        "like",
        "love",
        "favourite",
        "favorite",
        "enjoy",
    ]) {
        MemoryKind::Likes
    } else {
        MemoryKind::Other
    }
}

/// Chooses the memories that matter for a message. The offline [`Overlap`]
/// is the default; an embedding ranking can take its place.
pub trait Ranking: Send + Sync {
    /// At most `n` of `memories`, most relevant to `text` first.
    fn relevant<'m>(&self, memories: &'m [Memory], text: &str, n: usize) -> Vec<&'m Memory>;
}

/// Shared characters (hanzi) and words (Latin letters) between the message
/// and a memory, plus a little for recency, so with nothing shared the
/// newest memories come first.
#[derive(Debug, Clone, Copy, Default)]
pub struct Overlap;

/// The units compared: each hanzi (or other non-Latin letter) alone, each
/// Latin word lowercased (3 letters or more, to skip "a", "is").
fn units(text: &str) -> HashSet<String> {
    let mut out = HashSet::new();
    let mut word = String::new();
    for c in text.chars().chain(std::iter::once(' ')) {
        if c.is_ascii_alphanumeric() {
            word.push(c.to_ascii_lowercase());
            continue;
        }
        if word.len() >= 3 {
            out.insert(std::mem::take(&mut word));
        }
        word.clear();
        if c.is_alphanumeric() && !c.is_ascii() && !"我你的了是在很也".contains(c) {
            out.insert(c.to_string());
        }
    }
    out
}

impl Ranking for Overlap {
    fn relevant<'m>(&self, memories: &'m [Memory], text: &str, n: usize) -> Vec<&'m Memory> {
        let said = units(text);
        let mut by_age: Vec<&Memory> = memories.iter().collect();
        // Newest first: its index is its age.
        by_age.sort_by(|a, b| b.updated_at.cmp(&a.updated_at));
        let total = by_age.len().max(1) as f64;
        let mut scored: Vec<(f64, &Memory)> = by_age
            .into_iter()
            .enumerate()
            .map(|(age, m)| {
                let own = units(&m.text);
                let shared = own.intersection(&said).count() as f64;
                let overlap = if own.is_empty() {
                    0.0
                } else {
                    shared / (own.len() as f64).sqrt()
                };
                let recency = 0.5 * (1.0 - age as f64 / total);
                (overlap + recency, m)
            })
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0));
        scored.into_iter().take(n).map(|(_, m)| m).collect()
    }
}

/// How many memories go into a prompt, and at most how many characters.
pub const PROMPT_MEMORIES: usize = 5;
pub const PROMPT_CHARS: usize = 600;

fn kind_label(kind: MemoryKind) -> &'static str {
    match kind {
        MemoryKind::Likes => "likes",
        MemoryKind::FindsHard => "finds hard",
        MemoryKind::WorkingTowards => "is working towards",
        MemoryKind::Other => "note",
    }
}

/// The system prompt's paragraph on what is remembered about the child,
/// most relevant to `text` first; `None` when nothing is remembered.
pub fn prompt_block(ranking: &dyn Ranking, memories: &[Memory], text: &str) -> Option<String> {
    let mut block = String::from(
        "What you remember about this child (use it naturally; do not recite the list):",
    );
    let mut added = 0;
    for m in ranking.relevant(memories, text, PROMPT_MEMORIES) {
        let line = format!("\n- {}: {}", kind_label(m.kind), m.text);
        if block.chars().count() + line.chars().count() > PROMPT_CHARS {
            break;
        }
        block.push_str(&line);
        added += 1;
    }
    (added > 0).then_some(block)
}

/// The answer to "你记得我什么?": the list, in the child's language.
pub fn recall_answer(memories: &[Memory]) -> (String, String) {
    if memories.is_empty() {
        return (
            "我还没有记住关于你的事。你可以说“记住我喜欢……”。".into(),
            "I don't remember anything about you yet. You can say \"remember that I like …\"."
                .into(),
        );
    }
    let items: Vec<&str> = memories.iter().take(10).map(|m| m.text.as_str()).collect();
    (
        format!("我记得：{}。", items.join("；")),
        format!("I remember: {}.", items.join("; ")),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use deskmate_store::MemorySource;

    fn mem(text: &str, updated: &str) -> Memory {
        Memory {
            id: text.into(),
            profile_id: "p".into(),
            kind: kind_of(text),
            text: text.into(),
            source: MemorySource::Explicit,
            thread_id: None,
            created_at: updated.into(),
            updated_at: updated.into(),
        }
    }

    #[test]
    fn requests_are_read_in_both_languages() {
        assert_eq!(
            Request::parse("记住我喜欢恐龙"),
            Some(Request::Remember {
                kind: MemoryKind::Likes,
                text: "我喜欢恐龙".into()
            })
        );
        assert_eq!(
            Request::parse("Remember that I find fractions hard."),
            Some(Request::Remember {
                kind: MemoryKind::FindsHard,
                text: "I find fractions hard".into()
            })
        );
        assert_eq!(Request::parse("你记得我什么?"), Some(Request::Recall));
        assert_eq!(Request::parse("你还记得我什么呀？"), Some(Request::Recall));
        assert_eq!(
            Request::parse("What do you remember about me?"),
            Some(Request::Recall)
        );
        assert_eq!(Request::parse("记得吗?"), None);
        assert_eq!(Request::parse("记住"), None);
        assert_eq!(Request::parse("月亮上有兔子吗"), None);
        assert_eq!(Request::parse("I remember the poem"), None);
    }

    #[test]
    fn overlap_puts_the_matching_memory_first_then_the_newest() {
        let ms = vec![
            mem("喜欢恐龙", "2026-01-01T00:00:00.000Z"),
            mem("进位加法很难", "2026-01-02T00:00:00.000Z"),
            mem("likes football", "2026-01-03T00:00:00.000Z"),
        ];
        let top = Overlap.relevant(&ms, "今天的加法作业", 2);
        assert_eq!(top[0].text, "进位加法很难");
        let top = Overlap.relevant(&ms, "tell me about dinosaurs and football", 1);
        assert_eq!(top[0].text, "likes football");
        let top = Overlap.relevant(&ms, "hello", 3);
        assert_eq!(
            top[0].text, "likes football",
            "newest first when nothing shared"
        );
        assert_eq!(top.len(), 3);
    }

    #[test]
    fn the_prompt_block_is_bounded() {
        let ms: Vec<Memory> = (0..20)
            .map(|i| {
                mem(
                    &format!("{}{i}", "恐龙".repeat(60)),
                    "2026-01-01T00:00:00.000Z",
                )
            })
            .collect();
        let block = prompt_block(&Overlap, &ms, "恐龙").unwrap();
        assert!(block.chars().count() <= PROMPT_CHARS);
        assert!(block.contains("恐龙"));
        assert!(prompt_block(&Overlap, &[], "x").is_none());
        let (zh, en) = recall_answer(&ms[..2]);
        assert!(zh.starts_with("我记得") && en.starts_with("I remember"));
    }
}
