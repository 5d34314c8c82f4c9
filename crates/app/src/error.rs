//! The app's error: one variant per source (the store, recitation, the model
//! provider, the agent, speech, the speech models, the practice scene, the
//! lamp, spoken feedback, knowledge bases, the family's sync) and a few of the app's own. [`AppError::code`] hands each
//! source's stable code through, so a front end can say the failure in the
//! user's language; [`AppError::CODES`] lists every code the core can send
//! (the UI's words are checked against it).

use std::path::PathBuf;

use deskmate_agent::AgentError;
use deskmate_lamp::LampError;
use deskmate_llm::LlmError;
use deskmate_orchestrator::SceneError;
use deskmate_protocol::WireError;
use deskmate_recite::{CheckError, ReciteError};
use deskmate_speech::tts::TtsError;
use deskmate_speech::{ModelError, SpeechError};
use deskmate_store::StoreError;
use serde_json::{Map, Value};

#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// A setting that cannot be used (no data directory, no chat model, a bad price table…).
    #[error("{0}")]
    Config(String),
    #[error("cannot use the data directory {path}: {reason}")]
    DataDir { path: PathBuf, reason: String },
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("built-in material library is damaged: {0}")]
    Library(String),
    #[error(transparent)]
    Lamp(#[from] LampError),
    #[error(transparent)]
    Recite(#[from] ReciteError),
    #[error(transparent)]
    Llm(#[from] LlmError),
    /// The companion (or an LLM tip) was asked for with no model set up.
    #[error("no chat model is configured. Set one with `deskmate llm set --model openai:gpt-4o-mini [--base-url URL]` \
             (or in Parent area → Settings), or pass --model provider:model; put the API key in the keyring \
             with `deskmate llm key PROVIDER` or in DESKMATE_LLM_API_KEY")]
    NoModel,
    /// A model is set up but no parent has agreed to the notice of what is
    /// sent to it (`chat::model_notice`).
    #[error("the companion waits for a parent to agree to what is sent to the model at {endpoint}: read the notice in \
             Parent area → Settings → AI provider (or `deskmate llm notice`) and agree there (or `deskmate llm agree`)")]
    NoticeNotAgreed { endpoint: String },
    #[error(transparent)]
    Agent(#[from] AgentError),
    #[error(transparent)]
    Speech(#[from] SpeechError),
    #[error(transparent)]
    Models(#[from] ModelError),
    /// The practice scene (its own codes and its sources' pass through).
    #[error(transparent)]
    Scene(#[from] SceneError),
    /// Fetching the models failed; the message says where they come from.
    #[error("{0}")]
    ModelsFetch(String),
    #[error("no voice could speak: {0}")]
    Voice(#[from] TtsError),
    /// A lock some earlier crash in this process left poisoned.
    #[error("{0}")]
    Poisoned(&'static str),
    /// A worker thread could not be started.
    #[error("{what}: {reason}")]
    Thread { what: &'static str, reason: String },
    /// A request the front end made that cannot be met as asked.
    #[error("{0}")]
    Invalid(String),
    /// A goal in words that is neither a new-materials-a-day goal nor a
    /// reviews-a-week one.
    #[error("{words:?} is not a goal Deskmate knows: say it like 每天背一首新诗 or 每周复习三次, or give new_per_day N or reviews_per_week N")]
    GoalUnreadable { words: String },
    /// An MCP server could not be started or reached, or failed.
    #[error("{0}")]
    Mcp(String),
    /// A knowledge base's work: a document that cannot be read, a base
    /// that does not exist, the sentence encoder missing.
    #[error(transparent)]
    Knowledge(deskmate_knowledge::KnowledgeError),
    /// The family's sync: not signed in, off, the server away or refusing.
    #[error(transparent)]
    Sync(#[from] deskmate_sync::SyncError),
    /// A parent's question none of the built-in ones matches, asked with no
    /// model set up.
    #[error("without a model, Deskmate answers these questions: this week's accuracy (这周背得怎么样?), \
             the most missed characters (哪些字错得最多?), reviews done and due (复习了几次?), \
             time practised (这周练了多久?); {question:?} is none of them")]
    AskUnknown { question: String },
    /// An export would overwrite a file that is there.
    #[error("{path} already exists; choose another file name or move it away first")]
    FileExists { path: String },
}

pub type AppResult<T> = Result<T, AppError>;

/// The codes the app adds itself.
const OWN_CODES: &[&str] = &[
    "error",
    "config",
    "data_dir.unusable",
    "llm.no_model",
    "llm.notice_not_agreed",
    "library.damaged",
    "models.fetch_failed",
    "voice.failed",
    "internal.poisoned",
    "internal.thread",
    "plan.goal_unreadable",
    "mcp.server_failed",
    "ask.unknown_question",
    "export.file_exists",
];

impl AppError {
    /// A stable, machine-readable name for the failure (each source's own
    /// code passes through), so a front end can say it in the user's language.
    pub fn code(&self) -> &'static str {
        match self {
            Self::Config(_) => "config",
            Self::DataDir { .. } => "data_dir.unusable",
            Self::Store(e) => e.code(),
            Self::Library(_) => "library.damaged",
            Self::Lamp(e) => e.code(),
            Self::Recite(e) => e.code(),
            Self::Llm(e) => e.wire_code(),
            Self::NoModel => "llm.no_model",
            Self::NoticeNotAgreed { .. } => "llm.notice_not_agreed",
            Self::Agent(e) => e.code(),
            Self::Speech(e) => e.code(),
            Self::Models(e) => e.code(),
            Self::Scene(e) => e.code(),
            Self::ModelsFetch(_) => "models.fetch_failed",
            Self::Voice(_) => "voice.failed",
            Self::Poisoned(_) => "internal.poisoned",
            Self::Thread { .. } => "internal.thread",
            Self::Invalid(_) => "invalid",
            Self::GoalUnreadable { .. } => "plan.goal_unreadable",
            Self::Mcp(_) => "mcp.server_failed",
            Self::Knowledge(e) => knowledge_code(e),
            Self::Sync(e) => e.code(),
            Self::AskUnknown { .. } => "ask.unknown_question",
            Self::FileExists { .. } => "export.file_exists",
        }
    }

    /// Every code the core can send, sorted: the app's own and every
    /// source's, each once. `ui/src/protocol.ts` carries it as
    /// `ERROR_CODES`, and the UI has words for each.
    pub fn codes() -> Vec<&'static str> {
        let mut all: Vec<&'static str> = [
            OWN_CODES,
            KNOWLEDGE_CODES,
            StoreError::CODES,
            CheckError::CODES,
            LampError::CODES,
            LlmError::WIRE_CODES,
            AgentError::CODES,
            SpeechError::CODES,
            SceneError::CODES,
            deskmate_orchestrator::homework::photo::PhotoError::CODES,
            deskmate_sync::SyncError::CODES,
        ]
        .concat();
        all.sort_unstable();
        all.dedup();
        all
    }

    /// The values a translated message needs (e.g. the data directory's path).
    pub fn params(&self) -> Map<String, Value> {
        let mut params = Map::new();
        match self {
            Self::Store(e) => return e.params(),
            Self::Recite(e) => return e.params(),
            Self::Agent(e) => return e.params(),
            Self::Scene(e) => return e.params(),
            Self::Sync(e) => return e.params(),
            Self::DataDir { path, reason } => {
                params.insert("path".into(), path.display().to_string().into());
                params.insert("reason".into(), reason.clone().into());
            }
            Self::GoalUnreadable { words } => {
                params.insert("words".into(), words.clone().into());
            }
            Self::AskUnknown { question } => {
                params.insert("question".into(), question.clone().into());
            }
            Self::FileExists { path } => {
                params.insert("path".into(), path.clone().into());
            }
            Self::Knowledge(e) => knowledge_params(e, &mut params),
            Self::NoticeNotAgreed { endpoint } => {
                params.insert("endpoint".into(), endpoint.clone().into());
            }
            _ => {}
        }
        params
    }

    /// The failure as a front end receives it: code, message, params.
    pub fn wire(&self) -> WireError {
        WireError {
            code: self.code().to_string(),
            message: self.to_string(),
            params: self.params(),
        }
    }
}

/// The codes of a knowledge base's failures the front ends say in their own
/// words (a file that cannot be read or is not a document, a document with
/// no text or already there, the built-in base, the encoder missing).
const KNOWLEDGE_CODES: &[&str] = &[
    "knowledge.unreadable",
    "knowledge.unsupported",
    "knowledge.empty",
    "knowledge.duplicate",
    "knowledge.built_in",
    "knowledge.model_missing",
];

/// A knowledge base's failure: its own code where the front ends have
/// words for it, else the generic code whose message says it.
fn knowledge_code(e: &deskmate_knowledge::KnowledgeError) -> &'static str {
    use deskmate_knowledge::KnowledgeError as K;
    match e {
        K::ModelMissing(_)
        | K::Unreadable { .. }
        | K::Unsupported { .. }
        | K::Empty { .. }
        | K::Duplicate { .. }
        | K::BuiltIn(_) => e.code(),
        K::Encoder(_) => "error",
        K::Invalid(_) => "invalid",
        K::NoSuchBase(_) | K::NoSuchDocument { .. } => "not_found",
        K::Store(s) => s.code(),
    }
}

/// What a knowledge base's failure names: the file (its name, not its
/// folders), the base.
fn knowledge_params(e: &deskmate_knowledge::KnowledgeError, params: &mut Map<String, Value>) {
    use deskmate_knowledge::KnowledgeError as K;
    let file = |p: &str| p.rsplit(['/', '\\']).next().unwrap_or(p).to_string();
    match e {
        K::Unreadable { path, reason } => {
            params.insert("file".into(), file(path).into());
            params.insert("reason".into(), reason.clone().into());
        }
        K::Unsupported { path } | K::Empty { path } => {
            params.insert("file".into(), file(path).into());
        }
        K::Duplicate { source_name, kb } => {
            params.insert("file".into(), source_name.clone().into());
            params.insert("base".into(), kb.clone().into());
        }
        K::BuiltIn(kb) => {
            params.insert("base".into(), kb.clone().into());
        }
        _ => {}
    }
}

impl From<CheckError> for AppError {
    fn from(e: CheckError) -> Self {
        Self::Recite(ReciteError::Check(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_keep_their_codes() {
        let e = AppError::from(StoreError::WrongPin { tries_left: 2 });
        assert_eq!(
            (e.code(), e.params()["tries_left"].as_u64()),
            ("pin.wrong", Some(2))
        );
        let e = AppError::from(LlmError::Auth {
            status: 401,
            message: "no".into(),
        });
        assert_eq!(e.code(), "llm.auth");
        let e = AppError::from(AgentError::Llm(LlmError::Network("down".into())));
        assert_eq!(e.code(), "llm.network");
        let e = AppError::from(ReciteError::Store(StoreError::NotFound("profile p".into())));
        assert_eq!(e.code(), "not_found");
        let e = AppError::from(CheckError::EmptyReference);
        assert_eq!(e.code(), "recite.reference_empty");
        let e = AppError::from(LampError::NoLampFound);
        assert_eq!(e.code(), "lamp.not_found");
        let e = AppError::from(SpeechError::Audio(deskmate_speech::AudioError::Device(
            "no input".into(),
        )));
        assert_eq!(e.code(), "speech.microphone");
        // The message is the source's own.
        assert_eq!(
            AppError::from(LampError::Stopped).to_string(),
            "the lamp driver has stopped"
        );
    }

    #[test]
    fn every_code_is_in_the_list() {
        let codes = AppError::codes();
        let samples = [
            AppError::Config("c".into()),
            AppError::DataDir {
                path: "/x".into(),
                reason: "r".into(),
            },
            AppError::Library("l".into()),
            AppError::Speech(SpeechError::Audio(deskmate_speech::AudioError::Format(
                "f".into(),
            ))),
            AppError::Models(ModelError::Download("d".into())),
            AppError::Scene(SceneError::ModelsNeeded("m".into())),
            AppError::ModelsFetch("m".into()),
            AppError::Scene(SceneError::NotNow("p".into())),
            AppError::Poisoned("the speech slot was poisoned"),
            AppError::Thread {
                what: "cannot start checking",
                reason: "r".into(),
            },
            AppError::Invalid("i".into()),
            AppError::GoalUnreadable { words: "w".into() },
            AppError::NoModel,
            AppError::NoticeNotAgreed {
                endpoint: "http://127.0.0.1:1/v1".into(),
            },
            AppError::from(AgentError::EmptyMessage),
            AppError::Knowledge(deskmate_knowledge::KnowledgeError::ModelMissing("m".into())),
            AppError::Knowledge(deskmate_knowledge::KnowledgeError::Encoder("e".into())),
            AppError::Knowledge(deskmate_knowledge::KnowledgeError::Unsupported {
                path: "p".into(),
            }),
            AppError::Knowledge(deskmate_knowledge::KnowledgeError::NoSuchBase("b".into())),
            AppError::Knowledge(deskmate_knowledge::KnowledgeError::BuiltIn("b".into())),
            AppError::from(deskmate_sync::SyncError::Off),
            AppError::from(deskmate_sync::SyncError::Refused {
                code: "too_many_requests".into(),
                message: "m".into(),
            }),
            AppError::from(deskmate_sync::SyncError::Refused {
                code: "teapot".into(),
                message: "m".into(),
            }),
            AppError::Knowledge(deskmate_knowledge::KnowledgeError::Unreadable {
                path: "p".into(),
                reason: "r".into(),
            }),
            AppError::Knowledge(deskmate_knowledge::KnowledgeError::Empty { path: "p".into() }),
            AppError::Knowledge(deskmate_knowledge::KnowledgeError::Duplicate {
                source_name: "s".into(),
                kb: "k".into(),
            }),
        ];
        for e in &samples {
            assert!(
                codes.contains(&e.code()),
                "{} is not in AppError::codes()",
                e.code()
            );
        }
        let mut sorted = codes.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted, codes);
    }
}
