//! The parent PIN's rate limit holds where it matters: across a restart (a
//! real database file, closed and opened again) and under PIN checks made at
//! the same time (two threads sharing one handle, and two handles on one file
//! as the window and the CLI would have).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::sync::{Arc, Barrier};

use chrono::{Duration, Utc};
use deskmate_store::{NewProfile, ProfileKind, Store, StoreError, PIN_MAX_TRIES};

const PIN: &str = "2468";

fn parent(store: &Store) -> String {
    store
        .profiles()
        .add(NewProfile {
            kind: Some(ProfileKind::Parent),
            name: "妈妈".into(),
            pin: Some(PIN.into()),
            ..Default::default()
        })
        .unwrap()
        .id
}

fn stored_tries(store: &Store, id: &str) -> u32 {
    store
        .with_conn(|c| {
            Ok(c.query_row(
                "SELECT failed_pin_tries FROM profiles WHERE id = ?1",
                [id],
                |r| r.get(0),
            )?)
        })
        .unwrap()
}

#[test]
fn the_lock_survives_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("deskmate.sqlite3");
    let t0 = Utc::now();
    let id = {
        let store = Store::open(&db).unwrap();
        let id = parent(&store);
        for _ in 1..PIN_MAX_TRIES {
            assert!(matches!(
                store.profiles().verify_pin(&id, "0000", t0),
                Err(StoreError::WrongPin { .. })
            ));
        }
        let err = store.profiles().verify_pin(&id, "0000", t0).unwrap_err();
        assert!(matches!(err, StoreError::PinLocked { .. }), "{err}");
        id
    }; // the store (its only connection) is closed here, as when the app quits

    let store = Store::open(&db).unwrap();
    // Still locked after reopening: even the right PIN is refused, with the same end time.
    let err = store
        .profiles()
        .verify_pin(&id, PIN, t0 + Duration::minutes(1))
        .unwrap_err();
    let StoreError::PinLocked { until } = &err else {
        panic!("expected a lock, got {err}")
    };
    assert_eq!(
        until,
        &(t0 + Duration::minutes(5)).to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
    );
    assert_eq!(err.code(), "pin.locked");
    // Once the lock has run out, the right PIN opens the parent area again.
    store
        .profiles()
        .verify_pin(&id, PIN, t0 + Duration::minutes(6))
        .unwrap();
}

#[test]
fn the_count_of_wrong_tries_survives_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("deskmate.sqlite3");
    let now = Utc::now();
    let id = {
        let store = Store::open(&db).unwrap();
        let id = parent(&store);
        for _ in 0..3 {
            store.profiles().verify_pin(&id, "0000", now).unwrap_err();
        }
        id
    };
    let store = Store::open(&db).unwrap();
    match store.profiles().verify_pin(&id, "1111", now).unwrap_err() {
        StoreError::WrongPin { tries_left } => assert_eq!(tries_left, PIN_MAX_TRIES - 4),
        e => panic!("expected a wrong PIN, got {e}"),
    }
}

/// Runs two wrong PIN checks at once, one per handle, released together by a barrier.
fn two_checks_at_once(a: Store, b: Store, id: &str) -> Vec<StoreError> {
    let barrier = Arc::new(Barrier::new(2));
    let handles: Vec<_> = [a, b]
        .into_iter()
        .map(|store| {
            let (barrier, id) = (barrier.clone(), id.to_string());
            std::thread::spawn(move || {
                barrier.wait();
                store
                    .profiles()
                    .verify_pin(&id, "0000", Utc::now())
                    .unwrap_err()
            })
        })
        .collect();
    handles.into_iter().map(|h| h.join().unwrap()).collect()
}

fn assert_both_counted(errors: &[StoreError], store: &Store, id: &str) {
    let mut left: Vec<u32> = errors
        .iter()
        .map(|e| match e {
            StoreError::WrongPin { tries_left } => *tries_left,
            other => panic!("expected a wrong PIN, got {other}"),
        })
        .collect();
    left.sort_unstable();
    // Each check saw the other's try: one was the first wrong PIN, the other the second.
    assert_eq!(left, [PIN_MAX_TRIES - 2, PIN_MAX_TRIES - 1]);
    assert_eq!(stored_tries(store, id), 2);
}

#[test]
fn two_checks_at_once_on_one_handle_count_as_two_tries() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("deskmate.sqlite3")).unwrap();
    let id = parent(&store);
    let errors = two_checks_at_once(store.clone(), store.clone(), &id);
    assert_both_counted(&errors, &store, &id);
}

#[test]
fn two_checks_at_once_on_two_connections_count_as_two_tries() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("deskmate.sqlite3");
    let store = Store::open(&db).unwrap();
    let id = parent(&store);
    let open = |p: &Path| Store::open(p).unwrap();
    let errors = two_checks_at_once(open(&db), open(&db), &id);
    assert_both_counted(&errors, &store, &id);
}

#[test]
fn checks_at_once_cannot_get_past_the_lock() {
    // Four wrong tries, then two more at once: one locks, the other is refused
    // by that lock instead of being checked against the hash.
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("deskmate.sqlite3");
    let store = Store::open(&db).unwrap();
    let id = parent(&store);
    for _ in 1..PIN_MAX_TRIES {
        store
            .profiles()
            .verify_pin(&id, "0000", Utc::now())
            .unwrap_err();
    }
    let errors = two_checks_at_once(Store::open(&db).unwrap(), Store::open(&db).unwrap(), &id);
    for e in &errors {
        assert!(
            matches!(e, StoreError::PinLocked { .. }),
            "expected a lock, got {e}"
        );
    }
    assert!(matches!(
        store.profiles().verify_pin(&id, PIN, Utc::now()),
        Err(StoreError::PinLocked { .. })
    ));
}
