//! A request's spans sent to an OpenTelemetry collector as OTLP/HTTP JSON
//! (`POST {endpoint}/v1/traces`), when a parent configured an endpoint
//! (setting `traces.otlp_endpoint`, or `OTEL_EXPORTER_OTLP_ENDPOINT`).
//!
//! The encoder is small and written here rather than taken from the
//! `opentelemetry` crates: the spans are already recorded and stored by
//! the entry (the SDK wants to own recording, through its own tracer and
//! batch processor on a runtime), and the wire format is plain JSON —
//! `resourceSpans → scopeSpans → spans`, ids as hex (32 digits for a trace,
//! 16 for a span), times as strings of unix nanoseconds, attributes as
//! key/value with `stringValue` or `intValue`, a status code (1 ok, 2
//! error).
//!
//! [`export`] sends off the request's path, on a thread of its own, with a
//! short timeout; a collector that is down or refuses is logged once for
//! that request and never retried. Without an endpoint nothing leaves the
//! device.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::{Outcome, Span};

/// The service name the spans are sent under.
pub const SERVICE_NAME: &str = "deskmate";

/// How long one export may take before it is given up.
pub const TIMEOUT: Duration = Duration::from_secs(5);

/// An OTLP trace id: the trace id's 32 hex digits (a UUID without dashes).
pub fn trace_id_hex(trace_id: &str) -> String {
    let hex: String = trace_id
        .chars()
        .filter(char::is_ascii_hexdigit)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    format!("{hex:0>32}").chars().take(32).collect()
}

fn attribute(key: &str, value: &Value) -> Value {
    let value = match value {
        Value::Number(n) if n.is_i64() || n.is_u64() => json!({ "intValue": n.to_string() }),
        Value::Bool(b) => json!({ "boolValue": b }),
        Value::String(s) => json!({ "stringValue": s }),
        other => json!({ "stringValue": other.to_string() }),
    };
    json!({ "key": key, "value": value })
}

/// The OTLP/JSON body of one request's spans.
pub fn encode(spans: &[Span]) -> Value {
    let spans: Vec<Value> = spans
        .iter()
        .map(|s| {
            let start = i128::from(s.started_at) * 1000;
            let end = start + i128::from(s.duration_us) * 1000;
            let mut attributes: Vec<Value> = s
                .attributes
                .iter()
                .map(|(k, v)| attribute(k, v))
                .collect();
            if let Some(code) = &s.error_code {
                attributes.push(attribute("error.code", &Value::String(code.clone())));
            }
            let mut span = json!({
                "traceId": trace_id_hex(&s.trace_id),
                "spanId": s.span_id,
                "name": s.name,
                "kind": if s.parent_span_id.is_none() { 2 } else { 1 },
                "startTimeUnixNano": start.to_string(),
                "endTimeUnixNano": end.to_string(),
                "attributes": attributes,
                "status": match s.outcome {
                    Outcome::Ok => json!({ "code": 1 }),
                    Outcome::Error => json!({ "code": 2, "message": s.error_code.clone().unwrap_or_default() }),
                },
            });
            if let (Some(parent), Some(obj)) = (&s.parent_span_id, span.as_object_mut()) {
                obj.insert("parentSpanId".into(), Value::String(parent.clone()));
            }
            span
        })
        .collect();
    json!({
        "resourceSpans": [{
            "resource": { "attributes": [attribute("service.name", &Value::String(SERVICE_NAME.into()))] },
            "scopeSpans": [{
                "scope": { "name": "deskmate-orchestrator", "version": env!("CARGO_PKG_VERSION") },
                "spans": spans,
            }],
        }],
    })
}

/// Where the traces go: `endpoint` (the collector's base URL, or the full
/// `/v1/traces` URL) made into the traces URL.
pub fn traces_url(endpoint: &str) -> String {
    let base = endpoint.trim().trim_end_matches('/');
    if base.ends_with("/v1/traces") {
        base.to_string()
    } else {
        format!("{base}/v1/traces")
    }
}

