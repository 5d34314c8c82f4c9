//! A thread's state (its todo list) as JSON: read, and saved whole.

use super::*;

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

pub(super) fn state_json(state: &ThreadState) -> StoreResult<String> {
    serde_json::to_string(state).map_err(|e| StoreError::Invalid(e.to_string()))
}

pub(super) fn save_state_in(
    c: &Connection,
    thread_id: &str,
    json: &str,
    now: &str,
) -> StoreResult<()> {
    c.prepare_cached(
        "INSERT INTO thread_state (thread_id, state, updated_at) VALUES (?1, ?2, ?3)
         ON CONFLICT(thread_id) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at",
    )?
    .execute(params![thread_id, json, now])?;
    Ok(())
}
