//! The model client: sends a request in the provider's wire format, retries
//! what is worth retrying (rate limits with `retry-after`, server errors,
//! network failures — also a stream that breaks before it yielded anything),
//! and reads the reply as a stream of [`StreamEvent`]s with an idle timeout.
//! The idle timeout bounds every wait on the server: for the response
//! headers, for an error body, and between pieces of the stream.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use eventsource_stream::{Event, EventStreamError, Eventsource};
use futures_util::{Stream, StreamExt};
use serde_json::Value;

use crate::anthropic::{self, AnthropicParser};
use crate::openai::{self, OpenAiParser};
use crate::{
    ApiKey, ChatRequest, LlmError, ModelSpec, RetryPolicy, StopReason, StreamEvent, ToolCall,
    Usage, Wire,
};

/// How to reach a model.
#[derive(Debug, Clone)]
pub struct LlmConfig {
    pub model: ModelSpec,
    /// `None` uses the provider's default.
    pub base_url: Option<String>,
    pub api_key: Option<ApiKey>,
    pub retry: RetryPolicy,
    pub connect_timeout: Duration,
    /// Give up when the server sends nothing for this long: while waiting
    /// for the response headers, while reading an error body, and between
    /// pieces of the stream ([`LlmError::IdleTimeout`]).
    pub idle_timeout: Duration,
}

impl LlmConfig {
    pub fn new(model: ModelSpec) -> Self {
        Self {
            model,
            base_url: None,
            api_key: None,
            retry: RetryPolicy::default(),
            connect_timeout: Duration::from_secs(15),
            idle_timeout: Duration::from_secs(90),
        }
    }
}

struct Inner {
    http: reqwest::Client,
    model: ModelSpec,
    url: String,
    wire: Wire,
    api_key: Option<ApiKey>,
    retry: RetryPolicy,
    idle_timeout: Duration,
}

/// A client for one model. Cheap to clone.
#[derive(Clone)]
pub struct LlmClient {
    inner: Arc<Inner>,
    /// Told of each [`LlmClient::complete`] call, when set.
    meter: Option<Arc<dyn CallMeter>>,
}

/// One finished [`LlmClient::complete`] call, as a [`CallMeter`] sees it.
#[derive(Debug)]
pub struct MeteredCall<'a> {
    pub model: &'a ModelSpec,
    /// The tokens the server reported (zero when the call failed).
    pub usage: &'a Usage,
    pub duration: Duration,
    pub error: Option<&'a LlmError>,
    /// The call was dropped before it finished (a caller's time limit ran
    /// out, or the caller went away): the server may have used tokens it
    /// never got to report.
    pub dropped: bool,
}

/// Keeps a record of one-off calls (the agent's runs record their own
/// streamed calls and use no meter): the app stores them as the child's
/// usage. A call dropped before it finished (a time limit) is told too,
/// with `dropped` set, when it is dropped.
pub trait CallMeter: Send + Sync {
    fn record(&self, call: &MeteredCall<'_>);
}

impl std::fmt::Debug for LlmClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlmClient")
            .field("model", &self.inner.model.to_string())
            .field("url", &self.inner.url)
            .field("api_key", &self.inner.api_key)
            .finish()
    }
}

/// One [`LlmClient::complete`] under way, for its meter: told how it ended
/// ([`MeteredCompletion::finish`]), or, dropped before that (the caller's
/// future dropped mid-call), told that it was dropped.
struct MeteredCompletion<'a> {
    client: &'a LlmClient,
    started: std::time::Instant,
    told: bool,
}

impl MeteredCompletion<'_> {
    fn tell(&mut self, usage: &Usage, error: Option<&LlmError>, dropped: bool) {
        self.told = true;
        if let Some(meter) = &self.client.meter {
            meter.record(&MeteredCall {
                model: &self.client.inner.model,
                usage,
                duration: self.started.elapsed(),
                error,
                dropped,
            });
        }
    }

    fn finish(mut self, result: &Result<Completion, LlmError>) {
        let none = Usage::default();
        let usage = result.as_ref().map(|c| &c.usage).unwrap_or(&none);
        self.tell(usage, result.as_ref().err(), false);
    }
}

