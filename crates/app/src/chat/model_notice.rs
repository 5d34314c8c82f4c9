//! The notice a parent agrees to before the companion uses a model (issue
//! 20): what of a child's is sent to which address. Model use waits for
//! the agreement: every client the family's settings make
//! ([`super::llm_config`]) asks [`require`] first, and the entry counts the
//! model as ready only when it is agreed.
//!
//! The agreement (setting [`LLM_NOTICE`]) holds the notice's version and
//! the endpoint it named. A new provider or base URL, or a new version of
//! the notice (what is sent changed), makes it lapse until a parent agrees
//! again. A subagent whose own `model:` names another provider reaches that
//! provider's address, which the agreement does not name: it is refused the
//! same way. A command that names its own `--base-url` (the CLI's one-off
//! flags, typed by the parent at the terminal) chooses the address itself
//! and is not held to the stored agreement.
//!
//! "After a parent has set a key" (issue 20) is the client's own rule: a
//! provider that needs a key refuses to start without one (`deskmate-llm`),
//! while a local or self-hosted server needs none — the agreement is asked
//! of both.

use chrono::{SecondsFormat, Utc};
use deskmate_llm::ModelSpec;
use deskmate_protocol::ModelNoticeView;
use deskmate_store::Store;
use serde::{Deserialize, Serialize};

use super::ChatOptions;
use crate::settings::{LLM_BASE_URL, LLM_MODEL, LLM_NOTICE};
use crate::{AppError, AppResult};

/// The notice's version: bump it when what is sent changes.
pub const NOTICE_VERSION: u32 = 1;

/// A parent's agreement as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Agreement {
    version: u32,
    endpoint: String,
    agreed_at: String,
}

/// Where the family's configured model is reached (`None`: no model set).
/// Reads the two settings only: where the key comes from (the OS keyring)
/// does not change the address, and this runs for every model client.
fn configured_endpoint(store: &Store) -> AppResult<Option<String>> {
    let Some(model) = store.settings().get::<String>(None, LLM_MODEL)? else {
        return Ok(None);
    };
    let base_url: Option<String> = store.settings().get(None, LLM_BASE_URL)?;
    let spec = ModelSpec::parse(&model).map_err(super::llm_error)?;
    Ok(Some(
        spec.base_url(base_url.as_deref())
            .map_err(super::llm_error)?,
    ))
}

fn agreement(store: &Store) -> AppResult<Option<Agreement>> {
    Ok(store.settings().get::<Agreement>(None, LLM_NOTICE)?)
}

/// Whether the agreement `a` stands for `endpoint`: this version of the
/// notice, naming that address.
fn holds(a: &Agreement, endpoint: &str) -> bool {
    a.version == NOTICE_VERSION && a.endpoint == endpoint
}

/// True when a parent agreed to this version of the notice for the
/// configured endpoint.
pub(crate) fn agreed(store: &Store) -> AppResult<bool> {
    match configured_endpoint(store)? {
        Some(endpoint) => agreed_for(store, &endpoint),
        None => Ok(false),
    }
}

/// True when a parent agreed to this version of the notice naming
/// `endpoint` (a subagent's own provider is reached at its own address).
pub(crate) fn agreed_for(store: &Store, endpoint: &str) -> AppResult<bool> {
    Ok(agreement(store)?.is_some_and(|a| holds(&a, endpoint)))
}

/// Refuses a model call the family has not agreed to (see the module's
/// doc for the one exception, a command naming its own base URL).
pub(crate) fn require(store: &Store, opts: &ChatOptions) -> AppResult<()> {
    if opts.base_url.is_some() || agreed(store)? {
        return Ok(());
    }
    match configured_endpoint(store)? {
        Some(endpoint) => Err(AppError::NoticeNotAgreed { endpoint }),
        None => Err(AppError::NoModel),
    }
}

