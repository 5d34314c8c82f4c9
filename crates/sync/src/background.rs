//! Background sync: a loop that keeps a device in step without anyone
//! pressing "sync now".
//!
//! It looks at the outbox every [`Cadence::check_every`] (the store's
//! triggers fill it, whichever process made the change: the window, the CLI,
//! the HTTP API) and syncs as soon as something waits there; with nothing
//! waiting it still syncs every [`Cadence::every`] to pull the other devices'
//! changes. While the server cannot be reached it waits longer after each
//! failure, from [`Cadence::first_backoff`] doubling up to
//! [`Cadence::max_backoff`], and goes back to the normal cadence after the
//! first round that works. A round that failed only because another process
//! held the database is tried again after [`BUSY_RETRY`] (2 s; three times
//! in a row, then the backoff). Sync turned off or the device signed out is not a
//! failure: the loop idles at the normal cadence until a parent turns it on.
//! Each round is kept in the store ([`RoundView`], `sync_state.background`),
//! so a status line in another process can show how syncing goes.

use std::time::Duration;

use crate::{Sync, SyncError, SyncReport, TokenVault};

/// How often the loop looks and syncs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cadence {
    /// How often the outbox is looked at (a change goes out within this).
    pub check_every: Duration,
    /// A full round with nothing waiting (pulls the other devices' changes).
    pub every: Duration,
    /// The wait after the first failed round; doubled after each further one.
    pub first_backoff: Duration,
    /// The longest wait between failed rounds.
    pub max_backoff: Duration,
}

impl Default for Cadence {
    /// Changes go out within 10 s; a pull every 5 minutes; when offline,
    /// 30 s after the first failure, doubling up to 30 minutes.
    fn default() -> Self {
        Cadence {
            check_every: Duration::from_secs(10),
            every: Duration::from_secs(5 * 60),
            first_backoff: Duration::from_secs(30),
            max_backoff: Duration::from_secs(30 * 60),
        }
    }
}

/// The wait after a round that failed only because another process held
/// this device's database for longer than the busy timeout: a moment, not
/// the server's backoff (the first few times in a row).
pub const BUSY_RETRY: Duration = Duration::from_secs(2);

/// How many busy failures in a row are retried after [`BUSY_RETRY`] before
/// the ordinary backoff applies.
const BUSY_RETRIES: u32 = 3;

impl Cadence {
    /// The wait before the next try after `error`, the `failures`th failed
    /// round in a row.
    pub fn retry_after(&self, error: &SyncError, failures: u32) -> Duration {
        if error.database_busy() && failures <= BUSY_RETRIES {
            BUSY_RETRY
        } else {
            self.backoff(failures)
        }
    }

    /// The wait before the next try after `failures` failed rounds in a row
    /// (at least one).
    pub fn backoff(&self, failures: u32) -> Duration {
        let doublings = failures.saturating_sub(1).min(31);
        self.first_backoff
            .saturating_mul(1u32 << doublings)
            .min(self.max_backoff)
    }
}

/// What one round of the loop did, for a status line or the window's
/// sync indicator.
#[derive(Debug)]
pub enum Round {
    /// The round worked.
    Synced(SyncReport),
    /// Sync is off or the device is not signed in: nothing was tried.
    Idle(SyncError),
    /// The round failed (`failures` in a row); the next try is `retry_in` away.
    Failed {
        error: SyncError,
        failures: u32,
        retry_in: Duration,
    },
}

/// A round as a status line shows it, and as the store keeps it (a wire
/// type: the window shows it).
pub use deskmate_protocol::sync::RoundView;

impl Round {
    /// The round for a status line.
    pub fn view(&self) -> RoundView {
        let base = |round: &str| RoundView {
            round: round.to_string(),
            at: None,
            pushed: 0,
            applied: 0,
            error: None,
            failures: 0,
            retry_in_ms: None,
        };
        match self {
            Round::Synced(r) => RoundView {
                pushed: r.pushed,
                applied: u32::try_from(r.applied).unwrap_or(u32::MAX),
                ..base("synced")
            },
            Round::Idle(e) => RoundView {
                error: Some(e.to_string()),
                ..base("idle")
            },
            Round::Failed {
                error,
                failures,
                retry_in,
            } => RoundView {
                error: Some(error.to_string()),
                failures: *failures,
                retry_in_ms: Some(u64::try_from(retry_in.as_millis()).unwrap_or(u64::MAX)),
                ..base("failed")
            },
        }
    }
}

/// Keeps syncing until the returned future is dropped (select it against a
/// shutdown signal). `on_round` hears every round that ran.
pub async fn run<V: TokenVault>(sync: &Sync<V>, cadence: Cadence, mut on_round: impl FnMut(Round)) {
    let mut on_round = |round: Round| {
        if let Err(e) = sync.record_background(&round) {
            tracing::warn!("cannot keep the sync round for the status line: {e}");
        }
        on_round(round);
    };
    let mut failures: u32 = 0;
    // A round at once: a device that was off for days catches up on start.
    let mut due = tokio::time::Instant::now();
    loop {
        tokio::time::sleep_until(due).await;
        let now = tokio::time::Instant::now();
        match sync.sync_now().await {
            Ok(report) => {
                failures = 0;
                due = now + cadence.every;
                on_round(Round::Synced(report));
            }
            Err(e @ (SyncError::Off | SyncError::NotSignedIn)) => {
                failures = 0;
                due = now + cadence.every;
                on_round(Round::Idle(e));
            }
            Err(error) => {
                failures = failures.saturating_add(1);
                let retry_in = cadence.retry_after(&error, failures);
                due = now + retry_in;
                on_round(Round::Failed {
                    error,
                    failures,
                    retry_in,
                });
                continue;
            }
        }
        // Between full rounds, a change waiting in the outbox brings the
        // next round forward.
        while tokio::time::Instant::now() + cadence.check_every < due {
            tokio::time::sleep(cadence.check_every).await;
            let waiting = sync.state().map(|s| s.enabled && s.pending > 0);
            if matches!(waiting, Ok(true)) {
                due = tokio::time::Instant::now();
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_from_the_first_wait_up_to_the_longest() {
        let c = Cadence::default();
        let waits: Vec<u64> = (1..=9).map(|n| c.backoff(n).as_secs()).collect();
        assert_eq!(waits, [30, 60, 120, 240, 480, 960, 1800, 1800, 1800]);
        assert_eq!(c.backoff(u32::MAX), c.max_backoff);
        assert_eq!(c.backoff(0), c.first_backoff);
    }

    /// A round that failed on a locked database is tried again in a moment
    /// (three times), an unreachable server after the backoff.
    #[test]
    fn a_busy_database_is_retried_soon_and_the_server_after_the_backoff() {
        let c = Cadence::default();
        let busy = || {
            SyncError::Store(deskmate_store::StoreError::Sqlite(
                rusqlite::Error::SqliteFailure(
                    rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_BUSY),
                    Some("database is locked".into()),
                ),
            ))
        };
        assert!(busy().database_busy());
        let waits: Vec<u64> = (1..=5)
            .map(|n| c.retry_after(&busy(), n).as_secs())
            .collect();
        assert_eq!(waits, [2, 2, 2, 240, 480]);
        let offline = SyncError::Offline("connection refused".into());
        assert!(!offline.database_busy());
        assert_eq!(c.retry_after(&offline, 1), c.first_backoff);
    }
}
