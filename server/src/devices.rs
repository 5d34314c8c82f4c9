//! A family's devices: a parent's device shows a one-time pairing code (8
//! digits, 10 minutes, stored hashed), the child's tablet claims it and gets
//! its own session, so a child never types a password. Parents list and
//! remove devices; removing one ends its sessions at once.

use std::net::SocketAddr;

use axum::extract::{ConnectInfo, Path, State};
use axum::Json;
use chrono::{DateTime, Duration, Utc};
use deskmate_protocol::sync::{DeviceView, PairRequest, PairingCode, TokenPair};
use rand::Rng;
use uuid::Uuid;

use crate::accounts::open_session;
use crate::error::{ApiError, ApiResult};
use crate::{db, token, AppState, Auth};

const CODE_MINUTES: i64 = 10;
/// Pairing claims allowed per address in the window.
const PAIR_LIMIT: i64 = 10;
const PAIR_WINDOW_SECS: f64 = 300.0;

/// `POST /v1/pairing-codes`: a parent asks for a code to show.
pub async fn create_code(
    State(state): State<AppState>,
    auth: Auth,
) -> ApiResult<Json<PairingCode>> {
    let account = auth.parent()?;
    let code = format!("{:08}", rand::rngs::OsRng.gen_range(0..100_000_000u32));
    let expires: DateTime<Utc> = Utc::now() + Duration::minutes(CODE_MINUTES);
    let mut client = state.db().await?;
    let tx = auth.transaction(&mut client).await?;
    tx.execute(
        "INSERT INTO pairing_codes (family_id, code_hash, created_by, expires_at)
         VALUES ($1, $2, $3, $4)",
        &[&auth.0.fam, &token::hash(&code), &account, &expires],
    )
    .await?;
    tx.commit().await?;
    Ok(Json(PairingCode {
        code,
        expires_at: expires.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
    }))
}

/// `POST /v1/devices/pair`: a new device claims a code and joins the family.
pub async fn pair(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    Json(req): Json<PairRequest>,
) -> ApiResult<Json<TokenPair>> {
    let code: String = req
        .code
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '-')
        .collect();
    if code.len() != 8 || !code.chars().all(|c| c.is_ascii_digit()) {
        return Err(ApiError::BadRequest("a pairing code is 8 digits".into()));
    }
    let name = req.device_name.trim();
    if name.is_empty() || name.chars().count() > 80 {
        return Err(ApiError::BadRequest(
            "give the device a name of 1 to 80 characters".into(),
        ));
    }
    let mut client = state.db().await?;
    db::rate_limit(
        &client,
        &format!("pair:{}", peer.ip()),
        PAIR_LIMIT,
        PAIR_WINDOW_SECS,
    )
    .await?;
    let tx = client.transaction().await?;
    let row = tx
        .query_opt(
            "UPDATE pairing_codes SET used_at = now()
             WHERE code_hash = $1 AND used_at IS NULL AND expires_at > now()
             RETURNING family_id",
            &[&token::hash(&code)],
        )
        .await?;
    let Some(row) = row else {
        return Err(ApiError::Unauthorized(
            "that pairing code is wrong, used or expired; ask for a new one".into(),
        ));
    };
    let family: Uuid = row.get(0);
    let pair = open_session(&state, &tx, family, None, name).await?;
    tx.commit().await?;
    Ok(Json(pair))
}

/// `GET /v1/devices`: the family's devices that are not removed.
pub async fn list(State(state): State<AppState>, auth: Auth) -> ApiResult<Json<Vec<DeviceView>>> {
    let mut client = state.db().await?;
    let tx = auth.transaction(&mut client).await?;
    let rows = tx
        .query(
            "SELECT id, name, kind, created_at, last_seen_at FROM devices
             WHERE family_id = $1 AND revoked_at IS NULL ORDER BY created_at, id",
            &[&auth.0.fam],
        )
        .await?;
    tx.commit().await?;
    let stamp = |t: DateTime<Utc>| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    Ok(Json(
        rows.iter()
            .map(|r| DeviceView {
                id: r.get::<_, Uuid>(0).to_string(),
                name: r.get(1),
                kind: r.get(2),
                created_at: stamp(r.get(3)),
                last_seen_at: r.get::<_, Option<DateTime<Utc>>>(4).map(stamp),
            })
            .collect(),
    ))
}

/// `DELETE /v1/devices/{id}`: a parent removes a device; its sessions end.
pub async fn remove(
    State(state): State<AppState>,
    auth: Auth,
    Path(id): Path<String>,
) -> ApiResult<Json<serde_json::Value>> {
    auth.parent()?;
    let id = Uuid::parse_str(&id)
        .map_err(|_| ApiError::BadRequest(format!("'{id}' is not a device id")))?;
    let mut client = state.db().await?;
    let tx = auth.transaction(&mut client).await?;
    let n = tx
        .execute(
            "UPDATE devices SET revoked_at = now()
             WHERE family_id = $1 AND id = $2 AND revoked_at IS NULL",
            &[&auth.0.fam, &id],
        )
        .await?;
    if n == 0 {
        return Err(ApiError::NotFound(format!("no device {id} in this family")));
    }
    tx.execute(
        "UPDATE sessions SET revoked_at = now()
         WHERE family_id = $1 AND device_id = $2 AND revoked_at IS NULL",
        &[&auth.0.fam, &id],
    )
    .await?;
    tx.commit().await?;
    Ok(Json(serde_json::json!({ "removed": id.to_string() })))
}
