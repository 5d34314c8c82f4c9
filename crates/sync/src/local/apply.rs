//! Applying a pulled page: attempts and messages inserted once, every other
//! kind last-writer-wins by hybrid logical clock, with the `applying` flag
//! on so the triggers do not echo them back; a child's deletion takes the
//! child's rows; two children with one name both kept; a message placed in
//! its thread in the order messages were written. Then the review schedule
//! and error patterns of what new attempts touch are counted again.

use deskmate_protocol::sync::{Change, RecordKind, StoredChange};
use rusqlite::types::Value as SqlValue;
use rusqlite::{params, Connection, OptionalExtension, Transaction};
use serde_json::{Map, Value};

use super::{hlc_ms, key_match, shape, to_sql, Shape};
use crate::{SyncError, SyncResult};

/// Applies one pulled page in one transaction and moves the cursor past it.
/// Returns how many changes changed something here.
pub fn apply_page(
    conn: &mut Connection,
    changes: &[StoredChange],
    cursor: i64,
) -> SyncResult<usize> {
    let tx = conn.transaction()?;
    tx.execute("UPDATE sync_state SET applying = 1 WHERE id = 1", [])?;
    let me: Option<String> =
        tx.query_row("SELECT device_id FROM sync_state WHERE id = 1", [], |r| {
            r.get(0)
        })?;
    let mut applied = 0;
    // The child and material of each applied attempt (review state and
    // error patterns are counted again) and error pattern (counted again).
    let mut touched: Vec<(String, String)> = Vec::new();
    let mut recount: Vec<(String, String)> = Vec::new();
    for c in changes {
        if let Some(ms) = hlc_ms(&c.change.hlc) {
            // Receiving a clock moves ours forward: a later local edit wins.
            tx.execute(
                "UPDATE sync_state SET hlc_counter = CASE WHEN ?1 > hlc_ms THEN 0 ELSE hlc_counter END,
                        hlc_ms = max(hlc_ms, ?1) WHERE id = 1",
                [ms],
            )?;
        }
        if me.as_deref() == Some(c.device_id.as_str()) {
            continue;
        }
        if apply_change(&tx, &c.change)? {
            applied += 1;
            let field = |k: &str| c.change.body[k].as_str().unwrap_or_default().to_string();
            let key = (field("profile_id"), field("material_id"));
            if c.change.kind == RecordKind::Attempt && !touched.contains(&key) {
                touched.push(key.clone());
            }
            if matches!(
                c.change.kind,
                RecordKind::Attempt | RecordKind::ErrorPattern
            ) && !c.change.deleted
                && !recount.contains(&key)
            {
                recount.push(key);
            }
        }
    }
    // Review state is not synced: it is recomputed from the merged attempts.
    for (profile, material) in &touched {
        deskmate_recite::schedule::rebuild(&tx, profile, material)?;
    }
    // Nor are error pattern counts: a pulled pattern brings its tip, and
    // the count is the merged attempts' (an edit of the other device's
    // count, applied last-writer-wins above, is counted over).
    for (profile, material) in &recount {
        deskmate_recite::patterns::rebuild(&tx, profile, material)?;
    }
    tx.execute(
        "UPDATE sync_state SET applying = 0, cursor = ?1 WHERE id = 1",
        [cursor],
    )?;
    tx.commit()?;
    Ok(applied)
}

/// Applies one change in a savepoint. A change that points at a record this
/// device no longer has (an attempt at a material deleted here, a message of
/// a thread deleted here) is skipped: what it belonged to is gone.
fn apply_change(tx: &Transaction<'_>, c: &Change) -> SyncResult<bool> {
    tx.execute_batch("SAVEPOINT sync_change")?;
    match apply_one(tx, c) {
        Ok(applied) => {
            tx.execute_batch("RELEASE sync_change")?;
            Ok(applied)
        }
        Err(e) if points_at_nothing(&e) => {
            tx.execute_batch("ROLLBACK TO sync_change; RELEASE sync_change")?;
            Ok(false)
        }
        Err(e) => Err(e),
    }
}