/// Sends `spans` to the collector at `endpoint`, on a thread of its own:
/// returns at once; a failure is logged, once, and not retried. The
/// thread's handle is returned for tests to wait on.
pub fn export(endpoint: &str, spans: Vec<Span>) -> Option<std::thread::JoinHandle<()>> {
    let url = traces_url(endpoint);
    let body = encode(&spans).to_string();
    IN_FLIGHT.fetch_add(1, Ordering::SeqCst);
    std::thread::Builder::new()
        .name("otlp-export".into())
        .spawn(move || {
            if let Err(e) = post(&url, body) {
                tracing::warn!("the request's spans could not be sent to {url}: {e}");
            }
            IN_FLIGHT.fetch_sub(1, Ordering::SeqCst);
        })
        .map_err(|e| {
            IN_FLIGHT.fetch_sub(1, Ordering::SeqCst);
            tracing::warn!("no thread to send the request's spans: {e}");
        })
        .ok()
}

/// Exports begun and not yet finished.
static IN_FLIGHT: AtomicUsize = AtomicUsize::new(0);

/// Waits (at most `longest`) for the exports under way to finish: a
/// short-lived process (the CLI) calls it before it exits, so its spans are
/// not cut off. Whether all finished.
pub fn wait_sent(longest: Duration) -> bool {
    let until = Instant::now() + longest;
    while IN_FLIGHT.load(Ordering::SeqCst) > 0 {
        if Instant::now() >= until {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    true
}

fn post(url: &str, body: String) -> Result<(), String> {
    let client = reqwest::blocking::Client::builder()
        .timeout(TIMEOUT)
        .build()
        .map_err(|e| e.to_string())?;
    let reply = client
        .post(url)
        .header("content-type", "application/json")
        .body(body)
        .send()
        .map_err(|e| e.to_string())?;
    if reply.status().is_success() {
        Ok(())
    } else {
        Err(format!("the collector answered {}", reply.status()))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::trace::Spans;

    #[test]
    fn a_failed_span_is_an_error_status_with_its_code_and_integers_stay_integers() {
        let spans = Spans::start("0190f3a2-7b1c-7def-8abc-0123456789ab");
        let mut call = spans.open("model.call");
        call.attr("model", "openai:gpt-4o-mini").attr("photos", 2);
        call.fail("homework.model_failed");
        let all = spans.finish(Outcome::Ok, serde_json::Map::new());
        let body = encode(&all);
        let out = body["resourceSpans"][0]["scopeSpans"][0]["spans"]
            .as_array()
            .unwrap();
        assert_eq!(out[0]["traceId"], "0190f3a27b1c7def8abc0123456789ab");
        assert!(out[0].get("parentSpanId").is_none());
        let call = &out[1];
        assert_eq!(call["parentSpanId"], out[0]["spanId"]);
        assert_eq!(call["status"]["code"], 2);
        assert_eq!(call["status"]["message"], "homework.model_failed");
        let attrs = call["attributes"].as_array().unwrap();
        let value = |k: &str| attrs.iter().find(|a| a["key"] == k).unwrap()["value"].clone();
        assert_eq!(value("photos")["intValue"], "2");
        assert_eq!(value("model")["stringValue"], "openai:gpt-4o-mini");
        assert_eq!(value("error.code")["stringValue"], "homework.model_failed");
        assert_eq!(
            body["resourceSpans"][0]["resource"]["attributes"][0]["value"]["stringValue"],
            SERVICE_NAME
        );
    }

    #[test]
    fn the_traces_url_is_the_endpoint_s_v1_traces() {
        assert_eq!(
            traces_url("http://127.0.0.1:4318/"),
            "http://127.0.0.1:4318/v1/traces"
        );
        assert_eq!(
            traces_url(" http://c:4318/v1/traces "),
            "http://c:4318/v1/traces"
        );
    }
}
