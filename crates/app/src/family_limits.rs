//! A parent's view of what the companion costs and how much a child may use
//! it (issue 20, point 2): usage per run, day and child from the stored
//! model calls (`deskmate usage`), each child's daily limits and quiet hours
//! (`deskmate limits show|set`), and the notices kept for the parent — a
//! limit reached, a request in quiet hours, a reply replaced
//! (`deskmate notices`; a replaced reply read with its conversation,
//! `deskmate notices show`), and the moderation endpoint every reply to a child
//! is also checked with (`deskmate settings moderation`). The limits
//! themselves are enforced where requests enter: the one entry and the
//! chat's start (`deskmate_orchestrator::limits`).

use chrono::{DateTime, Utc};
use deskmate_orchestrator::limits::{self, Limits};
use deskmate_orchestrator::safety::{self, ModerationConfig};
use deskmate_orchestrator::usage::{self, UsageReport};
use deskmate_protocol::family::ReplacedReply;
use deskmate_store::{Notice, NoticeKind, ProfileKind};

use crate::{AppError, AppResult, Deskmate};

/// The most days a usage report covers.
pub const MAX_USAGE_DAYS: u32 = 366;

impl Deskmate {
    /// Tokens, cost and minutes of chat per child and local day over the
    /// `days` days up to `now`'s (1 to [`MAX_USAGE_DAYS`]), and per run; of
    /// one child (id or name) or of every child.
    pub fn usage(
        &self,
        profile: Option<&str>,
        days: u32,
        now: DateTime<Utc>,
    ) -> AppResult<UsageReport> {
        if !(1..=MAX_USAGE_DAYS).contains(&days) {
            return Err(AppError::Invalid(format!(
                "days must be from 1 to {MAX_USAGE_DAYS}, not {days}"
            )));
        }
        let id = match profile {
            Some(key) => Some(self.child(key)?.id),
            None => None,
        };
        Ok(usage::report(self.store(), id.as_deref(), days, now)?)
    }

    /// A child's daily limits and quiet hours (none set: no limits).
    pub fn limits(&self, profile: &str) -> AppResult<Limits> {
        let child = self.child(profile)?;
        Ok(limits::load(self.store(), &child.id)?)
    }

    /// Sets a child's daily limits and quiet hours (a parent's call; every
    /// problem is named and nothing kept when one is wrong). All unset
    /// removes them.
    pub fn set_limits(&self, profile: &str, limits: &Limits) -> AppResult<()> {
        let child = self.child(profile)?;
        Ok(limits::save(self.store(), &child.id, limits)?)
    }

    /// What the parent was told about one child (or every child), newest
    /// first; only the unread ones with `unread`.
    pub fn notices(&self, profile: Option<&str>, unread: bool) -> AppResult<Vec<Notice>> {
        let id = match profile {
            Some(key) => Some(self.find_profile(key)?.id),
            None => None,
        };
        Ok(self.store().notices().list(id.as_deref(), unread)?)
    }

    /// Marks a notice read.
    pub fn mark_notice_read(&self, id: &str) -> AppResult<()> {
        Ok(self.store().notices().mark_read(id)?)
    }

    /// The reply a notice of a replaced reply is about: what the model
    /// wrote, why it was replaced, and the conversation as the child saw
    /// it. Any other notice is refused.
    pub fn replaced_reply(&self, notice_id: &str) -> AppResult<ReplacedReply> {
        let notice = self.store().notices().get(notice_id)?;
        let message_id = notice
            .detail
            .get("message_id")
            .and_then(|m| m.as_str())
            .map(str::to_string);
        let (Some(message_id), Some(thread_id), NoticeKind::ReplyReplaced) =
            (message_id, notice.thread_id.clone(), notice.kind)
        else {
            return Err(AppError::Invalid(format!(
                "notice {notice_id} is not about a replaced reply"
            )));
        };
        let (original, reasons) =
            self.store()
                .notices()
                .replaced(&message_id)?
                .ok_or_else(|| {
                    deskmate_store::StoreError::NotFound(format!("the replaced reply {message_id}"))
                })?;
        let thread = self.chat().thread_view(&thread_id)?;
        Ok(ReplacedReply {
            notice,
            message_id,
            original,
            reasons,
            thread,
        })
    }

