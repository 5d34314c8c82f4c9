//! One run per thread at a time, across processes. On Unix a run holds a
//! POSIX record lock (`fcntl(F_SETLK)`) on one byte of
//! `<threads dir>/runs.lock`, at an offset named by the thread's id, and
//! this process's table of held threads keeps two runs of the process
//! apart (record locks belong to a process, not to a file handle). The OS
//! releases the record locks when the process dies however it dies, so a
//! `running` run whose lock can be taken was cut off by a crash.
//!
//! One file for every thread, opened once per process and never closed
//! (closing any handle of a file drops the process's record locks on it,
//! so nothing else may open it: it lies outside every thread's workspace,
//! where the file tools are confined, and the export reads workspaces
//! only). Taking a run's lock makes no folder and no file. It used to be a file
//! lock on `<threads dir>/<thread id>/run.lock`, which made a folder and a
//! file for each new thread; on ext4 the inode allocator's search grew with
//! every file deleted before (the kernel's `find_inode_bit` and
//! `recently_deleted` were a third of `deskmate serve`'s CPU in the API's
//! benchmark). Elsewhere (Windows) that per-thread file lock remains.

use std::path::{Path, PathBuf};

#[cfg(unix)]
pub use byte_lock::ThreadLock;
#[cfg(not(unix))]
pub use file_lock::ThreadLock;

/// The byte of `runs.lock` that stands for a thread: FNV-1a of its id,
/// kept below 2^62 so it is a valid file offset. The same in every process
/// and every build (std's hasher promises neither). Two threads on the same
/// byte (about one pair in 2^31 among 65,000 threads) only wait on each
/// other across processes; within one the table tells them apart.
fn offset_of(thread_id: &str) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in thread_id.bytes() {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash >> 2
}

fn lock_path(threads_dir: &Path) -> PathBuf {
    threads_dir.join("runs.lock")
}

#[cfg(unix)]
mod byte_lock {
    use std::collections::{HashMap, HashSet};
    use std::fs::File;
    use std::os::fd::AsRawFd;
    use std::path::{Path, PathBuf};
    use std::sync::{Arc, Mutex, OnceLock, PoisonError};

    use super::{lock_path, offset_of};
    use crate::{AgentError, AgentResult};

    /// The lock file of one threads folder, open for the life of the
    /// process, and the threads this process holds, by byte.
    #[derive(Debug)]
    struct LockFile {
        file: File,
        path: PathBuf,
        held: Mutex<HashMap<u64, HashSet<String>>>,
    }

