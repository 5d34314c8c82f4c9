//! Memory tips from the configured LLM. When a provider is set up, a child's
//! repeated error gets a tip written by the model — once per error pattern;
//! the recitation service caches it on the pattern row — and checked like
//! every tip: an empty, generic or failed answer falls back to the offline
//! template tip, so practice never waits on, or breaks without, a network.
//! The prompt states the rule the tip is checked against
//! ([`deskmate_recite::tips::is_concrete`]: long enough, and naming the text —
//! for a Chinese text the English half quotes the characters or their pinyin
//! with tone), so a tip that follows the prompt is used.

use std::time::Duration;

use deskmate_llm::{ChatRequest, LlmClient, Message};
use deskmate_recite::tips::{concrete_rules, TipError};
use deskmate_recite::{Lang, Tip, TipRequest, TipWriter};
use serde::Deserialize;

/// How long a tip may take before the template tip is used instead.
const TIP_TIMEOUT: Duration = Duration::from_secs(15);

const SYSTEM: &str = "You help a Chinese primary-school child (6 to 9 years old) remember a poem or text they keep \
getting wrong when reciting. Write ONE short, concrete, playful memory tip (趣味记忆法) for the exact error given, in \
Chinese and in English: use the characters or words involved, their pinyin or meaning, the line's picture or a rhyme \
hook. No praise, no generic advice. Keep \"zh\" under 60 characters and \"en\" under 40 words. Answer with JSON \
only: {\"zh\": \"…\", \"en\": \"…\"}";

/// A [`TipWriter`] backed by the configured model.
pub struct LlmTips {
    client: LlmClient,
}

#[derive(Deserialize)]
struct TipJson {
    zh: String,
    en: String,
}

impl LlmTips {
    pub fn new(client: LlmClient) -> Self {
        Self { client }
    }

    fn prompt(r: &TipRequest) -> String {
        let lang = match r.lang {
            Lang::Zh => "Chinese",
            Lang::En => "English",
        };
        format!(
            "Text: {title} ({lang}). Lines: {lines}\nError: {kind} ({error:?}) on line {line} \"{line_text}\": \
             expected \"{expected}\", the child said \"{actual}\". Seen {n} times.\n\
             Rules (a tip that breaks them is not used): {rules}",
            title = r.title,
            lines = r.lines.join(" / "),
            kind = r.kind.as_str(),
            error = r.error_type,
            line = r.line,
            line_text = r.line_text,
            expected = r.expected,
            actual = r.actual,
            n = r.occurrences,
            rules = concrete_rules(r),
        )
    }

    async fn ask(&self, request: &TipRequest) -> Result<Tip, TipError> {
        let req = ChatRequest {
            system: Some(SYSTEM.to_string()),
            messages: vec![Message::user(Self::prompt(request))],
            tools: Vec::new(),
            max_tokens: Some(300),
            temperature: Some(0.7),
        };
        let done = tokio::time::timeout(TIP_TIMEOUT, self.client.complete(&req))
            .await
            .map_err(|_| {
                TipError::Unavailable(format!("no answer within {} s", TIP_TIMEOUT.as_secs()))
            })?
            .map_err(|e| TipError::Failed(e.to_string()))?;
        parse(&done.text)
    }
}

/// Reads the model's JSON answer, tolerating a code fence around it.
fn parse(text: &str) -> Result<Tip, TipError> {
    let start = text
        .find('{')
        .ok_or_else(|| TipError::Failed("the answer had no JSON".into()))?;
    let end = text
        .rfind('}')
        .ok_or_else(|| TipError::Failed("the answer had no JSON".into()))?;
    let json: TipJson = serde_json::from_str(text.get(start..=end).unwrap_or_default())
        .map_err(|e| TipError::Failed(format!("the answer was not the JSON asked for: {e}")))?;
    Ok(Tip {
        zh: json.zh.trim().to_string(),
        en: json.en.trim().to_string(),
    })
}

impl TipWriter for LlmTips {
    fn write_tip(&self, request: &TipRequest) -> Result<Tip, TipError> {
        // Tips are written from blocking code; run the call on a runtime of
        // its own on a scoped thread, so this works inside or outside tokio.
        std::thread::scope(|s| {
            s.spawn(|| {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map_err(|e| TipError::Unavailable(e.to_string()))?;
                rt.block_on(self.ask(request))
            })
            .join()
            .unwrap_or_else(|_| Err(TipError::Failed("the tip writer crashed".into())))
        })
    }

    fn source(&self) -> &'static str {
        "llm"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::{Config, Deskmate};
    use chrono::Utc;
    use deskmate_llm::scripted::{openai, ScriptedServer};
    use deskmate_recite::practice::NewAttempt;
    use deskmate_recite::{Mode, Transcript};
    use deskmate_store::{MaterialFilter, NewProfile};

    const TIP: &str = r#"{"zh": "疑是地上霜：月光白白的，像地上铺了一层霜", "en": "Moonlight on the floor looks like frost (shuāng)"}"#;

