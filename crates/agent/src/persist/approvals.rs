//! Tool calls waiting for a parent's approval (table `approvals`): asked
//! for when a run pauses, decided by a parent (approve, approve with other
//! arguments, reject with a reason, or answer in place of the tool), and
//! applied when the run continues.
//!
//! A call inside a subagent is held by the subagent's run; its lead's run
//! pauses with it. A parent may name either run when deciding or
//! continuing: the runs of one tree (a lead's run and the subagents' runs
//! under it, at any depth) answer for each other's waiting calls.

use deskmate_llm::ToolCall;
use deskmate_store::{now_utc, Store, StoreError, StoreResult};
use rusqlite::{params, OptionalExtension};
use serde::{Deserialize, Serialize};

pub use deskmate_protocol::chat::ApprovalDecision;

use super::{get_run, run_row, Run, RUN_COLS};

/// The ids of run `?1`'s tree: itself and the subagents' runs under it.
const TREE: &str = "WITH RECURSIVE tree(id) AS (SELECT ?1 UNION SELECT r.id FROM runs r JOIN tree t ON r.parent_run_id = t.id)";

/// The lead's run at the top of `run_id`'s tree (the run itself when it
/// is a lead's).
pub fn root_run(store: &Store, run_id: &str) -> StoreResult<Run> {
    let mut run = get_run(store, run_id)?;
    // Subagents nest a few levels at most; the bound only guards a damaged chain.
    for _ in 0..64 {
        match run.parent_run_id.clone() {
            Some(parent) => run = get_run(store, &parent)?,
            None => return Ok(run),
        }
    }
    Err(StoreError::Invalid(format!(
        "the runs above {run_id} form a loop"
    )))
}

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

/// Calls not yet applied in the tree of the lead's run `root_run_id`
/// (its own and its subagents').
pub fn open_approvals_of_tree(store: &Store, root_run_id: &str) -> StoreResult<Vec<Approval>> {
    let rows = store.with_conn(|c| {
        let mut stmt = c.prepare_cached(&format!(
            "{TREE} SELECT {COLS} FROM approvals WHERE applied_at IS NULL AND run_id IN (SELECT id FROM tree) ORDER BY requested_at, tool_call_id"
        ))?;
        let rows = stmt.query_map([root_run_id], row)?.collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    })?;
    rows.into_iter().map(with_decision).collect()
}

/// The pending calls of `thread_id` that wait for a parent: each call up
/// for approval and not yet applied, and each `task` call whose subagent's
/// run (or one below it) holds such a call. A crash must leave these
/// pending — they are answered when the parent decides — not "interrupted".
pub fn waiting_call_ids(
    store: &Store,
    thread_id: &str,
) -> StoreResult<std::collections::HashSet<String>> {
    let mut ids = std::collections::HashSet::new();
    for a in open_approvals_of_thread(store, thread_id)? {
        ids.insert(a.tool_call_id);
        let mut run = get_run(store, &a.run_id)?;
        for _ in 0..64 {
            let (Some(call), Some(parent)) =
                (run.parent_tool_call_id.clone(), run.parent_run_id.clone())
            else {
                break;
            };
            ids.insert(call);
            run = get_run(store, &parent)?;
        }
    }
    Ok(ids)
}

/// Subagents' runs under `run_id` that paused for a parent's approval: a
/// run `interrupted` whose `task` call is still unanswered (a run a crash
/// cut off has its `task` call answered when it is closed). Continuing
/// `run_id` continues each of them first.
pub fn paused_children(store: &Store, run_id: &str) -> StoreResult<Vec<Run>> {
    store.with_conn(|c| {
        let mut stmt = c.prepare_cached(&format!(
            "SELECT {RUN_COLS} FROM runs r WHERE r.parent_run_id = ?1 AND r.status = 'interrupted'
               AND EXISTS (SELECT 1 FROM tool_calls tc WHERE tc.thread_id = r.thread_id AND tc.id = r.parent_tool_call_id AND tc.status = 'pending')
             ORDER BY r.started_at, r.id"
        ))?;
        let rows = stmt.query_map([run_id], run_row)?.collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    })
}

/// Takes back waiting calls that will not be decided (their run was
/// stopped): each is answered with `text` in the run that holds it, no
/// longer listed as waiting, and a subagent's run paused on it is marked
/// `cancelled`.
pub fn withdraw_approvals(
    store: &Store,
    thread_id: &str,
    calls: &[(String, String)],
    text: &str,
) -> StoreResult<()> {
    for (run_id, call_id) in calls {
        super::finish_tool_call(
            store,
            thread_id,
            Some(run_id),
            call_id,
            text,
            super::ToolCallStatus::Error,
        )?;
        store.with_conn(|c| {
            let tx = c.transaction()?;
            tx.execute(
                "UPDATE approvals SET applied_at = ?3 WHERE thread_id = ?1 AND tool_call_id = ?2 AND applied_at IS NULL",
                params![thread_id, call_id, now_utc()],
            )?;
            tx.execute(
                "UPDATE runs SET status = 'cancelled', error = 'stopped by the user' WHERE id = ?1 AND status = 'interrupted' AND parent_run_id IS NOT NULL",
                [run_id],
            )?;
            tx.commit()?;
            Ok(())
        })?;
    }
    Ok(())
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
    // The run named may be the lead's or a subagent's of the same tree.
    let root = match root_run(store, run_id) {
        Ok(r) => r.id,
        Err(StoreError::NotFound(_)) => run_id.to_string(),
        Err(e) => return Err(e),
    };
    let found = store.with_conn(|c| {
        let changed = c.execute(
            &format!("{TREE} UPDATE approvals SET decision = ?3, detail = ?4, decided_at = ?5 WHERE tool_call_id = ?2 AND run_id IN (SELECT id FROM tree) AND applied_at IS NULL"),
            params![root, tool_call_id, kind, detail, now_utc()],
        )?;
        if changed == 0 {
            return Ok(None);
        }
        Ok(c.query_row(
            &format!("{TREE} SELECT {COLS} FROM approvals WHERE tool_call_id = ?2 AND run_id IN (SELECT id FROM tree)"),
            [root.as_str(), tool_call_id],
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
