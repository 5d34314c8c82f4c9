//! What a run did, in time: each model call and tool call with when it
//! started, how long it took and whether it worked, and the subagent runs
//! it started, each the same way. The orchestrator's request timeline shows
//! this under a request the entry handed to the companion, so a parent sees
//! where the time of "月亮上有兔子吗" went.

use deskmate_store::{Store, StoreResult};
use rusqlite::params;

use super::{get_run, Run};

/// A model call or a tool call of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct TimedCall {
    /// `model` or `tool`.
    pub kind: CallKind,
    /// The model (`provider:model`) or the tool's name.
    pub name: String,
    /// When it started (RFC 3339).
    pub started_at: String,
    pub duration_ms: u64,
    /// Its stored status: `completed`, `error`, `cancelled`, `pending`, …
    pub status: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallKind {
    Model,
    Tool,
}

/// One run's calls in the order they started, and its subagent runs.
#[derive(Debug, Clone, PartialEq)]
pub struct RunTimeline {
    pub run: Run,
    pub calls: Vec<TimedCall>,
    pub subagents: Vec<RunTimeline>,
}

fn ms_between(from: &str, to: &str) -> Option<u64> {
    let from = chrono::DateTime::parse_from_rfc3339(from).ok()?;
    let to = chrono::DateTime::parse_from_rfc3339(to).ok()?;
    u64::try_from((to - from).num_milliseconds()).ok()
}

/// The timeline of `run_id` (an unknown run is the store's `not found`).
/// A model call's row is written when it ends, so its start is its end less
/// its duration; a tool call still pending counts up to the run's end.
pub fn run_timeline(store: &Store, run_id: &str) -> StoreResult<RunTimeline> {
    let run = get_run(store, run_id)?;
    let run_end = run
        .finished_at
        .clone()
        .unwrap_or_else(deskmate_store::now_utc);
    let (mut calls, children) = store.with_conn(|c| {
        let mut calls = Vec::new();
        let mut stmt = c.prepare_cached(
            "SELECT model, status, duration_ms, created_at FROM llm_calls WHERE run_id = ?1 ORDER BY created_at, rowid",
        )?;
        let rows = stmt.query_map(params![run_id], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, i64>(2)?,
                r.get::<_, String>(3)?,
            ))
        })?;
        for row in rows {
            let (model, status, duration_ms, ended) = row?;
            let duration_ms = u64::try_from(duration_ms).unwrap_or(0);
            let started_at = chrono::DateTime::parse_from_rfc3339(&ended)
                .map(|end| {
                    (end - chrono::Duration::milliseconds(
                        i64::try_from(duration_ms).unwrap_or(0),
                    ))
                    .with_timezone(&chrono::Utc)
                    .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
                })
                .unwrap_or(ended);
            calls.push(TimedCall {
                kind: CallKind::Model,
                name: model,
                started_at,
                duration_ms,
                status,
            });
        }
        let mut stmt = c.prepare_cached(
            "SELECT name, status, started_at, finished_at FROM tool_calls WHERE run_id = ?1 ORDER BY started_at, position",
        )?;
        let rows = stmt.query_map(params![run_id], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, Option<String>>(3)?,
            ))
        })?;
        for row in rows {
            let (name, status, started_at, finished_at) = row?;
            let end = finished_at.as_deref().unwrap_or(&run_end);
            calls.push(TimedCall {
                kind: CallKind::Tool,
                duration_ms: ms_between(&started_at, end).unwrap_or(0),
                name,
                started_at,
                status,
            });
        }
        let mut stmt = c.prepare_cached(
            "SELECT id FROM runs WHERE parent_run_id = ?1 ORDER BY started_at, id",
        )?;
        let children = stmt
            .query_map(params![run_id], |r| r.get::<_, String>(0))?
            .collect::<Result<Vec<_>, _>>()?;
        Ok((calls, children))
    })?;
    calls.sort_by(|a, b| a.started_at.cmp(&b.started_at));
    let subagents = children
        .iter()
        .map(|id| run_timeline(store, id))
        .collect::<StoreResult<Vec<_>>>()?;
    Ok(RunTimeline {
        run,
        calls,
        subagents,
    })
}
