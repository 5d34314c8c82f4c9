//! `deskmate-sync`: keeps a family's devices in step through the family sync
//! server (`server/`, `deskmate-server`).
//!
//! Every change to a synced record (profiles, custom materials, recitation
//! attempts, goals, family settings, reports, practice sessions, error
//! patterns, chat threads with their runs, messages and tool calls,
//! memories, routines) writes an outbox entry in the same SQLite transaction
//! — the store's triggers (migrations 0012 and 0021) do it, so no code path
//! can forget.
//! [`Sync::sync_now`] pushes the outbox in batches (each change keeps the
//! UUIDv7 it was first sent with, so a retry is a no-op on the server) and
//! pulls the family's log by the server's cursor, in pages, applying each
//! page in one transaction with its cursor. Attempts and messages are
//! append-only; every other kind resolves last-writer-wins by a hybrid
//! logical clock; review state is recomputed from the merged attempts. Sync is off until a parent turns it on ([`Sync::enable`]);
//! API keys, audio and (unless enabled) transcripts never leave the device.
//! Tokens live in a [`TokenVault`] — the OS keyring in the app.

pub mod background;
pub mod local;
pub mod vault;

use deskmate_protocol::sync::{
    AcceptRequest, AccountStatus, DeviceView, Invitation, InviteRequest, LoginRequest, PairRequest,
    PairingCode, PullResponse, PushRequest, PushResponse, RefreshRequest, SignupRequest, TokenPair,
    MAX_PAGE,
};
use deskmate_store::Store;
use reqwest::StatusCode;
use serde::de::DeserializeOwned;

pub use local::LocalState;
pub use vault::{KeyringVault, MemoryVault, TokenVault};

/// What sync can fail with, in plain words.
#[derive(Debug, thiserror::Error)]
pub enum SyncError {
    #[error("this device is not signed in to a sync server; run `deskmate account login` or `deskmate devices pair`")]
    NotSignedIn,
    #[error("sync is off; a parent turns it on with `deskmate sync on`")]
    Off,
    #[error(
        "the sync server cannot be reached ({0}); changes wait in the outbox and go next time"
    )]
    Offline(String),
    /// The server answered with an error: its code (`unauthorized`,
    /// `conflict`, `too_many_requests`…) and its words.
    #[error("the sync server refused: {message}")]
    Refused { code: String, message: String },
    #[error("the keyring: {0}")]
    Keyring(String),
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Store(#[from] deskmate_store::StoreError),
}

impl SyncError {
    /// Whether this device's database was busy (another process held it
    /// past the busy timeout): over in a moment, unlike the server's faults.
    pub fn database_busy(&self) -> bool {
        matches!(
            self,
            SyncError::Store(deskmate_store::StoreError::Sqlite(
                rusqlite::Error::SqliteFailure(f, _)
            )) if matches!(f.code, rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
        )
    }

    /// Every code [`SyncError::code`] can give besides the store's.
    pub const CODES: &'static [&'static str] = &[
        "sync.not_signed_in",
        "sync.off",
        "sync.offline",
        "sync.keyring",
        "sync.refused",
        "sync.unauthorized",
        "sync.forbidden",
        "sync.not_found",
        "sync.conflict",
        "sync.rate_limited",
        "sync.bad_request",
        "invalid",
    ];

    /// A stable name for the failure, so a front end can say it in the
    /// user's language; a refusal is named by the server's own code.
    pub fn code(&self) -> &'static str {
        match self {
            SyncError::NotSignedIn => "sync.not_signed_in",
            SyncError::Off => "sync.off",
            SyncError::Offline(_) => "sync.offline",
            SyncError::Keyring(_) => "sync.keyring",
            SyncError::Refused { code, .. } => match code.as_str() {
                "unauthorized" => "sync.unauthorized",
                "forbidden" => "sync.forbidden",
                "not_found" => "sync.not_found",
                "conflict" => "sync.conflict",
                "too_many_requests" => "sync.rate_limited",
                "bad_request" => "sync.bad_request",
                _ => "sync.refused",
            },
            SyncError::Invalid(_) => "invalid",
            SyncError::Store(e) => e.code(),
        }
    }

    /// The values a translated message needs: the server's own words for a
    /// refusal (they name what was wrong: "a pairing code is 8 digits").
    pub fn params(&self) -> serde_json::Map<String, serde_json::Value> {
        let mut params = serde_json::Map::new();
        match self {
            SyncError::Refused { message, .. } => {
                params.insert("message".into(), message.clone().into());
            }
            SyncError::Offline(reason) | SyncError::Keyring(reason) => {
                params.insert("reason".into(), reason.clone().into());
            }
            SyncError::Store(e) => return e.params(),
            _ => {}
        }
        params
    }
}

