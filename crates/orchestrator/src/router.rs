//! The intent router: what a child said, classified — never decided. Given
//! the words (typed, or what speech recognition heard), the scene the child
//! is in and the material library, [`route`] names one intent (`chat`,
//! `recite`, `homework`, `plan`, `continue_current`, `exit_current`) with a
//! confidence and the slots it found (the material meant). Whether to
//! switch scenes is the guardrails' call (planned, issue 16), not this.
//!
//! It works offline, by rules over the words and the library — titles,
//! authors and first lines — in the order a teacher would hear them:
//!
//! 1. a homework cue (作业, 这道题, an arithmetic question, "homework"…);
//! 2. a cue for today's plan (今天 + 做什么/任务/还要…, "my plan"…);
//! 3. inside a scene, leaving it (不背了, 不做了, 退出, "stop"…) or going on
//!    with it (再来一次, 下一首, 好的, and the homework walk's 下一题,
//!    再给个提示, 我懂了, "again"…) — the scene-local fast path;
//! 4. a recitation cue (背, 默写, 复习, "recite"…), with the material named if
//!    any (by title, first line, or an author with one poem in the library);
//! 5. a material named alone (静夜思) is a recitation, unless it is asked
//!    about (静夜思是什么意思 is a question for the companion);
//! 6. anything else is chat.
//!
//! Measured on labelled utterances kept in `tests/router/` (a dev set the
//! rules were written against and a held-out set written before them): see
//! the crate's README.

use serde::{Deserialize, Serialize};

/// What the child wants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Intent {
    Chat,
    Recite,
    Homework,
    Plan,
    /// Go on with the scene the child is in (再来一次, 下一首, 好的).
    ContinueCurrent,
    /// Leave the scene the child is in (不背了, 退出).
    ExitCurrent,
}

impl Intent {
    pub const ALL: [Intent; 6] = [
        Intent::Chat,
        Intent::Recite,
        Intent::Homework,
        Intent::Plan,
        Intent::ContinueCurrent,
        Intent::ExitCurrent,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Intent::Chat => "chat",
            Intent::Recite => "recite",
            Intent::Homework => "homework",
            Intent::Plan => "plan",
            Intent::ContinueCurrent => "continue_current",
            Intent::ExitCurrent => "exit_current",
        }
    }
}

/// How sure the router is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Confidence {
    Low,
    Mid,
    High,
}

/// Where a classification came from: the offline rules (also when nothing
/// was routed, e.g. a refused request), or a configured model's structured
/// output (live, or its logged reply read again by a replay).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum RoutedBy {
    Rules,
    Model,
}

impl RoutedBy {
    /// The name written in traces and printed by the CLI.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Rules => "rules",
            Self::Model => "model",
        }
    }
}

/// The scene a child is in when they speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Scene {
    Chat,
    Recite,
    Homework,
    Plan,
}

/// One material of the library, as the router looks for it in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogEntry {
    pub id: String,
    pub title: String,
    pub author: Option<String>,
    /// The material's text (its first line is looked for).
    pub body: String,
}

/// The library the router looks materials up in.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    entries: Vec<Known>,
}

#[derive(Debug, Clone)]
struct Known {
    entry: CatalogEntry,
    title: String,
    first_line: String,
    author: Option<String>,
}

/// The router's answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Routed {
    pub intent: Intent,
    pub confidence: Confidence,
    /// The material meant, when one was named (its id).
    pub material_id: Option<String>,
    pub material_title: Option<String>,
    /// Which rule decided, for traces.
    pub reason: &'static str,
}

/// Lowercase, without punctuation, symbols or spaces between hanzi; English
/// words separated by single spaces.
fn fold(text: &str) -> String {
    let mut out = String::new();
    let mut space = false;
    for c in text.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            if space && !out.is_empty() && !is_cjk(c) && !out.ends_with(is_cjk) {
                out.push(' ');
            }
            space = false;
            out.push(c);
        } else {
            space = true;
        }
    }
    out
}

fn is_cjk(c: char) -> bool {
    matches!(c, '\u{3400}'..='\u{4dbf}' | '\u{4e00}'..='\u{9fff}' | '\u{f900}'..='\u{faff}')
}

/// A title without its parenthesised note (采薇（节选） → 采薇).
fn bare_title(title: &str) -> String {
    let cut = title.find(['（', '(']).map_or(title, |i| &title[..i]);
    fold(cut)
}

fn first_line(body: &str) -> String {
    let line = body
        .split(|c: char| {
            matches!(
                c,
                '\n' | '，' | '。' | ',' | '.' | '！' | '？' | '!' | '?' | '；' | ';'
            )
        })
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    fold(line)
}

/// Whether `text` contains `word` as a whole word (English) or at all (Chinese).
fn has(text: &str, word: &str) -> bool {
    if word.chars().any(is_cjk) {
        return text.contains(word);
    }
    let padded = format!(" {text} ");
    padded.contains(&format!(" {word} "))
}

fn any(text: &str, words: &[&str]) -> bool {
    words.iter().any(|w| has(text, w))
}