/// The notice for the configured model, and the agreement if it stands.
pub(crate) fn view(store: &Store) -> AppResult<ModelNoticeView> {
    let endpoint = configured_endpoint(store)?;
    let moderation = super::child_safety::moderation_endpoint(store)?;
    let agreed_at = match (&endpoint, agreement(store)?) {
        (Some(e), Some(a)) if holds(&a, e) => Some(a.agreed_at),
        _ => None,
    };
    let (text_zh, text_en) = texts(endpoint.as_deref(), moderation.as_deref());
    Ok(ModelNoticeView {
        version: NOTICE_VERSION,
        endpoint,
        moderation,
        text_zh,
        text_en,
        agreed_at,
    })
}

/// Records a parent's agreement to the notice for the configured model.
pub(crate) fn agree(store: &Store) -> AppResult<ModelNoticeView> {
    let endpoint = configured_endpoint(store)?.ok_or(AppError::NoModel)?;
    let record = Agreement {
        version: NOTICE_VERSION,
        endpoint,
        agreed_at: Utc::now().to_rfc3339_opts(SecondsFormat::Secs, true),
    };
    store.settings().set(None, LLM_NOTICE, &record)?;
    view(store)
}

/// Withdraws the agreement: nothing is sent until a parent agrees again.
pub(crate) fn withdraw(store: &Store) -> AppResult<()> {
    Ok(store.settings().remove(None, LLM_NOTICE)?)
}

