//! What the companion remembers about each child, as a parent sees and
//! changes it (issue 19, point 3): list, add, edit, delete — the parent
//! screens and `deskmate memory` alike. Memories are the store's
//! (`deskmate_store::memories`); here a child is found by name or id, a
//! memory by its id or a prefix of it that names one of that child's
//! memories, and a memory of another child is never touched.

use deskmate_store::{Memory, MemoryKind, MemorySource, StoreError};

use crate::{AppError, AppResult, Deskmate};

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