impl Catalog {
    pub fn new(entries: impl IntoIterator<Item = CatalogEntry>) -> Self {
        Self {
            entries: entries
                .into_iter()
                .map(|entry| Known {
                    title: bare_title(&entry.title),
                    first_line: first_line(&entry.body),
                    author: entry.author.as_deref().map(fold).filter(|a| !a.is_empty()),
                    entry,
                })
                .collect(),
        }
    }

    /// The material `text` names, if one: by title (the longest that fits),
    /// by its first line, or by an author with exactly one material.
    /// `Err(())` when an author is named who has several.
    fn named(&self, text: &str) -> Result<Option<&CatalogEntry>, ()> {
        let by_title = self
            .entries
            .iter()
            .filter(|k| k.title.chars().count() >= 2 && has(text, &k.title))
            .max_by_key(|k| k.title.chars().count());
        if let Some(k) = by_title {
            return Ok(Some(&k.entry));
        }
        if let Some(k) = self
            .entries
            .iter()
            .find(|k| k.first_line.chars().count() >= 4 && has(text, &k.first_line))
        {
            return Ok(Some(&k.entry));
        }
        let by_author: Vec<&Known> = self
            .entries
            .iter()
            .filter(|k| {
                k.author
                    .as_deref()
                    .is_some_and(|a| a.chars().count() >= 2 && has(text, a))
            })
            .collect();
        match by_author.as_slice() {
            [] => Ok(None),
            [one] => Ok(Some(&one.entry)),
            _ => Err(()),
        }
    }

    /// The material a model named (model-backed routing,
    /// [`crate::intent_model`]): by id, title, first line or an author with
    /// one material; `None` when the library has no such material.
    pub fn find(&self, name: &str) -> Option<&CatalogEntry> {
        if let Some(k) = self.entries.iter().find(|k| k.entry.id == name.trim()) {
            return Some(&k.entry);
        }
        self.named(&fold(name)).ok().flatten()
    }

    /// Every material's title, in library order.
    pub fn titles(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|k| k.entry.title.as_str())
    }
}

const HOMEWORK: &[&str] = &[
    "作业",
    "这道题",
    "这题",
    "题目",
    "数学题",
    "不会做",
    "怎么做",
    "怎么算",
    "怎么读",
    "怎么写",
    "不会写",
    "检查",
    "算一算",
    "homework",
    "worksheet",
    "math problem",
    "this problem",
    "check my",
];
const ARITHMETIC_WORDS: &[&str] = &[
    "加",
    "减",
    "乘",
    "除以",
    "等于",
    "plus",
    "minus",
    "times",
    "divided by",
];
const PLAN: &[&str] = &[
    "计划",
    "任务",
    "安排",
    "my plan",
    "what should i do",
    "what do i have to do",
    "to do today",
];
const TODAY_ASKS: &[&str] = &[
    "做什么",
    "学什么",
    "要背",
    "还要",
    "还有",
    "没做完",
    "哪首",
    "要做",
    "干什么",
];
const EXIT: &[&str] = &[
    "不背了",
    "不想背",
    "不练了",
    "不想练",
    "不做了",
    "不想做",
    "退出",
    "结束",
    "不玩了",
    "算了",
    "stop",
    "quit",
    "exit",
    "no more",
    "enough",
];
const CONTINUE_SOME: &[&str] = &[
    "再来",
    "再背",
    "再读",
    "再做",
    "下一首",
    "下一题",
    "下一个",
    "继续",
    // The homework walk's replies: 再给个提示, 我懂了, 不懂, 告诉我答案.
    "提示",
    "懂了",
    "明白了",
    "不懂",
    "答案",
    "hint",
    "one more",
    "again",
    "next",
    "go on",
    "continue",
];
const CONTINUE_WHOLE: &[&str] = &[
    "好",
    "好的",
    "好吧",
    "嗯",
    "行",
    "可以",
    "开始",
    "开始吧",
    "ok",
    "okay",
    "yes",
    "sure",
];
const RECITE: &[&str] = &[
    "背",
    "默写",
    "复习",
    "recite",
    "practise my poem",
    "practice my poem",
    "say a poem",
    "say the poem",
    "say my poem",
];
const ASKING: &[&str] = &[
    "什么意思",
    "是什么",
    "为什么",
    "讲讲",
    "解释",
    "哪些",
    "哪个",
    "谁写",
    "写的是",
    "what does",
    "mean",
    "who wrote",
    "why",
];
const CHAT: &[&str] = &["聊天", "聊聊", "chat", "talk"];

fn arithmetic(text: &str) -> bool {
    let digits = text.chars().filter(char::is_ascii_digit).count();
    let chinese_number = text.chars().any(|c| "一二两三四五六七八九十百".contains(c));
    let operators = text.chars().any(|c| "+-×÷*/=".contains(c));
    (digits >= 1 || chinese_number)
        && (operators || any(text, ARITHMETIC_WORDS))
        && (digits >= 1 || text.contains("是多少"))
}

