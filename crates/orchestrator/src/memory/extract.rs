//! Memories drawn from a finished conversation (issue 19 point 3), the pure
//! half: the request that asks a model for the facts worth keeping about a
//! child, and the checks its answer must pass before anything is stored.
//!
//! The model calls [`FUNCTION`] with `{facts: [{kind, text}]}`. A fact is
//! kept only when its kind is one of the memory kinds, its text is short
//! and not already remembered (compared without spaces, punctuation or
//! case), and it holds no personal detail a child's companion must never
//! keep (an address, a phone number, a school, a password: [`personal`]).
//! At most [`MAX_FACTS`] per conversation. An answer out of shape is an
//! error and stores nothing.

use std::collections::HashSet;

use deskmate_llm::{ChatRequest, Message, ToolSpec};
use deskmate_store::{Memory, MemoryKind, MEMORY_MAX_CHARS};
use serde_json::{json, Value};

/// The function the model calls with the facts.
pub const FUNCTION: &str = "remember_facts";

/// At most this many facts from one conversation.
pub const MAX_FACTS: usize = 5;

/// One line of the conversation: the child's words or the companion's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Said {
    pub by_child: bool,
    pub text: String,
}

/// The longest conversation sent, in characters (its end is kept).
const CONVERSATION_MAX_CHARS: usize = 6_000;

/// The request asking for the facts worth keeping from `conversation`,
/// with what is already remembered so the model does not repeat it.
pub fn request(conversation: &[Said], known: &[Memory]) -> ChatRequest {
    let mut lines: Vec<String> = conversation
        .iter()
        .map(|s| {
            let who = if s.by_child { "child" } else { "companion" };
            format!("[{who}] {}", s.text.trim())
        })
        .collect();
    // The end of a long conversation matters most: drop from the front.
    let mut total: usize = lines.iter().map(|l| l.chars().count() + 1).sum();
    while total > CONVERSATION_MAX_CHARS && lines.len() > 1 {
        total -= lines.remove(0).chars().count() + 1;
    }
    let remembered = if known.is_empty() {
        "(nothing yet)".to_string()
    } else {
        known
            .iter()
            .map(|m| format!("- {} ({})", m.text, m.kind.as_str()))
            .collect::<Vec<_>>()
            .join("\n")
    };
    ChatRequest {
        system: Some(format!(
            "You keep a short memory of a primary-school child for their study companion. \
             From the conversation, pick at most {MAX_FACTS} lasting facts about the child \
             that would help next time: what they like, what they find hard, what they are \
             working towards. Only what the child said or clearly showed; not the companion's \
             ideas, not one-off requests. Never keep personal details: no names of people or \
             schools, no address, phone number, passwords or anything that identifies the \
             child. Write each fact as a short phrase in the child's language (e.g. \
             喜欢恐龙, finds long division hard). Nothing new is a fine answer: call \
             {FUNCTION} with an empty list.\nAlready remembered:\n{remembered}"
        )),
        messages: vec![Message::user(lines.join("\n"))],
        tools: vec![ToolSpec {
            name: FUNCTION.into(),
            description: "The facts worth remembering about the child.".into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "facts": {
                        "type": "array",
                        "maxItems": MAX_FACTS,
                        "items": {
                            "type": "object",
                            "properties": {
                                "kind": {
                                    "type": "string",
                                    "enum": ["likes", "finds_hard", "working_towards", "other"]
                                },
                                "text": {"type": "string"}
                            },
                            "required": ["kind", "text"],
                            "additionalProperties": false
                        }
                    }
                },
                "required": ["facts"],
                "additionalProperties": false
            }),
        }],
        max_tokens: Some(300),
        temperature: Some(0.0),
    }
}

/// The facts in the model's answer (`said`: the function's arguments, or
/// text holding the same JSON) that may be stored, given what is `known`.
/// An answer that is not `{facts: [...]}` is an error (nothing is stored).
pub fn facts(said: &str, known: &[Memory]) -> Result<Vec<(MemoryKind, String)>, String> {
    let json = said
        .find('{')
        .zip(said.rfind('}'))
        .filter(|(s, e)| s < e)
        .map(|(s, e)| &said[s..=e])
        .ok_or_else(|| format!("the answer holds no {FUNCTION} call: {}", cut(said)))?;
    let v: Value = serde_json::from_str(json)
        .map_err(|e| format!("the answer is not JSON ({e}): {}", cut(said)))?;
    let list = v
        .get("facts")
        .and_then(Value::as_array)
        .ok_or_else(|| format!("the answer has no list of facts: {}", cut(said)))?;
    let mut seen: HashSet<String> = known.iter().map(|m| key(&m.text)).collect();
    let mut out = Vec::new();
    for f in list {
        let (Some(kind), Some(text)) = (
            f.get("kind").and_then(Value::as_str),
            f.get("text").and_then(Value::as_str),
        ) else {
            return Err(format!("a fact without kind and text: {f}"));
        };
        let kind: MemoryKind = kind.parse().map_err(|e| format!("{e}"))?;
        let text = text.trim();
        if text.is_empty() || text.chars().count() > MEMORY_MAX_CHARS || personal(text) {
            continue;
        }
        if seen.insert(key(text)) {
            out.push((kind, text.to_string()));
        }
        if out.len() == MAX_FACTS {
            break;
        }
    }
    Ok(out)
}

