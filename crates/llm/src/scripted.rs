//! A scripted model server: a real HTTP server on loopback that answers
//! model calls in either wire format with replies written in advance —
//! streamed text, tool calls split across chunks, parallel tool calls,
//! error statuses with `retry-after`, delays, abrupt disconnects and
//! malformed JSON. Tests and benchmarks of this crate and the crates above
//! it drive real clients against it. (Feature `scripted`.)

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::Response;
use serde_json::{json, Value};

/// One piece of a streamed reply.
#[derive(Debug, Clone, PartialEq)]
pub enum Frame {
    /// `data: …` (OpenAI chunks).
    Data(String),
    /// `event: name` + `data: …` (Anthropic events).
    Event { name: String, data: String },
    /// Bytes sent exactly as given.
    Raw(String),
    /// `data: …` with every `__NOW_US__` replaced by the send time in
    /// microseconds since the Unix epoch (latency benchmarks).
    StampedData(String),
    /// Wait before the next frame.
    Delay(Duration),
    /// Drop the connection here, without ending the reply properly (after
    /// what came before has been sent).
    Disconnect,
}

/// How the server answers one request.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// `200 text/event-stream` with these frames.
    Stream(Vec<Frame>),
    /// Any status with headers and a body (errors, rate limits).
    Status {
        status: u16,
        headers: Vec<(String, String)>,
        body: String,
    },
    /// `200` with a binary body of this content type (e.g. the WAV of an
    /// OpenAI-compatible `/audio/speech`).
    Bytes { content_type: String, body: Vec<u8> },
}

/// A request the server received.
#[derive(Debug, Clone)]
pub struct RecordedRequest {
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Value,
}

impl RecordedRequest {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

type Responder = Arc<dyn Fn(&RecordedRequest) -> Reply + Send + Sync>;

enum Script {
    Queue(VecDeque<Reply>),
    Responder(Responder),
}

#[derive(Clone)]
struct Shared {
    script: Arc<Mutex<Script>>,
    requests: Arc<Mutex<Vec<RecordedRequest>>>,
}

/// The running server. Dropping it stops it.
pub struct ScriptedServer {
    addr: SocketAddr,
    shared: Shared,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl ScriptedServer {
    /// Serves `replies` in order, one per request; after the last one every
    /// request gets a 500 saying the script ran out.
    pub fn start(replies: Vec<Reply>) -> std::io::Result<Self> {
        Self::launch(Script::Queue(replies.into()))
    }

    /// Answers every request with `f(request)` (benchmarks, endless runs).
    pub fn with_responder(
        f: impl Fn(&RecordedRequest) -> Reply + Send + Sync + 'static,
    ) -> std::io::Result<Self> {
        Self::launch(Script::Responder(Arc::new(f)))
    }

    fn launch(script: Script) -> std::io::Result<Self> {
        let shared = Shared {
            script: Arc::new(Mutex::new(script)),
            requests: Arc::new(Mutex::new(Vec::new())),
        };
        let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let state = shared.clone();
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let thread = std::thread::Builder::new()
            .name("scripted-model".into())
            .spawn(move || {
                rt.block_on(async move {
                    let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
                        return;
                    };
                    let app = axum::Router::new().fallback(handle).with_state(state);
                    // Like a provider's server: no Nagle delay on the small
                    // writes of a stream.
                    let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
                        let _ = tcp.set_nodelay(true);
                    });
                    tokio::select! {
                        _ = axum::serve(listener, app) => {}
                        _ = stopped => {}
                    }
                });
            })?;
        Ok(Self {
            addr,
            shared,
            stop: Some(stop),
            thread: Some(thread),
        })
    }

    /// The base URL to give a client (`http://127.0.0.1:PORT/v1`).
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Every request received so far.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared
            .requests
            .lock()
            .map(|r| r.clone())
            .unwrap_or_default()
    }

    pub fn request_count(&self) -> usize {
        self.shared.requests.lock().map(|r| r.len()).unwrap_or(0)
    }
}

impl Drop for ScriptedServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