    /// Every threads folder's lock file this process has opened, by its
    /// canonical path (two spellings of a folder are one file) and by each
    /// spelling it was asked for (a run's lock then needs no file-system
    /// call beyond the lock itself).
    fn lock_files() -> &'static Mutex<HashMap<PathBuf, Arc<LockFile>>> {
        static FILES: OnceLock<Mutex<HashMap<PathBuf, Arc<LockFile>>>> = OnceLock::new();
        FILES.get_or_init(Mutex::default)
    }

    fn lock_file(threads_dir: &Path) -> AgentResult<Arc<LockFile>> {
        if let Some(f) = lock_files()
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(threads_dir)
        {
            return Ok(Arc::clone(f));
        }
        std::fs::create_dir_all(threads_dir).map_err(|e| {
            AgentError::Io(format!(
                "cannot create the threads folder {}: {e}",
                threads_dir.display()
            ))
        })?;
        let dir = threads_dir
            .canonicalize()
            .map_err(|e| AgentError::Io(format!("cannot find {}: {e}", threads_dir.display())))?;
        let mut files = lock_files().lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(f) = files.get(&dir).cloned() {
            files.insert(threads_dir.to_path_buf(), Arc::clone(&f));
            return Ok(f);
        }
        let path = lock_path(&dir);
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(&path)
            .map_err(|e| {
                AgentError::Io(format!("cannot open the run lock {}: {e}", path.display()))
            })?;
        let f = Arc::new(LockFile {
            file,
            path,
            held: Mutex::default(),
        });
        files.insert(dir, Arc::clone(&f));
        files.insert(threads_dir.to_path_buf(), Arc::clone(&f));
        Ok(f)
    }

    /// Takes (`F_WRLCK`) or gives back (`F_UNLCK`) the process's record
    /// lock on one byte; `Ok(false)` when another process holds it.
    fn set_lock(file: &LockFile, offset: u64, kind: libc::c_int) -> AgentResult<bool> {
        // SAFETY: `flock` is plain data; zeroed is a valid value to fill in.
        let mut lock: libc::flock = unsafe { std::mem::zeroed() };
        lock.l_type = kind as libc::c_short;
        lock.l_whence = libc::SEEK_SET as libc::c_short;
        lock.l_start = libc::off_t::try_from(offset)
            .map_err(|_| AgentError::Io(format!("lock offset {offset} out of range")))?;
        lock.l_len = 1;
        // SAFETY: the descriptor is open for the life of `file`, and `lock`
        // is a valid `flock` that fcntl only reads.
        let r = unsafe { libc::fcntl(file.file.as_raw_fd(), libc::F_SETLK, &lock) };
        if r == 0 {
            return Ok(true);
        }
        let e = std::io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::EAGAIN) | Some(libc::EACCES) => Ok(false),
            _ => Err(AgentError::Io(format!(
                "cannot lock {}: {e}",
                file.path.display()
            ))),
        }
    }

    /// A held thread lock; dropping it releases the lock.
    #[derive(Debug)]
    pub struct ThreadLock {
        file: Arc<LockFile>,
        offset: u64,
        thread_id: String,
    }

    impl ThreadLock {
        /// Takes the run lock of thread `thread_id` among the threads of
        /// `threads_dir`, or `None` when another run (of this process or
        /// another) holds it.
        pub fn try_acquire(threads_dir: &Path, thread_id: &str) -> AgentResult<Option<Self>> {
            Self::try_acquire_at(threads_dir, thread_id, offset_of(thread_id))
        }

        /// [`ThreadLock::try_acquire`] on a given byte (the tests share one
        /// between two threads).
        pub(super) fn try_acquire_at(
            threads_dir: &Path,
            thread_id: &str,
            offset: u64,
        ) -> AgentResult<Option<Self>> {
            let file = lock_file(threads_dir)?;
            let mut held = file.held.lock().unwrap_or_else(PoisonError::into_inner);
            match held.get(&offset) {
                Some(threads) if threads.contains(thread_id) => return Ok(None),
                // The byte is already this process's (another thread on it).
                Some(_) => {}
                None => {
                    if !set_lock(&file, offset, libc::F_WRLCK)? {
                        return Ok(None);
                    }
                }
            }
            held.entry(offset)
                .or_default()
                .insert(thread_id.to_string());
            drop(held);
            Ok(Some(Self {
                file,
                offset,
                thread_id: thread_id.to_string(),
            }))
        }

        /// The file the lock is taken in.
        pub fn path(&self) -> &Path {
            &self.file.path
        }
    }

    impl Drop for ThreadLock {
        fn drop(&mut self) {
            let mut held = self
                .file
                .held
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            let Some(threads) = held.get_mut(&self.offset) else {
                return;
            };
            threads.remove(&self.thread_id);
            if threads.is_empty() {
                held.remove(&self.offset);
                if let Err(e) = set_lock(&self.file, self.offset, libc::F_UNLCK) {
                    tracing::warn!("the run lock of thread {} stays held: {e}", self.thread_id);
                }
            }
        }
    }
}

#[cfg(not(unix))]
mod file_lock {
    use std::fs::File;
    use std::path::{Path, PathBuf};

    use fs4::fs_std::FileExt;

    use crate::{AgentError, AgentResult};

    /// A held thread lock (an OS file lock on
    /// `<threads dir>/<thread id>/run.lock`); dropping it releases the lock.
    #[derive(Debug)]
    pub struct ThreadLock {
        _file: File,
        path: PathBuf,
    }

