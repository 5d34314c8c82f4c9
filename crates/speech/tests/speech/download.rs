//! The official-model download route against a local HTTP server that
//! honours Range requests: an interrupted download resumes from its
//! `.partial` file, the result is checked against the published SHA-1, and a
//! wrong file is deleted rather than kept.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;

use deskmate_speech::models::download::download;
use deskmate_speech::models::{DownloadEntry, ModelError};
use sha1::{Digest, Sha1};

/// Serves `body` to each request; the first answer is cut after `cut` bytes.
fn server(
    body: Vec<u8>,
    cut: usize,
    requests: usize,
) -> (String, std::thread::JoinHandle<Vec<String>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/ggml-test.bin", listener.local_addr().unwrap());
    let handle = std::thread::spawn(move || {
        let mut ranges = Vec::new();
        for n in 0..requests {
            let (mut stream, _) = listener.accept().unwrap();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut from = 0usize;
            loop {
                let mut line = String::new();
                reader.read_line(&mut line).unwrap();
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("range: bytes=") {
                    from = v.trim().trim_end_matches('-').parse().unwrap();
                    ranges.push(line.trim().to_ascii_lowercase());
                }
                if line == "\r\n" || line.is_empty() {
                    break;
                }
            }
            let part = &body[from..];
            let status = if from > 0 {
                "206 Partial Content"
            } else {
                "200 OK"
            };
            let head = format!(
                "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                part.len()
            );
            stream.write_all(head.as_bytes()).unwrap();
            let send = if n == 0 {
                &part[..cut.min(part.len())]
            } else {
                part
            };
            let _ = stream.write_all(send);
        }
        ranges
    });
    (url, handle)
}

fn entry(url: String, sha1: String) -> DownloadEntry {
    DownloadEntry {
        name: "whisper-test".into(),
        purpose: "test".into(),
        url,
        path: "official/ggml-test.bin".into(),
        sha1: Some(sha1),
        sha256: None,
    }
}

#[test]
fn an_interrupted_download_resumes_and_is_verified() {
    let body: Vec<u8> = (0..3_000_000u32).map(|i| (i % 251) as u8).collect();
    let sha1 = hex::encode(Sha1::digest(&body));
    let dir = tempfile::tempdir().unwrap();
    let (url, server) = server(body.clone(), 1_000_000, 2);
    let e = entry(url, sha1);
    let first = download(&e, dir.path(), &mut |_| {}).unwrap_err();
    assert!(matches!(first, ModelError::Download(_)), "{first}");
    let partial = dir.path().join("official/ggml-test.bin.partial");
    let kept = std::fs::metadata(&partial).unwrap().len();
    assert!(kept > 0 && kept < body.len() as u64, "{kept}");
    let mut seen = Vec::new();
    let path = download(&e, dir.path(), &mut |p| seen.push(p)).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), body);
    assert!(!partial.exists());
    let ranges = server.join().unwrap();
    assert_eq!(ranges, vec![format!("range: bytes={kept}-")]);
    assert_eq!(seen.first().unwrap().resumed_from, kept);
    assert_eq!(seen.last().unwrap().done_bytes, body.len() as u64);
    // Already there and correct: nothing is fetched (no server is running now).
    assert_eq!(download(&e, dir.path(), &mut |_| {}).unwrap(), path);
}

#[test]
fn a_file_with_the_wrong_digest_is_deleted() {
    let body = vec![7u8; 100_000];
    let dir = tempfile::tempdir().unwrap();
    let (url, server) = server(body, usize::MAX, 1);
    let e = entry(url, "0".repeat(40));
    let err = download(&e, dir.path(), &mut |_| {}).unwrap_err();
    assert!(matches!(err, ModelError::Checksum { .. }), "{err}");
    assert!(!dir.path().join("official/ggml-test.bin").exists());
    assert!(!dir.path().join("official/ggml-test.bin.partial").exists());
    server.join().unwrap();
}
