//! Tool calls waiting for a parent's approval (table `approvals`): asked
//! for when a run pauses, decided by a parent (approve, approve with other
//! arguments, reject with a reason, or answer in place of the tool), and
//! applied when the run continues.

use deskmate_llm::ToolCall;
use deskmate_store::{now_utc, Store, StoreError, StoreResult};
use rusqlite::{params, OptionalExtension};
use serde::{Deserialize, Serialize};

pub use deskmate_protocol::chat::ApprovalDecision;

/// A call waiting for (or holding) a decision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Approval {
    pub tool_call_id: String,
    pub thread_id: String,
    pub run_id: String,
    pub tool: String,
    pub arguments: String,
    pub requested_at: String,
    pub decision: Option<ApprovalDecision>,
}

/// Puts `calls` of `run_id` up for approval.
pub fn request_approvals(
    store: &Store,
    thread_id: &str,
    run_id: &str,
    calls: &[ToolCall],
) -> StoreResult<()> {
    let now = now_utc();
    store.with_conn(|c| {
        let tx = c.transaction()?;
        for call in calls {
            tx.execute(
                "INSERT INTO approvals (tool_call_id, thread_id, run_id, tool, arguments, requested_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![call.id, thread_id, run_id, call.name, call.arguments, now],
            )?;
        }
        tx.commit()?;
        Ok(())
    })
}

const COLS: &str =
    "tool_call_id, thread_id, run_id, tool, arguments, requested_at, decision, detail";

fn row(r: &rusqlite::Row<'_>) -> rusqlite::Result<(Approval, Option<String>, Option<String>)> {
    Ok((
        Approval {
            tool_call_id: r.get(0)?,
            thread_id: r.get(1)?,
            run_id: r.get(2)?,
            tool: r.get(3)?,
            arguments: r.get(4)?,
            requested_at: r.get(5)?,
            decision: None,
        },
        r.get(6)?,
        r.get(7)?,
    ))
}

fn with_decision(
    (mut a, kind, detail): (Approval, Option<String>, Option<String>),
) -> StoreResult<Approval> {
    let detail = detail.unwrap_or_default();
    a.decision = match kind.as_deref() {
        None => None,
        Some("approve") => Some(ApprovalDecision::Approve),
        Some("edit") => Some(ApprovalDecision::Edit { arguments: detail }),
        Some("reject") => Some(ApprovalDecision::Reject { reason: detail }),
        Some("respond") => Some(ApprovalDecision::Respond { answer: detail }),
        Some(other) => {
            return Err(StoreError::Invalid(format!(
                "an approval has an unknown decision {other:?}"
            )))
        }
    };
    Ok(a)
}

/// Calls not yet applied: of one run, or of every run (newest first).
pub fn open_approvals(store: &Store, run_id: Option<&str>) -> StoreResult<Vec<Approval>> {
    let rows = store.with_conn(|c| {
        let mut stmt = c.prepare_cached(&format!(
            "SELECT {COLS} FROM approvals WHERE applied_at IS NULL AND (?1 IS NULL OR run_id = ?1) ORDER BY requested_at DESC, tool_call_id"
        ))?;
        let rows = stmt.query_map([run_id], row)?.collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    })?;
    rows.into_iter().map(with_decision).collect()
}

/// Calls of `thread_id` not yet applied.
pub fn open_approvals_of_thread(store: &Store, thread_id: &str) -> StoreResult<Vec<Approval>> {
    let rows = store.with_conn(|c| {
        let mut stmt = c.prepare_cached(&format!(
            "SELECT {COLS} FROM approvals WHERE applied_at IS NULL AND thread_id = ?1 ORDER BY requested_at, tool_call_id"
        ))?;
        let rows = stmt.query_map([thread_id], row)?.collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    })?;
    rows.into_iter().map(with_decision).collect()
}

/// Records a parent's decision on a waiting call (a later one replaces it
/// until the run continues).
pub fn decide_approval(
    store: &Store,
    run_id: &str,
    tool_call_id: &str,
    decision: &ApprovalDecision,
) -> StoreResult<Approval> {
    let (kind, detail) = match decision {
        ApprovalDecision::Approve => ("approve", None),
        ApprovalDecision::Edit { arguments } => {
            serde_json::from_str::<serde_json::Value>(arguments).map_err(|e| {
                StoreError::Invalid(format!("the changed arguments are not JSON: {e}"))
            })?;
            ("edit", Some(arguments.as_str()))
        }
        ApprovalDecision::Reject { reason } => ("reject", Some(reason.as_str())),
        ApprovalDecision::Respond { answer } => ("respond", Some(answer.as_str())),
    };
    let found = store.with_conn(|c| {
        let changed = c.execute(
            "UPDATE approvals SET decision = ?2, detail = ?3, decided_at = ?4 WHERE tool_call_id = ?1 AND run_id = ?5 AND applied_at IS NULL",
            params![tool_call_id, kind, detail, now_utc(), run_id],
        )?;
        if changed == 0 {
            return Ok(None);
        }
        Ok(c.query_row(
            &format!("SELECT {COLS} FROM approvals WHERE tool_call_id = ?1 AND run_id = ?2"),
            [tool_call_id, run_id],
            row,
        )
        .optional()?)
    })?;
    match found {
        Some(r) => with_decision(r),
        None => Err(StoreError::NotFound(format!(
            "a tool call {tool_call_id} of run {run_id} waiting for approval"
        ))),
    }
}

/// Marks a run's decided calls as applied (the run is continuing).
pub fn mark_applied(store: &Store, run_id: &str, tool_call_ids: &[String]) -> StoreResult<()> {
    let now = now_utc();
    store.with_conn(|c| {
        let tx = c.transaction()?;
        for id in tool_call_ids {
            tx.execute(
                "UPDATE approvals SET applied_at = ?2 WHERE tool_call_id = ?1 AND run_id = ?3",
                params![id, now, run_id],
            )?;
        }
        tx.commit()?;
        Ok(())
    })
}

/// Records the arguments a call actually ran with (a parent changed them).
pub fn set_call_arguments(
    store: &Store,
    thread_id: &str,
    tool_call_id: &str,
    arguments: &str,
) -> StoreResult<()> {
    store.with_conn(|c| {
        c.execute(
            "UPDATE tool_calls SET arguments = ?3 WHERE thread_id = ?1 AND id = ?2",
            params![thread_id, tool_call_id, arguments],
        )?;
        Ok(())
    })
}
