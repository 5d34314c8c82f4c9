//! File tools on the sandboxed workspace, with deepagents' rules: `ls`
//! lists one folder; `read_file` pages through a file with line numbers;
//! `write_file` only creates; `edit_file` replaces a string that must be
//! unique unless `replace_all`.

use std::io::{ErrorKind, Write};
use std::sync::{Arc, PoisonError};

use cap_std::fs::Dir;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

use super::{blocking, parse_args, schema, Tool, ToolContext, ToolFuture, ToolOutput};
use crate::sandbox::{child, create_new, list, read_regular, Found};
use crate::{Sandbox, SandboxError};

/// Lines of a file `read_file` returns when no limit is given.
pub const DEFAULT_READ_LIMIT: usize = 2000;
/// Longer lines are cut when read.
pub const MAX_LINE_CHARS: usize = 2000;
/// Files larger than this are not read or edited whole.
const MAX_FILE_BYTES: u64 = 20 * 1024 * 1024;

fn modified(m: &cap_std::fs::Metadata) -> String {
    m.modified()
        .ok()
        .map(|t| {
            chrono::DateTime::<chrono::Utc>::from(t.into_std())
                .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
        })
        .unwrap_or_default()
}

/// A text file read through the sandbox: its folder (a handle), its name
/// and its text.
struct TextFile {
    parent: Dir,
    name: String,
    text: String,
}

/// Reads a regular text file of the workspace, through handles only.
fn read_text(sandbox: &Sandbox, path: &str) -> Result<TextFile, ToolOutput> {
    let checked = sandbox.check(path)?;
    let shown = checked.shown();
    let (parent, name) = match sandbox.find(&checked)? {
        Found::Folder(_) => {
            return Err(ToolOutput::error(format!(
                "'{shown}' is a directory; use ls to list it"
            )))
        }
        Found::File { parent, name } => (parent, name),
    };
    let Some(bytes) = read_regular(&parent, &name, &shown, MAX_FILE_BYTES)? else {
        return Err(ToolOutput::error(format!(
            "'{shown}' is too large (over {MAX_FILE_BYTES} bytes) to read as text"
        )));
    };
    let text = String::from_utf8(bytes)
        .map_err(|_| ToolOutput::error(format!("'{shown}' is not a UTF-8 text file")))?;
    Ok(TextFile { parent, name, text })
}

// ---------------------------------------------------------------- ls

/// List the files and folders directly inside a folder of the workspace.
#[derive(Deserialize, JsonSchema)]
struct LsArgs {
    /// Absolute path of the folder to list, e.g. "/" or "/notes".
    #[serde(default = "root")]
    path: String,
}

fn root() -> String {
    "/".into()
}

pub struct Ls;

impl Tool for Ls {
    fn name(&self) -> &'static str {
        "ls"
    }
    fn description(&self) -> &'static str {
        "Lists the files and folders directly inside a folder of the workspace, with is_dir, size in bytes and modified time. Folders end with /."
    }
    fn parameters(&self) -> Value {
        schema::<LsArgs>()
    }
    fn call(&self, ctx: ToolContext, args: Value) -> ToolFuture {
        Box::pin(async move {
            let args: LsArgs = match parse_args("ls", args) {
                Ok(a) => a,
                Err(e) => return e,
            };
            blocking(move || ls(&ctx.sandbox, &args.path)).await
        })
    }
}

fn ls(sandbox: &Sandbox, path: &str) -> ToolOutput {
    let checked = match sandbox.check(path) {
        Ok(c) => c,
        Err(e) => return e.into(),
    };
    let shown = checked.shown();
    let dir = match sandbox.find(&checked) {
        Ok(Found::Folder(dir)) => dir,
        Ok(Found::File { .. }) => {
            return ToolOutput::error(format!("'{shown}' is a file, not a folder"))
        }
        Err(e) => return e.into(),
    };
    let entries = match list(&dir, &shown) {
        Ok(e) => e,
        Err(e) => return e.into(),
    };
    let rows: Vec<Value> = entries
        .iter()
        .map(|entry| {
            let is_dir = entry.meta.is_dir();
            let mut vpath = child(&shown, &entry.name);
            if is_dir {
                vpath.push('/');
            }
            let size = if is_dir { 0 } else { entry.meta.len() };
            json!({"path": vpath, "is_dir": is_dir, "size": size, "modified": modified(&entry.meta)})
        })
        .collect();
    ToolOutput::ok(Value::Array(rows).to_string())
}

// ---------------------------------------------------------------- read_file

