//! The thread's workspace as a sandboxed virtual filesystem. Tools name
//! files by virtual paths (`/notes/plan.md`) rooted in the workspace folder.
//! A path is first checked by its text (`..`, host paths, `~`, Windows drive
//! or UNC paths, backslashes, NUL bytes, over-long names are refused), then
//! used one name at a time from a handle on the workspace folder, never
//! following a symbolic link (see [`handles`]): the check and the use are
//! one step, so nothing swapped in meanwhile can lead outside.

mod handles;

use std::path::{Component, Path, PathBuf};
use std::sync::{Mutex, OnceLock, PoisonError};

use cap_fs_ext::DirExt;
use cap_std::fs::Dir;

pub use handles::SpecialKind;
pub(crate) use handles::{
    child, create_new, each_regular_file, list, read_regular, unusable, Found,
};

/// Why a path was refused or could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SandboxError {
    #[error("path {path:?} is not allowed: {reason}")]
    Refused { path: String, reason: &'static str },
    #[error("the workspace folder {0} cannot be used: {1}")]
    Root(String, String),
    #[error("path '{0}' not found")]
    Missing(String),
    #[error("'{0}' is a file, not a folder")]
    NotAFolder(String),
    #[error("'{0}' is a folder; use ls to list it")]
    IsAFolder(String),
    #[error("'{path}' is {kind}, not a regular file or folder: it cannot be read or changed")]
    Special { path: String, kind: SpecialKind },
    #[error("cannot use '{path}': {message}")]
    Io { path: String, message: String },
}

/// A virtual path that passed the checks on its text: the names from the
/// workspace root down (none for the root itself).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkspacePath {
    names: Vec<String>,
}

impl WorkspacePath {
    /// The names from the root down.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    pub fn is_root(&self) -> bool {
        self.names.is_empty()
    }

    /// The path as the model sees it (`/notes/a.md`, `/` for the root).
    pub fn shown(&self) -> String {
        format!("/{}", self.names.join("/"))
    }

    /// The folders above and the last name; `None` for the root.
    pub(crate) fn split_last(&self) -> Option<(&[String], &str)> {
        self.names
            .split_last()
            .map(|(last, parents)| (parents, last.as_str()))
    }
}

/// What a deferred workspace is filled with when a tool first uses it
/// (the skills): given the sandbox, for checking paths, and the freshly
/// opened folder to write into.
pub type Seed = Box<dyn Fn(&Sandbox, &Dir) -> Result<(), SandboxError> + Send + Sync>;

/// One thread's workspace.
pub struct Sandbox {
    root: PathBuf,
    /// The workspace folder, opened once without following a link: every
    /// file tool starts from this handle, never from `root`'s text. Empty
    /// until first used when the sandbox was made with [`Sandbox::deferred`].
    dir: OnceLock<Dir>,
    /// What to put in the folder when it is first opened; the lock also
    /// makes two first uses at once open it only once.
    seed: Mutex<Option<Seed>>,
    /// Serializes changes (write, edit) so parallel tool calls do not
    /// interleave read-modify-write cycles on a file. Taken on the blocking
    /// thread that does the work, so a call abandoned at its time limit
    /// keeps it until its work is really over.
    pub(crate) write_lock: std::sync::Mutex<()>,
}

impl std::fmt::Debug for Sandbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sandbox")
            .field("root", &self.root)
            .field("opened", &self.dir.get().is_some())
            .finish()
    }
}

const MAX_COMPONENT: usize = 255;
const MAX_DEPTH: usize = 64;

impl Sandbox {
    /// Opens (creating if needed) the workspace at `root`. A root that is a
    /// symbolic link is refused: following it would make wherever it points
    /// the workspace.
    pub fn open(root: &Path) -> Result<Self, SandboxError> {
        let (dir, root) = open_folder(root)?;
        Ok(Self {
            root,
            dir: OnceLock::from(dir),
            seed: Mutex::new(None),
            write_lock: std::sync::Mutex::new(()),
        })
    }

