//! A parent's learning goals on a real database file: set, changed by
//! setting again, listed, removed; kept across closing and opening the file;
//! refused in plain words for a parent, a target out of range or a kind
//! that does not exist; gone with the child.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use deskmate_store::{GoalKind, NewProfile, ProfileKind, Store, StoreError};

fn profile(store: &Store, name: &str, kind: ProfileKind) -> String {
    store
        .profiles()
        .add(NewProfile {
            kind: Some(kind),
            name: name.into(),
            pin: (kind == ProfileKind::Parent).then(|| "2468".into()),
            ..Default::default()
        })
        .unwrap()
        .id
}

#[test]
fn goals_are_set_changed_listed_and_removed_and_survive_a_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("deskmate.sqlite3");
    let (child, other) = {
        let store = Store::open(&path).unwrap();
        let child = profile(&store, "小明", ProfileKind::Child);
        let other = profile(&store, "小红", ProfileKind::Child);
        let weekly = store
            .goals()
            .set(&child, GoalKind::ReviewsPerWeek, 3)
            .unwrap();
        assert_eq!((weekly.kind, weekly.target), (GoalKind::ReviewsPerWeek, 3));
        store.goals().set(&child, GoalKind::NewPerDay, 1).unwrap();
        // Setting again changes the target of the same goal.
        let again = store
            .goals()
            .set(&child, GoalKind::ReviewsPerWeek, 4)
            .unwrap();
        assert_eq!((again.id.as_str(), again.target), (weekly.id.as_str(), 4));
        store.goals().set(&other, GoalKind::NewPerDay, 2).unwrap();
        (child, other)
    };
    let store = Store::open(&path).unwrap();
    let goals = store.goals().list(&child).unwrap();
    let kinds: Vec<_> = goals.iter().map(|g| (g.kind, g.target)).collect();
    assert_eq!(
        kinds,
        vec![(GoalKind::NewPerDay, 1), (GoalKind::ReviewsPerWeek, 4)]
    );
    store.goals().remove(&child, GoalKind::NewPerDay).unwrap();
    assert_eq!(store.goals().list(&child).unwrap().len(), 1);
    let e = store
        .goals()
        .remove(&child, GoalKind::NewPerDay)
        .unwrap_err();
    assert_eq!(e.code(), "not_found");
    // Another child's goals are theirs; they go with the child.
    assert_eq!(store.goals().list(&other).unwrap()[0].target, 2);
    store
        .with_conn(|c| {
            c.execute("DELETE FROM profiles WHERE id = ?1", [&other])?;
            Ok(())
        })
        .unwrap();
    let left: i64 = store
        .with_conn(|c| Ok(c.query_row("SELECT count(*) FROM plan_goals", [], |r| r.get(0))?))
        .unwrap();
    assert_eq!(left, 1);
}

#[test]
fn bad_goals_are_refused_in_plain_words_and_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("deskmate.sqlite3")).unwrap();
    let child = profile(&store, "小明", ProfileKind::Child);
    let parent = profile(&store, "妈妈", ProfileKind::Parent);
    store.goals().set(&child, GoalKind::NewPerDay, 1).unwrap();
    let e = store
        .goals()
        .set(&child, GoalKind::NewPerDay, 0)
        .unwrap_err();
    assert!(e.to_string().contains("between 1 and 20"), "{e}");
    let e = store
        .goals()
        .set(&child, GoalKind::NewPerDay, 21)
        .unwrap_err();
    assert!(matches!(e, StoreError::Invalid(_)), "{e}");
    let e = store
        .goals()
        .set(&parent, GoalKind::NewPerDay, 1)
        .unwrap_err();
    assert!(e.to_string().contains("for a child"), "{e}");
    let e = "weekly-poems".parse::<GoalKind>().unwrap_err();
    assert!(e.to_string().contains("new-per-day"), "{e}");
    assert_eq!(
        "reviews-per-week".parse::<GoalKind>().unwrap(),
        GoalKind::ReviewsPerWeek
    );
    // The goal set before is untouched.
    assert_eq!(store.goals().list(&child).unwrap()[0].target, 1);
    // A damaged row is said, not guessed.
    store
        .with_conn(|c| {
            c.execute_batch(
                "PRAGMA ignore_check_constraints = ON; UPDATE plan_goals SET kind = 'bogus';",
            )?;
            Ok(())
        })
        .unwrap();
    assert!(store.goals().list(&child).is_err());
}