    /// The moderation endpoint replies to children are also checked with
    /// (none: the kept rules alone).
    pub fn moderation(&self) -> AppResult<Option<ModerationConfig>> {
        Ok(self.store().settings().get(None, safety::MODERATION)?)
    }

    /// Sets (an `http://` or `https://` base URL, the model optional) or,
    /// with `None`, removes the moderation endpoint.
    pub fn set_moderation(&self, config: Option<ModerationConfig>) -> AppResult<()> {
        let settings = self.store().settings();
        match config {
            None => Ok(settings.remove(None, safety::MODERATION)?),
            Some(c) => {
                let url = c.base_url.trim().trim_end_matches('/').to_string();
                if !(url.starts_with("http://") || url.starts_with("https://")) {
                    return Err(AppError::Invalid(format!(
                        "{url:?} is not an endpoint's address (http://… or https://…, e.g. https://api.openai.com/v1)"
                    )));
                }
                let model = c
                    .model
                    .map(|m| m.trim().to_string())
                    .filter(|m| !m.is_empty());
                Ok(settings.set(
                    None,
                    safety::MODERATION,
                    &ModerationConfig {
                        base_url: url,
                        model,
                    },
                )?)
            }
        }
    }

    /// The child `key` (id or name); a parent is refused.
    fn child(&self, key: &str) -> AppResult<deskmate_store::Profile> {
        let p = self.find_profile(key)?;
        if p.kind != ProfileKind::Child {
            return Err(AppError::Invalid(format!(
                "{} is a parent; usage and limits are kept for children",
                p.name
            )));
        }
        Ok(p)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use super::*;
    use crate::chat::{ChatMessage, ChatOptions};
    use deskmate_llm::scripted::{openai, ScriptedServer};
    use deskmate_store::NoticeKind;

    async fn chat(app: &Deskmate, child: &str) -> AppResult<deskmate_agent::RunOutcome> {
        let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
        let run = app
            .chat()
            .start(
                ChatMessage {
                    profile_id: Some(child.to_string()),
                    text: "月亮上有兔子吗".into(),
                    ..Default::default()
                },
                &ChatOptions::default(),
                tx,
            )
            .await?;
        Ok(run.done.await.unwrap())
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn usage_is_the_stored_calls_and_a_limit_reached_stops_the_chat_start() {
        let server = ScriptedServer::start(vec![
            openai::text("月亮上没有兔子。"),
            openai::text("嫦娥的故事很好听。"),
        ])
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let app = Deskmate::open(crate::Config::in_dir(dir.path())).unwrap();
        let child = deskmate_testkit::family::parent_and_child(app.store()).1.id;
        app.chat()
            .save_llm_settings("openai:m", Some(&server.base_url()))
            .unwrap();
        app.chat().agree_model_notice().unwrap();
        chat(&app, &child).await.unwrap();
        chat(&app, &child).await.unwrap();
        let now = Utc::now();
        let report = app.usage(Some("小明"), 1, now).unwrap();
        let stored: (u32, i64, i64) = app
            .store()
            .with_conn(|c| {
                Ok(c.query_row(
                    "SELECT count(*), SUM(input_tokens), SUM(output_tokens) FROM llm_calls",
                    [],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
                )?)
            })
            .unwrap();
        let today = &report.days[0];
        assert_eq!(
            (
                today.model_calls,
                today.input_tokens as i64,
                today.output_tokens as i64
            ),
            stored
        );
        assert_eq!((today.runs, report.runs.len()), (2, 2));

        // Two calls today: a limit of 2 stops the next chat before any call.
        app.set_limits(
            "小明",
            &Limits {
                model_calls: Some(2),
                ..Limits::default()
            },
        )
        .unwrap();
        let refused = chat(&app, &child).await.unwrap_err();
        assert_eq!(refused.code(), "limits.reached");
        assert_eq!(refused.params()["limit"], "model_calls");
        assert_eq!(server.request_count(), 2);
        let notices = app.notices(Some("小明"), true).unwrap();
        assert_eq!(notices.len(), 1);
        assert_eq!(notices[0].kind, NoticeKind::LimitReached);
        app.mark_notice_read(&notices[0].id).unwrap();
        assert!(app.notices(Some("小明"), true).unwrap().is_empty());
        // The parent's figures are refused for a parent and a bad window.
        assert_eq!(app.usage(None, 0, now).unwrap_err().code(), "invalid");
    }
}
