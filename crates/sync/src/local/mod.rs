//! The device's side of sync, in SQLite: the sync state row, the outbox the
//! store's triggers fill (migrations 0012 and 0021), the hybrid logical
//! clock, each kind's shape and the bodies sent for each record. Applying
//! pulled pages is in `apply.rs`.
//!
//! A record is named by its key ([`Shape::key`]): its `id`, or for a record
//! whose identity is a natural key (a goal: the child and the goal's kind)
//! the JSON array of those columns, the same text on every device. The
//! server wants a UUID per record: such a key goes as a UUIDv5 of it.

use deskmate_protocol::sync::{Change, RecordKind};
use rusqlite::types::{Value as SqlValue, ValueRef};
use rusqlite::{params, Connection, OptionalExtension, Transaction};
use serde_json::{Map, Value};

use crate::{SyncError, SyncResult};

mod apply;
pub use apply::apply_page;

/// What `sync_state` holds.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct LocalState {
    pub enabled: bool,
    pub transcripts: bool,
    pub server_url: Option<String>,
    pub vault_id: Option<String>,
    pub family_id: Option<String>,
    pub device_id: Option<String>,
    pub cursor: i64,
    pub last_sync_at: Option<String>,
    pub last_error: Option<String>,
    /// Changes waiting in the outbox.
    pub pending: i64,
    /// How far the server's clock is from this device's (ms, server minus
    /// device; 0 within a minute): added to the clock changes are stamped with.
    pub clock_offset_ms: i64,
    /// The background loop's last round, whichever process runs it
    /// (migration 0022); `None` before any loop ran here.
    pub background: Option<crate::background::RoundView>,
}

pub fn state(conn: &Connection) -> SyncResult<LocalState> {
    let mut s = conn.query_row(
        "SELECT enabled, transcripts, server_url, vault_id, family_id, device_id, cursor,
                last_sync_at, last_error, clock_offset_ms, background FROM sync_state WHERE id = 1",
        [],
        |r| {
            Ok(LocalState {
                enabled: r.get(0)?,
                transcripts: r.get(1)?,
                server_url: r.get(2)?,
                vault_id: r.get(3)?,
                family_id: r.get(4)?,
                device_id: r.get(5)?,
                cursor: r.get(6)?,
                last_sync_at: r.get(7)?,
                last_error: r.get(8)?,
                pending: 0,
                clock_offset_ms: r.get(9)?,
                background: r
                    .get::<_, Option<String>>(10)?
                    .and_then(|j| serde_json::from_str(&j).ok()),
            })
        },
    )?;
    s.pending = conn.query_row("SELECT count(*) FROM sync_outbox", [], |r| r.get(0))?;
    Ok(s)
}

/// Keeps the background loop's last round, stamped with the time now.
pub fn record_background(
    conn: &Connection,
    round: &crate::background::RoundView,
) -> SyncResult<()> {
    let json = serde_json::to_string(round).map_err(|e| SyncError::Invalid(e.to_string()))?;
    conn.execute(
        "UPDATE sync_state SET background = json_set(?1, '$.at', strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
         WHERE id = 1",
        [json],
    )?;
    Ok(())
}

/// Keeps how far the server's clock is from this device's. Every answer
/// of the server is measured, so the row is written only when it changed.
pub fn set_clock_offset(conn: &Connection, offset_ms: i64) -> SyncResult<()> {
    conn.execute(
        "UPDATE sync_state SET clock_offset_ms = ?1 WHERE id = 1 AND clock_offset_ms != ?1",
        params![offset_ms],
    )?;
    Ok(())
}

/// Remembers the account this device joined (not the tokens).
pub fn set_account(
    conn: &Connection,
    server_url: &str,
    vault_id: &str,
    family_id: &str,
    device_id: &str,
) -> SyncResult<()> {
    conn.execute(
        "UPDATE sync_state SET server_url = ?1, vault_id = ?2, family_id = ?3, device_id = ?4,
                cursor = CASE WHEN family_id IS ?3 THEN cursor ELSE 0 END
         WHERE id = 1",
        params![server_url, vault_id, family_id, device_id],
    )?;
    Ok(())
}

/// Forgets the account; sync turns off. The outbox is kept for next time.
pub fn clear_account(conn: &Connection) -> SyncResult<()> {
    conn.execute(
        "UPDATE sync_state SET enabled = 0, server_url = NULL, vault_id = NULL, device_id = NULL
         WHERE id = 1",
        [],
    )?;
    Ok(())
}

