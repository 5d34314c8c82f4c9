//! A read-only SQL tool for parents' questions: a separate connection opened
//! read-only, which sees only views of the family's children's data (TEMP
//! views made when it opens: `children`, `attempts`, `reviews`,
//! `error_patterns`). An authorizer allows `SELECT`, reading those views
//! (and the tables only through them) and calling functions — nothing else:
//! no write, `ATTACH`, `PRAGMA` or read of a table directly. A progress
//! handler stops a query after its time limit, and at most a row limit of
//! rows come back. Every refusal is an error text, in words a model (or a
//! parent) can act on.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rusqlite::hooks::{AuthAction, AuthContext, Authorization};
use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags};
use serde_json::Value;

use crate::{StoreError, StoreResult};

/// The views a question may read.
pub const VIEWS: &[&str] = &["children", "attempts", "reviews", "error_patterns"];

/// What a query returned.
#[derive(Debug, Clone, PartialEq)]
pub struct SqlRows {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Value>>,
    /// True when there were more rows than the limit.
    pub truncated: bool,
}

/// The read-only connection, scoped to some children.
pub struct ReadOnlySql {
    conn: Connection,
    started: Arc<Mutex<Option<(Instant, Duration)>>>,
    time_limit: Duration,
    row_limit: usize,
}

impl std::fmt::Debug for ReadOnlySql {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReadOnlySql")
            .field("time_limit", &self.time_limit)
            .field("row_limit", &self.row_limit)
            .finish()
    }
}

fn quoted(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

impl ReadOnlySql {
    /// Opens the database file at `path` read-only, with views of the
    /// children `child_ids` only.
    pub fn open(
        path: &Path,
        child_ids: &[String],
        time_limit: Duration,
        row_limit: usize,
    ) -> StoreResult<Self> {
        crate::vector::register();
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|e| StoreError::open(path, e))?;
        let ids = if child_ids.is_empty() {
            "NULL".to_string()
        } else {
            child_ids
                .iter()
                .map(|i| quoted(i))
                .collect::<Vec<_>>()
                .join(", ")
        };
        conn.execute_batch(&format!(
            "CREATE TEMP VIEW children AS
               SELECT id, name, grade, time_zone FROM main.profiles
               WHERE kind = 'child' AND id IN ({ids});
             CREATE TEMP VIEW attempts AS
               SELECT a.profile_id AS child_id, p.name AS child, m.title, a.mode, a.accuracy,
                      a.passed, a.error_count, a.duration_ms, a.purpose, a.errors, a.created_at
               FROM main.recite_attempts a
               JOIN main.profiles p ON p.id = a.profile_id
               JOIN main.materials m ON m.id = a.material_id
               WHERE a.profile_id IN ({ids});
             CREATE TEMP VIEW reviews AS
               SELECT r.profile_id AS child_id, m.title, r.status, r.reps, r.lapses,
                      r.last_review_at, r.next_review_at, r.interval_days
               FROM main.recite_reviews r JOIN main.materials m ON m.id = r.material_id
               WHERE r.profile_id IN ({ids});
             CREATE TEMP VIEW error_patterns AS
               SELECT e.profile_id AS child_id, m.title, e.error_type, e.expected, e.actual,
                      e.occurrence_count, e.last_seen_at
               FROM main.recite_error_patterns e JOIN main.materials m ON m.id = e.material_id
               WHERE e.profile_id IN ({ids});"
        ))?;
        conn.authorizer(Some(authorize))?;
        let started: Arc<Mutex<Option<(Instant, Duration)>>> = Arc::default();
        let clock = started.clone();
        conn.progress_handler(
            1000,
            Some(move || {
                clock
                    .lock()
                    .ok()
                    .and_then(|s| *s)
                    .is_some_and(|(t, limit)| t.elapsed() > limit)
            }),
        )
        .map_err(StoreError::Sqlite)?;
        Ok(Self {
            conn,
            started,
            time_limit,
            row_limit,
        })
    }

    /// Runs one `SELECT`; anything else, or a query over its time, is an
    /// error text.
    pub fn query(&self, sql: &str) -> Result<SqlRows, String> {
        self.query_with(sql, &[])
    }

    /// [`query`](Self::query) with positional parameters (`?1`, …).
    pub fn query_with(&self, sql: &str, params: &[&str]) -> Result<SqlRows, String> {
        let refused = |e: rusqlite::Error| refusal(&e, self.time_limit);
        let mut stmt = self.conn.prepare(sql).map_err(refused)?;
        if !stmt.readonly() {
            return Err("only SELECT queries are allowed here".into());
        }
        let columns: Vec<String> = stmt.column_names().iter().map(|c| c.to_string()).collect();
        let n = columns.len();
        if let Ok(mut s) = self.started.lock() {
            *s = Some((Instant::now(), self.time_limit));
        }
        let mut rows = Vec::new();
        let mut truncated = false;
        let mut cursor = stmt
            .query(rusqlite::params_from_iter(params.iter()))
            .map_err(refused)?;
        let result = loop {
            match cursor.next() {
                Ok(Some(r)) => {
                    if rows.len() == self.row_limit {
                        truncated = true;
                        break Ok(());
                    }
                    let row: Result<Vec<Value>, _> =
                        (0..n).map(|i| r.get_ref(i).map(json_of)).collect();
                    match row {
                        Ok(v) => rows.push(v),
                        Err(e) => break Err(refused(e)),
                    }
                }
                Ok(None) => break Ok(()),
                Err(e) => break Err(refused(e)),
            }
        };
        if let Ok(mut s) = self.started.lock() {
            *s = None;
        }
        result.map(|()| SqlRows {
            columns,
            rows,
            truncated,
        })
    }
}

