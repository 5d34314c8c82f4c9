//! The store's error type: every failure says in plain words what happened.

use std::path::Path;

pub type StoreResult<T> = Result<T, StoreError>;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot open the database at {path}: {reason}")]
    Open { path: String, reason: String },
    #[error(
        "this database was written by a newer Deskmate (schema version {found}; this build knows up to {known}). \
         Update Deskmate; the database was left untouched"
    )]
    SchemaTooNew { found: u32, known: u32 },
    #[error("database migration failed: {0}")]
    Migration(String),
    #[error("{0}")]
    Invalid(String),
    #[error("{0}")]
    Conflict(String),
    #[error("{0} not found")]
    NotFound(String),
    #[error("wrong PIN; {tries_left} tries left before the parent area locks")]
    WrongPin { tries_left: u32 },
    #[error("too many wrong PINs; the parent area is locked until {until}")]
    PinLocked { until: String },
    #[error("the database lock was poisoned by an earlier crash in this process")]
    Poisoned,
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
}

impl StoreError {
    pub(crate) fn open(path: &Path, e: rusqlite::Error) -> Self {
        let reason = match &e {
            rusqlite::Error::SqliteFailure(f, _)
                if matches!(
                    f.code,
                    rusqlite::ErrorCode::CannotOpen | rusqlite::ErrorCode::ReadOnly | rusqlite::ErrorCode::PermissionDenied
                ) =>
            {
                "the file or its folder is not writable (check permissions or pick another --data-dir)".to_string()
            }
            rusqlite::Error::SqliteFailure(f, _) if f.code == rusqlite::ErrorCode::NotADatabase => {
                "the file is not a Deskmate database".to_string()
            }
            other => other.to_string(),
        };
        Self::Open { path: path.display().to_string(), reason }
    }
}
