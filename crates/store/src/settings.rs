//! Settings: small JSON values by key, app-wide or per profile.

use rusqlite::{params, OptionalExtension};
use serde::{de::DeserializeOwned, Serialize};

use crate::{now_utc, Store, StoreError, StoreResult};

pub struct Settings<'s> {
    store: &'s Store,
}

/// The scope of app-wide settings.
const APP: &str = "";

impl<'s> Settings<'s> {
    pub(crate) fn new(store: &'s Store) -> Self {
        Self { store }
    }

    /// Reads an app-wide setting (`scope = None`) or a profile's.
    pub fn get<T: DeserializeOwned>(
        &self,
        scope: Option<&str>,
        key: &str,
    ) -> StoreResult<Option<T>> {
        let raw: Option<String> = self.store.with_conn(|c| {
            Ok(c.query_row(
                "SELECT value FROM settings WHERE scope = ?1 AND key = ?2",
                params![scope.unwrap_or(APP), key],
                |r| r.get(0),
            )
            .optional()?)
        })?;
        raw.map(|s| {
            serde_json::from_str(&s)
                .map_err(|e| StoreError::Invalid(format!("setting {key} is damaged: {e}")))
        })
        .transpose()
    }

    pub fn set<T: Serialize>(&self, scope: Option<&str>, key: &str, value: &T) -> StoreResult<()> {
        let json = serde_json::to_string(value).map_err(|e| StoreError::Invalid(e.to_string()))?;
        self.store.with_conn(|c| {
            c.execute(
                "INSERT INTO settings (scope, key, value, updated_at) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT(scope, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
                params![scope.unwrap_or(APP), key, json, now_utc()],
            )?;
            Ok(())
        })
    }

    pub fn remove(&self, scope: Option<&str>, key: &str) -> StoreResult<()> {
        self.store.with_conn(|c| {
            c.execute(
                "DELETE FROM settings WHERE scope = ?1 AND key = ?2",
                params![scope.unwrap_or(APP), key],
            )?;
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_by_scope() {
        let s = Store::open_in_memory().unwrap();
        s.settings().set(None, "ui.locale", &"en").unwrap();
        s.settings()
            .set(Some("p1"), "recite.pass_threshold", &90.0)
            .unwrap();
        assert_eq!(
            s.settings()
                .get::<String>(None, "ui.locale")
                .unwrap()
                .as_deref(),
            Some("en")
        );
        assert_eq!(
            s.settings()
                .get::<f64>(Some("p1"), "recite.pass_threshold")
                .unwrap(),
            Some(90.0)
        );
        assert_eq!(
            s.settings()
                .get::<f64>(None, "recite.pass_threshold")
                .unwrap(),
            None
        );
        s.settings().remove(None, "ui.locale").unwrap();
        assert_eq!(s.settings().get::<String>(None, "ui.locale").unwrap(), None);
    }
}
