//! The change log: devices push batches of record changes and pull the
//! family's log after a sequence cursor, in pages.
//!
//! A push is one transaction: a replayed change (same `change_id`) is skipped
//! by the unique key, so a batch retried after a lost reply changes nothing.
//! Pushes of one family take a transaction-scoped advisory lock on the
//! family, so sequence numbers become visible in order and a pull never
//! skips a change committed late under a lower number.

use axum::extract::{Query, State};
use axum::Json;
use deskmate_protocol::sync::{
    Change, PullResponse, PushRequest, PushResponse, RecordKind, StoredChange, MAX_PAGE,
};
use serde::Deserialize;
use uuid::Uuid;

use crate::error::{ApiError, ApiResult};
use crate::{AppState, Auth};

fn parse_id(what: &str, text: &str) -> ApiResult<Uuid> {
    Uuid::parse_str(text)
        .map_err(|_| ApiError::BadRequest(format!("'{text}' is not a {what} id (a UUID)")))
}

/// `POST /v1/sync/push`.
pub async fn push(
    State(state): State<AppState>,
    auth: Auth,
    Json(req): Json<PushRequest>,
) -> ApiResult<Json<PushResponse>> {
    if req.changes.len() > MAX_PAGE {
        return Err(ApiError::BadRequest(format!(
            "a push carries at most {MAX_PAGE} changes; this one had {}",
            req.changes.len()
        )));
    }
    let mut checked = Vec::with_capacity(req.changes.len());
    for c in &req.changes {
        let change = parse_id("change", &c.change_id)?;
        let record = parse_id("record", &c.record_id)?;
        if c.hlc.is_empty() || c.hlc.len() > 64 {
            return Err(ApiError::BadRequest(format!(
                "change {} has no usable clock (hlc)",
                c.change_id
            )));
        }
        checked.push((change, record, c));
    }
    let mut client = state.db().await?;
    let tx = auth.transaction(&mut client).await?;
    tx.execute(
        "SELECT pg_advisory_xact_lock(hashtextextended($1::text, 17))",
        &[&auth.0.fam.to_string()],
    )
    .await?;
    let insert = tx
        .prepare(
            "INSERT INTO changes (family_id, change_id, device_id, kind, record_id, hlc, deleted, body)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
             ON CONFLICT (family_id, change_id) DO NOTHING",
        )
        .await?;
    let mut accepted = 0u32;
    for (change, record, c) in &checked {
        let n = tx
            .execute(
                &insert,
                &[
                    &auth.0.fam,
                    change,
                    &auth.0.dev,
                    &c.kind.as_str(),
                    record,
                    &c.hlc,
                    &c.deleted,
                    &c.body,
                ],
            )
            .await?;
        accepted += u32::try_from(n).unwrap_or(0);
    }
    tx.execute(
        "UPDATE devices SET last_seen_at = now() WHERE family_id = $1 AND id = $2",
        &[&auth.0.fam, &auth.0.dev],
    )
    .await?;
    tx.commit().await?;
    let total = u32::try_from(checked.len()).unwrap_or(u32::MAX);
    Ok(Json(PushResponse {
        accepted,
        duplicates: total - accepted,
    }))
}

/// The pull query: `after` (a cursor from the last pull, 0 at first) and
/// `limit` (at most [`MAX_PAGE`]).
#[derive(Debug, Deserialize)]
pub struct PullQuery {
    #[serde(default)]
    pub after: i64,
    #[serde(default)]
    pub limit: Option<usize>,
}

/// `GET /v1/sync/pull?after=N&limit=M`.
pub async fn pull(
    State(state): State<AppState>,
    auth: Auth,
    Query(q): Query<PullQuery>,
) -> ApiResult<Json<PullResponse>> {
    let limit = q.limit.unwrap_or(200).clamp(1, MAX_PAGE);
    let mut client = state.db().await?;
    let tx = auth.transaction(&mut client).await?;
    let rows = tx
        .query(
            "SELECT seq, change_id, device_id, kind, record_id, hlc, deleted, body FROM changes
             WHERE family_id = $1 AND seq > $2 ORDER BY seq LIMIT $3",
            &[
                &auth.0.fam,
                &q.after,
                &i64::try_from(limit + 1).unwrap_or(i64::MAX),
            ],
        )
        .await?;
    tx.execute(
        "UPDATE devices SET last_seen_at = now() WHERE family_id = $1 AND id = $2",
        &[&auth.0.fam, &auth.0.dev],
    )
    .await?;
    tx.commit().await?;
    let more = rows.len() > limit;
    let mut changes = Vec::with_capacity(limit.min(rows.len()));
    for r in rows.iter().take(limit) {
        let kind: String = r.get(3);
        let Some(kind) = RecordKind::parse(&kind) else {
            return Err(ApiError::Internal(format!(
                "unknown record kind {kind} in the log"
            )));
        };
        changes.push(StoredChange {
            seq: r.get(0),
            device_id: r.get::<_, Uuid>(2).to_string(),
            change: Change {
                change_id: r.get::<_, Uuid>(1).to_string(),
                kind,
                record_id: r.get::<_, Uuid>(4).to_string(),
                hlc: r.get(5),
                deleted: r.get(6),
                body: r.get(7),
            },
        });
    }
    let cursor = changes.last().map_or(q.after, |c| c.seq);
    Ok(Json(PullResponse {
        changes,
        cursor,
        more,
    }))
}
