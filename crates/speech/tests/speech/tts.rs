//! Text-to-speech: espeak-ng for real, the OpenAI-compatible wire format
//! against a local HTTP server, and the (voice, text) cache.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use deskmate_speech::audio::playback::VoiceClip;
use deskmate_speech::tts::{CachedSynthesizer, EspeakNg, OpenAiSpeech, Synthesizer, TtsError};

#[test]
fn espeak_speaks_english_and_longer_text_takes_longer() {
    let tts = EspeakNg::default();
    let short = tts.synthesize("en-us", "Well done!").unwrap();
    let long = tts
        .synthesize(
            "en-us",
            "Twinkle, twinkle, little star, how I wonder what you are.",
        )
        .unwrap();
    assert!(short.sample_rate > 8_000);
    assert!(
        (0.3..3.0).contains(&short.duration_s()),
        "{} s",
        short.duration_s()
    );
    assert!(long.duration_s() > short.duration_s() * 2.0);
    assert!(short.samples.iter().any(|s| s.abs() > 0.05), "silent clip");
    assert!(matches!(
        tts.synthesize("en-us", "  "),
        Err(TtsError::EmptyText)
    ));
}

/// Counts calls to a real backend, to see the cache work.
struct Counted<S: Synthesizer>(S, Arc<AtomicUsize>);

impl<S: Synthesizer> Synthesizer for Counted<S> {
    fn name(&self) -> String {
        self.0.name()
    }
    fn synthesize(&self, voice: &str, text: &str) -> Result<VoiceClip, TtsError> {
        self.1.fetch_add(1, Ordering::SeqCst);
        self.0.synthesize(voice, text)
    }
}

#[test]
fn clips_are_cached_by_voice_and_text() {
    let dir = tempfile::tempdir().unwrap();
    let calls = Arc::new(AtomicUsize::new(0));
    let tts = CachedSynthesizer::new(Counted(EspeakNg::default(), calls.clone()), dir.path());
    let a = tts.synthesize("en-us", "Good morning").unwrap();
    let b = tts.synthesize("en-us", "Good morning").unwrap();
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    assert_eq!(a.samples.len(), b.samples.len());
    tts.synthesize("en-gb", "Good morning").unwrap();
    tts.synthesize("en-us", "Good night").unwrap();
    assert_eq!(calls.load(Ordering::SeqCst), 3);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 3);
}

/// A one-request HTTP server answering like `/v1/audio/speech`; returns what it received.
fn serve_once(
    status: &'static str,
    body: Vec<u8>,
) -> (String, std::thread::JoinHandle<(String, String)>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let handle = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let mut head = String::new();
        let mut len = 0usize;
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            if line.to_ascii_lowercase().starts_with("content-length:") {
                len = line[15..].trim().parse().unwrap();
            }
            if line == "\r\n" {
                break;
            }
            head.push_str(&line);
        }
        let mut req = vec![0u8; len];
        reader.read_exact(&mut req).unwrap();
        let reply = format!("HTTP/1.1 {status}\r\nContent-Type: audio/wav\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", body.len());
        stream.write_all(reply.as_bytes()).unwrap();
        stream.write_all(&body).unwrap();
        (head, String::from_utf8(req).unwrap())
    });
    (url, handle)
}

fn wav_bytes() -> Vec<u8> {
    let mut cursor = std::io::Cursor::new(Vec::new());
    let spec = hound::WavSpec {
        channels: 1,
        sample_rate: 24_000,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    };
    let mut w = hound::WavWriter::new(&mut cursor, spec).unwrap();
    for i in 0..24_000 {
        w.write_sample(((i as f32 * 0.05).sin() * 8000.0) as i16)
            .unwrap();
    }
    w.finalize().unwrap();
    cursor.into_inner()
}

#[test]
fn openai_compatible_backend_speaks_the_wire_format() {
    let (url, server) = serve_once("200 OK", wav_bytes());
    let tts = OpenAiSpeech {
        base_url: url,
        api_key: Some("sk-test".into()),
        model: "tts-1".into(),
        timeout: std::time::Duration::from_secs(30),
    };
    let clip = tts.synthesize("alloy", "你真棒！").unwrap();
    assert_eq!(clip.sample_rate, 24_000);
    assert_eq!(clip.samples.len(), 24_000);
    let (head, body) = server.join().unwrap();
    assert!(head.starts_with("POST /v1/audio/speech "), "{head}");
    assert!(
        head.to_ascii_lowercase()
            .contains("authorization: bearer sk-test"),
        "{head}"
    );
    let json: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(json["input"], "你真棒！");
    assert_eq!(json["voice"], "alloy");
    assert_eq!(json["response_format"], "wav");

    let (url, server) = serve_once("401 Unauthorized", b"{\"error\":\"bad key\"}".to_vec());
    let tts = OpenAiSpeech {
        base_url: url,
        api_key: None,
        model: "tts-1".into(),
        timeout: std::time::Duration::from_secs(30),
    };
    let e = tts.synthesize("alloy", "hello").unwrap_err();
    assert!(matches!(e, TtsError::Service { status: 401, .. }), "{e}");
    server.join().unwrap();
}

#[test]
fn a_service_that_never_answers_fails_within_its_timeout() {
    // Accepts the connection, reads nothing, answers nothing.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let _held = std::thread::spawn(move || {
        let conn = listener.accept();
        std::thread::sleep(std::time::Duration::from_secs(10));
        drop(conn);
    });
    let tts = OpenAiSpeech {
        base_url: url,
        api_key: None,
        model: "tts-1".into(),
        timeout: std::time::Duration::from_millis(500),
    };
    let started = std::time::Instant::now();
    let e = tts.synthesize("alloy", "hello").unwrap_err();
    assert!(
        started.elapsed() < std::time::Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert!(matches!(e, TtsError::Failed(_)), "{e:?}");
}