/// Read a text file of the workspace, with line numbers.
#[derive(Deserialize, JsonSchema)]
struct ReadArgs {
    /// Absolute path of the file, e.g. "/notes/plan.md".
    file_path: String,
    /// Line to start from (0 = the first line).
    #[serde(default)]
    offset: usize,
    /// How many lines to read.
    #[serde(default = "default_limit")]
    limit: usize,
}

fn default_limit() -> usize {
    DEFAULT_READ_LIMIT
}

pub struct ReadFile;

impl Tool for ReadFile {
    fn name(&self) -> &'static str {
        "read_file"
    }
    fn description(&self) -> &'static str {
        "Reads a text file of the workspace. Lines are numbered from 1 (cat -n style). By default up to 2000 lines from the start; use offset (0-based line) and limit to page through long files. Lines longer than 2000 characters are cut."
    }
    fn parameters(&self) -> Value {
        schema::<ReadArgs>()
    }
    fn evictable(&self) -> bool {
        false
    }
    fn call(&self, ctx: ToolContext, args: Value) -> ToolFuture {
        Box::pin(async move {
            let args: ReadArgs = match parse_args("read_file", args) {
                Ok(a) => a,
                Err(e) => return e,
            };
            blocking(move || read_file(&ctx.sandbox, &args.file_path, args.offset, args.limit))
                .await
        })
    }
}

/// `read_file` itself, also used by tests and the large-result preview.
pub fn read_file(sandbox: &Sandbox, path: &str, offset: usize, limit: usize) -> ToolOutput {
    let text = match read_text(sandbox, path) {
        Ok(t) => t.text,
        Err(e) => return e,
    };
    if text.is_empty() {
        return ToolOutput::ok("System reminder: File exists but has empty contents");
    }
    let lines: Vec<&str> = text.lines().collect();
    if offset >= lines.len() {
        return ToolOutput::error(format!(
            "Line offset {offset} exceeds file length ({} lines)",
            lines.len()
        ));
    }
    let end = offset.saturating_add(limit.max(1)).min(lines.len());
    let mut out = String::new();
    for (i, line) in lines[offset..end].iter().enumerate() {
        let mut line: String = line.chars().take(MAX_LINE_CHARS).collect();
        if line.len() < lines[offset + i].len() {
            line.push_str(" … [line cut]");
        }
        out.push_str(&format!("{:6}\t{}\n", offset + i + 1, line));
    }
    if end < lines.len() {
        out.push_str(&format!(
            "… {} more lines; read on with offset={end}\n",
            lines.len() - end
        ));
    }
    ToolOutput::ok(out)
}

// ---------------------------------------------------------------- write_file

/// Create a new text file in the workspace.
#[derive(Deserialize, JsonSchema)]
struct WriteArgs {
    /// Absolute path of the new file, e.g. "/notes/plan.md". Folders are created.
    file_path: String,
    /// The file's text.
    content: String,
}

pub struct WriteFile;

impl Tool for WriteFile {
    fn name(&self) -> &'static str {
        "write_file"
    }
    fn description(&self) -> &'static str {
        "Creates a new text file in the workspace. It never overwrites: to change an existing file, read it and use edit_file."
    }
    fn parameters(&self) -> Value {
        schema::<WriteArgs>()
    }
    fn call(&self, ctx: ToolContext, args: Value) -> ToolFuture {
        Box::pin(async move {
            let args: WriteArgs = match parse_args("write_file", args) {
                Ok(a) => a,
                Err(e) => return e,
            };
            let sb = Arc::clone(&ctx.sandbox);
            blocking(move || {
                let _guard = sb.write_lock.lock().unwrap_or_else(PoisonError::into_inner);
                write_file(&sb, &args.file_path, &args.content)
            })
            .await
        })
    }
}

/// The skills folder is the app's, copied in at each run: not the model's to change.
fn read_only(shown: &str) -> Option<ToolOutput> {
    crate::skills::is_read_only(shown).then(|| {
        ToolOutput::error(format!(
            "'{shown}' is in the read-only skills folder; write your own notes to another folder"
        ))
    })
}

