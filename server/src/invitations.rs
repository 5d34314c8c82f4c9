//! A second parent: the family's owner invites an email, the server keeps a
//! hash of a one-time code (7 days, single use) and the invited person
//! accepts with the code, that email and a password — no token, since they
//! have none for this family yet. Accepting makes a new parent account in
//! the family, or moves the account they already have with that email when
//! it is alone in a family of its own with nothing synced (they signed up
//! before being invited); an account in a family with other devices,
//! parents or records is refused rather than torn out of it.
//!
//! Listing and withdrawing run in the token's family transaction (row-level
//! security); accepting runs as the owning role, like pairing, because it
//! finds the family from the code, and it is rate-limited per address.

use std::net::SocketAddr;

use axum::extract::{ConnectInfo, Path, State};
use axum::Json;
use chrono::{DateTime, Duration, Utc};
use deskmate_protocol::sync::{AcceptRequest, Invitation, InviteRequest, TokenPair};
use rand::Rng;
use uuid::Uuid;

use crate::accounts::{
    check_device_name, check_email, hash_password, open_session, password_matches,
};
use crate::error::{ApiError, ApiResult};
use crate::{db, token, AppState, Auth};

/// How long an invitation can be accepted.
const INVITATION_DAYS: i64 = 7;
/// Accept tries allowed per address in the window.
const ACCEPT_LIMIT: i64 = 10;
const ACCEPT_WINDOW_SECS: f64 = 300.0;
/// Letters and digits that cannot be mistaken for one another.
const CODE_ALPHABET: &[u8] = b"ABCDEFGHJKMNPQRSTUVWXYZ23456789";

