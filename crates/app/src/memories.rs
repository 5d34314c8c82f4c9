//! What the companion remembers about each child, as a parent sees and
//! changes it (issue 19, point 3): list, add, edit, delete — the parent
//! screens and `deskmate memory` alike. Memories are the store's
//! (`deskmate_store::memories`); here a child is found by name or id, a
//! memory by its id or a prefix of it that names one of that child's
//! memories, and a memory of another child is never touched.
//!
//! And what a model draws from finished conversations
//! ([`Deskmate::extract_memories`]): each child's chat threads are read
//! once, from where the last reading stopped, and the facts that pass
//! `deskmate_orchestrator::memory::extract`'s checks are kept with the new
//! read mark in one transaction. The window and `deskmate serve` read on
//! their own ([`Deskmate::follow_conversations`]): every
//! [`SWEEP_EVERY`], the conversations quiet for [`QUIET_FOR`], when a
//! model is configured.

use std::time::Duration;

use chrono::{DateTime, Utc};
use deskmate_agent::persist;
use deskmate_llm::Role;
use deskmate_orchestrator::memory::extract::{self, Said};
use deskmate_store::{Memory, MemoryKind, MemorySource, ProfileKind, StoreError};
use serde::Serialize;

use crate::chat::ChatOptions;
use crate::{AppError, AppResult, Deskmate};

/// How often the window and `deskmate serve` look for conversations to read.
pub const SWEEP_EVERY: Duration = Duration::from_secs(10 * 60);

/// A conversation is read once it has been quiet this long.
pub const QUIET_FOR: Duration = Duration::from_secs(30 * 60);

/// What one conversation gave the memory.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Extraction {
    pub thread_id: String,
    /// The child (id) the conversation is with.
    pub profile_id: String,
    /// The messages read this time (the child's and the companion's).
    pub messages: usize,
    /// The memories kept.
    pub added: Vec<Memory>,
    /// Why nothing could be kept (the model failed or answered out of
    /// shape): the conversation is read again next time.
    pub error: Option<String>,
}

impl Deskmate {
    /// Everything remembered about the child `profile` (name or id), newest first.
    pub fn memories(&self, profile: &str) -> AppResult<Vec<Memory>> {
        let child = self.find_profile(profile)?;
        Ok(self.store().memories().list(&child.id)?)
    }

    /// A parent adds a memory about the child `profile`.
    pub fn add_memory(&self, profile: &str, kind: MemoryKind, text: &str) -> AppResult<Memory> {
        let child = self.find_profile(profile)?;
        Ok(self
            .store()
            .memories()
            .add(&child.id, kind, text, MemorySource::Parent, None)?)
    }

    /// Changes the text (and the kind, when given) of one of the child's memories.
    pub fn edit_memory(
        &self,
        profile: &str,
        memory: &str,
        text: &str,
        kind: Option<MemoryKind>,
    ) -> AppResult<Memory> {
        let id = self.memory_of(profile, memory)?.id;
        Ok(self.store().memories().edit(&id, text, kind)?)
    }

    /// Forgets one of the child's memories; returns what it was.
    pub fn delete_memory(&self, profile: &str, memory: &str) -> AppResult<Memory> {
        let found = self.memory_of(profile, memory)?;
        self.store().memories().delete(&found.id)?;
        Ok(found)
    }

    /// The child's memory whose id is `key` or starts with it.
    fn memory_of(&self, profile: &str, key: &str) -> AppResult<Memory> {
        let child = self.find_profile(profile)?;
        let key = key.trim();
        if key.is_empty() {
            return Err(AppError::Invalid(
                "say which memory: its id, as `deskmate memory list` shows it".into(),
            ));
        }
        let mut matching: Vec<Memory> = self
            .store()
            .memories()
            .list(&child.id)?
            .into_iter()
            .filter(|m| m.id.starts_with(key))
            .collect();
        match matching.len() {
            1 => Ok(matching.remove(0)),
            0 => Err(AppError::Store(StoreError::NotFound(format!(
                "memory {key} of {}",
                child.name
            )))),
            n => Err(AppError::Invalid(format!(
                "{n} of {}'s memories start with {key}; give more of the id",
                child.name
            ))),
        }
    }
}

