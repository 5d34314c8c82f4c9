//! Killing a process mid-write leaves a database that opens cleanly and
//! keeps every committed row. The test re-runs its own binary as the writer
//! and SIGKILLs it while it is inserting.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use deskmate_store::{NewProfile, Store};

const WRITER_ENV: &str = "DESKMATE_CRASH_WRITER_DB";

/// The writer half: runs only when the parent test sets the env var.
#[test]
fn crash_writer() {
    let Some(path) = std::env::var_os(WRITER_ENV) else {
        return;
    };
    let store = Store::open(std::path::Path::new(&path)).unwrap();
    for i in 0.. {
        store
            .profiles()
            .add(NewProfile {
                name: format!("child {i}"),
                ..Default::default()
            })
            .unwrap();
        // Report each committed row so the parent knows what must survive.
        println!("committed {i}");
    }
}

/// `crash::crash_writer`, as the test harness names it.
fn writer_test_name() -> String {
    let module = module_path!().split_once("::").map_or("", |(_, m)| m);
    format!("{module}::crash_writer")
}

#[test]
fn killed_mid_write_keeps_committed_rows() {
    if std::env::var_os(WRITER_ENV).is_some() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("deskmate.sqlite3");
    let mut child = Command::new(std::env::current_exe().unwrap())
        // The writer's name in this binary: its module path without the crate.
        .args([
            "--exact",
            &writer_test_name(),
            "--nocapture",
            "--test-threads=1",
        ])
        .env(WRITER_ENV, &db)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut committed = 0;
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    while let Some(Ok(line)) = lines.next() {
        if let Some(n) = line.strip_prefix("committed ") {
            committed = n.parse::<usize>().unwrap() + 1;
            if committed >= 200 {
                break;
            }
        }
    }
    child.kill().unwrap(); // SIGKILL on Unix: no destructors, no checkpoint
    child.wait().unwrap();
    assert!(
        committed >= 200,
        "writer stopped early after {committed} rows"
    );

    let store = Store::open(&db).unwrap();
    let ok: String = store
        .with_conn(|c| Ok(c.query_row("PRAGMA integrity_check", [], |r| r.get(0))?))
        .unwrap();
    assert_eq!(ok, "ok");
    let rows = store.profiles().list().unwrap().len();
    assert!(
        rows >= committed,
        "{rows} rows survived, {committed} were committed"
    );
}