/// The notice's words in Chinese and English. What it lists is what the
/// app sends: the conversation, photos and files the child gives it, the
/// child's grade (in the child policy), and what the companion's tools
/// read for an answer.
fn texts(endpoint: Option<&str>, moderation: Option<&str>) -> (String, String) {
    let at_zh = endpoint.unwrap_or("（还没有设置模型）");
    let at_en = endpoint.unwrap_or("(no model set up yet)");
    let mod_zh = moderation
        .map(|m| format!("\n- 给孩子的每条回复还会发到 {m} 做内容审核。"))
        .unwrap_or_default();
    let mod_en = moderation
        .map(|m| format!("\n- Every reply to your child is also sent to {m} to be moderated."))
        .unwrap_or_default();
    let zh = format!(
        "同意后，AI 同伴会使用 {at_zh} 上的模型。\n\
         会发送到那里的：\n\
         - 孩子在聊天里打的字和说的话（语音先在本机转成文字，录音不会离开这台设备）；\n\
         - 孩子拍的作业照片、聊天里添加的文件；\n\
         - 孩子的年级（用于让回答适合孩子的年龄）；\n\
         - 同伴为回答查到的内容：最近的背诵结果、待复习、今天的计划、记忆和知识库片段；\n\
         - 家长在「问问进度」里的问题和查询结果。{mod_zh}\n\
         不会发送的：录音、PIN、API 密钥（密钥只存在本机的系统钥匙串里）。\n\
         对方如何保存收到的内容，由该服务自己的条款决定。背诵检查、复习、报告和台灯从不使用模型。\n\
         随时可以删除密钥或更换服务；换了服务需要重新同意。"
    );
    let en = format!(
        "When you agree, the companion uses the model at {at_en}.\n\
         Sent there:\n\
         - what your child types or says in a chat (speech becomes text on this device first; recordings never leave it);\n\
         - photos of homework your child takes, and files added to a chat;\n\
         - your child's grade (so answers suit their age);\n\
         - what the companion looks up to answer: recent recitation results, reviews due, today's plan, memories and knowledge-base passages;\n\
         - your own questions in \"Ask about progress\" and what their queries found.{mod_en}\n\
         Not sent: recordings, PINs, API keys (kept only in this device's keyring).\n\
         How the provider keeps what it receives is up to its own terms. Recitation checking, reviews, reports and the lamp never use a model.\n\
         You can delete the key or change the provider at any time; a new provider needs your agreement again."
    );
    (zh, en)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::{LLM_BASE_URL, LLM_MODEL};

    fn store_with_model(base_url: &str) -> Store {
        let store = Store::open_in_memory().unwrap();
        store
            .settings()
            .set(None, LLM_MODEL, &"openai:gpt-4o-mini")
            .unwrap();
        store.settings().set(None, LLM_BASE_URL, &base_url).unwrap();
        store
    }

    #[test]
    fn no_model_call_before_a_parent_agrees_and_none_after_the_provider_changes() {
        let store = store_with_model("http://127.0.0.1:9/v1");
        let defaults = ChatOptions::default();
        match require(&store, &defaults) {
            Err(AppError::NoticeNotAgreed { endpoint }) => {
                assert_eq!(endpoint, "http://127.0.0.1:9/v1")
            }
            other => panic!("expected notice_not_agreed, got {other:?}"),
        }
        // The client itself is refused: every model call goes through it.
        assert!(matches!(
            super::super::llm_client(&store, &defaults),
            Err(AppError::NoticeNotAgreed { .. })
        ));
        let notice = view(&store).unwrap();
        assert_eq!(notice.agreed_at, None);
        assert!(
            notice.text_en.contains("http://127.0.0.1:9/v1"),
            "{}",
            notice.text_en
        );
        assert!(
            notice.text_zh.contains("http://127.0.0.1:9/v1"),
            "{}",
            notice.text_zh
        );

        let agreed_view = agree(&store).unwrap();
        assert!(agreed_view.agreed_at.is_some());
        require(&store, &defaults).unwrap();
        assert!(super::super::llm_client(&store, &defaults).is_ok());

        // Another address: the agreement named the old one, so it lapses.
        store
            .settings()
            .set(None, LLM_BASE_URL, &"https://api.example.com/v1")
            .unwrap();
        assert!(!agreed(&store).unwrap());
        assert!(matches!(
            require(&store, &defaults),
            Err(AppError::NoticeNotAgreed { .. })
        ));
        assert_eq!(view(&store).unwrap().agreed_at, None);

        // A command naming its own base URL chooses the address itself.
        let named = ChatOptions {
            base_url: Some("http://127.0.0.1:9/v1".into()),
            ..Default::default()
        };
        require(&store, &named).unwrap();

        // Agreed again, then withdrawn.
        agree(&store).unwrap();
        assert!(agreed(&store).unwrap());
        withdraw(&store).unwrap();
        assert!(!agreed(&store).unwrap());
    }

    #[test]
    fn an_agreement_to_an_older_notice_does_not_count() {
        let store = store_with_model("http://127.0.0.1:9/v1");
        let old = Agreement {
            version: NOTICE_VERSION - 1,
            endpoint: "http://127.0.0.1:9/v1".into(),
            agreed_at: "2026-01-01T00:00:00Z".into(),
        };
        store.settings().set(None, LLM_NOTICE, &old).unwrap();
        assert!(!agreed(&store).unwrap());
        assert_eq!(view(&store).unwrap().agreed_at, None);
    }

    #[test]
    fn without_a_model_there_is_nothing_to_agree_to() {
        let store = Store::open_in_memory().unwrap();
        assert!(matches!(agree(&store), Err(AppError::NoModel)));
        assert!(matches!(
            require(&store, &ChatOptions::default()),
            Err(AppError::NoModel)
        ));
        let notice = view(&store).unwrap();
        assert_eq!(notice.endpoint, None);
        assert!(notice.text_en.contains("no model set up"));
    }

    #[test]
    fn the_notice_names_the_moderation_endpoint_when_one_is_set() {
        let store = store_with_model("http://127.0.0.1:9/v1");
        store
            .settings()
            .set(
                None,
                deskmate_orchestrator::safety::MODERATION,
                &serde_json::json!({"base_url": "https://mod.example.com/v1/"}),
            )
            .unwrap();
        let notice = view(&store).unwrap();
        assert_eq!(
            notice.moderation.as_deref(),
            Some("https://mod.example.com/v1/moderations")
        );
        assert!(notice
            .text_en
            .contains("https://mod.example.com/v1/moderations"));
    }
}
