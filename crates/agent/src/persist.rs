//! Thread persistence: threads, messages, runs, tool calls, thread state and
//! model calls, each written the moment it happens (one statement or one
//! transaction), through the store's single connection. These functions
//! block: async callers run them with `spawn_blocking`. A run's own writes
//! (its thread, start, replies, tool results, steps and end) go through
//! [`Store::write`]: committed together with other runs' writes queued at
//! the same moment (group commit), each returning once its commit is done.

use deskmate_llm::{ContentPart, Message, Role, ToolCall, Usage};
use deskmate_store::{now_utc, Store, StoreError, StoreResult};
use rusqlite::{params, Connection, OptionalExtension, Row};
use serde::{Deserialize, Serialize};

use crate::tools::ThreadState;

mod approvals;
mod subagents;
mod summaries;
mod timeline;

pub use approvals::{
    decide_approval, mark_applied, open_approvals, open_approvals_of_thread,
    open_approvals_of_tree, paused_children, request_approvals, root_run, set_call_arguments,
    waiting_call_ids, withdraw_approvals, Approval, ApprovalDecision,
};
pub use deskmate_protocol::chat::{StoredToolCall, Thread, ToolCallStatus};
pub use subagents::{
    child_runs, run_usage_with_subagents, start_child_run, stop_child_runs, ChildRunView, RunUsage,
};
pub use summaries::{insert_summary, model_history};
pub use timeline::{run_timeline, CallKind, RunTimeline, TimedCall};

/// A message as stored: its place in the thread and the message itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredMessage {
    pub id: String,
    pub run_id: Option<String>,
    pub seq: i64,
    pub message: Message,
    pub created_at: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    Running,
    Completed,
    Cancelled,
    Error,
    StepLimit,
    Interrupted,
}