impl Drop for MeteredCompletion<'_> {
    fn drop(&mut self) {
        if !self.told {
            self.tell(&Usage::default(), None, true);
        }
    }
}

/// A whole reply, collected from the stream.
#[derive(Debug, Clone, PartialEq)]
pub struct Completion {
    pub text: String,
    pub tool_calls: Vec<ToolCall>,
    pub usage: Usage,
    pub stop: StopReason,
}

impl LlmClient {
    pub fn new(config: LlmConfig) -> Result<Self, LlmError> {
        let base = config.model.base_url(config.base_url.as_deref())?;
        if config.api_key.is_none() && config.model.needs_key() && config.base_url.is_none() {
            return Err(LlmError::Config(format!(
                "no API key for {}: save one in Settings (kept in the OS keyring) or set {}",
                config.model.provider,
                crate::API_KEY_ENV
            )));
        }
        let wire = config.model.wire();
        let url = match wire {
            Wire::OpenAi => format!("{base}/chat/completions"),
            Wire::Anthropic => format!("{base}/messages"),
        };
        let http = reqwest::Client::builder()
            .connect_timeout(config.connect_timeout)
            .user_agent(concat!("deskmate/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| LlmError::Config(format!("cannot set up the HTTP client: {e}")))?;
        Ok(Self {
            inner: Arc::new(Inner {
                http,
                model: config.model,
                url,
                wire,
                api_key: config.api_key,
                retry: config.retry,
                idle_timeout: config.idle_timeout,
            }),
            meter: None,
        })
    }

    /// The same client, telling `meter` of each [`LlmClient::complete`] call.
    pub fn with_meter(mut self, meter: Arc<dyn CallMeter>) -> Self {
        self.meter = Some(meter);
        self
    }

    pub fn model(&self) -> &ModelSpec {
        &self.inner.model
    }

    /// The endpoint requests go to.
    pub fn url(&self) -> &str {
        &self.inner.url
    }

    fn body(&self, req: &ChatRequest) -> Value {
        match self.inner.wire {
            Wire::OpenAi => openai::request_body(&self.inner.model.model, req),
            Wire::Anthropic => anthropic::request_body(&self.inner.model.model, req),
        }
    }

    fn secret(&self) -> Option<&str> {
        self.inner.api_key.as_ref().map(ApiKey::expose)
    }

    /// Starts a streamed call. Errors before the stream opens are retried
    /// by the client's policy.
    pub async fn stream(&self, req: &ChatRequest) -> Result<ChatStream, LlmError> {
        let body = self.body(req);
        let (resp, attempt) = self.send(&body, 0).await?;
        Ok(ChatStream::open(self.clone(), body, resp, attempt))
    }

    /// A call collected whole (connection tests, short one-off questions);
    /// the meter, if any, is told of it.
    pub async fn complete(&self, req: &ChatRequest) -> Result<Completion, LlmError> {
        let call = MeteredCompletion {
            client: self,
            started: std::time::Instant::now(),
            told: false,
        };
        let result = self.collect(req).await;
        call.finish(&result);
        result
    }

    async fn collect(&self, req: &ChatRequest) -> Result<Completion, LlmError> {
        let mut stream = self.stream(req).await?;
        let mut out = Completion {
            text: String::new(),
            tool_calls: vec![],
            usage: Usage::default(),
            stop: StopReason::EndTurn,
        };
        let mut indices = Vec::new();
        while let Some(ev) = stream.next().await {
            match ev? {
                StreamEvent::TextDelta(t) => out.text.push_str(&t),
                StreamEvent::ToolCallStart { index, id, name } => {
                    indices.push(index);
                    out.tool_calls.push(ToolCall {
                        id,
                        name,
                        arguments: String::new(),
                    });
                }
                StreamEvent::ToolCallArgs { index, delta } => {
                    if let Some(pos) = indices.iter().position(|i| *i == index) {
                        if let Some(c) = out.tool_calls.get_mut(pos) {
                            c.arguments.push_str(&delta);
                        }
                    }
                }
                StreamEvent::Usage(u) => out.usage = u,
                StreamEvent::Finished { stop } => out.stop = stop,
            }
        }
        Ok(out)
    }

    /// Sends `body`, retrying from `attempt` on; returns the response and
    /// the attempt number reached.
    async fn send(
        &self,
        body: &Value,
        mut attempt: u32,
    ) -> Result<(reqwest::Response, u32), LlmError> {
        loop {
            match self.send_once(body).await {
                Ok(resp) => return Ok((resp, attempt)),
                Err(e) => {
                    let e = e.redacted(self.secret());
                    match self.retry_delay(&e, attempt) {
                        Some(delay) => {
                            tracing::warn!(model = %self.inner.model, "model call failed ({e}); retrying in {delay:?}");
                            attempt += 1;
                            tokio::time::sleep(delay).await;
                        }
                        None => return Err(e),
                    }
                }
            }
        }
    }

    fn retry_delay(&self, e: &LlmError, attempt: u32) -> Option<Duration> {
        if !e.is_retryable() {
            return None;
        }
        let after = match e {
            LlmError::RateLimited { retry_after, .. } => *retry_after,
            _ => None,
        };
        self.inner.retry.delay(attempt, after)
    }

    async fn send_once(&self, body: &Value) -> Result<reqwest::Response, LlmError> {
        let mut rb = self
            .inner
            .http
            .post(&self.inner.url)
            .json(body)
            .header(reqwest::header::ACCEPT, "text/event-stream");
        match self.inner.wire {
            Wire::OpenAi => {
                if let Some(k) = &self.inner.api_key {
                    rb = rb.bearer_auth(k.expose());
                }
            }
            Wire::Anthropic => {
                rb = rb.header("anthropic-version", "2023-06-01");
                if let Some(k) = &self.inner.api_key {
                    // Marked sensitive (as `bearer_auth` does) so HTTP-level
                    // debug output never prints it.
                    let mut v =
                        reqwest::header::HeaderValue::from_str(k.expose()).map_err(|_| {
                            LlmError::Config(
                                "the API key contains characters an HTTP header cannot carry"
                                    .into(),
                            )
                        })?;
                    v.set_sensitive(true);
                    rb = rb.header("x-api-key", v);
                }
            }
        }
        // A server that accepts the connection and then says nothing must not
        // hold the call forever: the wait for the headers is bounded too.
        let idle = self.inner.idle_timeout;
        let resp = match tokio::time::timeout(idle, rb.send()).await {
            Err(_) => return Err(LlmError::IdleTimeout(idle)),
            Ok(r) => r.map_err(|e| LlmError::Network(describe(&e)))?,
        };
        let status = resp.status();
        if !status.is_success() {
            let after = crate::retry::retry_after(resp.headers());
            // The body only explains the status: one that does not come in
            // time (or breaks) leaves the status to speak for itself.
            let text = match tokio::time::timeout(idle, resp.text()).await {
                Ok(Ok(text)) => text,
                Ok(Err(e)) => format!("(the error body could not be read: {})", describe(&e)),
                Err(_) => format!(
                    "(the server sent no error body within {} s)",
                    idle.as_secs_f64()
                ),
            };
            return Err(LlmError::from_status(status.as_u16(), after, &text));
        }
        let is_json = resp
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("application/json"));
        if is_json {
            // A server that ignored `stream: true` or answered an error with 200.
            let text = match tokio::time::timeout(idle, resp.text()).await {
                Err(_) => return Err(LlmError::IdleTimeout(idle)),
                Ok(r) => r.map_err(|e| LlmError::Network(describe(&e)))?,
            };
            let (message, _) = crate::error::error_message(&text);
            return Err(LlmError::Protocol(format!(
                "expected a streamed reply but got JSON: {message}"
            )));
        }
        Ok(resp)
    }
}

/// The error and its causes in one line (reqwest hides the cause otherwise).
fn describe(e: &reqwest::Error) -> String {
    let mut s = e.to_string();
    let mut src = std::error::Error::source(e);
    while let Some(cause) = src {
        s.push_str(": ");
        s.push_str(&cause.to_string());
        src = cause.source();
    }
    s
}

type SseStream =
    Pin<Box<dyn Stream<Item = Result<Event, EventStreamError<reqwest::Error>>> + Send>>;

enum Parser {
    OpenAi(OpenAiParser),
    Anthropic(AnthropicParser),
}

impl Parser {
    fn new(wire: Wire) -> Self {
        match wire {
            Wire::OpenAi => Parser::OpenAi(OpenAiParser::default()),
            Wire::Anthropic => Parser::Anthropic(AnthropicParser::default()),
        }
    }
    fn on_data(&mut self, data: &str) -> Result<Vec<StreamEvent>, LlmError> {
        match self {
            Parser::OpenAi(p) => p.on_data(data),
            Parser::Anthropic(p) => p.on_data(data),
        }
    }
    fn finish(&mut self) -> Result<Vec<StreamEvent>, LlmError> {
        match self {
            Parser::OpenAi(p) => p.finish(),
            Parser::Anthropic(p) => p.finish(),
        }
    }
    fn is_done(&self) -> bool {
        match self {
            Parser::OpenAi(p) => p.is_done(),
            Parser::Anthropic(p) => p.is_done(),
        }
    }
}

/// A reply being streamed. Call [`ChatStream::next`] until it gives `None`.
pub struct ChatStream {
    client: LlmClient,
    body: Value,
    attempt: u32,
    sse: SseStream,
    parser: Parser,
    queue: VecDeque<StreamEvent>,
    yielded: bool,
    done: bool,
}

impl ChatStream {
    fn open(client: LlmClient, body: Value, resp: reqwest::Response, attempt: u32) -> Self {
        let parser = Parser::new(client.inner.wire);
        Self {
            client,
            body,
            attempt,
            sse: Box::pin(resp.bytes_stream().eventsource()),
            parser,
            queue: VecDeque::new(),
            yielded: false,
            done: false,
        }
    }

