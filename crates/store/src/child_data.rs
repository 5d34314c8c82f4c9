//! A child's data as a whole: every row of every table that belongs to one
//! child, read out table by table (the parents' export) or deleted in one
//! transaction (the parents' "delete this child").
//!
//! [`CHILD_TABLES`] is the one list of where a child's rows live; a test
//! checks that every table with a `profile_id` column is in it, so a new
//! migration cannot add a child's table that export and delete forget.
//! Family-wide tables (the library, knowledge bases) hold nothing of one
//! child and are not listed.

use rusqlite::types::ValueRef;
use rusqlite::{params, OptionalExtension, Transaction};
use serde::Serialize;
use serde_json::Value;

use crate::{Store, StoreError, StoreResult};

/// One table holding rows of a child: which rows (`rows_of`, an SQL
/// condition on `?1` = the child's profile id) and what they are.
#[derive(Debug, Clone, Copy)]
pub struct ChildTable {
    pub table: &'static str,
    /// The rows of the child `?1`.
    pub rows_of: &'static str,
    /// What a row is, in a parent's words (the export's README).
    pub about: &'static str,
}

const THREADS_OF: &str = "thread_id IN (SELECT id FROM threads WHERE profile_id = ?1)";
const ATTEMPTS_OF: &str = "attempt_id IN (SELECT id FROM recite_attempts WHERE profile_id = ?1)";

/// The child's mutable records by their sync key (migrations 0012, 0021):
/// the id, or the JSON array of a natural key that starts with the child's
/// id (a goal, a setting, a report, an error pattern), or that starts with
/// the id of one of the child's threads (a tool call).
macro_rules! sync_keys_of {
    () => {
        "(kind = 'profile' AND record_id = ?1) \
         OR (kind IN ('goal', 'setting', 'report', 'error_pattern') \
             AND instr(record_id, '[\"' || ?1 || '\",') = 1) \
         OR (kind = 'practice_session' AND record_id IN (SELECT id FROM practice_sessions WHERE profile_id = ?1)) \
         OR (kind = 'memory' AND record_id IN (SELECT id FROM memories WHERE profile_id = ?1)) \
         OR (kind = 'thread' AND record_id IN (SELECT id FROM threads WHERE profile_id = ?1)) \
         OR (kind = 'run' AND record_id IN (SELECT id FROM runs WHERE thread_id IN \
             (SELECT id FROM threads WHERE profile_id = ?1))) \
         OR (kind = 'tool_call' AND EXISTS (SELECT 1 FROM threads t WHERE t.profile_id = ?1 \
             AND instr(record_id, '[\"' || t.id || '\",') = 1))"
    };
}
/// The child's records waiting in the outbox: the mutable ones and the
/// appended ones (attempts, messages).
const SYNC_OUTBOX_OF: &str = concat!(
    "(kind = 'attempt' AND record_id IN (SELECT id FROM recite_attempts WHERE profile_id = ?1)) \
     OR (kind = 'message' AND record_id IN (SELECT id FROM messages WHERE thread_id IN \
         (SELECT id FROM threads WHERE profile_id = ?1))) OR ",
    sync_keys_of!()
);

