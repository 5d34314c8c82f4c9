//! Model-backed routing (issue 16, point 2): when a model is set up, what
//! the offline router ([`crate::router`]) could only classify with MID or
//! LOW confidence is classified again by the model, as structured output —
//! one JSON object `{"intent", "confidence", "slots": {"material"}}` asked
//! for as the arguments of a `classify_intent` function (a JSON Schema
//! every OpenAI-compatible and Anthropic model takes) — and validated
//! against the router's own intents and the library ([`classification`]):
//! an unknown intent or confidence is refused, a material the library does
//! not hold is dropped.
//!
//! The entry reaches the model only through [`IntentModel`], so it does not
//! depend on how the app reaches it; [`LlmIntentModel`] is the configured
//! model through `deskmate-llm`. The entry bounds every call by a time limit
//! ([`DEFAULT_LIMIT`] unless set) and never waits longer: a model that
//! fails, is late or answers out of shape leaves the offline result in
//! place, with the reason recorded (`model unavailable: …`).

use std::time::Duration;

use deskmate_llm::{ChatRequest, LlmClient, Message, ToolSpec};
use serde_json::{json, Value};

use crate::router::{Catalog, Confidence, Intent, Routed, Scene};

/// How long the entry waits for the model's classification by default.
pub const DEFAULT_LIMIT: Duration = Duration::from_secs(3);

/// The function the model is asked to call with its classification.
pub const FUNCTION: &str = "classify_intent";

/// At most this many titles of the library are shown to the model.
const MAX_TITLES: usize = 300;

/// What the model is asked to classify.
#[derive(Debug, Clone, PartialEq)]
pub struct Ask {
    /// The words, as the offline router saw them.
    pub words: String,
    /// The scene the child is in (none: chatting).
    pub scene: Option<Scene>,
    /// The library's titles.
    pub titles: Vec<String>,
    /// Answer within this, or not at all.
    pub limit: Duration,
}

impl Ask {
    pub fn new(words: &str, scene: Option<Scene>, catalog: &Catalog, limit: Duration) -> Self {
        Self {
            words: words.to_string(),
            scene,
            titles: catalog
                .titles()
                .take(MAX_TITLES)
                .map(str::to_string)
                .collect(),
            limit,
        }
    }
}

/// How the entry asks a model to classify what a child said.
pub trait IntentModel: Send + Sync + std::fmt::Debug {
    /// The model's name (for the trace's `model.call` span).
    fn name(&self) -> String;
    /// The model's reply: the JSON object it classified `ask` as (the
    /// function's arguments, or its text), or why there is none. Should
    /// return within `ask.limit`; the entry stops waiting then anyway.
    fn classify(&self, ask: &Ask) -> Result<String, String>;
}

/// What the model is told.
pub const INSTRUCTIONS: &str = "\
You classify what a child (6-10 years old) said to a desk companion; you never answer it. \
Intents: chat (talk or a question for the companion), recite (recite or review a poem or text), \
homework (help with homework), plan (today's tasks), continue_current (go on with the scene the child is in), \
exit_current (leave the scene the child is in). Confidence: high, mid or low. \
When a material of the library is meant, put its title in slots.material. \
Call classify_intent with the classification, nothing else.";

/// The JSON Schema of the classification.
pub fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "intent": {"type": "string", "enum": Intent::ALL.iter().map(|i| i.as_str()).collect::<Vec<_>>()},
            "confidence": {"type": "string", "enum": ["high", "mid", "low"]},
            "slots": {
                "type": "object",
                "properties": {"material": {"type": ["string", "null"]}},
                "additionalProperties": false
            }
        },
        "required": ["intent", "confidence", "slots"],
        "additionalProperties": false
    })
}

/// The request that asks for `ask`'s classification: the instructions, the
/// library's titles and the words with the scene, and the one function
/// whose arguments are the classification.
pub fn request(ask: &Ask) -> ChatRequest {
    let scene = ask.scene.map_or("none (chatting)", |s| match s {
        Scene::Chat => "chat",
        Scene::Recite => "recite",
        Scene::Homework => "homework",
        Scene::Plan => "plan",
    });
    ChatRequest {
        system: Some(format!(
            "{INSTRUCTIONS}\nThe library: {}",
            ask.titles.join(" / ")
        )),
        messages: vec![Message::user(
            json!({"scene": scene, "said": ask.words}).to_string(),
        )],
        tools: vec![ToolSpec {
            name: FUNCTION.into(),
            description: "The classification of what the child said.".into(),
            parameters: schema(),
        }],
        max_tokens: Some(100),
        temperature: Some(0.0),
    }
}

/// The configured model, classifying.
#[derive(Debug, Clone)]
pub struct LlmIntentModel {
    client: LlmClient,
}

impl LlmIntentModel {
    pub fn new(client: LlmClient) -> Self {
        Self { client }
    }
}

impl IntentModel for LlmIntentModel {
    fn name(&self) -> String {
        self.client.model().to_string()
    }

