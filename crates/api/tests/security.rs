//! The API's guard over a real socket: a wrong or missing token, a foreign
//! `Host`, an oversized or malformed body and an unknown thread are each
//! answered with their documented status and `{code, message}`, and none of
//! them stores anything. Also: every route the OpenAPI document lists is
//! served, and the core's event stream arrives as server-sent events. Requests are written by hand (HTTP/1.1 on a
//! `TcpStream`), so the headers are exactly the ones under test. The
//! module [`agui`] pauses and resumes an AG-UI run; [`schemas`] validates real answers against the document's
//! schemas; [`uploads`] does the same as this file for forms with recordings, recitation
//! tasks and `multitask_strategy: enqueue`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use deskmate_app::chat::agent::persist;
use deskmate_app::{Config, Deskmate};
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

#[path = "security/agui.rs"]
mod agui;
#[path = "security/schemas.rs"]
mod schemas;
#[path = "security/uploads.rs"]
mod uploads;

const TOKEN: &str = "test-token-0123456789";

struct Server {
    app: Deskmate,
    addr: std::net::SocketAddr,
    _dir: tempfile::TempDir,
}

async fn server() -> Server {
    let dir = tempfile::tempdir().unwrap();
    let app = Deskmate::open(Config::in_dir(dir.path())).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let security = deskmate_api::Security::new(TOKEN, "127.0.0.1");
    tokio::spawn(deskmate_api::serve(app.clone(), listener, security));
    Server {
        app,
        addr,
        _dir: dir,
    }
}

/// Sends one request and returns the status and the body as JSON.
async fn send(
    addr: std::net::SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> (u16, Value) {
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let mut head = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        head.push_str(&format!("Host: {addr}\r\n"));
    }
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    if !body.is_empty() {
        head.push_str(&format!(
            "Content-Type: application/json\r\nContent-Length: {}\r\n",
            body.len()
        ));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).await.unwrap();
    // The server may answer (and close) before reading an oversized body.
    let _ = stream.write_all(body).await;
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw).await;
    let text = String::from_utf8_lossy(&raw).to_string();
    let status: u16 = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {text:?}"));
    let body = text.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    // A chunked body: the JSON sits between the chunk sizes.
    let json = body
        .find('{')
        .and_then(|start| body.rfind('}').map(|end| &body[start..=end]))
        .map_or(Value::Null, |s| {
            serde_json::from_str(s).unwrap_or(Value::Null)
        });
    (status, json)
}

fn threads(app: &Deskmate) -> usize {
    persist::list_threads(app.store(), None).unwrap().len()
}

