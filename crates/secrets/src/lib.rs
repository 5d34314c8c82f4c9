//! The OS keyring with a time limit.
//!
//! A [`Secret`] is one keyring entry (service [`SERVICE`], an account such
//! as `llm:openai`). Each call runs on a thread of its own and is waited on
//! for at most [`LIMIT`]: a locked keyring waits on an unlock prompt that
//! nobody may answer, and the caller must not wait with it.

use std::sync::mpsc;
use std::time::Duration;

/// The keyring service every Deskmate secret is kept under.
pub const SERVICE: &str = "deskmate";

/// How long a keyring call is waited on.
pub const LIMIT: Duration = Duration::from_secs(5);

/// What went wrong with the keyring, in words a parent can act on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SecretError {
    /// The keyring answered with an error (none running, access refused).
    #[error("the OS keyring cannot be used: {0}")]
    Unusable(String),
    /// The keyring did not answer in time: most often locked, waiting for
    /// an unlock prompt.
    #[error("the OS keyring did not answer within {} s (locked, waiting for an unlock prompt?); unlock your login keyring", .0.as_secs())]
    Silent(Duration),
}

pub type SecretResult<T> = Result<T, SecretError>;

/// One entry in the OS keyring.
#[derive(Debug, Clone)]
pub struct Secret {
    service: String,
    account: String,
    limit: Duration,
}

impl Secret {
    /// The entry `account` under [`SERVICE`].
    pub fn new(account: impl Into<String>) -> Self {
        Self::in_service(SERVICE, account)
    }

    /// The entry `account` under another service (tests keep theirs apart).
    pub fn in_service(service: impl Into<String>, account: impl Into<String>) -> Self {
        Self {
            service: service.into(),
            account: account.into(),
            limit: LIMIT,
        }
    }

    /// Waits at most `limit` on each call instead of [`LIMIT`].
    pub fn with_limit(mut self, limit: Duration) -> Self {
        self.limit = limit;
        self
    }

    pub fn account(&self) -> &str {
        &self.account
    }

    /// The stored value; `None` when there is none.
    pub fn get(&self) -> SecretResult<Option<String>> {
        self.call(|entry| match entry.get_password() {
            Ok(value) => Ok(Some(value)),
            Err(keyring::Error::NoEntry) => Ok(None),
            Err(e) => Err(SecretError::Unusable(e.to_string())),
        })
    }

    /// Stores `value`, replacing what was there.
    pub fn set(&self, value: &str) -> SecretResult<()> {
        let owned = value.to_string();
        self.call(move |entry| {
            entry
                .set_password(&owned)
                .map_err(|e| SecretError::Unusable(redact(&e.to_string(), &owned)))
        })
    }

    /// Removes the entry; removing one that is not there is not an error.
    pub fn delete(&self) -> SecretResult<()> {
        self.call(|entry| match entry.delete_credential() {
            Ok(()) | Err(keyring::Error::NoEntry) => Ok(()),
            Err(e) => Err(SecretError::Unusable(e.to_string())),
        })
    }

    fn call<T: Send + 'static>(
        &self,
        op: impl FnOnce(&keyring::Entry) -> SecretResult<T> + Send + 'static,
    ) -> SecretResult<T> {
        let (service, account) = (self.service.clone(), self.account.clone());
        within(self.limit, move || {
            let entry = keyring::Entry::new(&service, &account)
                .map_err(|e| SecretError::Unusable(e.to_string()))?;
            op(&entry)
        })?
    }
}

/// `text` with `secret` replaced by `[redacted]` (short values are left:
/// replacing a two-letter value would blank ordinary words).
pub fn redact(text: &str, secret: &str) -> String {
    if secret.len() < 4 {
        return text.to_string();
    }
    text.replace(secret, "[redacted]")
}

/// Runs `call` on a thread of its own and waits at most `limit`: `Silent`
/// when it did not answer. A call still waiting is left behind on its
/// thread; its answer is dropped.
fn within<T: Send + 'static>(
    limit: Duration,
    call: impl FnOnce() -> T + Send + 'static,
) -> SecretResult<T> {
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .name("keyring".into())
        .spawn(move || {
            let _ = tx.send(call());
        })
        .map_err(|e| SecretError::Unusable(format!("no thread to call it on: {e}")))?;
    rx.recv_timeout(limit).map_err(|e| match e {
        mpsc::RecvTimeoutError::Timeout => SecretError::Silent(limit),
        mpsc::RecvTimeoutError::Disconnected => {
            SecretError::Unusable("the call to it failed without an answer".into())
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_that_never_answers_is_given_up_on() {
        let (_hold, wait) = mpsc::channel::<()>();
        let started = std::time::Instant::now();
        let limit = Duration::from_millis(200);
        let answer = within(limit, move || wait.recv().is_ok());
        assert_eq!(answer, Err(SecretError::Silent(limit)));
        assert!(started.elapsed() < Duration::from_secs(5));
        assert_eq!(within(Duration::from_secs(5), || 7), Ok(7));
    }

    #[test]
    fn silence_is_said_in_words_with_the_limit_and_the_fix() {
        let text = SecretError::Silent(LIMIT).to_string();
        assert!(text.contains("did not answer within 5 s"), "{text}");
        assert!(text.contains("unlock"), "{text}");
    }

    #[test]
    fn a_secret_is_stored_read_replaced_and_removed_in_the_real_keyring() {
        let secret = Secret::in_service(
            "deskmate-test",
            format!("secrets-crate:{}", std::process::id()),
        );
        secret.set("first value").unwrap_or_else(|e| {
            panic!("{e} (run under the README's test command, which starts an unlocked keyring)")
        });
        assert_eq!(secret.get().unwrap().as_deref(), Some("first value"));
        secret.set("second value").unwrap();
        assert_eq!(secret.get().unwrap().as_deref(), Some("second value"));
        secret.delete().unwrap();
        assert_eq!(secret.get().unwrap(), None);
        // Removing what is gone is not an error.
        secret.delete().unwrap();
    }

    #[test]
    fn redaction_hides_the_secret_but_not_short_words() {
        assert_eq!(
            redact("bad key sk-12345 given", "sk-12345"),
            "bad key [redacted] given"
        );
        assert_eq!(redact("an ox", "ox"), "an ox");
    }
}