/// Words for why a query failed.
fn refusal(e: &rusqlite::Error, limit: Duration) -> String {
    match e {
        rusqlite::Error::SqliteFailure(f, _)
            if f.code == rusqlite::ErrorCode::OperationInterrupted =>
        {
            format!(
                "the query took longer than {} ms and was stopped; ask for less (filter by date or child)",
                limit.as_millis()
            )
        }
        e if e.sqlite_error_code()
            == Some(rusqlite::ErrorCode::AuthorizationForStatementDenied)
            || e.to_string().contains("not authorized") =>
        {
            format!(
                "not allowed: only SELECT on the views {} is allowed here",
                VIEWS.join(", ")
            )
        }
        other => format!("the query failed: {other}"),
    }
}

fn authorize(ctx: AuthContext<'_>) -> Authorization {
    let through_view = ctx.accessor.is_some_and(|v| VIEWS.contains(&v));
    match ctx.action {
        AuthAction::Select | AuthAction::Recursive => Authorization::Allow,
        AuthAction::Function { function_name } => {
            if function_name.eq_ignore_ascii_case("load_extension") {
                Authorization::Deny
            } else {
                Authorization::Allow
            }
        }
        AuthAction::Read { table_name, .. } => {
            // A common table expression has no database.
            let cte = ctx.database_name.is_none();
            if through_view
                || cte
                || (ctx.database_name == Some("temp") && VIEWS.contains(&table_name))
            {
                Authorization::Allow
            } else {
                Authorization::Deny
            }
        }
        _ => Authorization::Deny,
    }
}

fn json_of(v: ValueRef<'_>) -> Value {
    match v {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) => Value::from(i),
        ValueRef::Real(f) => Value::from(f),
        ValueRef::Text(t) => Value::from(String::from_utf8_lossy(t).into_owned()),
        ValueRef::Blob(b) => Value::from(format!("<{} bytes>", b.len())),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::{NewProfile, ProfileKind, Store};

    fn family(dir: &Path) -> (String, String) {
        let store = Store::open(&dir.join("db.sqlite3")).unwrap();
        let made = store
            .profiles()
            .add_all(vec![
                NewProfile {
                    kind: Some(ProfileKind::Child),
                    name: "小明".into(),
                    ..Default::default()
                },
                NewProfile {
                    kind: Some(ProfileKind::Child),
                    name: "邻居家的孩子".into(),
                    ..Default::default()
                },
            ])
            .unwrap();
        (made[0].id.clone(), made[1].id.clone())
    }

    fn tool(dir: &Path, ids: &[String], limit_ms: u64) -> ReadOnlySql {
        ReadOnlySql::open(
            &dir.join("db.sqlite3"),
            ids,
            Duration::from_millis(limit_ms),
            5,
        )
        .unwrap()
    }

    #[test]
    fn only_select_on_the_views_of_these_children() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = family(dir.path());
        let sql = tool(dir.path(), std::slice::from_ref(&a), 2000);
        let r = sql.query("SELECT name FROM children").unwrap();
        assert_eq!(r.rows, vec![vec![Value::from("小明")]]);
        // The other child's rows are not there, asked for by id or not.
        let r = sql
            .query_with("SELECT count(*) FROM children WHERE id = ?1", &[&b])
            .unwrap();
        assert_eq!(r.rows, vec![vec![Value::from(0)]]);
        for refused in [
            "SELECT name FROM profiles",
            "SELECT * FROM main.recite_attempts",
            "DELETE FROM children",
            "INSERT INTO settings (key, value, updated_at) VALUES ('x', '1', 'now')",
            "UPDATE profiles SET name = 'x'",
            "PRAGMA table_info(profiles)",
            "SELECT * FROM pragma_table_info('profiles')",
            "ATTACH DATABASE ':memory:' AS other",
            "CREATE TEMP VIEW mine AS SELECT * FROM profiles",
            "DROP VIEW children",
            "SELECT load_extension('x')",
            "SELECT sql FROM sqlite_master",
        ] {
            let e = sql.query(refused).unwrap_err();
            assert!(
                e.contains("not allowed")
                    || e.contains("only SELECT")
                    || e.contains("cannot modify"),
                "{refused}: {e}"
            );
        }
        // Nothing was changed by the tries.
        let store = Store::open(&dir.path().join("db.sqlite3")).unwrap();
        assert_eq!(store.profiles().list().unwrap().len(), 2);
    }

    #[test]
    fn a_long_query_is_stopped_and_rows_are_limited() {
        let dir = tempfile::tempdir().unwrap();
        let (a, _) = family(dir.path());
        let sql = tool(dir.path(), &[a], 100);
        let t = Instant::now();
        let e = sql
            .query(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n)
                 SELECT count(*) FROM n",
            )
            .unwrap_err();
        assert!(e.contains("longer than 100 ms"), "{e}");
        assert!(t.elapsed() < Duration::from_secs(5));
        let r = sql
            .query("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 50) SELECT i FROM n")
            .unwrap();
        assert_eq!(r.rows.len(), 5);
        assert!(r.truncated);
        // A query after the stopped one runs normally.
        assert!(sql.query("SELECT count(*) FROM attempts").is_ok());
    }
}
