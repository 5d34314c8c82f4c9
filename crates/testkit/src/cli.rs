//! The harness for tests of the real `deskmate` binary: a command with its
//! own data directory (never the user's), JSON output parsed, and the family
//! fixture made through the CLI itself.

use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;

/// `deskmate --data-dir DIR`, with the environment's data directory removed
/// so a test never touches the user's data.
pub fn deskmate(dir: &Path) -> Command {
    // Tests of other crates find the binary beside their own test binary
    // (`cargo test --workspace` builds it).
    let mut c = Command::cargo_bin("deskmate").unwrap();
    c.arg("--data-dir").arg(dir).env_remove("DESKMATE_DATA_DIR");
    c
}

/// Parses a command's JSON output; panics with the text when it is not JSON.
pub fn json(out: &[u8]) -> Value {
    serde_json::from_slice(out).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}",
            String::from_utf8_lossy(out)
                .chars()
                .take(2000)
                .collect::<String>()
        )
    })
}

/// Adds the child 小明 through the CLI and returns its profile as JSON.
pub fn add_child(dir: &Path) -> Value {
    let out = deskmate(dir)
        .args([
            "profiles", "add", "--name", "小明", "--kind", "child", "--grade", "2", "--json",
        ])
        .assert()
        .success();
    json(&out.get_output().stdout)
}

/// The first-run setup through the CLI: the parent 妈妈 (PIN 1357) and the
/// child 小明.
pub fn setup_family(dir: &Path) {
    deskmate(dir)
        .args([
            "profiles",
            "setup",
            "--parent-name",
            "妈妈",
            "--pin",
            "1357",
        ])
        .args(["--child-name", "小明"])
        .assert()
        .success();
}
