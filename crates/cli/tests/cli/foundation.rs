//! The foundation's CLI contract: profiles, materials and doctor, plus the
//! bad-input cases, each run through the real `deskmate` binary.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use assert_cmd::Command;

use deskmate_testkit::cli::deskmate;

use deskmate_testkit::cli::json;

#[test]
fn profiles_add_and_list() {
    let dir = tempfile::tempdir().unwrap();
    let out = deskmate(dir.path())
        .args([
            "profiles", "add", "--name", "妈妈", "--kind", "parent", "--pin", "2468", "--json",
        ])
        .assert()
        .success();
    let parent = json(&out.get_output().stdout);
    assert_eq!(parent["kind"], "parent");
    assert!(parent["id"].as_str().is_some_and(|id| id.len() == 36));
    assert!(parent.get("pin_hash").is_none() && parent.get("pin").is_none());
    deskmate(dir.path())
        .args([
            "profiles", "add", "--name", "小明", "--kind", "child", "--grade", "2", "--json",
        ])
        .assert()
        .success();
    let out = deskmate(dir.path())
        .args(["profiles", "list", "--json"])
        .assert()
        .success();
    let list = json(&out.get_output().stdout);
    let names: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["妈妈", "小明"]);
}

#[test]
fn duplicate_name_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    deskmate(dir.path())
        .args(["profiles", "add", "--name", "Lily", "--kind", "child"])
        .assert()
        .success();
    let out = deskmate(dir.path())
        .args(["profiles", "add", "--name", "lily", "--kind", "child"])
        .assert()
        .failure();
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(err.contains("already exists"), "{err}");
}

#[test]
fn parent_needs_a_pin() {
    let dir = tempfile::tempdir().unwrap();
    let out = deskmate(dir.path())
        .args(["profiles", "add", "--name", "Dad", "--kind", "parent"])
        .assert()
        .failure();
    assert!(String::from_utf8_lossy(&out.get_output().stderr).contains("PIN"));
}

#[test]
fn materials_list_has_the_library() {
    let dir = tempfile::tempdir().unwrap();
    let out = deskmate(dir.path())
        .args(["materials", "list", "--json"])
        .assert()
        .success();
    let list = json(&out.get_output().stdout);
    let list = list.as_array().unwrap();
    let zh = list.iter().filter(|m| m["lang"] == "zh").count();
    let en = list.iter().filter(|m| m["lang"] == "en").count();
    assert!(zh >= 60 && en >= 20, "{zh} poems, {en} English texts");
    for m in list {
        for key in ["id", "title", "author", "lang", "grade", "body"] {
            assert!(m.get(key).is_some(), "material without {key}: {m}");
        }
    }
    let jys = list.iter().find(|m| m["title"] == "静夜思").unwrap();
    assert_eq!(jys["author"], "李白");
    let out = deskmate(dir.path())
        .args([
            "materials",
            "list",
            "--lang",
            "zh",
            "--grade",
            "1",
            "--json",
        ])
        .assert()
        .success();
    let g1 = json(&out.get_output().stdout);
    assert!(g1
        .as_array()
        .unwrap()
        .iter()
        .all(|m| m["lang"] == "zh" && m["grade"] == 1));
    assert!(!g1.as_array().unwrap().is_empty());
}

#[test]
fn materials_add_and_bad_bodies() {
    let dir = tempfile::tempdir().unwrap();
    let body = dir.path().join("body.txt");
    std::fs::write(&body, "春天来了，\n小草绿了。").unwrap();
    let out = deskmate(dir.path())
        .args([
            "materials",
            "add",
            "--title",
            "春天",
            "--lang",
            "zh",
            "--json",
            "--body-file",
        ])
        .arg(&body)
        .assert()
        .success();
    assert_eq!(json(&out.get_output().stdout)["source"], "custom");

    std::fs::write(&body, "  \n ").unwrap();
    let out = deskmate(dir.path())
        .args([
            "materials",
            "add",
            "--title",
            "空",
            "--lang",
            "zh",
            "--body-file",
        ])
        .arg(&body)
        .assert()
        .failure();
    assert!(String::from_utf8_lossy(&out.get_output().stderr).contains("empty"));

    std::fs::write(&body, "字".repeat(1_000_000)).unwrap();
    let out = deskmate(dir.path())
        .args([
            "materials",
            "add",
            "--title",
            "大",
            "--lang",
            "zh",
            "--body-file",
        ])
        .arg(&body)
        .assert()
        .failure();
    assert!(String::from_utf8_lossy(&out.get_output().stderr).contains("too long"));

    let out = deskmate(dir.path())
        .args(["materials", "list", "--search", "春天", "--json"])
        .assert()
        .success();
    assert_eq!(json(&out.get_output().stdout).as_array().unwrap().len(), 1);
}

#[test]
fn unusable_data_dir_is_explained() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    let out = deskmate(&file.join("deskmate"))
        .args(["profiles", "list"])
        .assert()
        .failure();
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(err.contains("cannot use the data directory"), "{err}");
}

#[test]
fn newer_database_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    deskmate(dir.path())
        .args(["profiles", "list"])
        .assert()
        .success();
    let db = dir.path().join("deskmate.sqlite3");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.pragma_update(None, "user_version", 999).unwrap();
    drop(conn);
    let out = deskmate(dir.path())
        .args(["profiles", "list"])
        .assert()
        .failure();
    assert!(String::from_utf8_lossy(&out.get_output().stderr).contains("newer Deskmate"));
}

