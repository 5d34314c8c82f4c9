//! The sync wire: what a device and the family sync server (`server/`,
//! `deskmate-server`) say to each other over HTTP — account and pairing
//! requests, the token pair, the device list, and the change log's push and
//! pull. Serde types only, no I/O and no SQLite, so the server uses them
//! without the client's store.
//!
//! A [`Change`] is one edit of one record, named by its own UUIDv7
//! `change_id`; pushing the same change twice is a no-op. The server numbers
//! the changes of a family with a sequence (`seq`) and a device pulls
//! everything after the last `seq` it has seen, in pages.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Signing up: the first parent of a new family.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, TS)]
pub struct SignupRequest {
    pub email: String,
    pub password: String,
    /// The family's display name ("The Lis"); defaults to the email's name.
    #[serde(default)]
    pub family_name: Option<String>,
    /// What this device is called in the device list ("desktop").
    pub device_name: String,
}

/// Signing in on a device with a parent's email and password.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, TS)]
pub struct LoginRequest {
    pub email: String,
    pub password: String,
    pub device_name: String,
}

/// Exchanging a refresh token for a new pair (the old refresh token is spent).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct RefreshRequest {
    pub refresh_token: String,
}

/// A child's tablet joins the family with the code a parent's device shows.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, TS)]
pub struct PairRequest {
    pub code: String,
    pub device_name: String,
}

/// What signup, login, refresh and pairing return.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct TokenPair {
    /// Short-lived signed token for the `Authorization: Bearer` header.
    pub access_token: String,
    /// Seconds until the access token expires.
    pub expires_in: u64,
    /// Long-lived, single-use token to get the next pair.
    pub refresh_token: String,
    pub family_id: String,
    pub device_id: String,
    /// The parent account, absent for a paired (child) device.
    #[serde(default)]
    pub account_id: Option<String>,
}

/// A one-time pairing code, shown on the parent's device.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, TS)]
pub struct PairingCode {
    pub code: String,
    /// RFC 3339 UTC.
    pub expires_at: String,
}

/// Who this token belongs to.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, TS)]
pub struct AccountStatus {
    pub family_id: String,
    pub family_name: String,
    pub device_id: String,
    #[serde(default)]
    pub account_id: Option<String>,
    #[serde(default)]
    pub email: Option<String>,
    /// `owner` (signed the family up), `parent` (joined by invitation) or
    /// absent for a paired device.
    #[serde(default)]
    pub role: Option<String>,
}

/// The family's owner invites a second parent by email.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct InviteRequest {
    pub email: String,
}

/// An invitation as the family sees it; `code` only in the answer that
/// made it (the server keeps a hash).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, TS)]
pub struct Invitation {
    pub id: String,
    pub email: String,
    #[serde(default)]
    pub code: Option<String>,
    /// RFC 3339 UTC.
    pub expires_at: String,
    /// RFC 3339 UTC, once accepted.
    #[serde(default)]
    pub accepted_at: Option<String>,
}

/// The invited person joins the family as a parent: a new account with the
/// invited email, or the account they already have with that email when it
/// is alone in a family of its own with nothing synced yet.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct AcceptRequest {
    pub code: String,
    pub email: String,
    pub password: String,
    pub device_name: String,
}

/// One device of the family.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, TS)]
pub struct DeviceView {
    pub id: String,
    pub name: String,
    /// `parent` (signed in with a password) or `paired` (joined with a code).
    pub kind: String,
    /// RFC 3339 UTC.
    pub created_at: String,
    #[serde(default)]
    pub last_seen_at: Option<String>,
}

/// The kinds of record that sync. Append-only kinds never conflict; the
/// mutable ones resolve last-writer-wins by the hybrid logical clock.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Hash, TS)]
#[serde(rename_all = "snake_case")]
pub enum RecordKind {
    /// A recitation attempt: append-only, never conflicts.
    Attempt,
    /// A child's profile: mutable, last writer by hybrid logical clock wins.
    Profile,
    /// A custom material: mutable, last writer wins.
    Material,
    /// A parent's learning goal for a child (one per child and goal kind).
    Goal,
    /// A family setting (a parent's decision; device settings never sync).
    Setting,
    /// A daily or weekly report of a child.
    Report,
    /// A mistake a child repeats, with its memory tip.
    ErrorPattern,
    /// A practice sitting as the practice screen kept it.
    PracticeSession,
    /// A chat thread: title, owner, metadata.
    Thread,
    /// One answer the companion worked on in a thread.
    Run,
    /// A chat message: append-only.
    Message,
    /// A tool the companion called while answering.
    ToolCall,
    /// What the companion remembers about a child.
    Memory,
    /// A routine a parent designed.
    Routine,
}