#[tokio::test]
async fn health_needs_no_token_and_everything_else_does() {
    let s = server().await;
    let (status, body) = send(s.addr, "GET", "/ok", &[], b"").await;
    assert_eq!((status, body["ok"].as_bool()), (200, Some(true)));

    let (status, body) = send(s.addr, "POST", "/threads", &[], b"{}").await;
    assert_eq!(status, 401);
    assert_eq!(body["code"], "auth.missing");
    assert!(body["message"].as_str().unwrap().contains("--print-token"));

    let bearer_wrong = format!("Bearer {TOKEN}x");
    let (status, body) = send(
        s.addr,
        "POST",
        "/threads",
        &[("Authorization", &bearer_wrong)],
        b"{}",
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (401, Some("auth.wrong_token"))
    );
    let (status, body) = send(s.addr, "POST", "/threads", &[("x-api-key", "nope")], b"{}").await;
    assert_eq!(
        (status, body["code"].as_str()),
        (401, Some("auth.wrong_token"))
    );
    assert_eq!(threads(&s.app), 0, "a refused request stores nothing");

    // Both ways of sending the right token work.
    let bearer = format!("Bearer {TOKEN}");
    let (status, body) = send(
        s.addr,
        "POST",
        "/threads",
        &[("Authorization", &bearer)],
        b"{}",
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert!(body["thread_id"].as_str().is_some());
    let (status, _) = send(s.addr, "POST", "/threads", &[("x-api-key", TOKEN)], b"{}").await;
    assert_eq!(status, 200);
    assert_eq!(threads(&s.app), 2);
}

#[tokio::test]
async fn a_foreign_host_is_refused_even_with_the_token() {
    let s = server().await;
    for host in [
        "evil.example",
        "evil.example:8123",
        "127.0.0.1.evil.example",
    ] {
        let (status, body) = send(
            s.addr,
            "POST",
            "/threads",
            &[("Host", host), ("x-api-key", TOKEN)],
            b"{}",
        )
        .await;
        assert_eq!(status, 400, "{host}");
        assert_eq!(body["code"], "host.refused");
    }
    // The health route too: a rebinding page learns nothing.
    let (status, _) = send(s.addr, "GET", "/ok", &[("Host", "evil.example")], b"").await;
    assert_eq!(status, 400);
    let (status, _) = send(
        s.addr,
        "POST",
        "/threads",
        &[("Host", "localhost:8123"), ("x-api-key", TOKEN)],
        b"{}",
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(threads(&s.app), 1);
}

#[tokio::test]
async fn oversized_and_malformed_bodies_store_nothing() {
    let s = server().await;
    let big = format!(
        "{{\"metadata\": {{\"pad\": \"{}\"}}}}",
        "x".repeat(deskmate_api::MAX_BODY_BYTES + 10)
    );
    let (status, body) = send(
        s.addr,
        "POST",
        "/threads",
        &[("x-api-key", TOKEN)],
        big.as_bytes(),
    )
    .await;
    assert_eq!(status, 413);
    assert_eq!(body["code"], "body.too_large");
    let (status, body) = send(
        s.addr,
        "POST",
        "/threads",
        &[("x-api-key", TOKEN)],
        b"{\"metadata\": ",
    )
    .await;
    assert_eq!(status, 400);
    assert_eq!(body["code"], "body.malformed");
    let (status, body) = send(
        s.addr,
        "POST",
        "/threads",
        &[("x-api-key", TOKEN)],
        b"{\"metadata\": 3}",
    )
    .await;
    assert_eq!(status, 422);
    assert_eq!(body["code"], "invalid");
    assert_eq!(threads(&s.app), 0);
}

#[tokio::test]
async fn an_unknown_thread_is_404_and_a_run_on_it_stores_nothing() {
    let s = server().await;
    let id = "0190f0f0-0000-7000-8000-000000000000";
    for (method, path) in [
        ("GET", format!("/threads/{id}")),
        ("GET", format!("/threads/{id}/state")),
        ("DELETE", format!("/threads/{id}")),
    ] {
        let (status, body) = send(s.addr, method, &path, &[("x-api-key", TOKEN)], b"").await;
        assert_eq!(status, 404, "{method} {path}: {body}");
        assert_eq!(body["code"], "not_found");
        assert!(body["message"].as_str().unwrap().contains(id));
    }
    let run = br#"{"assistant_id": "companion", "input": {"messages": [{"role": "user", "content": "hi"}]}}"#;
    let (status, body) = send(
        s.addr,
        "POST",
        &format!("/threads/{id}/runs/stream"),
        &[("x-api-key", TOKEN)],
        run,
    )
    .await;
    assert_eq!((status, body["code"].as_str()), (404, Some("not_found")));
    let (status, body) = send(
        s.addr,
        "GET",
        "/no/such/route",
        &[("x-api-key", TOKEN)],
        b"",
    )
    .await;
    assert_eq!((status, body["code"].as_str()), (404, Some("not_found")));
    // A known path with another method: 405 in the same shape.
    let (status, body) = send(s.addr, "PUT", "/threads", &[("x-api-key", TOKEN)], b"").await;
    assert_eq!(
        (status, body["code"].as_str()),
        (405, Some("method_not_allowed")),
        "{body}"
    );
    assert!(body["message"].as_str().unwrap().contains("PUT"), "{body}");
    assert_eq!(threads(&s.app), 0);
    let runs: i64 = s
        .app
        .store()
        .with_conn(|c| Ok(c.query_row("SELECT count(*) FROM runs", [], |r| r.get(0))?))
        .unwrap();
    assert_eq!(runs, 0);
}

#[tokio::test]
async fn every_route_in_the_openapi_document_is_served() {
    let s = server().await;
    let (status, doc) = send(s.addr, "GET", "/openapi.json", &[("x-api-key", TOKEN)], b"").await;
    assert_eq!(status, 200);
    assert_eq!(doc["openapi"], "3.1.0");
    let paths = doc["paths"].as_object().unwrap();
    assert_eq!(
        paths
            .values()
            .map(|p| p.as_object().unwrap().len())
            .sum::<usize>(),
        deskmate_api::openapi::ROUTES.len()
    );
    let id = "0190f0f0-0000-7000-8000-000000000000";
    for route in deskmate_api::openapi::ROUTES {
        let (method, path) = (&route.method, &route.path);
        if *path == "/events" {
            // An endless stream: its own test below reads it.
            continue;
        }
        let concrete = path
            .replace("{thread_id}", id)
            .replace("{run_id}", id)
            .replace("{assistant_id}", id)
            .replace("{task_id}", id)
            .replace("{name}", "evening");
        let body: &[u8] = if matches!(*method, "post" | "put" | "patch") {
            b"{}"
        } else {
            b""
        };
        let (status, answer) = send(
            s.addr,
            &method.to_uppercase(),
            &concrete,
            &[("x-api-key", TOKEN)],
            body,
        )
        .await;
        // Routed: whatever it answers, it is not the fallback's "no route".
        let unrouted = status == 404
            && answer["message"]
                .as_str()
                .is_some_and(|m| m.starts_with("no route"));
        assert!(
            !unrouted,
            "{method} {path} is in the document but not served"
        );
        assert_ne!(status, 405, "{method} {path}: the method is not served");
    }
    // Nothing was stored by that round (an empty thread at most).
    assert!(threads(&s.app) <= 1);
}

#[tokio::test]
async fn the_cores_events_arrive_as_server_sent_events() {
    let s = server().await;
    let mut stream = tokio::net::TcpStream::connect(s.addr).await.unwrap();
    let head = format!(
        "GET /events HTTP/1.1\r\nHost: {}\r\nx-api-key: {TOKEN}\r\n\r\n",
        s.addr
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    // The response's head, so the subscription is in place before anything happens.
    let mut seen = String::new();
    let mut buf = [0u8; 4096];
    while !seen.contains("\r\n\r\n") {
        let n = stream.read(&mut buf).await.unwrap();
        assert!(n > 0, "the stream closed: {seen}");
        seen.push_str(&String::from_utf8_lossy(&buf[..n]));
    }
    assert!(seen.starts_with("HTTP/1.1 200"), "{seen}");
    assert!(seen.contains("text/event-stream"), "{seen}");

    // A typed recitation in the practice scene: its task's progress is published.
    let (child, poem) = deskmate_testkit::family::child_with_jing_ye_si(s.app.store());
    let view = s
        .app
        .practice()
        .start(&child.id, &poem.id, deskmate_app::recite::Mode::Text)
        .unwrap();
    let task = s
        .app
        .practice()
        .submit_text(
            &view.id,
            "床前明月光，疑是地上霜。举头望明月，低头思故乡。".into(),
        )
        .unwrap();
    let done = tokio::time::timeout(std::time::Duration::from_secs(20), async {
        loop {
            if seen.contains("event: practice://task")
                && seen.contains(&task)
                && seen.contains("\"done\"")
            {
                return;
            }
            let n = stream.read(&mut buf).await.unwrap();
            assert!(n > 0, "the stream closed: {seen}");
            seen.push_str(&String::from_utf8_lossy(&buf[..n]));
        }
    })
    .await;
    assert!(done.is_ok(), "no finished task event within 20 s: {seen}");
}