impl RunStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Running => "running",
            RunStatus::Completed => "completed",
            RunStatus::Cancelled => "cancelled",
            RunStatus::Error => "error",
            RunStatus::StepLimit => "step_limit",
            RunStatus::Interrupted => "interrupted",
        }
    }
    fn parse(s: &str) -> Self {
        match s {
            "running" => RunStatus::Running,
            "completed" => RunStatus::Completed,
            "cancelled" => RunStatus::Cancelled,
            "step_limit" => RunStatus::StepLimit,
            "interrupted" => RunStatus::Interrupted,
            _ => RunStatus::Error,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Run {
    pub id: String,
    pub thread_id: String,
    pub status: RunStatus,
    pub model: String,
    pub steps: u32,
    pub error: Option<String>,
    pub started_at: String,
    pub finished_at: Option<String>,
    /// A subagent's run: the run whose `task` call started it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_run_id: Option<String>,
    /// A subagent's run: the `task` call it answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_tool_call_id: Option<String>,
    /// A subagent's run: the subagent's name (e.g. `math-tutor`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
}

/// Everything about a thread, for the chat screen and `threads show`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThreadView {
    pub thread: Thread,
    /// The lead's messages (subagents' are under `children`).
    pub messages: Vec<StoredMessage>,
    pub tool_calls: Vec<StoredToolCall>,
    /// The lead's runs.
    pub runs: Vec<Run>,
    pub state: ThreadState,
    /// Subagent runs, each with its own messages and tool calls, in the
    /// order they started; `run.parent_tool_call_id` is the `task` call
    /// each answers.
    #[serde(default)]
    pub children: Vec<ChildRunView>,
    /// What each of the lead's runs cost, its subagents' model calls included.
    #[serde(default)]
    pub usage: Vec<RunUsage>,
}

/// One model call's record.
#[derive(Debug, Clone, PartialEq)]
pub struct LlmCallRecord {
    pub thread_id: String,
    pub run_id: String,
    pub model: String,
    /// `completed`, `error` or `cancelled`.
    pub status: &'static str,
    pub usage: Usage,
    pub cost_usd: Option<f64>,
    pub duration_ms: u64,
    pub error: Option<String>,
}

fn new_id() -> String {
    uuid::Uuid::now_v7().to_string()
}

fn thread_row(r: &Row<'_>) -> rusqlite::Result<Thread> {
    Ok(Thread {
        id: r.get(0)?,
        profile_id: r.get(1)?,
        title: r.get(2)?,
        created_at: r.get(3)?,
        updated_at: r.get(4)?,
    })
}

fn run_row(r: &Row<'_>) -> rusqlite::Result<Run> {
    let status: String = r.get(2)?;
    Ok(Run {
        id: r.get(0)?,
        thread_id: r.get(1)?,
        status: RunStatus::parse(&status),
        model: r.get(3)?,
        steps: r.get(4)?,
        error: r.get(5)?,
        started_at: r.get(6)?,
        finished_at: r.get(7)?,
        parent_run_id: r.get(8)?,
        parent_tool_call_id: r.get(9)?,
        agent: r.get(10)?,
    })
}

fn call_row(r: &Row<'_>) -> rusqlite::Result<StoredToolCall> {
    let status: String = r.get(5)?;
    Ok(StoredToolCall {
        id: r.get(0)?,
        message_id: r.get(1)?,
        run_id: r.get(2)?,
        name: r.get(3)?,
        arguments: r.get(4)?,
        status: match status.as_str() {
            "pending" => ToolCallStatus::Pending,
            "completed" => ToolCallStatus::Completed,
            "interrupted" => ToolCallStatus::Interrupted,
            _ => ToolCallStatus::Error,
        },
        result: r.get(6)?,
        started_at: r.get(7)?,
        finished_at: r.get(8)?,
    })
}

const THREAD_COLS: &str = "id, profile_id, title, created_at, updated_at";
const RUN_COLS: &str = "id, thread_id, status, model, steps, error, started_at, finished_at, parent_run_id, parent_tool_call_id, agent";

/// SQL true for a row (of `messages` or `tool_calls`) that belongs to a
/// subagent's run.
const OF_CHILD_RUN: &str =
    "EXISTS (SELECT 1 FROM runs r WHERE r.id = run_id AND r.parent_run_id IS NOT NULL)";
const CALL_COLS: &str =
    "id, message_id, run_id, name, arguments, status, result, started_at, finished_at";

/// A thread's title from its first message: the first line, cut short.
pub fn title_from(text: &str) -> String {
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    let mut t: String = line.chars().take(60).collect();
    if t.chars().count() < line.chars().count() {
        t.push('…');
    }
    t
}

pub fn create_thread(store: &Store, profile_id: Option<&str>, title: &str) -> StoreResult<Thread> {
    let id = new_id();
    let now = now_utc();
    let (row, profile_id, title) = (
        id.clone(),
        profile_id.map(str::to_string),
        title.to_string(),
    );
    store.write(move |c| {
        c.prepare_cached(
            "INSERT INTO threads (id, profile_id, title, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?4)",
        )?
        .execute(params![row, profile_id, title, now])?;
        Ok(())
    })?;
    get_thread(store, &id)
}

pub fn get_thread(store: &Store, id: &str) -> StoreResult<Thread> {
    store.with_conn(|c| {
        c.prepare_cached(&format!("SELECT {THREAD_COLS} FROM threads WHERE id = ?1"))?
            .query_row([id], thread_row)
            .optional()?
            .ok_or_else(|| StoreError::NotFound(format!("thread {id}")))
    })
}

/// A thread's metadata (a JSON object a front end keeps on it; `{}` when none
/// was set). A stored value that is not JSON reads as `{}`, never an error.
pub fn thread_metadata(store: &Store, id: &str) -> StoreResult<serde_json::Value> {
    let text: String = store.with_conn(|c| {
        c.prepare_cached("SELECT metadata FROM threads WHERE id = ?1")?
            .query_row([id], |r| r.get(0))
            .optional()?
            .ok_or_else(|| StoreError::NotFound(format!("thread {id}")))
    })?;
    Ok(serde_json::from_str(&text).unwrap_or_else(|_| serde_json::json!({})))
}

/// Replaces a thread's metadata (a JSON object) and touches `updated_at`.
pub fn set_thread_metadata(
    store: &Store,
    id: &str,
    metadata: &serde_json::Map<String, serde_json::Value>,
) -> StoreResult<()> {
    let text = serde_json::Value::Object(metadata.clone()).to_string();
    let changed = store.with_conn(|c| {
        Ok(
            c.prepare_cached("UPDATE threads SET metadata = ?2, updated_at = ?3 WHERE id = ?1")?
                .execute(params![id, text, now_utc()])?,
        )
    })?;
    if changed == 0 {
        return Err(StoreError::NotFound(format!("thread {id}")));
    }
    Ok(())
}

/// Deletes a thread with its messages, runs, tool calls, state and
/// approvals (the schema cascades). Not found when there is none.
pub fn delete_thread(store: &Store, id: &str) -> StoreResult<()> {
    let changed = store.with_conn(|c| {
        Ok(c.prepare_cached("DELETE FROM threads WHERE id = ?1")?
            .execute([id])?)
    })?;
    if changed == 0 {
        return Err(StoreError::NotFound(format!("thread {id}")));
    }
    Ok(())
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

/// Threads, newest activity first; only one profile's when given.
pub fn list_threads(store: &Store, profile_id: Option<&str>) -> StoreResult<Vec<Thread>> {
    store.with_conn(|c| {
        let mut stmt = c.prepare_cached(&format!(
            "SELECT {THREAD_COLS} FROM threads WHERE (?1 IS NULL OR profile_id = ?1) ORDER BY updated_at DESC, id DESC"
        ))?;
        let rows = stmt.query_map([profile_id], thread_row)?.collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    })
}

/// Appends a message to the thread; an assistant message's tool calls are
/// stored with it, `pending`, in the same transaction.
pub fn insert_message(
    store: &Store,
    thread_id: &str,
    run_id: Option<&str>,
    id: Option<&str>,
    m: &Message,
) -> StoreResult<StoredMessage> {
    let id = id.map(str::to_string).unwrap_or_else(new_id);
    let now = now_utc();
    let seq = store.with_conn(|c| {
        let tx = c.transaction()?;
        let seq = insert_message_in(&tx, thread_id, run_id, &id, m, &now)?;
        tx.commit()?;
        Ok(seq)
    })?;
    Ok(StoredMessage {
        id,
        run_id: run_id.map(str::to_string),
        seq,
        message: m.clone(),
        created_at: now,
    })
}

const NEXT_SEQ: &str = "SELECT COALESCE(MAX(seq), 0) + 1 FROM messages WHERE thread_id = ?1";
const INSERT_MESSAGE: &str = "INSERT INTO messages (id, thread_id, run_id, seq, role, content, tool_call_id, is_error, created_at)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)";
const INSERT_TOOL_CALL: &str =
    "INSERT INTO tool_calls (id, thread_id, run_id, message_id, position, name, arguments, status, started_at)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'pending', ?8)";
const TOUCH_THREAD: &str = "UPDATE threads SET updated_at = ?2 WHERE id = ?1";

/// The message's rows (and its tool calls', `pending`), inside the caller's
/// transaction. Returns its place in the thread.
fn insert_message_in(
    c: &Connection,
    thread_id: &str,
    run_id: Option<&str>,
    id: &str,
    m: &Message,
    now: &str,
) -> StoreResult<i64> {
    let content =
        serde_json::to_string(&m.content).map_err(|e| StoreError::Invalid(e.to_string()))?;
    let seq: i64 = c
        .prepare_cached(NEXT_SEQ)?
        .query_row([thread_id], |r| r.get(0))?;
    c.prepare_cached(INSERT_MESSAGE)?.execute(params![
        id,
        thread_id,
        run_id,
        seq,
        m.role.as_str(),
        content,
        m.tool_call_id,
        m.is_error,
        now
    ])?;
    if !m.tool_calls.is_empty() {
        let mut stmt = c.prepare_cached(INSERT_TOOL_CALL)?;
        for (pos, call) in m.tool_calls.iter().enumerate() {
            stmt.execute(params![
                call.id,
                thread_id,
                run_id,
                id,
                i64::try_from(pos).unwrap_or(i64::MAX),
                call.name,
                call.arguments,
                now
            ])?;
        }
    }
    c.prepare_cached(TOUCH_THREAD)?
        .execute(params![thread_id, now])?;
    Ok(seq)
}

/// Stores what one model call produced, in one transaction the moment the
/// reply ends: the call's record (usage, cost, duration) and, when the model
/// said anything, its assistant message `message_id` with its tool calls
/// (`pending`).
pub fn store_model_reply(
    store: &Store,
    record: &LlmCallRecord,
    reply: Option<(&str, &Message)>,
) -> StoreResult<()> {
    let now = now_utc();
    let record = record.clone();
    let reply = reply.map(|(id, m)| (id.to_string(), m.clone()));
    store.write(move |c| {
        record_llm_call_in(c, &record, &now)?;
        if let Some((message_id, m)) = &reply {
            insert_message_in(
                c,
                &record.thread_id,
                Some(&record.run_id),
                message_id,
                m,
                &now,
            )?;
        }
        Ok(())
    })
}

/// Stores a tool call's result: the tool message and the call's new status,
/// together. A call already answered is left alone (returns `None`), so a
/// late result and a synthesized one never both land.
pub fn finish_tool_call(
    store: &Store,
    thread_id: &str,
    run_id: Option<&str>,
    call_id: &str,
    content: &str,
    status: ToolCallStatus,
) -> StoreResult<Option<StoredMessage>> {
    store_tool_result(store, thread_id, run_id, call_id, content, status, None)
}

/// [`finish_tool_call`], and when the tool changed the thread state (a new
/// todo list), that state too — all in one transaction. The state is saved
/// even when the call was already answered, as a separate save would.
pub fn store_tool_result(
    store: &Store,
    thread_id: &str,
    run_id: Option<&str>,
    call_id: &str,
    content: &str,
    status: ToolCallStatus,
    state: Option<&ThreadState>,
) -> StoreResult<Option<StoredMessage>> {
    let status_text = match status {
        ToolCallStatus::Pending | ToolCallStatus::Completed => "completed",
        ToolCallStatus::Error => "error",
        ToolCallStatus::Interrupted => "interrupted",
    };
    let is_error = status != ToolCallStatus::Completed;
    let m = Message::tool_result(call_id, content, is_error);
    let id = new_id();
    let now = now_utc();
    let body = serde_json::to_string(&m.content).map_err(|e| StoreError::Invalid(e.to_string()))?;
    let state = state.map(state_json).transpose()?;
    let row = (
        id.clone(),
        thread_id.to_string(),
        run_id.map(str::to_string),
        call_id.to_string(),
        content.to_string(),
        now.clone(),
    );
    let seq = store.write(move |c| {
        let (id, thread_id, run_id, call_id, content, now) = row;
        if let Some(json) = &state {
            save_state_in(c, &thread_id, json, &now)?;
        }
        let changed = c.prepare_cached(FINISH_CALL)?.execute(params![
            thread_id,
            call_id,
            status_text,
            content,
            now
        ])?;
        if changed == 0 {
            return Ok(None);
        }
        let seq: i64 = c
            .prepare_cached(NEXT_SEQ)?
            .query_row([&thread_id], |r| r.get(0))?;
        c.prepare_cached(INSERT_MESSAGE)?.execute(params![
            id,
            thread_id,
            run_id,
            seq,
            Role::Tool.as_str(),
            body,
            call_id,
            is_error,
            now
        ])?;
        Ok(Some(seq))
    })?;
    Ok(seq.map(|seq| StoredMessage {
        id,
        run_id: run_id.map(str::to_string),
        seq,
        message: m,
        created_at: now,
    }))
}

const FINISH_CALL: &str =
    "UPDATE tool_calls SET status = ?3, result = ?4, finished_at = ?5 WHERE thread_id = ?1 AND id = ?2 AND status = 'pending'";

/// The lead's messages of a thread in order, with each assistant message's
/// tool calls (a subagent's are left out: see [`run_messages`]).
pub fn messages(store: &Store, thread_id: &str) -> StoreResult<Vec<StoredMessage>> {
    load_messages(store, thread_id, None, i64::MIN)
}

/// The lead's messages after position `seq` (what a reader that stopped at
/// `seq` has not seen), in order.
pub fn messages_after(store: &Store, thread_id: &str, seq: i64) -> StoreResult<Vec<StoredMessage>> {
    load_messages(store, thread_id, None, seq)
}

/// One run's messages (a subagent's run: its conversation), in order.
pub fn run_messages(
    store: &Store,
    thread_id: &str,
    run_id: &str,
) -> StoreResult<Vec<StoredMessage>> {
    load_messages(store, thread_id, Some(run_id), i64::MIN)
}

fn load_messages(
    store: &Store,
    thread_id: &str,
    run_id: Option<&str>,
    after_seq: i64,
) -> StoreResult<Vec<StoredMessage>> {
    let calls = all_tool_calls(store, thread_id)?;
    store.with_conn(|c| {
        let mut stmt = c.prepare_cached(&format!(
            "SELECT id, run_id, seq, role, content, tool_call_id, is_error, created_at FROM messages
             WHERE thread_id = ?1 AND summary_of IS NULL AND (CASE WHEN ?2 IS NULL THEN NOT {OF_CHILD_RUN} ELSE run_id = ?2 END) AND seq > ?3 ORDER BY seq",
        ))?;
        let rows = stmt
            .query_map(params![thread_id, run_id, after_seq], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, Option<String>>(1)?,
                    r.get::<_, i64>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, String>(4)?,
                    r.get::<_, Option<String>>(5)?,
                    r.get::<_, bool>(6)?,
                    r.get::<_, String>(7)?,
                ))
            })?
            .collect::<Result<Vec<_>, _>>()?;
        let mut out = Vec::with_capacity(rows.len());
        for (id, run_id, seq, role, content, tool_call_id, is_error, created_at) in rows {
            let content: Vec<ContentPart> = serde_json::from_str(&content)
                .map_err(|e| StoreError::Invalid(format!("message {id} is damaged: {e}")))?;
            let role = Role::parse(&role).ok_or_else(|| StoreError::Invalid(format!("message {id} has an unknown role {role}")))?;
            let tool_calls: Vec<ToolCall> = calls
                .iter()
                .filter(|tc| tc.message_id == id)
                .map(|tc| ToolCall { id: tc.id.clone(), name: tc.name.clone(), arguments: tc.arguments.clone() })
                .collect();
            out.push(StoredMessage { id, run_id, seq, message: Message { role, content, tool_calls, tool_call_id, is_error }, created_at });
        }
        Ok(out)
    })
}

