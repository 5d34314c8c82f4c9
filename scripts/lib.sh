# Shared by the setup scripts: logging and idempotent installs.
# Sourced, not run. Every function is safe to call twice.

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export REPO

# Each step says how long the run has taken so far (seconds since the first
# script started; exported so the suites' lines count from the same start),
# which is where CI's time goes when a run is read back.
export DESKMATE_RUN_START="${DESKMATE_RUN_START:-$(date +%s)}"
say() { printf '\033[1;34m==>\033[0m [%4ss] %s\n' "$(( $(date +%s) - DESKMATE_RUN_START ))" "$*" >&2; }
die() { printf '\033[1;31merror:\033[0m %s\n' "$*" >&2; exit 1; }

# Debian packages the app needs to build and run (Tauri 2 + WebKitGTK, audio,
# serial, keyring, whisper.cpp's build).
APP_PACKAGES=(build-essential curl wget file pkg-config libwebkit2gtk-4.1-dev libxdo-dev libssl-dev
  libayatana-appindicator3-dev librsvg2-dev libasound2-dev libudev-dev libdbus-1-dev
  cmake clang libclang-dev espeak-ng python3-venv fonts-noto-cjk)
# Extra packages for the test suite: a virtual display, the WebKit WebDriver,
# a session D-Bus with a keyring (gdbus, from libglib2.0-bin, checks it is
# unlocked), screenshots, socat for serial tests, and
# PostgreSQL for the sync server's tests (a throwaway cluster per test binary),
# and libfaketime for the sync test of a device whose clock is a day ahead.
TEST_PACKAGES=(xvfb webkit2gtk-driver dbus-x11 gnome-keyring libglib2.0-bin imagemagick socat xauth postgresql faketime)

# Installs the Debian packages that are missing. Elsewhere it prints what to install.
ensure_packages() {
  local missing=()
  if ! command -v dpkg-query >/dev/null 2>&1; then
    say "not a Debian/Ubuntu system: install the equivalents of: $*"
    say "(macOS: Xcode command line tools + 'brew install cmake node'; Windows: Visual Studio Build Tools, WebView2, Node.js, CMake, LLVM)"
    return 0
  fi
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  say "installing Debian packages: ${missing[*]}"
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || die "need root to install: ${missing[*]} (run: apt-get install ${missing[*]})"
    sudo="sudo"
  fi
  # Refresh the package lists once per machine boot-ish (older than a day).
  if [ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*Packages*' -mmin -1440 2>/dev/null | head -n1)" ]; then
    $sudo apt-get update -qq
  fi
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
    || die "apt-get install failed for: ${missing[*]}"
}

# How to get a Node.js the UI's build tool (Vite) accepts: 20.19+ or 22.12+.
NODE_HOWTO="Debian 12's own nodejs package is 18, too old. Install Node.js 22 LTS (or 20.19+) from NodeSource:
  curl -fsSL https://deb.nodesource.com/setup_22.x | sudo -E bash - && sudo apt-get install -y nodejs
or with nvm (https://github.com/nvm-sh/nvm): nvm install 22 — or from https://nodejs.org (macOS: brew install node@22; Windows: the .msi installer).
Then run this script again."

ensure_node() {
  command -v node >/dev/null 2>&1 || die "Node.js is not installed; the UI needs 20.19+ or 22.12+.
$NODE_HOWTO"
  # Vite's own requirement: ^20.19.0 || >=22.12.0.
  node -e 'const [a, b] = process.versions.node.split(".").map(Number);
           process.exit((a === 20 && b >= 19) || (a === 22 && b >= 12) || a > 22 ? 0 : 1)' \
    || die "Node.js $(node --version) is not supported; the UI needs 20.19+ or 22.12+.
$NODE_HOWTO"
}

# A file's sha256 in hex: sha256sum (Linux, Git Bash) or shasum (macOS).
sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d' ' -f1
  else
    shasum -a 256 "$1" | cut -d' ' -f1
  fi
}

# True on Linux, where the window tests and the display check apply.
is_linux() { [ "$(uname -s)" = Linux ]; }

# npm ci in the folder $1 (relative to the repository) when its
# package-lock.json changed since the last install; $2 says whose packages.
ensure_npm_deps() {
  ensure_node
  local dir="$REPO/$1"
  local stamp="$dir/node_modules/.deskmate-lock-sha"
  local sum
  sum=$(sha256_of "$dir/package-lock.json")
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$sum" ]; then
    say "installing $2 packages (npm ci in $1)"
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error) || die "npm ci failed in $1"
    echo "$sum" >"$stamp"
  fi
}

