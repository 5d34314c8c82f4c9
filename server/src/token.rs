//! Tokens: the short-lived access token (claims signed with HMAC-SHA256 by
//! the key in the database, checked without a database round trip) and the
//! refresh token (random bytes, stored only as a SHA-256 hash, spent on use).
//!
//! Access token text: `v1.<base64url(claims JSON)>.<base64url(mac)>`.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use hmac::{Hmac, Mac};
use rand::RngCore;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use uuid::Uuid;

use crate::error::ApiError;

type HmacSha256 = Hmac<Sha256>;

/// What an access token says about its holder.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Claims {
    /// The session (revoking it refuses the token at once).
    pub sid: Uuid,
    pub fam: Uuid,
    pub dev: Uuid,
    /// The parent account; `None` for a paired device.
    #[serde(default)]
    pub acc: Option<Uuid>,
    /// Expiry, seconds since the Unix epoch.
    pub exp: i64,
}

/// The `exp` for a token issued at `issued` that lives `ttl`: rounded up
/// to the next whole second, so the token lives at least `ttl`. (Rounded
/// down, a token of one second issued at 10.9 s was refused at 11.0 s.)
pub fn expiry(issued: chrono::DateTime<chrono::Utc>, ttl: std::time::Duration) -> i64 {
    let ends = chrono::Duration::from_std(ttl)
        .ok()
        .and_then(|ttl| issued.checked_add_signed(ttl));
    match ends {
        Some(ends) => ends.timestamp() + i64::from(ends.timestamp_subsec_nanos() > 0),
        None => i64::MAX / 2,
    }
}

/// Signs claims into token text.
pub fn sign(key: &[u8], claims: &Claims) -> Result<String, ApiError> {
    let json = serde_json::to_vec(claims).map_err(|e| ApiError::Internal(e.to_string()))?;
    let payload = URL_SAFE_NO_PAD.encode(json);
    let mut mac = HmacSha256::new_from_slice(key).map_err(|e| ApiError::Internal(e.to_string()))?;
    mac.update(payload.as_bytes());
    let tag = URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes());
    Ok(format!("v1.{payload}.{tag}"))
}

/// Checks the signature and expiry; `now` is seconds since the epoch.
pub fn verify(key: &[u8], token: &str, now: i64) -> Result<Claims, ApiError> {
    let bad = || ApiError::Unauthorized("the access token is not valid; sign in again".into());
    let mut parts = token.split('.');
    let (Some("v1"), Some(payload), Some(tag), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(bad());
    };
    let tag = URL_SAFE_NO_PAD.decode(tag).map_err(|_| bad())?;
    let mut mac = HmacSha256::new_from_slice(key).map_err(|e| ApiError::Internal(e.to_string()))?;
    mac.update(payload.as_bytes());
    mac.verify_slice(&tag).map_err(|_| bad())?;
    let json = URL_SAFE_NO_PAD.decode(payload).map_err(|_| bad())?;
    let claims: Claims = serde_json::from_slice(&json).map_err(|_| bad())?;
    if claims.exp <= now {
        return Err(ApiError::Unauthorized(
            "the access token has expired; refresh it".into(),
        ));
    }
    Ok(claims)
}

/// A new random refresh token (or pairing secret) as text.
pub fn random_token() -> String {
    let mut bytes = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    URL_SAFE_NO_PAD.encode(bytes)
}

/// What is stored instead of a refresh token or pairing code.
pub fn hash(secret: &str) -> Vec<u8> {
    Sha256::digest(secret.as_bytes()).to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claims(exp: i64) -> Claims {
        Claims {
            sid: Uuid::now_v7(),
            fam: Uuid::now_v7(),
            dev: Uuid::now_v7(),
            acc: None,
            exp,
        }
    }

    #[test]
    fn a_signed_token_verifies_and_a_tampered_one_does_not() {
        let key = b"0123456789abcdef0123456789abcdef";
        let c = claims(2_000);
        let token = sign(key, &c).unwrap();
        assert_eq!(verify(key, &token, 1_000).unwrap(), c);
        let other = sign(key, &claims(2_000)).unwrap();
        let forged = format!(
            "{}.{}",
            token.rsplit_once('.').unwrap().0,
            other.rsplit_once('.').unwrap().1
        );
        assert!(verify(key, &forged, 1_000).is_err());
        assert!(verify(b"another key, same length........", &token, 1_000).is_err());
    }

    #[test]
    fn a_token_lives_its_whole_ttl_whenever_in_a_second_it_is_issued() {
        use chrono::TimeZone;
        let key = b"k";
        let ttl = std::time::Duration::from_secs(1);
        for ms in [0, 1, 500, 900, 999] {
            let issued = chrono::Utc.timestamp_millis_opt(10_000 + ms).unwrap();
            let token = sign(key, &claims(expiry(issued, ttl))).unwrap();
            // Checked (in whole seconds) just before the ttl is up: alive.
            let last = issued + chrono::Duration::milliseconds(999);
            assert!(
                verify(key, &token, last.timestamp()).is_ok(),
                "issued at +{ms} ms"
            );
            // Two seconds on it is gone, however it was rounded.
            assert!(verify(key, &token, issued.timestamp() + 2).is_err());
        }
    }

    #[test]
    fn an_expired_token_is_refused() {
        let key = b"k";
        let token = sign(key, &claims(1_000)).unwrap();
        let err = verify(key, &token, 1_000).unwrap_err();
        assert!(err.to_string().contains("expired"), "{err}");
    }
}