    impl ThreadLock {
        /// Takes the run lock of thread `thread_id` among the threads of
        /// `threads_dir`, or `None` when another run holds it.
        pub fn try_acquire(threads_dir: &Path, thread_id: &str) -> AgentResult<Option<Self>> {
            let thread_dir = threads_dir.join(thread_id);
            std::fs::create_dir_all(&thread_dir).map_err(|e| {
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
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn only_one_holder_until_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let first = ThreadLock::try_acquire(dir.path(), "t1").unwrap().unwrap();
        assert!(ThreadLock::try_acquire(dir.path(), "t1").unwrap().is_none());
        // Another spelling of the same folder is the same lock.
        let spelled = dir.path().join("sub").join("..");
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        assert!(ThreadLock::try_acquire(&spelled, "t1").unwrap().is_none());
        // Another thread is not held up, nor the same thread under another
        // threads folder.
        let other = ThreadLock::try_acquire(dir.path(), "t2").unwrap().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        assert!(ThreadLock::try_acquire(elsewhere.path(), "t1")
            .unwrap()
            .is_some());
        drop(first);
        assert!(ThreadLock::try_acquire(dir.path(), "t1").unwrap().is_some());
        drop(other);
    }

    #[test]
    fn offsets_are_stable_and_spread() {
        // FNV-1a of "a" is 0xaf63dc4c8601ec8c; the lock byte is that >> 2.
        assert_eq!(offset_of("a"), 0xaf63_dc4c_8601_ec8c >> 2);
        let offsets: std::collections::HashSet<u64> = (0..10_000)
            .map(|i| offset_of(&format!("019ac0de-{i:04}-7000-8000-000000000000")))
            .collect();
        assert_eq!(offsets.len(), 10_000);
        assert!(offsets.iter().all(|o| *o < 1 << 62));
    }

    /// Two threads on the same byte within one process: each is held
    /// alone, and the byte stays taken until both are given back.
    #[cfg(target_os = "linux")]
    #[test]
    fn threads_sharing_a_byte_are_told_apart() {
        let dir = tempfile::tempdir().unwrap();
        let byte = offset_of("a");
        let la = ThreadLock::try_acquire_at(dir.path(), "a", byte)
            .unwrap()
            .unwrap();
        let lb = ThreadLock::try_acquire_at(dir.path(), "b", byte)
            .unwrap()
            .unwrap();
        assert!(ThreadLock::try_acquire_at(dir.path(), "a", byte)
            .unwrap()
            .is_none());
        drop(la);
        assert!(held_by_another_process(dir.path(), byte));
        drop(lb);
        assert!(!held_by_another_process(dir.path(), byte));
    }

    /// What another process sees: an open-file-description lock (Linux)
    /// conflicts with this process's record locks as another process's
    /// would; one held there keeps this process out, and the byte is free
    /// again once the lock is dropped.
    #[cfg(target_os = "linux")]
    #[test]
    fn another_process_sees_the_lock_and_keeps_us_out() {
        let dir = tempfile::tempdir().unwrap();
        let lock = ThreadLock::try_acquire(dir.path(), "thread-x")
            .unwrap()
            .unwrap();
        assert_eq!(
            lock.path(),
            dir.path().canonicalize().unwrap().join("runs.lock")
        );
        assert!(held_by_another_process(dir.path(), offset_of("thread-x")));
        assert!(!held_by_another_process(dir.path(), offset_of("thread-y")));
        drop(lock);
        assert!(!held_by_another_process(dir.path(), offset_of("thread-x")));
        // Held "elsewhere": this process cannot take it.
        let elsewhere = ofd_lock(dir.path(), offset_of("thread-x")).unwrap();
        assert!(ThreadLock::try_acquire(dir.path(), "thread-x")
            .unwrap()
            .is_none());
        drop(elsewhere);
        assert!(ThreadLock::try_acquire(dir.path(), "thread-x")
            .unwrap()
            .is_some());
    }

    /// An OFD lock (Linux) on one byte of the lock file, through a handle
    /// of its own: `None` when the byte is taken.
    #[cfg(target_os = "linux")]
    fn ofd_lock(dir: &Path, offset: u64) -> Option<std::fs::File> {
        use std::os::fd::AsRawFd;
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(lock_path(dir))
            .unwrap();
        // SAFETY: zeroed `flock` is valid; fcntl only reads it.
        let mut lock: libc::flock = unsafe { std::mem::zeroed() };
        lock.l_type = libc::F_WRLCK as libc::c_short;
        lock.l_whence = libc::SEEK_SET as libc::c_short;
        lock.l_start = offset as libc::off_t;
        lock.l_len = 1;
        // SAFETY: an open descriptor and a valid `flock`.
        let r = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_OFD_SETLK, &lock) };
        (r == 0).then_some(file)
    }

    #[cfg(target_os = "linux")]
    fn held_by_another_process(dir: &Path, offset: u64) -> bool {
        ofd_lock(dir, offset).is_none()
    }
}
