//! A child-safe companion (issue 20, point 3): the policy every child's
//! conversation starts with ([`child_policy`], `safety/child_policy.md`),
//! and the check of every reply to a child before the child sees it —
//! the kept rules (`safety/unsafe_rules.txt`, Chinese and English), plus a
//! moderation endpoint when a parent configured one (OpenAI-compatible
//! `POST {base}/moderations`). A flagged reply is replaced by
//! [`safe_reply`]; the app stores it as replaced, keeps the original for
//! the parent only and tells the parent.
//!
//! **Decisions.** The rules run first and always (offline, no cost); the
//! moderation endpoint is asked only when the rules found nothing. A
//! moderation call that fails leaves the rules' verdict (logged, never
//! holding the child's answer up): a child offline still gets answers,
//! checked by the rules.

use std::sync::OnceLock;
use std::time::Duration;

use regex::{Regex, RegexBuilder};
use serde::{Deserialize, Serialize};

/// The kept rules: `[category]` lines, then one regular expression a line.
pub const RULES_TEXT: &str = include_str!("../safety/unsafe_rules.txt");
/// The policy for children, with `{grade}`, `{grade_en}`, `{homework}`,
/// `{homework_en}` to fill in.
const POLICY: &str = include_str!("../safety/child_policy.md");

/// The setting (app-wide, this device) naming the moderation endpoint: a
/// base URL (`https://api.openai.com/v1`) and an optional model.
pub const MODERATION: &str = "safety.moderation";

/// How long a moderation call may take.
pub const MODERATION_TIMEOUT: Duration = Duration::from_secs(10);

/// One rule of the kept list.
#[derive(Debug, Clone)]
struct Rule {
    category: String,
    pattern: Regex,
}

/// The kept rules, compiled.
#[derive(Debug, Clone)]
pub struct Rules {
    rules: Vec<Rule>,
}

impl Rules {
    /// Reads a rule list; a line that is no regular expression, or a rule
    /// before any category, is an error naming the line.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut rules = Vec::new();
        let mut category: Option<String> = None;
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
                category = Some(name.trim().to_string());
                continue;
            }
            let Some(c) = &category else {
                return Err(format!("line {}: a rule before any [category]", i + 1));
            };
            let pattern = RegexBuilder::new(line)
                .case_insensitive(true)
                .build()
                .map_err(|e| format!("line {}: {e}", i + 1))?;
            rules.push(Rule {
                category: c.clone(),
                pattern,
            });
        }
        Ok(Self { rules })
    }

    /// The rules kept in the repository (`safety/unsafe_rules.txt`); a
    /// test checks they compile, so an empty list here means none did.
    pub fn builtin() -> &'static Rules {
        static RULES: OnceLock<Rules> = OnceLock::new();
        RULES.get_or_init(|| {
            Rules::parse(RULES_TEXT).unwrap_or_else(|e| {
                tracing::error!("the kept safety rules cannot be read: {e}");
                Rules { rules: Vec::new() }
            })
        })
    }

    /// The categories `text` breaks, each once (`rule:<category>`).
    pub fn check(&self, text: &str) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for r in &self.rules {
            let reason = format!("rule:{}", r.category);
            if !out.contains(&reason) && r.pattern.is_match(text) {
                out.push(reason);
            }
        }
        out
    }

    pub fn len(&self) -> usize {
        self.rules.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }
}

/// Where replies are also sent to be moderated.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModerationConfig {
    /// The API's base URL (`…/v1`); `/moderations` is added.
    pub base_url: String,
    /// The moderation model (`omni-moderation-latest`); the server's
    /// default when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

/// A moderation endpoint with its key (the chat provider's).
#[derive(Clone)]
pub struct Moderation {
    pub config: ModerationConfig,
    key: Option<String>,
}

impl std::fmt::Debug for Moderation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Moderation")
            .field("config", &self.config)
            .field("key", &self.key.as_ref().map(|_| "…"))
            .finish()
    }
}

#[derive(Deserialize)]
struct ModerationReply {
    results: Vec<ModerationResult>,
}

#[derive(Deserialize)]
struct ModerationResult {
    flagged: bool,
    #[serde(default)]
    categories: serde_json::Map<String, serde_json::Value>,
}

impl Moderation {
    pub fn new(config: ModerationConfig, key: Option<String>) -> Self {
        Self { config, key }
    }

