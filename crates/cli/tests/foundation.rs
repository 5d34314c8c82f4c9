//! The foundation's CLI contract: profiles, materials and doctor, plus the
//! bad-input cases, each run through the real `deskmate` binary.

use assert_cmd::Command;
use serde_json::Value;

fn deskmate(dir: &std::path::Path) -> Command {
    let mut c = Command::cargo_bin("deskmate").unwrap();
    c.arg("--data-dir").arg(dir).env_remove("DESKMATE_DATA_DIR");
    c
}

fn json(out: &[u8]) -> Value {
    serde_json::from_slice(out).unwrap()
}

#[test]
fn profiles_add_and_list() {
    let dir = tempfile::tempdir().unwrap();
    let out = deskmate(dir.path())
        .args(["profiles", "add", "--name", "妈妈", "--kind", "parent", "--pin", "2468", "--json"])
        .assert()
        .success();
    let parent = json(&out.get_output().stdout);
    assert_eq!(parent["kind"], "parent");
    assert!(parent["id"].as_str().is_some_and(|id| id.len() == 36));
    assert!(parent.get("pin_hash").is_none() && parent.get("pin").is_none());
    deskmate(dir.path())
        .args(["profiles", "add", "--name", "小明", "--kind", "child", "--grade", "2", "--json"])
        .assert()
        .success();
    let out = deskmate(dir.path()).args(["profiles", "list", "--json"]).assert().success();
    let list = json(&out.get_output().stdout);
    let names: Vec<&str> = list.as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["妈妈", "小明"]);
}

#[test]
fn duplicate_name_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    deskmate(dir.path()).args(["profiles", "add", "--name", "Lily", "--kind", "child"]).assert().success();
    let out = deskmate(dir.path()).args(["profiles", "add", "--name", "lily", "--kind", "child"]).assert().failure();
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(err.contains("already exists"), "{err}");
}

#[test]
fn parent_needs_a_pin() {
    let dir = tempfile::tempdir().unwrap();
    let out = deskmate(dir.path()).args(["profiles", "add", "--name", "Dad", "--kind", "parent"]).assert().failure();
    assert!(String::from_utf8_lossy(&out.get_output().stderr).contains("PIN"));
}

#[test]
fn materials_list_has_the_library() {
    let dir = tempfile::tempdir().unwrap();
    let out = deskmate(dir.path()).args(["materials", "list", "--json"]).assert().success();
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
    let out = deskmate(dir.path()).args(["materials", "list", "--lang", "zh", "--grade", "1", "--json"]).assert().success();
    let g1 = json(&out.get_output().stdout);
    assert!(g1.as_array().unwrap().iter().all(|m| m["lang"] == "zh" && m["grade"] == 1));
    assert!(!g1.as_array().unwrap().is_empty());
}

#[test]
fn materials_add_and_bad_bodies() {
    let dir = tempfile::tempdir().unwrap();
    let body = dir.path().join("body.txt");
    std::fs::write(&body, "春天来了，\n小草绿了。").unwrap();
    let out = deskmate(dir.path())
        .args(["materials", "add", "--title", "春天", "--lang", "zh", "--json", "--body-file"])
        .arg(&body)
        .assert()
        .success();
    assert_eq!(json(&out.get_output().stdout)["source"], "custom");

    std::fs::write(&body, "  \n ").unwrap();
    let out = deskmate(dir.path()).args(["materials", "add", "--title", "空", "--lang", "zh", "--body-file"]).arg(&body).assert().failure();
    assert!(String::from_utf8_lossy(&out.get_output().stderr).contains("empty"));

    std::fs::write(&body, "字".repeat(1_000_000)).unwrap();
    let out = deskmate(dir.path()).args(["materials", "add", "--title", "大", "--lang", "zh", "--body-file"]).arg(&body).assert().failure();
    assert!(String::from_utf8_lossy(&out.get_output().stderr).contains("too long"));

    let out = deskmate(dir.path()).args(["materials", "list", "--search", "春天", "--json"]).assert().success();
    assert_eq!(json(&out.get_output().stdout).as_array().unwrap().len(), 1);
}

#[test]
fn unusable_data_dir_is_explained() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    let out = deskmate(&file.join("deskmate")).args(["profiles", "list"]).assert().failure();
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(err.contains("cannot use the data directory"), "{err}");
}

#[test]
fn newer_database_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    deskmate(dir.path()).args(["profiles", "list"]).assert().success();
    let db = dir.path().join("deskmate.sqlite3");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.pragma_update(None, "user_version", 999).unwrap();
    drop(conn);
    let out = deskmate(dir.path()).args(["profiles", "list"]).assert().failure();
    assert!(String::from_utf8_lossy(&out.get_output().stderr).contains("newer Deskmate"));
}

#[test]
fn doctor_explains_every_check() {
    let dir = tempfile::tempdir().unwrap();
    let out = deskmate(dir.path()).env("DESKMATE_MODELS_DIR", dir.path().join("none")).args(["doctor"]).assert().success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    for name in ["data", "audio input", "audio output", "keyring", "serial", "llm"] {
        assert!(text.lines().any(|l| l.contains(name)), "no line for {name}:\n{text}");
    }
    for line in text.lines().filter(|l| l.starts_with("warn") || l.starts_with("FAIL")) {
        assert!(line.contains("fix:"), "no fix on: {line}");
    }
    let out = deskmate(dir.path()).args(["doctor", "--json"]).assert().success();
    assert!(json(&out.get_output().stdout).as_array().unwrap().len() >= 6);
}

#[test]
fn help_lists_the_commands() {
    let out = Command::cargo_bin("deskmate").unwrap().arg("--help").assert().success();
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
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    child.wait().unwrap();
    assert!(!err.contains("panicked"), "{err}");
}
