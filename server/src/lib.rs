//! `deskmate-server`: the family sync server. Parents sign up and sign in
//! (argon2id passwords, short-lived signed access tokens, rotating refresh
//! tokens stored hashed); a family's devices join with one-time pairing
//! codes; devices push their record changes and pull the family's change
//! log by sequence cursor. PostgreSQL holds everything, so replicas keep no
//! state between requests; every query is scoped by the token's family and
//! row-level security enforces it a second time (see the README).

pub mod accounts;
pub mod db;
pub mod devices;
pub mod error;
pub mod invitations;
pub mod sync;
pub mod token;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{FromRequestParts, State};
use axum::http::request::Parts;
use axum::http::StatusCode;
use axum::routing::{delete, get, post};
use axum::{Json, Router};
use deadpool_postgres::{Object, Pool, Transaction};

use crate::error::{ApiError, ApiResult};
use crate::token::Claims;

/// How the server runs.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    pub database_url: String,
    pub bind: SocketAddr,
    /// Lifetime of an access token.
    pub access_ttl: Duration,
    /// Lifetime of a refresh token (each refresh starts it again).
    pub refresh_ttl: Duration,
    pub pool_size: usize,
}

/// What every handler shares: the pool and the signing key. Nothing about
/// users or devices lives here.
#[derive(Clone)]
pub struct AppState {
    inner: Arc<Inner>,
}

struct Inner {
    pool: Pool,
    key: Vec<u8>,
    access_ttl: Duration,
    refresh_ttl: Duration,
}

impl AppState {
    pub(crate) async fn db(&self) -> ApiResult<Object> {
        Ok(self.inner.pool.get().await?)
    }

    pub(crate) fn key(&self) -> &[u8] {
        &self.inner.key
    }

    pub(crate) fn access_ttl(&self) -> Duration {
        self.inner.access_ttl
    }

    pub(crate) fn refresh_ttl(&self) -> Duration {
        self.inner.refresh_ttl
    }
}

/// The holder of a valid, unexpired access token. The session it names is
/// checked as the first statement of the request's family transaction.
#[derive(Debug, Clone)]
pub struct Auth(pub Claims);

impl FromRequestParts<AppState> for Auth {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> ApiResult<Auth> {
        let header = parts
            .headers
            .get(axum::http::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .ok_or_else(|| ApiError::Unauthorized("sign in first (no access token)".into()))?;
        let token = header.strip_prefix("Bearer ").ok_or_else(|| {
            ApiError::Unauthorized("the Authorization header must be 'Bearer <token>'".into())
        })?;
        let now = chrono::Utc::now().timestamp();
        Ok(Auth(token::verify(state.key(), token, now)?))
    }
}

impl Auth {
    /// Opens the family transaction for this token and refuses a revoked
    /// session or removed device.
    pub(crate) async fn transaction<'a>(
        &self,
        client: &'a mut Object,
    ) -> ApiResult<Transaction<'a>> {
        let tx = db::family_transaction(client, self.0.fam).await?;
        let alive = tx
            .query_opt(
                "SELECT 1 FROM sessions s JOIN devices d
                   ON d.family_id = s.family_id AND d.id = s.device_id
                 WHERE s.family_id = $1 AND s.id = $2
                   AND s.revoked_at IS NULL AND d.revoked_at IS NULL",
                &[&self.0.fam, &self.0.sid],
            )
            .await?
            .is_some();
        if !alive {
            return Err(ApiError::Unauthorized(
                "this session was signed out or the device removed; sign in again".into(),
            ));
        }
        Ok(tx)
    }

    /// Refuses a paired (child) device where a parent is needed.
    pub(crate) fn parent(&self) -> ApiResult<uuid::Uuid> {
        self.0.acc.ok_or_else(|| {
            ApiError::Forbidden("only a parent's signed-in device can do this".into())
        })
    }
}

async fn health() -> &'static str {
    "ok"
}

async fn ready(State(state): State<AppState>) -> (StatusCode, Json<serde_json::Value>) {
    let ok = match state.db().await {
        Ok(client) => client.query_one("SELECT 1", &[]).await.is_ok(),
        Err(_) => false,
    };
    let status = if ok {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    (status, Json(serde_json::json!({ "ready": ok })))
}

/// The routes.
pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/health", get(health))
        .route("/ready", get(ready))
        .route("/v1/accounts/signup", post(accounts::signup))
        .route("/v1/accounts/login", post(accounts::login))
        .route("/v1/accounts/logout", post(accounts::logout))
        .route("/v1/accounts/me", get(accounts::status))
        .route("/v1/tokens/refresh", post(accounts::refresh))
        .route(
            "/v1/invitations",
            post(invitations::create).get(invitations::list),
        )
        .route("/v1/invitations/accept", post(invitations::accept))
        .route("/v1/invitations/{id}", delete(invitations::withdraw))
        .route("/v1/pairing-codes", post(devices::create_code))
        .route("/v1/devices/pair", post(devices::pair))
        .route("/v1/devices", get(devices::list))
        .route("/v1/devices/{id}", delete(devices::remove))
        .route("/v1/sync/push", post(sync::push))
        .route("/v1/sync/pull", get(sync::pull))
        .with_state(state)
}

/// Connects, migrates, loads the key and serves until the process ends.
pub async fn serve(config: ServerConfig) -> anyhow::Result<()> {
    let pool = db::pool(&config.database_url, config.pool_size)?;
    db::migrate(&pool)
        .await
        .map_err(|e| anyhow::anyhow!("could not prepare the database: {e}"))?;
    let key = db::signing_key(&pool).await?;
    let state = AppState {
        inner: Arc::new(Inner {
            pool,
            key,
            access_ttl: config.access_ttl,
            refresh_ttl: config.refresh_ttl,
        }),
    };
    let listener = tokio::net::TcpListener::bind(config.bind)
        .await
        .map_err(|e| anyhow::anyhow!("could not listen on {}: {e}", config.bind))?;
    let addr = listener.local_addr()?;
    tracing::info!(%addr, "deskmate-server listening");
    println!("listening on http://{addr}");
    axum::serve(
        listener,
        router(state).into_make_service_with_connect_info::<SocketAddr>(),
    )
    .await?;
    Ok(())
}