fn stamp(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// A fresh code, `XXXX-XXXX-XXXX` (about 59 random bits).
fn new_code() -> String {
    let mut rng = rand::rngs::OsRng;
    let chars: Vec<char> = (0..12)
        .map(|_| char::from(CODE_ALPHABET[rng.gen_range(0..CODE_ALPHABET.len())]))
        .collect();
    chars
        .chunks(4)
        .map(|c| c.iter().collect::<String>())
        .collect::<Vec<_>>()
        .join("-")
}

/// The code as stored: upper case, without dashes or spaces.
fn normalize(code: &str) -> String {
    code.chars()
        .filter(|c| !c.is_whitespace() && *c != '-')
        .map(|c| c.to_ascii_uppercase())
        .collect()
}

/// `POST /v1/invitations`: the owner invites a second parent.
pub async fn create(
    State(state): State<AppState>,
    auth: Auth,
    Json(req): Json<InviteRequest>,
) -> ApiResult<Json<Invitation>> {
    let account = auth.parent()?;
    let email = check_email(&req.email)?;
    let mut client = state.db().await?;
    let tx = auth.transaction(&mut client).await?;
    let owner: Uuid = tx
        .query_one(
            "SELECT owner_account FROM families WHERE id = $1",
            &[&auth.0.fam],
        )
        .await?
        .get(0);
    if owner != account {
        return Err(ApiError::Forbidden(
            "only the parent who signed the family up can invite another parent".into(),
        ));
    }
    let member = tx
        .query_opt(
            "SELECT 1 FROM accounts WHERE family_id = $1 AND lower(email) = $2",
            &[&auth.0.fam, &email],
        )
        .await?
        .is_some();
    if member {
        return Err(ApiError::Conflict(format!(
            "{email} is already a parent of this family"
        )));
    }
    let id = Uuid::now_v7();
    let code = new_code();
    let expires: DateTime<Utc> = Utc::now() + Duration::days(INVITATION_DAYS);
    tx.execute(
        "INSERT INTO invitations (family_id, id, email, code_hash, invited_by, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6)",
        &[
            &auth.0.fam,
            &id,
            &email,
            &token::hash(&normalize(&code)),
            &account,
            &expires,
        ],
    )
    .await?;
    tx.commit().await?;
    Ok(Json(Invitation {
        id: id.to_string(),
        email,
        code: Some(code),
        expires_at: stamp(expires),
        accepted_at: None,
    }))
}

/// `GET /v1/invitations`: the family's invitations not withdrawn (no codes).
pub async fn list(State(state): State<AppState>, auth: Auth) -> ApiResult<Json<Vec<Invitation>>> {
    auth.parent()?;
    let mut client = state.db().await?;
    let tx = auth.transaction(&mut client).await?;
    let rows = tx
        .query(
            "SELECT id, email, expires_at, accepted_at FROM invitations
             WHERE family_id = $1 AND revoked_at IS NULL ORDER BY created_at, id",
            &[&auth.0.fam],
        )
        .await?;
    tx.commit().await?;
    Ok(Json(
        rows.iter()
            .map(|r| Invitation {
                id: r.get::<_, Uuid>(0).to_string(),
                email: r.get(1),
                code: None,
                expires_at: stamp(r.get(2)),
                accepted_at: r.get::<_, Option<DateTime<Utc>>>(3).map(stamp),
            })
            .collect(),
    ))
}

/// `DELETE /v1/invitations/{id}`: a parent withdraws an unaccepted invitation.
pub async fn withdraw(
    State(state): State<AppState>,
    auth: Auth,
    Path(id): Path<String>,
) -> ApiResult<Json<serde_json::Value>> {
    auth.parent()?;
    let id = Uuid::parse_str(&id)
        .map_err(|_| ApiError::BadRequest(format!("'{id}' is not an invitation id")))?;
    let mut client = state.db().await?;
    let tx = auth.transaction(&mut client).await?;
    let n = tx
        .execute(
            "UPDATE invitations SET revoked_at = now()
             WHERE family_id = $1 AND id = $2 AND revoked_at IS NULL AND accepted_at IS NULL",
            &[&auth.0.fam, &id],
        )
        .await?;
    if n == 0 {
        return Err(ApiError::NotFound(format!(
            "no open invitation {id} in this family"
        )));
    }
    tx.commit().await?;
    Ok(Json(serde_json::json!({ "withdrawn": id.to_string() })))
}

/// `POST /v1/invitations/accept`: the invited person joins as a parent and
/// this device is signed in.
pub async fn accept(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    Json(req): Json<AcceptRequest>,
) -> ApiResult<Json<TokenPair>> {
    let email = check_email(&req.email)?;
    let device_name = check_device_name(&req.device_name)?;
    let code = normalize(&req.code);
    if code.len() != 12 {
        return Err(ApiError::BadRequest(
            "an invitation code is 12 letters and digits (XXXX-XXXX-XXXX)".into(),
        ));
    }
    let mut client = state.db().await?;
    db::rate_limit(
        &client,
        &format!("accept:{}", peer.ip()),
        ACCEPT_LIMIT,
        ACCEPT_WINDOW_SECS,
    )
    .await?;
    // Guessing a parent's password here counts against the same budget as
    // signing in with it.
    db::rate_limit(
        &client,
        &format!("login:{email}"),
        ACCEPT_LIMIT,
        ACCEPT_WINDOW_SECS,
    )
    .await?;
    let existing = client
        .query_opt(
            "SELECT family_id, id, password_hash FROM accounts WHERE lower(email) = $1",
            &[&email],
        )
        .await?;
    // The password is checked before the code is spent, so a wrong password
    // leaves the invitation usable.
    let existing = match existing {
        Some(row) => {
            let (family, account, stored): (Uuid, Uuid, String) =
                (row.get(0), row.get(1), row.get(2));
            if !password_matches(req.password.clone(), stored).await? {
                return Err(ApiError::Unauthorized(format!(
                    "{email} already has an account and that is not its password"
                )));
            }
            Some((family, account))
        }
        None => {
            if req.password.chars().count() < 8 {
                return Err(ApiError::BadRequest(
                    "the password needs at least 8 characters".into(),
                ));
            }
            None
        }
    };
    let new_hash = match existing {
        None => Some(hash_password(req.password).await?),
        Some(_) => None,
    };
    let tx = client.transaction().await?;
    let row = tx
        .query_opt(
            "UPDATE invitations SET accepted_at = now()
             WHERE code_hash = $1 AND lower(email) = $2
               AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > now()
             RETURNING family_id, id",
            &[&token::hash(&code), &email],
        )
        .await?;
    let Some(row) = row else {
        return Err(ApiError::Unauthorized(
            "that invitation code is wrong, used, withdrawn, expired or for another email; \
             ask the family's parent for a new one"
                .into(),
        ));
    };
    let (family, invitation): (Uuid, Uuid) = (row.get(0), row.get(1));
    let account = match existing {
        Some((old_family, account)) => {
            move_into(&tx, &email, old_family, family, account).await?;
            account
        }
        None => {
            let account = Uuid::now_v7();
            tx.execute(
                "INSERT INTO accounts (family_id, id, email, password_hash) VALUES ($1, $2, $3, $4)",
                &[&family, &account, &email, &new_hash],
            )
            .await?;
            account
        }
    };
    tx.execute(
        "UPDATE invitations SET accepted_account = $3 WHERE family_id = $1 AND id = $2",
        &[&family, &invitation, &account],
    )
    .await?;
    let pair = open_session(&state, &tx, family, Some(account), &device_name).await?;
    tx.commit().await?;
    Ok(Json(pair))
}

/// Moves an account that is alone in a family of its own, with no paired
/// device and nothing synced, into the inviting family; the old family and
/// its sessions go. Anything more in the old family and it is refused.
async fn move_into(
    tx: &tokio_postgres::Transaction<'_>,
    email: &str,
    old_family: Uuid,
    family: Uuid,
    account: Uuid,
) -> ApiResult<()> {
    if old_family == family {
        return Err(ApiError::Conflict(format!(
            "{email} is already a parent of this family; sign in instead"
        )));
    }
    let row = tx
        .query_one(
            "SELECT (SELECT count(*) FROM accounts WHERE family_id = $1),
                    (SELECT count(*) FROM devices WHERE family_id = $1 AND kind = 'paired'
                       AND revoked_at IS NULL),
                    (SELECT count(*) FROM changes WHERE family_id = $1)",
            &[&old_family],
        )
        .await?;
    let (parents, paired, changes): (i64, i64, i64) = (row.get(0), row.get(1), row.get(2));
    if parents > 1 || paired > 0 || changes > 0 {
        return Err(ApiError::Conflict(format!(
            "{email} is a parent of another family that has its own devices or records; \
             an account belongs to one family, so accept with another email address"
        )));
    }
    for table in ["pairing_codes", "invitations", "sessions", "devices"] {
        tx.execute(
            &format!("DELETE FROM {table} WHERE family_id = $1"),
            &[&old_family],
        )
        .await?;
    }
    tx.execute(
        "UPDATE accounts SET family_id = $2 WHERE family_id = $1 AND id = $3",
        &[&old_family, &family, &account],
    )
    .await?;
    tx.execute("DELETE FROM families WHERE id = $1", &[&old_family])
        .await?;
    Ok(())
}
