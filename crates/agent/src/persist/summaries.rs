//! Summaries of long conversations as stored: a summary is a message of the
//! thread with `summary_of`, the last lead message it stands for; the
//! model's history starts from the newest one (see `crate::summarize`).

use deskmate_llm::{ContentPart, Message};
use deskmate_store::{now_utc, Store, StoreError, StoreResult};
use rusqlite::{params, OptionalExtension};

use super::{messages, new_id, StoredMessage, NEXT_SEQ, OF_CHILD_RUN};

/// What the lead's model is sent of a thread: from the newest summary (if
/// any: the summary, then the messages after those it covers), else every
/// lead message.
pub fn model_history(store: &Store, thread_id: &str) -> StoreResult<Vec<Message>> {
    let summary: Option<(String, i64)> = store.with_conn(|c| {
        Ok(c.query_row(
            &format!(
                "SELECT content, summary_of FROM messages WHERE thread_id = ?1 AND summary_of IS NOT NULL AND NOT {OF_CHILD_RUN}
                 ORDER BY seq DESC LIMIT 1"
            ),
            [thread_id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?)
    })?;
    let all = messages(store, thread_id)?;
    Ok(match summary {
        None => all.into_iter().map(|m| m.message).collect(),
        Some((content, covered)) => {
            let content: Vec<ContentPart> = serde_json::from_str(&content)
                .map_err(|e| StoreError::Invalid(format!("a summary is damaged: {e}")))?;
            let summary = Message {
                content,
                ..Message::user("")
            };
            std::iter::once(summary)
                .chain(
                    all.into_iter()
                        .filter(|m| m.seq > covered)
                        .map(|m| m.message),
                )
                .collect()
        }
    })
}

/// Stores `summary` for the lead's messages before the newest `kept` ones
/// (the model's history then starts from it: see [`model_history`]).
pub fn insert_summary(
    store: &Store,
    thread_id: &str,
    run_id: &str,
    summary: &Message,
    kept: usize,
) -> StoreResult<StoredMessage> {
    let id = new_id();
    let now = now_utc();
    let content =
        serde_json::to_string(&summary.content).map_err(|e| StoreError::Invalid(e.to_string()))?;
    let seq = store.with_conn(|c| {
        let tx = c.transaction()?;
        let covered: i64 = tx.query_row(
            &format!(
                "SELECT seq FROM messages WHERE thread_id = ?1 AND summary_of IS NULL AND NOT {OF_CHILD_RUN}
                 ORDER BY seq DESC LIMIT 1 OFFSET ?2"
            ),
            params![thread_id, i64::try_from(kept).unwrap_or(i64::MAX)],
            |r| r.get(0),
        )?;
        let seq: i64 = tx.prepare_cached(NEXT_SEQ)?.query_row([thread_id], |r| r.get(0))?;
        tx.execute(
            "INSERT INTO messages (id, thread_id, run_id, seq, role, content, is_error, created_at, summary_of)
             VALUES (?1, ?2, ?3, ?4, 'user', ?5, 0, ?6, ?7)",
            params![id, thread_id, run_id, seq, content, now, covered],
        )?;
        tx.commit()?;
        Ok(seq)
    })?;
    Ok(StoredMessage {
        id,
        run_id: Some(run_id.to_string()),
        seq,
        message: summary.clone(),
        created_at: now,
    })
}
