//! A thread's messages and tool calls: appended in order (`seq`), an
//! assistant's reply stored with its calls `pending` in one transaction,
//! each call finished with its result, and read back whole, after a
//! point, or for one run.

use super::*;

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

pub(super) const NEXT_SEQ: &str =
    "SELECT COALESCE(MAX(seq), 0) + 1 FROM messages WHERE thread_id = ?1";
pub(super) const INSERT_MESSAGE: &str = "INSERT INTO messages (id, thread_id, run_id, seq, role, content, tool_call_id, is_error, created_at)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)";
pub(super) const INSERT_TOOL_CALL: &str =
    "INSERT INTO tool_calls (id, thread_id, run_id, message_id, position, name, arguments, status, started_at)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'pending', ?8)";
pub(super) const TOUCH_THREAD: &str = "UPDATE threads SET updated_at = ?2 WHERE id = ?1";

/// The message's rows (and its tool calls', `pending`), inside the caller's
/// transaction. Returns its place in the thread.
pub(super) fn insert_message_in(
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

pub(super) const FINISH_CALL: &str =
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

pub(super) fn load_messages(
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
    calls_of(store, thread_id, false)
}

/// Every tool call of a thread, the subagents' included.
pub fn all_tool_calls(store: &Store, thread_id: &str) -> StoreResult<Vec<StoredToolCall>> {
    calls_of(store, thread_id, true)
}

fn calls_of(store: &Store, thread_id: &str, subagents: bool) -> StoreResult<Vec<StoredToolCall>> {
    let lead_only = if subagents {
        String::new()
    } else {
        format!("AND NOT {OF_CHILD_RUN}")
    };
    store.with_conn(|c| {
        let mut stmt = c.prepare_cached(&format!(
            "SELECT {CALL_COLS} FROM tool_calls WHERE thread_id = ?1 {lead_only} ORDER BY started_at, message_id, position"
        ))?;
        let rows = stmt.query_map([thread_id], call_row)?.collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    })
}