fn points_at_nothing(e: &SyncError) -> bool {
    matches!(
        e,
        SyncError::Store(deskmate_store::StoreError::Sqlite(rusqlite::Error::SqliteFailure(f, _)))
            if f.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_FOREIGNKEY
    )
}

/// The record's key from a change: the body's key columns (the whole row,
/// or only the key for a deletion), or the record id of a deletion without
/// a body (from a device before 0021), for a kind named by its id.
fn change_key(
    tx: &Transaction<'_>,
    shape: &Shape,
    c: &Change,
) -> SyncResult<(String, Vec<SqlValue>)> {
    let values: Vec<SqlValue> = match &c.body {
        Value::Object(body) => shape
            .key
            .iter()
            .map(|k| {
                body.get(*k)
                    .map(to_sql)
                    .ok_or_else(|| SyncError::Invalid(format!("change {} has no {k}", c.change_id)))
            })
            .collect::<SyncResult<_>>()?,
        Value::Null if c.deleted && shape.by_id() => vec![SqlValue::Text(c.record_id.clone())],
        _ => {
            return Err(SyncError::Invalid(format!(
                "change {} has no body",
                c.change_id
            )))
        }
    };
    let key = if shape.by_id() {
        match &values[0] {
            SqlValue::Text(t) => t.clone(),
            _ => {
                return Err(SyncError::Invalid(format!(
                    "change {} has no record id",
                    c.change_id
                )))
            }
        }
    } else {
        let marks: Vec<String> = (1..=values.len()).map(|i| format!("?{i}")).collect();
        tx.query_row(
            &format!("SELECT json_array({})", marks.join(", ")),
            rusqlite::params_from_iter(values.iter()),
            |r| r.get(0),
        )?
    };
    Ok((key, values))
}

fn apply_one(tx: &Transaction<'_>, c: &Change) -> SyncResult<bool> {
    let kind = c.kind;
    let shape = shape(kind);
    let (key, key_values) = change_key(tx, &shape, c)?;
    if kind == RecordKind::Setting {
        // Only family settings: a device's own never come in.
        let family: bool = tx.query_row(
            "SELECT count(*) > 0 FROM sync_family_settings WHERE key = ?1",
            [&key_values[1]],
            |r| r.get(0),
        )?;
        if !family {
            return Ok(false);
        }
    }
    if !kind.append_only() {
        let known: Option<String> = tx
            .query_row(
                "SELECT hlc FROM sync_records WHERE kind = ?1 AND record_id = ?2",
                params![kind.as_str(), key],
                |r| r.get(0),
            )
            .optional()?;
        if known.is_some_and(|k| k.as_str() >= c.hlc.as_str()) {
            return Ok(false); // an edit at least as new is already here
        }
    }
    let applied = write(tx, c, &shape, &key, &key_values)?;
    if !kind.append_only() {
        // After the write: deleting a child clears the clocks of the child's
        // records, the deletion's own clock stays.
        tx.execute(
            "INSERT OR REPLACE INTO sync_records (kind, record_id, hlc) VALUES (?1, ?2, ?3)",
            params![kind.as_str(), key, c.hlc],
        )?;
    }
    Ok(applied)
}