impl From<rusqlite::Error> for SyncError {
    fn from(e: rusqlite::Error) -> Self {
        SyncError::Store(e.into())
    }
}

pub type SyncResult<T> = Result<T, SyncError>;

/// How one round went.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct SyncReport {
    /// Changes the server stored for the first time.
    pub pushed: u32,
    /// Changes the server already had (a retried batch).
    pub duplicates: u32,
    /// Changes pulled from the family's other devices and applied here.
    pub applied: usize,
    pub cursor: i64,
}

/// A device's sync: its store, its token vault, an HTTP client.
pub struct Sync<V: TokenVault> {
    store: Store,
    vault: V,
    http: reqwest::Client,
}

/// How far the server's clock may be from this device's before changes are
/// stamped with the server's time instead (ms).
pub const CLOCK_TOLERANCE_MS: i64 = 60_000;

/// Milliseconds since the Unix epoch (negative before it).
fn millis(t: std::time::SystemTime) -> i64 {
    match t.duration_since(std::time::UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_millis()).unwrap_or(i64::MAX),
        Err(e) => -i64::try_from(e.duration().as_millis()).unwrap_or(i64::MAX),
    }
}

fn offline(e: reqwest::Error) -> SyncError {
    SyncError::Offline(e.to_string())
}

async fn answer<T: DeserializeOwned>(r: reqwest::Response) -> SyncResult<T> {
    let status = r.status();
    if status.is_success() {
        return r.json().await.map_err(offline);
    }
    let body: serde_json::Value = r.json().await.unwrap_or_default();
    let message = body["message"]
        .as_str()
        .unwrap_or("no reason given")
        .to_string();
    let code = body["code"].as_str().unwrap_or("refused").to_string();
    Err(SyncError::Refused { code, message })
}

impl<V: TokenVault> Sync<V> {
    pub fn new(store: Store, vault: V) -> Self {
        let http = reqwest::Client::builder()
            .timeout(std::time::Duration::from_secs(30))
            .build()
            .unwrap_or_default();
        Sync { store, vault, http }
    }

    /// This device's sync state (no secrets).
    pub fn state(&self) -> SyncResult<LocalState> {
        Ok(self
            .store
            .with_conn(|c| local::state(c).map_err(store_err))?)
    }

    fn url(server: &str, path: &str) -> String {
        format!("{}{path}", server.trim_end_matches('/'))
    }

    /// Learns how far the server's clock is from this device's, from an
    /// answer's `Date`, and keeps it for the clock changes are stamped with
    /// (migration 0015). Within [`CLOCK_TOLERANCE_MS`] the device's clock is
    /// taken as right: `Date` has whole seconds and a request takes time.
    fn learn_clock(&self, r: &reqwest::Response) -> SyncResult<()> {
        let Some(server) = r
            .headers()
            .get(reqwest::header::DATE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| httpdate::parse_http_date(v).ok())
        else {
            return Ok(());
        };
        let offset = millis(server) - millis(std::time::SystemTime::now());
        let offset = if offset.abs() < CLOCK_TOLERANCE_MS {
            0
        } else {
            offset
        };
        self.store
            .with_conn(|c| local::set_clock_offset(c, offset).map_err(store_err))?;
        Ok(())
    }

    async fn joined(&self, server: &str, tokens: TokenPair) -> SyncResult<TokenPair> {
        let vault_id = uuid::Uuid::new_v4().to_string();
        self.vault.save(&vault_id, &tokens)?;
        let old = self.state()?.vault_id;
        self.store.with_conn(|c| {
            local::set_account(c, server, &vault_id, &tokens.family_id, &tokens.device_id)
                .map_err(store_err)
        })?;
        if let Some(old) = old {
            self.vault.delete(&old)?;
        }
        Ok(tokens)
    }

