//! Using workspace paths through handles: every step opens one name
//! relative to the folder handle above it, with no symbolic link followed
//! (`O_NOFOLLOW`; on Linux cap-std also opens with `openat2` and
//! `RESOLVE_BENEATH`), so a link swapped in at any moment fails the open
//! instead of leading outside. Files are opened without blocking
//! (`O_NONBLOCK`) and their type is taken from the opened handle, so a named
//! pipe, socket or device is refused rather than waited on.

use std::io::{ErrorKind, Read};

use cap_fs_ext::{DirExt, FileTypeExt, FollowSymlinks, OpenOptionsFollowExt};
use cap_std::fs::{Dir, File, Metadata, OpenOptions};

use super::{Sandbox, SandboxError, WorkspacePath, MAX_DEPTH};

/// What a path that is not a regular file or folder is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpecialKind {
    Fifo,
    Socket,
    CharDevice,
    BlockDevice,
    Other,
}

impl std::fmt::Display for SpecialKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Fifo => "a named pipe (FIFO)",
            Self::Socket => "a socket",
            Self::CharDevice => "a character device",
            Self::BlockDevice => "a block device",
            Self::Other => "something else",
        })
    }
}

/// What a workspace path names, opened.
#[derive(Debug)]
pub(crate) enum Found {
    Folder(Dir),
    /// A regular file (when it was looked at): its folder and its name.
    File {
        parent: Dir,
        name: String,
    },
}

/// Whether `e` is the error of an open that met a symbolic link where it
/// was told not to follow one.
pub(crate) fn is_link_error(e: &std::io::Error) -> bool {
    #[cfg(unix)]
    if e.raw_os_error() == Some(libc::ELOOP) {
        return true;
    }
    // cap-std's own check says so in words (and on Windows).
    e.to_string().contains("symlink") || e.to_string().contains("symbolic link")
}

fn refused_link(shown: &str) -> SandboxError {
    SandboxError::Refused {
        path: shown.to_string(),
        reason: "symbolic links are not followed",
    }
}

fn special_kind(m: &Metadata) -> Option<SpecialKind> {
    let t = m.file_type();
    if t.is_file() || t.is_dir() || t.is_symlink() {
        None
    } else if t.is_fifo() {
        Some(SpecialKind::Fifo)
    } else if t.is_socket() {
        Some(SpecialKind::Socket)
    } else if t.is_char_device() {
        Some(SpecialKind::CharDevice)
    } else if t.is_block_device() {
        Some(SpecialKind::BlockDevice)
    } else {
        Some(SpecialKind::Other)
    }
}

/// Turns the failure of opening `name` inside `dir` into words.
fn explain(dir: &Dir, name: &str, shown: &str, e: std::io::Error) -> SandboxError {
    if e.kind() == ErrorKind::NotFound {
        return SandboxError::Missing(shown.to_string());
    }
    if is_link_error(&e) {
        return refused_link(shown);
    }
    match dir.symlink_metadata(name) {
        Ok(m) if m.file_type().is_symlink() => refused_link(shown),
        Ok(m) if m.is_file() => SandboxError::NotAFolder(shown.to_string()),
        Ok(m) => match special_kind(&m) {
            Some(kind) => SandboxError::Special {
                path: shown.to_string(),
                kind,
            },
            None => unusable(shown, &e),
        },
        Err(_) => unusable(shown, &e),
    }
}

/// A path that exists (or not) but could not be used, in words.
pub(crate) fn unusable(shown: &str, e: &std::io::Error) -> SandboxError {
    match e.kind() {
        ErrorKind::NotFound => SandboxError::Missing(shown.to_string()),
        ErrorKind::PermissionDenied => SandboxError::Io {
            path: shown.to_string(),
            message: "permission denied".into(),
        },
        _ => SandboxError::Io {
            path: shown.to_string(),
            message: e.to_string(),
        },
    }
}

/// `/a/b` from the shown folder `/a` and the name `b`.
pub(crate) fn child(shown: &str, name: &str) -> String {
    if shown.ends_with('/') {
        format!("{shown}{name}")
    } else {
        format!("{shown}/{name}")
    }
}

impl Sandbox {
    /// Opens the folder `path` names, one name at a time, following no
    /// link; with `create`, missing folders are made on the way.
    pub(crate) fn folder(&self, path: &WorkspacePath, create: bool) -> Result<Dir, SandboxError> {
        self.descend(path.names(), create)
    }

    fn descend(&self, names: &[String], create: bool) -> Result<Dir, SandboxError> {
        let mut dir = self.handle()?.try_clone().map_err(|e| unusable("/", &e))?;
        let mut shown = String::from("/");
        for name in names {
            shown = child(&shown, name);
            if create {
                match dir.create_dir(name) {
                    Ok(()) => {}
                    Err(e) if e.kind() == ErrorKind::AlreadyExists => {}
                    Err(e) => return Err(explain(&dir, name, &shown, e)),
                }
            }
            dir = dir
                .open_dir_nofollow(name)
                .map_err(|e| explain(&dir, name, &shown, e))?;
        }
        Ok(dir)
    }