/// Turns sync on and, the first time, queues every existing synced record
/// (in the order of [`RecordKind::ALL`]: profiles, custom materials,
/// attempts, …) in one transaction.
pub fn enable(conn: &mut Connection, transcripts: bool) -> SyncResult<usize> {
    let tx = conn.transaction()?;
    let was: bool = tx.query_row("SELECT enabled FROM sync_state WHERE id = 1", [], |r| {
        r.get(0)
    })?;
    tx.execute(
        "UPDATE sync_state SET enabled = 1, transcripts = ?1 WHERE id = 1",
        params![transcripts],
    )?;
    let mut queued = 0;
    if !was {
        for kind in RecordKind::ALL {
            let shape = shape(kind);
            let sql = format!(
                "SELECT {} FROM {} WHERE {} ORDER BY {}",
                shape.key_sql(),
                shape.table,
                shape.synced,
                shape.order
            );
            let keys: Vec<String> = tx
                .prepare(&sql)?
                .query_map([], |r| r.get(0))?
                .collect::<Result<_, _>>()?;
            for key in keys {
                let known = tx
                    .query_row(
                        "SELECT 1 FROM sync_outbox WHERE kind = ?1 AND record_id = ?2",
                        params![kind.as_str(), key],
                        |_| Ok(()),
                    )
                    .optional()?
                    .is_some();
                if known {
                    continue;
                }
                let hlc = tick(&tx)?;
                tx.execute(
                    "INSERT INTO sync_outbox (kind, record_id, hlc) VALUES (?1, ?2, ?3)",
                    params![kind.as_str(), key, hlc],
                )?;
                if !kind.append_only() {
                    tx.execute(
                        "INSERT OR REPLACE INTO sync_records (kind, record_id, hlc) VALUES (?1, ?2, ?3)",
                        params![kind.as_str(), key, hlc],
                    )?;
                }
                queued += 1;
            }
        }
    }
    tx.commit()?;
    Ok(queued)
}

pub fn disable(conn: &Connection) -> SyncResult<()> {
    conn.execute("UPDATE sync_state SET enabled = 0 WHERE id = 1", [])?;
    Ok(())
}

/// One tick of the hybrid logical clock, as text that sorts in clock order.
fn tick(tx: &Transaction<'_>) -> SyncResult<String> {
    tx.execute(
        "UPDATE sync_state SET
            hlc_counter = CASE WHEN (SELECT now_ms FROM sync_tick) > hlc_ms THEN 0 ELSE hlc_counter + 1 END,
            hlc_ms = max(hlc_ms, (SELECT now_ms FROM sync_tick))
         WHERE id = 1",
        [],
    )?;
    Ok(tx.query_row(
        "SELECT printf('%013d-%05d-%s', hlc_ms, hlc_counter, node) FROM sync_state WHERE id = 1",
        [],
        |r| r.get(0),
    )?)
}

/// The wall-clock part of a clock text.
fn hlc_ms(hlc: &str) -> Option<i64> {
    hlc.split('-').next()?.parse().ok()
}

/// Where a kind of record lives and how it is named.
pub struct Shape {
    pub table: &'static str,
    /// The columns naming one record on every device.
    pub key: &'static [&'static str],
    /// Which rows of the table sync (an SQL condition).
    pub synced: &'static str,
    /// The order a device first queues what it has.
    pub order: &'static str,
    /// Columns that stay on the device.
    pub local_only: &'static [&'static str],
}

impl Shape {
    /// Named by its `id` alone.
    fn by_id(&self) -> bool {
        self.key == ["id"]
    }

    /// The SQL expression of a row's key, as the triggers write it.
    pub fn key_sql(&self) -> String {
        if self.by_id() {
            "id".into()
        } else {
            format!("json_array({})", self.key.join(", "))
        }
    }
}

