//! `deskmate serve`: the token clients send is made once in the data
//! directory (mode 0600) and printed by `--print-token`;
//! `DESKMATE_API_TOKEN` overrides it; the server answers its health route
//! without one and refuses a request without it. (The routes themselves
//! are tested in `crates/api` and, with the official client, `tests/api`.)

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead, Read, Write};

use deskmate_testkit::cli::deskmate;

fn printed_token(dir: &std::path::Path) -> String {
    let out = deskmate(dir)
        .env_remove("DESKMATE_API_TOKEN")
        .args(["serve", "--print-token"])
        .assert()
        .success();
    String::from_utf8_lossy(&out.get_output().stdout)
        .trim()
        .to_string()
}

#[test]
fn the_token_is_made_once_private_and_overridable() {
    let dir = tempfile::tempdir().unwrap();
    let token = printed_token(dir.path());
    assert_eq!(token.len(), 64, "{token}");
    assert!(token.chars().all(|c| c.is_ascii_hexdigit()));
    assert_eq!(printed_token(dir.path()), token, "the same token next time");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(dir.path().join("api-token"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let out = deskmate(dir.path())
        .env("DESKMATE_API_TOKEN", "from-the-environment")
        .args(["serve", "--print-token"])
        .assert()
        .success();
    assert_eq!(
        String::from_utf8_lossy(&out.get_output().stdout).trim(),
        "from-the-environment"
    );
}

/// One plain HTTP/1.1 request; the status code.
fn status_of(addr: &str, path: &str, headers: &str) -> u16 {
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n{headers}\r\n"
    )
    .unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    text.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[test]
fn the_server_answers_health_and_wants_the_token_elsewhere() {
    let dir = tempfile::tempdir().unwrap();
    let token = printed_token(dir.path());
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("deskmate"))
        .arg("--data-dir")
        .arg(dir.path())
        .env_remove("DESKMATE_API_TOKEN")
        .args(["serve", "--port", "0"])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_string();
    assert!(
        addr.starts_with("127.0.0.1:"),
        "loopback by default: {addr}"
    );
    let health = status_of(&addr, "/ok", "");
    let refused = status_of(&addr, "/threads/x", "");
    let allowed = status_of(&addr, "/threads/x", &format!("x-api-key: {token}\r\n"));
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!((health, refused, allowed), (200, 401, 404));
}
