//! Parent accounts and sessions: signup (a new family owned by the new
//! parent), login, token refresh (the refresh token rotates; presenting a
//! spent one revokes the session, since someone copied it), logout (revokes
//! the session, so even its unexpired access token is refused) and status.
//!
//! Signup, login and refresh run as the owning role: they find the family
//! from a credential, before any family is known. Everything after runs in
//! the token's family transaction under row-level security.

use std::net::SocketAddr;

use argon2::password_hash::{
    rand_core::OsRng, PasswordHash, PasswordHasher, PasswordVerifier, SaltString,
};
use argon2::Argon2;
use axum::extract::{ConnectInfo, State};
use axum::Json;
use chrono::{DateTime, Utc};
use deskmate_protocol::sync::{
    AccountStatus, LoginRequest, RefreshRequest, SignupRequest, TokenPair,
};
use uuid::Uuid;

use crate::error::{ApiError, ApiResult};
use crate::token::{self, Claims};
use crate::{db, AppState, Auth};

/// Login attempts allowed per email (and per address) in the window.
const LOGIN_LIMIT: i64 = 10;
const LOGIN_WINDOW_SECS: f64 = 300.0;

pub(crate) fn check_email(email: &str) -> ApiResult<String> {
    let email = email.trim();
    let ok = email.len() <= 254
        && email
            .split_once('@')
            .is_some_and(|(user, host)| !user.is_empty() && host.contains('.'));
    if !ok {
        return Err(ApiError::BadRequest(format!(
            "'{email}' is not an email address"
        )));
    }
    Ok(email.to_lowercase())
}

pub(crate) fn check_device_name(name: &str) -> ApiResult<String> {
    let name = name.trim();
    if name.is_empty() || name.chars().count() > 80 {
        return Err(ApiError::BadRequest(
            "give the device a name of 1 to 80 characters".into(),
        ));
    }
    Ok(name.to_string())
}

pub(crate) async fn hash_password(password: String) -> ApiResult<String> {
    tokio::task::spawn_blocking(move || {
        let salt = SaltString::generate(&mut OsRng);
        Argon2::default()
            .hash_password(password.as_bytes(), &salt)
            .map(|h| h.to_string())
            .map_err(|e| ApiError::Internal(e.to_string()))
    })
    .await
    .map_err(|e| ApiError::Internal(e.to_string()))?
}

pub(crate) async fn password_matches(password: String, stored: String) -> ApiResult<bool> {
    tokio::task::spawn_blocking(move || {
        let parsed = PasswordHash::new(&stored).map_err(|e| ApiError::Internal(e.to_string()))?;
        Ok(Argon2::default()
            .verify_password(password.as_bytes(), &parsed)
            .is_ok())
    })
    .await
    .map_err(|e| ApiError::Internal(e.to_string()))?
}

/// Registers a device and opens a session on it; returns the token pair.
pub(crate) async fn open_session(
    state: &AppState,
    tx: &tokio_postgres::Transaction<'_>,
    family: Uuid,
    account: Option<Uuid>,
    device_name: &str,
) -> ApiResult<TokenPair> {
    let device = Uuid::now_v7();
    let kind = if account.is_some() {
        "parent"
    } else {
        "paired"
    };
    tx.execute(
        "INSERT INTO devices (family_id, id, name, kind) VALUES ($1, $2, $3, $4)",
        &[&family, &device, &device_name, &kind],
    )
    .await?;
    let session = Uuid::now_v7();
    let refresh = token::random_token();
    let expires: DateTime<Utc> = Utc::now() + state.refresh_ttl();
    tx.execute(
        "INSERT INTO sessions (family_id, id, device_id, account_id, refresh_hash, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6)",
        &[
            &family,
            &session,
            &device,
            &account,
            &token::hash(&refresh),
            &expires,
        ],
    )
    .await?;
    token_pair(state, family, device, account, session, refresh)
}

fn token_pair(
    state: &AppState,
    family: Uuid,
    device: Uuid,
    account: Option<Uuid>,
    session: Uuid,
    refresh: String,
) -> ApiResult<TokenPair> {
    let ttl = state.access_ttl();
    let claims = Claims {
        sid: session,
        fam: family,
        dev: device,
        acc: account,
        exp: token::expiry(Utc::now(), ttl),
    };
    Ok(TokenPair {
        access_token: token::sign(state.key(), &claims)?,
        expires_in: ttl.as_secs(),
        refresh_token: refresh,
        family_id: family.to_string(),
        device_id: device.to_string(),
        account_id: account.map(|a| a.to_string()),
    })
}

/// `POST /v1/accounts/signup`: a new parent and their new family.
pub async fn signup(
    State(state): State<AppState>,
    Json(req): Json<SignupRequest>,
) -> ApiResult<Json<TokenPair>> {
    let email = check_email(&req.email)?;
    let device_name = check_device_name(&req.device_name)?;
    if req.password.chars().count() < 8 {
        return Err(ApiError::BadRequest(
            "the password needs at least 8 characters".into(),
        ));
    }
    let family_name = req
        .family_name
        .map(|n| n.trim().to_string())
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| email.split('@').next().unwrap_or("family").to_string());
    let hash = hash_password(req.password).await?;
    let mut client = state.db().await?;
    let tx = client.transaction().await?;
    let taken = tx
        .query_opt("SELECT 1 FROM accounts WHERE lower(email) = $1", &[&email])
        .await?
        .is_some();
    if taken {
        return Err(ApiError::Conflict(format!(
            "an account with {email} already exists; sign in instead"
        )));
    }
    let family = Uuid::now_v7();
    let account = Uuid::now_v7();
    tx.execute(
        "INSERT INTO families (id, name, owner_account) VALUES ($1, $2, $3)",
        &[&family, &family_name, &account],
    )
    .await?;
    tx.execute(
        "INSERT INTO accounts (family_id, id, email, password_hash) VALUES ($1, $2, $3, $4)",
        &[&family, &account, &email, &hash],
    )
    .await?;
    let pair = open_session(&state, &tx, family, Some(account), &device_name).await?;
    tx.commit().await?;
    Ok(Json(pair))
}

