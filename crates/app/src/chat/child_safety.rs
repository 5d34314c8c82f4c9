//! Every reply to a child is checked before the child sees it (issue 20,
//! point 3). A child's run writes its AG-UI events into a [`ChildGuard`]:
//! other events pass at once, but a text message is held from its start to
//! its end, checked (`deskmate_orchestrator::safety`: the kept rules, then
//! the moderation endpoint when the setting `safety.moderation` names one)
//! and then let through — as written, or replaced by a safe reply. A
//! replaced reply is stored as replaced (the message's text is the safe
//! one; `replaced_replies` keeps the original for the parent only) and the
//! parent gets a notice with the conversation to read.
//!
//! The message is stored by the run before its end reaches the guard, so
//! the guard replaces a stored row. Later steps of the same run still saw
//! the original in the model's own history; the next run reads the stored,
//! replaced one.

use deskmate_agent::AgUiEvent;
use deskmate_orchestrator::safety::{self, Moderation, ModerationConfig, Verdict};
use deskmate_store::{NewNotice, NoticeKind, ProfileKind};
use rusqlite::{params, OptionalExtension};
use serde_json::Value;
use tokio::sync::mpsc::unbounded_channel;

use super::*;

/// What the guard replaced in one run.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Replaced {
    pub message_id: String,
    pub original: String,
    pub safe: String,
}

/// The check of a child's replies.
#[derive(Debug, Clone)]
pub(crate) struct ChildGuard {
    store: Store,
    profile_id: String,
    english: bool,
    moderation: Option<Moderation>,
}

/// The moderation endpoint a parent configured (setting
/// [`safety::MODERATION`]), with the chat provider's key; none when unset.
pub(crate) fn moderation(store: &Store) -> AppResult<Option<Moderation>> {
    let Some(config) = store
        .settings()
        .get::<ModerationConfig>(None, safety::MODERATION)?
    else {
        return Ok(None);
    };
    let provider = llm_settings(store)?
        .model
        .and_then(|m| ModelSpec::parse(&m).ok())
        .map(|s| s.provider);
    let key = provider
        .and_then(|p| key_store().resolve(&p))
        .map(|(k, _)| k.expose().to_string());
    Ok(Some(Moderation::new(config, key)))
}

/// Where replies are sent to be moderated (`{base}/moderations`), when a
/// parent set it: the model notice names it.
pub(crate) fn moderation_endpoint(store: &Store) -> AppResult<Option<String>> {
    Ok(store
        .settings()
        .get::<ModerationConfig>(None, safety::MODERATION)?
        .map(|c| format!("{}/moderations", c.base_url.trim_end_matches('/'))))
}

impl ChildGuard {
    /// The guard for a run of `profile_id`: `None` for a parent or a run
    /// with no profile (their replies are not a child's).
    pub(crate) fn for_profile(store: &Store, profile_id: Option<&str>) -> AppResult<Option<Self>> {
        let Some(id) = profile_id else {
            return Ok(None);
        };
        let profile = store.profiles().get(id)?;
        if profile.kind != ProfileKind::Child {
            return Ok(None);
        }
        Ok(Some(Self {
            store: store.clone(),
            profile_id: profile.id,
            english: profile.locale.starts_with("en"),
            moderation: moderation(store)?,
        }))
    }

    /// Starts checking: the run writes into the returned sink; `events`
    /// gets what the child may see. The task ends when the run's events do,
    /// with what it replaced.
    pub(crate) fn watch(
        self,
        events: EventSink,
    ) -> (EventSink, tokio::task::JoinHandle<Vec<Replaced>>) {
        let (tx, mut rx) = unbounded_channel::<AgUiEvent>();
        let task = tokio::spawn(async move {
            let mut replaced = Vec::new();
            // The message being held: its id, its start, its text so far,
            // and the events that came while it was open.
            let mut open: Option<(String, AgUiEvent, String, Vec<AgUiEvent>)> = None;
            while let Some(ev) = rx.recv().await {
                let holding = open.as_ref().map(|o| o.0.clone());
                match ev {
                    AgUiEvent::TextMessageStart { ref message_id, .. } if holding.is_none() => {
                        open = Some((message_id.clone(), ev.clone(), String::new(), Vec::new()));
                    }
                    AgUiEvent::TextMessageContent {
                        ref message_id,
                        ref delta,
                    } if holding.as_deref() == Some(message_id.as_str()) => {
                        if let Some(o) = open.as_mut() {
                            o.2.push_str(delta);
                        }
                    }
                    AgUiEvent::TextMessageEnd { ref message_id }
                        if holding.as_deref() == Some(message_id.as_str()) =>
                    {
                        if let Some((id, start, text, held)) = open.take() {
                            let shown = self.checked(&id, text, &mut replaced).await;
                            let _ = events.send(start);
                            let _ = events.send(AgUiEvent::TextMessageContent {
                                message_id: id.clone(),
                                delta: shown,
                            });
                            for h in held {
                                let _ = events.send(h);
                            }
                            let _ = events.send(AgUiEvent::TextMessageEnd { message_id: id });
                        }
                    }
                    ev if holding.is_some() => {
                        if let Some(o) = open.as_mut() {
                            o.3.push(ev);
                        }
                    }
                    ev => {
                        // Nothing comes after the run's end (clones of the
                        // sink a tool kept are not waited for).
                        let last = matches!(
                            ev,
                            AgUiEvent::RunFinished { .. } | AgUiEvent::RunError { .. }
                        );
                        let _ = events.send(ev);
                        if last {
                            break;
                        }
                    }
                }
            }
            // Events ended with a message open (a run cut off): what was
            // said is checked before it is shown.
            if let Some((id, start, text, held)) = open.take() {
                let shown = self.checked(&id, text, &mut replaced).await;
                let _ = events.send(start);
                let _ = events.send(AgUiEvent::TextMessageContent {
                    message_id: id,
                    delta: shown,
                });
                for h in held {
                    let _ = events.send(h);
                }
            }
            replaced
        });
        (tx, task)
    }

