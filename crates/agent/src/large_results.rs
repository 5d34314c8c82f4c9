//! Large tool results: one over the limit (20k tokens by default, counted
//! as four characters a token) is saved in the workspace at
//! `/large_tool_results/<tool_call_id>`, and the model gets a head/tail
//! preview and the path to read the rest from.

use std::io::Write;

use crate::sandbox::create_new;
use crate::Sandbox;

/// Folder of the workspace that holds evicted results.
pub const LARGE_RESULTS_DIR: &str = "/large_tool_results";
const PREVIEW_LINES: usize = 10;
const PREVIEW_LINE_CHARS: usize = 300;

/// Rough token count: about four characters a token.
pub fn estimate_tokens(text: &str) -> usize {
    text.chars().count().div_ceil(4)
}

/// The call id as a safe file name.
fn file_name(call_id: &str) -> String {
    let name: String = call_id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(128)
        .collect();
    if name.is_empty() {
        "result".into()
    } else {
        name
    }
}

/// Writes `name` in the results folder through the sandbox's handles (no
/// link followed); a stale file of that name — or a link planted there —
/// is removed first.
fn save(sandbox: &Sandbox, name: &str, content: &str) -> Result<(), String> {
    let cannot = |e: &dyn std::fmt::Display| format!("cannot save the large result: {e}");
    let folder = sandbox
        .check(LARGE_RESULTS_DIR)
        .and_then(|p| sandbox.folder(&p, true))
        .map_err(|e| format!("cannot create {LARGE_RESULTS_DIR}: {e}"))?;
    match folder.remove_file(name) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(cannot(&e)),
    }
    let mut file = create_new(&folder, name).map_err(|e| cannot(&e))?;
    file.write_all(content.as_bytes()).map_err(|e| cannot(&e))
}

/// Saves `content` when it is over `limit_tokens` and returns what the model
/// sees instead; `Ok(None)` when it is small enough to send as it is.
pub fn evict(
    sandbox: &Sandbox,
    call_id: &str,
    content: &str,
    limit_tokens: usize,
) -> Result<Option<String>, String> {
    let tokens = estimate_tokens(content);
    if tokens <= limit_tokens {
        return Ok(None);
    }
    let vpath = format!("{LARGE_RESULTS_DIR}/{}", file_name(call_id));
    save(sandbox, &file_name(call_id), content)?;
    let lines: Vec<&str> = content.lines().collect();
    let cut = |l: &&str| -> String {
        let s: String = l.chars().take(PREVIEW_LINE_CHARS).collect();
        if s.len() < l.len() {
            format!("{s}…")
        } else {
            s
        }
    };
    let preview = if lines.len() <= 2 * PREVIEW_LINES {
        lines.iter().map(cut).collect::<Vec<_>>().join("\n")
    } else {
        let head: Vec<String> = lines[..PREVIEW_LINES].iter().map(cut).collect();
        let tail: Vec<String> = lines[lines.len() - PREVIEW_LINES..]
            .iter()
            .map(cut)
            .collect();
        format!(
            "{}\n… ({} lines omitted) …\n{}",
            head.join("\n"),
            lines.len() - 2 * PREVIEW_LINES,
            tail.join("\n")
        )
    };
    Ok(Some(format!(
        "Tool result too large (about {tokens} tokens, {} lines): it was saved in the workspace at {vpath}.\n\
         Read it a part at a time with read_file (offset and limit) or search it with grep.\n\n\
         Preview (head and tail):\n{preview}",
        lines.len()
    )))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn small_results_stay_and_large_ones_move() {
        let dir = tempfile::tempdir().unwrap();
        let sb = Sandbox::open(dir.path()).unwrap();
        assert_eq!(evict(&sb, "c1", "short", 10).unwrap(), None);
        let big: String = (0..1000).map(|i| format!("row {i}\n")).collect();
        let msg = evict(&sb, "call/../../x", &big, 100).unwrap().unwrap();
        assert!(msg.contains("/large_tool_results/call_______x"), "{msg}");
        assert!(msg.contains("row 0\n") && msg.contains("row 999") && !msg.contains("row 500\n"));
        let saved =
            std::fs::read_to_string(sb.root().join("large_tool_results/call_______x")).unwrap();
        assert_eq!(saved, big);
    }
}
