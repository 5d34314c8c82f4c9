//! `deskmate lamp` through the real binary: a `lamp simulate` process on a
//! pseudo-terminal, and the other lamp subcommands talking to it.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::Value;

const PATIENCE: Duration = Duration::from_secs(20);

use deskmate_testkit::cli::deskmate;

/// A long-running `deskmate` child whose stdout lines arrive on a channel;
/// killed when dropped.
struct Running {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
}

impl Running {
    fn start(dir: &Path, args: &[&str]) -> Self {
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("deskmate"))
            .arg("--data-dir")
            .arg(dir)
            .args(args)
            .env_remove("DESKMATE_DATA_DIR")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Self {
            child,
            stdin,
            lines: rx,
        }
    }

    fn line(&self) -> String {
        self.lines
            .recv_timeout(PATIENCE)
            .expect("a line of output in time")
    }

    fn type_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn simulate(dir: &Path, faults: &[&str]) -> (Running, PathBuf) {
    let link = dir.join("lamp0");
    let mut args = vec!["lamp", "simulate", "--link", link.to_str().unwrap()];
    for f in faults {
        args.extend(["--fault", f]);
    }
    let sim = Running::start(dir, &args);
    let path = sim.line();
    assert_eq!(Path::new(&path), link, "the first line is the port path");
    (sim, link)
}

fn status(dir: &Path, port: &Path) -> Value {
    let out = deskmate(dir)
        .args(["lamp", "status", "--json", "--port"])
        .arg(port)
        .assert()
        .success();
    serde_json::from_slice(&out.get_output().stdout).unwrap()
}

#[test]
fn commands_change_what_the_simulated_lamp_shows() {
    let dir = tempfile::tempdir().unwrap();
    let (_sim, port) = simulate(dir.path(), &[]);

    let before = status(dir.path(), &port);
    assert!(before["device"]["model"]
        .as_str()
        .unwrap()
        .contains("simulated"));
    assert_eq!(before["device"]["protocol"], 1);
    assert_eq!(before["state"]["connection"], "connected");
    assert_eq!(before["state"]["expression"], "sleep");
    assert_eq!(before["state"]["light"]["brightness"], 0);

    let p = port.to_str().unwrap();
    deskmate(dir.path())
        .args(["lamp", "--port", p, "light", "40", "--temp", "3000"])
        .assert()
        .success();
    deskmate(dir.path())
        .args(["lamp", "--port", p, "face", "happy"])
        .assert()
        .success();
    deskmate(dir.path())
        .args(["lamp", "--port", p, "gesture", "wave", "--speed", "1"])
        .assert()
        .success();
    deskmate(dir.path())
        .args([
            "lamp",
            "--port",
            p,
            "project",
            "--title",
            "咏鹅",
            "--line",
            "鹅，鹅，鹅，",
            "--line",
            "曲项向天歌。",
        ])
        .assert()
        .success();
    // Without --temp the lamp keeps its colour temperature.
    deskmate(dir.path())
        .args(["lamp", "light", "65", "--port", p])
        .assert()
        .success();

    let after = status(dir.path(), &port);
    let state = &after["state"];
    assert_eq!(state["light"]["brightness"], 65);
    assert_eq!(state["light"]["temperature_k"], 3000);
    assert_eq!(state["expression"], "happy");
    assert_eq!(state["arm"]["moving"]["gesture"], "wave");
    assert_eq!(state["projector"]["on"], true);
    assert_eq!(state["projector"]["card"]["title"], "咏鹅");
    assert_eq!(
        state["projector"]["card"]["lines"]
            .as_array()
            .unwrap()
            .len(),
        2
    );

    deskmate(dir.path())
        .args(["lamp", "--port", p, "project", "--off"])
        .assert()
        .success();
    assert_eq!(status(dir.path(), &port)["state"]["projector"]["on"], false);

    let human = deskmate(dir.path())
        .args(["lamp", "--port", p, "status"])
        .assert()
        .success();
    let text = String::from_utf8(human.get_output().stdout.clone()).unwrap();
    assert!(
        text.contains("65 % at 3000 K") && text.contains("face       happy"),
        "{text}"
    );
}