    /// Asks the endpoint about `text` (blocking; call off the async
    /// executor): the categories flagged (`moderation:<category>`, or
    /// `moderation:flagged` when none is named), empty when nothing is.
    pub fn check(&self, text: &str) -> Result<Vec<String>, String> {
        let url = format!("{}/moderations", self.config.base_url.trim_end_matches('/'));
        let mut body = serde_json::json!({ "input": text });
        if let Some(m) = &self.config.model {
            body["model"] = serde_json::Value::from(m.as_str());
        }
        let client = reqwest::blocking::Client::builder()
            .timeout(MODERATION_TIMEOUT)
            .build()
            .map_err(|e| e.to_string())?;
        let mut req = client.post(&url).json(&body);
        if let Some(k) = &self.key {
            req = req.bearer_auth(k);
        }
        let resp = req.send().map_err(|e| format!("{url}: {e}"))?;
        let status = resp.status();
        if !status.is_success() {
            return Err(format!("{url} answered {status}"));
        }
        let reply: ModerationReply = resp
            .json()
            .map_err(|e| format!("{url} answered out of shape: {e}"))?;
        let mut out = Vec::new();
        for r in reply.results.iter().filter(|r| r.flagged) {
            let named: Vec<String> = r
                .categories
                .iter()
                .filter(|(_, v)| v.as_bool() == Some(true))
                .map(|(k, _)| format!("moderation:{k}"))
                .collect();
            if named.is_empty() {
                out.push("moderation:flagged".to_string());
            }
            for n in named {
                if !out.contains(&n) {
                    out.push(n);
                }
            }
        }
        Ok(out)
    }
}

/// What the check found in a reply.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Verdict {
    /// Why it must be replaced (`rule:…`, `moderation:…`); empty: safe.
    pub reasons: Vec<String>,
    /// The moderation endpoint failed (the rules' verdict stands).
    pub moderation_error: Option<String>,
}

impl Verdict {
    pub fn flagged(&self) -> bool {
        !self.reasons.is_empty()
    }
}

/// Checks a reply to a child: the kept rules, then the moderation endpoint
/// (when given and the rules found nothing).
pub fn check(text: &str, moderation: Option<&Moderation>) -> Verdict {
    let reasons = Rules::builtin().check(text);
    if !reasons.is_empty() || text.trim().is_empty() {
        return Verdict {
            reasons,
            moderation_error: None,
        };
    }
    match moderation.map(|m| m.check(text)) {
        None => Verdict::default(),
        Some(Ok(reasons)) => Verdict {
            reasons,
            moderation_error: None,
        },
        Some(Err(e)) => {
            tracing::warn!("the moderation endpoint failed; the rules' verdict stands: {e}");
            Verdict {
                reasons: Vec::new(),
                moderation_error: Some(e),
            }
        }
    }
}

/// What the child gets in place of a flagged reply, in their language.
pub fn safe_reply(english: bool) -> &'static str {
    if english {
        "Let's talk about something else. If anything worries you, tell a parent or a teacher. \
         Shall we chat about something fun, or recite a poem together?"
    } else {
        "这个我们换个话题吧。如果有让你担心或不舒服的事，要告诉爸爸妈妈或者老师哦。我们聊点别的，或者一起背首诗？"
    }
}

/// The policy for a child in grade `grade`, with homework answers allowed
/// by a parent or not: put into the companion's system prompt.
pub fn child_policy(grade: Option<u8>, answers_allowed: bool) -> String {
    let (grade_zh, grade_en) = match grade {
        Some(g) => (format!("（{g} 年级）"), format!(" (grade {g})")),
        None => (String::new(), String::new()),
    };
    let (hw, hw_en) = if answers_allowed {
        (
            "家长已允许给出答案：先陪孩子自己想、给提示；孩子试过以后，再给答案和讲解。",
            "a parent allows answers: help the child try first with hints; give the answer, with the explanation, only after they have tried.",
        )
    } else {
        (
            "教方法，不直接给答案：给提示、问引导的问题、用类似的例子讲方法；孩子要答案也不给（家长没有允许）。",
            "teach, do not hand over answers: give hints, ask guiding questions, explain the method with a similar example; do not give the final answer even when asked (a parent has not allowed it).",
        )
    };
    POLICY
        .replace("{grade}", &grade_zh)
        .replace("{grade_en}", &grade_en)
        .replace("{homework}", hw)
        .replace("{homework_en}", hw_en)
}

#[cfg(test)]
mod tests;
