//! Group commit: writes from several threads share one transaction.
//!
//! A commit writes every B-tree page it changed into the WAL, and the writes
//! of concurrent chat runs change the *same* pages: the rightmost leaves of
//! the tables and indexes keyed by time-ordered ids (a run's row, its
//! messages, its model calls). Ten runs committing one after another write
//! those leaves ten times; committed together, once.
//!
//! So a caller of [`Store::write`](crate::Store::write) queues its write and
//! then takes the connection. Whoever gets the connection runs every write
//! queued by then in one transaction, each inside a savepoint of its own (a
//! write that fails is undone alone and its caller gets its error; the
//! others are kept), commits once, and leaves each caller its own result
//! before letting go of the connection. A caller returns only once the
//! commit holding its write is done, so a write is as durable as one in a
//! transaction of its own; alone, it simply is one. Nothing waits for
//! company: a batch is whatever queued while the connection was busy.

use std::sync::{Arc, Mutex};

use rusqlite::Connection;

use crate::error::{StoreError, StoreResult};

/// What a queued write leaves behind once it ran: given the batch's commit
/// (`Err` with the reason when the batch was not committed), it settles the
/// caller's result.
type Settle = Box<dyn FnOnce(Result<(), String>) + Send>;

/// A queued write. Called with the connection inside the batch's
/// transaction (and whether it is the batch's only write), or with the
/// reason it is not run; says whether the write succeeded.
pub(crate) type Job = Box<dyn FnOnce(Result<(&Connection, bool), String>) -> (Settle, bool) + Send>;

/// Where a caller's result lands.
pub(crate) type Slot<T> = Arc<Mutex<Option<StoreResult<T>>>>;

/// Wraps `f` as a queued write whose result lands in the returned slot.
pub(crate) fn job<T, F>(f: F) -> (Job, Slot<T>)
where
    T: Send + 'static,
    F: FnOnce(&Connection) -> StoreResult<T> + Send + 'static,
{
    let slot: Slot<T> = Arc::default();
    let mine = Arc::clone(&slot);
    let job: Job = Box::new(move |conn| {
        let done = match conn {
            // Alone, the transaction itself undoes a failed write.
            Ok((c, true)) => f(c),
            Ok((c, false)) => in_savepoint(c, f),
            Err(why) => Err(StoreError::Invalid(why)),
        };
        let ok = done.is_ok();
        let settle: Settle = Box::new(move |commit| {
            let out = match (done, commit) {
                (Ok(v), Ok(())) => Ok(v),
                (Err(e), _) => Err(e),
                (Ok(_), Err(why)) => Err(StoreError::Invalid(why)),
            };
            if let Ok(mut s) = mine.lock() {
                *s = Some(out);
            }
        });
        (settle, ok)
    });
    (job, slot)
}

/// Takes the result out of `slot`, if it has landed.
pub(crate) fn take<T>(slot: &Slot<T>) -> StoreResult<Option<StoreResult<T>>> {
    Ok(slot.lock().map_err(|_| StoreError::Poisoned)?.take())
}

/// Runs `jobs` in one transaction on `conn` and settles each.
pub(crate) fn run(conn: &Connection, jobs: Vec<Job>) {
    if let Err(e) = statement(conn, "BEGIN IMMEDIATE") {
        let why = format!("the database could not begin a write: {e}");
        for job in jobs {
            job(Err(why.clone())).0(Err(why.clone()));
        }
        return;
    }
    let alone = jobs.len() == 1;
    // SQLite rolls a whole transaction back on some failures (a full disk,
    // an I/O error): then the writes after it are not run, and none of the
    // batch counts as written.
    let mut lost: Option<String> = None;
    let mut settles: Vec<Settle> = Vec::with_capacity(jobs.len());
    let mut all_ok = true;
    for job in jobs {
        if lost.is_none() && conn.is_autocommit() {
            lost = Some("an earlier write's failure rolled the batch back".into());
        }
        let (settle, ok) = match &lost {
            None => job(Ok((conn, alone))),
            Some(why) => job(Err(why.clone())),
        };
        all_ok &= ok;
        settles.push(settle);
    }
    if lost.is_none() && conn.is_autocommit() {
        lost = Some("an earlier write's failure rolled the batch back".into());
    }
    let commit = match lost {
        Some(why) => Err(why),
        // A write alone that failed: its transaction is undone.
        None if alone && !all_ok => {
            let _ = statement(conn, "ROLLBACK");
            Ok(())
        }
        None => statement(conn, "COMMIT").map_err(|e| {
            // Nothing of the batch is kept; the connection is left usable.
            let _ = statement(conn, "ROLLBACK");
            format!("the database could not commit: {e}")
        }),
    };
    for settle in settles {
        settle(commit.clone());
    }
}

/// `f` inside a savepoint: undone alone when it fails.
fn in_savepoint<T>(
    conn: &Connection,
    f: impl FnOnce(&Connection) -> StoreResult<T>,
) -> StoreResult<T> {
    statement(conn, "SAVEPOINT write")?;
    match f(conn) {
        Ok(v) => {
            statement(conn, "RELEASE write")?;
            Ok(v)
        }
        Err(e) => {
            statement(conn, "ROLLBACK TO write")?;
            statement(conn, "RELEASE write")?;
            Err(e)
        }
    }
}