/// What sync knows of each kind (the triggers of 0012 and 0021 say the same).
pub fn shape(kind: RecordKind) -> Shape {
    const ID: &[&str] = &["id"];
    let (table, key, synced, order): (_, &'static [&'static str], _, _) = match kind {
        RecordKind::Attempt => ("recite_attempts", ID, "1", "created_at, id"),
        RecordKind::Profile => ("profiles", ID, "1", "created_at, id"),
        RecordKind::Material => ("materials", ID, "source = 'custom'", "created_at, id"),
        RecordKind::Goal => ("plan_goals", &["profile_id", "kind"], "1", "created_at, id"),
        RecordKind::Setting => (
            "settings",
            &["scope", "key"],
            "key IN (SELECT key FROM sync_family_settings)",
            "scope, key",
        ),
        RecordKind::Report => (
            "recite_reports",
            &["profile_id", "report_type", "report_date"],
            "1",
            "created_at, id",
        ),
        RecordKind::ErrorPattern => (
            "recite_error_patterns",
            &["profile_id", "material_id", "pattern_key"],
            "1",
            "first_seen_at, id",
        ),
        RecordKind::PracticeSession => ("practice_sessions", ID, "1", "created_at, id"),
        RecordKind::Thread => ("threads", ID, "1", "created_at, id"),
        RecordKind::Run => ("runs", ID, "1", "started_at, id"),
        RecordKind::Message => ("messages", ID, "1", "thread_id, seq"),
        RecordKind::ToolCall => ("tool_calls", &["thread_id", "id"], "1", "started_at, id"),
        RecordKind::Memory => ("memories", ID, "1", "created_at, id"),
        RecordKind::Routine => ("routines", &["name"], "1", "created_at, name"),
    };
    // A PIN and its lock are per device.
    let local_only: &'static [&'static str] = match kind {
        RecordKind::Profile => &["pin_hash", "failed_pin_tries", "locked_until"],
        _ => &[],
    };
    Shape {
        table,
        key,
        synced,
        order,
        local_only,
    }
}

/// The id the server knows a record by: its own id when that is a UUID,
/// else a UUIDv5 of its kind and key (the same on every device).
pub fn wire_id(kind: RecordKind, key: &str) -> String {
    match uuid::Uuid::parse_str(key) {
        Ok(id) if shape(kind).by_id() => id.to_string(),
        _ => uuid::Uuid::new_v5(
            &uuid::Uuid::NAMESPACE_URL,
            format!("deskmate-sync:{}:{key}", kind.as_str()).as_bytes(),
        )
        .to_string(),
    }
}

/// The values of a key as stored in the outbox: the id itself, or the JSON
/// array of the natural key's columns.
fn key_values(shape: &Shape, key: &str) -> SyncResult<Vec<SqlValue>> {
    if shape.by_id() {
        return Ok(vec![SqlValue::Text(key.to_string())]);
    }
    let values: Vec<Value> = serde_json::from_str(key)
        .map_err(|e| SyncError::Invalid(format!("the outbox key {key} is damaged: {e}")))?;
    if values.len() != shape.key.len() {
        return Err(SyncError::Invalid(format!(
            "the outbox key {key} does not name a row of {}",
            shape.table
        )));
    }
    Ok(values.iter().map(to_sql).collect())
}

/// `k1 = ?1 AND k2 = ?2 …` for a shape's key.
fn key_match(shape: &Shape) -> String {
    shape
        .key
        .iter()
        .enumerate()
        .map(|(i, k)| format!("{k} = ?{}", i + 1))
        .collect::<Vec<_>>()
        .join(" AND ")
}

fn to_json(v: ValueRef<'_>) -> Value {
    match v {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) => Value::from(i),
        ValueRef::Real(f) => Value::from(f),
        ValueRef::Text(t) => Value::from(String::from_utf8_lossy(t).into_owned()),
        ValueRef::Blob(_) => Value::Null,
    }
}

fn to_sql(v: &Value) -> SqlValue {
    match v {
        Value::Null => SqlValue::Null,
        Value::Bool(b) => SqlValue::Integer(i64::from(*b)),
        Value::Number(n) => n
            .as_i64()
            .map(SqlValue::Integer)
            .or_else(|| n.as_f64().map(SqlValue::Real))
            .unwrap_or(SqlValue::Null),
        Value::String(s) => SqlValue::Text(s.clone()),
        other => SqlValue::Text(other.to_string()),
    }
}

