#!/usr/bin/env bash
# The test suites themselves; scripts/test.sh runs this inside Xvfb and a
# D-Bus session on Linux, and directly, without the window tests, elsewhere.
# Runs every suite even if one fails, then prints a total.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
cd "$REPO"
art="$REPO/test-artifacts"

# An unlocked Secret Service keyring in a throwaway home for the keyring tests
# (Linux; macOS and Windows use the keyring of the logged-in user).
# One daemon, started by --unlock (it creates the login keyring with this
# password, unlocks it and answers on the session bus). A second
# `gnome-keyring-daemon --start`, as this used to run, raced the first: when
# it came up before the first had made its control socket it started a
# daemon of its own, with the login keyring locked, and took the bus name —
# then the first test that stored a key waited for ever on an unlock prompt
# nobody could answer (a fresh-clone run hung there for 5 minutes).
if command -v gnome-keyring-daemon >/dev/null 2>&1; then
  export XDG_DATA_HOME="$(mktemp -d)"
  eval "$(printf 'deskmate-test' | gnome-keyring-daemon --unlock --components=secrets 2>/dev/null)" || true
  # Wait until the Secret Service answers with the login keyring unlocked.
  keyring_locked=unknown
  for _ in $(seq 50); do
    keyring_locked=$(gdbus call --session --dest org.freedesktop.secrets \
      --object-path /org/freedesktop/secrets/collection/login \
      --method org.freedesktop.DBus.Properties.Get org.freedesktop.Secret.Collection Locked 2>/dev/null || true)
    [ "$keyring_locked" = "(<false>,)" ] && break
    sleep 0.1
  done
  [ "$keyring_locked" = "(<false>,)" ] ||
    echo "warning: the test keyring is not unlocked (${keyring_locked:-no answer}); tests that store a key may wait on a prompt" >&2
  # The daemon has been seen to exit in the middle of a run (once in seven
  # fresh-clone runs here, a minute in). D-Bus then starts a new one for the
  # next caller, with the bus's own environment: another keyring folder, no
  # unlocked login keyring, and every later test that stores a key failed
  # with "no result found". So a daemon D-Bus starts reads this run's
  # keyring folder, and a watchdog puts an unlocked daemon back (the same
  # keyring, the same password) within a second of finding it gone or
  # locked, and says so.
  dbus-update-activation-environment XDG_DATA_HOME 2>/dev/null || true
  (
    suites=$$ bad=0
    while sleep 0.5; do
      kill -0 "$suites" 2>/dev/null || exit 0
      state=$(gdbus call --session --dest org.freedesktop.secrets \
        --object-path /org/freedesktop/secrets/collection/login \
        --method org.freedesktop.DBus.Properties.Get org.freedesktop.Secret.Collection Locked 2>/dev/null || true)
      if [ "$state" = "(<false>,)" ]; then bad=0; continue; fi
      # Twice in a row, so one slow answer on a busy machine never replaces a
      # daemon that is fine.
      bad=$((bad + 1))
      if [ "$bad" -ge 2 ]; then
        echo "note: the test keyring was ${state:-gone}; its daemon is started again, unlocked" >&2
        printf 'deskmate-test' | gnome-keyring-daemon --replace --unlock --components=secrets >/dev/null 2>&1 || true
        bad=0
      fi
    done
  ) &
  keyring_watchdog=$!
  trap 'kill "$keyring_watchdog" 2>/dev/null' EXIT
fi

passed=0 failed=0 suites_failed=()

# Passed and failed counts of a pytest JUnit XML file ("0 0" when unreadable).
junit_counts() {
  python3 - "$1" <<'PY'
import sys, xml.etree.ElementTree as ET
try:
    s = ET.parse(sys.argv[1]).getroot()
    s = s if s.tag == "testsuite" else s.find("testsuite")
    t, fl, er, sk = (int(s.get(k, 0)) for k in ("tests", "failures", "errors", "skipped"))
    print(t - fl - er - sk, fl + er)
except Exception:
    print(0, 0)
PY
}

# Each suite has a time limit, so a hung test fails its suite with a clear
# line instead of running CI past its limit with no total printed.
limited() {
  local limit=$1; shift
  # macOS has timeout(1) only from coreutils (brew install coreutils: gtimeout).
  local timeout_cmd
  timeout_cmd=$(command -v timeout || command -v gtimeout || true)
  if [ -z "$timeout_cmd" ]; then
    "$@"
    return
  fi
  "$timeout_cmd" --kill-after=30s "$limit" "$@"
  local rc=$?
  [ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] || echo "TIMED OUT after $limit: $*" >&2
  return "$rc"
}

say "Rust tests"
# One build of every target (lib, bins, tests, benches): scripts/test.sh has
# clippy-driver compile the workspace's crates, so this build is also the lint
# pass; its diagnostics (cargo's JSON, replayed for crates already built) go to
# build.json for the lint suite below. Then the tests run on what it built.
# --timings keeps cargo's report of what each crate cost to build
# (test-artifacts/cargo-timing-*.html, with the first build's from
# scripts/test.sh): where a slower CI's time went.
limited 30m cargo test --workspace --all-targets --no-run --message-format=json --timings \
  > "$art/build.json" 2> "$art/build.log"
