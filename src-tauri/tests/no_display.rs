//! The window binary itself, started without a display: it must stop at
//! once and say in plain words how to run it (a desktop session or
//! `xvfb-run`), not crash inside GTK. Being an integration test also makes
//! `cargo test` build the real `deskmate-app` binary, which the window's
//! end-to-end tests then drive, so the suite needs no second build.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[cfg(target_os = "linux")]
#[test]
fn without_a_display_the_window_says_how_to_run_it() {
    let data = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_deskmate-app"))
        .arg("--data-dir")
        .arg(data.path())
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "stderr: {stderr}");
    assert!(stderr.contains("no display found"), "stderr: {stderr}");
    assert!(stderr.contains("xvfb-run"), "stderr: {stderr}");
    // Nothing was opened or written: the check comes before the data.
    assert_eq!(std::fs::read_dir(data.path()).unwrap().count(), 0);
}