    /// The next event, an error (after which the stream ends), or `None`
    /// when the reply is complete.
    pub async fn next(&mut self) -> Option<Result<StreamEvent, LlmError>> {
        loop {
            if let Some(ev) = self.queue.pop_front() {
                self.yielded = true;
                return Some(Ok(ev));
            }
            if self.done {
                return None;
            }
            let idle = self.client.inner.idle_timeout;
            let step = match tokio::time::timeout(idle, self.sse.next()).await {
                Err(_) => Err(LlmError::IdleTimeout(idle)),
                Ok(None) => {
                    self.done = true;
                    self.parser.finish()
                }
                Ok(Some(Err(e))) => Err(LlmError::Network(format!(
                    "the stream broke: {}",
                    stream_error(&e)
                ))),
                Ok(Some(Ok(ev))) => self.parser.on_data(&ev.data),
            };
            match step {
                Ok(events) => {
                    self.queue.extend(events);
                    if self.parser.is_done() {
                        self.done = true;
                    }
                }
                Err(e) => {
                    let e = e.redacted(self.client.secret());
                    // Nothing reached the caller yet: the whole call can be
                    // sent again without anyone seeing a duplicate.
                    if !self.yielded && self.queue.is_empty() {
                        if let Some(delay) = self.client.retry_delay(&e, self.attempt) {
                            tracing::warn!("model stream failed before any output ({e}); retrying in {delay:?}");
                            tokio::time::sleep(delay).await;
                            match self.client.send(&self.body, self.attempt + 1).await {
                                Ok((resp, attempt)) => {
                                    *self = ChatStream::open(
                                        self.client.clone(),
                                        std::mem::take(&mut self.body),
                                        resp,
                                        attempt,
                                    );
                                    continue;
                                }
                                Err(e2) => {
                                    self.done = true;
                                    return Some(Err(e2));
                                }
                            }
                        }
                    }
                    self.done = true;
                    return Some(Err(e));
                }
            }
        }
    }
}

fn stream_error(e: &EventStreamError<reqwest::Error>) -> String {
    match e {
        EventStreamError::Transport(t) => describe(t),
        other => other.to_string(),
    }
}