pub fn write_file(sandbox: &Sandbox, path: &str, content: &str) -> ToolOutput {
    let checked = match sandbox.check(path) {
        Ok(c) => c,
        Err(e) => return e.into(),
    };
    if checked.is_root() {
        return ToolOutput::error("give a file path, not the workspace root");
    }
    let shown = checked.shown();
    if let Some(refused) = read_only(&shown) {
        return refused;
    }
    let exists = || {
        ToolOutput::error(format!(
            "Cannot write to {shown} because it already exists. Read and then make an edit, or write to a new path."
        ))
    };
    // Folders are made one at a time from the workspace handle, none of
    // them a link.
    let (parent, name) = match sandbox.parent_of(&checked, true) {
        Ok(p) => p,
        Err(SandboxError::NotAFolder(f)) => {
            return ToolOutput::error(format!(
                "cannot create the folder for '{shown}': '{f}' is a file"
            ))
        }
        Err(e) => return e.into(),
    };
    // create_new refuses an existing file, folder or link atomically (O_EXCL).
    match create_new(&parent, &name) {
        Ok(mut f) => match f.write_all(content.as_bytes()).and_then(|()| f.sync_all()) {
            Ok(()) => ToolOutput::ok(format!("Updated file {shown}")),
            Err(e) => ToolOutput::error(format!("cannot write '{shown}': {e}")),
        },
        Err(e) if e.kind() == ErrorKind::AlreadyExists => exists(),
        Err(e) => crate::sandbox::unusable(&shown, &e).into(),
    }
}

// ---------------------------------------------------------------- edit_file

/// Replace text in an existing file of the workspace.
#[derive(Deserialize, JsonSchema)]
struct EditArgs {
    /// Absolute path of the file.
    file_path: String,
    /// The exact text to replace; it must occur exactly once unless replace_all is true.
    old_string: String,
    /// The text to put in its place.
    new_string: String,
    /// Replace every occurrence.
    #[serde(default)]
    replace_all: bool,
}

pub struct EditFile;

impl Tool for EditFile {
    fn name(&self) -> &'static str {
        "edit_file"
    }
    fn description(&self) -> &'static str {
        "Replaces old_string with new_string in an existing file. old_string must match exactly once (include surrounding lines to make it unique), or set replace_all to replace every occurrence. Read the file first."
    }
    fn parameters(&self) -> Value {
        schema::<EditArgs>()
    }
    fn call(&self, ctx: ToolContext, args: Value) -> ToolFuture {
        Box::pin(async move {
            let args: EditArgs = match parse_args("edit_file", args) {
                Ok(a) => a,
                Err(e) => return e,
            };
            let sb = Arc::clone(&ctx.sandbox);
            blocking(move || {
                let _guard = sb.write_lock.lock().unwrap_or_else(PoisonError::into_inner);
                edit_file(
                    &sb,
                    &args.file_path,
                    &args.old_string,
                    &args.new_string,
                    args.replace_all,
                )
            })
            .await
        })
    }
}

pub fn edit_file(
    sandbox: &Sandbox,
    path: &str,
    old: &str,
    new: &str,
    replace_all: bool,
) -> ToolOutput {
    if old.is_empty() {
        return ToolOutput::error("old_string is empty; give the exact text to replace");
    }
    if let Some(refused) = sandbox.check(path).ok().and_then(|c| read_only(&c.shown())) {
        return refused;
    }
    let TextFile { parent, name, text } = match read_text(sandbox, path) {
        Ok(t) => t,
        Err(e) => return e,
    };
    let shown = Sandbox::display_path(path);
    let count = text.matches(old).count();
    if count == 0 {
        return ToolOutput::error(format!("String not found in file: '{old}'"));
    }
    if count > 1 && !replace_all {
        return ToolOutput::error(format!(
            "String '{old}' appears {count} times in file. Use replace_all=true to replace all instances, or provide a more specific string with surrounding context."
        ));
    }
    let updated = if replace_all {
        text.replace(old, new)
    } else {
        text.replacen(old, new, 1)
    };
    // Write beside the file (in the same folder handle) and rename over it,
    // so a crash never leaves half a file.
    let tmp = format!(".{name}.deskmate-edit");
    let mut file = match create_edit_file(&parent, &tmp) {
        Ok(f) => f,
        Err(e) => return ToolOutput::error(format!("cannot save '{shown}': {e}")),
    };
    let written = file
        .write_all(updated.as_bytes())
        .and_then(|()| file.sync_all());
    drop(file);
    // renameat within the folder handle replaces the entry `name` itself; it
    // never follows a link there.
    if let Err(e) = written.and_then(|()| parent.rename(&tmp, &parent, &name)) {
        let _ = parent.remove_file(&tmp);
        return ToolOutput::error(format!("cannot save '{shown}': {e}"));
    }
    ToolOutput::ok(format!(
        "Successfully replaced {count} instance(s) of the string in '{shown}'"
    ))
}

