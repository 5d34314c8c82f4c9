//! Two devices (two data directories) through a real sync server on a real
//! throwaway PostgreSQL: an attempt made on one appears on the other,
//! concurrent edits converge by clock, and a push that fails while the
//! server is down is retried later with nothing lost or doubled.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::net::SocketAddr;
use std::time::Duration;

use deskmate_protocol::sync::{PairRequest, SignupRequest};
use deskmate_server::{serve, ServerConfig};
use deskmate_store::NewProfile;
use deskmate_store::Store;
use deskmate_sync::{MemoryVault, Sync, SyncError};
use deskmate_testkit::family::add_jing_ye_si;
use deskmate_testkit::postgres::{cluster, free_port};

/// The server in this process, on `port`; abort the handle to take it down.
async fn start_server(db: &str, port: u16) -> tokio::task::JoinHandle<()> {
    start_server_with(
        db,
        port,
        Duration::from_secs(900),
        Duration::from_secs(86_400),
    )
    .await
}

/// As [`start_server`], with the tokens' lifetimes.
async fn start_server_with(
    db: &str,
    port: u16,
    access_ttl: Duration,
    refresh_ttl: Duration,
) -> tokio::task::JoinHandle<()> {
    let config = ServerConfig {
        database_url: db.to_string(),
        bind: SocketAddr::from(([127, 0, 0, 1], port)),
        access_ttl,
        refresh_ttl,
        pool_size: 4,
    };
    let handle = tokio::spawn(async move {
        serve(config).await.unwrap();
    });
    for _ in 0..100 {
        if reqwest::get(format!("http://127.0.0.1:{port}/health"))
            .await
            .is_ok()
        {
            return handle;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the sync server did not start");
}

fn device(dir: &tempfile::TempDir, name: &str) -> (Store, Sync<MemoryVault>) {
    let store = Store::open(&dir.path().join(format!("{name}.sqlite"))).unwrap();
    (store.clone(), Sync::new(store, MemoryVault::default()))
}

/// The desktop signs up and turns sync on; the tablet pairs with its code
/// and turns sync on too.
async fn join_family(url: &str, email: &str, desk: &Sync<MemoryVault>, tablet: &Sync<MemoryVault>) {
    desk.signup(
        url,
        SignupRequest {
            email: email.into(),
            password: "correct horse".into(),
            family_name: None,
            device_name: "desktop".into(),
        },
    )
    .await
    .unwrap();
    desk.enable(false).unwrap();
    let code = desk.pairing_code().await.unwrap();
    tablet
        .pair(
            url,
            PairRequest {
                code: code.code,
                device_name: "tablet".into(),
            },
        )
        .await
        .unwrap();
    tablet.enable(false).unwrap();
}

fn add_attempt(store: &Store, profile: &str, material: &str, transcript: &str) -> String {
    let id = uuid::Uuid::now_v7().to_string();
    store
        .with_conn(|c| {
            c.execute(
                "INSERT INTO recite_attempts (id, profile_id, material_id, mode, lang, transcript, units,
                    correct, accuracy, pass_threshold, passed, duration_ms, session_id, attempt_no,
                    purpose, created_at)
                 VALUES (?1, ?2, ?3, 'text', 'zh', ?4, 20, 18, 90.0, 85.0, 1, 30000, ?5, 1, 'learn',
                    strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))",
                rusqlite::params![id, profile, material, transcript, uuid::Uuid::now_v7().to_string()],
            )?;
            Ok(())
        })
        .unwrap();
    id
}

fn attempts(store: &Store) -> Vec<(String, String)> {
    store
        .with_conn(|c| {
            let mut s = c.prepare("SELECT id, transcript FROM recite_attempts ORDER BY id")?;
            let rows = s
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<Result<Vec<_>, _>>()?;
            Ok(rows)
        })
        .unwrap()
}