/// A record's current state as the body of a change; `None` when it is gone.
fn body(
    conn: &Connection,
    kind: RecordKind,
    key: &str,
    transcripts: bool,
) -> SyncResult<Option<Value>> {
    let shape = shape(kind);
    let sql = format!("SELECT * FROM {} WHERE {}", shape.table, key_match(&shape));
    let mut stmt = conn.prepare(&sql)?;
    let names: Vec<String> = stmt.column_names().iter().map(|s| s.to_string()).collect();
    let row = stmt
        .query_row(
            rusqlite::params_from_iter(key_values(&shape, key)?.iter()),
            |r| {
                let mut map = Map::new();
                for (i, name) in names.iter().enumerate() {
                    if shape.local_only.contains(&name.as_str()) {
                        continue;
                    }
                    map.insert(name.clone(), to_json(r.get_ref(i)?));
                }
                Ok(map)
            },
        )
        .optional()?;
    Ok(row.map(|mut map| {
        // Transcripts stay on the device unless a parent lets them sync:
        // an attempt's, and the one the practice screen shows last.
        if !transcripts {
            match kind {
                RecordKind::Attempt => {
                    map.insert("transcript".into(), Value::from(""));
                }
                RecordKind::PracticeSession => {
                    if let Some(Value::String(text)) = map.get("last_result") {
                        if let Ok(Value::Object(mut result)) = serde_json::from_str(text) {
                            if result.contains_key("transcript") {
                                result.insert("transcript".into(), Value::from(""));
                            }
                            map.insert(
                                "last_result".into(),
                                Value::from(Value::Object(result).to_string()),
                            );
                        }
                    }
                }
                _ => {}
            }
        }
        Value::Object(map)
    }))
}

/// The body of a deletion: only the key's columns, so a device finds the
/// record by them whatever id it gave its own row.
fn deleted_body(kind: RecordKind, key: &str) -> SyncResult<Value> {
    let shape = shape(kind);
    let mut map = Map::new();
    for (name, value) in shape.key.iter().zip(key_values(&shape, key)?) {
        map.insert((*name).to_string(), to_json((&value).into()));
    }
    Ok(Value::Object(map))
}

/// The next batch to push, oldest first. Each entry gets its change id
/// (UUIDv7) written down before it is ever sent, so a retry sends the same id.
pub fn next_batch(conn: &mut Connection, max: usize) -> SyncResult<Vec<(i64, Change)>> {
    let tx = conn.transaction()?;
    let transcripts: bool =
        tx.query_row("SELECT transcripts FROM sync_state WHERE id = 1", [], |r| {
            r.get(0)
        })?;
    let rows: Vec<(i64, Option<String>, String, String, bool, String)> = tx
        .prepare(
            "SELECT id, change_id, kind, record_id, deleted, hlc FROM sync_outbox ORDER BY id LIMIT ?1",
        )?
        .query_map([i64::try_from(max).unwrap_or(i64::MAX)], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?))
        })?
        .collect::<Result<_, _>>()?;
    let mut batch = Vec::with_capacity(rows.len());
    for (outbox_id, change_id, kind, record_id, deleted, hlc) in rows {
        let kind = RecordKind::parse(&kind)
            .ok_or_else(|| SyncError::Invalid(format!("unknown kind {kind} in the outbox")))?;
        let change_id = match change_id {
            Some(id) => id,
            None => {
                let id = uuid::Uuid::now_v7().to_string();
                tx.execute(
                    "UPDATE sync_outbox SET change_id = ?1 WHERE id = ?2",
                    params![id, outbox_id],
                )?;
                id
            }
        };
        let body = if deleted {
            deleted_body(kind, &record_id)?
        } else {
            match body(&tx, kind, &record_id, transcripts)? {
                Some(b) => b,
                None => {
                    // Deleted since; the delete's own entry follows.
                    tx.execute("DELETE FROM sync_outbox WHERE id = ?1", [outbox_id])?;
                    continue;
                }
            }
        };
        batch.push((
            outbox_id,
            Change {
                change_id,
                kind,
                record_id: wire_id(kind, &record_id),
                hlc,
                deleted,
                body,
            },
        ));
    }
    tx.commit()?;
    Ok(batch)
}

/// Drops outbox entries the server has stored.
pub fn mark_pushed(conn: &Connection, outbox_ids: &[i64]) -> SyncResult<()> {
    for id in outbox_ids {
        conn.execute("DELETE FROM sync_outbox WHERE id = ?1", [id])?;
    }
    Ok(())
}

/// Notes how the last round went.
pub fn record_round(conn: &Connection, error: Option<&str>) -> SyncResult<()> {
    match error {
        None => conn.execute(
            "UPDATE sync_state SET last_sync_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), last_error = NULL
             WHERE id = 1",
            [],
        )?,
        Some(e) => conn.execute("UPDATE sync_state SET last_error = ?1 WHERE id = 1", [e])?,
    };
    Ok(())
}