/// Creates `edit_file`'s temporary file new in the file's folder handle
/// (`O_CREAT | O_EXCL`, which never follows a symbolic link), so nothing
/// planted at its name — a link to a file outside the workspace above all —
/// can redirect the write. A stale one (a file or link left by a crash) is
/// removed first: removing a link removes the link, not what it points to.
/// A folder there is refused.
fn create_edit_file(parent: &Dir, tmp: &str) -> std::io::Result<cap_std::fs::File> {
    match parent.symlink_metadata(tmp) {
        Ok(m) if m.is_dir() => {
            return Err(std::io::Error::new(
                ErrorKind::AlreadyExists,
                format!("a folder is in the way of the temporary file {tmp}"),
            ))
        }
        Ok(_) => parent.remove_file(tmp)?,
        Err(e) if e.kind() == ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    create_new(parent, tmp)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn sandbox() -> (tempfile::TempDir, Sandbox) {
        let dir = tempfile::tempdir().unwrap();
        let sb = Sandbox::open(&dir.path().join("ws")).unwrap();
        (dir, sb)
    }

    #[test]
    fn ls_lists_one_level_with_details() {
        let (_d, sb) = sandbox();
        write_file(&sb, "/notes/a.md", "hello");
        write_file(&sb, "/b.txt", "xy");
        let out = ls(&sb, "/");
        assert!(!out.is_error);
        let rows: Vec<Value> = serde_json::from_str(&out.content).unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0]["path"], "/b.txt");
        assert_eq!(rows[0]["size"], 2);
        assert_eq!(rows[0]["is_dir"], false);
        assert!(rows[0]["modified"].as_str().unwrap().ends_with('Z'));
        assert_eq!(rows[1]["path"], "/notes/");
        assert_eq!(rows[1]["is_dir"], true);
        let inner: Vec<Value> = serde_json::from_str(&ls(&sb, "/notes").content).unwrap();
        assert_eq!(inner[0]["path"], "/notes/a.md");
        assert!(ls(&sb, "/missing").content.contains("not found"));
        assert!(ls(&sb, "/b.txt").is_error);
        assert!(ls(&sb, "/../").is_error);
    }

    #[test]
    fn read_file_numbers_pages_and_errors() {
        let (_d, sb) = sandbox();
        let text: String = (1..=10).map(|i| format!("line {i}\n")).collect();
        write_file(&sb, "/f.txt", &text);
        let all = read_file(&sb, "/f.txt", 0, DEFAULT_READ_LIMIT);
        assert!(
            all.content.starts_with("     1\tline 1\n"),
            "{}",
            all.content
        );
        assert!(all.content.contains("    10\tline 10\n"));
        let page = read_file(&sb, "/f.txt", 3, 2);
        assert_eq!(
            page.content,
            "     4\tline 4\n     5\tline 5\n… 5 more lines; read on with offset=5\n"
        );
        let out = read_file(&sb, "/f.txt", 10, 5);
        assert!(out.is_error);
        assert_eq!(
            out.content,
            "Error: Line offset 10 exceeds file length (10 lines)"
        );
        assert!(read_file(&sb, "/nope.txt", 0, 10)
            .content
            .contains("not found"));
        write_file(&sb, "/empty.txt", "");
        assert!(read_file(&sb, "/empty.txt", 0, 10)
            .content
            .contains("empty contents"));
        write_file(&sb, "/long.txt", &"字".repeat(3000));
        let long = read_file(&sb, "/long.txt", 0, 10);
        assert_eq!(long.content.matches('字').count(), MAX_LINE_CHARS);
        assert!(long.content.contains("[line cut]"));
        std::fs::write(sb.root().join("bin"), [0xff, 0xfe, 0x00]).unwrap();
        assert!(read_file(&sb, "/bin", 0, 10)
            .content
            .contains("not a UTF-8"));
    }

    #[test]
    fn the_skills_folder_is_read_only() {
        let (_d, sb) = sandbox();
        std::fs::create_dir_all(sb.root().join("skills/a")).unwrap();
        std::fs::write(sb.root().join("skills/a/SKILL.md"), "guide\n").unwrap();
        assert!(read_file(&sb, "/skills/a/SKILL.md", 0, 10)
            .content
            .contains("guide"));
        for out in [
            write_file(&sb, "/skills/b/SKILL.md", "mine"),
            write_file(&sb, "//skills/c.md", "mine"),
            edit_file(&sb, "/skills/a/SKILL.md", "guide", "mine", false),
        ] {
            assert!(out.is_error && out.content.contains("read-only"), "{out:?}");
        }
        assert_eq!(
            std::fs::read_to_string(sb.root().join("skills/a/SKILL.md")).unwrap(),
            "guide\n"
        );
        assert!(!sb.root().join("skills/b").exists());
        // A folder merely named like it is the model's.
        assert!(!write_file(&sb, "/skillset/notes.md", "ok").is_error);
    }

    #[test]
    fn write_file_only_creates() {
        let (_d, sb) = sandbox();
        let out = write_file(&sb, "/deep/er/new.md", "v1");
        assert!(!out.is_error, "{}", out.content);
        assert_eq!(
            std::fs::read_to_string(sb.root().join("deep/er/new.md")).unwrap(),
            "v1"
        );
        let again = write_file(&sb, "/deep/er/new.md", "v2");
        assert!(again.is_error);
        assert!(again.content.contains("already exists"));
        assert_eq!(
            std::fs::read_to_string(sb.root().join("deep/er/new.md")).unwrap(),
            "v1"
        );
        assert!(write_file(&sb, "/", "x").is_error);
        assert!(write_file(&sb, "../escape.txt", "x").is_error);
    }

    #[test]
    fn edit_file_needs_a_unique_match_unless_replace_all() {
        let (_d, sb) = sandbox();
        write_file(&sb, "/p.md", "床前明月光\n疑是地上霜\n明月\n");
        let dup = edit_file(&sb, "/p.md", "明月", "明日", false);
        assert!(dup.is_error);
        assert!(dup.content.contains("appears 2 times"), "{}", dup.content);
        let one = edit_file(&sb, "/p.md", "疑是", "疑似", false);
        assert!(!one.is_error, "{}", one.content);
        assert!(one.content.contains("1 instance"));
        let all = edit_file(&sb, "/p.md", "明月", "明日", true);
        assert!(all.content.contains("2 instance"));
        assert_eq!(
            std::fs::read_to_string(sb.root().join("p.md")).unwrap(),
            "床前明日光\n疑似地上霜\n明日\n"
        );
        let missing = edit_file(&sb, "/p.md", "不在", "x", false);
        assert_eq!(missing.content, "Error: String not found in file: '不在'");
        assert!(edit_file(&sb, "/none.md", "a", "b", false)
            .content
            .contains("not found"));
        assert!(edit_file(&sb, "/p.md", "", "b", false).is_error);
        // No temporary file is left behind.
        assert_eq!(std::fs::read_dir(sb.root()).unwrap().count(), 1);
    }

    #[cfg(unix)]
    #[test]
    fn edit_file_never_writes_through_a_planted_temporary_link() {
        let (d, sb) = sandbox();
        let outside = d.path().join("outside.txt");
        std::fs::write(&outside, "do not touch").unwrap();
        write_file(&sb, "/p.md", "old text");
        // A link planted where edit_file puts its temporary file.
        let planted = sb.root().join(".p.md.deskmate-edit");
        std::os::unix::fs::symlink(&outside, &planted).unwrap();
        let out = edit_file(&sb, "/p.md", "old", "new", false);
        assert!(!out.is_error, "{}", out.content);
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "do not touch");
        assert_eq!(
            std::fs::read_to_string(sb.root().join("p.md")).unwrap(),
            "new text"
        );
        assert!(!sb
            .root()
            .join("p.md")
            .symlink_metadata()
            .unwrap()
            .file_type()
            .is_symlink());
        assert!(
            planted.symlink_metadata().is_err(),
            "the planted link is gone"
        );
        // A dangling link and a stale file from a crash are no obstacle either.
        std::os::unix::fs::symlink(d.path().join("nowhere"), &planted).unwrap();
        assert!(!edit_file(&sb, "/p.md", "new", "newer", false).is_error);
        assert!(
            !d.path().join("nowhere").exists(),
            "nothing was created outside"
        );
        std::fs::write(&planted, "stale").unwrap();
        assert!(!edit_file(&sb, "/p.md", "newer", "newest", false).is_error);
        assert_eq!(
            std::fs::read_to_string(sb.root().join("p.md")).unwrap(),
            "newest text"
        );
        // A folder in the way is refused, and the file is unchanged.
        std::fs::create_dir(&planted).unwrap();
        let refused = edit_file(&sb, "/p.md", "newest", "x", false);
        assert!(
            refused.is_error && refused.content.contains("folder is in the way"),
            "{}",
            refused.content
        );
        assert_eq!(
            std::fs::read_to_string(sb.root().join("p.md")).unwrap(),
            "newest text"
        );
        assert_eq!(std::fs::read_dir(sb.root()).unwrap().count(), 2);
    }
}
