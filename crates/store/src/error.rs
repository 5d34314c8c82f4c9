//! The store's error type: every failure says in plain words what happened,
//! and carries a stable machine-readable [`code`](StoreError::code) (with its
//! [`params`](StoreError::params)) so a front end can say it in the user's
//! language instead of showing the English text.

use std::path::Path;

use serde_json::{json, Map, Value};

pub type StoreResult<T> = Result<T, StoreError>;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot open the database at {path}: {reason}")]
    Open { path: String, reason: String },
    #[error("cannot open the database at {path}: the file or its folder is not writable (check permissions or pick another --data-dir)")]
    NotWritable { path: String },
    #[error("cannot open the database at {path}: the file is not a Deskmate database")]
    NotADatabase { path: String },
    /// SQLite found the file malformed (a disk fault, or a copy cut short).
    #[error("the database at {path} is damaged ({reason}); Deskmate left it untouched. Restore it from a backup, or move it aside and Deskmate starts a new, empty one")]
    Damaged { path: String, reason: String },
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
    #[error("a profile named {name:?} already exists")]
    NameTaken { name: String },
    #[error("the text is empty: type or paste the words to recite")]
    BodyEmpty,
    #[error(
        "the text is too long ({chars} characters; at most {max}). Split it into shorter pieces"
    )]
    BodyTooLong { chars: usize, max: usize },
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
        let path = path.display().to_string();
        match &e {
            rusqlite::Error::SqliteFailure(f, _)
                if matches!(
                    f.code,
                    rusqlite::ErrorCode::CannotOpen
                        | rusqlite::ErrorCode::ReadOnly
                        | rusqlite::ErrorCode::PermissionDenied
                ) =>
            {
                Self::NotWritable { path }
            }
            rusqlite::Error::SqliteFailure(f, _) if f.code == rusqlite::ErrorCode::NotADatabase => {
                Self::NotADatabase { path }
            }
            rusqlite::Error::SqliteFailure(f, _)
                if f.code == rusqlite::ErrorCode::DatabaseCorrupt =>
            {
                Self::Damaged {
                    path,
                    reason: e.to_string(),
                }
            }
            other => Self::Open {
                path,
                reason: other.to_string(),
            },
        }
    }

    /// A stable name for this kind of failure (`pin.wrong`, `db.schema_too_new`, …).
    /// Front ends translate known codes and show the message for the rest;
    /// a code never changes meaning once released.
    pub fn code(&self) -> &'static str {
        match self {
            Self::Open { .. } => "db.open_failed",
            Self::NotWritable { .. } => "data_dir.not_writable",
            Self::NotADatabase { .. } => "db.not_deskmate",
            Self::Damaged { .. } => "db.damaged",
            Self::SchemaTooNew { .. } => "db.schema_too_new",
            Self::Migration(_) => "db.migration_failed",
            Self::Invalid(_) => "invalid",
            Self::Conflict(_) => "conflict",
            Self::NameTaken { .. } => "profile.name_taken",
            Self::BodyEmpty => "material.body_empty",
            Self::BodyTooLong { .. } => "material.body_too_long",
            Self::NotFound(_) => "not_found",
            Self::WrongPin { .. } => "pin.wrong",
            Self::PinLocked { .. } => "pin.locked",
            Self::Poisoned | Self::Sqlite(_) => "db.error",
        }
    }

    /// Every code [`code`](Self::code) can return.
    pub const CODES: &'static [&'static str] = &[
        "db.open_failed",
        "data_dir.not_writable",
        "db.not_deskmate",
        "db.damaged",
        "db.schema_too_new",
        "db.migration_failed",
        "invalid",
        "conflict",
        "profile.name_taken",
        "material.body_empty",
        "material.body_too_long",
        "not_found",
        "pin.wrong",
        "pin.locked",
        "db.error",
    ];

    /// The values a translated message needs (e.g. `tries_left`, or `until`
    /// as an RFC 3339 UTC time the front end shows in local time).
    pub fn params(&self) -> Map<String, Value> {
        let v = match self {
            Self::Open { path, .. }
            | Self::NotWritable { path }
            | Self::NotADatabase { path }
            | Self::Damaged { path, .. } => {
                json!({ "path": path })
            }
            Self::SchemaTooNew { found, known } => json!({ "found": found, "known": known }),
            Self::NameTaken { name } => json!({ "name": name }),
            Self::BodyTooLong { chars, max } => json!({ "chars": chars, "max": max }),
            Self::WrongPin { tries_left } => json!({ "tries_left": tries_left }),
            Self::PinLocked { until } => json!({ "until": until }),
            _ => json!({}),
        };
        match v {
            Value::Object(m) => m,
            _ => Map::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_stable_and_params_carry_the_values() {
        let e = StoreError::WrongPin { tries_left: 3 };
        assert_eq!(e.code(), "pin.wrong");
        assert_eq!(e.params()["tries_left"], 3);
        let e = StoreError::PinLocked {
            until: "2026-03-01T08:05:00Z".into(),
        };
        assert_eq!(
            (e.code(), e.params()["until"].as_str()),
            ("pin.locked", Some("2026-03-01T08:05:00Z"))
        );
        let e = StoreError::SchemaTooNew { found: 9, known: 4 };
        assert_eq!(
            (e.code(), e.params()["found"].as_u64()),
            ("db.schema_too_new", Some(9))
        );
        assert_eq!(StoreError::Invalid("x".into()).code(), "invalid");
        let all = [
            StoreError::Open {
                path: "p".into(),
                reason: "r".into(),
            },
            StoreError::NotWritable { path: "p".into() },
            StoreError::NotADatabase { path: "p".into() },
            StoreError::Damaged {
                path: "p".into(),
                reason: "r".into(),
            },
            StoreError::SchemaTooNew { found: 9, known: 4 },
            StoreError::Migration("m".into()),
            StoreError::Invalid("x".into()),
            StoreError::Conflict("x".into()),
            StoreError::NameTaken { name: "n".into() },
            StoreError::BodyEmpty,
            StoreError::BodyTooLong { chars: 2, max: 1 },
            StoreError::NotFound("x".into()),
            StoreError::WrongPin { tries_left: 1 },
            StoreError::PinLocked { until: "u".into() },
            StoreError::Poisoned,
        ];
        let codes: Vec<_> = all.iter().map(StoreError::code).collect();
        assert_eq!(codes, StoreError::CODES);
        assert!(StoreError::Invalid("x".into()).params().is_empty());
    }
}
