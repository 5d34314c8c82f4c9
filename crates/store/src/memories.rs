//! What the companion remembers about each child (issue 19 point 3): short
//! facts of a kind (likes, finds hard, is working towards, other), with
//! where they came from (the child said "记住…", a conversation, a parent).
//! Deleted with the child: the table's foreign key cascades.

use rusqlite::{params, OptionalExtension};
use serde::{Deserialize, Serialize};

use crate::{now_utc, ProfileKind, Store, StoreError, StoreResult};

/// The longest memory, in characters.
pub const MEMORY_MAX_CHARS: usize = 500;

/// What a memory is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum MemoryKind {
    Likes,
    FindsHard,
    WorkingTowards,
    Other,
}

impl MemoryKind {
    pub const ALL: [MemoryKind; 4] = [
        Self::Likes,
        Self::FindsHard,
        Self::WorkingTowards,
        Self::Other,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Likes => "likes",
            Self::FindsHard => "finds_hard",
            Self::WorkingTowards => "working_towards",
            Self::Other => "other",
        }
    }
}

impl std::str::FromStr for MemoryKind {
    type Err = StoreError;

    fn from_str(s: &str) -> StoreResult<Self> {
        let key = s.trim().replace('-', "_").to_ascii_lowercase();
        Self::ALL
            .into_iter()
            .find(|k| k.as_str() == key)
            .ok_or_else(|| {
                StoreError::Invalid(format!(
                    "no memory kind {s:?}: a memory is likes, finds-hard, working-towards or other"
                ))
            })
    }
}

/// Who made a memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum MemorySource {
    /// The child asked to be remembered ("记住我喜欢恐龙").
    Explicit,
    /// Drawn from a conversation by the model.
    Conversation,
    /// Written by a parent.
    Parent,
}

impl MemorySource {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Explicit => "explicit",
            Self::Conversation => "conversation",
            Self::Parent => "parent",
        }
    }

    fn parse(s: &str) -> StoreResult<Self> {
        match s {
            "explicit" => Ok(Self::Explicit),
            "conversation" => Ok(Self::Conversation),
            "parent" => Ok(Self::Parent),
            other => Err(StoreError::Invalid(format!(
                "a stored memory has an unknown source {other:?}"
            ))),
        }
    }
}

/// One thing remembered about one child.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Memory {
    pub id: String,
    pub profile_id: String,
    pub kind: MemoryKind,
    pub text: String,
    pub source: MemorySource,
    /// The conversation it came from, if any.
    pub thread_id: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

/// The memories repository.
pub struct Memories<'s> {
    store: &'s Store,
}

const COLUMNS: &str = "id, profile_id, kind, text, source, thread_id, created_at, updated_at";

fn from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<(Memory, String, String)> {
    Ok((
        Memory {
            id: r.get(0)?,
            profile_id: r.get(1)?,
            kind: MemoryKind::Other,
            text: r.get(3)?,
            source: MemorySource::Parent,
            thread_id: r.get(5)?,
            created_at: r.get(6)?,
            updated_at: r.get(7)?,
        },
        r.get(2)?,
        r.get(4)?,
    ))
}

fn typed((m, kind, source): (Memory, String, String)) -> StoreResult<Memory> {
    Ok(Memory {
        kind: kind.parse()?,
        source: MemorySource::parse(&source)?,
        ..m
    })
}

/// The text trimmed, not empty and not too long.
fn checked_text(text: &str) -> StoreResult<String> {
    let t = text.trim();
    if t.is_empty() {
        return Err(StoreError::Invalid(
            "a memory needs some words: what should be remembered?".into(),
        ));
    }
    let chars = t.chars().count();
    if chars > MEMORY_MAX_CHARS {
        return Err(StoreError::Invalid(format!(
            "a memory is at most {MEMORY_MAX_CHARS} characters (this one has {chars}); keep it to one short fact"
        )));
    }
    Ok(t.to_string())
}

impl<'s> Memories<'s> {
    pub(crate) fn new(store: &'s Store) -> Self {
        Self { store }
    }

    /// Remembers `text` about the child `profile_id`. Only a child has
    /// memories.
    pub fn add(
        &self,
        profile_id: &str,
        kind: MemoryKind,
        text: &str,
        source: MemorySource,
        thread_id: Option<&str>,
    ) -> StoreResult<Memory> {
        let text = checked_text(text)?;
        let profile = self.store.profiles().get(profile_id)?;
        if profile.kind != ProfileKind::Child {
            return Err(StoreError::Invalid(format!(
                "{} is a parent: the companion remembers things about a child",
                profile.name
            )));
        }
        let id = uuid::Uuid::now_v7().to_string();
        let now = now_utc();
        self.store.with_conn(|c| {
            c.execute(
                "INSERT INTO memories (id, profile_id, kind, text, source, thread_id, created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7)",
                params![id, profile.id, kind.as_str(), text, source.as_str(), thread_id, now],
            )?;
            Ok(())
        })?;
        self.get(&id)
    }

