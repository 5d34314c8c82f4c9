//! The sandbox against a local process that races it: while the file
//! tools run hundreds of calls under `/swap`, a thread keeps exchanging
//! that folder with a symbolic link to a folder outside the workspace
//! (`renameat2` with `RENAME_EXCHANGE`, so one of the two is always there).
//! A check made on a path and an open made later could be told apart by
//! such a swap; opening one name at a time from a folder handle, following
//! no link, cannot. Nothing outside may be read or written. And a
//! workspace root that is itself a symbolic link is refused.

#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use deskmate_agent::tools::ToolContext;
use deskmate_agent::{Sandbox, SearchConfig, ToolSet};
use serde_json::json;

const SECRET: &str = "TOP-SECRET-OUTSIDE-THE-WORKSPACE";

/// Swaps the entries `a` and `b` in one step.
fn exchange(a: &Path, b: &Path) -> bool {
    let a = CString::new(a.as_os_str().as_bytes()).unwrap();
    let b = CString::new(b.as_os_str().as_bytes()).unwrap();
    // SAFETY: both are valid NUL-terminated paths for the call's duration.
    let rc = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    rc == 0
}

/// Every entry under `dir` with its content (folders empty), sorted.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if std::fs::symlink_metadata(&p).unwrap().is_dir() {
            out.push((p.display().to_string(), vec![]));
            out.extend(snapshot(&p));
        } else {
            out.push((p.display().to_string(), std::fs::read(&p).unwrap()));
        }
    }
    out.sort();
    out
}

#[test]
fn swapping_a_folder_and_a_link_never_leads_outside() {
    let dir = tempfile::tempdir().unwrap();
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(outside.join("deeper")).unwrap();
    std::fs::write(outside.join("notes.txt"), format!("{SECRET}\nEND\n")).unwrap();
    std::fs::write(outside.join("deeper/notes.txt"), format!("{SECRET}\nEND\n")).unwrap();
    let before = snapshot(&outside);

    let root = dir.path().join("threads/t/workspace");
    let sandbox = Arc::new(Sandbox::open(&root).unwrap());
    std::fs::create_dir_all(root.join("swap/deeper")).unwrap();
    std::fs::write(root.join("swap/notes.txt"), "inside\nEND\n").unwrap();
    std::fs::write(root.join("swap/deeper/notes.txt"), "inside\nEND\n").unwrap();
    std::os::unix::fs::symlink(&outside, root.join("alias")).unwrap();

    let stop = Arc::new(AtomicBool::new(false));
    let swaps = Arc::new(AtomicUsize::new(0));
    let swapper = {
        let (stop, swaps) = (Arc::clone(&stop), Arc::clone(&swaps));
        let (a, b) = (root.join("swap"), root.join("alias"));
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                if exchange(&a, &b) {
                    swaps.fetch_add(1, Ordering::Relaxed);
                }
            }
        })
    };

    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let tools = ToolSet::builtin(SearchConfig::default());
    let mut inside_reads = 0;
    let mut calls = 0;
    rt.block_on(async {
        for i in 0..300 {
            let ctx = ToolContext {
                sandbox: Arc::clone(&sandbox),
                thread_id: "t".into(),
                tool_call_id: format!("c{i}"),
                run: None,
            };
            let file = if i % 2 == 0 {
                "/swap/notes.txt"
            } else {
                "/swap/deeper/notes.txt"
            };
            let batch = [
                ("read_file", json!({"file_path": file})),
                (
                    "write_file",
                    json!({"file_path": format!("/swap/new-{i}.txt"), "content": "written"}),
                ),
                (
                    "write_file",
                    json!({"file_path": format!("/swap/deeper/more-{i}/new.txt"), "content": "written"}),
                ),
                (
                    "edit_file",
                    json!({"file_path": file, "old_string": "END", "new_string": format!("END{i}")}),
                ),
                ("ls", json!({"path": "/swap"})),
                ("glob", json!({"pattern": "**/*", "path": "/swap"})),
                (
                    "grep",
                    json!({"pattern": "SECRET|inside", "path": "/swap", "output_mode": "content"}),
                ),
                ("grep", json!({"pattern": "SECRET", "path": "/"})),
            ];
            for (name, args) in batch {
                let out = tools.call(ctx.clone(), name, &args.to_string()).await;
                calls += 1;
                assert!(
                    !out.content.contains(SECRET),
                    "{name}({args}) read outside the workspace: {}",
                    out.content
                );
                if name == "read_file" && out.content.contains("inside") {
                    inside_reads += 1;
                }
            }
        }
    });
    stop.store(true, Ordering::Relaxed);
    swapper.join().unwrap();

    // The race really ran: the folder was swapped all along, and reads
    // inside got through between swaps.
    let swaps = swaps.load(Ordering::Relaxed);
    assert!(swaps > 100, "only {swaps} swaps in {calls} calls");
    assert!(inside_reads > 0, "no read got through");
    let after = snapshot(&outside);
    let changed: Vec<&str> = after
        .iter()
        .filter(|entry| !before.contains(entry))
        .map(|(path, _)| path.as_str())
        .collect();
    assert!(
        changed.is_empty() && after.len() == before.len(),
        "written outside the workspace: {changed:?}"
    );
}

#[test]
fn a_workspace_root_that_is_a_symlink_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    std::fs::write(elsewhere.join("diary.txt"), SECRET).unwrap();
    std::fs::create_dir_all(dir.path().join("threads/t")).unwrap();
    let root = dir.path().join("threads/t/workspace");
    std::os::unix::fs::symlink(&elsewhere, &root).unwrap();
    let err = Sandbox::open(&root).unwrap_err();
    assert!(err.to_string().contains("symbolic link"), "{err}");
    // A dangling link is refused too, and nothing is made where it points.
    let dangling = dir.path().join("threads/u/workspace");
    std::fs::create_dir_all(dangling.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(dir.path().join("nowhere"), &dangling).unwrap();
    assert!(Sandbox::open(&dangling).is_err());
    assert!(!dir.path().join("nowhere").exists());
    // The real folder itself is fine.
    assert!(Sandbox::open(&elsewhere).is_ok());
}
