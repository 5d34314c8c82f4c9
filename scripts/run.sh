#!/usr/bin/env bash
# Builds Deskmate and opens its window. Safe to run again: every step skips
# what is already done. Usage: scripts/run.sh [--data-dir DIR]
set -euo pipefail
source "$(dirname "$0")/lib.sh"

# Say so at once, before any install or build, when there is no screen to show
# a window on. Only Linux says so through DISPLAY/WAYLAND_DISPLAY; macOS and
# Windows (Git Bash) have a screen without them.
if is_linux && [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
  die "no display: Deskmate's window needs a desktop session (DISPLAY/WAYLAND_DISPLAY unset). On a server try: xvfb-run -a scripts/run.sh — or use the command line: target/debug/deskmate --help"
fi

ensure_packages "${APP_PACKAGES[@]}"
ensure_cargo
build_ui
say "building the app"
(cd "$REPO" && cargo build -q -p deskmate-shell -p deskmate-cli)
export DESKMATE_MODELS_DIR="${DESKMATE_MODELS_DIR:-$REPO/models}"
if is_linux; then
  DESKMATE_BIN="$REPO/target/debug/deskmate" "$REPO/scripts/fetch-models.sh" \
    || say "models could not be fetched: voice recitation stays off until they are (see: target/debug/deskmate doctor)"
else
  say "speech models: not fetched on $(uname -s) (the registry's ONNX Runtime is a Linux x86_64 build): voice recitation stays off, typed recitation works"
fi
say "starting Deskmate"
exec "$REPO/target/debug/deskmate-app" "$@"
