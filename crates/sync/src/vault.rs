//! Where a device keeps its sync tokens: the OS keyring (service
//! `deskmate`, entry `sync:<vault id>`), never SQLite or a log. The vault id
//! is random per data directory, so two data directories on one machine are
//! two devices. [`MemoryVault`] holds them in memory for tests.

use std::collections::HashMap;
use std::sync::Mutex;

use deskmate_protocol::sync::TokenPair;

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

fn entry(vault_id: &str) -> SyncResult<keyring::Entry> {
    keyring::Entry::new("deskmate", &format!("sync:{vault_id}"))
        .map_err(|e| SyncError::Keyring(e.to_string()))
}

impl TokenVault for KeyringVault {
    fn load(&self, vault_id: &str) -> SyncResult<Option<TokenPair>> {
        match entry(vault_id)?.get_password() {
            Ok(text) => serde_json::from_str(&text).map(Some).map_err(|e| {
                SyncError::Keyring(format!(
                    "the stored sync tokens cannot be read ({e}); sign in again"
                ))
            }),
            Err(keyring::Error::NoEntry) => Ok(None),
            Err(e) => Err(SyncError::Keyring(e.to_string())),
        }
    }

    fn save(&self, vault_id: &str, tokens: &TokenPair) -> SyncResult<()> {
        let text = serde_json::to_string(tokens).map_err(|e| SyncError::Keyring(e.to_string()))?;
        entry(vault_id)?
            .set_password(&text)
            .map_err(|e| SyncError::Keyring(e.to_string()))
    }

    fn delete(&self, vault_id: &str) -> SyncResult<()> {
        match entry(vault_id)?.delete_credential() {
            Ok(()) | Err(keyring::Error::NoEntry) => Ok(()),
            Err(e) => Err(SyncError::Keyring(e.to_string())),
        }
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
