//! Parents' routines (issue 21) and their runs, as stored: the graph and
//! each run's state are JSON the orchestrator reads and writes (the store
//! checks only that they are JSON); a run is saved again after every node.

use rusqlite::{params, OptionalExtension};

use crate::{now_utc, Store, StoreError, StoreResult};

/// A routine as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoutineRow {
    pub name: String,
    pub spec: String,
    pub created_at: String,
    pub updated_at: String,
}

/// A run as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoutineRunRow {
    pub id: String,
    pub routine: String,
    pub profile_id: Option<String>,
    pub status: String,
    pub state: String,
    pub created_at: String,
    pub updated_at: String,
}

/// The routines repository.
pub struct Routines<'s> {
    store: &'s Store,
}

fn json(what: &str, text: &str) -> StoreResult<()> {
    serde_json::from_str::<serde_json::Value>(text)
        .map(|_| ())
        .map_err(|e| StoreError::Invalid(format!("the {what} is not JSON: {e}")))
}

fn routine_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<RoutineRow> {
    Ok(RoutineRow {
        name: r.get(0)?,
        spec: r.get(1)?,
        created_at: r.get(2)?,
        updated_at: r.get(3)?,
    })
}

fn run_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<RoutineRunRow> {
    Ok(RoutineRunRow {
        id: r.get(0)?,
        routine: r.get(1)?,
        profile_id: r.get(2)?,
        status: r.get(3)?,
        state: r.get(4)?,
        created_at: r.get(5)?,
        updated_at: r.get(6)?,
    })
}

const RUN_COLUMNS: &str = "id, routine, profile_id, status, state, created_at, updated_at";

impl<'s> Routines<'s> {
    pub(crate) fn new(store: &'s Store) -> Self {
        Self { store }
    }

    /// Saves a new routine; an existing name is refused (update it instead).
    pub fn create(&self, name: &str, spec: &str) -> StoreResult<RoutineRow> {
        json("routine", spec)?;
        if self.find(name)?.is_some() {
            return Err(StoreError::Invalid(format!(
                "a routine called {name:?} already exists: update it, or pick another name"
            )));
        }
        let now = now_utc();
        self.store.with_conn(|c| {
            c.execute(
                "INSERT INTO routines (name, spec, created_at, updated_at) VALUES (?1, ?2, ?3, ?3)",
                params![name, spec, now],
            )?;
            Ok(())
        })?;
        self.get(name)
    }

    /// Replaces the graph of the routine `name`.
    pub fn update(&self, name: &str, spec: &str) -> StoreResult<RoutineRow> {
        json("routine", spec)?;
        let changed = self.store.with_conn(|c| {
            Ok(c.execute(
                "UPDATE routines SET spec = ?2, updated_at = ?3 WHERE name = ?1",
                params![name, spec, now_utc()],
            )?)
        })?;
        if changed == 0 {
            return Err(StoreError::NotFound(format!("routine {name:?}")));
        }
        self.get(name)
    }

    /// The routine `name`, if there is one.
    pub fn find(&self, name: &str) -> StoreResult<Option<RoutineRow>> {
        self.store.with_conn(|c| {
            Ok(c.query_row(
                "SELECT name, spec, created_at, updated_at FROM routines WHERE name = ?1",
                [name],
                routine_row,
            )
            .optional()?)
        })
    }

    /// The routine `name`.
    pub fn get(&self, name: &str) -> StoreResult<RoutineRow> {
        self.find(name)?
            .ok_or_else(|| StoreError::NotFound(format!("routine {name:?}")))
    }

    /// Every routine, by name.
    pub fn list(&self) -> StoreResult<Vec<RoutineRow>> {
        self.store.with_conn(|c| {
            let mut stmt =
                c.prepare("SELECT name, spec, created_at, updated_at FROM routines ORDER BY name")?;
            let rows = stmt.query_map([], routine_row)?;
            Ok(rows.collect::<Result<Vec<_>, _>>()?)
        })
    }

