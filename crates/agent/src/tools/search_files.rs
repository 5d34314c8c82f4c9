//! Finding files in the workspace: `glob` by name pattern and `grep` by
//! regular expression, walking the workspace without following links.

use std::path::Path;

use cap_std::fs::Dir;
use globset::{Glob as GlobPattern, GlobBuilder, GlobMatcher};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::{blocking, parse_args, schema, Tool, ToolContext, ToolFuture, ToolOutput};
use crate::sandbox::{child, each_regular_file, read_regular, Found};
use crate::Sandbox;

/// At most this many paths or lines are listed.
const MAX_RESULTS: usize = 500;
/// Files larger than this are skipped by grep.
const MAX_GREP_BYTES: u64 = 5 * 1024 * 1024;

fn matcher(pattern: &str) -> Result<GlobMatcher, ToolOutput> {
    let p = pattern.trim_start_matches('/');
    GlobBuilder::new(p)
        .literal_separator(true)
        .build()
        .map(|g: GlobPattern| g.compile_matcher())
        .map_err(|e| ToolOutput::error(format!("invalid glob pattern '{pattern}': {e}")))
}

/// Calls `visit(folder, name, relative path, virtual path)` for every
/// regular file under `base` (a folder, or one file whose relative path is
/// empty), in path order, through folder handles that follow no link.
fn each_file(
    sandbox: &Sandbox,
    base: &str,
    visit: &mut dyn FnMut(&Dir, &str, &str, &str),
) -> Result<(), ToolOutput> {
    let checked = sandbox.check(base)?;
    let shown = checked.shown();
    match sandbox.find(&checked)? {
        Found::Folder(dir) => {
            each_regular_file(&dir, &mut |folder, name, relative| {
                visit(folder, name, relative, &child(&shown, relative));
            });
        }
        Found::File { parent, name } => visit(&parent, &name, "", &shown),
    }
    Ok(())
}

// ---------------------------------------------------------------- glob

/// Find files whose path matches a glob pattern.
#[derive(Deserialize, JsonSchema)]
struct GlobArgs {
    /// Pattern relative to `path`: `*` within one folder, `**` across folders, e.g. "**/*.md".
    pattern: String,
    /// Folder to search from.
    #[serde(default = "root")]
    path: String,
}

fn root() -> String {
    "/".into()
}

pub struct Glob;

impl Tool for Glob {
    fn name(&self) -> &'static str {
        "glob"
    }
    fn description(&self) -> &'static str {
        "Finds files whose path (relative to `path`, default /) matches a glob pattern such as \"*.md\" or \"**/*.txt\". Returns absolute paths, one per line."
    }
    fn parameters(&self) -> Value {
        schema::<GlobArgs>()
    }
    fn call(&self, ctx: ToolContext, args: Value) -> ToolFuture {
        Box::pin(async move {
            let args: GlobArgs = match parse_args("glob", args) {
                Ok(a) => a,
                Err(e) => return e,
            };
            blocking(move || glob(&ctx.sandbox, &args.pattern, &args.path)).await
        })
    }
}

pub fn glob(sandbox: &Sandbox, pattern: &str, path: &str) -> ToolOutput {
    let m = match matcher(pattern) {
        Ok(m) => m,
        Err(e) => return e,
    };
    let mut found = Vec::new();
    if let Err(e) = each_file(sandbox, path, &mut |_, _, relative, shown| {
        if m.is_match(Path::new(relative)) {
            found.push(shown.to_string());
        }
    }) {
        return e;
    }
    if found.is_empty() {
        return ToolOutput::ok(format!("No files found matching pattern '{pattern}'"));
    }
    let mut out = found
        .iter()
        .take(MAX_RESULTS)
        .cloned()
        .collect::<Vec<_>>()
        .join("\n");
    if found.len() > MAX_RESULTS {
        out.push_str(&format!(
            "\n… and {} more; narrow the pattern",
            found.len() - MAX_RESULTS
        ));
    }
    ToolOutput::ok(out)
}

// ---------------------------------------------------------------- grep

/// Search file contents with a regular expression.
#[derive(Deserialize, JsonSchema)]
struct GrepArgs {
    /// Regular expression (Rust regex syntax), e.g. "TODO|FIXME".
    pattern: String,
    /// Folder or file to search.
    #[serde(default = "root")]
    path: String,
    /// Only search files whose path matches this glob, e.g. "*.md".
    #[serde(default)]
    glob: Option<String>,
    /// "files_with_matches" (default), "content" (matching lines) or "count".
    #[serde(default)]
    output_mode: Option<String>,
}

pub struct Grep;

impl Tool for Grep {
    fn name(&self) -> &'static str {
        "grep"
    }
    fn description(&self) -> &'static str {
        "Searches the text of files under `path` (default /) for a regular expression. Optional `glob` filters files (e.g. \"*.md\"). output_mode: files_with_matches (default), content (path:line: text) or count."
    }
    fn parameters(&self) -> Value {
        schema::<GrepArgs>()
    }
    fn call(&self, ctx: ToolContext, args: Value) -> ToolFuture {
        Box::pin(async move {
            let a: GrepArgs = match parse_args("grep", args) {
                Ok(a) => a,
                Err(e) => return e,
            };
            blocking(move || {
                grep(
                    &ctx.sandbox,
                    &a.pattern,
                    &a.path,
                    a.glob.as_deref(),
                    a.output_mode.as_deref(),
                )
            })
            .await
        })
    }
}

