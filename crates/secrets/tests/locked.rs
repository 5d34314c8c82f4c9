//! A locked keyring, for real: a private session bus with its own keyring
//! daemon whose login keyring is locked, so a read asks for an unlock
//! prompt nobody answers. The secret-service client waits on that prompt
//! for ever; `Secret` must give up at its limit and say why.
//!
//! The test re-runs itself under `xvfb-run` and `dbus-run-session` (the
//! child sees only its private bus and display), so the session keyring
//! other tests use is untouched.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::Command;
use std::time::{Duration, Instant};

use deskmate_secrets::{Secret, SecretError};

const CHILD: &str = "DESKMATE_SECRETS_LOCKED_CHILD";

#[test]
fn a_locked_keyring_is_given_up_on_at_the_limit_not_waited_for() {
    if std::env::var_os(CHILD).is_some() {
        let limit = Duration::from_secs(2);
        let secret = Secret::in_service("deskmate-test", "locked-probe").with_limit(limit);
        // Stored while the keyring is open, then the keyring is locked.
        secret.set("kept").unwrap();
        assert_eq!(secret.get().unwrap().as_deref(), Some("kept"));
        lock_the_login_keyring();
        type Call<'a> = &'a dyn Fn() -> Result<(), SecretError>;
        let calls: [(&str, Call); 3] = [
            ("read", &|| secret.get().map(|_| ())),
            ("write", &|| secret.set("new")),
            ("delete", &|| secret.delete()),
        ];
        for (what, call) in calls {
            let started = Instant::now();
            let answer = call();
            let waited = started.elapsed();
            assert_eq!(answer, Err(SecretError::Silent(limit)), "{what}");
            assert!(
                waited < limit + Duration::from_secs(2),
                "{what}: {waited:?}"
            );
        }
        return;
    }
    // A private bus with a keyring daemon whose login keyring is unlocked,
    // on a virtual display: the unlock prompt is shown there and nobody
    // answers it (without a display the prompter fails at once, which is
    // an error, not a wait).
    let script = r#"
set -e
login_locked() {
  gdbus call --session --dest org.freedesktop.secrets \
    --object-path /org/freedesktop/secrets/collection/login \
    --method org.freedesktop.DBus.Properties.Get org.freedesktop.Secret.Collection Locked 2>/dev/null || true
}
export XDG_DATA_HOME="$(mktemp -d)"
eval "$(printf 'pw' | gnome-keyring-daemon --unlock --components=secrets)"
for _ in $(seq 50); do
  [ "$(login_locked)" = "(<false>,)" ] && break
  sleep 0.1
done
exec "$@"
"#;
    let me = std::env::current_exe().unwrap();
    let out = Command::new("xvfb-run")
        .args([
            "-a",
            "dbus-run-session",
            "--",
            "bash",
            "-c",
            script,
            "locked",
        ])
        .arg(&me)
        .args([
            "--exact",
            "a_locked_keyring_is_given_up_on_at_the_limit_not_waited_for",
            "--nocapture",
        ])
        .env(CHILD, "1")
        .output()
        .unwrap_or_else(|e| panic!("xvfb-run (xvfb, from the setup script): {e}"));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "the child failed:\n{text}");
    assert!(text.contains("1 passed"), "the child ran no test:\n{text}");
}

/// Locks the login keyring over D-Bus, as a screen lock or a daemon
/// restarted under the app would leave it.
fn lock_the_login_keyring() {
    let gdbus = |args: &[&str]| {
        let out = Command::new("gdbus")
            .args(["call", "--session", "--dest", "org.freedesktop.secrets"])
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    gdbus(&[
        "--object-path",
        "/org/freedesktop/secrets",
        "--method",
        "org.freedesktop.Secret.Service.Lock",
        "['/org/freedesktop/secrets/collection/login']",
    ]);
    let locked = gdbus(&[
        "--object-path",
        "/org/freedesktop/secrets/collection/login",
        "--method",
        "org.freedesktop.DBus.Properties.Get",
        "org.freedesktop.Secret.Collection",
        "Locked",
    ]);
    assert_eq!(locked, "(<true>,)", "the login keyring did not lock");
}
