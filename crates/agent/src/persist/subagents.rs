//! Subagents' runs as stored: a child of the lead's run that started it
//! (`parent_run_id`, the `task` call it answers, the subagent's name), and
//! what a lead's run cost with its subagents.

use deskmate_store::{now_utc, Store, StoreResult};
use rusqlite::params;
use serde::{Deserialize, Serialize};

use super::{get_run, new_id, run_row, Run, StoredMessage, StoredToolCall, RUN_COLS};

/// Tokens and cost of a lead's run and the subagents it started.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunUsage {
    pub run_id: String,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// US dollars; calls whose model has no known price count 0.
    pub cost_usd: f64,
    pub model_calls: u32,
    /// How many subagent runs it started.
    pub subagent_runs: u32,
}

/// A subagent's run as stored: kept and viewable after it ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChildRunView {
    pub run: Run,
    pub messages: Vec<StoredMessage>,
    pub tool_calls: Vec<StoredToolCall>,
}

/// Starts a subagent's run under `parent_run_id`, answering its `task`
/// call `parent_tool_call_id`.
pub fn start_child_run(
    store: &Store,
    thread_id: &str,
    model: &str,
    parent_run_id: &str,
    parent_tool_call_id: &str,
    agent: &str,
) -> StoreResult<Run> {
    let id = new_id();
    store.with_conn(|c| {
        c.prepare_cached(
            "INSERT INTO runs (id, thread_id, status, model, started_at, parent_run_id, parent_tool_call_id, agent)
             VALUES (?1, ?2, 'running', ?3, ?4, ?5, ?6, ?7)",
        )?
        .execute(params![id, thread_id, model, now_utc(), parent_run_id, parent_tool_call_id, agent])?;
        Ok(())
    })?;
    get_run(store, &id)
}

/// Tokens and cost of a run with the subagent runs it started.
pub fn run_usage_with_subagents(store: &Store, run_id: &str) -> StoreResult<RunUsage> {
    store.with_conn(|c| {
        Ok(c.query_row(
            "SELECT COALESCE(SUM(input_tokens),0), COALESCE(SUM(output_tokens),0), COALESCE(SUM(cost_usd),0.0), COUNT(*),
                    (SELECT COUNT(*) FROM runs WHERE parent_run_id = ?1)
             FROM llm_calls WHERE run_id = ?1 OR run_id IN (SELECT id FROM runs WHERE parent_run_id = ?1)",
            [run_id],
            |r| {
                let u = |i: usize| r.get::<_, i64>(i).map(|v| u64::try_from(v).unwrap_or(0));
                Ok(RunUsage {
                    run_id: run_id.to_string(),
                    input_tokens: u(0)?,
                    output_tokens: u(1)?,
                    cost_usd: r.get(2)?,
                    model_calls: r.get(3)?,
                    subagent_runs: r.get(4)?,
                })
            },
        )?)
    })
}

/// Closes the subagents' runs under `run_id` (at any depth) that were still
/// running when it was stopped: their unanswered calls get `text` and the
/// runs become `cancelled`. (The stop drops a subagent's work where it
/// stands, so its run cannot close itself.) Returns how many were closed.
pub fn stop_child_runs(
    store: &Store,
    thread_id: &str,
    run_id: &str,
    text: &str,
) -> StoreResult<usize> {
    let live: Vec<String> = store.with_conn(|c| {
        let mut stmt = c.prepare_cached(
            "WITH RECURSIVE tree(id) AS (SELECT ?1 UNION SELECT r.id FROM runs r JOIN tree t ON r.parent_run_id = t.id)
             SELECT id FROM runs WHERE id IN (SELECT id FROM tree) AND id <> ?1 AND status = 'running'",
        )?;
        let rows = stmt
            .query_map([run_id], |r| r.get(0))?
            .collect::<Result<Vec<String>, _>>()?;
        Ok(rows)
    })?;
    if live.is_empty() {
        return Ok(0);
    }
    for call in super::all_tool_calls(store, thread_id)? {
        let of_live = call.run_id.as_ref().is_some_and(|r| live.contains(r));
        if of_live && call.status == super::ToolCallStatus::Pending {
            super::finish_tool_call(
                store,
                thread_id,
                call.run_id.as_deref(),
                &call.id,
                text,
                super::ToolCallStatus::Error,
            )?;
        }
    }
    for id in &live {
        super::finish_run(
            store,
            id,
            super::RunStatus::Cancelled,
            Some("stopped by the user"),
        )?;
    }
    Ok(live.len())
}

/// Subagents' runs of a thread, in the order they started.
pub fn child_runs(store: &Store, thread_id: &str) -> StoreResult<Vec<Run>> {
    store.with_conn(|c| {
        let mut stmt = c.prepare_cached(&format!(
            "SELECT {RUN_COLS} FROM runs WHERE thread_id = ?1 AND parent_run_id IS NOT NULL ORDER BY started_at, id"
        ))?;
        let rows = stmt
            .query_map([thread_id], run_row)?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    })
}