/// The lead's tool calls of a thread (a subagent's are left out).
pub fn tool_calls(store: &Store, thread_id: &str) -> StoreResult<Vec<StoredToolCall>> {
    store.with_conn(|c| {
        let mut stmt = c.prepare_cached(&format!(
            "SELECT {CALL_COLS} FROM tool_calls WHERE thread_id = ?1 AND NOT {OF_CHILD_RUN} ORDER BY started_at, message_id, position"
        ))?;
        let rows = stmt.query_map([thread_id], call_row)?.collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    })
}

/// Every tool call of a thread, the subagents' included.
pub fn all_tool_calls(store: &Store, thread_id: &str) -> StoreResult<Vec<StoredToolCall>> {
    store.with_conn(|c| {
        let mut stmt = c.prepare_cached(&format!(
            "SELECT {CALL_COLS} FROM tool_calls WHERE thread_id = ?1 ORDER BY started_at, message_id, position"
        ))?;
        let rows = stmt.query_map([thread_id], call_row)?.collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    })
}

const INSERT_RUN: &str =
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

pub fn load_state(store: &Store, thread_id: &str) -> StoreResult<ThreadState> {
    let raw: Option<String> = store.with_conn(|c| {
        Ok(
            c.prepare_cached("SELECT state FROM thread_state WHERE thread_id = ?1")?
                .query_row([thread_id], |r| r.get(0))
                .optional()?,
        )
    })?;
    match raw {
        None => Ok(ThreadState::default()),
        Some(s) => serde_json::from_str(&s).map_err(|e| {
            StoreError::Invalid(format!("the state of thread {thread_id} is damaged: {e}"))
        }),
    }
}

