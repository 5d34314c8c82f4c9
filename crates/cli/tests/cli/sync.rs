//! Two devices through the real `deskmate` binary and a real sync server
//! (`deskmate-server` on a throwaway PostgreSQL): the parent signs up on the
//! desktop, pairs the tablet with a code, the child's attempt on the tablet
//! shows in the desktop's report. Tokens go to the OS keyring, so this runs
//! where one is unlocked (scripts/test-suites.sh starts one).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use deskmate_testkit::cli::{add_child, deskmate, json};
use deskmate_testkit::postgres::{cluster, SyncServer};

fn server_bin() -> std::path::PathBuf {
    // Built by `cargo test --workspace` (or `cargo build -p deskmate-server`).
    assert_cmd::cargo::cargo_bin("deskmate-server")
}

#[test]
fn an_attempt_on_the_tablet_appears_in_the_desktops_report() {
    let server = SyncServer::start(&server_bin(), &cluster().database(), &[]);
    let desk = tempfile::tempdir().unwrap();
    let tablet = tempfile::tempdir().unwrap();
    add_child(desk.path());

    family_of_two(
        &server,
        "li@example.com",
        desk.path(),
        tablet.path(),
        deskmate,
    );

    deskmate(desk.path())
        .args(["sync", "now"])
        .assert()
        .success();
    deskmate(tablet.path())
        .args(["sync", "now"])
        .assert()
        .success();
    // The child came to the tablet; it recites there.
    deskmate(tablet.path())
        .args([
            "recite",
            "attempt",
            "--profile",
            "小明",
            "--material",
            "静夜思",
        ])
        .args([
            "--transcript",
            "床前明月光，疑是地上霜。举头望明月，低头思故乡。",
        ])
        .args(["--at", "2026-03-02T04:00:00Z"])
        .assert()
        .success();
    // Offline, the desktop practises the same poem three days later.
    deskmate(desk.path())
        .args([
            "recite",
            "attempt",
            "--profile",
            "小明",
            "--material",
            "静夜思",
        ])
        .args([
            "--transcript",
            "床前明月光，疑是地上霜。举头望明月，低头思故乡。",
        ])
        .args(["--at", "2026-03-05T04:00:00Z"])
        .assert()
        .success();
    // The tablet keeps itself in step in the background: its first round
    // sends the attempt without anyone asking.
    assert_eq!(background_round(tablet.path())["pushed"], 1);
    let out = deskmate(desk.path())
        .args(["sync", "now", "--json"])
        .assert()
        .success();
    assert_eq!(json(&out.get_output().stdout)["applied"], 1);
    let out = deskmate(tablet.path())
        .args(["sync", "now", "--json"])
        .assert()
        .success();
    assert_eq!(json(&out.get_output().stdout)["applied"], 1);
    // Both attempts count, and both devices hold one and the same schedule:
    // learnt on 2 March (tablet), reviewed on 5 March (desktop).
    let card = |dir: &std::path::Path| {
        let c = rusqlite::Connection::open(dir.join("deskmate.sqlite3")).unwrap();
        c.query_row(
            "SELECT reps, last_review_at, next_review_at, stability FROM recite_reviews",
            [],
            |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, f64>(3)?,
                ))
            },
        )
        .unwrap()
    };
    let on_desk = card(desk.path());
    assert_eq!(on_desk, card(tablet.path()));
    assert_eq!(on_desk.0, 2, "{on_desk:?}");
    assert!(on_desk.1.starts_with("2026-03-05"), "{on_desk:?}");

    let out = deskmate(desk.path())
        .args(["report", "daily", "--profile", "小明"])
        .args(["--date", "2026-03-02", "--json"])
        .assert()
        .success();
    assert_eq!(json(&out.get_output().stdout)["summary"]["attempts"], 1);

    let out = deskmate(desk.path())
        .args(["devices", "list", "--json"])
        .assert()
        .success();
    assert_eq!(json(&out.get_output().stdout).as_array().unwrap().len(), 2);
    let out = deskmate(desk.path())
        .args(["sync", "status", "--json"])
        .assert()
        .success();
    let status = json(&out.get_output().stdout);
    assert_eq!(status["enabled"], true);
    assert_eq!(
        status["pending"], 1,
        "the report the desktop just made waits for the next round"
    );
    let out = deskmate(desk.path())
        .args(["sync", "now", "--json"])
        .assert()
        .success();
    assert_eq!(json(&out.get_output().stdout)["pushed"], 1);
    // No token ever lands in the database.
    let mut db = std::fs::read(desk.path().join("deskmate.sqlite3")).unwrap();
    db.extend(std::fs::read(desk.path().join("deskmate.sqlite3-wal")).unwrap_or_default());
    assert!(
        !String::from_utf8_lossy(&db).contains("v1.eyJ"),
        "an access token in SQLite"
    );

    deskmate(desk.path())
        .args(["account", "logout"])
        .assert()
        .success();
    let out = deskmate(desk.path())
        .args(["account", "status", "--json"])
        .assert()
        .success();
    assert!(json(&out.get_output().stdout)["account"].is_null());
}