/// Every table with rows of one child, parents before their dependants.
pub const CHILD_TABLES: &[ChildTable] = &[
    ChildTable {
        table: "profiles",
        rows_of: "id = ?1",
        about: "the child's profile: name, grade, language, time zone",
    },
    ChildTable {
        table: "settings",
        rows_of: "scope = ?1",
        about: "the child's own settings (JSON values by key), e.g. the chat context",
    },
    ChildTable {
        table: "materials",
        rows_of: "created_by = ?1",
        about: "texts the child added to the library (kept in the family's library when the child is deleted, without the child's name on them)",
    },
    ChildTable {
        table: "recite_attempts",
        rows_of: "profile_id = ?1",
        about: "every recitation attempt: what was heard or typed, the score, the errors, the time spent",
    },
    ChildTable {
        table: "recite_retakes",
        rows_of: ATTEMPTS_OF,
        about: "one line of an attempt said again, with what the attempt said before",
    },
    ChildTable {
        table: "recite_error_patterns",
        rows_of: "profile_id = ?1",
        about: "mistakes the child repeats, with their memory tips",
    },
    ChildTable {
        table: "recite_reviews",
        rows_of: "profile_id = ?1",
        about: "the review schedule: one row per text, when it is next due",
    },
    ChildTable {
        table: "recite_reports",
        rows_of: "profile_id = ?1",
        about: "daily and weekly reports (the report itself is the JSON in `data`)",
    },
    ChildTable {
        table: "practice_sessions",
        rows_of: "profile_id = ?1",
        about: "practice sittings as the practice screen kept them",
    },
    ChildTable {
        table: "scene_sessions",
        rows_of: "profile_id = ?1",
        about: "where the companion was with the child (the scene open, one row)",
    },
    ChildTable {
        table: "scene_decisions",
        rows_of: "profile_id = ?1",
        about: "every request the child made (typed, said, a button) and what the companion decided",
    },
    ChildTable {
        table: "trace_spans",
        rows_of: "trace_id IN (SELECT id FROM scene_decisions WHERE profile_id = ?1) \
                  OR trace_id IN (SELECT trace_id FROM trace_spans WHERE parent_span_id IS NULL \
                                  AND json_extract(attributes, '$.profile') = ?1)",
        about: "the timeline of each request (its steps, how long each took, the outcome)",
    },
    ChildTable {
        table: "plan_goals",
        rows_of: "profile_id = ?1",
        about: "the learning goals a parent set for the child",
    },
    ChildTable {
        table: "homework_mistakes",
        rows_of: "profile_id = ?1",
        about: "mistakes found on the child's worksheets, until redone",
    },
    ChildTable {
        table: "homework_walks",
        rows_of: "profile_id = ?1",
        about: "the homework walk in progress (one row)",
    },
    ChildTable {
        table: "memories",
        rows_of: "profile_id = ?1",
        about: "what the companion remembers about the child",
    },
    ChildTable {
        table: "routine_runs",
        rows_of: "profile_id = ?1",
        about: "the runs of a parent's routines for the child (each node's output, saved as the run went)",
    },
    ChildTable {
        table: "threads",
        rows_of: "profile_id = ?1",
        about: "the child's chat conversations",
    },
    ChildTable {
        table: "runs",
        rows_of: THREADS_OF,
        about: "each answer the companion worked on in a conversation",
    },
    ChildTable {
        table: "messages",
        rows_of: THREADS_OF,
        about: "the messages of the conversations (content is a JSON array of parts)",
    },
    ChildTable {
        table: "tool_calls",
        rows_of: THREADS_OF,
        about: "the tools the companion used while answering",
    },
    ChildTable {
        table: "thread_state",
        rows_of: THREADS_OF,
        about: "a conversation's to-do list and variables",
    },
    ChildTable {
        table: "approvals",
        rows_of: THREADS_OF,
        about: "tool calls that waited for a parent's decision",
    },
    ChildTable {
        table: "llm_calls",
        rows_of: "(thread_id IN (SELECT id FROM threads WHERE profile_id = ?1) OR profile_id = ?1)",
        about: "each call to a language model made for the child — in the conversations, and outside them (the router, homework checks, tips, memories): tokens, cost, time",
    },
    ChildTable {
        table: "parent_notices",
        rows_of: "profile_id = ?1",
        about: "what the parent was told about the child: a daily limit reached, a request in quiet hours, a reply replaced",
    },
    ChildTable {
        table: "replaced_replies",
        rows_of: "profile_id = ?1",
        about: "the companion's replies the safety check replaced, with the original kept for the parent",
    },
    ChildTable {
        table: "sync_outbox",
        rows_of: SYNC_OUTBOX_OF,
        about: "changes waiting to be sent to the family's other devices",
    },
    ChildTable {
        table: "sync_records",
        rows_of: sync_keys_of!(),
        about: "the clock of the newest synced change of the profile and of the child's records",
    },
];

/// One field of an exported table.
#[derive(Debug, Clone, Serialize)]
pub struct ChildColumn {
    pub name: String,
    /// The SQLite type declared.
    pub sql_type: String,
    /// The schema's comment on it, if it has one.
    pub about: String,
}

/// One table's rows of a child.
#[derive(Debug, Clone, Serialize)]
pub struct ChildRows {
    pub table: String,
    pub about: String,
    pub columns: Vec<ChildColumn>,
    /// One array of values per row, in the order of `columns`.
    pub rows: Vec<Vec<Value>>,
}