/// `POST /v1/accounts/login`: a parent signs in on a device.
pub async fn login(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    Json(req): Json<LoginRequest>,
) -> ApiResult<Json<TokenPair>> {
    let email = check_email(&req.email)?;
    let device_name = check_device_name(&req.device_name)?;
    let mut client = state.db().await?;
    db::rate_limit(
        &client,
        &format!("login:{email}"),
        LOGIN_LIMIT,
        LOGIN_WINDOW_SECS,
    )
    .await?;
    db::rate_limit(
        &client,
        &format!("login-ip:{}", peer.ip()),
        LOGIN_LIMIT * 10,
        LOGIN_WINDOW_SECS,
    )
    .await?;
    let row = client
        .query_opt(
            "SELECT family_id, id, password_hash FROM accounts WHERE lower(email) = $1",
            &[&email],
        )
        .await?;
    let wrong = || ApiError::Unauthorized("wrong email or password".into());
    let Some(row) = row else {
        return Err(wrong());
    };
    let (family, account, stored): (Uuid, Uuid, String) = (row.get(0), row.get(1), row.get(2));
    if !password_matches(req.password, stored).await? {
        return Err(wrong());
    }
    let tx = db::family_transaction(&mut client, family).await?;
    let pair = open_session(&state, &tx, family, Some(account), &device_name).await?;
    tx.commit().await?;
    Ok(Json(pair))
}

/// `POST /v1/tokens/refresh`: spends a refresh token for a new pair.
pub async fn refresh(
    State(state): State<AppState>,
    Json(req): Json<RefreshRequest>,
) -> ApiResult<Json<TokenPair>> {
    let presented = token::hash(&req.refresh_token);
    let mut client = state.db().await?;
    let tx = client.transaction().await?;
    let refused = || ApiError::Unauthorized("the refresh token is not valid; sign in again".into());
    let row = tx
        .query_opt(
            "SELECT s.family_id, s.id, s.device_id, s.account_id,
                    s.revoked_at IS NULL AND d.revoked_at IS NULL AND s.expires_at > now()
             FROM sessions s JOIN devices d ON d.family_id = s.family_id AND d.id = s.device_id
             WHERE s.refresh_hash = $1 FOR UPDATE OF s",
            &[&presented],
        )
        .await?;
    let Some(row) = row else {
        // A spent token presented again: whoever holds the live one may be a
        // thief, so the session ends for both.
        tx.execute(
            "UPDATE sessions SET revoked_at = now()
             WHERE previous_refresh_hash = $1 AND revoked_at IS NULL",
            &[&presented],
        )
        .await?;
        tx.commit().await?;
        return Err(refused());
    };
    let (family, session, device, account, live): (Uuid, Uuid, Uuid, Option<Uuid>, bool) =
        (row.get(0), row.get(1), row.get(2), row.get(3), row.get(4));
    if !live {
        return Err(refused());
    }
    let next = token::random_token();
    let expires: DateTime<Utc> = Utc::now() + state.refresh_ttl();
    tx.execute(
        "UPDATE sessions SET previous_refresh_hash = refresh_hash, refresh_hash = $3, expires_at = $4
         WHERE family_id = $1 AND id = $2",
        &[&family, &session, &token::hash(&next), &expires],
    )
    .await?;
    tx.commit().await?;
    Ok(Json(token_pair(
        &state, family, device, account, session, next,
    )?))
}

/// `POST /v1/accounts/logout`: ends this session.
pub async fn logout(
    State(state): State<AppState>,
    auth: Auth,
) -> ApiResult<Json<serde_json::Value>> {
    let mut client = state.db().await?;
    let tx = auth.transaction(&mut client).await?;
    tx.execute(
        "UPDATE sessions SET revoked_at = now() WHERE family_id = $1 AND id = $2",
        &[&auth.0.fam, &auth.0.sid],
    )
    .await?;
    tx.commit().await?;
    Ok(Json(serde_json::json!({ "signed_out": true })))
}

/// `GET /v1/accounts/me`: who this token is.
pub async fn status(State(state): State<AppState>, auth: Auth) -> ApiResult<Json<AccountStatus>> {
    let mut client = state.db().await?;
    let tx = auth.transaction(&mut client).await?;
    let family = tx
        .query_one(
            "SELECT name, owner_account FROM families WHERE id = $1",
            &[&auth.0.fam],
        )
        .await?;
    let owner: Uuid = family.get(1);
    let email = match auth.0.acc {
        Some(acc) => tx
            .query_opt(
                "SELECT email FROM accounts WHERE family_id = $1 AND id = $2",
                &[&auth.0.fam, &acc],
            )
            .await?
            .map(|r| r.get::<_, String>(0)),
        None => None,
    };
    tx.commit().await?;
    Ok(Json(AccountStatus {
        family_id: auth.0.fam.to_string(),
        family_name: family.get(0),
        device_id: auth.0.dev.to_string(),
        account_id: auth.0.acc.map(|a| a.to_string()),
        email,
        role: auth.0.acc.map(|a| {
            if a == owner {
                "owner".to_string()
            } else {
                "parent".to_string()
            }
        }),
    }))
}