    /// The last message seq of thread `thread_id` already read for
    /// memories (0 when none was).
    pub fn extracted_through(&self, thread_id: &str) -> StoreResult<i64> {
        self.store.with_conn(|c| {
            Ok(c.query_row(
                "SELECT through_seq FROM memory_extractions WHERE thread_id = ?1",
                [thread_id],
                |r| r.get(0),
            )
            .optional()?
            .unwrap_or(0))
        })
    }

    /// Keeps what a model drew from thread `thread_id` of child
    /// `profile_id` up to message `through_seq`: the facts (source
    /// `conversation`) and the new read mark, in one transaction, so a
    /// crash leaves either both or neither.
    pub fn add_extracted(
        &self,
        profile_id: &str,
        thread_id: &str,
        facts: &[(MemoryKind, String)],
        through_seq: i64,
    ) -> StoreResult<Vec<Memory>> {
        let profile = self.store.profiles().get(profile_id)?;
        if profile.kind != ProfileKind::Child {
            return Err(StoreError::Invalid(format!(
                "{} is a parent: the companion remembers things about a child",
                profile.name
            )));
        }
        let checked = facts
            .iter()
            .map(|(k, t)| Ok((*k, checked_text(t)?)))
            .collect::<StoreResult<Vec<_>>>()?;
        let now = now_utc();
        let ids = self.store.with_conn(|c| {
            let tx = c.transaction()?;
            let mut ids = Vec::new();
            for (kind, text) in &checked {
                let id = uuid::Uuid::now_v7().to_string();
                tx.execute(
                    "INSERT INTO memories (id, profile_id, kind, text, source, thread_id, created_at, updated_at)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7)",
                    params![
                        id,
                        profile.id,
                        kind.as_str(),
                        text,
                        MemorySource::Conversation.as_str(),
                        thread_id,
                        now
                    ],
                )?;
                ids.push(id);
            }
            tx.execute(
                "INSERT INTO memory_extractions (thread_id, through_seq, extracted_at) VALUES (?1, ?2, ?3)
                 ON CONFLICT(thread_id) DO UPDATE SET through_seq = excluded.through_seq,
                                                      extracted_at = excluded.extracted_at",
                params![thread_id, through_seq, now],
            )?;
            tx.commit()?;
            Ok(ids)
        })?;
        ids.iter().map(|id| self.get(id)).collect()
    }

    /// One memory by id.
    pub fn get(&self, id: &str) -> StoreResult<Memory> {
        let row = self.store.with_conn(|c| {
            Ok(c.query_row(
                &format!("SELECT {COLUMNS} FROM memories WHERE id = ?1"),
                [id],
                from_row,
            )
            .optional()?)
        })?;
        match row {
            Some(r) => typed(r),
            None => Err(StoreError::NotFound(format!("memory {id}"))),
        }
    }

    /// Every memory of the child, newest first.
    pub fn list(&self, profile_id: &str) -> StoreResult<Vec<Memory>> {
        let rows = self.store.with_conn(|c| {
            let mut st = c.prepare(&format!(
                "SELECT {COLUMNS} FROM memories WHERE profile_id = ?1 ORDER BY updated_at DESC, id DESC"
            ))?;
            let rows = st
                .query_map([profile_id], from_row)?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(rows)
        })?;
        rows.into_iter().map(typed).collect()
    }

    /// Changes a memory's text (and kind, when given).
    pub fn edit(&self, id: &str, text: &str, kind: Option<MemoryKind>) -> StoreResult<Memory> {
        let text = checked_text(text)?;
        let old = self.get(id)?;
        let kind = kind.unwrap_or(old.kind);
        let now = now_utc();
        self.store.with_conn(|c| {
            c.execute(
                "UPDATE memories SET text = ?2, kind = ?3, updated_at = ?4 WHERE id = ?1",
                params![id, text, kind.as_str(), now],
            )?;
            Ok(())
        })?;
        self.get(id)
    }