    /// The workspace at `root`, made and filled by `seed` only when a tool
    /// first uses it: most turns of a chat never touch a file, and making
    /// the folder and copying the skills into it was a third of a run's
    /// time (see the API's benchmark). The same checks as [`Sandbox::open`]
    /// apply then; a failure is the tool call's error, and the next use
    /// tries again.
    pub fn deferred(root: &Path, seed: Seed) -> Self {
        Self {
            root: std::path::absolute(root).unwrap_or_else(|_| root.to_path_buf()),
            dir: OnceLock::new(),
            seed: Mutex::new(Some(seed)),
            write_lock: std::sync::Mutex::new(()),
        }
    }

    /// The opened workspace folder, opening (and seeding) it on first use.
    pub(crate) fn handle(&self) -> Result<&Dir, SandboxError> {
        if let Some(dir) = self.dir.get() {
            return Ok(dir);
        }
        let mut seed = self.seed.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(dir) = self.dir.get() {
            return Ok(dir);
        }
        let (dir, _) = open_folder(&self.root)?;
        if let Some(fill) = seed.as_ref() {
            fill(self, &dir)?;
        }
        *seed = None;
        Ok(self.dir.get_or_init(|| dir))
    }

    /// Whether the workspace folder has been opened (always, for
    /// [`Sandbox::open`]; after the first use, for [`Sandbox::deferred`]).
    pub fn is_opened(&self) -> bool {
        self.dir.get().is_some()
    }

    /// The workspace folder on the host.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Checks a virtual path by its text and splits it into names. Whether
    /// it exists, and what it is, is found out only when it is used.
    pub fn check(&self, virtual_path: &str) -> Result<WorkspacePath, SandboxError> {
        let refuse = |reason| {
            Err(SandboxError::Refused {
                path: virtual_path.to_string(),
                reason,
            })
        };
        let p = virtual_path.trim();
        if p.contains('\0') {
            return refuse("it contains a NUL byte");
        }
        if p.contains('\\') {
            return refuse("use / to separate folders (backslashes are not allowed)");
        }
        if p.starts_with('~') {
            return refuse("home-folder paths (~) are outside the workspace");
        }
        if p.len() >= 2 && p.as_bytes()[1] == b':' && p.as_bytes()[0].is_ascii_alphabetic() {
            return refuse("drive paths are outside the workspace");
        }
        if p.contains("://") {
            return refuse("URLs are not file paths");
        }
        let root_str = self.root.to_string_lossy();
        if p.starts_with(root_str.as_ref()) && root_str.len() > 1 {
            return refuse(
                "host paths are not allowed; use paths starting at / inside the workspace",
            );
        }
        let mut names = Vec::new();
        for part in p.split('/') {
            match part {
                "" | "." => continue,
                ".." => return refuse("paths may not go up with .."),
                _ if part.len() > MAX_COMPONENT => return refuse("a name in it is too long"),
                _ => {}
            }
            // A name that std would read as anything but a plain name.
            let mut comps = Path::new(part).components();
            if !matches!(
                (comps.next(), comps.next()),
                (Some(Component::Normal(_)), None)
            ) {
                return refuse("it contains a name that is not a plain file name");
            }
            if names.len() == MAX_DEPTH {
                return refuse("it is nested too deeply");
            }
            names.push(part.to_string());
        }
        Ok(WorkspacePath { names })
    }