#[test]
fn doctor_explains_every_check() {
    let dir = tempfile::tempdir().unwrap();
    let out = deskmate(dir.path())
        .env("DESKMATE_MODELS_DIR", dir.path().join("none"))
        .args(["doctor"])
        .assert()
        .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    for name in [
        "data",
        "audio input",
        "audio output",
        "keyring",
        "serial",
        "llm",
    ] {
        assert!(
            text.lines().any(|l| l.contains(name)),
            "no line for {name}:\n{text}"
        );
    }
    for line in text
        .lines()
        .filter(|l| l.starts_with("warn") || l.starts_with("FAIL"))
    {
        assert!(line.contains("fix:"), "no fix on: {line}");
    }
    let out = deskmate(dir.path())
        .args(["doctor", "--json"])
        .assert()
        .success();
    assert!(json(&out.get_output().stdout).as_array().unwrap().len() >= 6);
}

/// Runs `deskmate doctor` (models looked for where there are none) and
/// returns its exit success and stdout.
fn doctor(mut cmd: Command, dir: &std::path::Path) -> (bool, String) {
    let out = cmd
        .env("DESKMATE_MODELS_DIR", dir.join("no-models"))
        .arg("doctor")
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).to_string(),
    )
}

/// The doctor still runs every check, and the data line is a FAIL with a fix
/// containing `fix_hint`.
fn assert_data_fails_and_the_rest_run(ok: bool, text: &str, fix_hint: &str) {
    assert!(!ok, "a failed data check must make doctor fail:\n{text}");
    let data = text
        .lines()
        .find(|l| l.contains(" data "))
        .unwrap_or_else(|| panic!("no data line:\n{text}"));
    assert!(data.starts_with("FAIL"), "{data}");
    assert!(data.contains("fix:") && data.contains(fix_hint), "{data}");
    for name in ["audio input", "audio output", "keyring", "serial", "llm"] {
        assert!(
            text.lines().any(|l| l.contains(name)),
            "no line for {name}:\n{text}"
        );
    }
}

#[test]
fn doctor_runs_every_check_with_a_newer_database() {
    let dir = tempfile::tempdir().unwrap();
    deskmate(dir.path())
        .args(["profiles", "list"])
        .assert()
        .success();
    let db = dir.path().join("deskmate.sqlite3");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.pragma_update(None, "user_version", 999).unwrap();
    drop(conn);
    let before = std::fs::read(&db).unwrap();

    let (ok, text) = doctor(deskmate(dir.path()), dir.path());
    assert_data_fails_and_the_rest_run(ok, &text, "update Deskmate");
    assert!(text.contains("newer Deskmate"), "{text}");
    assert_eq!(
        std::fs::read(&db).unwrap(),
        before,
        "doctor changed the refused database"
    );

    let out = deskmate(dir.path())
        .args(["doctor", "--json"])
        .assert()
        .failure();
    let checks = json(&out.get_output().stdout);
    assert_eq!(checks[0]["name"], "data");
    assert_eq!(checks[0]["status"], "fail");
    assert!(checks.as_array().unwrap().len() >= 6);
}

#[test]
fn doctor_runs_every_check_when_the_data_dir_cannot_be_made() {
    // The data directory's parent is a regular file: no user, root included, can create it.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    let (ok, text) = doctor(deskmate(&file.join("deskmate")), dir.path());
    assert_data_fails_and_the_rest_run(ok, &text, "--data-dir");
    assert!(text.contains("cannot use the data directory"), "{text}");
}

/// True when this process runs as root, which `chmod` does not stop.
fn running_as_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    let probe = tempfile::NamedTempFile::new().unwrap();
    probe.as_file().metadata().unwrap().uid() == 0
}

#[test]
fn doctor_runs_every_check_with_a_read_only_data_dir() {
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::CommandExt;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    deskmate(&dir)
        .args(["profiles", "add", "--name", "小明", "--kind", "child"])
        .assert()
        .success();
    let db = dir.join("deskmate.sqlite3");
    let before = std::fs::read(&db).unwrap();

    // A real read-only directory holding a real database. Root ignores the
    // mode bits (CI runs as root), so as root the doctor runs as the
    // unprivileged user `nobody` (uid/gid 65534), for whom they hold.
    std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o555)).unwrap();
    let as_root = running_as_root();
    let command = || {
        let mut std_cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("deskmate"));
        std_cmd
            .arg("--data-dir")
            .arg(&dir)
            .env_remove("DESKMATE_DATA_DIR");
        if as_root {
            std_cmd.uid(65534).gid(65534);
        }
        Command::from_std(std_cmd)
    };
    if as_root {
        // `nobody` must be able to run the binary at all (every folder above it searchable).
        match command().arg("--version").output() {
            Ok(o) if o.status.success() => {}
            other => {
                eprintln!("SKIPPED: running as root, and the deskmate binary cannot run as uid 65534: {other:?}");
                return;
            }
        }
    }
    let (ok, text) = doctor(command(), tmp.path());
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_data_fails_and_the_rest_run(ok, &text, "chmod u+w");
    assert!(text.contains("not writable"), "{text}");
    assert_eq!(
        std::fs::read(&db).unwrap(),
        before,
        "doctor changed the database in a read-only folder"
    );
}

#[test]
fn help_lists_the_commands() {
    let out = Command::cargo_bin("deskmate")
        .unwrap()
        .arg("--help")
        .assert()
        .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    for cmd in ["profiles", "materials", "doctor"] {
        assert!(text.contains(cmd));
    }
}

#[test]
fn a_closed_pipe_ends_quietly() {
    use std::io::Read;
    use std::process::{Command as Std, Stdio};
    let dir = tempfile::tempdir().unwrap();
    let mut child = Std::new(assert_cmd::cargo::cargo_bin("deskmate"))
        .args(["--data-dir"])
        .arg(dir.path())
        .args(["materials", "list", "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take()); // the reader goes away at once
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    child.wait().unwrap();
    assert!(!err.contains("panicked"), "{err}");
}