    fn classify(&self, ask: &Ask) -> Result<String, String> {
        let req = request(ask);
        let client = &self.client;
        // On a thread of its own with its own small runtime (the entry is
        // synchronous, maybe inside a runtime); the call is dropped at the
        // limit, so the thread ends then.
        std::thread::scope(|s| {
            s.spawn(|| {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map_err(|e| format!("no runtime for the call: {e}"))?;
                let done = rt
                    .block_on(async {
                        tokio::time::timeout(ask.limit, client.complete(&req)).await
                    })
                    .map_err(|_| format!("no answer within {} ms", ask.limit.as_millis()))?
                    .map_err(|e| format!("{} ({})", e.code(), e))?;
                match done.tool_calls.iter().find(|c| c.name == FUNCTION) {
                    Some(call) => Ok(call.arguments.clone()),
                    None => Ok(done.text),
                }
            })
            .join()
            .map_err(|_| "the call panicked".to_string())?
        })
    }
}

/// The model's classification, read from its reply and validated: the
/// intent and confidence are the router's own, the material one the
/// library holds (an unknown one is dropped, `material_dropped`).
#[derive(Debug, Clone, PartialEq)]
pub struct Classified {
    pub intent: Intent,
    pub confidence: Confidence,
    pub material_id: Option<String>,
    pub material_title: Option<String>,
    /// The material the model named that the library does not hold.
    pub material_dropped: Option<String>,
}

impl Classified {
    /// As the router's answer in place of the `offline` one: when the
    /// model agrees on the intent and names no material, the material the
    /// rules found stands.
    pub fn over(&self, offline: &Routed) -> Routed {
        let keep = self.material_id.is_none() && self.intent == offline.intent;
        Routed {
            intent: self.intent,
            confidence: self.confidence,
            material_id: if keep {
                offline.material_id.clone()
            } else {
                self.material_id.clone()
            },
            material_title: if keep {
                offline.material_title.clone()
            } else {
                self.material_title.clone()
            },
            reason: "the model's classification",
        }
    }
}

/// Reads the model's `reply` (a JSON object, perhaps inside other text)
/// against the router's intents and `catalog`; why not, in plain words.
pub fn classification(reply: &str, catalog: &Catalog) -> Result<Classified, String> {
    let json = reply
        .find('{')
        .zip(reply.rfind('}'))
        .filter(|(s, e)| s < e)
        .map(|(s, e)| &reply[s..=e])
        .ok_or_else(|| format!("no JSON object in the reply {:?}", clip(reply)))?;
    let v: Value = serde_json::from_str(json)
        .map_err(|e| format!("the reply is not JSON ({e}): {:?}", clip(reply)))?;
    let text = |k: &str| v.get(k).and_then(Value::as_str).map(str::trim);
    let intent = text("intent")
        .and_then(|i| Intent::ALL.into_iter().find(|x| x.as_str() == i))
        .ok_or_else(|| format!("no intent of the router's in {:?}", clip(json)))?;
    let confidence = match text("confidence").map(str::to_lowercase).as_deref() {
        Some("high") => Confidence::High,
        Some("mid") | Some("medium") => Confidence::Mid,
        Some("low") => Confidence::Low,
        _ => {
            return Err(format!(
                "no confidence (high, mid, low) in {:?}",
                clip(json)
            ))
        }
    };
    let named = v
        .get("slots")
        .and_then(|s| s.get("material"))
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|m| !m.is_empty());
    let found = named.and_then(|m| catalog.find(m));
    Ok(Classified {
        intent,
        confidence,
        material_id: found.map(|m| m.id.clone()),
        material_title: found.map(|m| m.title.clone()),
        material_dropped: named.filter(|_| found.is_none()).map(str::to_string),
    })
}

fn clip(s: &str) -> String {
    s.chars().take(200).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::router::CatalogEntry;

    fn catalog() -> Catalog {
        Catalog::new([CatalogEntry {
            id: "jys".into(),
            title: "静夜思".into(),
            author: Some("李白".into()),
            body: "床前明月光，疑是地上霜。".into(),
        }])
    }

    #[test]
    fn a_reply_is_read_against_the_routers_intents_and_the_library() {
        let c = catalog();
        let r = classification(
            r#"{"intent": "recite", "confidence": "high", "slots": {"material": "静夜思"}}"#,
            &c,
        )
        .unwrap();
        assert_eq!(
            (r.intent, r.confidence, r.material_id.as_deref()),
            (Intent::Recite, Confidence::High, Some("jys"))
        );
        // A material not in the library is dropped, the rest stands.
        let r = classification(
            r#"{"intent": "recite", "confidence": "mid", "slots": {"material": "登鹳雀楼"}}"#,
            &c,
        )
        .unwrap();
        assert_eq!(
            (r.material_id, r.material_dropped.as_deref()),
            (None, Some("登鹳雀楼"))
        );
        for bad in [
            "好的",
            r#"{"intent": "sing", "confidence": "high", "slots": {}}"#,
            r#"{"intent": "chat", "confidence": "very", "slots": {}}"#,
            r#"{"intent": "chat""#,
        ] {
            assert!(classification(bad, &c).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_request_asks_for_the_function_with_the_words_and_the_library() {
        let ask = Ask::new("床前明月光", None, &catalog(), DEFAULT_LIMIT);
        let req = request(&ask);
        assert_eq!(req.tools[0].name, FUNCTION);
        assert_eq!(
            req.tools[0].parameters["properties"]["intent"]["enum"][5],
            "exit_current"
        );
        assert!(req.messages[0].text().contains("床前明月光"));
        assert!(req.system.unwrap().contains("静夜思"));
    }
}
