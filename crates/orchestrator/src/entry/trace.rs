//! What the entry logged, shown and taken again: [`Entry::trace`] is one
//! request — what was said, how it was routed and decided, what the child
//! was told, the stage timings and its spans ([`crate::trace`]);
//! [`Entry::replay`] takes every logged decision again with today's rules;
//! [`Entry::decisions`] lists a child's.

use chrono::DateTime;
use rusqlite::{params, OptionalExtension};
use serde::Serialize;

use super::Entry;
use crate::guardrails::{Decision, Session};
use crate::intent_model::classification;
use crate::router::{Intent, Routed, RoutedBy};
use crate::scene::{SceneError, SceneResult};
use crate::trace::Span;
use deskmate_store::StoreError;

/// One request through the entry, as logged: what `deskmate trace show`
/// prints and the parents' timeline shows.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Trace {
    pub trace_id: String,
    pub profile_id: String,
    pub input: String,
    pub scene_before: String,
    pub intent: String,
    pub confidence: String,
    #[cfg_attr(feature = "ts", ts(type = "unknown"))]
    pub decision: serde_json::Value,
    pub reason: String,
    pub scene_after: String,
    /// What the child was told (Chinese).
    pub said: String,
    /// Microseconds per stage: route, decide, act, total.
    #[cfg_attr(feature = "ts", ts(type = "unknown"))]
    pub timings: serde_json::Value,
    pub at: String,
    /// What happened, as spans: the root `request` first, then each stage
    /// by its start (none for a request logged before spans were kept).
    pub spans: Vec<Span>,
}

/// A logged decision taken again with the current rules.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Replayed {
    pub trace_id: String,
    pub input: String,
    pub intent_then: String,
    pub intent_now: Intent,
    pub decision_then: Decision,
    pub decision_now: Decision,
    pub reason_now: String,
    /// Where today's classification came from: `rules`, or `model` (the
    /// model's logged reply, reused: a replay never asks a model).
    pub routed_by: RoutedBy,
    /// The intent or the decision would differ today.
    pub changed: bool,
}