    /// Writes `bytes` to a new file at `virtual_path`, making its folders
    /// on the way (none of them a link), as `write_file` does but for any
    /// bytes (a chat's attachments). `Ok(false)` when something is already
    /// there: nothing is replaced.
    pub fn put_new_file(&self, virtual_path: &str, bytes: &[u8]) -> Result<bool, SandboxError> {
        use std::io::Write;
        let checked = self.check(virtual_path)?;
        let shown = checked.shown();
        let (parent, name) = self.parent_of(&checked, true)?;
        match create_new(&parent, &name) {
            Ok(mut f) => {
                f.write_all(bytes)
                    .and_then(|()| f.sync_all())
                    .map_err(|e| unusable(&shown, &e))?;
                Ok(true)
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
            Err(e) => Err(unusable(&shown, &e)),
        }
    }

    /// Normalizes a virtual path for display (`notes//a.md` → `/notes/a.md`).
    pub fn display_path(virtual_path: &str) -> String {
        let parts: Vec<&str> = virtual_path
            .split('/')
            .filter(|p| !p.is_empty() && *p != ".")
            .collect();
        format!("/{}", parts.join("/"))
    }
}

/// Opens (creating if needed) the folder at `root` without following a
/// link as its last step; answers the handle and the folder's host path.
fn open_folder(root: &Path) -> Result<(Dir, PathBuf), SandboxError> {
    let fail =
        |e: &dyn std::fmt::Display| SandboxError::Root(root.display().to_string(), e.to_string());
    match std::fs::symlink_metadata(root) {
        Ok(m) if m.file_type().is_symlink() => {
            return Err(fail(&"it is a symbolic link; give the real folder"))
        }
        Ok(_) => {}
        Err(_) => std::fs::create_dir_all(root).map_err(|e| fail(&e))?,
    }
    let (parent, name) = match (root.parent(), root.file_name()) {
        (Some(p), Some(n)) if !p.as_os_str().is_empty() => (p, n),
        (_, Some(n)) => (Path::new("."), n),
        _ => return Err(fail(&"give the path of a folder by its name")),
    };
    let above =
        Dir::open_ambient_dir(parent, cap_std::ambient_authority()).map_err(|e| fail(&e))?;
    // The last name is opened without following a link, so a link
    // swapped in after the check above is refused too.
    let dir = above
        .open_dir_nofollow(name)
        .map_err(|e| match handles::is_link_error(&e) {
            true => fail(&"it is a symbolic link; give the real folder"),
            false => fail(&e),
        })?;
    let root = parent.canonicalize().map_err(|e| fail(&e))?.join(name);
    Ok((dir, root))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn checks_paths_by_their_text() {
        let dir = tempfile::tempdir().unwrap();
        let sb = Sandbox::open(&dir.path().join("ws")).unwrap();
        assert_eq!(sb.check("/a/b.txt").unwrap().names(), ["a", "b.txt"]);
        assert_eq!(sb.check("a/./b.txt").unwrap().shown(), "/a/b.txt");
        assert!(sb.check("/").unwrap().is_root());
        assert!(sb.check("").unwrap().is_root());
        // Absolute paths are virtual: /etc/passwd is a (missing) file in the workspace.
        assert_eq!(sb.check("/etc/passwd").unwrap().shown(), "/etc/passwd");
        let host = sb.root().join("x").display().to_string();
        for bad in [
            "../x",
            "/a/../../x",
            "a/..",
            "~/x",
            "C:/x",
            "c:\\x",
            "\\\\server\\x",
            "a\0b",
            "file:///etc/passwd",
            host.as_str(),
        ] {
            assert!(
                matches!(sb.check(bad), Err(SandboxError::Refused { .. })),
                "{bad:?} was not refused"
            );
        }
        let deep = "/d".repeat(MAX_DEPTH + 1);
        assert!(sb.check(&deep).is_err());
        assert_eq!(Sandbox::display_path("a//b/./c"), "/a/b/c");
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_are_refused_wherever_they_are() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside");
        std::fs::create_dir(&outside).unwrap();
        std::fs::write(outside.join("secret.txt"), "secret").unwrap();
        let sb = Sandbox::open(&dir.path().join("ws")).unwrap();
        std::os::unix::fs::symlink(&outside, sb.root().join("link")).unwrap();
        std::os::unix::fs::symlink(outside.join("secret.txt"), sb.root().join("file-link"))
            .unwrap();
        std::fs::create_dir(sb.root().join("inner")).unwrap();
        std::os::unix::fs::symlink(sb.root().join("inner"), sb.root().join("inner-link")).unwrap();
        for bad in [
            "/link/secret.txt",
            "/link",
            "/file-link",
            "/inner-link",
            "/inner-link/new.txt",
        ] {
            let path = sb.check(bad).unwrap();
            let found = sb.find(&path);
            assert!(
                matches!(found, Err(SandboxError::Refused { .. })),
                "{bad} was not refused: {found:?}"
            );
            assert!(
                matches!(sb.folder(&path, true), Err(SandboxError::Refused { .. })),
                "{bad} was not refused as a folder"
            );
        }
        assert!(!outside.join("new.txt").exists());
        assert!(matches!(
            sb.find(&sb.check("/inner").unwrap()),
            Ok(Found::Folder(_))
        ));
    }
}