    /// Deletes the routine `name` and its runs.
    pub fn delete(&self, name: &str) -> StoreResult<()> {
        let gone = self.store.with_conn(|c| {
            let tx = c.transaction()?;
            tx.execute("DELETE FROM routine_runs WHERE routine = ?1", [name])?;
            let gone = tx.execute("DELETE FROM routines WHERE name = ?1", [name])?;
            tx.commit()?;
            Ok(gone)
        })?;
        if gone == 0 {
            return Err(StoreError::NotFound(format!("routine {name:?}")));
        }
        Ok(())
    }

    /// Saves a run's state (creating the run the first time).
    pub fn save_run(
        &self,
        id: &str,
        routine: &str,
        profile_id: Option<&str>,
        status: &str,
        state: &str,
    ) -> StoreResult<()> {
        json("run's state", state)?;
        let now = now_utc();
        self.store.with_conn(|c| {
            c.execute(
                "INSERT INTO routine_runs (id, routine, profile_id, status, state, created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6)
                 ON CONFLICT(id) DO UPDATE SET status = excluded.status, state = excluded.state,
                   updated_at = excluded.updated_at",
                params![id, routine, profile_id, status, state, now],
            )?;
            Ok(())
        })
    }

    /// The run `id`.
    pub fn run(&self, id: &str) -> StoreResult<RoutineRunRow> {
        self.store
            .with_conn(|c| {
                Ok(c.query_row(
                    &format!("SELECT {RUN_COLUMNS} FROM routine_runs WHERE id = ?1"),
                    [id],
                    run_row,
                )
                .optional()?)
            })?
            .ok_or_else(|| StoreError::NotFound(format!("routine run {id:?}")))
    }

    /// The runs of `routine` (every routine's when `None`), newest first.
    pub fn runs(&self, routine: Option<&str>) -> StoreResult<Vec<RoutineRunRow>> {
        self.store.with_conn(|c| {
            let mut stmt = c.prepare(&format!(
                "SELECT {RUN_COLUMNS} FROM routine_runs WHERE ?1 IS NULL OR routine = ?1
                 ORDER BY created_at DESC, id DESC"
            ))?;
            let rows = stmt.query_map([routine], run_row)?;
            Ok(rows.collect::<Result<Vec<_>, _>>()?)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("deskmate.db")).unwrap();
        (dir, store)
    }

    #[test]
    fn routines_are_created_listed_updated_and_deleted_with_their_runs() {
        let (_d, store) = store();
        let r = store.routines();
        r.create("evening", r#"{"nodes": []}"#).unwrap();
        r.create("morning", r#"{"nodes": [1]}"#).unwrap();
        assert!(matches!(
            r.create("evening", "{}"),
            Err(StoreError::Invalid(m)) if m.contains("already exists")
        ));
        assert!(matches!(
            r.create("x", "not json"),
            Err(StoreError::Invalid(_))
        ));
        let names: Vec<String> = r.list().unwrap().into_iter().map(|x| x.name).collect();
        assert_eq!(names, ["evening", "morning"]);
        r.update("evening", r#"{"nodes": [2]}"#).unwrap();
        assert_eq!(r.get("evening").unwrap().spec, r#"{"nodes": [2]}"#);
        assert!(matches!(
            r.update("nope", "{}"),
            Err(StoreError::NotFound(_))
        ));

        r.save_run("run1", "evening", None, "running", r#"{"at": "a"}"#)
            .unwrap();
        r.save_run("run1", "evening", None, "waiting", r#"{"at": "b"}"#)
            .unwrap();
        let run = r.run("run1").unwrap();
        assert_eq!(
            (run.status.as_str(), run.state.as_str()),
            ("waiting", r#"{"at": "b"}"#)
        );
        assert_eq!(r.runs(Some("evening")).unwrap().len(), 1);
        assert!(r.save_run("run2", "gone", None, "running", "{}").is_err());

        r.delete("evening").unwrap();
        assert!(matches!(r.run("run1"), Err(StoreError::NotFound(_))));
        assert!(matches!(r.delete("evening"), Err(StoreError::NotFound(_))));
        assert_eq!(r.list().unwrap().len(), 1);
    }
}