impl Deskmate {
    /// Reads the chat threads of the child `profile` (or of every child)
    /// that have new messages since they were last read and whose last
    /// message is at least `idle` old (a conversation still going on is
    /// left for later), and keeps the facts a model draws from them
    /// (source `conversation`). One model call per conversation; a
    /// failed one is reported in its [`Extraction`] and the others go on.
    /// Without a model this is the plain `llm.no_model` error.
    pub async fn extract_memories(
        &self,
        profile: Option<&str>,
        idle: Duration,
        opts: &ChatOptions,
    ) -> AppResult<Vec<Extraction>> {
        let model = crate::chat::llm_client(self.store(), opts)?;
        let children: Vec<String> = match profile {
            Some(p) => {
                let child = self.find_profile(p)?;
                if child.kind != ProfileKind::Child {
                    return Err(AppError::Invalid(format!(
                        "{} is a parent: the companion remembers things about a child",
                        child.name
                    )));
                }
                vec![child.id]
            }
            None => self
                .store()
                .profiles()
                .list()?
                .into_iter()
                .filter(|p| p.kind == ProfileKind::Child)
                .map(|p| p.id)
                .collect(),
        };
        let now = Utc::now();
        let mut out = Vec::new();
        let prices = crate::model_use::prices(self.store());
        for child in children {
            let model = crate::model_use::ChildCalls::meter(
                model.clone(),
                self.store(),
                &child,
                crate::model_use::Purpose::Memories,
                prices.clone(),
            );
            for thread in persist::list_threads(self.store(), Some(&child))? {
                let through = self.store().memories().extracted_through(&thread.id)?;
                let new = persist::messages_after(self.store(), &thread.id, through)?;
                let Some(last) = new.last() else { continue };
                let quiet = DateTime::parse_from_rfc3339(&last.created_at)
                    .map(|at| now.signed_duration_since(at).to_std().unwrap_or_default() >= idle)
                    .unwrap_or(true);
                if !quiet {
                    continue;
                }
                let last_seq = last.seq;
                let said: Vec<Said> = new
                    .iter()
                    .filter(|m| matches!(m.message.role, Role::User | Role::Assistant))
                    .map(|m| Said {
                        by_child: m.message.role == Role::User,
                        text: m.message.text(),
                    })
                    .filter(|s| !s.text.trim().is_empty())
                    .collect();
                let mut done = Extraction {
                    thread_id: thread.id.clone(),
                    profile_id: child.clone(),
                    messages: said.len(),
                    added: Vec::new(),
                    error: None,
                };
                if !said.iter().any(|s| s.by_child) {
                    // Nothing the child said: nothing to learn, read anyway.
                    self.store()
                        .memories()
                        .add_extracted(&child, &thread.id, &[], last_seq)?;
                    continue;
                }
                let known = self.store().memories().list(&child)?;
                let answer = model.complete(&extract::request(&said, &known)).await;
                let facts = answer
                    .map_err(|e| format!("the model could not be asked: {e}"))
                    .and_then(|reply| {
                        let args = reply
                            .tool_calls
                            .iter()
                            .find(|c| c.name == extract::FUNCTION)
                            .map(|c| c.arguments.clone())
                            .unwrap_or(reply.text);
                        extract::facts(&args, &known)
                    });
                match facts {
                    Ok(facts) => {
                        done.added = self
                            .store()
                            .memories()
                            .add_extracted(&child, &thread.id, &facts, last_seq)?;
                    }
                    Err(why) => {
                        tracing::warn!("no memories from thread {}: {why}", thread.id);
                        done.error = Some(why);
                    }
                }
                out.push(done);
            }
        }
        Ok(out)
    }
}

impl Deskmate {
    /// Reads the conversations quiet for `quiet` now and then every `every`
    /// on a thread of its own, while a model is configured (without one it
    /// only looks again next time). A failed reading is logged and tried
    /// again later; nothing the child said is lost. The window and
    /// `deskmate serve` start this once; one-shot commands do not.
    pub fn follow_conversations(&self, every: Duration, quiet: Duration) -> AppResult<()> {
        let app = self.clone();
        std::thread::Builder::new()
            .name("memories".into())
            .spawn(move || {
                let runtime = match tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                {
                    Ok(r) => r,
                    Err(e) => {
                        tracing::warn!("conversations cannot be read for memories: {e}");
                        return;
                    }
                };
                let opts = ChatOptions::default();
                loop {
                    match runtime.block_on(app.extract_memories(None, quiet, &opts)) {
                        Ok(read) => {
                            for r in read.iter().filter(|r| r.error.is_some()) {
                                tracing::warn!(
                                    "no memories from thread {} yet: {}",
                                    r.thread_id,
                                    r.error.as_deref().unwrap_or_default()
                                );
                            }
                        }
                        // No model configured (yet): look again next time.
                        Err(AppError::NoModel) => {}
                        Err(e) => tracing::warn!("conversations cannot be read: {e}"),
                    }
                    std::thread::sleep(every);
                }
            })
            .map_err(|e| AppError::Thread {
                what: "cannot follow the conversations",
                reason: e.to_string(),
            })?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use super::*;
    use deskmate_llm::scripted::{openai, ScriptedServer};
    use deskmate_llm::Message;
    use deskmate_store::NewProfile;

    #[test]
    fn a_quiet_conversation_is_read_on_its_own_once_a_model_is_set() {
        let dir = tempfile::tempdir().unwrap();
        let app = Deskmate::open(crate::Config::in_dir(dir.path())).unwrap();
        let child = app
            .store()
            .profiles()
            .add(NewProfile {
                kind: Some(ProfileKind::Child),
                name: "小明".into(),
                grade: Some(2),
                ..Default::default()
            })
            .unwrap();
        let thread = persist::create_thread(app.store(), Some(&child.id), "恐龙").unwrap();
        persist::insert_message(
            app.store(),
            &thread.id,
            None,
            None,
            &Message::user("我最喜欢恐龙了"),
        )
        .unwrap();
        let facts = r#"{"facts": [{"kind": "likes", "text": "喜欢恐龙"}]}"#;
        let server = ScriptedServer::start(vec![openai::tool_calls(
            None,
            &[("call_1", extract::FUNCTION, facts)],
        )])
        .unwrap();
        // No model yet: the sweep only looks.
        app.follow_conversations(Duration::from_millis(50), Duration::ZERO)
            .unwrap();
        std::thread::sleep(Duration::from_millis(300));
        assert_eq!(server.request_count(), 0);
        assert!(app.memories("小明").unwrap().is_empty());
        // A parent sets a model: the conversation is read, once.
        app.chat()
            .save_llm_settings("openai:gpt-4o-mini", Some(&server.base_url()))
            .unwrap();
        app.chat().agree_model_notice().unwrap();
        let started = std::time::Instant::now();
        while app.memories("小明").unwrap().is_empty() {
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "nothing was read"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        let kept = app.memories("小明").unwrap();
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].source, MemorySource::Conversation);
        std::thread::sleep(Duration::from_millis(300));
        assert_eq!(server.request_count(), 1, "a conversation is read once");
    }
}
