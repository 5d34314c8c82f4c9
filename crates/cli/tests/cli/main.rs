//! The `deskmate` command's integration tests, one binary (one link on two
//! cores instead of one per file): each module drives the real binary
//! through `deskmate_testkit::cli`, with a data directory of its own.

mod approvals;
mod ask;
mod chat;
mod events;
mod foundation;
mod kb;
mod keepsake;
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
