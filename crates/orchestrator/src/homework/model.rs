//! The vision model behind the homework scene, behind the [`Checker`] seam:
//! [`ModelChecker`] sends the photos to the configured OpenAI-compatible
//! (or Anthropic) model through `deskmate-llm` — each photo an image part
//! (`image_url` with a `data:` URL on the OpenAI wire) after the
//! instructions — and reads the structured reply ([`Worksheet::from_reply`]).
//! A reply that is not that shape is [`SceneError::ModelReply`]; a call that
//! fails is [`SceneError::Model`] with the provider's error code. The scene
//! is synchronous, so a call runs on a thread of its own with its own small
//! runtime (safe inside or outside an async runtime).

use deskmate_llm::{ChatRequest, ContentPart, LlmClient, Message};

use super::photo::Photo;
use super::Worksheet;
use crate::scene::{SceneError, SceneResult};

/// How the scene gets a worksheet checked and a redone answer judged.
pub trait Checker: Send + Sync + std::fmt::Debug {
    /// Checks every answer on the photographed worksheet.
    fn check(&self, photos: &[Photo]) -> SceneResult<Worksheet>;
    /// Whether `answer` answers `question` (whose answer is `correct_answer`).
    fn judge(&self, question: &str, correct_answer: &str, answer: &str) -> SceneResult<bool>;
}

/// What the model is told to do with the photos.
pub const CHECK_INSTRUCTIONS: &str = "\
你是一位细心、温和的小学老师，正在检查孩子拍下来的作业。逐题读出题目和孩子写的答案，自己独立算一遍或查一遍，判断对错。\
只回答一个 JSON 对象，不要别的文字，形如：\
{\"subject\": \"数学\", \"questions\": [{\"question\": \"题目原文\", \"child_answer\": \"孩子写的答案\", \"correct\": true, \
\"hint\": \"第一步提示，不含答案\", \"explanation\": \"一步一步的讲解\", \"correct_answer\": \"正确答案\"}]}\
每一题都要有这六项；做错的题，hint、explanation、correct_answer 都不能为空。看不清的题不要猜，不列出来。";

const JUDGE_INSTRUCTIONS: &str = "\
你在判断孩子重做一道题的答案对不对。只回答一个 JSON 对象：{\"correct\": true} 或 {\"correct\": false}。";

/// The configured model, checking homework.
#[derive(Debug, Clone)]
pub struct ModelChecker {
    client: LlmClient,
}

impl ModelChecker {
    pub fn new(client: LlmClient) -> Self {
        Self { client }
    }

    /// One model call, on a thread of its own; the reply's text.
    fn ask(&self, req: &ChatRequest) -> SceneResult<String> {
        let client = &self.client;
        std::thread::scope(|s| {
            s.spawn(|| {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map_err(|e| SceneError::Thread {
                        what: "the model call's runtime",
                        reason: e.to_string(),
                    })?;
                rt.block_on(client.complete(req))
                    .map(|c| c.text)
                    .map_err(|e| SceneError::Model {
                        code: e.code(),
                        reason: e.to_string(),
                    })
            })
            .join()
            .map_err(|_| SceneError::Thread {
                what: "the model call",
                reason: "it panicked".into(),
            })?
        })
    }
}

/// The request that checks `photos`: the instructions, then one user
/// message with a line of text and every photo as an image part.
pub fn check_request(photos: &[Photo]) -> ChatRequest {
    let mut content = vec![ContentPart::Text {
        text: format!("这是孩子的作业（{} 张照片）。请逐题检查。", photos.len()),
    }];
    content.extend(photos.iter().map(|p| ContentPart::Image {
        media_type: p.media_type.to_string(),
        data: p.base64(),
    }));
    ChatRequest {
        system: Some(CHECK_INSTRUCTIONS.into()),
        messages: vec![Message {
            content,
            ..Message::user("")
        }],
        max_tokens: Some(4096),
        temperature: Some(0.0),
        ..ChatRequest::default()
    }
}

impl Checker for ModelChecker {
    fn check(&self, photos: &[Photo]) -> SceneResult<Worksheet> {
        let model = self.client.model().to_string();
        let reply = crate::trace::model_call(&model, "check", || self.ask(&check_request(photos)))?;
        Worksheet::from_reply(&reply).map_err(|e| SceneError::ModelReply(e.0))
    }

    fn judge(&self, question: &str, correct_answer: &str, answer: &str) -> SceneResult<bool> {
        let req = ChatRequest {
            system: Some(JUDGE_INSTRUCTIONS.into()),
            messages: vec![Message::user(format!(
                "题目：{question}\n正确答案：{correct_answer}\n孩子的答案：{answer}"
            ))],
            max_tokens: Some(50),
            temperature: Some(0.0),
            ..ChatRequest::default()
        };
        let model = self.client.model().to_string();
        let reply = crate::trace::model_call(&model, "judge", || self.ask(&req))?;
        let json = reply
            .find('{')
            .zip(reply.rfind('}'))
            .filter(|(s, e)| s < e)
            .map(|(s, e)| &reply[s..=e])
            .ok_or_else(|| SceneError::ModelReply(format!("no JSON object in {reply:?}")))?;
        let v: serde_json::Value =
            serde_json::from_str(json).map_err(|e| SceneError::ModelReply(e.to_string()))?;
        v.get("correct")
            .and_then(serde_json::Value::as_bool)
            .ok_or_else(|| SceneError::ModelReply(format!("no \"correct\": true/false in {json}")))
    }
}