    /// Posts a sign-in request (signup, login or pairing) and keeps the
    /// tokens it answers with: this device is then signed in.
    async fn sign_in(
        &self,
        server: &str,
        path: &str,
        body: &impl serde::Serialize,
    ) -> SyncResult<TokenPair> {
        let r = self
            .http
            .post(Self::url(server, path))
            .json(body)
            .send()
            .await
            .map_err(offline)?;
        self.learn_clock(&r)?;
        let tokens = answer(r).await?;
        self.joined(server, tokens).await
    }

    /// Creates a parent account and family, and signs this device in.
    pub async fn signup(&self, server: &str, req: SignupRequest) -> SyncResult<TokenPair> {
        self.sign_in(server, "/v1/accounts/signup", &req).await
    }

    /// Signs this device in with a parent's email and password.
    pub async fn login(&self, server: &str, req: LoginRequest) -> SyncResult<TokenPair> {
        self.sign_in(server, "/v1/accounts/login", &req).await
    }

    /// Joins the family with a code a parent's device shows.
    pub async fn pair(&self, server: &str, req: PairRequest) -> SyncResult<TokenPair> {
        self.sign_in(server, "/v1/devices/pair", &req).await
    }

    /// Joins a family as its second parent with an invitation's code (a new
    /// account, or the one this email has when it is alone in a family of
    /// its own); signs this device in.
    pub async fn accept(&self, server: &str, req: AcceptRequest) -> SyncResult<TokenPair> {
        self.sign_in(server, "/v1/invitations/accept", &req).await
    }

    fn account(&self) -> SyncResult<(String, String, TokenPair)> {
        let s = self.state()?;
        let (Some(server), Some(vault_id)) = (s.server_url, s.vault_id) else {
            return Err(SyncError::NotSignedIn);
        };
        let tokens = self.vault.load(&vault_id)?.ok_or(SyncError::NotSignedIn)?;
        Ok((server, vault_id, tokens))
    }

    /// Sends a request with the access token; on 401 refreshes once and retries.
    async fn authed<T: DeserializeOwned>(
        &self,
        build: impl Fn(&reqwest::Client, &str) -> reqwest::RequestBuilder,
    ) -> SyncResult<T> {
        let (server, vault_id, tokens) = self.account()?;
        let r = build(&self.http, &server)
            .bearer_auth(&tokens.access_token)
            .send()
            .await
            .map_err(offline)?;
        self.learn_clock(&r)?;
        if r.status() != StatusCode::UNAUTHORIZED {
            return answer(r).await;
        }
        let refreshed = self
            .http
            .post(Self::url(&server, "/v1/tokens/refresh"))
            .json(&RefreshRequest {
                refresh_token: tokens.refresh_token.clone(),
            })
            .send()
            .await
            .map_err(offline)?;
        if refreshed.status() == StatusCode::UNAUTHORIZED {
            return Err(SyncError::NotSignedIn);
        }
        let fresh: TokenPair = answer(refreshed).await?;
        self.vault.save(&vault_id, &fresh)?;
        let r = build(&self.http, &server)
            .bearer_auth(&fresh.access_token)
            .send()
            .await
            .map_err(offline)?;
        answer(r).await
    }

    /// Who this device is signed in as.
    pub async fn status(&self) -> SyncResult<AccountStatus> {
        self.authed(|h, s| h.get(Self::url(s, "/v1/accounts/me")))
            .await
    }

    /// Signs out on the server and forgets the tokens; sync turns off.
    pub async fn logout(&self) -> SyncResult<()> {
        let (_, vault_id, _) = self.account()?;
        let out: SyncResult<serde_json::Value> = self
            .authed(|h, s| h.post(Self::url(s, "/v1/accounts/logout")))
            .await;
        // Forget locally even when the server is away: the session expires.
        self.vault.delete(&vault_id)?;
        self.store
            .with_conn(|c| local::clear_account(c).map_err(store_err))?;
        match out {
            Ok(_) | Err(SyncError::Offline(_)) | Err(SyncError::NotSignedIn) => Ok(()),
            Err(e) => Err(e),
        }
    }

