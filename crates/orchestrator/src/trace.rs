//! The spans of one request through the entry (issue 16, point 8): a root
//! `request` and its stages — `parse` (typed words, a button or photos read),
//! `speech`, `route`, `decide`, the scene step
//! (`scene.recite`, `scene.plan`, `scene.homework`, `scene.chat`) and each
//! model call (`model.call`) — with when each started, how long it took,
//! its outcome and a few attributes (the intent, the decision, the model).
//!
//! [`Spans`] records them while [`crate::entry::Entry::process`] runs; a
//! model call deep inside a scene records itself into the request being
//! processed on this thread ([`model_call`]), so no scene has to carry the
//! recorder. A chat request handed to the companion gets the companion's
//! run afterwards — `companion.run` with its `model.call` and `tool.call`
//! spans and any `subagent.run` — hung under its root by [`attach`] when the
//! run ends. [`write`] stores them (table `trace_spans`) in the decision's
//! transaction; [`read`] reads them back validated; [`timeline`] draws the
//! tree for parents; [`otlp`] sends them to an OpenTelemetry collector.

pub mod otlp;

use std::cell::RefCell;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use rusqlite::{params, Connection};
use serde::{Deserialize, Serialize};

use crate::scene::{SceneError, SceneResult};

/// Whether a span's work succeeded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "SpanOutcome"))]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Ok,
    Error,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::Error => "error",
        }
    }
}

/// One timed step of a request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "TraceSpan"))]
pub struct Span {
    /// The request's trace id (its decision's id).
    pub trace_id: String,
    /// 16 hex digits.
    pub span_id: String,
    /// The span this one is part of; none for the root `request`.
    pub parent_span_id: Option<String>,
    pub name: String,
    /// When it started, unix microseconds.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub started_at: i64,
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub duration_us: u64,
    pub outcome: Outcome,
    /// The coded error of a failed span (`homework.model_failed`, …).
    pub error_code: Option<String>,
    /// Strings and integers: `intent`, `confidence`, `decision`, `reason`,
    /// `model`, …
    #[cfg_attr(feature = "ts", ts(type = "Record<string, string | number>"))]
    pub attributes: serde_json::Map<String, serde_json::Value>,
}

fn new_span_id() -> String {
    uuid::Uuid::new_v4().simple().to_string()[..16].to_string()
}

fn unix_us() -> i64 {
    chrono::Utc::now().timestamp_micros()
}

fn us(since: Instant) -> u64 {
    u64::try_from(since.elapsed().as_micros()).unwrap_or(u64::MAX)
}

/// The spans of one request as it runs; cheap to clone (shared).
#[derive(Debug, Clone)]
pub struct Spans {
    trace_id: String,
    root_id: String,
    root_started: (Instant, i64),
    done: Arc<Mutex<Vec<Span>>>,
}

/// A span begun and not yet ended: end it with [`Open::ok`] or
/// [`Open::fail`]; one dropped unended is recorded as ok.
#[derive(Debug)]
pub struct Open {
    spans: Spans,
    span: Option<Span>,
    started: Instant,
}

impl Open {
    /// Adds an attribute (a string or an integer).
    pub fn attr(&mut self, key: &str, value: impl Into<serde_json::Value>) -> &mut Self {
        if let Some(s) = self.span.as_mut() {
            s.attributes.insert(key.to_string(), value.into());
        }
        self
    }

    pub fn ok(mut self) {
        self.end(Outcome::Ok, None);
    }

    pub fn fail(mut self, code: &str) {
        self.end(Outcome::Error, Some(code.to_string()));
    }

    /// Ends the span by the result of its work.
    pub fn end_with<T>(self, result: &SceneResult<T>) {
        match result {
            Ok(_) => self.ok(),
            Err(e) => self.fail(e.code()),
        }
    }

    fn end(&mut self, outcome: Outcome, error_code: Option<String>) {
        if let Some(mut span) = self.span.take() {
            span.duration_us = us(self.started);
            span.outcome = outcome;
            span.error_code = error_code;
            self.spans.push(span);
        }
    }
}

impl Drop for Open {
    fn drop(&mut self) {
        self.end(Outcome::Ok, None);
    }
}

impl Spans {
    /// Starts the root span of the request `trace_id`.
    pub fn start(trace_id: &str) -> Self {
        Self {
            trace_id: trace_id.to_string(),
            root_id: new_span_id(),
            root_started: (Instant::now(), unix_us()),
            done: Arc::new(Mutex::new(Vec::new())),
        }
    }

    pub fn trace_id(&self) -> &str {
        &self.trace_id
    }