    /// Forgets a memory. An unknown id says so.
    pub fn delete(&self, id: &str) -> StoreResult<()> {
        let n = self
            .store
            .with_conn(|c| Ok(c.execute("DELETE FROM memories WHERE id = ?1", [id])?))?;
        if n == 0 {
            return Err(StoreError::NotFound(format!("memory {id}")));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NewProfile;

    fn store_with_child() -> (Store, String, String) {
        let s = Store::open_in_memory().unwrap();
        let child = s
            .profiles()
            .add(NewProfile {
                kind: Some(ProfileKind::Child),
                name: "小明".into(),
                grade: Some(2),
                ..Default::default()
            })
            .unwrap();
        let parent = s
            .profiles()
            .add(NewProfile {
                kind: Some(ProfileKind::Parent),
                name: "妈妈".into(),
                pin: Some("1234".into()),
                ..Default::default()
            })
            .unwrap();
        (s, child.id, parent.id)
    }

    #[test]
    fn add_list_edit_delete() {
        let (s, child, _) = store_with_child();
        let m = s.memories();
        let a = m
            .add(
                &child,
                MemoryKind::Likes,
                "  喜欢恐龙 ",
                MemorySource::Explicit,
                None,
            )
            .unwrap();
        assert_eq!(a.text, "喜欢恐龙");
        let b = m
            .add(
                &child,
                MemoryKind::FindsHard,
                "进位加法",
                MemorySource::Conversation,
                Some("t1"),
            )
            .unwrap();
        let all = m.list(&child).unwrap();
        assert_eq!(all.len(), 2);
        assert!(all
            .iter()
            .any(|x| x.id == b.id && x.thread_id.as_deref() == Some("t1")));
        let e = m
            .edit(&a.id, "喜欢霸王龙", Some(MemoryKind::Other))
            .unwrap();
        assert_eq!((e.text.as_str(), e.kind), ("喜欢霸王龙", MemoryKind::Other));
        assert_eq!(e.source, MemorySource::Explicit);
        m.delete(&b.id).unwrap();
        assert_eq!(m.list(&child).unwrap().len(), 1);
        assert!(matches!(m.delete(&b.id), Err(StoreError::NotFound(_))));
    }

    #[test]
    fn bad_input_is_refused_plainly() {
        let (s, child, parent) = store_with_child();
        let m = s.memories();
        let empty = m.add(&child, MemoryKind::Likes, "  ", MemorySource::Parent, None);
        assert!(empty.unwrap_err().to_string().contains("needs some words"));
        let long = "字".repeat(MEMORY_MAX_CHARS + 1);
        let e = m.add(&child, MemoryKind::Likes, &long, MemorySource::Parent, None);
        assert!(e.unwrap_err().to_string().contains("at most 500"));
        let e = m.add(
            &parent,
            MemoryKind::Likes,
            "咖啡",
            MemorySource::Parent,
            None,
        );
        assert!(e.unwrap_err().to_string().contains("is a parent"));
        assert!("finds-hard".parse::<MemoryKind>().is_ok());
        assert!("hates".parse::<MemoryKind>().is_err());
        assert!(m.list(&child).unwrap().is_empty());
    }

    #[test]
    fn extracted_facts_and_the_read_mark_are_kept_together() {
        let (s, child, parent) = store_with_child();
        s.with_conn(|c| {
            c.execute(
                "INSERT INTO threads (id, profile_id, title, created_at, updated_at)
                 VALUES ('t1', ?1, '', '2026-11-27T08:00:00Z', '2026-11-27T08:00:00Z')",
                [&child],
            )?;
            Ok(())
        })
        .unwrap();
        let m = s.memories();
        assert_eq!(m.extracted_through("t1").unwrap(), 0);
        let facts = vec![
            (MemoryKind::Likes, "恐龙".to_string()),
            (MemoryKind::FindsHard, " 进位加法 ".to_string()),
        ];
        let kept = m.add_extracted(&child, "t1", &facts, 6).unwrap();
        assert_eq!(kept.len(), 2);
        assert!(kept.iter().all(
            |k| k.source == MemorySource::Conversation && k.thread_id.as_deref() == Some("t1")
        ));
        assert_eq!(kept[1].text, "进位加法");
        assert_eq!(m.extracted_through("t1").unwrap(), 6);
        // Nothing new is still a read: the mark moves on.
        assert!(m.add_extracted(&child, "t1", &[], 9).unwrap().is_empty());
        assert_eq!(m.extracted_through("t1").unwrap(), 9);
        // A bad fact refuses the whole batch: no memory, no mark.
        let bad = vec![
            (MemoryKind::Likes, "画画".to_string()),
            (MemoryKind::Likes, " ".to_string()),
        ];
        assert!(m.add_extracted(&child, "t1", &bad, 12).is_err());
        assert_eq!(m.extracted_through("t1").unwrap(), 9);
        assert_eq!(m.list(&child).unwrap().len(), 2);
        // Only a child's conversations are read.
        assert!(m.add_extracted(&parent, "t1", &facts, 12).is_err());
        // The mark goes with the thread.
        s.with_conn(|c| {
            c.execute("DELETE FROM threads WHERE id = 't1'", [])?;
            Ok(())
        })
        .unwrap();
        assert_eq!(m.extracted_through("t1").unwrap(), 0);
    }

    #[test]
    fn memories_go_with_the_child() {
        let (s, child, _) = store_with_child();
        s.memories()
            .add(
                &child,
                MemoryKind::Likes,
                "恐龙",
                MemorySource::Explicit,
                None,
            )
            .unwrap();
        s.with_conn(|c| {
            c.execute("DELETE FROM profiles WHERE id = ?1", [&child])?;
            Ok(())
        })
        .unwrap();
        let left: i64 = s
            .with_conn(|c| Ok(c.query_row("SELECT count(*) FROM memories", [], |r| r.get(0))?))
            .unwrap();
        assert_eq!(left, 0);
    }
}