ensure_ui_deps() { ensure_npm_deps ui UI; }

# The official client libraries the client tests check the app's streams with
# (tests/clients: @ag-ui/client, @ag-ui/core).
ensure_client_test_deps() { ensure_npm_deps tests/clients "client test"; }

build_ui() {
  ensure_ui_deps
  say "building the UI"
  (cd "$REPO/ui" && npm run -s build) || die "the UI build failed"
}

ensure_cargo() {
  # rustup installs into ~/.cargo/bin, which a fresh shell may not have on PATH yet.
  if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then
    export PATH="$HOME/.cargo/bin:$PATH"
  fi
  command -v cargo >/dev/null 2>&1 || die "Rust is not installed (no cargo). Install it with rustup:
  curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y && . \"\$HOME/.cargo/env\"
(see https://rustup.rs; on Windows run rustup-init.exe). Debian 12's own rustc (1.63) is too old: Deskmate needs 1.85 or newer.
Then run this script again."
  local version
  version=$(cargo --version | awk '{print $2}')
  case "$version" in
    1.[0-7][0-9].* | 1.8[0-4].*)
      die "Rust $version is too old: Deskmate needs 1.85 or newer. Update it with: rustup update stable" ;;
  esac
}

# clippy and rustfmt, the lint suite's tools (rustup's components). Sets
# CLIPPY_DRIVER to the driver that scripts/test.sh builds the workspace with.
ensure_clippy() {
  if ! command -v clippy-driver >/dev/null 2>&1 || ! command -v rustfmt >/dev/null 2>&1; then
    command -v rustup >/dev/null 2>&1 || die "clippy and rustfmt are missing and there is no rustup to add them (install clippy and rustfmt for your Rust)"
    say "adding rustup components clippy and rustfmt"
    rustup component add clippy rustfmt || die "rustup component add clippy rustfmt failed"
  fi
  CLIPPY_DRIVER=$(command -v clippy-driver)
}

# tauri-driver bridges WebDriver to the app window in end-to-end tests.
ensure_tauri_driver() {
  if ! command -v tauri-driver >/dev/null 2>&1 && [ ! -x "$HOME/.cargo/bin/tauri-driver" ]; then
    say "installing tauri-driver (cargo install, one time)"
    cargo install -q tauri-driver --version '^2' --locked || die "cargo install tauri-driver failed"
  fi
}

# A Python virtualenv with pytest, the WebDriver client for the window test
# and the official langgraph-sdk for the API tests (tests/api).
ensure_e2e_python() {
  local venv="$REPO/.venv"
  local req="$REPO/tests/e2e/requirements.txt"
  local stamp="$venv/.deskmate-req-sha"
  local sum
  sum=$(sha256_of "$req")
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$sum" ]; then
    say "preparing the end-to-end test environment (.venv)"
    python3 -m venv "$venv" || die "python3 -m venv failed (apt-get install python3-venv)"
    "$venv/bin/pip" install -q --disable-pip-version-check -r "$req" || die "pip install failed"
    echo "$sum" >"$stamp"
  fi
}

# The pinned packages of the one-time model conversions (models/requirements.txt)
# in the same .venv; scripts/fetch-models.sh calls it before converting.
ensure_models_python() {
  local venv="$REPO/.venv"
  local req="$REPO/models/requirements.txt"
  local stamp="$venv/.deskmate-models-req-sha"
  local sum
  sum=$(sha256_of "$req")
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$sum" ]; then
    say "installing the model conversion packages into .venv"
    [ -x "$venv/bin/python" ] || python3 -m venv "$venv" || die "python3 -m venv failed (apt-get install python3-venv)"
    "$venv/bin/pip" install -q --disable-pip-version-check -r "$req" || die "pip install failed"
    echo "$sum" >"$stamp"
  fi
}