/// What deleting a child removed.
#[derive(Debug, Clone)]
pub struct ChildDeleted {
    /// Rows removed per table (tables with none left out).
    pub rows: Vec<(String, usize)>,
    /// The chat threads removed: their folders go too.
    pub thread_ids: Vec<String>,
    /// True when sync is on: the deletion is in the outbox for the family's
    /// other devices.
    pub sent_to_family: bool,
}

/// A child's data: export and delete.
pub struct ChildData<'s> {
    store: &'s Store,
}

impl<'s> ChildData<'s> {
    pub(crate) fn new(store: &'s Store) -> Self {
        Self { store }
    }

    /// Every row of the child `profile_id`, table by table (all of
    /// [`CHILD_TABLES`], empty ones too), read in one transaction.
    pub fn export(&self, profile_id: &str) -> StoreResult<Vec<ChildRows>> {
        self.store.with_conn(|conn| {
            let tx = conn.transaction()?;
            child_of(&tx, profile_id)?;
            let mut out = Vec::with_capacity(CHILD_TABLES.len());
            for t in CHILD_TABLES {
                let columns = columns(&tx, t.table)?;
                let mut stmt =
                    tx.prepare(&format!("SELECT * FROM {} WHERE {}", t.table, t.rows_of))?;
                let n = stmt.column_count();
                let rows = stmt
                    .query_map([profile_id], |r| {
                        (0..n).map(|i| r.get_ref(i).map(json_of)).collect()
                    })?
                    .collect::<Result<Vec<Vec<Value>>, _>>()?;
                out.push(ChildRows {
                    table: t.table.into(),
                    about: t.about.into(),
                    columns,
                    rows,
                });
            }
            tx.commit()?;
            Ok(out)
        })
    }

    /// How many rows of the child each table holds.
    pub fn count(&self, profile_id: &str) -> StoreResult<Vec<(String, usize)>> {
        self.store.with_conn(|conn| {
            let tx = conn.transaction()?;
            let counts = counts(&tx, profile_id)?;
            tx.commit()?;
            Ok(counts)
        })
    }

    /// Deletes the child `profile_id` and every row of theirs, in one
    /// transaction: all or nothing. A parent's profile is refused, and so
    /// is a child with a chat answer still being written (stop it first).
    /// App-wide settings that list the child's id (e.g. the MCP servers a
    /// child may use) lose it. While sync is on, the profile's deletion goes
    /// to the outbox (the store's trigger), so the family's other devices
    /// delete the child too; pending changes of the child's records are
    /// dropped.
    ///
    /// The freed pages are overwritten (`secure_delete`) and the write-ahead
    /// log is folded into the file and emptied, so the deleted words do not
    /// linger in the database's files either.
    pub fn delete(&self, profile_id: &str) -> StoreResult<ChildDeleted> {
        self.store.with_conn(|conn| {
            conn.pragma_update(None, "secure_delete", true)?;
            let deleted = delete_in(conn, profile_id);
            conn.pragma_update(None, "secure_delete", false)?;
            if deleted.is_ok() {
                // Readers elsewhere may hold the log for now; it is folded
                // in by the next checkpoint then.
                let _ = conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
            }
            deleted
        })
    }
}

fn delete_in(conn: &mut rusqlite::Connection, profile_id: &str) -> StoreResult<ChildDeleted> {
    let tx = conn.transaction()?;
    let name = child_of(&tx, profile_id)?;
    let running: i64 = tx.query_row(
        &format!(
            "SELECT count(*) FROM runs WHERE status = 'running' AND {} AND {THREADS_OF}",
            crate::RUN_OF_THIS_DEVICE
        ),
        [profile_id],
        |r| r.get(0),
    )?;
    if running > 0 {
        return Err(StoreError::Conflict(format!(
            "{name} has a chat answer being written; wait for it or stop it, then delete again"
        )));
    }
    let deleted = delete_child_rows(&tx, profile_id)?;
    tx.commit()?;
    Ok(deleted)
}

