//! Files that are not regular files: a named pipe (FIFO) in the workspace
//! must not hang a run. Opening one for reading blocks until a writer
//! comes, which no one ever does; every file tool refuses it with clear
//! words instead, and the folder tools pass it by.

#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use deskmate_agent::tools::{ToolContext, ToolOutput};
use deskmate_agent::{Sandbox, SearchConfig, ToolSet};
use serde_json::{json, Value};

fn mkfifo(path: &Path) {
    let c = CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: `c` is a valid NUL-terminated path for the call's duration.
    let rc = unsafe { libc::mkfifo(c.as_ptr(), 0o600) };
    assert_eq!(rc, 0, "mkfifo failed: {}", std::io::Error::last_os_error());
}

struct Workspace {
    _dir: tempfile::TempDir,
    sandbox: Arc<Sandbox>,
    fifo: PathBuf,
}

fn workspace() -> Workspace {
    let dir = tempfile::tempdir().unwrap();
    let sandbox = Arc::new(Sandbox::open(&dir.path().join("ws")).unwrap());
    std::fs::write(sandbox.root().join("poem.txt"), "床前明月光\n").unwrap();
    let fifo = sandbox.root().join("pipe");
    mkfifo(&fifo);
    Workspace {
        _dir: dir,
        sandbox,
        fifo,
    }
}

/// Runs one tool call on a thread of its own and waits at most 10 s for
/// it. A call stuck on the FIFO is released (opening the FIFO for writing
/// lets a blocked reader go on) and the test fails.
fn call(ws: &Workspace, name: &str, args: Value) -> ToolOutput {
    let tools = ToolSet::builtin(SearchConfig::default());
    let ctx = ToolContext {
        sandbox: Arc::clone(&ws.sandbox),
        thread_id: "t".into(),
        tool_call_id: "c".into(),
        run: None,
    };
    let (tx, rx) = mpsc::channel();
    let owned = name.to_string();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let _ = tx.send(rt.block_on(tools.call(ctx, &owned, &args.to_string())));
    });
    match rx.recv_timeout(Duration::from_secs(10)) {
        Ok(out) => out,
        Err(_) => {
            let _ = std::fs::OpenOptions::new().write(true).open(&ws.fifo);
            panic!("{name} hung on the FIFO");
        }
    }
}

fn assert_refused(out: &ToolOutput) {
    assert!(out.is_error, "{}", out.content);
    assert!(
        out.content
            .contains("'/pipe' is a named pipe (FIFO), not a regular file or folder"),
        "{}",
        out.content
    );
}

#[test]
fn read_file_refuses_a_fifo_without_waiting_on_it() {
    let ws = workspace();
    assert_refused(&call(&ws, "read_file", json!({"file_path": "/pipe"})));
    // The workspace still works.
    let out = call(&ws, "read_file", json!({"file_path": "/poem.txt"}));
    assert!(out.content.contains("床前明月光"), "{}", out.content);
}

#[test]
fn edit_file_refuses_a_fifo_without_waiting_on_it() {
    let ws = workspace();
    let out = call(
        &ws,
        "edit_file",
        json!({"file_path": "/pipe", "old_string": "a", "new_string": "b"}),
    );
    assert_refused(&out);
    // Still a FIFO, and no temporary file was left beside it.
    let meta = std::fs::symlink_metadata(&ws.fifo).unwrap();
    assert!(std::os::unix::fs::FileTypeExt::is_fifo(&meta.file_type()));
    let mut names: Vec<_> = std::fs::read_dir(ws.sandbox.root())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    names.sort();
    assert_eq!(names, ["pipe", "poem.txt"]);
}

#[test]
fn the_other_file_tools_pass_a_fifo_by() {
    let ws = workspace();
    assert_refused(&call(&ws, "ls", json!({"path": "/pipe"})));
    assert_refused(&call(&ws, "grep", json!({"pattern": "x", "path": "/pipe"})));
    let out = call(
        &ws,
        "write_file",
        json!({"file_path": "/pipe", "content": "x"}),
    );
    assert!(out.content.contains("already exists"), "{}", out.content);
    // Listings and searches leave it out and do not wait on it.
    let listed: Vec<Value> =
        serde_json::from_str(&call(&ws, "ls", json!({"path": "/"})).content).unwrap();
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0]["path"], "/poem.txt");
    let out = call(
        &ws,
        "grep",
        json!({"pattern": ".", "path": "/", "glob": "*"}),
    );
    assert_eq!(out.content, "/poem.txt");
    let out = call(&ws, "glob", json!({"pattern": "*"}));
    assert_eq!(out.content, "/poem.txt");
}
