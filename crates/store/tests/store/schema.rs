//! A database from a newer Deskmate is refused and left byte-for-byte
//! untouched; an unreadable file gets a plain message.

use deskmate_store::{schema_version_known, Store, StoreError};

#[test]
fn newer_schema_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("deskmate.sqlite3");
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute_batch("CREATE TABLE future (x); PRAGMA user_version = 999;")
            .unwrap();
    }
    let before = std::fs::read(&db).unwrap();
    let err = Store::open(&db).unwrap_err();
    assert!(
        matches!(err, StoreError::SchemaTooNew { found: 999, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("newer Deskmate"), "{err}");
    assert!(err
        .to_string()
        .contains(&schema_version_known().to_string()));
    assert_eq!(std::fs::read(&db).unwrap(), before);
}

#[test]
fn a_file_that_is_not_a_database_is_explained() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("deskmate.sqlite3");
    std::fs::write(&db, vec![b'x'; 4096]).unwrap();
    let err = Store::open(&db).unwrap_err().to_string();
    assert!(err.contains("not a Deskmate database"), "{err}");
    assert_eq!(std::fs::read(&db).unwrap(), vec![b'x'; 4096]);
}

#[test]
fn reopening_keeps_data_and_version() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("deskmate.sqlite3");
    let s = Store::open(&db).unwrap();
    s.settings().set(None, "k", &1).unwrap();
    drop(s);
    let s = Store::open(&db).unwrap();
    assert_eq!(s.schema_version().unwrap(), schema_version_known());
    assert_eq!(s.settings().get::<i32>(None, "k").unwrap(), Some(1));
}