/// A fact a child's companion must not keep: a run of six or more digits
/// (a phone number, an ID), or words about where the child lives or goes
/// to school, phone numbers or passwords.
pub fn personal(text: &str) -> bool {
    let mut run = 0;
    for c in text.chars() {
        run = if c.is_ascii_digit() { run + 1 } else { 0 };
        if run >= 6 {
            return true;
        }
    }
    let lower = text.to_lowercase();
    const WORDS: &[&str] = &[
        "住在",
        "地址",
        "电话",
        "手机号",
        "密码",
        "学校叫",
        "小学叫",
        "身份证",
        "address",
        "lives at",
        "lives in",
        "phone",
        "password",
        "school is called",
        "goes to school at",
    ];
    WORDS.iter().any(|w| lower.contains(w))
}

/// A fact's text as compared for repeats: no spaces, punctuation or case.
fn key(text: &str) -> String {
    text.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

fn cut(s: &str) -> String {
    s.chars().take(200).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use deskmate_store::MemorySource;

    fn memory(kind: MemoryKind, text: &str) -> Memory {
        Memory {
            id: "m1".into(),
            profile_id: "c1".into(),
            kind,
            text: text.into(),
            source: MemorySource::Explicit,
            thread_id: None,
            created_at: "2026-11-27T08:00:00Z".into(),
            updated_at: "2026-11-27T08:00:00Z".into(),
        }
    }

    #[test]
    fn the_request_names_the_function_and_what_is_known_and_keeps_the_conversations_end() {
        let long = "很长的一句话".repeat(400);
        let said = vec![
            Said {
                by_child: true,
                text: long,
            },
            Said {
                by_child: true,
                text: "我最喜欢恐龙了".into(),
            },
            Said {
                by_child: false,
                text: "恐龙真酷！".into(),
            },
        ];
        let r = request(&said, &[memory(MemoryKind::FindsHard, "分数")]);
        assert_eq!(r.tools[0].name, FUNCTION);
        assert!(r.system.as_deref().unwrap().contains("- 分数 (finds_hard)"));
        let text = r.messages[0].text();
        assert!(
            text.ends_with("[child] 我最喜欢恐龙了\n[companion] 恐龙真酷！"),
            "{text}"
        );
        assert!(
            text.chars().count() <= CONVERSATION_MAX_CHARS,
            "{}",
            text.chars().count()
        );
    }

    #[test]
    fn facts_are_checked_deduplicated_and_capped() {
        let known = [memory(MemoryKind::Likes, "喜欢恐龙")];
        let said = r#"{"facts": [
            {"kind": "likes", "text": "喜欢 恐龙！"},
            {"kind": "finds_hard", "text": "觉得乘法口诀难"},
            {"kind": "finds_hard", "text": "觉得乘法口诀难。"},
            {"kind": "working_towards", "text": "想背完唐诗三百首"},
            {"kind": "other", "text": "住在幸福路12号"},
            {"kind": "other", "text": "妈妈的手机 13800138000"},
            {"kind": "likes", "text": "   "},
            {"kind": "likes", "text": "画画"},
            {"kind": "likes", "text": "足球"},
            {"kind": "likes", "text": "游泳"},
            {"kind": "likes", "text": "下棋"}
        ]}"#;
        let got = facts(said, &known).unwrap();
        assert_eq!(
            got,
            vec![
                (MemoryKind::FindsHard, "觉得乘法口诀难".to_string()),
                (MemoryKind::WorkingTowards, "想背完唐诗三百首".to_string()),
                (MemoryKind::Likes, "画画".to_string()),
                (MemoryKind::Likes, "足球".to_string()),
                (MemoryKind::Likes, "游泳".to_string()),
            ]
        );
    }

    #[test]
    fn an_answer_out_of_shape_is_an_error() {
        assert!(facts("I think the child likes dinosaurs.", &[]).is_err());
        assert!(facts(r#"{"memories": []}"#, &[]).is_err());
        assert!(facts(r#"{"facts": [{"kind": "hobby", "text": "恐龙"}]}"#, &[]).is_err());
        assert!(facts(r#"{"facts": [{"text": "恐龙"}]}"#, &[]).is_err());
        assert_eq!(facts(r#"{"facts": []}"#, &[]).unwrap(), vec![]);
    }

    #[test]
    fn personal_details_are_never_kept() {
        for t in [
            "住在幸福路",
            "password is dino",
            "学校叫实验小学",
            "电话是多少",
            "id 310101201801",
        ] {
            assert!(personal(t), "{t}");
        }
        for t in ["喜欢恐龙", "finds long division hard", "想考100分"] {
            assert!(!personal(t), "{t}");
        }
    }
}