async fn handle(
    State(shared): State<Shared>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let req = RecordedRequest {
        path: uri.path().to_string(),
        headers: headers
            .iter()
            .map(|(k, v)| {
                (
                    k.to_string(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect(),
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
    };
    let reply = match shared.script.lock() {
        Ok(mut script) => match &mut *script {
            Script::Queue(q) => q.pop_front(),
            Script::Responder(f) => Some(f(&req)),
        },
        Err(_) => None,
    };
    if let Ok(mut r) = shared.requests.lock() {
        r.push(req);
    }
    let reply = reply.unwrap_or_else(|| {
        status(
            500,
            None,
            r#"{"error":{"message":"the scripted server has no more replies"}}"#,
        )
    });
    match reply {
        Reply::Status {
            status,
            headers,
            body,
        } => {
            let mut b = Response::builder()
                .status(StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR));
            for (k, v) in headers {
                b = b.header(k, v);
            }
            b.header("content-type", "application/json")
                .body(Body::from(body))
                .unwrap_or_default()
        }
        Reply::Bytes { content_type, body } => Response::builder()
            .header("content-type", content_type)
            .body(Body::from(body))
            .unwrap_or_default(),
        Reply::Stream(frames) => {
            let stream =
                futures_util::stream::unfold(VecDeque::from(frames), |mut frames| async move {
                    loop {
                        match frames.pop_front()? {
                            Frame::Delay(d) => tokio::time::sleep(d).await,
                            Frame::Disconnect => {
                                // Let what was sent so far leave the server first: an
                                // erroring body makes the server drop unflushed bytes.
                                tokio::time::sleep(Duration::from_millis(30)).await;
                                return Some((
                                    Err(std::io::Error::new(
                                        std::io::ErrorKind::ConnectionAborted,
                                        "scripted disconnect",
                                    )),
                                    VecDeque::new(),
                                ));
                            }
                            Frame::Data(d) => {
                                return Some((Ok(Bytes::from(format!("data: {d}\n\n"))), frames))
                            }
                            Frame::Event { name, data } => {
                                return Some((
                                    Ok(Bytes::from(format!("event: {name}\ndata: {data}\n\n"))),
                                    frames,
                                ))
                            }
                            Frame::Raw(r) => return Some((Ok(Bytes::from(r)), frames)),
                            Frame::StampedData(d) => {
                                let d = d.replace("__NOW_US__", &now_us().to_string());
                                return Some((Ok(Bytes::from(format!("data: {d}\n\n"))), frames));
                            }
                        }
                    }
                });
            Response::builder()
                .header("content-type", "text/event-stream")
                .header("cache-control", "no-cache")
                .body(Body::from_stream(stream))
                .unwrap_or_default()
        }
    }
}

/// Microseconds since the Unix epoch.
pub fn now_us() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_micros())
        .unwrap_or(0)
}

/// An error reply (`retry_after` in seconds as the header's text).
pub fn status(code: u16, retry_after: Option<&str>, body: &str) -> Reply {
    Reply::Status {
        status: code,
        headers: retry_after
            .map(|r| vec![("retry-after".to_string(), r.to_string())])
            .unwrap_or_default(),
        body: body.to_string(),
    }
}

/// Splits `s` into `n` pieces of about equal length, on char boundaries.
pub fn split(s: &str, n: usize) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    let n = n.clamp(1, chars.len().max(1));
    let size = chars.len().div_ceil(n).max(1);
    chars.chunks(size).map(|c| c.iter().collect()).collect()
}

/// A scripted tool call: id, tool name and its JSON arguments text.
pub type ScriptedCall<'a> = (&'a str, &'a str, &'a str);

/// Replies in the OpenAI Chat Completions stream format.
pub mod openai {
    use super::*;