    #[test]
    fn a_repeated_error_gets_one_llm_tip_then_the_cached_one() {
        let server = ScriptedServer::start(vec![openai::text(TIP)]).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let app = Deskmate::open(Config::in_dir(dir.path())).unwrap();
        app.chat()
            .save_llm_settings("openai:tip-model", Some(&server.base_url()))
            .unwrap();
        app.chat().agree_model_notice().unwrap();
        let child = app
            .store()
            .profiles()
            .add(NewProfile {
                name: "小红".into(),
                ..Default::default()
            })
            .unwrap();
        let poem = app
            .store()
            .materials()
            .list(&MaterialFilter {
                search: Some("静夜思".into()),
                ..Default::default()
            })
            .unwrap()
            .remove(0);
        let attempt = |at| NewAttempt {
            profile_id: child.id.clone(),
            material_id: poem.id.clone(),
            transcript: Transcript::new("床前明月光，举头望明月，低头思故乡。"),
            mode: Mode::Text,
            at,
            duration_ms: None,
            session_id: None,
        };
        let t0 = Utc::now() - chrono::Duration::hours(3);
        // First time: the correct text, no tip, no model call.
        let first = app.record_attempt(attempt(t0)).unwrap();
        assert!(first.feedback.items.iter().all(|i| i.tip.is_none()));
        assert_eq!(server.request_count(), 0);
        // Second time: the model's tip.
        let second = app
            .record_attempt(attempt(t0 + chrono::Duration::hours(1)))
            .unwrap();
        let tip = second
            .feedback
            .items
            .iter()
            .find_map(|i| i.tip.clone())
            .expect("a tip on the second time");
        assert_eq!(server.request_count(), 1);
        // The call is the child's usage (crate::model_use): stored for them,
        // for tips, with the scripted server's tokens.
        let (profile, purpose, input, output): (String, String, i64, i64) = app
            .store()
            .with_conn(|c| {
                Ok(c.query_row(
                    "SELECT profile_id, purpose, input_tokens, output_tokens FROM llm_calls WHERE thread_id IS NULL",
                    [],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
                )?)
            })
            .unwrap();
        assert_eq!(
            (profile.as_str(), purpose.as_str()),
            (child.id.as_str(), "tips")
        );
        assert_eq!((input, output), (10, 5));
        let today =
            deskmate_orchestrator::usage::today(app.store(), &child.id, Utc::now()).unwrap();
        assert_eq!(today.model_calls, 1);
        // The model's own words are shown and stored as an LLM tip, not
        // replaced by the template: the English half names 霜 by its pinyin.
        let scripted: TipJson = serde_json::from_str(TIP).unwrap();
        assert_eq!(
            tip,
            Tip {
                zh: scripted.zh,
                en: scripted.en
            }
        );
        let stored =
            deskmate_recite::patterns::list(app.store(), &child.id, Some(&poem.id), 10).unwrap();
        assert_eq!(stored.len(), 1, "{stored:?}");
        assert_eq!(stored[0].tip_source.as_deref(), Some("llm"));
        assert_eq!(stored[0].tip.as_ref(), Some(&tip));
        // The prompt states the rule the tip was checked against.
        let prompt = server.requests()[0].body.to_string();
        assert!(
            prompt.contains("Rules (a tip that breaks them is not used)")
                && prompt.contains("pinyin"),
            "{prompt}"
        );
        // Third time: the cached tip; the script has nothing left, so a call would fail loudly.
        let third = app
            .record_attempt(attempt(t0 + chrono::Duration::hours(2)))
            .unwrap();
        let again = third
            .feedback
            .items
            .iter()
            .find_map(|i| i.tip.clone())
            .unwrap();
        assert_eq!(again, tip);
        assert_eq!(server.request_count(), 1);
    }

    #[test]
    fn a_broken_model_falls_back_to_the_template_tip() {
        let server = ScriptedServer::start(vec![openai::text("I cannot help with that.")]).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let app = Deskmate::open(Config::in_dir(dir.path())).unwrap();
        app.chat()
            .save_llm_settings("openai:tip-model", Some(&server.base_url()))
            .unwrap();
        app.chat().agree_model_notice().unwrap();
        let child = app
            .store()
            .profiles()
            .add(NewProfile {
                name: "小刚".into(),
                ..Default::default()
            })
            .unwrap();
        let poem = app
            .store()
            .materials()
            .list(&MaterialFilter {
                search: Some("春晓".into()),
                ..Default::default()
            })
            .unwrap()
            .remove(0);
        let mut last = None;
        for h in 0..2 {
            last = Some(
                app.record_attempt(NewAttempt {
                    profile_id: child.id.clone(),
                    material_id: poem.id.clone(),
                    transcript: Transcript::new("春眠不觉晓，处处闻啼鸟。夜来风雨声。"),
                    mode: Mode::Text,
                    at: Utc::now() - chrono::Duration::hours(5 - h),
                    duration_ms: None,
                    session_id: None,
                })
                .unwrap(),
            );
        }
        let tip = last
            .unwrap()
            .feedback
            .items
            .iter()
            .find_map(|i| i.tip.clone())
            .expect("a template tip");
        assert!(!tip.zh.is_empty() && !tip.en.is_empty());
        assert_eq!(server.request_count(), 1);
    }

    #[test]
    fn parses_plain_and_fenced_json() {
        let t =
            parse("```json\n{\"zh\": \"疑是像移\", \"en\": \"yí sounds like move\"}\n```").unwrap();
        assert_eq!(t.zh, "疑是像移");
        assert!(parse("no json here").is_err());
        assert!(parse("{\"zh\": 1}").is_err());
    }
}