build_rc=$?
cp target/cargo-timings/cargo-timing-*.html "$art/" 2>/dev/null || true
[ "$build_rc" -eq 0 ] || tail -n 40 "$art/build.log"
# The same targets as the build above (without the benches, which would
# run): a plain `cargo test --workspace` leaves out the shell (its binary has
# test = false), so tauri's features dropped out of the resolve and about 150
# crates were compiled a second time (8.6 min on a warm machine). Doc tests
# would do the same; the two crate examples are unit tests instead
# (deskmate-recite, deskmate-llm: `example`).
limited 35m cargo test --workspace --lib --bins --tests --examples --no-fail-fast 2>&1 | tee "$art/cargo-test.log"
rust_rc=${PIPESTATUS[0]}
read -r p f < <(grep -E '^test result:' "$art/cargo-test.log" | awk '{p+=$4; f+=$6} END {print p+0, f+0}')
passed=$((passed + p)); failed=$((failed + f))
[ "$rust_rc" -eq 0 ] || { suites_failed+=(rust); [ "$f" -gt 0 ] || failed=$((failed + 1)); }

say "Formatting and lints"
# Each counts as one test: rustfmt's check, then no warning from the build
# above (clippy's lints and rustc's, on every crate and target: the same as
# cargo clippy --workspace --all-targets -- -D warnings). Where clippy-driver
# is not the build's compiler (RUSTC_WORKSPACE_WRAPPER unset), clippy runs on its own.
lint_p=0 lint_f=0
if cargo fmt --all --check > "$art/fmt.log" 2>&1; then lint_p=$((lint_p + 1)); else lint_f=$((lint_f + 1)); cat "$art/fmt.log"; echo "cargo fmt --check failed: run cargo fmt --all"; fi
if [ "${RUSTC_WORKSPACE_WRAPPER:-}" = "" ]; then
  limited 15m cargo clippy --workspace --all-targets --quiet -- -D warnings > "$art/clippy.log" 2>&1
  lints_rc=$?
else
  python3 "$REPO/scripts/build-diagnostics.py" "$art/build.json" > "$art/clippy.log"
  lints_rc=$?
  [ "$build_rc" -eq 0 ] || lints_rc=1
fi
if [ "$lints_rc" -eq 0 ]; then
  lint_p=$((lint_p + 1))
else
  lint_f=$((lint_f + 1)); tail -n 60 "$art/clippy.log"; echo "lints failed (full log: test-artifacts/clippy.log)"
fi
echo "lints: $lint_p passed, $lint_f failed"
passed=$((passed + lint_p)); failed=$((failed + lint_f))
[ "$lint_f" -eq 0 ] || suites_failed+=(lints)

say "UI unit tests"
(cd ui && limited 10m npx vitest run --reporter=default --reporter=json --outputFile="$art/vitest.json") 2>&1 | tee "$art/vitest.log"
ui_rc=${PIPESTATUS[0]}
read -r p f < <(node -e 'try{const r=require(process.argv[1]);console.log(r.numPassedTests, r.numFailedTests)}catch{console.log(0, 0)}' "$art/vitest.json")
passed=$((passed + p)); failed=$((failed + f))
[ "$ui_rc" -eq 0 ] || { suites_failed+=(ui); [ "$f" -gt 0 ] || failed=$((failed + 1)); }

say "Client library tests"
# The real binary's AG-UI stream through the official client libraries
# (tests/clients); node's test runner writes TAP for the counts.
(cd tests/clients && export DESKMATE_BIN="${DESKMATE_BIN:-$REPO/target/debug/deskmate}" &&
  limited 5m node --test --test-reporter=spec --test-reporter-destination=stdout \
    --test-reporter=tap --test-reporter-destination="$art/clients.tap") 2>&1 | tee "$art/clients.log"
clients_rc=${PIPESTATUS[0]}
read -r p f < <(awk '/^# pass /{p=$3} /^# fail /{f=$3} END{print p+0, f+0}' "$art/clients.tap" 2>/dev/null || echo 0 0)
passed=$((passed + p)); failed=$((failed + f))
[ "$clients_rc" -eq 0 ] || { suites_failed+=(clients); [ "$f" -gt 0 ] || failed=$((failed + 1)); }

say "API tests"
# The official LangGraph Python SDK (tests/api) against the real
# `deskmate serve`, with the scripted model server; pytest's JUnit XML
# gives the counts.
DESKMATE_BIN="${DESKMATE_BIN:-$REPO/target/debug/deskmate}" \
  limited 3m "$REPO/.venv/bin/pytest" -q tests/api --junitxml="$art/api.xml" 2>&1 | tee "$art/api.log"
api_rc=${PIPESTATUS[0]}
read -r p f < <(junit_counts "$art/api.xml")
passed=$((passed + p)); failed=$((failed + f))
[ "$api_rc" -eq 0 ] || { suites_failed+=(api); [ "$f" -gt 0 ] || failed=$((failed + 1)); }

if ! is_linux; then
  say "End-to-end test of the app window: skipped on $(uname -s) (it needs Linux: Xvfb, WebKitWebDriver, tauri-driver)"
  echo
  [ ${#suites_failed[@]} -eq 0 ] || echo "failed suites: ${suites_failed[*]} (logs in test-artifacts/)"
  echo "total: $passed passed, $failed failed (window tests skipped: not Linux)"
  [ ${#suites_failed[@]} -eq 0 ]
  exit
fi

say "End-to-end test of the app window"
limited 20m "$REPO/.venv/bin/pytest" -q tests/e2e --junitxml="$art/e2e.xml" 2>&1 | tee "$art/e2e.log"
e2e_rc=${PIPESTATUS[0]}
read -r p f < <(junit_counts "$art/e2e.xml")
passed=$((passed + p)); failed=$((failed + f))
[ "$e2e_rc" -eq 0 ] || { suites_failed+=(e2e); [ "$f" -gt 0 ] || failed=$((failed + 1)); }

say "all suites ran"
echo
[ ${#suites_failed[@]} -eq 0 ] || echo "failed suites: ${suites_failed[*]} (logs in test-artifacts/)"
echo "total: $passed passed, $failed failed"
[ ${#suites_failed[@]} -eq 0 ]