    fn chunk(delta: Value, finish: Option<&str>) -> Frame {
        Frame::Data(
            json!({"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "model": "scripted",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
            .to_string(),
        )
    }

    /// Frames streaming `text` in `pieces` deltas, without the ending.
    pub fn text_frames(text: &str, pieces: usize) -> Vec<Frame> {
        let mut f = vec![chunk(json!({"role": "assistant", "content": ""}), None)];
        f.extend(
            split(text, pieces)
                .into_iter()
                .map(|p| chunk(json!({"content": p}), None)),
        );
        f
    }

    /// Frames of parallel tool calls, each call's arguments split in three.
    pub fn tool_call_frames(calls: &[ScriptedCall<'_>]) -> Vec<Frame> {
        let mut f = Vec::new();
        for (i, (id, name, args)) in calls.iter().enumerate() {
            f.push(chunk(
                json!({"tool_calls": [{"index": i, "id": id, "type": "function", "function": {"name": name, "arguments": ""}}]}),
                None,
            ));
            for piece in split(args, 3) {
                f.push(chunk(
                    json!({"tool_calls": [{"index": i, "function": {"arguments": piece}}]}),
                    None,
                ));
            }
        }
        f
    }

    /// The end of a reply: finish reason, usage chunk and `[DONE]`.
    pub fn end_frames(finish: &str, input_tokens: u64, output_tokens: u64) -> Vec<Frame> {
        vec![
            chunk(json!({}), Some(finish)),
            Frame::Data(
                json!({"id": "chatcmpl-scripted", "choices": [], "usage": {"prompt_tokens": input_tokens,
                "completion_tokens": output_tokens, "total_tokens": input_tokens + output_tokens}})
                .to_string(),
            ),
            Frame::Data("[DONE]".into()),
        ]
    }

    /// A complete text answer.
    pub fn text(text: &str) -> Reply {
        let mut f = text_frames(text, 4);
        f.extend(end_frames("stop", 10, 5));
        Reply::Stream(f)
    }

    /// A complete reply asking for tool calls (optionally after some text).
    pub fn tool_calls(preamble: Option<&str>, calls: &[ScriptedCall<'_>]) -> Reply {
        let mut f = preamble.map(|t| text_frames(t, 2)).unwrap_or_default();
        f.extend(tool_call_frames(calls));
        f.extend(end_frames("tool_calls", 20, 10));
        Reply::Stream(f)
    }
}

/// Replies in the Anthropic Messages stream format.
pub mod anthropic {
    use super::*;

    fn ev(name: &str, data: Value) -> Frame {
        Frame::Event {
            name: name.into(),
            data: data.to_string(),
        }
    }

    pub fn start_frames(input_tokens: u64) -> Vec<Frame> {
        vec![
            ev(
                "message_start",
                json!({"type": "message_start", "message": {"id": "msg_scripted", "type": "message", "role": "assistant",
                "content": [], "model": "scripted", "usage": {"input_tokens": input_tokens, "output_tokens": 1}}}),
            ),
            ev("ping", json!({"type": "ping"})),
        ]
    }

    pub fn text_block_frames(index: usize, text: &str, pieces: usize) -> Vec<Frame> {
        let mut f = vec![ev(
            "content_block_start",
            json!({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}}),
        )];
        for p in split(text, pieces) {
            f.push(ev(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": p}}),
            ));
        }
        f.push(ev(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        ));
        f
    }

    pub fn tool_use_frames(index: usize, call: ScriptedCall<'_>) -> Vec<Frame> {
        let (id, name, args) = call;
        let mut f = vec![ev(
            "content_block_start",
            json!({"type": "content_block_start", "index": index,
            "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}}),
        )];
        for p in split(args, 3) {
            f.push(ev(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": p}}),
            ));
        }
        f.push(ev(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        ));
        f
    }

    pub fn end_frames(stop_reason: &str, output_tokens: u64) -> Vec<Frame> {
        vec![
            ev(
                "message_delta",
                json!({"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": null}, "usage": {"output_tokens": output_tokens}}),
            ),
            ev("message_stop", json!({"type": "message_stop"})),
        ]
    }

    pub fn text(text: &str) -> Reply {
        let mut f = start_frames(10);
        f.extend(text_block_frames(0, text, 4));
        f.extend(end_frames("end_turn", 5));
        Reply::Stream(f)
    }

    pub fn tool_calls(preamble: Option<&str>, calls: &[ScriptedCall<'_>]) -> Reply {
        let mut f = start_frames(20);
        let mut index = 0;
        if let Some(t) = preamble {
            f.extend(text_block_frames(0, t, 2));
            index = 1;
        }
        for c in calls {
            f.extend(tool_use_frames(index, *c));
            index += 1;
        }
        f.extend(end_frames("tool_use", 10));
        Reply::Stream(f)
    }
}