    /// The folder holding `path` (made if `create`) and its last name.
    /// The root has no folder above it: an error.
    pub(crate) fn parent_of(
        &self,
        path: &WorkspacePath,
        create: bool,
    ) -> Result<(Dir, String), SandboxError> {
        let Some((parents, name)) = path.split_last() else {
            return Err(SandboxError::IsAFolder("/".into()));
        };
        Ok((self.descend(parents, create)?, name.to_string()))
    }

    /// What `path` names: a folder (opened) or a regular file. Links and
    /// special files are refused; a missing path is an error.
    pub(crate) fn find(&self, path: &WorkspacePath) -> Result<Found, SandboxError> {
        let (parent, name) = match path.split_last() {
            None => return Ok(Found::Folder(self.descend(&[], false)?)),
            Some((parents, name)) => (self.descend(parents, false)?, name),
        };
        let shown = path.shown();
        let meta = parent
            .symlink_metadata(name)
            .map_err(|e| explain(&parent, name, &shown, e))?;
        if meta.file_type().is_symlink() {
            return Err(refused_link(&shown));
        }
        if meta.is_dir() {
            let dir = parent
                .open_dir_nofollow(name)
                .map_err(|e| explain(&parent, name, &shown, e))?;
            return Ok(Found::Folder(dir));
        }
        if let Some(kind) = special_kind(&meta) {
            return Err(SandboxError::Special { path: shown, kind });
        }
        Ok(Found::File {
            parent,
            name: name.to_string(),
        })
    }
}

/// Opens the regular file `name` of `parent` for reading. It is opened
/// without following a link and without blocking (a named pipe with no
/// writer would otherwise wait forever), and refused unless the opened
/// handle is a regular file.
pub(crate) fn open_regular(parent: &Dir, name: &str, shown: &str) -> Result<File, SandboxError> {
    let mut options = OpenOptions::new();
    options.read(true).follow(FollowSymlinks::No);
    #[cfg(unix)]
    {
        use cap_std::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = parent
        .open_with(name, &options)
        .map_err(|e| explain(parent, name, shown, e))?;
    let meta = file.metadata().map_err(|e| unusable(shown, &e))?;
    if meta.is_dir() {
        return Err(SandboxError::IsAFolder(shown.to_string()));
    }
    if let Some(kind) = special_kind(&meta) {
        return Err(SandboxError::Special {
            path: shown.to_string(),
            kind,
        });
    }
    Ok(file)
}

/// Reads the regular file `name` of `parent` whole when it is at most
/// `max_bytes`; `Ok(None)` when it is larger.
pub(crate) fn read_regular(
    parent: &Dir,
    name: &str,
    shown: &str,
    max_bytes: u64,
) -> Result<Option<Vec<u8>>, SandboxError> {
    let file = open_regular(parent, name, shown)?;
    let mut bytes = Vec::new();
    file.take(max_bytes.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| unusable(shown, &e))?;
    if bytes.len() as u64 > max_bytes {
        return Ok(None);
    }
    Ok(Some(bytes))
}

/// Creates `name` in `parent` new (`O_CREAT | O_EXCL`: an existing file,
/// folder or link there is never opened) for writing.
pub(crate) fn create_new(parent: &Dir, name: &str) -> std::io::Result<File> {
    let mut options = OpenOptions::new();
    options
        .write(true)
        .create_new(true)
        .follow(FollowSymlinks::No);
    parent.open_with(name, &options)
}

/// One entry of a folder listing: a regular file or folder (links and
/// special files are left out: never shown, never followed).
pub(crate) struct Listed {
    pub(crate) name: String,
    pub(crate) meta: Metadata,
}

/// The regular files and folders directly in `dir`, sorted by name.
pub(crate) fn list(dir: &Dir, shown: &str) -> Result<Vec<Listed>, SandboxError> {
    let mut out = Vec::new();
    for entry in dir.entries().map_err(|e| unusable(shown, &e))?.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        // The entry's own metadata, its link never followed.
        let Ok(meta) = dir.symlink_metadata(entry.file_name()) else {
            continue;
        };
        if meta.is_file() || meta.is_dir() {
            out.push(Listed { name, meta });
        }
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// Calls `visit(folder, name, relative path)` for every regular file under
/// `dir`, depth first in name order (the order of their paths), entering
/// folders by handle without following links, at most [`MAX_DEPTH`] deep.
pub(crate) fn each_regular_file(dir: &Dir, visit: &mut dyn FnMut(&Dir, &str, &str)) {
    walk(dir, "", 1, visit);
}

fn walk(dir: &Dir, prefix: &str, depth: usize, visit: &mut dyn FnMut(&Dir, &str, &str)) {
    let Ok(entries) = list(dir, prefix) else {
        return;
    };
    for entry in entries {
        let relative = if prefix.is_empty() {
            entry.name.clone()
        } else {
            format!("{prefix}/{}", entry.name)
        };
        if entry.meta.is_dir() {
            if depth < MAX_DEPTH {
                if let Ok(sub) = dir.open_dir_nofollow(&entry.name) {
                    walk(&sub, &relative, depth + 1, visit);
                }
            }
        } else {
            visit(dir, &entry.name, &relative);
        }
    }
}