    /// The text the child may see for the message `id`: `text`, or the
    /// safe reply (the stored message replaced and the parent told).
    async fn checked(&self, id: &str, text: String, replaced: &mut Vec<Replaced>) -> String {
        let moderation = self.moderation.clone();
        let said = text.clone();
        let verdict =
            tokio::task::spawn_blocking(move || safety::check(&said, moderation.as_ref()))
                .await
                .unwrap_or_else(|e| Verdict {
                    // A check that could not run lets nothing through.
                    reasons: vec![format!("check_failed:{e}")],
                    moderation_error: None,
                });
        if !verdict.flagged() {
            return text;
        }
        let safe = safety::safe_reply(self.english).to_string();
        let (guard, mid, original, reasons, safe_text) = (
            self.clone(),
            id.to_string(),
            text.clone(),
            verdict.reasons.clone(),
            safe.clone(),
        );
        let kept = tokio::task::spawn_blocking(move || {
            guard.replace(&mid, &original, &reasons, &safe_text)
        })
        .await;
        match kept {
            Ok(Ok(())) => {}
            Ok(Err(e)) => tracing::warn!("the replaced reply {id} could not be stored: {e}"),
            Err(e) => tracing::warn!("the replaced reply {id} could not be stored: {e}"),
        }
        replaced.push(Replaced {
            message_id: id.to_string(),
            original: text,
            safe: safe.clone(),
        });
        safe
    }

    /// Stores the message `id` as replaced by `safe` (its text parts become
    /// the safe reply), keeps the original for the parent and tells them.
    fn replace(&self, id: &str, original: &str, reasons: &[String], safe: &str) -> AppResult<()> {
        let reasons_json = serde_json::to_string(reasons).unwrap_or_else(|_| "[]".into());
        let thread_id: Option<String> = self.store.with_conn(|c| {
            let tx = c.transaction()?;
            let row: Option<(String, String)> = tx
                .query_row(
                    "SELECT thread_id, content FROM messages WHERE id = ?1",
                    [id],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .optional()?;
            let Some((thread_id, content)) = row else {
                return Ok(None);
            };
            let parts: Vec<Value> = serde_json::from_str(&content).unwrap_or_default();
            let mut text_done = false;
            let mut kept: Vec<Value> = Vec::new();
            for p in parts {
                if p.get("type").and_then(Value::as_str) == Some("text") {
                    if !text_done {
                        kept.push(serde_json::json!({"type": "text", "text": safe}));
                        text_done = true;
                    }
                } else {
                    kept.push(p);
                }
            }
            if !text_done {
                kept.insert(0, serde_json::json!({"type": "text", "text": safe}));
            }
            tx.execute(
                "UPDATE messages SET content = ?2 WHERE id = ?1",
                params![id, Value::Array(kept).to_string()],
            )?;
            tx.execute(
                "INSERT OR REPLACE INTO replaced_replies (message_id, thread_id, profile_id, original, reasons, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![id, thread_id, self.profile_id, original, reasons_json, deskmate_store::now_utc()],
            )?;
            tx.commit()?;
            Ok(Some(thread_id))
        })?;
        let Some(thread_id) = thread_id else {
            return Err(AppError::Invalid(format!(
                "the reply {id} is not stored; nothing to replace"
            )));
        };
        let profile = self.store.profiles().get(&self.profile_id)?;
        let day = chrono::Utc::now()
            .with_timezone(&deskmate_orchestrator::usage::zone(&profile.time_zone))
            .date_naive()
            .to_string();
        self.store.notices().add(&NewNotice {
            profile_id: &self.profile_id,
            kind: NoticeKind::ReplyReplaced,
            day: &day,
            detail: serde_json::json!({
                "message_id": id,
                "reasons": reasons,
                "message": format!("a reply to {} was replaced by a safe one ({})", profile.name, reasons.join(", ")),
            }),
            thread_id: Some(&thread_id),
        })?;
        Ok(())
    }
}

#[cfg(test)]
mod tests;
