//! A test that must be alone in its process, inside a test binary that
//! holds many. ALSA reads its configuration (`ALSA_CONFIG_PATH`) once per
//! process, so a test that points ALSA's default device at a FIFO or a null
//! sink cannot share a process with another such test. Rather than one test
//! binary per such test (each a link of the whole dependency tree on 2
//! cores), the test runs its own binary again with a filter that selects
//! just itself, and the child does the work:
//!
//! ```ignore
//! #[test]
//! fn capture_reads_the_file_device() {
//!     if !deskmate_testkit::process::alone(module_path!(), "capture_reads_the_file_device") {
//!         return; // the child process ran the test and passed
//!     }
//!     std::env::set_var("ALSA_CONFIG_PATH", …); // safe: alone in this process
//!     …
//! }
//! ```

use std::process::Command;

/// Set in the child to the name of the one test it runs.
const ALONE_ENV: &str = "DESKMATE_TEST_ALONE";

/// In the parent: runs test `name` of module `module` (its `module_path!()`)
/// alone in a new process of this test binary, fails when that process
/// fails or ran anything but exactly that one test, and answers `false` (the
/// caller returns). In that child: answers `true` (the caller runs the test's
/// body, and may change process-wide state such as the environment).
pub fn alone(module: &str, name: &str) -> bool {
    // The harness names a test by its path without the crate (the binary).
    let path = match module.split_once("::") {
        Some((_, m)) => format!("{m}::{name}"),
        None => name.to_string(),
    };
    if std::env::var(ALONE_ENV).as_deref() == Ok(path.as_str()) {
        return true;
    }
    let exe = std::env::current_exe().expect("the test binary's path");
    let out = Command::new(exe)
        .args(["--exact", &path, "--nocapture", "--test-threads=1"])
        .env(ALONE_ENV, &path)
        .output()
        .expect("the test binary starts again");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    // What the child printed, so a failure reads as if it had run here.
    print!("{stdout}");
    eprint!("{stderr}");
    assert!(
        out.status.success(),
        "{path} failed in its own process ({})",
        out.status
    );
    assert!(
        stdout.contains("test result: ok. 1 passed"),
        "{path} did not run in its own process (the filter matched no test?)"
    );
    false
}

/// Tests that run whisper take turns within one test binary: hold the guard
/// for the test's whole body. Each transcription uses both cores and
/// whisper.cpp's threads spin-wait, so two at once run several times slower
/// than one after the other — and a live decode (a partial transcript while
/// the child speaks) starves. The binary's other tests still run beside
/// them. A test that runs alone in a child process ([`alone`]) takes its
/// turn in the parent, around the child.
pub fn speech_turn() -> std::sync::MutexGuard<'static, ()> {
    static SPEECH: std::sync::Mutex<()> = std::sync::Mutex::new(());
    // A test that failed while holding it does not stop the others.
    SPEECH.lock().unwrap_or_else(|e| e.into_inner())
}
