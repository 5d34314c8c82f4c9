//! The client against a real HTTP server on loopback replaying scripted
//! streams in both wire formats: text, split and parallel tool calls,
//! usage, retries, disconnects, malformed JSON, timeouts and key redaction.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::{Duration, Instant};

use deskmate_llm::scripted::{anthropic, openai, status, Frame, Reply, ScriptedServer};
use deskmate_llm::*;

const KEY: &str = "sk-test-0123456789abcdef";

fn client(server: &ScriptedServer, model: &str) -> LlmClient {
    let mut c = LlmConfig::new(ModelSpec::parse(model).unwrap());
    c.base_url = Some(server.base_url());
    c.api_key = Some(ApiKey::new(KEY).unwrap());
    c.retry = RetryPolicy {
        max_retries: 2,
        base_delay: Duration::from_millis(10),
        max_delay: Duration::from_millis(50),
        ..Default::default()
    };
    c.idle_timeout = Duration::from_millis(500);
    LlmClient::new(c).unwrap()
}

fn ask(text: &str) -> ChatRequest {
    ChatRequest {
        messages: vec![Message::user(text)],
        ..Default::default()
    }
}

#[tokio::test]
async fn openai_text_streams_with_usage_and_bearer_key() {
    let server = ScriptedServer::start(vec![openai::text("你好，小朋友！")]).unwrap();
    let c = client(&server, "openai:gpt-4o-mini");
    let mut s = c.stream(&ask("hi")).await.unwrap();
    let mut deltas = Vec::new();
    let mut usage = None;
    let mut finished = None;
    while let Some(ev) = s.next().await {
        match ev.unwrap() {
            StreamEvent::TextDelta(d) => deltas.push(d),
            StreamEvent::Usage(u) => usage = Some(u),
            StreamEvent::Finished { stop } => finished = Some(stop),
            other => panic!("unexpected {other:?}"),
        }
    }
    assert!(
        deltas.len() >= 3,
        "text should arrive in pieces: {deltas:?}"
    );
    assert_eq!(deltas.concat(), "你好，小朋友！");
    assert_eq!(
        usage,
        Some(Usage {
            input_tokens: 10,
            output_tokens: 5,
            cached_input_tokens: 0
        })
    );
    assert_eq!(finished, Some(StopReason::EndTurn));
    let reqs = server.requests();
    assert_eq!(reqs.len(), 1);
    assert_eq!(reqs[0].path, "/v1/chat/completions");
    assert_eq!(
        reqs[0].header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    assert_eq!(reqs[0].body["model"], "gpt-4o-mini");
    assert_eq!(reqs[0].body["stream"], true);
}

#[tokio::test]
async fn openai_parallel_tool_calls_split_across_chunks() {
    let reply = openai::tool_calls(
        Some("Let me check."),
        &[
            ("call_1", "ls", r#"{"path": "/notes"}"#),
            (
                "call_2",
                "read_file",
                r#"{"file_path": "/a.md", "limit": 5}"#,
            ),
        ],
    );
    let server = ScriptedServer::start(vec![reply]).unwrap();
    let done = client(&server, "openai:gpt-4o-mini")
        .complete(&ask("look"))
        .await
        .unwrap();
    assert_eq!(done.text, "Let me check.");
    assert_eq!(done.stop, StopReason::ToolUse);
    assert_eq!(
        done.tool_calls,
        vec![
            ToolCall {
                id: "call_1".into(),
                name: "ls".into(),
                arguments: r#"{"path": "/notes"}"#.into()
            },
            ToolCall {
                id: "call_2".into(),
                name: "read_file".into(),
                arguments: r#"{"file_path": "/a.md", "limit": 5}"#.into()
            },
        ]
    );
    assert_eq!(done.usage.input_tokens, 20);
}

#[tokio::test]
async fn anthropic_blocks_tool_use_and_headers() {
    let server = ScriptedServer::start(vec![
        anthropic::tool_calls(
            Some("好的"),
            &[
                ("toolu_1", "glob", r#"{"pattern": "**/*.md"}"#),
                ("toolu_2", "ls", "{}"),
            ],
        ),
        anthropic::text("All done."),
    ])
    .unwrap();
    let c = client(&server, "anthropic:claude-3-5-haiku-latest");
    let first = c.complete(&ask("find notes")).await.unwrap();
    assert_eq!(first.text, "好的");
    assert_eq!(first.tool_calls.len(), 2);
    assert_eq!(first.tool_calls[0].arguments, r#"{"pattern": "**/*.md"}"#);
    assert_eq!(first.tool_calls[1].name, "ls");
    assert_eq!(first.stop, StopReason::ToolUse);
    assert_eq!(first.usage.output_tokens, 10);
    let second = c.complete(&ask("thanks")).await.unwrap();
    assert_eq!(second.text, "All done.");
    let reqs = server.requests();
    assert_eq!(reqs[0].path, "/v1/messages");
    assert_eq!(reqs[0].header("x-api-key"), Some(KEY));
    assert_eq!(reqs[0].header("anthropic-version"), Some("2023-06-01"));
    assert!(reqs[0].header("authorization").is_none());
    assert!(reqs[0].body["max_tokens"].as_u64().is_some());
}

#[tokio::test]
async fn image_parts_reach_both_wire_formats() {
    let image = Message {
        content: vec![
            ContentPart::Text {
                text: "这是什么字？".into(),
            },
            ContentPart::Image {
                media_type: "image/png".into(),
                data: "iVBORw0KGgo=".into(),
            },
        ],
        ..Message::user("")
    };
    let req = ChatRequest {
        messages: vec![image],
        ..Default::default()
    };
    let server = ScriptedServer::start(vec![openai::text("月"), anthropic::text("月")]).unwrap();
    client(&server, "openai:gpt-4o")
        .complete(&req)
        .await
        .unwrap();
    client(&server, "anthropic:claude-sonnet-4-0")
        .complete(&req)
        .await
        .unwrap();
    let reqs = server.requests();
    assert_eq!(
        reqs[0].body["messages"][0]["content"][1]["image_url"]["url"],
        "data:image/png;base64,iVBORw0KGgo="
    );
    assert_eq!(
        reqs[1].body["messages"][0]["content"][1]["source"]["data"],
        "iVBORw0KGgo="
    );
    assert_eq!(
        reqs[1].body["messages"][0]["content"][1]["source"]["media_type"],
        "image/png"
    );
}

#[tokio::test]
async fn rate_limit_waits_for_retry_after_then_succeeds() {
    let server = ScriptedServer::start(vec![
        status(
            429,
            Some("0.3"),
            r#"{"error":{"message":"Rate limit reached","type":"requests"}}"#,
        ),
        openai::text("ok"),
    ])
    .unwrap();
    let t = Instant::now();
    let done = client(&server, "openai:gpt-4o-mini")
        .complete(&ask("x"))
        .await
        .unwrap();
    assert_eq!(done.text, "ok");
    assert!(
        t.elapsed() >= Duration::from_millis(300),
        "did not wait for retry-after: {:?}",
        t.elapsed()
    );
    assert_eq!(server.request_count(), 2);
}

#[tokio::test]
async fn server_errors_retry_then_give_up_with_a_typed_error() {
    let server =
        ScriptedServer::start(vec![status(500, None, "boom"), openai::text("recovered")]).unwrap();
    assert_eq!(
        client(&server, "openai:m")
            .complete(&ask("x"))
            .await
            .unwrap()
            .text,
        "recovered"
    );

    let server = ScriptedServer::start(
        (0..5)
            .map(|_| status(503, None, r#"{"error":{"message":"down"}}"#))
            .collect(),
    )
    .unwrap();
    let e = client(&server, "openai:m")
        .complete(&ask("x"))
        .await
        .unwrap_err();
    assert_eq!(
        e,
        LlmError::Server {
            status: 503,
            message: "down".into()
        }
    );
    assert_eq!(server.request_count(), 3, "one try and two retries");
}

#[tokio::test]
async fn context_overflow_is_not_retried() {
    let body = r#"{"error":{"message":"This model's maximum context length is 128000 tokens","code":"context_length_exceeded"}}"#;
    let server =
        ScriptedServer::start(vec![status(400, None, body), openai::text("never")]).unwrap();
    let e = client(&server, "openai:m")
        .complete(&ask("x"))
        .await
        .unwrap_err();
    assert!(matches!(e, LlmError::ContextOverflow { .. }), "{e:?}");
    assert_eq!(server.request_count(), 1);
}

#[tokio::test]
async fn disconnect_mid_stream_is_a_network_error_after_output() {
    let mut frames = openai::text_frames("half an answ", 3);
    frames.push(Frame::Disconnect);
    let server =
        ScriptedServer::start(vec![Reply::Stream(frames), openai::text("not used")]).unwrap();
    let mut s = client(&server, "openai:m").stream(&ask("x")).await.unwrap();
    let mut text = String::new();
    let err = loop {
        match s.next().await {
            Some(Ok(StreamEvent::TextDelta(d))) => text.push_str(&d),
            Some(Ok(_)) => {}
            Some(Err(e)) => break e,
            None => panic!("the stream ended without an error"),
        }
    };
    assert_eq!(text, "half an answ");
    assert!(matches!(err, LlmError::Network(_)), "{err:?}");
    assert_eq!(
        server.request_count(),
        1,
        "text was already shown: no silent retry"
    );
}

#[tokio::test]
async fn disconnect_before_any_output_is_retried() {
    let server = ScriptedServer::start(vec![
        Reply::Stream(vec![Frame::Disconnect]),
        openai::text("second try"),
    ])
    .unwrap();
    let done = client(&server, "openai:m")
        .complete(&ask("x"))
        .await
        .unwrap();
    assert_eq!(done.text, "second try");
    assert_eq!(server.request_count(), 2);
}

#[tokio::test]
async fn malformed_json_is_a_protocol_error() {
    let mut frames = openai::text_frames("ok", 1);
    frames.push(Frame::Data("{\"choices\": [".into()));
    let server = ScriptedServer::start(vec![Reply::Stream(frames)]).unwrap();
    let e = client(&server, "openai:m")
        .complete(&ask("x"))
        .await
        .unwrap_err();
    assert!(matches!(e, LlmError::Protocol(_)), "{e:?}");
    let server = ScriptedServer::start(vec![Reply::Stream(vec![Frame::Event {
        name: "message_start".into(),
        data: "nope".into(),
    }])])
    .unwrap();
    let e = client(&server, "anthropic:m")
        .complete(&ask("x"))
        .await
        .unwrap_err();
    assert!(matches!(e, LlmError::Protocol(_)), "{e:?}");
}

#[tokio::test]
async fn a_silent_stream_times_out() {
    let mut frames = openai::text_frames("thinking", 1);
    frames.push(Frame::Delay(Duration::from_secs(5)));
    let server = ScriptedServer::start(vec![Reply::Stream(frames)]).unwrap();
    let t = Instant::now();
    let e = client(&server, "openai:m")
        .complete(&ask("x"))
        .await
        .unwrap_err();
    assert_eq!(e, LlmError::IdleTimeout(Duration::from_millis(500)));
    assert!(t.elapsed() < Duration::from_secs(4));
}

/// A raw server on loopback that accepts connections, reads the request,
/// sends `reply` (possibly nothing) and then keeps the connection open
/// without another byte. Returns the base URL and a count of connections.
async fn stalling_server(
    reply: &'static str,
) -> (String, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let accepted = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let count = accepted.clone();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            tokio::spawn(async move {
                let mut buf = vec![0u8; 64 * 1024];
                let _ = socket.read(&mut buf).await;
                let _ = socket.write_all(reply.as_bytes()).await;
                // Hold the connection open, silent, until the test ends.
                tokio::time::sleep(Duration::from_secs(600)).await;
                drop(socket);
            });
        }
    });
    (format!("http://{addr}/v1"), accepted)
}

/// `fut`, or a test failure when it hangs (what these tests guard against).
async fn within_10s<T>(fut: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(10), fut)
        .await
        .expect("the call hung")
}

fn stalling_client(base_url: String, retries: u32) -> LlmClient {
    let mut c = LlmConfig::new(ModelSpec::parse("openai:gpt-4o-mini").unwrap());
    c.base_url = Some(base_url);
    c.api_key = Some(ApiKey::new(KEY).unwrap());
    c.retry = RetryPolicy {
        max_retries: retries,
        base_delay: Duration::from_millis(10),
        ..Default::default()
    };
    c.idle_timeout = Duration::from_millis(300);
    LlmClient::new(c).unwrap()
}

#[tokio::test]
async fn a_server_that_accepts_and_never_answers_times_out() {
    let (url, accepted) = stalling_server("").await;
    let t = Instant::now();
    let e = within_10s(stalling_client(url.clone(), 0).complete(&ask("x")))
        .await
        .unwrap_err();
    assert_eq!(e, LlmError::IdleTimeout(Duration::from_millis(300)));
    assert!(
        t.elapsed() >= Duration::from_millis(300),
        "gave up too early: {:?}",
        t.elapsed()
    );
    assert!(
        t.elapsed() < Duration::from_secs(5),
        "took {:?}",
        t.elapsed()
    );
    assert!(e.to_string().contains("sent nothing for 0.3 s"), "{e}");
    // A timeout waiting for the headers is retried like a network failure.
    let e = within_10s(stalling_client(url, 1).complete(&ask("x")))
        .await
        .unwrap_err();
    assert_eq!(e.code(), "idle_timeout");
    assert_eq!(
        accepted.load(std::sync::atomic::Ordering::SeqCst),
        3,
        "one call, then one try and one retry"
    );
}

#[tokio::test]
async fn an_error_body_that_never_comes_does_not_hang() {
    // The status line and headers arrive; the promised body never does.
    let (url, _) =
        stalling_server("HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\ncontent-length: 200\r\n\r\n{\"err")
            .await;
    let t = Instant::now();
    let e = within_10s(stalling_client(url, 2).complete(&ask("x")))
        .await
        .unwrap_err();
    assert!(
        t.elapsed() < Duration::from_secs(5),
        "took {:?}",
        t.elapsed()
    );
    // The status still decides what the error is (auth: not retried).
    match &e {
        LlmError::Auth {
            status: 401,
            message,
        } => assert!(message.contains("no error body within"), "{message}"),
        other => panic!("expected an auth error, got {other:?}"),
    }
    // Same for a 200 whose JSON body stalls: a typed timeout.
    let (url, _) = stalling_server(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 200\r\n\r\n{",
    )
    .await;
    let e = within_10s(stalling_client(url, 0).complete(&ask("x")))
        .await
        .unwrap_err();
    assert_eq!(e, LlmError::IdleTimeout(Duration::from_millis(300)));
}

#[tokio::test]
async fn the_key_never_shows_in_errors_or_debug() {
    // A careless server echoes the credentials it got.
    let body = format!(r#"{{"error":{{"message":"Incorrect API key provided: Bearer {KEY}"}}}}"#);
    let server = ScriptedServer::start(vec![status(401, None, &body)]).unwrap();
    let c = client(&server, "openai:m");
    let e = c.complete(&ask("x")).await.unwrap_err();
    assert!(matches!(e, LlmError::Auth { status: 401, .. }), "{e:?}");
    for shown in [e.to_string(), format!("{e:?}"), format!("{c:?}")] {
        assert!(!shown.contains(KEY), "key leaked: {shown}");
    }
    assert!(e.to_string().contains("[redacted]"));
    assert_eq!(server.request_count(), 1, "auth errors are not retried");
}

#[tokio::test]
async fn unreachable_server_is_a_network_error() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let mut c = LlmConfig::new(ModelSpec::parse("vllm:qwen").unwrap());
    c.base_url = Some(format!("http://127.0.0.1:{port}/v1"));
    c.retry = RetryPolicy::none();
    let e = LlmClient::new(c)
        .unwrap()
        .complete(&ask("x"))
        .await
        .unwrap_err();
    assert!(matches!(e, LlmError::Network(_)), "{e:?}");
}

#[test]
fn hosted_providers_need_a_key() {
    let e = LlmClient::new(LlmConfig::new(
        ModelSpec::parse("openai:gpt-4o-mini").unwrap(),
    ))
    .unwrap_err();
    assert!(e.to_string().contains(API_KEY_ENV), "{e}");
    assert!(LlmClient::new(LlmConfig::new(ModelSpec::parse("ollama:qwen2.5").unwrap())).is_ok());
}

/// Keeps what it is told.
#[derive(Default)]
#[allow(clippy::type_complexity)]
struct Kept(std::sync::Mutex<Vec<(String, Usage, Option<String>, bool)>>);

impl CallMeter for Kept {
    fn record(&self, call: &MeteredCall<'_>) {
        self.0.lock().unwrap().push((
            call.model.to_string(),
            *call.usage,
            call.error.map(|e| e.code().to_string()),
            call.dropped,
        ));
    }
}

#[tokio::test]
async fn a_meter_is_told_of_each_whole_call_with_its_tokens_or_its_failure() {
    let server = ScriptedServer::start(vec![
        openai::text("好的"),
        status(400, None, r#"{"error": {"message": "bad request"}}"#),
    ])
    .unwrap();
    let kept = std::sync::Arc::new(Kept::default());
    let c = client(&server, "openai:gpt-4o-mini").with_meter(kept.clone());
    let done = c.complete(&ask("hi")).await.unwrap();
    assert_eq!(done.text, "好的");
    assert!(c.complete(&ask("again")).await.is_err());
    // A stream is the agent's, which records its own calls: not metered.
    let server2 = ScriptedServer::start(vec![openai::text("流")]).unwrap();
    let c2 = client(&server2, "openai:gpt-4o-mini").with_meter(kept.clone());
    let mut s = c2.stream(&ask("hi")).await.unwrap();
    while s.next().await.is_some() {}
    let kept = kept.0.lock().unwrap();
    assert_eq!(kept.len(), 2, "{kept:?}");
    assert_eq!(kept[0].0, "openai:gpt-4o-mini");
    assert_eq!((kept[0].1.input_tokens, kept[0].1.output_tokens), (10, 5));
    assert_eq!(kept[0].2, None);
    assert_eq!(kept[1].1, Usage::default());
    assert!(kept[1].2.is_some());
    assert!(!kept[0].3 && !kept[1].3);
}

/// A call its caller drops midway (a time limit ran out) is still told,
/// once, as dropped.
#[tokio::test]
async fn a_call_cut_off_by_its_callers_time_limit_is_told_as_dropped() {
    let mut slow = vec![Frame::Delay(std::time::Duration::from_secs(5))];
    if let Reply::Stream(frames) = openai::text("太慢了") {
        slow.extend(frames);
    }
    let server = ScriptedServer::start(vec![Reply::Stream(slow)]).unwrap();
    let kept = std::sync::Arc::new(Kept::default());
    let c = client(&server, "openai:gpt-4o-mini").with_meter(kept.clone());
    let cut = tokio::time::timeout(
        std::time::Duration::from_millis(300),
        c.complete(&ask("hi")),
    )
    .await;
    assert!(cut.is_err(), "the call should have been cut off");
    let kept = kept.0.lock().unwrap();
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert_eq!(kept[0].0, "openai:gpt-4o-mini");
    assert_eq!(
        (kept[0].1, kept[0].2.as_deref(), kept[0].3),
        (Usage::default(), None, true)
    );
}