    /// Begins a stage of the request (a child of the root).
    pub fn open(&self, name: &str) -> Open {
        Open {
            spans: self.clone(),
            span: Some(Span {
                trace_id: self.trace_id.clone(),
                span_id: new_span_id(),
                parent_span_id: Some(self.root_id.clone()),
                name: name.to_string(),
                started_at: unix_us(),
                duration_us: 0,
                outcome: Outcome::Ok,
                error_code: None,
                attributes: serde_json::Map::new(),
            }),
            started: Instant::now(),
        }
    }

    fn push(&self, span: Span) {
        if let Ok(mut done) = self.done.lock() {
            done.push(span);
        }
    }

    /// Ends the root span: every span of the request, the root first, the
    /// rest in the order they started.
    pub fn finish(
        &self,
        outcome: Outcome,
        attributes: serde_json::Map<String, serde_json::Value>,
    ) -> Vec<Span> {
        let mut all = vec![Span {
            trace_id: self.trace_id.clone(),
            span_id: self.root_id.clone(),
            parent_span_id: None,
            name: "request".into(),
            started_at: self.root_started.1,
            duration_us: us(self.root_started.0),
            outcome,
            error_code: None,
            attributes,
        }];
        let mut rest = self.done.lock().map(|d| d.clone()).unwrap_or_default();
        rest.sort_by_key(|s| s.started_at);
        all.extend(rest);
        all
    }

    /// Runs `work` with these spans as the request being processed on this
    /// thread, so [`model_call`] records into them.
    pub fn current<T>(&self, work: impl FnOnce() -> T) -> T {
        struct Reset(Option<Spans>);
        impl Drop for Reset {
            fn drop(&mut self) {
                CURRENT.with(|c| *c.borrow_mut() = self.0.take());
            }
        }
        let before = CURRENT.with(|c| c.borrow_mut().replace(self.clone()));
        let _reset = Reset(before);
        work()
    }
}

thread_local! {
    static CURRENT: RefCell<Option<Spans>> = const { RefCell::new(None) };
}

/// A call to `model`, timed as a `model.call` span of the request being
/// processed on this thread (if any), with its outcome.
pub fn model_call<T>(
    model: &str,
    purpose: &str,
    call: impl FnOnce() -> SceneResult<T>,
) -> SceneResult<T> {
    let open = CURRENT.with(|c| c.borrow().as_ref().map(|s| s.open("model.call")));
    let result = call();
    if let Some(mut open) = open {
        open.attr("model", model).attr("purpose", purpose);
        open.end_with(&result);
    }
    result
}

/// Work done for a request after it was answered — the companion's run a
/// chat request was handed to, its model and tool calls, its subagents —
/// to be hung under the request's root span ([`attach`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Later {
    pub name: String,
    /// Unix microseconds.
    pub started_at: i64,
    pub duration_us: u64,
    pub outcome: Outcome,
    pub error_code: Option<String>,
    pub attributes: serde_json::Map<String, serde_json::Value>,
    pub children: Vec<Later>,
}

/// `later` as spans of the stored request `trace_id`, under its root span;
/// `None` when no such request was stored (nothing to hang them on).
pub fn attach(
    conn: &Connection,
    trace_id: &str,
    later: &[Later],
) -> SceneResult<Option<Vec<Span>>> {
    let root: Option<String> = conn
        .query_row(
            "SELECT span_id FROM trace_spans WHERE trace_id = ?1 AND parent_span_id IS NULL",
            [trace_id],
            |r| r.get(0),
        )
        .map(Some)
        .or_else(|e| match e {
            rusqlite::Error::QueryReturnedNoRows => Ok(None),
            e => Err(e),
        })
        .map_err(deskmate_store::StoreError::from)?;
    let Some(root) = root else {
        return Ok(None);
    };
    fn flatten(trace_id: &str, parent: &str, later: &[Later], out: &mut Vec<Span>) {
        for l in later {
            let span_id = new_span_id();
            out.push(Span {
                trace_id: trace_id.to_string(),
                span_id: span_id.clone(),
                parent_span_id: Some(parent.to_string()),
                name: l.name.clone(),
                started_at: l.started_at,
                duration_us: l.duration_us,
                outcome: l.outcome,
                error_code: l.error_code.clone(),
                attributes: l.attributes.clone(),
            });
            flatten(trace_id, &span_id, &l.children, out);
        }
    }
    let mut spans = Vec::new();
    flatten(trace_id, &root, later, &mut spans);
    write(conn, &spans).map_err(deskmate_store::StoreError::from)?;
    Ok(Some(spans))
}

