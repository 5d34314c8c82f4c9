//! The `deskmate` command's integration tests, one binary (one link on two
//! cores instead of one per file): each module drives the real binary
//! through `deskmate_testkit::cli`, with a data directory of its own.

mod approvals;
mod ask;
mod chat;
mod events;
mod foundation;
mod kb;
mod lamp;
mod mcp;
mod memory;
mod plan;
mod practice;
mod probe;
mod profiles;
mod recite;
mod say;
mod serve;
mod settings;
mod speech;
mod sync;
mod team;
mod usage;
mod workflows;

/// Tests that run whisper take turns. Each transcription uses both cores, and
/// the live ones (a partial transcript while the child speaks, the end of
/// speech) need them: with two at once a live decode starved and no partial
/// came before the clip ended. The other tests still run beside them.
fn speech_alone() -> std::sync::MutexGuard<'static, ()> {
    static SPEECH: std::sync::Mutex<()> = std::sync::Mutex::new(());
    // A test that failed while holding it does not stop the others.
    SPEECH.lock().unwrap_or_else(|e| e.into_inner())
}

/// Waits until `server` has had its first request (the run is inside that
/// tool call), then kills `child` with SIGKILL — a crash at that point.
#[allow(clippy::unwrap_used)]
fn kill_once_requested(
    child: &mut std::process::Child,
    server: &deskmate_llm::scripted::ScriptedServer,
    what: &str,
) {
    let t = std::time::Instant::now();
    while server.request_count() < 1 {
        assert!(
            t.elapsed() < std::time::Duration::from_secs(30),
            "{what} never started"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
}