#[test]
fn events_print_one_json_line_each_across_an_unplug() {
    let dir = tempfile::tempdir().unwrap();
    let (mut sim, port) = simulate(dir.path(), &[]);
    let events = Running::start(
        dir.path(),
        &[
            "lamp",
            "events",
            "--count",
            "3",
            "--port",
            port.to_str().unwrap(),
        ],
    );
    let first: Value = serde_json::from_str(&events.line()).unwrap();
    assert_eq!(first["kind"], "connection");
    assert_eq!(first["state"], "connected");

    sim.type_line("press start");
    sim.type_line("touch");
    let a: Value = serde_json::from_str(&events.line()).unwrap();
    let b: Value = serde_json::from_str(&events.line()).unwrap();
    assert_eq!(
        (a["kind"].as_str(), &a["event"]),
        (Some("event"), &serde_json::json!({"button": "start"}))
    );
    assert_eq!(b["event"], "touch");

    sim.type_line("unplug");
    let mut seen = Vec::new();
    loop {
        let line: Value = serde_json::from_str(&events.line()).unwrap();
        if line["kind"] == "connection" {
            seen.push(line["state"].as_str().unwrap().to_string());
            if seen.last().map(String::as_str) == Some("disconnected") {
                sim.type_line("replug");
            }
            if seen.last().map(String::as_str) == Some("connected") {
                break;
            }
        }
    }
    assert_eq!(seen.first().map(String::as_str), Some("disconnected"));
    sim.type_line("presence on");
    let c: Value = serde_json::from_str(&events.line()).unwrap();
    assert_eq!(c["event"], serde_json::json!({"presence": true}));

    let mut events = events;
    let status = events.child.wait().unwrap();
    assert!(status.success(), "events exits after --count 3 events");
}

#[test]
fn commands_succeed_through_dropped_and_garbled_frames() {
    let dir = tempfile::tempdir().unwrap();
    let (_sim, port) = simulate(dir.path(), &["drop", "crc"]);
    let p = port.to_str().unwrap();
    for face in ["thinking", "listening", "surprised"] {
        deskmate(dir.path())
            .args(["lamp", "--port", p, "face", face])
            .assert()
            .success();
    }
    assert_eq!(
        status(dir.path(), &port)["state"]["expression"],
        "surprised"
    );
}

#[test]
fn no_lamp_is_a_clear_error_with_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let absent = dir.path().join("absent");
    let out = deskmate(dir.path())
        .args(["lamp", "status", "--port"])
        .arg(&absent)
        .assert()
        .failure();
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(
        err.contains("absent") && err.contains("deskmate lamp simulate"),
        "{err}"
    );

    // This machine has no USB lamp: discovery says so, with the fix.
    let list = deskmate(dir.path())
        .args(["lamp", "list", "--json"])
        .assert()
        .success();
    let found: Value = serde_json::from_slice(&list.get_output().stdout).unwrap();
    if found.as_array().is_some_and(|a| a.is_empty()) {
        let out = deskmate(dir.path())
            .args(["lamp", "face", "happy"])
            .assert()
            .failure();
        let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
        assert!(
            err.contains("no lamp found") && err.contains("--port PATH"),
            "{err}"
        );
    }
}

#[test]
fn bad_values_are_refused_before_anything_is_sent() {
    let dir = tempfile::tempdir().unwrap();
    let absent = dir.path().join("absent");
    let out = deskmate(dir.path())
        .args(["lamp", "light", "150", "--port"])
        .arg(&absent)
        .assert()
        .failure();
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(err.contains("brightness must be 0–100"), "{err}");
    let out = deskmate(dir.path())
        .args(["lamp", "face", "grumpy"])
        .assert()
        .failure();
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(err.contains("grumpy") && err.contains("happy"), "{err}");
    let out = deskmate(dir.path())
        .args(["lamp", "simulate", "--fault", "fire"])
        .assert()
        .failure();
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(err.contains("flap"), "{err}");
}

#[test]
fn the_simulator_goes_on_after_a_line_that_is_not_utf8() {
    let dir = tempfile::tempdir().unwrap();
    let (mut sim, port) = simulate(dir.path(), &[]);
    let events = Running::start(
        dir.path(),
        &[
            "lamp",
            "events",
            "--count",
            "1",
            "--port",
            port.to_str().unwrap(),
        ],
    );
    let first: Value = serde_json::from_str(&events.line()).unwrap();
    assert_eq!(first["state"], "connected");
    let stdin = sim.stdin.as_mut().unwrap();
    stdin.write_all(b"press \xff\xfe\n").unwrap();
    stdin.flush().unwrap();
    sim.type_line("press start");
    let event: Value = serde_json::from_str(&events.line()).unwrap();
    assert_eq!(event["event"], serde_json::json!({"button": "start"}));
}