fn rename(store: &Store, id: &str, name: &str) {
    store
        .with_conn(|c| {
            c.execute(
                "UPDATE profiles SET name = ?2, name_key = ?2 WHERE id = ?1",
                rusqlite::params![id, name],
            )?;
            Ok(())
        })
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_attempt_on_the_tablet_reaches_the_desktop_and_edits_converge() {
    let db = cluster().database();
    let port = free_port();
    let server = start_server(&db, port).await;
    let url = format!("http://127.0.0.1:{port}");
    let dir = tempfile::tempdir().unwrap();
    let (desk_store, desk) = device(&dir, "desktop");
    let (tab_store, tablet) = device(&dir, "tablet");

    // Records made before sync is on are queued when a parent turns it on.
    let child = desk_store
        .profiles()
        .add(NewProfile {
            name: "小明".into(),
            grade: Some(2),
            ..Default::default()
        })
        .unwrap();
    let poem = add_jing_ye_si(&desk_store);
    // Of every kind: a goal, a family setting (and a device setting, which
    // stays), a memory, a chat (thread, run, two messages, a tool call), a
    // routine.
    desk_store
        .goals()
        .set(&child.id, deskmate_store::GoalKind::NewPerDay, 1)
        .unwrap();
    desk_store
        .settings()
        .set(Some(&child.id), "homework.answers", &true)
        .unwrap();
    desk_store.settings().set(None, "ui.locale", &"en").unwrap();
    desk_store
        .memories()
        .add(
            &child.id,
            deskmate_store::MemoryKind::Likes,
            "恐龙",
            deskmate_store::MemorySource::Parent,
            None,
        )
        .unwrap();
    let (thread, _, _) = chat(&desk_store, &child.id, "计划");
    desk_store.routines().create("晨读", "{}").unwrap();
    desk.signup(
        &url,
        SignupRequest {
            email: "li@example.com".into(),
            password: "correct horse".into(),
            family_name: None,
            device_name: "desktop".into(),
        },
    )
    .await
    .unwrap();
    // Off until a parent turns it on.
    assert!(matches!(desk.sync_now().await, Err(SyncError::Off)));
    assert_eq!(desk.enable(false).unwrap(), 11);
    let code = desk.pairing_code().await.unwrap();
    tablet
        .pair(
            &url,
            PairRequest {
                code: code.code,
                device_name: "tablet".into(),
            },
        )
        .await
        .unwrap();
    tablet.enable(false).unwrap();
    let first = desk.sync_now().await.unwrap();
    assert_eq!(first.pushed, 11);
    let got = tablet.sync_now().await.unwrap();
    assert_eq!(
        got.applied, 11,
        "everything the desktop had reaches the tablet"
    );
    assert_eq!(tab_store.profiles().get(&child.id).unwrap().name, "小明");
    assert_eq!(tab_store.goals().list(&child.id).unwrap().len(), 1);
    assert_eq!(
        tab_store
            .settings()
            .get::<bool>(Some(&child.id), "homework.answers")
            .unwrap(),
        Some(true)
    );
    assert_eq!(
        tab_store
            .settings()
            .get::<String>(None, "ui.locale")
            .unwrap(),
        None
    );
    assert_eq!(tab_store.memories().list(&child.id).unwrap().len(), 1);
    assert_eq!(
        one::<i64>(
            &tab_store,
            "SELECT count(*) FROM messages WHERE thread_id = ?1",
            &thread
        ),
        Some(2)
    );
    assert!(tab_store.routines().find("晨读").unwrap().is_some());

    // The child recites on the tablet; the transcript stays there.
    let attempt = add_attempt(&tab_store, &child.id, &poem.id, "床前明月光");
    assert_eq!(
        tab_store
            .with_conn(|c| Ok(deskmate_sync::local::state(c).unwrap().pending))
            .unwrap(),
        1
    );
    let pushed = tablet.sync_now().await.unwrap();
    assert_eq!(pushed.pushed, 1);
    let pulled = desk.sync_now().await.unwrap();
    assert_eq!(pulled.applied, 1);
    assert_eq!(
        attempts(&desk_store),
        vec![(attempt.clone(), String::new())]
    );
    assert_eq!(
        attempts(&tab_store),
        vec![(attempt, "床前明月光".to_string())]
    );

    // Both rename the child offline; the later edit wins on both.
    rename(&desk_store, &child.id, "明明");
    tokio::time::sleep(Duration::from_millis(5)).await;
    rename(&tab_store, &child.id, "小小明");
    desk.sync_now().await.unwrap();
    tablet.sync_now().await.unwrap();
    desk.sync_now().await.unwrap();
    assert_eq!(desk_store.profiles().get(&child.id).unwrap().name, "小小明");
    assert_eq!(tab_store.profiles().get(&child.id).unwrap().name, "小小明");

    // The server goes away mid-life: the push fails, the outbox keeps it.
    server.abort();
    let _ = server.await;
    let lost = add_attempt(&tab_store, &child.id, &poem.id, "");
    let err = tablet.sync_now().await.unwrap_err();
    assert!(matches!(err, SyncError::Offline(_)), "{err}");
    assert_eq!(tablet.state().unwrap().pending, 1);
    assert!(tablet.state().unwrap().last_error.is_some());
    let _server = start_server(&db, port).await;
    let retried = tablet.sync_now().await.unwrap();
    assert_eq!(retried.pushed + retried.duplicates, 1);
    assert_eq!(tablet.state().unwrap().pending, 0);
    desk.sync_now().await.unwrap();
    let on_desk: Vec<String> = attempts(&desk_store)
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    assert_eq!(on_desk.len(), 2);
    assert!(on_desk.contains(&lost));

    // The desktop lists both devices; removing the tablet signs it out.
    let devices = desk.devices().await.unwrap();
    assert_eq!(devices.len(), 2);
    let tab_id = tablet.state().unwrap().device_id.unwrap();
    desk.remove_device(&tab_id).await.unwrap();
    assert!(tablet.sync_now().await.is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn background_sync_backs_off_while_offline_and_sends_a_change_without_being_asked() {
    use deskmate_sync::background::{run, Cadence, Round};

    let db = cluster().database();
    let port = free_port();
    let server = start_server(&db, port).await;
    let url = format!("http://127.0.0.1:{port}");
    let dir = tempfile::tempdir().unwrap();
    let (desk_store, desk) = device(&dir, "desktop");
    let (tab_store, tablet) = device(&dir, "tablet");
    let child = desk_store
        .profiles()
        .add(NewProfile {
            name: "小红".into(),
            grade: Some(1),
            ..Default::default()
        })
        .unwrap();
    let poem = add_jing_ye_si(&desk_store);
    join_family(&url, "bg@example.com", &desk, &tablet).await;
    desk.sync_now().await.unwrap();
    tablet.sync_now().await.unwrap();

    // The server goes away; the tablet keeps practising.
    server.abort();
    let _ = server.await;
    let attempt = add_attempt(&tab_store, &child.id, &poem.id, "");
    let cadence = Cadence {
        check_every: Duration::from_millis(50),
        every: Duration::from_secs(60),
        first_backoff: Duration::from_millis(100),
        max_backoff: Duration::from_millis(400),
    };
    let (rounds, mut heard) = tokio::sync::mpsc::unbounded_channel();
    let background = async {
        run(&tablet, cadence, |round| {
            let _ = rounds.send(round);
        })
        .await
    };
    let watch = async {
        // Four failures in a row, each retried later than the one before, up to the cap.
        let mut waits = Vec::new();
        while waits.len() < 4 {
            match heard.recv().await.unwrap() {
                Round::Failed {
                    error,
                    failures,
                    retry_in,
                } => {
                    assert!(matches!(error, SyncError::Offline(_)), "{error}");
                    assert_eq!(failures as usize, waits.len() + 1);
                    waits.push(retry_in.as_millis());
                }
                other => panic!("a round worked with the server down: {other:?}"),
            }
        }
        assert_eq!(waits, [100, 200, 400, 400]);
        assert_eq!(tablet.state().unwrap().pending, 1);
        // The server is back: the next try sends the attempt with nobody asking.
        let _server = start_server(&db, port).await;
        loop {
            match heard.recv().await.unwrap() {
                Round::Synced(report) => {
                    assert_eq!(report.pushed, 1);
                    break;
                }
                Round::Failed { .. } => continue,
                Round::Idle(e) => panic!("idle while signed in and on: {e}"),
            }
        }
        assert_eq!(tablet.state().unwrap().pending, 0);
        // A change made now goes out within the outbox check, long before a
        // full round is due (a minute away).
        let second = add_attempt(&tab_store, &child.id, &poem.id, "");
        let report = tokio::time::timeout(Duration::from_secs(5), async {
            loop {
                if let Round::Synced(r) = heard.recv().await.unwrap() {
                    return r;
                }
            }
        })
        .await
        .expect("the change waited for the full round");
        assert_eq!(report.pushed, 1);
        desk.sync_now().await.unwrap();
        let on_desk: Vec<String> = attempts(&desk_store)
            .into_iter()
            .map(|(id, _)| id)
            .collect();
        assert!(
            on_desk.contains(&attempt) && on_desk.contains(&second),
            "{on_desk:?}"
        );
    };
    tokio::select! {
        _ = background => panic!("the background loop ended by itself"),
        caught_up = tokio::time::timeout(Duration::from_secs(60), watch) => {
            caught_up.expect("background sync did not catch up within a minute");
        }
    }
}

/// Rows per table of `store` with any column holding `needle`.
fn rows_holding(store: &Store, needle: &str) -> Vec<(String, i64)> {
    store
        .with_conn(|c| {
            let tables: Vec<String> = c
                .prepare(
                    "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%'",
                )?
                .query_map([], |r| r.get(0))?
                .collect::<Result<_, _>>()?;
            let mut found = Vec::new();
            for t in tables {
                let cols: Vec<String> = c
                    .prepare(&format!("SELECT name FROM pragma_table_info('{t}')"))?
                    .query_map([], |r| r.get(0))?
                    .collect::<Result<_, _>>()?;
                let any = cols
                    .iter()
                    .map(|col| format!("instr(CAST(\"{col}\" AS TEXT), ?1) > 0"))
                    .collect::<Vec<_>>()
                    .join(" OR ");
                let n: i64 = c.query_row(
                    &format!("SELECT count(*) FROM \"{t}\" WHERE {any}"),
                    [needle],
                    |r| r.get(0),
                )?;
                if n > 0 {
                    found.push((t, n));
                }
            }
            Ok(found)
        })
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_child_deleted_on_one_device_goes_with_their_data_on_the_other() {
    let db = cluster().database();
    let port = free_port();
    let _server = start_server(&db, port).await;
    let url = format!("http://127.0.0.1:{port}");
    let dir = tempfile::tempdir().unwrap();
    let (desk_store, desk) = device(&dir, "desktop");
    let (tab_store, tablet) = device(&dir, "tablet");
    let child = desk_store
        .profiles()
        .add(NewProfile {
            name: "小明".into(),
            ..Default::default()
        })
        .unwrap();
    let sister = desk_store
        .profiles()
        .add(NewProfile {
            name: "小红".into(),
            ..Default::default()
        })
        .unwrap();
    let poem = add_jing_ye_si(&desk_store);
    join_family(&url, "del@example.com", &desk, &tablet).await;
    desk.sync_now().await.unwrap();
    tablet.sync_now().await.unwrap();
    // On the tablet: an attempt (synced), and what stays on the tablet
    // only — a chat thread, a memory, a setting of the child's.
    add_attempt(&tab_store, &child.id, &poem.id, "床前明月光");
    add_attempt(&tab_store, &sister.id, &poem.id, "床前明月光");
    tab_store
        .with_conn(|c| {
            c.execute(
                "INSERT INTO threads (id, profile_id, title, created_at, updated_at)
                 VALUES ('t-1', ?1, '小明的计划', 'now', 'now')",
                [&child.id],
            )?;
            Ok(())
        })
        .unwrap();
    tab_store
        .memories()
        .add(
            &child.id,
            deskmate_store::MemoryKind::Likes,
            "恐龙",
            deskmate_store::MemorySource::Explicit,
            None,
        )
        .unwrap();
    tab_store
        .settings()
        .set(Some(&child.id), "chat.context", &serde_json::json!({}))
        .unwrap();
    // Synced records of both children: a goal, a report, a chat.
    for who in [&child.id, &sister.id] {
        tab_store
            .goals()
            .set(who, deskmate_store::GoalKind::NewPerDay, 1)
            .unwrap();
        put_report(&tab_store, who, "2026-11-26", "{}");
        chat(&tab_store, who, "问题");
    }
    tablet.sync_now().await.unwrap();
    desk.sync_now().await.unwrap();
    assert_eq!(attempts(&desk_store).len(), 2);
    assert_eq!(
        one::<i64>(
            &desk_store,
            "SELECT count(*) FROM threads WHERE profile_id = ?1",
            &child.id
        ),
        Some(2),
        "the tablet's chats reached the desktop"
    );
    // Their answers are being written on the tablet: running there, and
    // not the desktop's to close (nor to stop a parent deleting the child).
    let running_here = format!(
        "SELECT count(*) FROM runs WHERE status = ?1 AND {}",
        deskmate_store::RUN_OF_THIS_DEVICE
    );
    assert_eq!(one::<i64>(&tab_store, &running_here, "running"), Some(2));
    assert_eq!(one::<i64>(&desk_store, &running_here, "running"), Some(0));
    // The desktop has a change of the child's waiting when the child is
    // deleted: it does not go out.
    desk_store
        .goals()
        .set(&child.id, deskmate_store::GoalKind::NewPerDay, 3)
        .unwrap();

    // A parent deletes 小明 on the desktop: the deletion goes out…
    let gone = desk_store.child_data().delete(&child.id).unwrap();
    assert!(gone.sent_to_family);
    assert_eq!(desk.sync_now().await.unwrap().pushed, 1);
    // …and the tablet deletes 小明 with everything of theirs, its own rows too.
    tablet.sync_now().await.unwrap();
    assert!(tab_store.profiles().get(&child.id).is_err());
    let left = rows_holding(&tab_store, &child.id);
    assert_eq!(
        left,
        vec![("sync_records".to_string(), 1)],
        "only the deletion's clock stays"
    );
    let threads: i64 = tab_store
        .with_conn(|c| Ok(c.query_row("SELECT count(*) FROM threads", [], |r| r.get(0))?))
        .unwrap();
    assert_eq!(
        threads, 1,
        "the child's chats went too, not left without an owner; the sister's stays"
    );
    assert_eq!(attempts(&tab_store).len(), 1, "小红's attempt stays");
    assert!(tab_store.profiles().get(&sister.id).is_ok());
    assert_eq!(
        rows_holding(&desk_store, &child.id),
        vec![("sync_records".to_string(), 1)],
        "on the desktop too"
    );
    // 小红's records stay on both devices.
    for store in [&desk_store, &tab_store] {
        for table in ["plan_goals", "recite_reports", "threads"] {
            assert_eq!(
                one::<i64>(
                    store,
                    &format!("SELECT count(*) FROM {table} WHERE profile_id = ?1"),
                    &sister.id
                ),
                Some(1),
                "{table}"
            );
        }
        assert_eq!(
            one::<i64>(
                store,
                "SELECT count(*) FROM messages WHERE thread_id IN (SELECT id FROM threads WHERE profile_id = ?1)",
                &sister.id
            ),
            Some(2)
        );
    }
}

/// Every row of the synced tables, as text, to compare a device before and
/// after a replayed pull.
fn synced_rows(store: &Store) -> Vec<String> {
    let tables = [
        "profiles",
        "materials",
        "recite_attempts",
        "plan_goals",
        "settings",
        "recite_reports",
        "recite_error_patterns",
        "recite_reviews",
        "practice_sessions",
        "threads",
        "runs",
        "messages",
        "tool_calls",
        "memories",
        "routines",
        "sync_records",
    ];
    store
        .with_conn(|c| {
            let mut rows = Vec::new();
            for t in tables {
                let mut s = c.prepare(&format!("SELECT * FROM {t} ORDER BY 1, 2"))?;
                let n = s.column_count();
                let got = s
                    .query_map([], |r| {
                        let mut line = format!("{t}:");
                        for i in 0..n {
                            let v: rusqlite::types::Value = r.get(i)?;
                            line.push_str(&format!(" {v:?}"));
                        }
                        Ok(line)
                    })?
                    .collect::<Result<Vec<_>, _>>()?;
                rows.extend(got);
            }
            Ok(rows)
        })
        .unwrap()
}

/// Both devices push what waits and pull everything, desktop, tablet, desktop.
async fn settle(desk: &Sync<MemoryVault>, tablet: &Sync<MemoryVault>) {
    desk.sync_now().await.unwrap();
    tablet.sync_now().await.unwrap();
    desk.sync_now().await.unwrap();
}

/// A pull from the start again (the cursor lost, a page repeated) applies
/// nothing and changes no row.
async fn replay_changes_nothing(store: &Store, device: &Sync<MemoryVault>) {
    let before = synced_rows(store);
    store
        .with_conn(|c| {
            c.execute("UPDATE sync_state SET cursor = 0 WHERE id = 1", [])?;
            Ok(())
        })
        .unwrap();
    let again = device.sync_now().await.unwrap();
    assert_eq!(again.applied, 0, "a replayed pull applied something");
    assert_eq!(synced_rows(store), before);
}

fn one<T: rusqlite::types::FromSql>(store: &Store, sql: &str, param: &str) -> Option<T> {
    use rusqlite::OptionalExtension;
    store
        .with_conn(|c| Ok(c.query_row(sql, [param], |r| r.get(0)).optional()?))
        .unwrap()
}

/// Two devices of one family with two children (小明, 小红) and a poem,
/// everything already on both.
struct Family {
    _server: tokio::task::JoinHandle<()>,
    _dir: tempfile::TempDir,
    desk_store: Store,
    desk: Sync<MemoryVault>,
    tab_store: Store,
    tablet: Sync<MemoryVault>,
    child: String,
    sister: String,
    poem: String,
}

async fn family(email: &str) -> Family {
    let db = cluster().database();
    let port = free_port();
    let server = start_server(&db, port).await;
    let url = format!("http://127.0.0.1:{port}");
    let dir = tempfile::tempdir().unwrap();
    let (desk_store, desk) = device(&dir, "desktop");
    let (tab_store, tablet) = device(&dir, "tablet");
    let add = |name: &str| {
        desk_store
            .profiles()
            .add(NewProfile {
                name: name.into(),
                grade: Some(2),
                ..Default::default()
            })
            .unwrap()
            .id
    };
    let child = add("小明");
    let sister = add("小红");
    let poem = add_jing_ye_si(&desk_store).id;
    join_family(&url, email, &desk, &tablet).await;
    settle(&desk, &tablet).await;
    Family {
        _server: server,
        _dir: dir,
        desk_store,
        desk,
        tab_store,
        tablet,
        child,
        sister,
        poem,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn goals_and_family_settings_sync_and_device_settings_stay() {
    use deskmate_store::GoalKind;
    let f = family("goals@example.com").await;
    let (desk_store, tab_store) = (&f.desk_store, &f.tab_store);

    // A parent sets a goal and the pass mark on the tablet; the tablet's
    // model endpoint is the tablet's own.
    tab_store
        .goals()
        .set(&f.child, GoalKind::NewPerDay, 2)
        .unwrap();
    tab_store
        .settings()
        .set(Some(&f.child), "recite.pass_threshold", &90.0)
        .unwrap();
    tab_store
        .settings()
        .set(None, "chat.subagents", &false)
        .unwrap();
    tab_store
        .settings()
        .set(None, "llm.base_url", &"http://127.0.0.1:11434")
        .unwrap();
    assert_eq!(
        f.tablet.state().unwrap().pending,
        3,
        "the device setting waits for nothing"
    );
    settle(&f.desk, &f.tablet).await;
    let goal = desk_store
        .goals()
        .get(&f.child, GoalKind::NewPerDay)
        .unwrap()
        .unwrap();
    assert_eq!(goal.target, 2);
    let mark: Option<f64> = desk_store
        .settings()
        .get(Some(&f.child), "recite.pass_threshold")
        .unwrap();
    assert_eq!(mark, Some(90.0));
    let subagents: Option<bool> = desk_store.settings().get(None, "chat.subagents").unwrap();
    assert_eq!(subagents, Some(false));
    let base: Option<String> = desk_store.settings().get(None, "llm.base_url").unwrap();
    assert_eq!(base, None, "a device's own setting stayed on it");

    // Both parents set the same weekly goal offline (two rows, two ids):
    // one record, the later edit wins on both; the same for the pass mark.
    desk_store
        .goals()
        .set(&f.child, GoalKind::ReviewsPerWeek, 3)
        .unwrap();
    desk_store
        .settings()
        .set(Some(&f.child), "recite.pass_threshold", &80.0)
        .unwrap();
    tokio::time::sleep(Duration::from_millis(5)).await;
    tab_store
        .goals()
        .set(&f.child, GoalKind::ReviewsPerWeek, 5)
        .unwrap();
    tab_store
        .settings()
        .set(Some(&f.child), "recite.pass_threshold", &95.0)
        .unwrap();
    settle(&f.desk, &f.tablet).await;
    for store in [desk_store, tab_store] {
        let weekly = store
            .goals()
            .get(&f.child, GoalKind::ReviewsPerWeek)
            .unwrap()
            .unwrap();
        assert_eq!(weekly.target, 5);
        let mark: Option<f64> = store
            .settings()
            .get(Some(&f.child), "recite.pass_threshold")
            .unwrap();
        assert_eq!(mark, Some(95.0));
    }

    // A goal removed and a setting cleared on the desktop go on the tablet.
    desk_store
        .goals()
        .remove(&f.child, GoalKind::NewPerDay)
        .unwrap();
    desk_store
        .settings()
        .remove(None, "chat.subagents")
        .unwrap();
    settle(&f.desk, &f.tablet).await;
    assert!(tab_store
        .goals()
        .get(&f.child, GoalKind::NewPerDay)
        .unwrap()
        .is_none());
    let subagents: Option<bool> = tab_store.settings().get(None, "chat.subagents").unwrap();
    assert_eq!(subagents, None);
    assert_eq!(
        tab_store
            .settings()
            .get::<String>(None, "llm.base_url")
            .unwrap()
            .as_deref(),
        Some("http://127.0.0.1:11434")
    );

    replay_changes_nothing(desk_store, &f.desk).await;
    replay_changes_nothing(tab_store, &f.tablet).await;
    // The sister has no goal of her brother's.
    assert!(desk_store.goals().list(&f.sister).unwrap().is_empty());
}

fn exec(store: &Store, sql: &str, params: &[&dyn rusqlite::ToSql]) {
    store
        .with_conn(|c| {
            c.execute(sql, params)?;
            Ok(())
        })
        .unwrap();
}

fn new_id() -> String {
    uuid::Uuid::now_v7().to_string()
}

fn put_report(store: &Store, profile: &str, date: &str, data: &str) {
    exec(
        store,
        "INSERT INTO recite_reports (id, profile_id, report_type, report_date, time_zone, period_start,
            period_end, data, created_at, updated_at)
         VALUES (?1, ?2, 'daily', ?3, 'Asia/Shanghai', '2026-11-25T16:00:00Z', '2026-11-26T16:00:00Z', ?4,
            strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
         ON CONFLICT (profile_id, report_type, report_date) DO UPDATE SET
            data = excluded.data, updated_at = excluded.updated_at",
        &[&new_id(), &profile, &date, &data],
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reports_practice_sessions_and_error_patterns_sync() {
    let f = family("reports@example.com").await;
    let (desk_store, tab_store) = (&f.desk_store, &f.tab_store);

    // On the tablet: a report, a practice sitting (its last verdict holds
    // what the child said) and an error pattern with its tip.
    put_report(tab_store, &f.child, "2026-11-26", r#"{"from":"tablet"}"#);
    let sitting = new_id();
    exec(
        tab_store,
        "INSERT INTO practice_sessions (id, profile_id, material_id, mode, practice, last_result, created_at, updated_at)
         VALUES (?1, ?2, ?3, 'text', '{\"step\":1}', '{\"accuracy\":90.0,\"transcript\":\"床前明月光\"}', 'now', 'now')",
        &[&sitting, &f.child, &f.poem],
    );
    let pattern = new_id();
    exec(
        tab_store,
        "INSERT INTO recite_error_patterns (id, profile_id, material_id, error_type, kind, line, pattern_key,
            core_text, expected, actual, occurrence_count, first_seen_at, last_seen_at, tip_zh, tip_en, tip_source, tip_at)
         VALUES (?1, ?2, ?3, 'substitution', 'char', 1, 'substitution|1|月|yue', '月', '月', '悦', 1, 'then', 'then',
            '月亮的月', 'moon', 'template', 'then')",
        &[&pattern, &f.child, &f.poem],
    );
    assert_eq!(f.tablet.state().unwrap().pending, 3);
    settle(&f.desk, &f.tablet).await;
    assert_eq!(
        one::<String>(
            desk_store,
            "SELECT data FROM recite_reports WHERE profile_id = ?1",
            &f.child
        )
        .as_deref(),
        Some(r#"{"from":"tablet"}"#)
    );
    let shown: String = one(
        desk_store,
        "SELECT last_result FROM practice_sessions WHERE id = ?1",
        &sitting,
    )
    .unwrap();
    let shown: serde_json::Value = serde_json::from_str(&shown).unwrap();
    assert_eq!(
        shown["transcript"], "",
        "what the child said stays on the tablet"
    );
    assert_eq!(shown["accuracy"], 90.0);
    let kept: String = one(
        tab_store,
        "SELECT last_result FROM practice_sessions WHERE id = ?1",
        &sitting,
    )
    .unwrap();
    assert!(kept.contains("床前明月光"));
    assert_eq!(
        one::<String>(
            desk_store,
            "SELECT tip_zh FROM recite_error_patterns WHERE id = ?1",
            &pattern
        )
        .as_deref(),
        Some("月亮的月")
    );

    // The practice goes on, the pattern is seen again on the tablet.
    exec(
        tab_store,
        "UPDATE practice_sessions SET practice = '{\"step\":2}', updated_at = 'later' WHERE id = ?1",
        &[&sitting],
    );
    exec(
        tab_store,
        "UPDATE recite_error_patterns SET occurrence_count = occurrence_count + 1 WHERE id = ?1",
        &[&pattern],
    );
    // Both devices make the day's report offline (each its own row): the
    // later one is the report on both.
    put_report(desk_store, &f.child, "2026-11-27", r#"{"from":"desk"}"#);
    tokio::time::sleep(Duration::from_millis(5)).await;
    put_report(
        tab_store,
        &f.child,
        "2026-11-27",
        r#"{"from":"tablet, later"}"#,
    );
    settle(&f.desk, &f.tablet).await;
    assert_eq!(
        one::<String>(
            desk_store,
            "SELECT practice FROM practice_sessions WHERE id = ?1",
            &sitting
        )
        .as_deref(),
        Some(r#"{"step":2}"#)
    );
    assert_eq!(
        one::<i64>(
            desk_store,
            "SELECT occurrence_count FROM recite_error_patterns WHERE profile_id = ?1",
            &f.child
        ),
        Some(2)
    );
    for store in [desk_store, tab_store] {
        let day: Vec<String> = store
            .with_conn(|c| {
                Ok(
                    c.prepare("SELECT data FROM recite_reports WHERE report_date = '2026-11-27'")?
                        .query_map([], |r| r.get(0))?
                        .collect::<Result<_, _>>()?,
                )
            })
            .unwrap();
        assert_eq!(day, vec![r#"{"from":"tablet, later"}"#.to_string()]);
    }

    replay_changes_nothing(desk_store, &f.desk).await;
    replay_changes_nothing(tab_store, &f.tablet).await;
    assert_eq!(
        one::<i64>(
            desk_store,
            "SELECT count(*) FROM recite_reports WHERE profile_id = ?1",
            &f.sister
        ),
        Some(0)
    );
}

/// A chat on `store`: a thread of `profile`, a run, the child's message,
/// the answer asking for a tool, the tool's call. Returns the thread id.
fn chat(store: &Store, profile: &str, title: &str) -> (String, String, String) {
    let (thread, run, answer) = (new_id(), new_id(), new_id());
    exec(
        store,
        "INSERT INTO threads (id, profile_id, title, created_at, updated_at)
         VALUES (?1, ?2, ?3, '2026-11-27T08:00:00Z', '2026-11-27T08:00:00Z')",
        &[&thread, &profile, &title],
    );
    exec(
        store,
        "INSERT INTO runs (id, thread_id, status, model, started_at)
         VALUES (?1, ?2, 'running', 'scripted:m', '2026-11-27T08:00:01Z')",
        &[&run, &thread],
    );
    exec(
        store,
        "INSERT INTO messages (id, thread_id, run_id, seq, role, content, created_at)
         VALUES (?1, ?2, ?3, 1, 'user', '[{\"type\":\"text\",\"text\":\"明天背什么？\"}]', '2026-11-27T08:00:01Z')",
        &[&new_id(), &thread, &run],
    );
    exec(
        store,
        "INSERT INTO messages (id, thread_id, run_id, seq, role, content, created_at)
         VALUES (?1, ?2, ?3, 2, 'assistant', '[]', '2026-11-27T08:00:02Z')",
        &[&answer, &thread, &run],
    );
    exec(
        store,
        "INSERT INTO tool_calls (id, thread_id, run_id, message_id, position, name, arguments, status, started_at)
         VALUES ('call_1', ?1, ?2, ?3, 0, 'due_reviews', '{}', 'pending', '2026-11-27T08:00:02Z')",
        &[&thread, &run, &answer],
    );
    (thread, run, answer)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_threads_with_runs_messages_and_tool_calls_sync() {
    let f = family("chat@example.com").await;
    let (desk_store, tab_store) = (&f.desk_store, &f.tab_store);

    let (thread, run, _) = chat(tab_store, &f.child, "明天的计划");
    assert_eq!(f.tablet.state().unwrap().pending, 5);
    // The answer finishes: the tool call and the run are updated.
    exec(
        tab_store,
        "UPDATE tool_calls SET status = 'completed', result = '[\"静夜思\"]', finished_at = 'then'
         WHERE thread_id = ?1 AND id = 'call_1'",
        &[&thread],
    );
    exec(
        tab_store,
        "UPDATE runs SET status = 'completed', steps = 2, finished_at = 'then' WHERE id = ?1",
        &[&run],
    );
    // A new message touches the thread's time: that alone is no change to send.
    exec(
        tab_store,
        "INSERT INTO messages (id, thread_id, run_id, seq, role, content, created_at)
         VALUES (?1, ?2, ?3, 3, 'assistant', '[{\"type\":\"text\",\"text\":\"背静夜思\"}]', '2026-11-27T08:00:09Z')",
        &[&new_id(), &thread, &run],
    );
    exec(
        tab_store,
        "UPDATE threads SET updated_at = '2026-11-27T08:00:09Z' WHERE id = ?1",
        &[&thread],
    );
    assert_eq!(f.tablet.state().unwrap().pending, 8);
    settle(&f.desk, &f.tablet).await;
    let count = |store: &Store, table: &str| -> i64 {
        one(
            store,
            &format!("SELECT count(*) FROM {table} WHERE thread_id = ?1"),
            &thread,
        )
        .unwrap()
    };
    assert_eq!(count(desk_store, "messages"), 3);
    assert_eq!(count(desk_store, "runs"), 1);
    assert_eq!(
        one::<String>(
            desk_store,
            "SELECT status || ' ' || result FROM tool_calls WHERE thread_id = ?1",
            &thread
        )
        .as_deref(),
        Some("completed [\"静夜思\"]")
    );
    assert_eq!(
        one::<String>(desk_store, "SELECT status FROM runs WHERE id = ?1", &run).as_deref(),
        Some("completed")
    );
    assert_eq!(
        one::<String>(
            desk_store,
            "SELECT title || ' ' || updated_at FROM threads WHERE id = ?1",
            &thread
        )
        .as_deref(),
        Some("明天的计划 2026-11-27T08:00:09Z"),
        "the thread is as recent as its newest message"
    );

    // Both rename the thread offline: the later title wins on both.
    exec(
        desk_store,
        "UPDATE threads SET title = '桌面的名字' WHERE id = ?1",
        &[&thread],
    );
    tokio::time::sleep(Duration::from_millis(5)).await;
    exec(
        tab_store,
        "UPDATE threads SET title = '平板的名字', metadata = '{\"pinned\":true}' WHERE id = ?1",
        &[&thread],
    );
    settle(&f.desk, &f.tablet).await;
    for store in [desk_store, tab_store] {
        assert_eq!(
            one::<String>(
                store,
                "SELECT title || ' ' || metadata FROM threads WHERE id = ?1",
                &thread
            )
            .as_deref(),
            Some("平板的名字 {\"pinned\":true}")
        );
    }
    replay_changes_nothing(desk_store, &f.desk).await;
    replay_changes_nothing(tab_store, &f.tablet).await;

    // A thread deleted on the desktop goes on the tablet with its rows;
    // the sister's chat stays.
    let (sisters, _, _) = chat(tab_store, &f.sister, "小红的问题");
    settle(&f.desk, &f.tablet).await;
    exec(desk_store, "DELETE FROM threads WHERE id = ?1", &[&thread]);
    assert_eq!(
        f.desk.state().unwrap().pending,
        1,
        "the thread's rows go with it"
    );
    settle(&f.desk, &f.tablet).await;
    assert_eq!(count(tab_store, "messages"), 0);
    assert_eq!(count(tab_store, "tool_calls"), 0);
    assert_eq!(
        one::<i64>(
            tab_store,
            "SELECT count(*) FROM messages WHERE thread_id = ?1",
            &sisters
        ),
        Some(2)
    );

    // The desktop deletes the sister's thread while the tablet, offline,
    // adds a message to it: the message reaches a desktop without the
    // thread and is skipped there; the pull goes on.
    exec(desk_store, "DELETE FROM threads WHERE id = ?1", &[&sisters]);
    exec(
        tab_store,
        "INSERT INTO messages (id, thread_id, seq, role, content, created_at)
         VALUES (?1, ?2, 3, 'user', '[]', '2026-11-27T09:00:00Z')",
        &[&new_id(), &sisters],
    );
    f.desk.sync_now().await.unwrap();
    f.tablet.sync_now().await.unwrap();
    let late = f.desk.sync_now().await.unwrap();
    assert_eq!(
        late.applied, 0,
        "the message of a deleted thread is skipped"
    );
    for store in [desk_store, tab_store] {
        assert_eq!(
            one::<i64>(
                store,
                "SELECT count(*) FROM messages WHERE thread_id = ?1",
                &sisters
            ),
            Some(0)
        );
    }
    // Later changes still come through.
    let newer = chat(tab_store, &f.sister, "又一个问题").0;
    settle(&f.desk, &f.tablet).await;
    assert_eq!(
        one::<i64>(
            desk_store,
            "SELECT count(*) FROM messages WHERE thread_id = ?1",
            &newer
        ),
        Some(2)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memories_and_routines_sync_and_routine_runs_stay() {
    use deskmate_store::{MemoryKind, MemorySource};
    let f = family("memories@example.com").await;
    let (desk_store, tab_store) = (&f.desk_store, &f.tab_store);

    let memory = tab_store
        .memories()
        .add(
            &f.child,
            MemoryKind::Likes,
            "恐龙",
            MemorySource::Explicit,
            None,
        )
        .unwrap();
    desk_store
        .routines()
        .create("晚间复习", r#"{"nodes":[]}"#)
        .unwrap();
    settle(&f.desk, &f.tablet).await;
    assert_eq!(desk_store.memories().get(&memory.id).unwrap().text, "恐龙");
    assert_eq!(
        tab_store.routines().get("晚间复习").unwrap().spec,
        r#"{"nodes":[]}"#
    );

    // A run of the routine on the tablet stays there.
    tab_store
        .routines()
        .save_run(&new_id(), "晚间复习", Some(&f.child), "running", "{}")
        .unwrap();
    // Both edit the memory and the routine offline: the later edit wins.
    desk_store
        .memories()
        .edit(&memory.id, "恐龙和鲸鱼", None)
        .unwrap();
    tab_store
        .routines()
        .update("晚间复习", r#"{"nodes":[1]}"#)
        .unwrap();
    tokio::time::sleep(Duration::from_millis(5)).await;
    tab_store
        .memories()
        .edit(&memory.id, "霸王龙", Some(MemoryKind::Likes))
        .unwrap();
    desk_store
        .routines()
        .update("晚间复习", r#"{"nodes":[2]}"#)
        .unwrap();
    settle(&f.desk, &f.tablet).await;
    for store in [desk_store, tab_store] {
        assert_eq!(store.memories().get(&memory.id).unwrap().text, "霸王龙");
        assert_eq!(
            store.routines().get("晚间复习").unwrap().spec,
            r#"{"nodes":[2]}"#
        );
    }
    assert!(desk_store.routines().runs(None).unwrap().is_empty());
    assert_eq!(tab_store.routines().runs(None).unwrap().len(), 1);
    replay_changes_nothing(desk_store, &f.desk).await;
    replay_changes_nothing(tab_store, &f.tablet).await;

    // Deleted on one, gone on the other.
    let sisters = desk_store
        .memories()
        .add(
            &f.sister,
            MemoryKind::FindsHard,
            "乘法",
            MemorySource::Parent,
            None,
        )
        .unwrap();
    desk_store.memories().delete(&memory.id).unwrap();
    tab_store.routines().delete("晚间复习").unwrap();
    settle(&f.desk, &f.tablet).await;
    assert!(tab_store.memories().get(&memory.id).is_err());
    assert!(desk_store.routines().find("晚间复习").unwrap().is_none());
    assert_eq!(tab_store.memories().get(&sisters.id).unwrap().text, "乘法");
}

/// Adds `n` attempts of a child at a material in one transaction (each with
/// its outbox entry, as the triggers write it); returns their ids.
fn add_attempts(store: &Store, profile: &str, material: &str, n: usize) -> Vec<String> {
    let ids: Vec<String> = (0..n).map(|_| uuid::Uuid::now_v7().to_string()).collect();
    store
        .with_conn(|c| {
            let tx = c.unchecked_transaction()?;
            for id in &ids {
                tx.execute(
                    "INSERT INTO recite_attempts (id, profile_id, material_id, mode, lang, transcript,
                        units, correct, accuracy, pass_threshold, passed, duration_ms, session_id,
                        attempt_no, purpose, created_at)
                     VALUES (?1, ?2, ?3, 'text', 'zh', '', 20, 18, 90.0, 85.0, 1, 30000, ?4, 1,
                        'learn', strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))",
                    rusqlite::params![id, profile, material, uuid::Uuid::now_v7().to_string()],
                )?;
            }
            tx.commit()?;
            Ok(())
        })
        .unwrap();
    ids
}

fn profile_names(store: &Store) -> Vec<String> {
    let mut names: Vec<String> = store
        .profiles()
        .list()
        .unwrap()
        .into_iter()
        .map(|p| p.name)
        .collect();
    names.sort();
    names
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_device_offline_for_days_catches_up_whole_in_order_once() {
    use deskmate_protocol::sync::MAX_PAGE;
    // Access tokens of a second and refresh tokens of four: "days" offline
    // for the tokens, seconds for the test.
    let db = cluster().database();
    let port = free_port();
    let _server =
        start_server_with(&db, port, Duration::from_secs(1), Duration::from_secs(4)).await;
    let url = format!("http://127.0.0.1:{port}");
    let dir = tempfile::tempdir().unwrap();
    let (desk_store, desk) = device(&dir, "desktop");
    let (tab_store, tablet) = device(&dir, "tablet");
    let child = desk_store
        .profiles()
        .add(NewProfile {
            name: "小明".into(),
            grade: Some(2),
            ..Default::default()
        })
        .unwrap()
        .id;
    let poem = add_jing_ye_si(&desk_store).id;
    join_family(&url, "away@example.com", &desk, &tablet).await;
    settle(&desk, &tablet).await;
    let tablet_device = tablet.state().unwrap().device_id.unwrap();

    // The tablet goes offline; on it the child recites once.
    let offline_attempt = add_attempt(&tab_store, &child, &poem, "床前明月光");
    // The desktop goes on for "days": a new poem with many attempts at it
    // (records pointing at a record made in the same stretch), and the
    // child renamed again and again, over several rounds with expired
    // access tokens in between, which the desktop refreshes.
    let mut made = Vec::new();
    let mut desk_changes = 0;
    let mut new_poem = String::new();
    for day in 0..4 {
        if day == 0 {
            new_poem = desk_store
                .materials()
                .add_custom(
                    deskmate_store::NewMaterial {
                        slug: Some("chun-xiao".into()),
                        lang: "zh".into(),
                        title: "春晓".into(),
                        author: Some("孟浩然".into()),
                        dynasty: Some("唐".into()),
                        grade: Some(1),
                        level: None,
                        body: "春眠不觉晓，处处闻啼鸟。\n夜来风雨声，花落知多少。".into(),
                    },
                    None,
                )
                .unwrap()
                .id;
        }
        made.extend(add_attempts(&desk_store, &child, &new_poem, 450));
        for n in 0..5 {
            rename(&desk_store, &child, &format!("小明{day}{n}"));
        }
        let report = desk.sync_now().await.unwrap();
        desk_changes += report.pushed as usize;
        // A token of one second lives one to two (its expiry is rounded up
        // to a whole second): past two, the next round must refresh.
        tokio::time::sleep(Duration::from_millis(2_100)).await;
    }
    assert!(
        desk_changes > 3 * MAX_PAGE,
        "{desk_changes} changes: more than three pull pages"
    );

    // Its refresh token expired too: the tablet is signed out, not broken;
    // what it made waits in its outbox.
    let err = tablet.sync_now().await.unwrap_err();
    assert!(matches!(err, SyncError::NotSignedIn), "{err}");
    assert_eq!(tablet.state().unwrap().pending, 1);
    // A parent pairs it again; it stays in the family, so its cursor stays.
    let code = desk.pairing_code().await.unwrap();
    tablet
        .pair(
            &url,
            PairRequest {
                code: code.code,
                device_name: "tablet".into(),
            },
        )
        .await
        .unwrap();
    assert_ne!(tablet.state().unwrap().device_id.unwrap(), tablet_device);
    // One round: everything the desktop made, each once.
    let report = tablet.sync_now().await.unwrap();
    assert_eq!(report.pushed, 1);
    assert_eq!(
        report.applied, desk_changes,
        "every change applied exactly once"
    );
    assert_eq!(tablet.state().unwrap().pending, 0);
    // In order: the attempts found the poem they point at, and the child's
    // name is the last one given, not an earlier one pulled after it.
    let on_tablet: std::collections::HashSet<String> =
        attempts(&tab_store).into_iter().map(|(id, _)| id).collect();
    assert_eq!(on_tablet.len(), made.len() + 1);
    assert!(made.iter().all(|id| on_tablet.contains(id)));
    assert!(on_tablet.contains(&offline_attempt));
    assert_eq!(profile_names(&tab_store), ["小明34"]);
    // The review schedule, rebuilt from the merged attempts, counts each
    // attempt at the new poem once.
    let reps: Option<i64> = one(
        &tab_store,
        "SELECT reps FROM recite_reviews WHERE material_id = ?1",
        &new_poem,
    );
    assert_eq!(reps, Some(i64::try_from(made.len()).unwrap()));
    // The desktop gets the tablet's attempt (without its transcript); both
    // hold the same attempts.
    desk.sync_now().await.unwrap();
    let ids =
        |store: &Store| -> Vec<String> { attempts(store).into_iter().map(|(id, _)| id).collect() };
    let (on_desk, on_tab) = (ids(&desk_store), ids(&tab_store));
    assert!(
        on_desk == on_tab,
        "{} attempts on the desktop, {} on the tablet",
        on_desk.len(),
        on_tab.len()
    );
    // Nothing more comes on a second round, and a replay from 0 adds nothing.
    assert_eq!(tablet.sync_now().await.unwrap().applied, 0);
    replay_changes_nothing(&tab_store, &tablet).await;
}

/// One typed attempt at the poem through the real recording path (history,
/// error patterns, schedule), at `at`.
fn recite(store: &Store, profile: &str, poem: &str, text: &str, at: &str) {
    use deskmate_recite::practice::{record_attempt, NewAttempt};
    record_attempt(
        store,
        NewAttempt {
            profile_id: profile.into(),
            material_id: poem.into(),
            transcript: deskmate_recite::Transcript::new(text),
            mode: deskmate_recite::Mode::Text,
            at: chrono::DateTime::parse_from_rfc3339(at).unwrap().into(),
            duration_ms: Some(20_000),
            session_id: None,
        },
        &deskmate_recite::TemplateTips,
    )
    .unwrap();
}

/// A child's patterns as (key, count, first seen, last seen, tip), by key.
fn patterns_of(store: &Store, profile: &str) -> Vec<(String, i64, String, String, Option<String>)> {
    store
        .with_conn(|c| {
            Ok(c.prepare(
                "SELECT pattern_key, occurrence_count, first_seen_at, last_seen_at, tip_zh
                 FROM recite_error_patterns WHERE profile_id = ?1 ORDER BY pattern_key",
            )?
            .query_map([profile], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
            })?
            .collect::<Result<_, _>>()?)
        })
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mistake_both_devices_saw_offline_counts_on_both() {
    let f = family("patterns-count@example.com").await;
    let (desk_store, tab_store) = (&f.desk_store, &f.tab_store);
    // The same mistake (霜 written 双) on each device, offline; the tablet
    // also misses 低头 once.
    let wrong = "床前明月光，疑是地上双。举头望明月，低头思故乡。";
    recite(desk_store, &f.child, &f.poem, wrong, "2026-11-20T09:00:00Z");
    recite(tab_store, &f.child, &f.poem, wrong, "2026-11-21T09:00:00Z");
    recite(
        tab_store,
        &f.child,
        &f.poem,
        "床前明月光，疑是地上双。举头望明月，思故乡。",
        "2026-11-22T09:00:00Z",
    );
    let mine = patterns_of(desk_store, &f.child);
    assert_eq!(mine.len(), 1);
    assert_eq!(mine[0].1, 1, "one mistake on the desktop so far");
    assert_eq!(
        patterns_of(tab_store, &f.child).iter().map(|p| p.1).max(),
        Some(2)
    );

    settle(&f.desk, &f.tablet).await;
    // Three attempts with 双: the count is three on both devices, not the
    // last writer's two; first and last seen span both devices; the tip
    // the tablet wrote stays.
    let desk = patterns_of(desk_store, &f.child);
    let tablet = patterns_of(tab_store, &f.child);
    assert_eq!(desk, tablet, "both devices count alike");
    let shuang = desk
        .iter()
        .find(|p| p.0.contains('双'))
        .expect("the 双 pattern");
    assert_eq!(shuang.1, 3);
    assert_eq!(shuang.2, "2026-11-20T09:00:00.000Z");
    assert_eq!(shuang.3, "2026-11-22T09:00:00.000Z");
    assert!(shuang.4.is_some(), "the memory tip is kept");
    let missed = desk
        .iter()
        .find(|p| p.0.contains('低'))
        .expect("the pattern of the missed 低头");
    assert_eq!(missed.1, 1);

    // A replayed pull changes nothing; a pattern edit arriving alone (a
    // device that counted wrong) is counted over from the attempts.
    replay_changes_nothing(desk_store, &f.desk).await;
    exec(
        tab_store,
        "UPDATE recite_error_patterns SET occurrence_count = 7 WHERE pattern_key LIKE '%双%'",
        &[],
    );
    settle(&f.desk, &f.tablet).await;
    assert_eq!(
        patterns_of(desk_store, &f.child)
            .iter()
            .find(|p| p.0.contains('双'))
            .map(|p| p.1),
        Some(3)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn messages_both_devices_added_to_one_thread_offline_both_stay_in_one_order() {
    let f = family("one-thread@example.com").await;
    let (desk_store, tab_store) = (&f.desk_store, &f.tab_store);
    let (thread, run, _) = chat(desk_store, &f.child, "明天的计划");
    settle(&f.desk, &f.tablet).await;
    // Offline, each device adds two messages after the second: both take
    // places 3 and 4.
    let say = |store: &Store, seq: i64, text: &str, at: &str| {
        exec(
            store,
            "INSERT INTO messages (id, thread_id, run_id, seq, role, content, created_at)
             VALUES (?1, ?2, ?3, ?4, 'user', json_array(json_object('type', 'text', 'text', ?5)), ?6)",
            &[&new_id(), &thread, &run, &seq, &text, &at],
        );
    };
    say(desk_store, 3, "desk 1", "2026-11-27T09:00:00Z");
    say(tab_store, 3, "tablet 1", "2026-11-27T09:00:05Z");
    say(desk_store, 4, "desk 2", "2026-11-27T09:00:10Z");
    say(tab_store, 4, "tablet 2", "2026-11-27T09:00:15Z");
    settle(&f.desk, &f.tablet).await;

    let order = |store: &Store| -> Vec<(i64, String)> {
        store
            .with_conn(|c| {
                Ok(c.prepare(
                    "SELECT seq, coalesce(json_extract(content, '$[0].text'), role) FROM messages
                     WHERE thread_id = ?1 ORDER BY seq",
                )?
                .query_map([&thread], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<Result<_, _>>()?)
            })
            .unwrap()
    };
    let expected: Vec<(i64, String)> = [
        "明天背什么？",
        "assistant",
        "desk 1",
        "tablet 1",
        "desk 2",
        "tablet 2",
    ]
    .iter()
    .enumerate()
    .map(|(i, t)| (i as i64 + 1, t.to_string()))
    .collect();
    assert_eq!(order(desk_store), expected, "on the desktop");
    assert_eq!(order(tab_store), expected, "on the tablet");

    // A message after the merge goes on at the end, on both; a replayed
    // pull moves nothing.
    let next: i64 = one(
        tab_store,
        "SELECT max(seq) + 1 FROM messages WHERE thread_id = ?1",
        &thread,
    )
    .unwrap();
    say(tab_store, next, "tablet 3", "2026-11-27T09:01:00Z");
    settle(&f.desk, &f.tablet).await;
    assert_eq!(order(desk_store), order(tab_store));
    assert_eq!(
        order(desk_store).last().unwrap(),
        &(7, "tablet 3".to_string())
    );
    replay_changes_nothing(desk_store, &f.desk).await;
    replay_changes_nothing(tab_store, &f.tablet).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_child_added_on_both_devices_under_one_name_is_kept_twice_and_sync_goes_on() {
    let db = cluster().database();
    let port = free_port();
    let _server = start_server(&db, port).await;
    let url = format!("http://127.0.0.1:{port}");
    let dir = tempfile::tempdir().unwrap();
    let (desk_store, desk) = device(&dir, "desktop");
    let (tab_store, tablet) = device(&dir, "tablet");
    // Before sync: each device is set up on its own, with the same child.
    let add = |store: &Store, name: &str| {
        store
            .profiles()
            .add(NewProfile {
                name: name.into(),
                grade: Some(2),
                ..Default::default()
            })
            .unwrap()
            .id
    };
    let first = add(&desk_store, "小明");
    let later = add(&tab_store, " 小明");
    assert!(first < later, "ids are made in time order");
    let desk_poem = add_jing_ye_si(&desk_store).id;
    let tab_poem = add_jing_ye_si(&tab_store).id;
    let on_desk = add_attempt(&desk_store, &first, &desk_poem, "床前明月光");
    let on_tab = add_attempt(&tab_store, &later, &tab_poem, "疑是地上霜");

    join_family(&url, "twice@example.com", &desk, &tablet).await;
    settle(&desk, &tablet).await;
    settle(&desk, &tablet).await;

    // Both children are on both devices under the same two names: the one
    // made first keeps it; each keeps their own attempt.
    let named = |store: &Store| -> Vec<(String, String)> {
        let mut v: Vec<(String, String)> = store
            .profiles()
            .list()
            .unwrap()
            .into_iter()
            .map(|p| (p.id, p.name))
            .collect();
        v.sort();
        v
    };
    let expected = vec![
        (first.clone(), "小明".to_string()),
        (later.clone(), "小明 (2)".to_string()),
    ];
    assert_eq!(named(&desk_store), expected);
    assert_eq!(named(&tab_store), expected);
    for store in [&desk_store, &tab_store] {
        let held: Vec<(String, String)> = attempts(store);
        assert_eq!(held.len(), 2);
        let ids: Vec<&str> = held.iter().map(|(id, _)| id.as_str()).collect();
        assert!(ids.contains(&on_desk.as_str()) && ids.contains(&on_tab.as_str()));
    }
    // Nothing left to send or to take.
    assert_eq!(desk.state().unwrap().pending, 0);
    assert_eq!(tablet.state().unwrap().pending, 0);
    assert_eq!(desk.sync_now().await.unwrap().applied, 0);
    assert_eq!(tablet.sync_now().await.unwrap().applied, 0);
}