/// Deletes the child `profile_id` and every row of theirs inside the
/// caller's transaction (the sync client applies a pulled deletion with it,
/// in the pull's transaction); what [`ChildData::delete`] does without its
/// own transaction, the running-chat check and the file scrubbing pragmas.
/// A parent's profile is refused.
pub fn delete_child_rows(tx: &Transaction<'_>, profile_id: &str) -> StoreResult<ChildDeleted> {
    let name = child_of(tx, profile_id)?;
    let rows = counts(tx, profile_id)?
        .into_iter()
        .filter(|(_, n)| *n > 0)
        .collect();
    let thread_ids: Vec<String> = tx
        .prepare("SELECT id FROM threads WHERE profile_id = ?1 ORDER BY id")?
        .query_map([profile_id], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    let sent_to_family: bool =
        tx.query_row("SELECT enabled = 1 FROM sync_state WHERE id = 1", [], |r| {
            r.get(0)
        })?;

    // Every row of the child, dependants first, with the sync triggers
    // silent: the family's other devices delete the child's rows when they
    // apply the profile's deletion, so one change says it all (and a
    // deleted child's records do not travel one by one). Materials the
    // child added stay in the library; the profile row goes last.
    let applying: i64 = tx.query_row("SELECT applying FROM sync_state WHERE id = 1", [], |r| {
        r.get(0)
    })?;
    tx.execute("UPDATE sync_state SET applying = 1 WHERE id = 1", [])?;
    for t in CHILD_TABLES.iter().rev() {
        if matches!(t.table, "profiles" | "materials") {
            continue;
        }
        tx.execute(
            &format!("DELETE FROM {} WHERE {}", t.table, t.rows_of),
            [profile_id],
        )?;
    }
    forget_in_settings(tx, profile_id)?;
    tx.execute(
        "UPDATE sync_state SET applying = ?1 WHERE id = 1",
        [applying],
    )?;
    // A material the child added loses `created_by` (ON DELETE SET NULL);
    // the sync trigger writes the deletion for the other devices.
    tx.execute("DELETE FROM profiles WHERE id = ?1", [profile_id])?;

    let left: Vec<String> = counts(tx, profile_id)?
        .into_iter()
        .filter(|(t, n)| *n > 0 && !(sent_to_family && t.starts_with("sync_")))
        .map(|(t, n)| format!("{t} ({n})"))
        .collect();
    if !left.is_empty() {
        return Err(StoreError::Invalid(format!(
            "deleting {name} would leave rows behind in {}; nothing was deleted",
            left.join(", ")
        )));
    }
    Ok(ChildDeleted {
        rows,
        thread_ids,
        sent_to_family,
    })
}

/// The child's name; a parent or an unknown id is refused.
fn child_of(tx: &Transaction<'_>, profile_id: &str) -> StoreResult<String> {
    let found: Option<(String, String)> = tx
        .query_row(
            "SELECT kind, name FROM profiles WHERE id = ?1",
            [profile_id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    match found {
        None => Err(StoreError::NotFound(format!("profile {profile_id}"))),
        Some((kind, name)) if kind != "child" => Err(StoreError::Invalid(format!(
            "{name} is a parent; only a child's data is exported or deleted here"
        ))),
        Some((_, name)) => Ok(name),
    }
}

fn counts(tx: &Transaction<'_>, profile_id: &str) -> StoreResult<Vec<(String, usize)>> {
    CHILD_TABLES
        .iter()
        .map(|t| {
            let n: i64 = tx.query_row(
                &format!("SELECT count(*) FROM {} WHERE {}", t.table, t.rows_of),
                [profile_id],
                |r| r.get(0),
            )?;
            Ok((t.table.to_string(), usize::try_from(n).unwrap_or(0)))
        })
        .collect()
}

/// Removes the id from the lists in other settings' JSON values (an
/// app-wide list of the profiles allowed something, …).
fn forget_in_settings(tx: &Transaction<'_>, profile_id: &str) -> StoreResult<()> {
    let found: Vec<(String, String, String)> = tx
        .prepare("SELECT scope, key, value FROM settings WHERE instr(value, ?1) > 0")?
        .query_map([profile_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
        .collect::<Result<_, _>>()?;
    for (scope, key, value) in found {
        let Ok(mut json) = serde_json::from_str::<Value>(&value) else {
            continue;
        };
        if drop_id(&mut json, profile_id) {
            tx.execute(
                "UPDATE settings SET value = ?1, updated_at = ?2 WHERE scope = ?3 AND key = ?4",
                params![json.to_string(), crate::now_utc(), scope, key],
            )?;
        }
    }
    Ok(())
}

/// Drops every array element equal to `id`, at any depth; true if any went.
fn drop_id(v: &mut Value, id: &str) -> bool {
    match v {
        Value::Array(items) => {
            let before = items.len();
            items.retain(|i| i.as_str() != Some(id));
            let mut changed = items.len() != before;
            for i in items.iter_mut() {
                changed |= drop_id(i, id);
            }
            changed
        }
        Value::Object(map) => {
            let mut changed = false;
            for i in map.values_mut() {
                changed |= drop_id(i, id);
            }
            changed
        }
        _ => false,
    }
}

/// A table's columns with their declared type and the schema's comment.
fn columns(tx: &Transaction<'_>, table: &str) -> StoreResult<Vec<ChildColumn>> {
    let sql: String = tx.query_row(
        "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?1",
        [table],
        |r| r.get(0),
    )?;
    let cols: Vec<(String, String)> = tx
        .prepare("SELECT name, type FROM pragma_table_info(?1) ORDER BY cid")?
        .query_map([table], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    Ok(cols
        .into_iter()
        .map(|(name, sql_type)| {
            let about = column_comment(&sql, &name).unwrap_or_default();
            ChildColumn {
                name,
                sql_type,
                about,
            }
        })
        .collect())
}

/// The `-- comment` on the line that defines `column` in a CREATE TABLE.
fn column_comment(sql: &str, column: &str) -> Option<String> {
    sql.lines().find_map(|line| {
        let t = line.trim_start();
        let rest = t.strip_prefix(column)?;
        if !rest.starts_with(char::is_whitespace) {
            return None;
        }
        let (_, comment) = rest.split_once("--")?;
        Some(comment.trim().to_string())
    })
}

fn json_of(v: ValueRef<'_>) -> Value {
    match v {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) => Value::from(i),
        ValueRef::Real(f) => Value::from(f),
        ValueRef::Text(t) => Value::from(String::from_utf8_lossy(t).into_owned()),
        ValueRef::Blob(b) => Value::from(hex_of(b)),
    }
}

fn hex_of(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::{MemoryKind, MemorySource, NewProfile, ProfileKind};

    fn family(store: &Store) -> (String, String, String) {
        let made = store
            .profiles()
            .add_all(vec![
                NewProfile {
                    kind: Some(ProfileKind::Parent),
                    name: "妈妈".into(),
                    pin: Some("1357".into()),
                    ..Default::default()
                },
                NewProfile {
                    kind: Some(ProfileKind::Child),
                    name: "小明".into(),
                    ..Default::default()
                },
                NewProfile {
                    kind: Some(ProfileKind::Child),
                    name: "小红".into(),
                    ..Default::default()
                },
            ])
            .unwrap();
        (made[0].id.clone(), made[1].id.clone(), made[2].id.clone())
    }

    #[test]
    fn every_table_with_a_profile_id_is_listed() {
        let store = Store::open_in_memory().unwrap();
        let tables: Vec<String> = store
            .with_conn(|c| {
                Ok(c.prepare(
                    "SELECT m.name FROM sqlite_master m, pragma_table_info(m.name) p
                     WHERE m.type = 'table' AND p.name IN ('profile_id', 'created_by', 'scope')",
                )?
                .query_map([], |r| r.get(0))?
                .collect::<Result<_, _>>()?)
            })
            .unwrap();
        assert!(tables.len() >= 14, "{tables:?}");
        for t in tables {
            assert!(
                CHILD_TABLES.iter().any(|c| c.table == t),
                "{t} holds rows of a profile but is not in CHILD_TABLES"
            );
        }
    }

    #[test]
    fn comments_of_the_schema_describe_the_fields() {
        let store = Store::open_in_memory().unwrap();
        let (_, a, _) = family(&store);
        let all = store.child_data().export(&a).unwrap();
        assert_eq!(all.len(), CHILD_TABLES.len());
        let attempts = all.iter().find(|t| t.table == "recite_attempts").unwrap();
        let first_pass = attempts
            .columns
            .iter()
            .find(|c| c.name == "first_pass")
            .unwrap();
        assert_eq!(first_pass.about, "first ever pass of this material");
        assert_eq!(first_pass.sql_type, "INTEGER");
        let profiles = all.iter().find(|t| t.table == "profiles").unwrap();
        assert_eq!(profiles.rows.len(), 1);
        assert!(profiles.rows[0].contains(&Value::from("小明")));
    }

    #[test]
    fn a_parent_is_neither_exported_nor_deleted() {
        let store = Store::open_in_memory().unwrap();
        let (parent, _, _) = family(&store);
        let e = store.child_data().delete(&parent).unwrap_err();
        assert!(e.to_string().contains("is a parent"), "{e}");
        assert!(store.child_data().export(&parent).is_err());
        assert!(store.profiles().get(&parent).is_ok());
        assert!(matches!(
            store.child_data().delete("no-such-id"),
            Err(StoreError::NotFound(_))
        ));
    }

    #[test]
    fn delete_forgets_the_child_in_other_settings_and_sends_the_deletion() {
        let store = Store::open_in_memory().unwrap();
        let (_, a, b) = family(&store);
        // Sync is on: the child's memory, goal and family setting wait in
        // the outbox when the child is deleted.
        store
            .with_conn(|c| {
                c.execute("UPDATE sync_state SET enabled = 1 WHERE id = 1", [])?;
                Ok(())
            })
            .unwrap();
        store
            .memories()
            .add(&a, MemoryKind::Likes, "恐龙", MemorySource::Explicit, None)
            .unwrap();
        store
            .settings()
            .set(
                None,
                "mcp.servers",
                &serde_json::json!([{"name": "maps", "profiles": [a, b]}]),
            )
            .unwrap();
        store
            .settings()
            .set(Some(&a), "chat.context", &serde_json::json!({"model": "x"}))
            .unwrap();
        store
            .goals()
            .set(&a, crate::GoalKind::NewPerDay, 2)
            .unwrap();
        let waiting: i64 = store
            .with_conn(|c| Ok(c.query_row("SELECT count(*) FROM sync_outbox", [], |r| r.get(0))?))
            .unwrap();
        assert_eq!(waiting, 3, "the memory, the family setting and the goal");
        let gone = store.child_data().delete(&a).unwrap();
        assert!(gone.sent_to_family);
        assert!(gone.rows.contains(&("memories".to_string(), 1)));
        assert!(gone.rows.contains(&("settings".to_string(), 1)));
        let servers: Value = store.settings().get(None, "mcp.servers").unwrap().unwrap();
        assert_eq!(servers[0]["profiles"], serde_json::json!([b]));
        // Only the deletion itself is left, for the other devices.
        let outbox: Vec<(String, String, bool)> = store
            .with_conn(|c| {
                Ok(
                    c.prepare("SELECT kind, record_id, deleted FROM sync_outbox")?
                        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                        .collect::<Result<_, _>>()?,
                )
            })
            .unwrap();
        assert_eq!(outbox, vec![("profile".to_string(), a.clone(), true)]);
        assert!(store.profiles().get(&b).is_ok());
    }

    #[test]
    fn a_failure_midway_deletes_nothing() {
        let store = Store::open_in_memory().unwrap();
        let (_, a, _) = family(&store);
        store
            .memories()
            .add(&a, MemoryKind::Likes, "恐龙", MemorySource::Explicit, None)
            .unwrap();
        store
            .settings()
            .set(Some(&a), "chat.context", &serde_json::json!({"model": "x"}))
            .unwrap();
        let before = store.child_data().count(&a).unwrap();
        // A memory that refuses to go: the cascade fails after the settings
        // and threads were already deleted in the transaction.
        store
            .with_conn(|c| {
                c.execute_batch(
                    "CREATE TRIGGER keep_memories BEFORE DELETE ON memories
                     BEGIN SELECT RAISE(ABORT, 'disk on fire'); END;",
                )?;
                Ok(())
            })
            .unwrap();
        let e = store.child_data().delete(&a).unwrap_err();
        assert!(e.to_string().contains("disk on fire"), "{e}");
        assert_eq!(store.child_data().count(&a).unwrap(), before);
        assert!(before.iter().any(|(t, n)| t == "settings" && *n == 1));
    }
}
