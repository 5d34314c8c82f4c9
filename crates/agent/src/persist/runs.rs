//! Runs: started (with the child's message in one transaction), their
//! steps, ended, interrupted after a crash (dangling calls answered),
//! discarded with everything they wrote, and the model calls they made
//! with their usage and cost.

use super::*;

pub(super) const INSERT_RUN: &str =
    "INSERT INTO runs (id, thread_id, status, model, started_at) VALUES (?1, ?2, 'running', ?3, ?4)";

pub fn start_run(store: &Store, thread_id: &str, model: &str) -> StoreResult<Run> {
    let id = new_id();
    store.with_conn(|c| {
        c.prepare_cached(INSERT_RUN)?
            .execute(params![id, thread_id, model, now_utc()])?;
        Ok(())
    })?;
    get_run(store, &id)
}

/// Starts a run with the message that asked for it, in one transaction:
/// a crash leaves both or neither, and the database commits once instead
/// of twice (each commit rewrites the touched pages into the WAL).
pub fn start_run_with_message(
    store: &Store,
    thread_id: &str,
    model: &str,
    m: &Message,
) -> StoreResult<Run> {
    let id = new_id();
    let now = now_utc();
    let row = (
        id.clone(),
        thread_id.to_string(),
        model.to_string(),
        m.clone(),
    );
    store.write(move |c| {
        let (id, thread_id, model, m) = row;
        c.prepare_cached(INSERT_RUN)?
            .execute(params![id, thread_id, model, now])?;
        insert_message_in(c, &thread_id, Some(&id), &new_id(), &m, &now)?;
        Ok(())
    })?;
    get_run(store, &id)
}

pub fn get_run(store: &Store, id: &str) -> StoreResult<Run> {
    store.with_conn(|c| {
        c.prepare_cached(&format!("SELECT {RUN_COLS} FROM runs WHERE id = ?1"))?
            .query_row([id], run_row)
            .optional()?
            .ok_or_else(|| StoreError::NotFound(format!("run {id}")))
    })
}

/// The lead's runs of a thread (subagents' runs: [`child_runs`]).
pub fn runs(store: &Store, thread_id: &str) -> StoreResult<Vec<Run>> {
    store.with_conn(|c| {
        let mut stmt = c.prepare_cached(&format!(
            "SELECT {RUN_COLS} FROM runs WHERE thread_id = ?1 AND parent_run_id IS NULL ORDER BY started_at, id"
        ))?;
        let rows = stmt
            .query_map([thread_id], run_row)?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    })
}

/// Runs of this device still marked `running` (live in another process,
/// or cut off by a crash). A run another of the family's devices is writing
/// (pulled by sync) is left out: closing it here would overwrite what that
/// device writes (`deskmate_store::RUN_OF_THIS_DEVICE`).
pub fn running_runs(store: &Store, thread_id: Option<&str>) -> StoreResult<Vec<Run>> {
    store.with_conn(|c| {
        let mut stmt = c.prepare_cached(&format!(
            "SELECT {RUN_COLS} FROM runs WHERE status = 'running' AND (?1 IS NULL OR thread_id = ?1)
             AND {} ORDER BY started_at",
            deskmate_store::RUN_OF_THIS_DEVICE
        ))?;
        let rows = stmt
            .query_map([thread_id], run_row)?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    })
}

pub fn set_run_steps(store: &Store, run_id: &str, steps: u32) -> StoreResult<()> {
    let run_id = run_id.to_string();
    store.write(move |c| {
        c.prepare_cached("UPDATE runs SET steps = ?2 WHERE id = ?1")?
            .execute(params![run_id, steps])?;
        Ok(())
    })
}

/// Marks an interrupted run as running again (it is being continued).
pub fn reopen_run(store: &Store, run_id: &str) -> StoreResult<()> {
    store.with_conn(|c| {
        c.prepare_cached(
            "UPDATE runs SET status = 'running', error = NULL, finished_at = NULL WHERE id = ?1 AND status = 'interrupted'",
        )?
        .execute([run_id])?;
        Ok(())
    })
}

pub fn finish_run(
    store: &Store,
    run_id: &str,
    status: RunStatus,
    error: Option<&str>,
) -> StoreResult<()> {
    let (run_id, error, now) = (run_id.to_string(), error.map(str::to_string), now_utc());
    store.write(move |c| {
        c.prepare_cached(
            "UPDATE runs SET status = ?2, error = ?3, finished_at = ?4 WHERE id = ?1 AND status = 'running'",
        )?
        .execute(params![run_id, status.as_str(), error, now])?;
        Ok(())
    })
}

