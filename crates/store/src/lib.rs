//! Deskmate's on-device database: one SQLite file (WAL, foreign keys on),
//! versioned migrations, and one repository per aggregate.
//!
//! Open it with [`Store::open`]; reach the repositories through
//! [`Store::profiles`], [`Store::materials`], [`Store::settings`] and
//! [`Store::goals`].
//! Every write is a single statement or a transaction, so a process killed
//! mid-write leaves a database that opens cleanly.

mod child_data;
mod error;
mod goals;
mod group_commit;
mod materials;
mod memories;
mod migrations;
mod notices;
mod profiles;
mod read_only;
mod routines;
mod settings;
pub mod vector;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use rusqlite::Connection;

pub use child_data::{
    delete_child_rows, ChildColumn, ChildData, ChildDeleted, ChildRows, ChildTable, CHILD_TABLES,
};
pub use error::{StoreError, StoreResult};
pub use goals::{Goal, GoalKind, Goals, GOAL_TARGET_MAX};
pub use materials::{
    builtin_id, Material, MaterialFilter, MaterialSource, Materials, NewMaterial, BODY_MAX_CHARS,
};
pub use memories::{Memories, Memory, MemoryKind, MemorySource, MEMORY_MAX_CHARS};
pub use migrations::schema_version_known;
pub use notices::{NewNotice, Notice, NoticeKind, Notices};
pub use profiles::{
    name_key as profile_name_key, NewProfile, Profile, ProfileKind, Profiles, PIN_MAX_TRIES,
};
pub use read_only::{ReadOnlySql, SqlRows, VIEWS as READ_ONLY_VIEWS};
pub use routines::{RoutineRow, RoutineRunRow, Routines};
pub use settings::Settings;

/// An SQL condition on a row of `runs`: the run is this device's — no
/// synced change of it came from another of the family's devices (the
/// clock of its newest change, `ms-counter-node` in `sync_records`, names
/// this device's node, or sync never saw it). A chat answer being written
/// on the tablet shows as `running` on the desktop: it is the tablet's to
/// finish or to close after a crash, not the desktop's.
pub const RUN_OF_THIS_DEVICE: &str = "NOT EXISTS (SELECT 1 FROM sync_records s \
     JOIN sync_state st ON st.id = 1 \
     WHERE s.kind = 'run' AND s.record_id = runs.id AND substr(s.hlc, 21) != st.node)";

/// A handle on the database. Cheap to clone; all clones share one connection.
#[derive(Clone)]
pub struct Store {
    conn: Arc<Mutex<Connection>>,
    /// Writes waiting for the connection, run together ([`Store::write`]).
    queue: Arc<Mutex<Vec<group_commit::Job>>>,
    path: Option<PathBuf>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("path", &self.path).finish()
    }
}

impl Store {
    /// Opens (creating if needed) the database file at `path` and brings its
    /// schema up to date. A database written by a newer Deskmate is refused
    /// untouched.
    pub fn open(path: &Path) -> StoreResult<Self> {
        vector::register();
        let conn = Connection::open(path).map_err(|e| StoreError::open(path, e))?;
        Self::init(conn, Some(path.to_path_buf()))
    }

    /// An in-memory database, for tests and one-shot checks.
    pub fn open_in_memory() -> StoreResult<Self> {
        vector::register();
        let conn = Connection::open_in_memory()?;
        Self::init(conn, None)
    }