/// Stores `spans` (all of one trace) on `conn`, in whatever transaction it
/// is in.
pub fn write(conn: &Connection, spans: &[Span]) -> rusqlite::Result<()> {
    let mut stmt = conn.prepare_cached(
        "INSERT INTO trace_spans (trace_id, span_id, parent_span_id, name, started_at, duration_us, outcome, error_code, attributes)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?;
    for s in spans {
        stmt.execute(params![
            s.trace_id,
            s.span_id,
            s.parent_span_id,
            s.name,
            s.started_at,
            i64::try_from(s.duration_us).unwrap_or(i64::MAX),
            s.outcome.as_str(),
            s.error_code,
            serde_json::Value::Object(s.attributes.clone()).to_string(),
        ])?;
    }
    Ok(())
}

/// The spans of `trace_id`, root first then by start; a damaged row (an
/// unknown outcome, attributes that are not a JSON object, a negative
/// duration, a parent not in the trace) is refused, named.
pub fn read(conn: &Connection, trace_id: &str) -> SceneResult<Vec<Span>> {
    type Row = (
        String,
        Option<String>,
        String,
        i64,
        i64,
        String,
        Option<String>,
        String,
    );
    let rows: Vec<Row> = (|| {
        let mut stmt = conn.prepare(
            "SELECT span_id, parent_span_id, name, started_at, duration_us, outcome, error_code, attributes
             FROM trace_spans WHERE trace_id = ?1 ORDER BY parent_span_id IS NOT NULL, started_at, rowid",
        )?;
        let rows = stmt
            .query_map([trace_id], |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                    r.get(6)?,
                    r.get(7)?,
                ))
            })?
            .collect::<Result<Vec<_>, _>>()?;
        Ok::<_, rusqlite::Error>(rows)
    })()
    .map_err(deskmate_store::StoreError::from)?;
    let mut out: Vec<Span> = Vec::with_capacity(rows.len());
    for (span_id, parent, name, started_at, duration, outcome, error_code, attrs) in rows {
        let damaged = |why: String| SceneError::Damaged {
            what: "trace span",
            reason: format!("span {span_id} of trace {trace_id}: {why}"),
        };
        let outcome = match outcome.as_str() {
            "ok" => Outcome::Ok,
            "error" => Outcome::Error,
            other => return Err(damaged(format!("unknown outcome {other:?}"))),
        };
        let duration_us = u64::try_from(duration)
            .map_err(|_| damaged(format!("negative duration {duration}")))?;
        let attributes = match serde_json::from_str(&attrs) {
            Ok(serde_json::Value::Object(m)) => m,
            _ => return Err(damaged("attributes are not a JSON object".into())),
        };
        out.push(Span {
            trace_id: trace_id.to_string(),
            span_id,
            parent_span_id: parent,
            name,
            started_at,
            duration_us,
            outcome,
            error_code,
            attributes,
        });
    }
    for s in &out {
        if let Some(p) = &s.parent_span_id {
            if !out.iter().any(|o| &o.span_id == p) {
                return Err(SceneError::Damaged {
                    what: "trace span",
                    reason: format!(
                        "span {} of trace {trace_id}: its parent {p} is missing",
                        s.span_id
                    ),
                });
            }
        }
    }
    Ok(out)
}

/// The spans as an indented tree, one line each: the name, how long it
/// took in milliseconds, `ok` or `error` with its code, the attributes.
pub fn timeline(spans: &[Span]) -> String {
    fn draw(spans: &[Span], parent: Option<&str>, depth: usize, out: &mut String) {
        for s in spans
            .iter()
            .filter(|s| s.parent_span_id.as_deref() == parent)
        {
            let outcome = match (&s.outcome, &s.error_code) {
                (Outcome::Error, Some(code)) => format!("error {code}"),
                (o, _) => o.as_str().to_string(),
            };
            let attrs: Vec<String> = s
                .attributes
                .iter()
                .map(|(k, v)| match v {
                    serde_json::Value::String(t) => format!("{k}={t}"),
                    other => format!("{k}={other}"),
                })
                .collect();
            out.push_str(&format!(
                "{}{} {:.1} ms {}{}\n",
                "  ".repeat(depth),
                s.name,
                s.duration_us as f64 / 1000.0,
                outcome,
                if attrs.is_empty() {
                    String::new()
                } else {
                    format!(" · {}", attrs.join(" "))
                }
            ));
            draw(spans, Some(&s.span_id), depth + 1, out);
        }
    }
    let mut out = String::new();
    draw(spans, None, 0, &mut out);
    out
}