/// Marks a run cut off by a crash as `interrupted` and gives each of the
/// thread's unanswered tool calls a synthesized "interrupted" result, so the
/// conversation is whole again and can go on. Each answer is its own
/// transaction and the run is closed last, so running it again after a
/// second crash finishes the job. Calls waiting for a parent's approval
/// (and the `task` calls whose subagents hold them) stay pending: they are
/// answered when the parent decides and the run continues.
pub fn interrupt_run(store: &Store, run: &Run) -> StoreResult<usize> {
    let waiting = waiting_call_ids(store, &run.thread_id)?;
    // Every pending call of the thread, a subagent's included.
    let pending: Vec<StoredToolCall> = all_tool_calls(store, &run.thread_id)?
        .into_iter()
        .filter(|c| c.status == ToolCallStatus::Pending && !waiting.contains(&c.id))
        .collect();
    let mut answered = 0;
    for call in &pending {
        let text = format!(
            "Error: the tool call {} was interrupted (Deskmate stopped before it finished); it may not have run.",
            call.name
        );
        if finish_tool_call(
            store,
            &run.thread_id,
            call.run_id.as_deref(),
            &call.id,
            &text,
            ToolCallStatus::Interrupted,
        )?
        .is_some()
        {
            answered += 1;
        }
    }
    finish_run(
        store,
        &run.id,
        RunStatus::Interrupted,
        Some("Deskmate stopped while this run was in progress"),
    )?;
    Ok(answered)
}

/// Removes a run that has ended and everything it wrote: its messages
/// (the one that started it too) and tool calls, its subagents' runs with
/// theirs, and its approvals — LangGraph's `rollback`, the thread as it was
/// before the run. The model calls it made stay, for usage and cost,
/// unlinked from it; the thread's state (the todo list) is not rolled back.
/// Records not yet sent by sync are taken out of its outbox; ones already
/// sent stay on the family's other devices. Refused while it runs.
pub fn discard_run(store: &Store, run_id: &str) -> StoreResult<()> {
    store.with_conn(|c| {
        let tx = c.transaction()?;
        let status: Option<String> = tx
            .query_row(
                "SELECT status FROM runs WHERE id = ?1",
                [run_id],
                |r| r.get(0),
            )
            .optional()?;
        match status.as_deref() {
            None => return Err(StoreError::NotFound(format!("run {run_id}"))),
            Some("running") => {
                return Err(StoreError::Invalid(format!(
                    "run {run_id} is still running: stop it before discarding it"
                )))
            }
            Some(_) => {}
        }
        let tree = "WITH RECURSIVE tree(id) AS (
                SELECT ?1 UNION ALL SELECT r.id FROM runs r JOIN tree t ON r.parent_run_id = t.id)";
        tx.execute(
            &format!(
                "{tree} DELETE FROM sync_outbox WHERE deleted = 0 AND (
                   (kind = 'message' AND record_id IN (SELECT id FROM messages WHERE run_id IN tree))
                   OR (kind = 'tool_call' AND record_id IN (
                       SELECT json_array(thread_id, id) FROM tool_calls WHERE run_id IN tree))
                   OR (kind = 'run' AND record_id IN tree))"
            ),
            [run_id],
        )?;
        tx.execute(
            &format!("{tree} DELETE FROM tool_calls WHERE run_id IN tree"),
            [run_id],
        )?;
        tx.execute(
            &format!("{tree} DELETE FROM messages WHERE run_id IN tree"),
            [run_id],
        )?;
        // Its subagents' runs and its approvals go with it (the schema
        // cascades).
        tx.execute("DELETE FROM runs WHERE id = ?1", [run_id])?;
        tx.commit()?;
        Ok(())
    })
}

pub fn record_llm_call(store: &Store, r: &LlmCallRecord) -> StoreResult<()> {
    let now = now_utc();
    store.with_conn(|c| record_llm_call_in(c, r, &now))
}

pub(super) fn record_llm_call_in(c: &Connection, r: &LlmCallRecord, now: &str) -> StoreResult<()> {
    let n = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
    c.prepare_cached(
        "INSERT INTO llm_calls (id, thread_id, run_id, model, status, input_tokens, output_tokens, cached_input_tokens, cost_usd, duration_ms, error, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
    )?
    .execute(params![
        new_id(),
        r.thread_id,
        r.run_id,
        r.model,
        r.status,
        n(r.usage.input_tokens),
        n(r.usage.output_tokens),
        n(r.usage.cached_input_tokens),
        r.cost_usd,
        n(r.duration_ms),
        r.error,
        now
    ])?;
    Ok(())
}

/// Total tokens and cost of a run's model calls.
pub fn run_usage(store: &Store, run_id: &str) -> StoreResult<(Usage, f64, u32)> {
    store.with_conn(|c| {
        Ok(c.query_row(
            "SELECT COALESCE(SUM(input_tokens),0), COALESCE(SUM(output_tokens),0), COALESCE(SUM(cached_input_tokens),0),
                    COALESCE(SUM(cost_usd),0.0), COUNT(*) FROM llm_calls WHERE run_id = ?1",
            [run_id],
            |r| {
                let u = |i: usize| r.get::<_, i64>(i).map(|v| u64::try_from(v).unwrap_or(0));
                Ok((Usage { input_tokens: u(0)?, output_tokens: u(1)?, cached_input_tokens: u(2)? }, r.get(3)?, r.get(4)?))
            },
        )?)
    })
}
