//! One run per thread at a time, across processes: a run holds an OS file
//! lock on `<threads dir>/<thread id>/run.lock`. The OS releases it when the
//! process dies however it dies, so a `running` run whose lock can be taken
//! was cut off by a crash.

use std::fs::File;
use std::path::{Path, PathBuf};

use fs4::fs_std::FileExt;

use crate::{AgentError, AgentResult};

/// A held thread lock; dropping it releases the lock.
#[derive(Debug)]
pub struct ThreadLock {
    _file: File,
    path: PathBuf,
}

impl ThreadLock {
    /// Takes the lock of the thread whose folder is `thread_dir`, or `None`
    /// when another run holds it.
    pub fn try_acquire(thread_dir: &Path) -> AgentResult<Option<Self>> {
        std::fs::create_dir_all(thread_dir).map_err(|e| {
            AgentError::Io(format!(
                "cannot create the thread folder {}: {e}",
                thread_dir.display()
            ))
        })?;
        let path = thread_dir.join("run.lock");
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| {
                AgentError::Io(format!("cannot open the run lock {}: {e}", path.display()))
            })?;
        match FileExt::try_lock_exclusive(&file) {
            Ok(true) => Ok(Some(Self { _file: file, path })),
            Ok(false) => Ok(None),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => Ok(None),
            Err(e) => Err(AgentError::Io(format!(
                "cannot lock {}: {e}",
                path.display()
            ))),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn only_one_holder_until_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let first = ThreadLock::try_acquire(dir.path()).unwrap().unwrap();
        assert!(ThreadLock::try_acquire(dir.path()).unwrap().is_none());
        drop(first);
        assert!(ThreadLock::try_acquire(dir.path()).unwrap().is_some());
    }
}