    pub async fn pairing_code(&self) -> SyncResult<PairingCode> {
        self.authed(|h, s| h.post(Self::url(s, "/v1/pairing-codes")))
            .await
    }

    /// The family's owner invites a second parent; the answer holds the
    /// one-time code to pass on to them.
    pub async fn invite(&self, email: &str) -> SyncResult<Invitation> {
        let body = InviteRequest {
            email: email.to_string(),
        };
        self.authed(|h, s| h.post(Self::url(s, "/v1/invitations")).json(&body))
            .await
    }

    /// The family's invitations (without their codes).
    pub async fn invitations(&self) -> SyncResult<Vec<Invitation>> {
        self.authed(|h, s| h.get(Self::url(s, "/v1/invitations")))
            .await
    }

    pub async fn devices(&self) -> SyncResult<Vec<DeviceView>> {
        self.authed(|h, s| h.get(Self::url(s, "/v1/devices"))).await
    }

    pub async fn remove_device(&self, id: &str) -> SyncResult<()> {
        let _: serde_json::Value = self
            .authed(|h, s| h.delete(Self::url(s, &format!("/v1/devices/{id}"))))
            .await?;
        Ok(())
    }

    /// Turns sync on (queuing what exists); returns how many records were queued.
    pub fn enable(&self, transcripts: bool) -> SyncResult<usize> {
        Ok(self
            .store
            .with_conn(|c| local::enable(c, transcripts).map_err(store_err))?)
    }

    /// Keeps a background round for the status line (`LocalState::background`).
    pub fn record_background(&self, round: &background::Round) -> SyncResult<()> {
        Ok(self
            .store
            .with_conn(|c| local::record_background(c, &round.view()).map_err(store_err))?)
    }

    /// Turns sync off; nothing is sent or received until it is on again.
    pub fn disable(&self) -> SyncResult<()> {
        Ok(self
            .store
            .with_conn(|c| local::disable(c).map_err(store_err))?)
    }

    /// One round: push the whole outbox, then pull every new page.
    pub async fn sync_now(&self) -> SyncResult<SyncReport> {
        let result = self.round().await;
        if matches!(result, Err(SyncError::Off | SyncError::NotSignedIn)) {
            // Nothing was tried: the last round that was stays the last.
            return result;
        }
        let error = result.as_ref().err().map(|e| e.to_string());
        self.store
            .with_conn(|c| local::record_round(c, error.as_deref()).map_err(store_err))?;
        result
    }

    async fn round(&self) -> SyncResult<SyncReport> {
        let state = self.state()?;
        if !state.enabled {
            return Err(SyncError::Off);
        }
        let mut report = SyncReport::default();
        loop {
            let batch = self
                .store
                .with_conn(|c| local::next_batch(c, MAX_PAGE).map_err(store_err))?;
            if batch.is_empty() {
                break;
            }
            let ids: Vec<i64> = batch.iter().map(|(id, _)| *id).collect();
            let body = PushRequest {
                changes: batch.into_iter().map(|(_, c)| c).collect(),
            };
            let pushed: PushResponse = self
                .authed(|h, s| h.post(Self::url(s, "/v1/sync/push")).json(&body))
                .await?;
            report.pushed += pushed.accepted;
            report.duplicates += pushed.duplicates;
            self.store
                .with_conn(|c| local::mark_pushed(c, &ids).map_err(store_err))?;
        }
        let mut cursor = state.cursor;
        loop {
            let after = cursor;
            let page: PullResponse = self
                .authed(|h, s| {
                    h.get(Self::url(s, "/v1/sync/pull")).query(&[
                        ("after", after.to_string()),
                        ("limit", MAX_PAGE.to_string()),
                    ])
                })
                .await?;
            report.applied += self.store.with_conn(|c| {
                local::apply_page(c, &page.changes, page.cursor).map_err(store_err)
            })?;
            cursor = page.cursor;
            if !page.more {
                break;
            }
        }
        report.cursor = cursor;
        Ok(report)
    }
}

/// Carries a sync error through the store's closure type.
fn store_err(e: SyncError) -> deskmate_store::StoreError {
    match e {
        SyncError::Store(s) => s,
        other => deskmate_store::StoreError::Invalid(other.to_string()),
    }
}