/// Classifies what a child said in `scene` (see the module comment).
pub fn route(text: &str, scene: Option<Scene>, catalog: &Catalog) -> Routed {
    // Symbols count for arithmetic; everything else is folded away.
    let raw = text.trim().to_lowercase();
    let words = fold(text);
    let routed = |intent, confidence, reason| Routed {
        intent,
        confidence,
        material_id: None,
        material_title: None,
        reason,
    };
    if any(&words, HOMEWORK) {
        return routed(Intent::Homework, Confidence::High, "a homework word");
    }
    if arithmetic(&raw) && !any(&words, RECITE) {
        return routed(Intent::Homework, Confidence::Mid, "an arithmetic question");
    }
    let today = has(&words, "今天") || has(&words, "today") || has(&words, "now");
    if any(&words, PLAN) || (today && any(&words, TODAY_ASKS)) {
        return routed(Intent::Plan, Confidence::High, "today's plan asked for");
    }
    if scene.is_some() {
        if any(&words, EXIT) {
            return routed(Intent::ExitCurrent, Confidence::High, "leaving the scene");
        }
        let short = words.chars().filter(|c| !c.is_whitespace()).count() <= 6;
        let whole = CONTINUE_WHOLE.iter().any(|w| {
            let bare = words
                .trim_start_matches('我')
                .trim_end_matches(['吧', '呀', '啊']);
            bare == *w
        });
        if whole || (short && any(&words, CONTINUE_SOME)) {
            return routed(
                Intent::ContinueCurrent,
                Confidence::High,
                "going on with the scene",
            );
        }
    } else if any(&words, EXIT) {
        return routed(
            Intent::ExitCurrent,
            Confidence::Low,
            "leaving, but no scene is open",
        );
    }
    let named = catalog.named(&words);
    let with_material = |mut r: Routed| {
        if let Ok(Some(m)) = named {
            r.material_id = Some(m.id.clone());
            r.material_title = Some(m.title.clone());
        }
        r
    };
    if any(&words, RECITE) {
        return with_material(routed(
            Intent::Recite,
            Confidence::High,
            "a recitation word",
        ));
    }
    let asking = any(&words, ASKING) || raw.ends_with(['?', '？', '吗']);
    if matches!(named, Ok(Some(_))) && !asking {
        return with_material(routed(Intent::Recite, Confidence::Mid, "a material named"));
    }
    if any(&words, CHAT) {
        return routed(Intent::Chat, Confidence::High, "asked to chat");
    }
    routed(Intent::Chat, Confidence::Low, "nothing else fits")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn catalog() -> Catalog {
        Catalog::new([
            CatalogEntry {
                id: "jys".into(),
                title: "静夜思".into(),
                author: Some("李白".into()),
                body: "床前明月光，疑是地上霜。\n举头望明月，低头思故乡。".into(),
            },
            CatalogEntry {
                id: "zwl".into(),
                title: "赠汪伦".into(),
                author: Some("李白".into()),
                body: "李白乘舟将欲行，忽闻岸上踏歌声。".into(),
            },
            CatalogEntry {
                id: "cx".into(),
                title: "春晓".into(),
                author: Some("孟浩然".into()),
                body: "春眠不觉晓，处处闻啼鸟。".into(),
            },
            CatalogEntry {
                id: "tw".into(),
                title: "Twinkle, Twinkle, Little Star".into(),
                author: Some("Jane Taylor".into()),
                body: "Twinkle, twinkle, little star,\nHow I wonder what you are!".into(),
            },
        ])
    }

    #[test]
    fn a_material_is_found_by_title_first_line_or_an_only_author() {
        let c = catalog();
        let r = route("我要背床前明月光那首", None, &c);
        assert_eq!(
            (r.intent, r.material_id.as_deref()),
            (Intent::Recite, Some("jys"))
        );
        let r = route("背孟浩然的诗", None, &c);
        assert_eq!(r.material_id.as_deref(), Some("cx"));
        // 李白 has two: the intent stands, the material stays open.
        let r = route("背李白的诗", None, &c);
        assert_eq!((r.intent, r.material_id), (Intent::Recite, None));
        let r = route("Can I recite Twinkle twinkle little star?", None, &c);
        assert_eq!(
            (r.intent, r.material_id.as_deref()),
            (Intent::Recite, Some("tw"))
        );
    }

    #[test]
    fn the_same_words_mean_different_things_in_and_out_of_a_scene() {
        let c = catalog();
        assert_eq!(
            route("好的", Some(Scene::Recite), &c).intent,
            Intent::ContinueCurrent
        );
        assert_eq!(route("好的", None, &c).intent, Intent::Chat);
        let out = route("不背了", None, &c);
        assert_eq!(
            (out.intent, out.confidence),
            (Intent::ExitCurrent, Confidence::Low)
        );
        // Asking about a poem is not reciting it.
        assert_eq!(route("静夜思是什么意思", None, &c).intent, Intent::Chat);
        let named = route("静夜思", None, &c);
        assert_eq!(
            (named.intent, named.confidence),
            (Intent::Recite, Confidence::Mid)
        );
    }
}
