//! The thread's workspace as a sandboxed virtual filesystem. Tools name
//! files by virtual paths (`/notes/plan.md`) rooted in the workspace folder;
//! this module turns them into host paths and refuses every way out: `..`,
//! host paths, `~`, Windows drive or UNC paths, backslashes, NUL bytes and
//! symbolic links anywhere along the path.

use std::path::{Component, Path, PathBuf};

/// Why a path was refused or could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SandboxError {
    #[error("path {path:?} is not allowed: {reason}")]
    Refused { path: String, reason: &'static str },
    #[error("the workspace folder {0} cannot be used: {1}")]
    Root(String, String),
}

/// One thread's workspace.
#[derive(Debug)]
pub struct Sandbox {
    root: PathBuf,
    /// Serializes changes (write, edit) so parallel tool calls do not
    /// interleave read-modify-write cycles on a file. Taken on the blocking
    /// thread that does the work, so a call abandoned at its time limit
    /// keeps it until its work is really over.
    pub(crate) write_lock: std::sync::Mutex<()>,
}

const MAX_COMPONENT: usize = 255;
const MAX_DEPTH: usize = 64;

impl Sandbox {
    /// Opens (creating if needed) the workspace at `root`.
    pub fn open(root: &Path) -> Result<Self, SandboxError> {
        std::fs::create_dir_all(root)
            .map_err(|e| SandboxError::Root(root.display().to_string(), e.to_string()))?;
        let root = root
            .canonicalize()
            .map_err(|e| SandboxError::Root(root.display().to_string(), e.to_string()))?;
        Ok(Self {
            root,
            write_lock: std::sync::Mutex::new(()),
        })
    }

    /// The workspace folder on the host.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The host path of a virtual path, after every check. The path need
    /// not exist; the part that exists contains no symbolic link.
    pub fn resolve(&self, virtual_path: &str) -> Result<PathBuf, SandboxError> {
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
        let mut host = self.root.clone();
        let mut depth = 0;
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
            depth += 1;
            if depth > MAX_DEPTH {
                return refuse("it is nested too deeply");
            }
            host.push(part);
            match std::fs::symlink_metadata(&host) {
                Ok(m) if m.file_type().is_symlink() => {
                    return refuse("symbolic links are not followed")
                }
                Ok(_) => {}
                Err(_) => {}
            }
        }
        // Belt and braces: whatever exists must canonicalize inside the root.
        if let Ok(real) = host.canonicalize() {
            if !real.starts_with(&self.root) {
                return refuse("it leads outside the workspace");
            }
        }
        Ok(host)
    }

    /// The virtual path of a host path inside the workspace.
    pub fn virtual_path(&self, host: &Path) -> Option<String> {
        let rel = host.strip_prefix(&self.root).ok()?;
        let mut out = String::new();
        for c in rel.components() {
            out.push('/');
            out.push_str(&c.as_os_str().to_string_lossy());
        }
        Some(if out.is_empty() { "/".to_string() } else { out })
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

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn resolves_inside_and_refuses_escapes() {
        let dir = tempfile::tempdir().unwrap();
        let sb = Sandbox::open(&dir.path().join("ws")).unwrap();
        assert_eq!(sb.resolve("/a/b.txt").unwrap(), sb.root().join("a/b.txt"));
        assert_eq!(sb.resolve("a/./b.txt").unwrap(), sb.root().join("a/b.txt"));
        assert_eq!(sb.resolve("/").unwrap(), sb.root());
        assert_eq!(sb.resolve("").unwrap(), sb.root());
        // Absolute paths are virtual: /etc/passwd is a (missing) file in the workspace.
        assert_eq!(
            sb.resolve("/etc/passwd").unwrap(),
            sb.root().join("etc/passwd")
        );
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
                matches!(sb.resolve(bad), Err(SandboxError::Refused { .. })),
                "{bad:?} was not refused"
            );
        }
        assert_eq!(
            sb.virtual_path(&sb.root().join("a/b")).as_deref(),
            Some("/a/b")
        );
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
            assert!(sb.resolve(bad).is_err(), "{bad} was not refused");
        }
    }
}