impl RecordKind {
    /// Every kind, in the order a device first queues what it has (records
    /// before the records that point at them).
    pub const ALL: [RecordKind; 14] = [
        RecordKind::Profile,
        RecordKind::Material,
        RecordKind::Attempt,
        RecordKind::Goal,
        RecordKind::Setting,
        RecordKind::Report,
        RecordKind::ErrorPattern,
        RecordKind::PracticeSession,
        RecordKind::Thread,
        RecordKind::Run,
        RecordKind::Message,
        RecordKind::ToolCall,
        RecordKind::Memory,
        RecordKind::Routine,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            RecordKind::Attempt => "attempt",
            RecordKind::Profile => "profile",
            RecordKind::Material => "material",
            RecordKind::Goal => "goal",
            RecordKind::Setting => "setting",
            RecordKind::Report => "report",
            RecordKind::ErrorPattern => "error_pattern",
            RecordKind::PracticeSession => "practice_session",
            RecordKind::Thread => "thread",
            RecordKind::Run => "run",
            RecordKind::Message => "message",
            RecordKind::ToolCall => "tool_call",
            RecordKind::Memory => "memory",
            RecordKind::Routine => "routine",
        }
    }

    pub fn parse(s: &str) -> Option<RecordKind> {
        RecordKind::ALL.into_iter().find(|k| k.as_str() == s)
    }

    /// Appended only: a record of this kind is never changed once written.
    pub fn append_only(self) -> bool {
        matches!(self, RecordKind::Attempt | RecordKind::Message)
    }
}

/// One edit of one record, as a device pushes it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Change {
    /// UUIDv7 of this change; the idempotency key.
    pub change_id: String,
    pub kind: RecordKind,
    /// UUIDv7 of the record changed (a UUIDv5 of the key for a record
    /// named by a natural key rather than an id).
    pub record_id: String,
    /// Hybrid logical clock of the edit (`Hlc` text form, sorts as text).
    pub hlc: String,
    /// `true` when the record was deleted; `body` is then `null` or an
    /// object with only the record's key columns (for a record named by a
    /// natural key, e.g. a goal's child and kind).
    #[serde(default)]
    pub deleted: bool,
    /// The record's full new state.
    pub body: serde_json::Value,
}

/// A batch of changes from one device.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct PushRequest {
    pub changes: Vec<Change>,
}

/// How a push went.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct PushResponse {
    /// Changes stored for the first time.
    pub accepted: u32,
    /// Changes the server already had (a replay); nothing was written for them.
    pub duplicates: u32,
}

/// A change as the server hands it out, numbered in the family's log.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct StoredChange {
    pub seq: i64,
    /// The device that pushed it.
    pub device_id: String,
    #[serde(flatten)]
    pub change: Change,
}

/// A page of the family's change log after a cursor.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct PullResponse {
    pub changes: Vec<StoredChange>,
    /// Pass as `after` to get the next page (equals the request's `after`
    /// when nothing is new).
    pub cursor: i64,
    /// More changes wait after this page.
    pub more: bool,
}

/// The largest page a pull returns and the largest batch a push accepts.
pub const MAX_PAGE: usize = 500;

/// The background loop's last round, as a status line shows it (kept in
/// the device's store, so another process can show it too).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq, TS)]
pub struct RoundView {
    /// `synced`, `idle` or `failed`.
    pub round: String,
    /// When the round ended (RFC 3339 UTC), stamped by the store.
    #[serde(default)]
    pub at: Option<String>,
    /// Changes sent and applied (a round that synced).
    #[serde(default)]
    pub pushed: u32,
    #[serde(default)]
    pub applied: u32,
    /// Why it did not sync (idle or failed), in plain words.
    #[serde(default)]
    pub error: Option<String>,
    /// Failed rounds in a row.
    #[serde(default)]
    pub failures: u32,
    /// The wait before the next try (failed rounds), ms.
    #[serde(default)]
    pub retry_in_ms: Option<u64>,
}

/// This device's place in the family's sync, for the parent's settings and
/// the indicator in the window's header. No secrets: the tokens stay in the
/// OS keyring.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, TS)]
pub struct SyncView {
    /// Signed in to a sync server (a parent's account or a paired device).
    pub signed_in: bool,
    pub server_url: Option<String>,
    pub family_id: Option<String>,
    pub device_id: Option<String>,
    /// A parent turned sync on.
    pub enabled: bool,
    /// Recitation transcripts sync too.
    pub transcripts: bool,
    /// Changes waiting to be sent.
    pub pending: u32,
    /// The last round that reached the server (RFC 3339 UTC).
    pub last_sync_at: Option<String>,
    /// Why the last round failed, in plain words.
    pub last_error: Option<String>,
    /// This process runs the background loop.
    pub running: bool,
    /// The background loop's last round, whichever process ran it.
    pub background: Option<RoundView>,
    /// What syncs, in the order a device first sends it.
    pub kinds: Vec<RecordKind>,
}

/// What signing in (signup, login, pairing, accepting an invitation) tells
/// the front end: the family and this device. The tokens stay in the keyring.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, TS)]
pub struct SignedIn {
    pub family_id: String,
    pub device_id: String,
}
