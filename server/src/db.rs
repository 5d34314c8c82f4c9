//! The PostgreSQL side: the connection pool, the migrations applied at start
//! (in order, once, under an advisory lock so replicas starting together do
//! not race), the token signing key shared by every replica, and the
//! family-scoped transaction every authenticated request runs in.
//!
//! The server connects as the database's owner role; a family-scoped
//! transaction switches to the non-owner role `deskmate_app` with
//! `SET LOCAL ROLE` and sets `deskmate.family`, so row-level security hides
//! every other family's rows even if a query forgot its `WHERE family_id`.

use deadpool_postgres::{Manager, ManagerConfig, Object, Pool, RecyclingMethod, Transaction};
use rand::RngCore;
use tokio_postgres::NoTls;
use uuid::Uuid;

use crate::error::{ApiError, ApiResult};

/// The schema, in order. Append; never edit an applied one.
const MIGRATIONS: &[(&str, &str)] = &[
    (
        "0001_families",
        include_str!("../migrations/0001_families.sql"),
    ),
    (
        "0002_invitations",
        include_str!("../migrations/0002_invitations.sql"),
    ),
];

/// Opens the pool. Fails in plain words when the URL does not parse.
pub fn pool(database_url: &str, size: usize) -> anyhow::Result<Pool> {
    let config: tokio_postgres::Config = database_url
        .parse()
        .map_err(|e| anyhow::anyhow!("the database URL does not parse: {e}"))?;
    let manager = Manager::from_config(
        config,
        NoTls,
        ManagerConfig {
            recycling_method: RecyclingMethod::Fast,
        },
    );
    Ok(Pool::builder(manager).max_size(size).build()?)
}

/// Applies the migrations this database has not seen, each in its own
/// transaction, holding an advisory lock so two replicas do not both apply.
pub async fn migrate(pool: &Pool) -> anyhow::Result<()> {
    let mut client = pool.get().await?;
    client
        .batch_execute(
            "SELECT pg_advisory_lock(74740017);
             CREATE TABLE IF NOT EXISTS schema_migrations (
               name text PRIMARY KEY,
               applied_at timestamptz NOT NULL DEFAULT now())",
        )
        .await?;
    let result = apply_missing(&mut client).await;
    client
        .batch_execute("SELECT pg_advisory_unlock(74740017)")
        .await?;
    result
}

async fn apply_missing(client: &mut Object) -> anyhow::Result<()> {
    for (name, sql) in MIGRATIONS {
        let done = client
            .query_opt("SELECT 1 FROM schema_migrations WHERE name = $1", &[name])
            .await?
            .is_some();
        if done {
            continue;
        }
        let tx = client.transaction().await?;
        tx.batch_execute(sql).await.map_err(|e| {
            let detail = e
                .as_db_error()
                .map_or(e.to_string(), |d| d.message().to_string());
            anyhow::anyhow!("migration {name} failed: {detail}")
        })?;
        tx.execute("INSERT INTO schema_migrations (name) VALUES ($1)", &[name])
            .await?;
        tx.commit().await?;
        tracing::info!(migration = name, "applied");
    }
    Ok(())
}

/// The key access tokens are signed with: made once, stored in the database,
/// so every replica signs and checks with the same key.
pub async fn signing_key(pool: &Pool) -> anyhow::Result<Vec<u8>> {
    let client = pool.get().await?;
    let mut fresh = vec![0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut fresh);
    client
        .execute(
            "INSERT INTO server_keys (name, secret) VALUES ('access', $1) ON CONFLICT DO NOTHING",
            &[&fresh],
        )
        .await?;
    let row = client
        .query_one("SELECT secret FROM server_keys WHERE name = 'access'", &[])
        .await?;
    Ok(row.get(0))
}

/// Begins a transaction as `deskmate_app` with `deskmate.family` set: from
/// here on row-level security shows this family's rows only.
pub async fn family_transaction(client: &mut Object, family: Uuid) -> ApiResult<Transaction<'_>> {
    let tx = client.transaction().await?;
    tx.batch_execute("SET LOCAL ROLE deskmate_app").await?;
    tx.execute(
        "SELECT set_config('deskmate.family', $1, true)",
        &[&family.to_string()],
    )
    .await?;
    Ok(tx)
}

/// Counts one attempt under `key` and refuses when `max` were made in the
/// last `window_secs` (login per email, pairing per address). Kept in the
/// database so the limit holds across replicas.
pub async fn rate_limit(client: &Object, key: &str, max: i64, window_secs: f64) -> ApiResult<()> {
    client
        .execute(
            "DELETE FROM auth_attempts WHERE key = $1 AND at < now() - make_interval(secs => $2)",
            &[&key, &window_secs],
        )
        .await?;
    let row = client
        .query_one("SELECT count(*) FROM auth_attempts WHERE key = $1", &[&key])
        .await?;
    let count: i64 = row.get(0);
    if count >= max {
        return Err(ApiError::TooManyRequests(
            "too many attempts; wait a few minutes and try again".into(),
        ));
    }
    client
        .execute("INSERT INTO auth_attempts (key) VALUES ($1)", &[&key])
        .await?;
    Ok(())
}