pub fn grep(
    sandbox: &Sandbox,
    pattern: &str,
    path: &str,
    glob: Option<&str>,
    mode: Option<&str>,
) -> ToolOutput {
    let re = match regex::RegexBuilder::new(pattern)
        .size_limit(1 << 20)
        .build()
    {
        Ok(r) => r,
        Err(e) => return ToolOutput::error(format!("invalid regex pattern '{pattern}': {e}")),
    };
    let mode = mode.unwrap_or("files_with_matches");
    if !matches!(mode, "files_with_matches" | "content" | "count") {
        return ToolOutput::error(format!(
            "output_mode must be files_with_matches, content or count, not '{mode}'"
        ));
    }
    let filter = match glob.map(matcher).transpose() {
        Ok(f) => f,
        Err(e) => return e,
    };
    let mut lines = Vec::new();
    let searched = each_file(sandbox, path, &mut |folder, name, relative, vpath| {
        if let Some(f) = &filter {
            if !f.is_match(Path::new(relative)) && !f.is_match(Path::new(name)) {
                return;
            }
        }
        // Too large, binary, unreadable or no longer a regular file: skipped.
        let Ok(Some(bytes)) = read_regular(folder, name, vpath, MAX_GREP_BYTES) else {
            return;
        };
        let Ok(text) = String::from_utf8(bytes) else {
            return;
        };
        match mode {
            "content" => {
                for (i, line) in text.lines().enumerate().filter(|(_, l)| re.is_match(l)) {
                    let line: String = line.chars().take(500).collect();
                    lines.push(format!("{vpath}:{}: {line}", i + 1));
                }
            }
            "count" => {
                let n = text.lines().filter(|l| re.is_match(l)).count();
                if n > 0 {
                    lines.push(format!("{vpath}: {n}"));
                }
            }
            _ => {
                if re.is_match(&text) {
                    lines.push(vpath.to_string());
                }
            }
        }
    });
    if let Err(e) = searched {
        return e;
    }
    if lines.is_empty() {
        return ToolOutput::ok(format!("No matches found for pattern '{pattern}'"));
    }
    let total = lines.len();
    lines.truncate(MAX_RESULTS);
    let mut out = lines.join("\n");
    if total > MAX_RESULTS {
        out.push_str(&format!(
            "\n… and {} more; narrow the search",
            total - MAX_RESULTS
        ));
    }
    ToolOutput::ok(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::tools::files::write_file;

    fn workspace() -> (tempfile::TempDir, Sandbox) {
        let dir = tempfile::tempdir().unwrap();
        let sb = Sandbox::open(&dir.path().join("ws")).unwrap();
        write_file(&sb, "/a.md", "静夜思\n床前明月光\n");
        write_file(&sb, "/notes/b.md", "明月几时有\nTODO: practise\n");
        write_file(&sb, "/notes/c.txt", "nothing here\n");
        (dir, sb)
    }

    #[test]
    fn glob_matches_relative_paths() {
        let (_d, sb) = workspace();
        assert_eq!(glob(&sb, "*.md", "/").content, "/a.md");
        assert_eq!(glob(&sb, "**/*.md", "/").content, "/a.md\n/notes/b.md");
        assert_eq!(glob(&sb, "*.txt", "/notes").content, "/notes/c.txt");
        assert!(glob(&sb, "*.pdf", "/")
            .content
            .starts_with("No files found"));
        assert!(glob(&sb, "[", "/").is_error);
        assert!(glob(&sb, "*", "/../..").is_error);
    }

    #[test]
    fn grep_modes_filters_and_bad_regex() {
        let (_d, sb) = workspace();
        assert_eq!(
            grep(&sb, "明月", "/", None, None).content,
            "/a.md\n/notes/b.md"
        );
        assert_eq!(
            grep(&sb, "明月", "/", None, Some("content")).content,
            "/a.md:2: 床前明月光\n/notes/b.md:1: 明月几时有"
        );
        assert_eq!(
            grep(&sb, "o", "/notes", Some("*.txt"), Some("count")).content,
            "/notes/c.txt: 1"
        );
        assert_eq!(
            grep(&sb, "TODO", "/notes/b.md", None, None).content,
            "/notes/b.md"
        );
        assert!(grep(&sb, "zzz", "/", None, None)
            .content
            .starts_with("No matches"));
        let bad = grep(&sb, "(unclosed", "/", None, None);
        assert!(bad.is_error);
        assert!(
            bad.content
                .starts_with("Error: invalid regex pattern '(unclosed'"),
            "{}",
            bad.content
        );
        assert!(grep(&sb, "x", "/", None, Some("lines")).is_error);
    }
}