impl Entry {
    /// Every logged decision (of one child, or all), taken again with the
    /// current rules and library in the session it was taken in: what would
    /// change. Oldest first.
    pub fn replay(&self, profile_id: Option<&str>) -> SceneResult<Vec<Replayed>> {
        let catalog = self.catalog()?;
        let rows: Vec<(String, String, String, String, String, String)> =
            self.store.with_conn(|c| {
                let mut stmt = c.prepare(
                "SELECT id, input, session_before, intent, decision, created_at FROM scene_decisions
                 WHERE ?1 IS NULL OR profile_id = ?1 ORDER BY created_at, id",
            )?;
                let rows = stmt
                    .query_map([profile_id], |r| {
                        Ok((
                            r.get(0)?,
                            r.get(1)?,
                            r.get(2)?,
                            r.get(3)?,
                            r.get(4)?,
                            r.get(5)?,
                        ))
                    })?
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(StoreError::from)?;
                Ok(rows)
            })?;
        let mut out = Vec::new();
        for (trace_id, input, session, intent, decision, at) in rows {
            let damaged = |what: &'static str, e: &dyn std::fmt::Display| SceneError::Damaged {
                what,
                reason: format!("decision {trace_id}: {e}"),
            };
            let before: Session =
                serde_json::from_str(&session).map_err(|e| damaged("session", &e))?;
            let stored: Decision =
                serde_json::from_str(&decision).map_err(|e| damaged("decision", &e))?;
            let now = DateTime::parse_from_rfc3339(&at).map_err(|e| damaged("time", &e))?;
            // The model's logged reply stands in for the model: read again
            // against today's library, never asked again.
            let model_reply = self.logged_model_reply(&trace_id)?;
            let mut by_model = false;
            let mut second = |_: &str, _: Option<crate::router::Scene>, offline: &Routed| {
                let c = classification(model_reply.as_deref()?, &catalog).ok()?;
                by_model = true;
                Some(c.over(offline))
            };
            let super::Judged {
                routed,
                decided: again,
                ..
            } = super::judge(&before, &input, &catalog, now.timestamp(), &mut second);
            out.push(Replayed {
                routed_by: if by_model {
                    RoutedBy::Model
                } else {
                    RoutedBy::Rules
                },
                changed: routed.intent.as_str() != intent || again.decision != stored,
                trace_id,
                input,
                intent_then: intent,
                intent_now: routed.intent,
                decision_then: stored,
                decision_now: again.decision,
                reason_now: again.reason.to_string(),
            });
        }
        Ok(out)
    }

    /// The model's reply logged with request `trace_id` (its `route`
    /// span's `model_reply`), if the model was asked and answered.
    fn logged_model_reply(&self, trace_id: &str) -> SceneResult<Option<String>> {
        let attributes: Option<String> = self.store.with_conn(|c| {
            Ok(c.query_row(
                "SELECT attributes FROM trace_spans WHERE trace_id = ?1 AND name = 'route' LIMIT 1",
                [trace_id],
                |r| r.get(0),
            )
            .optional()?)
        })?;
        Ok(attributes
            .and_then(|a| serde_json::from_str::<serde_json::Value>(&a).ok())
            .and_then(|v| v.get("model_reply")?.as_str().map(str::to_string)))
    }

    /// One request's trace: what was said, how it was classified and
    /// decided, what the child was told, and the time of each stage.
    pub fn trace(&self, trace_id: &str) -> SceneResult<Trace> {
        let row = self.store.with_conn(|c| {
            Ok(c.query_row(
                "SELECT id, profile_id, input, scene_before, intent, confidence, decision, reason, scene_after, said, timings, created_at
                 FROM scene_decisions WHERE id = ?1",
                [trace_id],
                |r| {
                    Ok(Trace {
                        trace_id: r.get(0)?,
                        profile_id: r.get(1)?,
                        input: r.get(2)?,
                        scene_before: r.get(3)?,
                        intent: r.get(4)?,
                        confidence: r.get(5)?,
                        decision: serde_json::Value::String(r.get(6)?),
                        reason: r.get(7)?,
                        scene_after: r.get(8)?,
                        said: r.get(9)?,
                        timings: serde_json::Value::String(r.get(10)?),
                        at: r.get(11)?,
                        spans: Vec::new(),
                    })
                },
            )
            .optional()?)
        })?;
        let Some(row) = row else {
            return self.refused_trace(trace_id);
        };
        // Stored as JSON text: shown as JSON.
        let parse = |v: serde_json::Value| match v {
            serde_json::Value::String(s) => {
                serde_json::from_str(&s).unwrap_or(serde_json::Value::String(s))
            }
            other => other,
        };
        let spans = self
            .store
            .with_conn(|c| Ok(crate::trace::read(c, trace_id)))??;
        Ok(Trace {
            decision: parse(row.decision.clone()),
            timings: parse(row.timings.clone()),
            spans,
            ..row
        })
    }

    /// A request refused before a decision (no `scene_decisions` row): its
    /// trace from the spans kept for it ([`Entry::keep_refused`]'s root
    /// attributes), decided `reject` with the refusal's code.
    fn refused_trace(&self, trace_id: &str) -> SceneResult<Trace> {
        let spans = self
            .store
            .with_conn(|c| Ok(crate::trace::read(c, trace_id)))??;
        let root = spans
            .first()
            .filter(|s| s.parent_span_id.is_none())
            .ok_or_else(|| StoreError::NotFound(format!("trace {trace_id}")))?;
        let attr = |k: &str| {
            root.attributes
                .get(k)
                .and_then(|v| v.as_str())
                .unwrap_or_default()
                .to_string()
        };
        let code = root.error_code.clone().unwrap_or_default();
        let at = DateTime::from_timestamp_micros(root.started_at)
            .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true))
            .unwrap_or_default();
        Ok(Trace {
            trace_id: trace_id.to_string(),
            profile_id: attr("profile"),
            input: String::new(),
            scene_before: attr("scene"),
            intent: String::new(),
            confidence: String::new(),
            decision: serde_json::json!({"decision": "reject", "reason": code}),
            reason: format!("refused before a decision: {code}"),
            scene_after: attr("scene"),
            said: attr("said"),
            timings: serde_json::json!({"total_us": root.duration_us}),
            at,
            spans: spans.clone(),
        })
    }

    /// The decisions logged for a child, newest first.
    pub fn decisions(
        &self,
        profile_id: &str,
        limit: usize,
    ) -> SceneResult<Vec<(String, String, String, String)>> {
        Ok(self.store.with_conn(|c| {
            let mut stmt = c.prepare(
                "SELECT input, intent, decision, reason FROM scene_decisions WHERE profile_id = ?1 ORDER BY created_at DESC, id DESC LIMIT ?2",
            )?;
            let rows = stmt
                .query_map(params![profile_id, i64::try_from(limit).unwrap_or(i64::MAX)], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
                })?
                .collect::<Result<Vec<_>, _>>()
                .map_err(StoreError::from)?;
            Ok(rows)
        })?)
    }
}
