//! Where a device keeps its sync tokens: the OS keyring (service
//! `deskmate`, entry `sync:<vault id>`), never SQLite or a log. The vault id
//! is random per data directory, so two data directories on one machine are
//! two devices. Each keyring call is bounded in time (`deskmate-secrets`):
//! a locked keyring is an error, not a sync round that never ends.
//! [`MemoryVault`] holds them in memory for tests.

use std::collections::HashMap;
use std::sync::Mutex;

use deskmate_protocol::sync::TokenPair;
use deskmate_secrets::{Secret, SecretError};

use crate::{SyncError, SyncResult};

/// Keeps one token pair per vault id.
pub trait TokenVault: Send + Sync {
    fn load(&self, vault_id: &str) -> SyncResult<Option<TokenPair>>;
    fn save(&self, vault_id: &str, tokens: &TokenPair) -> SyncResult<()>;
    fn delete(&self, vault_id: &str) -> SyncResult<()>;
}

/// The OS keyring.
#[derive(Debug, Default, Clone)]
pub struct KeyringVault;

fn secret(vault_id: &str) -> Secret {
    Secret::new(format!("sync:{vault_id}"))
}

fn keyring(e: SecretError) -> SyncError {
    SyncError::Keyring(e.to_string())
}

impl TokenVault for KeyringVault {
    fn load(&self, vault_id: &str) -> SyncResult<Option<TokenPair>> {
        let Some(text) = secret(vault_id).get().map_err(keyring)? else {
            return Ok(None);
        };
        serde_json::from_str(&text).map(Some).map_err(|e| {
            SyncError::Keyring(format!(
                "the stored sync tokens cannot be read ({e}); sign in again"
            ))
        })
    }

    fn save(&self, vault_id: &str, tokens: &TokenPair) -> SyncResult<()> {
        let text = serde_json::to_string(tokens).map_err(|e| SyncError::Keyring(e.to_string()))?;
        secret(vault_id).set(&text).map_err(keyring)
    }

    fn delete(&self, vault_id: &str) -> SyncResult<()> {
        secret(vault_id).delete().map_err(keyring)
    }
}

/// Tokens in memory, for tests.
#[derive(Debug, Default)]
pub struct MemoryVault(Mutex<HashMap<String, TokenPair>>);

impl TokenVault for MemoryVault {
    fn load(&self, vault_id: &str) -> SyncResult<Option<TokenPair>> {
        Ok(self
            .0
            .lock()
            .map_err(|_| SyncError::Keyring("vault poisoned".into()))?
            .get(vault_id)
            .cloned())
    }

    fn save(&self, vault_id: &str, tokens: &TokenPair) -> SyncResult<()> {
        self.0
            .lock()
            .map_err(|_| SyncError::Keyring("vault poisoned".into()))?
            .insert(vault_id.to_string(), tokens.clone());
        Ok(())
    }

    fn delete(&self, vault_id: &str) -> SyncResult<()> {
        self.0
            .lock()
            .map_err(|_| SyncError::Keyring("vault poisoned".into()))?
            .remove(vault_id);
        Ok(())
    }
}