pub fn save_state(store: &Store, thread_id: &str, state: &ThreadState) -> StoreResult<()> {
    let json = state_json(state)?;
    let now = now_utc();
    store.with_conn(|c| save_state_in(c, thread_id, &json, &now))
}

fn state_json(state: &ThreadState) -> StoreResult<String> {
    serde_json::to_string(state).map_err(|e| StoreError::Invalid(e.to_string()))
}

fn save_state_in(c: &Connection, thread_id: &str, json: &str, now: &str) -> StoreResult<()> {
    c.prepare_cached(
        "INSERT INTO thread_state (thread_id, state, updated_at) VALUES (?1, ?2, ?3)
         ON CONFLICT(thread_id) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at",
    )?
    .execute(params![thread_id, json, now])?;
    Ok(())
}

pub fn record_llm_call(store: &Store, r: &LlmCallRecord) -> StoreResult<()> {
    let now = now_utc();
    store.with_conn(|c| record_llm_call_in(c, r, &now))
}

fn record_llm_call_in(c: &Connection, r: &LlmCallRecord, now: &str) -> StoreResult<()> {
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

pub fn thread_view(store: &Store, thread_id: &str) -> StoreResult<ThreadView> {
    let all_calls = all_tool_calls(store, thread_id)?;
    let mut children = Vec::new();
    for run in child_runs(store, thread_id)? {
        let tool_calls = all_calls
            .iter()
            .filter(|c| c.run_id.as_deref() == Some(run.id.as_str()))
            .cloned()
            .collect();
        children.push(ChildRunView {
            messages: run_messages(store, thread_id, &run.id)?,
            tool_calls,
            run,
        });
    }
    let runs = runs(store, thread_id)?;
    let usage = runs
        .iter()
        .map(|r| run_usage_with_subagents(store, &r.id))
        .collect::<StoreResult<Vec<_>>>()?;
    Ok(ThreadView {
        thread: get_thread(store, thread_id)?,
        messages: messages(store, thread_id)?,
        tool_calls: tool_calls(store, thread_id)?,
        runs,
        state: load_state(store, thread_id)?,
        children,
        usage,
    })
}