/// Runs `deskmate sync run --json` until its first round that synced and
/// returns that round's report; the process is then stopped.
fn background_round(dir: &std::path::Path) -> serde_json::Value {
    use std::io::BufRead;
    use std::process::{Command, Stdio};
    let mut run = Command::new(assert_cmd::cargo::cargo_bin("deskmate"))
        .arg("--data-dir")
        .arg(dir)
        .env_remove("DESKMATE_DATA_DIR")
        .args(["sync", "run", "--json"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = run.stdout.take().unwrap();
    let mut rounds = Vec::new();
    let mut synced = None;
    for line in std::io::BufReader::new(stdout).lines() {
        let round = json(line.unwrap().as_bytes());
        if round["round"] == "synced" {
            synced = Some(round["report"].clone());
            break;
        }
        rounds.push(round);
        assert!(rounds.len() < 3, "no round synced: {rounds:?}");
    }
    run.kill().unwrap();
    run.wait().unwrap();
    synced.unwrap_or_else(|| panic!("sync run ended without a round: {rounds:?}"))
}

/// libfaketime (Debian's `faketime`, in the test packages): the wrong clock
/// of the test below is the process's real clock, moved a day ahead.
const FAKETIME_LIB: &str = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1";

/// `deskmate` on a device whose clock is a day ahead.
fn deskmate_a_day_ahead(dir: &std::path::Path) -> assert_cmd::Command {
    assert!(
        std::path::Path::new(FAKETIME_LIB).exists(),
        "{FAKETIME_LIB} is missing: apt-get install faketime (scripts/test.sh does)"
    );
    let mut c = deskmate(dir);
    c.env("LD_PRELOAD", FAKETIME_LIB)
        .env("FAKETIME", "+1d")
        .env("FAKETIME_DONT_FAKE_MONOTONIC", "1");
    c
}

#[test]
fn a_tablet_whose_clock_is_a_day_ahead_does_not_overwrite_a_newer_edit() {
    let server = SyncServer::start(&server_bin(), &cluster().database(), &[]);
    let desk = tempfile::tempdir().unwrap();
    let tablet = tempfile::tempdir().unwrap();
    add_child(desk.path());
    // The tablet's clock says tomorrow; it learns the server's when it pairs.
    family_of_two(
        &server,
        "zhou@example.com",
        desk.path(),
        tablet.path(),
        deskmate_a_day_ahead,
    );
    let out = deskmate_a_day_ahead(tablet.path())
        .args(["sync", "status", "--json"])
        .assert()
        .success();
    let offset = json(&out.get_output().stdout)["clock_offset_ms"]
        .as_i64()
        .unwrap();
    assert!(
        (offset + 86_400_000).abs() < 120_000,
        "the tablet's clock is a day ahead, but the offset it learnt is {offset} ms"
    );
    deskmate(desk.path())
        .args(["sync", "now"])
        .assert()
        .success();
    deskmate_a_day_ahead(tablet.path())
        .args(["sync", "now"])
        .assert()
        .success();

    // The tablet renames the child first; the parent renames it after.
    deskmate_a_day_ahead(tablet.path())
        .args([
            "profiles",
            "rename",
            "--profile",
            "小明",
            "--name",
            "小小明",
        ])
        .assert()
        .success();
    std::thread::sleep(std::time::Duration::from_millis(50));
    deskmate(desk.path())
        .args(["profiles", "rename", "--profile", "小明", "--name", "明明"])
        .assert()
        .success();
    for _ in 0..2 {
        deskmate_a_day_ahead(tablet.path())
            .args(["sync", "now"])
            .assert()
            .success();
        deskmate(desk.path())
            .args(["sync", "now"])
            .assert()
            .success();
    }
    // The newer edit (the parent's) wins on both, the tablet's clock notwithstanding.
    for (dir, who) in [(desk.path(), "desktop"), (tablet.path(), "tablet")] {
        let out = deskmate(dir)
            .args(["profiles", "list", "--json"])
            .assert()
            .success();
        let names: Vec<String> = json(&out.get_output().stdout)
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(names, ["明明"], "on the {who}");
    }
}

/// The desktop signs up as a parent and turns sync on (refused before);
/// the tablet, whose commands `tablet_cmd` makes, pairs with a code from the
/// desktop, joins the same family and turns sync on.
fn family_of_two(
    server: &SyncServer,
    email: &str,
    desk: &std::path::Path,
    tablet: &std::path::Path,
    tablet_cmd: fn(&std::path::Path) -> assert_cmd::Command,
) {
    let out = deskmate(desk)
        .args([
            "account",
            "signup",
            "--server",
            &server.url,
            "--email",
            email,
        ])
        .args(["--password", "correct horse", "--json"])
        .assert()
        .success();
    let family = json(&out.get_output().stdout)["family_id"].clone();
    // Sync is off until a parent turns it on.
    let off = deskmate(desk).args(["sync", "now"]).assert().failure();
    assert!(String::from_utf8_lossy(&off.get_output().stderr).contains("sync is off"));
    deskmate(desk).args(["sync", "on"]).assert().success();
    let out = deskmate(desk)
        .args(["devices", "pair", "--json"])
        .assert()
        .success();
    let code = json(&out.get_output().stdout)["code"]
        .as_str()
        .unwrap()
        .to_string();
    let out = tablet_cmd(tablet)
        .args(["devices", "pair", "--server", &server.url, "--code", &code])
        .arg("--json")
        .assert()
        .success();
    assert_eq!(json(&out.get_output().stdout)["family_id"], family);
    tablet_cmd(tablet).args(["sync", "on"]).assert().success();
}

#[test]
fn a_second_parent_invited_by_email_joins_and_sees_the_children() {
    let server = SyncServer::start(&server_bin(), &cluster().database(), &[]);
    let desk = tempfile::tempdir().unwrap();
    let laptop = tempfile::tempdir().unwrap();
    add_child(desk.path());
    deskmate(desk.path())
        .args(["account", "signup", "--server", &server.url])
        .args(["--email", "gao@example.com", "--password", "correct horse"])
        .assert()
        .success();
    deskmate(desk.path())
        .args(["sync", "on"])
        .assert()
        .success();
    deskmate(desk.path())
        .args(["sync", "now"])
        .assert()
        .success();
    let out = deskmate(desk.path())
        .args(["account", "invite", "--email", "lan@example.com", "--json"])
        .assert()
        .success();
    let code = json(&out.get_output().stdout)["code"]
        .as_str()
        .unwrap()
        .to_string();
    // The code is for lan@ only.
    let wrong = deskmate(laptop.path())
        .args(["account", "accept", &code, "--server", &server.url])
        .args(["--email", "someone@example.com", "--password", "orchid tea"])
        .assert()
        .failure();
    assert!(
        String::from_utf8_lossy(&wrong.get_output().stderr).contains("for another email"),
        "{}",
        String::from_utf8_lossy(&wrong.get_output().stderr)
    );
    deskmate(laptop.path())
        .args(["account", "accept", &code, "--server", &server.url])
        .args(["--email", "lan@example.com", "--password", "orchid tea"])
        .assert()
        .success();
    let out = deskmate(laptop.path())
        .args(["account", "status", "--json"])
        .assert()
        .success();
    let status = json(&out.get_output().stdout);
    assert_eq!(status["account"]["role"], "parent");
    assert_eq!(status["account"]["email"], "lan@example.com");
    deskmate(laptop.path())
        .args(["sync", "on"])
        .assert()
        .success();
    deskmate(laptop.path())
        .args(["sync", "now"])
        .assert()
        .success();
    let out = deskmate(laptop.path())
        .args(["profiles", "list", "--json"])
        .assert()
        .success();
    let names: Vec<String> = json(&out.get_output().stdout)
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        names,
        ["小明"],
        "the family's child reached the second parent"
    );
    let out = deskmate(desk.path())
        .args(["account", "invitations", "--json"])
        .assert()
        .success();
    assert!(json(&out.get_output().stdout)[0]["accepted_at"].is_string());
}

fn sync_status(dir: &std::path::Path) -> serde_json::Value {
    let out = deskmate(dir)
        .args(["sync", "status", "--json"])
        .assert()
        .success();
    json(&out.get_output().stdout)
}

#[test]
fn deskmate_serve_keeps_the_device_in_step_and_one_shot_commands_do_not() {
    use std::process::{Command, Stdio};
    let server = SyncServer::start(&server_bin(), &cluster().database(), &[]);
    let desk = tempfile::tempdir().unwrap();
    let tablet = tempfile::tempdir().unwrap();
    add_child(desk.path());
    family_of_two(
        &server,
        "serve@example.com",
        desk.path(),
        tablet.path(),
        deskmate,
    );
    deskmate(desk.path())
        .args(["sync", "now"])
        .assert()
        .success();
    deskmate(tablet.path())
        .args(["sync", "now"])
        .assert()
        .success();
    deskmate(tablet.path())
        .args([
            "recite",
            "attempt",
            "--profile",
            "小明",
            "--material",
            "静夜思",
        ])
        .args(["--transcript", "床前明月光，疑是地上霜。"])
        .assert()
        .success();
    // One-shot commands run no loop: the attempt (with what it wrote
    // besides) waits, no round was kept.
    let before = sync_status(tablet.path());
    let waiting = before["pending"].as_i64().unwrap();
    assert!(waiting >= 1, "{before}");
    assert!(before["background"].is_null(), "{before}");

    // `deskmate serve` runs it: its first round sends the attempt.
    let mut serve = Command::new(assert_cmd::cargo::cargo_bin("deskmate"))
        .arg("--data-dir")
        .arg(tablet.path())
        .env_remove("DESKMATE_DATA_DIR")
        .args(["serve", "--port", "0"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let status = loop {
        let s = sync_status(tablet.path());
        if s["background"]["round"] == "synced" && s["pending"] == 0 {
            break s;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "serve did not sync within 30 s: {s}"
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
    };
    assert_eq!(status["background"]["pushed"], waiting, "{status}");
    assert!(status["background"]["at"].is_string(), "{status}");
    // Ctrl-C stops serve and its loop; it ends cleanly.
    let stopped = Command::new("kill")
        .args(["-INT", &serve.id().to_string()])
        .status()
        .unwrap();
    assert!(stopped.success());
    assert!(serve.wait().unwrap().success());
    let out = deskmate(desk.path())
        .args(["sync", "now", "--json"])
        .assert()
        .success();
    assert_eq!(json(&out.get_output().stdout)["applied"], waiting);
}
