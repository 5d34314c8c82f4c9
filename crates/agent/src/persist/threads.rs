//! Threads: made (titled from the first message), read, their metadata,
//! listed, deleted with everything in them, and the whole view of one
//! (messages, tool calls, runs with their usage, subagents' runs, state).

use super::*;

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
