//! Fuzzing the sandbox: thousands of generated paths built from escape
//! tricks (`..`, host paths, `~`, drive and UNC paths, backslashes, NUL,
//! URL forms, symlinks to outside) go through every file tool. Nothing
//! outside the workspace may be read, listed, created or changed.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::sync::Arc;

use deskmate_agent::tools::ToolContext;
use deskmate_agent::{Sandbox, SearchConfig, ToolSet};
use serde_json::json;

const SECRET: &str = "TOP-SECRET-OUTSIDE-THE-WORKSPACE";

/// A small deterministic generator (xorshift), so failures reproduce.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[(self.next() % items.len() as u64) as usize]
    }
}

fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<_> = walkdir_like(dir);
    out.sort();
    out
}

fn walkdir_like(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in rd.flatten() {
        let p = e.path();
        let meta = std::fs::symlink_metadata(&p).unwrap();
        if meta.is_dir() {
            out.push((p.display().to_string(), vec![]));
            out.extend(walkdir_like(&p));
        } else {
            out.push((
                p.display().to_string(),
                std::fs::read(&p).unwrap_or_default(),
            ));
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generated_escape_paths_never_leave_the_workspace() {
    let dir = tempfile::tempdir().unwrap();
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(outside.join("sub")).unwrap();
    std::fs::write(outside.join("secret.txt"), SECRET).unwrap();
    std::fs::write(outside.join("sub/secret.md"), SECRET).unwrap();
    let root = dir.path().join("threads/t1/workspace");
    let sandbox = Arc::new(Sandbox::open(&root).unwrap());
    std::fs::write(root.join("ok.txt"), "inside\n").unwrap();
    std::fs::create_dir(root.join("notes")).unwrap();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&outside, root.join("escape")).unwrap();
        std::os::unix::fs::symlink(outside.join("secret.txt"), root.join("notes/link.txt"))
            .unwrap();
        std::os::unix::fs::symlink("../../../../outside", root.join("rel-escape")).unwrap();
    }
    let before_outside = snapshot(dir.path().join("outside").as_path());
    let host_root = root.display().to_string();
    let host_outside = outside.display().to_string();

    let pieces = [
        "..",
        "../..",
        "../../..",
        ".",
        "",
        "escape",
        "rel-escape",
        "notes",
        "link.txt",
        "secret.txt",
        "sub",
        "ok.txt",
        "new.txt",
        "~",
        "C:",
        "c:\\windows",
        "\\\\host\\share",
        "..\\..",
        "a\0b",
        "file:",
        "/",
        "%2e%2e",
        "....",
        ". .",
        "outside",
        host_root.as_str(),
        host_outside.as_str(),
        "/etc",
        "passwd",
        "*",
        "**",
    ];
    let tools = ToolSet::builtin(SearchConfig::default());
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut refused = 0;
    for i in 0..1500 {
        let n = 1 + (rng.next() % 5) as usize;
        let mut path = if rng.next() & 1 == 0 {
            String::from("/")
        } else {
            String::new()
        };
        for j in 0..n {
            if j > 0 {
                path.push(if rng.next() % 7 < 1 { '\\' } else { '/' });
            }
            path.push_str(rng.pick(&pieces));
        }
        let ctx = ToolContext {
            sandbox: Arc::clone(&sandbox),
            thread_id: "t1".into(),
            tool_call_id: format!("c{i}"),
            run: None,
        };
        let calls = [
            ("ls", json!({"path": path})),
            ("read_file", json!({"file_path": path})),
            ("write_file", json!({"file_path": path, "content": "pwned"})),
            (
                "edit_file",
                json!({"file_path": path, "old_string": "TOP", "new_string": "PWNED", "replace_all": true}),
            ),
            ("glob", json!({"pattern": "**/*", "path": path})),
            ("glob", json!({"pattern": path, "path": "/"})),
            ("grep", json!({"pattern": "SECRET", "path": path})),
            (
                "grep",
                json!({"pattern": "SECRET", "path": "/", "glob": path, "output_mode": "content"}),
            ),
        ];
        for (name, args) in calls {
            let out = tools.call(ctx.clone(), name, &args.to_string()).await;
            assert!(
                !out.content.contains(SECRET),
                "{name}({path:?}) leaked the secret: {}",
                out.content
            );
            if out.content.contains("not allowed") {
                refused += 1;
            }
        }
    }
    assert!(
        refused > 1000,
        "the generator should hit many refusals, got {refused}"
    );
    assert_eq!(
        snapshot(&outside),
        before_outside,
        "something outside the workspace changed"
    );
    // Nothing was created above the workspace either.
    let above: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(above.len(), 2, "{above:?}");
    let thread_dir: Vec<_> = std::fs::read_dir(dir.path().join("threads/t1"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(thread_dir, vec![std::ffi::OsString::from("workspace")]);
}