fn write(
    tx: &Transaction<'_>,
    c: &Change,
    shape: &Shape,
    key: &str,
    key_values: &[SqlValue],
) -> SyncResult<bool> {
    let kind = c.kind;
    let table = shape.table;
    if c.deleted && kind == RecordKind::Profile {
        // A child goes with everything of theirs on this device too (chat
        // threads, spans, settings: rows no foreign key removes), as on the
        // device where a parent deleted them.
        let is_child: Option<bool> = tx
            .query_row(
                "SELECT kind = 'child' FROM profiles WHERE id = ?1",
                [key],
                |r| r.get(0),
            )
            .optional()?;
        if is_child == Some(true) {
            deskmate_store::delete_child_rows(tx, key)?;
            return Ok(true);
        }
    }
    if c.deleted {
        let n = tx.execute(
            &format!("DELETE FROM {table} WHERE {}", key_match(shape)),
            rusqlite::params_from_iter(key_values.iter()),
        )?;
        return Ok(n > 0);
    }
    let Value::Object(body) = &c.body else {
        return Err(SyncError::Invalid(format!(
            "change {} has no body",
            c.change_id
        )));
    };
    let renamed;
    let body = if kind == RecordKind::Profile {
        match give_way(tx, key, body)? {
            Some(b) => {
                renamed = b;
                &renamed
            }
            None => body,
        }
    } else {
        body
    };
    // Only columns this build knows, never the device-only ones.
    let columns: Vec<String> = tx
        .prepare(&format!("SELECT name FROM pragma_table_info('{table}')"))?
        .query_map([], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    let mut names = Vec::new();
    let mut values = Vec::new();
    for col in &columns {
        if shape.local_only.contains(&col.as_str()) {
            continue;
        }
        if let Some(v) = body.get(col) {
            names.push(col.clone());
            values.push(to_sql(v));
        }
    }
    let marks: Vec<String> = (1..=names.len()).map(|i| format!("?{i}")).collect();
    let sql = if kind.append_only() {
        format!(
            "INSERT OR IGNORE INTO {table} ({}) VALUES ({})",
            names.join(", "),
            marks.join(", ")
        )
    } else {
        // The key's columns, and an id a device gave its own row of a
        // record named by a natural key, stay as they are.
        let sets: Vec<String> = names
            .iter()
            .filter(|n| *n != "id" && !shape.key.contains(&n.as_str()))
            .map(|n| format!("{n} = excluded.{n}"))
            .collect();
        let update = if sets.is_empty() {
            "NOTHING".to_string()
        } else {
            format!("UPDATE SET {}", sets.join(", "))
        };
        format!(
            "INSERT INTO {table} ({}) VALUES ({}) ON CONFLICT({}) DO {update}",
            names.join(", "),
            marks.join(", "),
            shape.key.join(", "),
        )
    };
    let n = if kind == RecordKind::Message {
        place_message(tx, &sql, &names, values, body)?
    } else {
        tx.execute(&sql, rusqlite::params_from_iter(values.iter()))?
    };
    if n > 0 && kind == RecordKind::Message {
        // A thread is as recent as its newest message, wherever it was written.
        tx.execute(
            "UPDATE threads SET updated_at = max(updated_at, ?2) WHERE id = ?1",
            params![body["thread_id"].as_str(), body["created_at"].as_str()],
        )?;
    }
    Ok(n > 0)
}

/// Two devices that each added a child under one name before they synced
/// hold two profiles, and the name's unique key cannot keep both. Neither is
/// dropped (each has its own attempts): the one with the greater id (the
/// later made, ids being UUIDv7) gives way, on every device alike, as
/// "name (2)" (the first number free here); a parent can rename or delete
/// it. When the pulled profile gives way, the changed body is returned for
/// the write; its own device renames it too when it pulls ours, and sends
/// that. When ours gives way, it is renamed here as a local edit (the sync
/// triggers on), which goes out with the next push.
fn give_way(
    tx: &Transaction<'_>,
    id: &str,
    body: &Map<String, Value>,
) -> SyncResult<Option<Map<String, Value>>> {
    let Some(name) = body.get("name").and_then(Value::as_str) else {
        return Ok(None);
    };
    let key = deskmate_store::profile_name_key(name);
    let other: Option<(String, String)> = tx
        .query_row(
            "SELECT id, name FROM profiles WHERE name_key = ?1 AND id <> ?2",
            params![key, id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    let Some((other_id, other_name)) = other else {
        return Ok(None);
    };
    if id > other_id.as_str() {
        let free = free_name(tx, name)?;
        let mut body = body.clone();
        body.insert(
            "name_key".into(),
            deskmate_store::profile_name_key(&free).into(),
        );
        body.insert("name".into(), free.into());
        return Ok(Some(body));
    }
    let free = free_name(tx, &other_name)?;
    tx.execute("UPDATE sync_state SET applying = 0 WHERE id = 1", [])?;
    tx.execute(
        "UPDATE profiles SET name = ?2, name_key = ?3, updated_at = ?4 WHERE id = ?1",
        params![
            other_id,
            free,
            deskmate_store::profile_name_key(&free),
            deskmate_store::now_utc()
        ],
    )?;
    tx.execute("UPDATE sync_state SET applying = 1 WHERE id = 1", [])?;
    tracing::info!("two children had one name: the one made later was renamed with a number");
    Ok(None)
}

/// `name (2)`, `name (3)`, … : the first no profile here has.
fn free_name(tx: &Transaction<'_>, name: &str) -> SyncResult<String> {
    let base = name.trim();
    for n in 2.. {
        let candidate = format!("{base} ({n})");
        let taken: bool = tx.query_row(
            "SELECT count(*) > 0 FROM profiles WHERE name_key = ?1",
            [deskmate_store::profile_name_key(&candidate)],
            |r| r.get(0),
        )?;
        if !taken {
            return Ok(candidate);
        }
    }
    Err(SyncError::Invalid(format!("no free name like {base} (2)")))
}

/// Puts a pulled message in its thread (`insert` is the message's `INSERT
/// OR IGNORE`). When its place — the thread and `seq` — is another
/// message's (two devices added to one conversation offline), both stay:
/// the new one and the thread's messages from that place on are put in the
/// order they were written (`created_at`, then id) and numbered again from
/// there, so every device ends with the same order whichever message
/// reached it first. Returns 1 when the message went in, 0 when it was here.
fn place_message(
    tx: &Transaction<'_>,
    insert: &str,
    names: &[String],
    mut values: Vec<SqlValue>,
    body: &Map<String, Value>,
) -> SyncResult<usize> {
    let (Some(id), Some(thread), Some(seq)) = (
        body.get("id").and_then(Value::as_str),
        body.get("thread_id").and_then(Value::as_str),
        body.get("seq").and_then(Value::as_i64),
    ) else {
        return Ok(tx.execute(insert, rusqlite::params_from_iter(values.iter()))?);
    };
    let here: bool = tx.query_row(
        "SELECT count(*) > 0 FROM messages WHERE id = ?1",
        [id],
        |r| r.get(0),
    )?;
    if here {
        return Ok(0);
    }
    let taken: bool = tx.query_row(
        "SELECT count(*) > 0 FROM messages WHERE thread_id = ?1 AND seq = ?2",
        params![thread, seq],
        |r| r.get(0),
    )?;
    if !taken {
        return Ok(tx.execute(insert, rusqlite::params_from_iter(values.iter()))?);
    }
    // Out of the way (places start at 1, so 0 and below are free), in at
    // 0, then everyone from `seq` on placed by when it was written.
    tx.execute(
        "UPDATE messages SET seq = -seq WHERE thread_id = ?1 AND seq >= ?2",
        params![thread, seq],
    )?;
    if let Some(at) = names.iter().position(|n| n == "seq") {
        values[at] = SqlValue::Integer(0);
    }
    let n = tx.execute(insert, rusqlite::params_from_iter(values.iter()))?;
    let order: Vec<String> = tx
        .prepare(
            "SELECT id FROM messages WHERE thread_id = ?1 AND seq <= 0 ORDER BY created_at, id",
        )?
        .query_map([thread], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    for (place, moved) in (seq..).zip(&order) {
        tx.execute(
            "UPDATE messages SET seq = ?2 WHERE id = ?1",
            params![moved, place],
        )?;
    }
    Ok(n)
}