/// One transaction-control statement, parsed once per connection.
fn statement(conn: &Connection, sql: &str) -> rusqlite::Result<()> {
    conn.prepare_cached(sql)?.execute([])?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use std::sync::Barrier;

    use super::*;
    use crate::Store;

    fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("d.db")).unwrap();
        store
            .with_conn(|c| {
                c.execute_batch(
                    "CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER NOT NULL CHECK (v >= 0))",
                )?;
                Ok(())
            })
            .unwrap();
        (dir, store)
    }

    fn rows(store: &Store) -> Vec<(String, i64)> {
        store
            .with_conn(|c| {
                let mut s = c.prepare("SELECT k, v FROM t ORDER BY k")?;
                let r = s
                    .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(r)
            })
            .unwrap()
    }

    fn insert(k: &str, v: i64) -> impl FnOnce(&Connection) -> StoreResult<usize> + Send + 'static {
        let k = k.to_string();
        move |c| {
            Ok(c.execute(
                "INSERT INTO t (k, v) VALUES (?1, ?2)",
                rusqlite::params![k, v],
            )?)
        }
    }

    /// Alone, a write is its own transaction and returns its value.
    #[test]
    fn a_write_alone_is_committed_and_returns_its_value() {
        let (_d, store) = store();
        assert_eq!(store.write(insert("a", 1)).unwrap(), 1);
        assert_eq!(rows(&store), vec![("a".into(), 1)]);
    }

    /// A write alone that fails after changing rows leaves none of them.
    #[test]
    fn a_failed_write_alone_keeps_nothing_and_the_next_write_lands() {
        let (_d, store) = store();
        let e = store
            .write(|c| {
                insert("a", 1)(c)?;
                insert("b", -1)(c)
            })
            .unwrap_err()
            .to_string();
        assert!(e.contains("CHECK"), "{e}");
        assert!(rows(&store).is_empty());
        store.write(insert("c", 3)).unwrap();
        assert_eq!(rows(&store), vec![("c".into(), 3)]);
    }

    /// Writes queued while the connection is busy run in one batch: each
    /// caller gets its own result, the one that failed is undone alone and
    /// the others are kept — and the batch was one commit (SQLite's commit
    /// hook counts them).
    #[test]
    fn writes_queued_while_the_connection_is_busy_share_one_commit_and_fail_alone() {
        let (_d, store) = store();
        let writers = 6;
        let queued = Arc::new(Barrier::new(writers + 1));
        let commits = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counted = Arc::clone(&commits);
        store
            .with_conn(|c| {
                c.commit_hook(Some(move || {
                    counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    false
                }))?;
                Ok(())
            })
            .unwrap();
        let results = std::thread::scope(|scope| {
            // Hold the connection until every writer has queued.
            let held = store.conn().unwrap();
            let handles: Vec<_> = (0..writers)
                .map(|i| {
                    let store = store.clone();
                    let queued = Arc::clone(&queued);
                    scope.spawn(move || {
                        // Writer 3 breaks the CHECK constraint.
                        let v = if i == 3 { -1 } else { i as i64 };
                        let (job, slot) = job(insert(&format!("k{i}"), v));
                        store.queue.lock().unwrap().push(job);
                        queued.wait();
                        store.settle(slot)
                    })
                })
                .collect();
            queued.wait();
            assert_eq!(store.queue.lock().unwrap().len(), writers);
            drop(held);
            handles
                .into_iter()
                .map(|h| h.join().unwrap())
                .collect::<Vec<_>>()
        });
        for (i, r) in results.iter().enumerate() {
            if i == 3 {
                let e = r.as_ref().unwrap_err().to_string();
                assert!(e.contains("CHECK"), "{e}");
            } else {
                assert_eq!(r.as_ref().unwrap(), &1, "writer {i}");
            }
        }
        assert_eq!(
            rows(&store),
            vec![
                ("k0".into(), 0),
                ("k1".into(), 1),
                ("k2".into(), 2),
                ("k4".into(), 4),
                ("k5".into(), 5)
            ]
        );
        assert!(store.queue.lock().unwrap().is_empty());
        assert_eq!(commits.load(std::sync::atomic::Ordering::SeqCst), 1);
    }

    /// A batch that cannot begin (the connection is already inside a
    /// transaction) fails every write in it with the reason, and writes
    /// nothing.
    #[test]
    fn a_batch_that_cannot_begin_fails_each_write_and_keeps_nothing() {
        let (_d, store) = store();
        let (a, slot_a) = job(insert("a", 1));
        let (b, slot_b) = job(insert("b", 2));
        store
            .with_conn(|c| {
                c.execute_batch("BEGIN")?;
                run(c, vec![a, b]);
                c.execute_batch("ROLLBACK")?;
                Ok(())
            })
            .unwrap();
        for slot in [slot_a, slot_b] {
            let e = take(&slot).unwrap().unwrap().unwrap_err().to_string();
            assert!(e.contains("could not begin a write"), "{e}");
        }
        assert!(rows(&store).is_empty());
    }

    /// Many threads writing at once: every write lands exactly once.
    #[test]
    fn concurrent_writers_each_land_once() {
        let (_d, store) = store();
        std::thread::scope(|scope| {
            for t in 0..4 {
                let store = store.clone();
                scope.spawn(move || {
                    for i in 0..50 {
                        store.write(insert(&format!("{t}-{i:02}"), i)).unwrap();
                    }
                });
            }
        });
        assert_eq!(rows(&store).len(), 200);
    }
}