    fn init(mut conn: Connection, path: Option<PathBuf>) -> StoreResult<Self> {
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        // Every transaction takes the write lock when it begins. Another
        // process on the same file (the CLI beside the window, `deskmate
        // serve`) may commit between a deferred transaction's first read and
        // its first write; SQLite then refuses the write at once ("database
        // is locked", no busy wait; a fresh-clone run once saw `deskmate
        // serve`'s sync round fail so, whichever process wrote meanwhile).
        // Begun immediately, a transaction waits for the lock (the busy
        // timeout) instead.
        // Within this process the connection's mutex already serializes
        // writers, so nothing waits that did not before.
        conn.set_transaction_behavior(rusqlite::TransactionBehavior::Immediate);
        // Refuse a newer database before anything (even WAL mode) writes to it.
        migrations::refuse_newer(&conn).map_err(|e| match e {
            StoreError::Sqlite(e) => StoreError::open(path.as_deref().unwrap_or(Path::new("")), e),
            other => other,
        })?;
        conn.pragma_update(None, "foreign_keys", true)?;
        if path.is_some() {
            let mode: String = conn
                .pragma_update_and_check(None, "journal_mode", "wal", |r| r.get(0))
                .map_err(|e| StoreError::open(path.as_deref().unwrap_or(Path::new("")), e))?;
            if !mode.eq_ignore_ascii_case("wal") {
                return Err(StoreError::Invalid(format!(
                    "SQLite refused WAL mode (got {mode}); is the data directory on a network drive?"
                )));
            }
            conn.pragma_update(None, "synchronous", "NORMAL")?;
        }
        migrations::migrate(&mut conn).map_err(|e| match e {
            // A damaged file may only show when the migrations read it.
            StoreError::Sqlite(e @ rusqlite::Error::SqliteFailure(f, _))
                if f.code == rusqlite::ErrorCode::DatabaseCorrupt =>
            {
                StoreError::open(path.as_deref().unwrap_or(Path::new("")), e)
            }
            other => other,
        })?;
        // Repositories keep their hot statements with `prepare_cached`; the
        // default cache (16) is smaller than what the crates sharing this one
        // connection use between them, and a miss means parsing SQL again.
        conn.set_prepared_statement_cache_capacity(64);
        Ok(Self {
            conn: Arc::new(Mutex::new(conn)),
            queue: Arc::default(),
            path,
        })
    }

    /// Where the database lives (`None` for in-memory).
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The schema version the database is at.
    pub fn schema_version(&self) -> StoreResult<u32> {
        let conn = self.conn()?;
        migrations::current_version(&conn)
    }

    /// Runs `f` with the connection held. Repositories in other crates use
    /// this to keep to the one-connection rule.
    pub fn with_conn<T>(
        &self,
        f: impl FnOnce(&mut Connection) -> StoreResult<T>,
    ) -> StoreResult<T> {
        let mut conn = self.conn()?;
        f(&mut conn)
    }

    /// Runs the write `f` in a transaction, committed together with the
    /// writes other threads queued meanwhile (group commit: see
    /// `group_commit`). Returns once that commit is done; `f` runs inside a
    /// savepoint of its own, so when it fails only its own changes are
    /// undone. `f` must not begin a transaction itself.
    pub fn write<T, F>(&self, f: F) -> StoreResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> StoreResult<T> + Send + 'static,
    {
        let (job, slot) = group_commit::job(f);
        self.queue
            .lock()
            .map_err(|_| StoreError::Poisoned)?
            .push(job);
        self.settle(slot)
    }

    /// Takes the connection and, unless an earlier holder already ran the
    /// queued write whose result lands in `slot`, runs every queued write.
    fn settle<T>(&self, slot: group_commit::Slot<T>) -> StoreResult<T> {
        let conn = self.conn()?;
        if let Some(out) = group_commit::take(&slot)? {
            return out;
        }
        let jobs = std::mem::take(&mut *self.queue.lock().map_err(|_| StoreError::Poisoned)?);
        group_commit::run(&conn, jobs);
        drop(conn);
        group_commit::take(&slot)?.unwrap_or_else(|| {
            Err(StoreError::Invalid(
                "a queued database write was never run".into(),
            ))
        })
    }

    fn conn(&self) -> StoreResult<MutexGuard<'_, Connection>> {
        self.conn.lock().map_err(|_| StoreError::Poisoned)
    }

    pub fn profiles(&self) -> Profiles<'_> {
        Profiles::new(self)
    }

    pub fn materials(&self) -> Materials<'_> {
        Materials::new(self)
    }

    pub fn settings(&self) -> Settings<'_> {
        Settings::new(self)
    }

    /// A parent's learning goals for each child.
    pub fn goals(&self) -> Goals<'_> {
        Goals::new(self)
    }

    /// What the companion remembers about each child.
    pub fn memories(&self) -> Memories<'_> {
        Memories::new(self)
    }

    /// What a parent is told about each child (limits reached, replies
    /// replaced).
    pub fn notices(&self) -> Notices<'_> {
        Notices::new(self)
    }

    /// Parents' routines and their runs.
    pub fn routines(&self) -> Routines<'_> {
        Routines::new(self)
    }

    /// A child's data as a whole: export and delete.
    pub fn child_data(&self) -> ChildData<'_> {
        ChildData::new(self)
    }
}

/// Current time as stored: RFC 3339 in UTC with milliseconds.
pub fn now_utc() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}
