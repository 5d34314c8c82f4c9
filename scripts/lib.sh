# Shared by the setup scripts: logging and idempotent installs.
# Sourced, not run. Every function is safe to call twice.

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export REPO

say() { printf '\033[1;34m==>\033[0m %s\n' "$*" >&2; }
die() { printf '\033[1;31merror:\033[0m %s\n' "$*" >&2; exit 1; }

# Debian packages the app needs to build and run (Tauri 2 + WebKitGTK, audio,
# serial, keyring, whisper.cpp's build).
APP_PACKAGES=(build-essential curl wget file pkg-config libwebkit2gtk-4.1-dev libxdo-dev libssl-dev
  libayatana-appindicator3-dev librsvg2-dev libasound2-dev libudev-dev libdbus-1-dev
  cmake clang libclang-dev espeak-ng python3-venv fonts-noto-cjk)
# Extra packages for the test suite: a virtual display, the WebKit WebDriver,
# a session D-Bus with a keyring, screenshots, and socat for serial tests.
TEST_PACKAGES=(xvfb webkit2gtk-driver dbus-x11 gnome-keyring imagemagick socat xauth)

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

ensure_node() {
  command -v node >/dev/null 2>&1 || die "Node.js 20.19+ is needed for the UI (https://nodejs.org or your package manager)"
  local major
  major=$(node -p 'process.versions.node.split(".")[0]')
  [ "$major" -ge 20 ] || die "Node.js $(node --version) is too old; the UI needs 20.19 or newer"
}

# npm ci when package-lock.json changed since the last install.
ensure_ui_deps() {
  ensure_node
  local stamp="$REPO/ui/node_modules/.deskmate-lock-sha"
  local sum
  sum=$(sha256sum "$REPO/ui/package-lock.json" | cut -d' ' -f1)
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$sum" ]; then
    say "installing UI packages (npm ci)"
    (cd "$REPO/ui" && npm ci --no-audit --no-fund --loglevel=error) || die "npm ci failed"
    echo "$sum" >"$stamp"
  fi
}

build_ui() {
  ensure_ui_deps
  say "building the UI"
  (cd "$REPO/ui" && npm run -s build) || die "the UI build failed"
}

ensure_cargo() {
  command -v cargo >/dev/null 2>&1 || die "Rust is needed: install it with rustup (https://rustup.rs)"
}

# tauri-driver bridges WebDriver to the app window in end-to-end tests.
ensure_tauri_driver() {
  if ! command -v tauri-driver >/dev/null 2>&1 && [ ! -x "$HOME/.cargo/bin/tauri-driver" ]; then
    say "installing tauri-driver (cargo install, one time)"
    cargo install -q tauri-driver --version '^2' --locked || die "cargo install tauri-driver failed"
  fi
}

# A Python virtualenv with the WebDriver client and pytest for the window test.
ensure_e2e_python() {
  local venv="$REPO/.venv"
  local req="$REPO/tests/e2e/requirements.txt"
  local stamp="$venv/.deskmate-req-sha"
  local sum
  sum=$(sha256sum "$req" | cut -d' ' -f1)
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$sum" ]; then
    say "preparing the end-to-end test environment (.venv)"
    python3 -m venv "$venv" || die "python3 -m venv failed (apt-get install python3-venv)"
    "$venv/bin/pip" install -q --disable-pip-version-check -r "$req" || die "pip install failed"
    echo "$sum" >"$stamp"
  fi
}
