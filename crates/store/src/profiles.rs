//! Profiles: the parents and children who use this device. A parent's PIN is
//! stored only as an argon2id hash, and wrong PINs are rate-limited in the
//! database itself so a restart does not reset the count.

use argon2::password_hash::{
    rand_core::OsRng, PasswordHash, PasswordHasher, PasswordVerifier, SaltString,
};
use argon2::Argon2;
use chrono::{DateTime, Duration, Utc};
use rusqlite::{params, OptionalExtension, Row, TransactionBehavior};
use serde::{Deserialize, Serialize};

use crate::{now_utc, Store, StoreError, StoreResult};

/// Wrong PINs allowed before the parent area locks.
pub const PIN_MAX_TRIES: u32 = 5;
/// How long the parent area stays locked after too many wrong PINs.
const PIN_LOCK_MINUTES: i64 = 5;
const NAME_MAX_CHARS: usize = 40;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum ProfileKind {
    Parent,
    Child,
}

impl ProfileKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Parent => "parent",
            Self::Child => "child",
        }
    }
}

impl std::str::FromStr for ProfileKind {
    type Err = StoreError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "parent" => Ok(Self::Parent),
            "child" => Ok(Self::Child),
            other => Err(StoreError::Invalid(format!(
                "profile kind must be parent or child, not {other:?}"
            ))),
        }
    }
}

/// A profile as the rest of the app sees it; the PIN hash never leaves this module.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Profile {
    pub id: String,
    pub kind: ProfileKind,
    pub name: String,
    pub grade: Option<u8>,
    pub locale: String,
    pub time_zone: String,
    pub has_pin: bool,
    pub created_at: String,
    pub updated_at: String,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
pub struct NewProfile {
    pub kind: Option<ProfileKind>,
    pub name: String,
    pub grade: Option<u8>,
    pub locale: Option<String>,
    pub time_zone: Option<String>,
    pub pin: Option<String>,
}

pub struct Profiles<'s> {
    store: &'s Store,
}

const COLUMNS: &str =
    "id, kind, name, grade, locale, time_zone, pin_hash IS NOT NULL, created_at, updated_at";

fn from_row(row: &Row<'_>) -> rusqlite::Result<Profile> {
    let kind: String = row.get(1)?;
    Ok(Profile {
        id: row.get(0)?,
        kind: if kind == "parent" {
            ProfileKind::Parent
        } else {
            ProfileKind::Child
        },
        name: row.get(2)?,
        grade: row.get(3)?,
        locale: row.get(4)?,
        time_zone: row.get(5)?,
        has_pin: row.get(6)?,
        created_at: row.get(7)?,
        updated_at: row.get(8)?,
    })
}

/// The form of a name the profiles' unique key compares: trimmed, lower
/// case ("小明", " 小明 " and so on are one name).
pub fn name_key(name: &str) -> String {
    name.trim().to_lowercase()
}

fn validate_pin(pin: &str) -> StoreResult<()> {
    if (4..=8).contains(&pin.chars().count()) && pin.chars().all(|c| c.is_ascii_digit()) {
        Ok(())
    } else {
        Err(StoreError::Invalid("a PIN is 4 to 8 digits".into()))
    }
}

fn hash_pin(pin: &str) -> StoreResult<String> {
    let salt = SaltString::generate(&mut OsRng);
    Argon2::default()
        .hash_password(pin.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| StoreError::Invalid(format!("could not hash the PIN: {e}")))
}

/// A checked profile ready to insert.
struct ProfileRow {
    id: String,
    kind: ProfileKind,
    name: String,
    grade: Option<u8>,
    locale: String,
    time_zone: String,
    pin_hash: Option<String>,
}

/// A profile's name, trimmed: not empty, at most [`NAME_MAX_CHARS`].
fn checked_name(name: &str) -> StoreResult<String> {
    let name = name.trim().to_string();
    if name.is_empty() {
        return Err(StoreError::Invalid("a profile needs a name".into()));
    }
    if name.chars().count() > NAME_MAX_CHARS {
        return Err(StoreError::Invalid(format!(
            "a name is at most {NAME_MAX_CHARS} characters"
        )));
    }
    Ok(name)
}

fn prepare(new: NewProfile) -> StoreResult<ProfileRow> {
    let kind = new.kind.unwrap_or(ProfileKind::Child);
    let name = checked_name(&new.name)?;
    if let Some(g) = new.grade {
        if !(1..=12).contains(&g) {
            return Err(StoreError::Invalid("grade must be between 1 and 12".into()));
        }
    }
    let time_zone = new.time_zone.unwrap_or_else(|| "Asia/Shanghai".into());
    if time_zone.parse::<chrono_tz::Tz>().is_err() {
        return Err(StoreError::Invalid(format!(
            "unknown time zone {time_zone:?} (use a name like Asia/Shanghai)"
        )));
    }
    let locale = new.locale.unwrap_or_else(|| "zh-CN".into());
    if !matches!(locale.as_str(), "zh-CN" | "en") {
        return Err(StoreError::Invalid(format!(
            "locale must be zh-CN or en, not {locale:?}"
        )));
    }
    let pin_hash = match (kind, new.pin.as_deref()) {
        (ProfileKind::Parent, Some(pin)) => {
            validate_pin(pin)?;
            Some(hash_pin(pin)?)
        }
        (ProfileKind::Parent, None) => {
            return Err(StoreError::Invalid(
                "a parent profile needs a PIN (4 to 8 digits)".into(),
            ))
        }
        (ProfileKind::Child, Some(_)) => {
            return Err(StoreError::Invalid(
                "only parent profiles have a PIN".into(),
            ))
        }
        (ProfileKind::Child, None) => None,
    };
    Ok(ProfileRow {
        id: uuid::Uuid::now_v7().to_string(),
        kind,
        name,
        grade: new.grade,
        locale,
        time_zone,
        pin_hash,
    })
}

impl<'s> Profiles<'s> {
    pub(crate) fn new(store: &'s Store) -> Self {
        Self { store }
    }

    /// Creates a profile after checking its fields; names are unique
    /// regardless of case and surrounding spaces.
    pub fn add(&self, new: NewProfile) -> StoreResult<Profile> {
        let mut created = self.add_all(vec![new])?;
        created
            .pop()
            .ok_or_else(|| StoreError::Invalid("no profile was created".into()))
    }

    /// Creates several profiles in one transaction: all of them or none
    /// (first-run setup creates a parent and a child together).
    pub fn add_all(&self, new: Vec<NewProfile>) -> StoreResult<Vec<Profile>> {
        let rows = new
            .into_iter()
            .map(prepare)
            .collect::<StoreResult<Vec<_>>>()?;
        let now = now_utc();
        self.store.with_conn(|c| {
            let tx = c.transaction()?;
            for r in &rows {
                let res = tx.execute(
                    "INSERT INTO profiles (id, kind, name, name_key, grade, locale, time_zone, pin_hash, created_at, updated_at)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9)",
                    params![r.id, r.kind.as_str(), r.name, name_key(&r.name), r.grade, r.locale, r.time_zone, r.pin_hash, now],
                );
                match res {
                    Err(rusqlite::Error::SqliteFailure(f, _)) if f.code == rusqlite::ErrorCode::ConstraintViolation => {
                        return Err(StoreError::NameTaken { name: r.name.clone() })
                    }
                    other => other.map(|_| ())?,
                }
            }
            tx.commit()?;
            Ok(())
        })?;
        rows.iter().map(|r| self.get(&r.id)).collect()
    }

    /// Gives a profile a new name (unique as in [`Profiles::add`]).
    pub fn rename(&self, id: &str, name: &str) -> StoreResult<Profile> {
        let name = checked_name(name)?;
        let changed = self.store.with_conn(|c| {
            match c.execute(
                "UPDATE profiles SET name = ?2, name_key = ?3, updated_at = ?4 WHERE id = ?1",
                params![id, name, name_key(&name), now_utc()],
            ) {
                Err(rusqlite::Error::SqliteFailure(f, _))
                    if f.code == rusqlite::ErrorCode::ConstraintViolation =>
                {
                    Err(StoreError::NameTaken { name: name.clone() })
                }
                other => Ok(other?),
            }
        })?;
        if changed == 0 {
            return Err(StoreError::NotFound(format!("profile {id}")));
        }
        self.get(id)
    }

    pub fn get(&self, id: &str) -> StoreResult<Profile> {
        self.store.with_conn(|c| {
            c.query_row(
                &format!("SELECT {COLUMNS} FROM profiles WHERE id = ?1"),
                [id],
                from_row,
            )
            .optional()?
            .ok_or_else(|| StoreError::NotFound(format!("profile {id}")))
        })
    }

    /// All profiles, parents first, then by name.
    pub fn list(&self) -> StoreResult<Vec<Profile>> {
        self.store.with_conn(|c| {
            let mut stmt = c.prepare(&format!(
                "SELECT {COLUMNS} FROM profiles ORDER BY kind = 'child', name_key"
            ))?;
            let rows = stmt
                .query_map([], from_row)?
                .collect::<Result<Vec<_>, _>>()?;
            Ok(rows)
        })
    }

    /// Checks a parent's PIN. After [`PIN_MAX_TRIES`] wrong tries the parent
    /// area locks for a few minutes; the count survives restarts.
    ///
    /// Reading the count, checking the hash and writing the new count happen in
    /// one `BEGIN IMMEDIATE` transaction: it takes SQLite's write lock before the
    /// read, so checks made at the same time (two threads, or the window and the
    /// CLI on one database) run one after the other and every wrong PIN counts.
    /// The price is that the connection is held for one argon2 check (tens of
    /// milliseconds), which is fine for something a person types.
    pub fn verify_pin(&self, id: &str, pin: &str, now: DateTime<Utc>) -> StoreResult<()> {
        self.store.with_conn(|c| {
            let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let (hash, tries, locked_until): (Option<String>, u32, Option<String>) = tx
                .query_row(
                    "SELECT pin_hash, failed_pin_tries, locked_until FROM profiles WHERE id = ?1",
                    [id],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
                )
                .optional()?
                .ok_or_else(|| StoreError::NotFound(format!("profile {id}")))?;
            let hash = hash.ok_or_else(|| StoreError::Invalid("this profile has no PIN".into()))?;
            if let Some(until) = locked_until
                .as_deref()
                .and_then(|s| DateTime::parse_from_rfc3339(s).ok())
            {
                if now < until {
                    // Nothing to write: dropping the transaction rolls it back.
                    let until = until
                        .with_timezone(&Utc)
                        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
                    return Err(StoreError::PinLocked { until });
                }
            }
            let parsed = PasswordHash::new(&hash)
                .map_err(|e| StoreError::Invalid(format!("stored PIN hash is damaged: {e}")))?;
            let outcome = if Argon2::default()
                .verify_password(pin.as_bytes(), &parsed)
                .is_ok()
            {
                tx.execute(
                    "UPDATE profiles SET failed_pin_tries = 0, locked_until = NULL WHERE id = ?1",
                    [id],
                )?;
                Ok(())
            } else if tries + 1 >= PIN_MAX_TRIES {
                let until = (now + Duration::minutes(PIN_LOCK_MINUTES))
                    .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
                tx.execute(
                    "UPDATE profiles SET failed_pin_tries = 0, locked_until = ?2 WHERE id = ?1",
                    params![id, until],
                )?;
                Err(StoreError::PinLocked { until })
            } else {
                tx.execute(
                    "UPDATE profiles SET failed_pin_tries = ?2 WHERE id = ?1",
                    params![id, tries + 1],
                )?;
                Err(StoreError::WrongPin {
                    tries_left: PIN_MAX_TRIES - (tries + 1),
                })
            };
            tx.commit()?;
            outcome
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parent(name: &str) -> NewProfile {
        NewProfile {
            kind: Some(ProfileKind::Parent),
            name: name.into(),
            pin: Some("2468".into()),
            ..Default::default()
        }
    }

    #[test]
    fn add_and_list() {
        let s = Store::open_in_memory().unwrap();
        let p = s.profiles().add(parent("Mum")).unwrap();
        assert!(p.has_pin);
        let c = s
            .profiles()
            .add(NewProfile {
                name: "Xiaoming".into(),
                grade: Some(2),
                ..Default::default()
            })
            .unwrap();
        assert_eq!(c.kind, ProfileKind::Child);
        let all = s.profiles().list().unwrap();
        assert_eq!(
            all.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(),
            ["Mum", "Xiaoming"]
        );
    }

    #[test]
    fn a_rename_is_trimmed_unique_and_needs_the_profile() {
        let s = Store::open_in_memory().unwrap();
        let mum = s.profiles().add(parent("Mum")).unwrap();
        let kid = s
            .profiles()
            .add(NewProfile {
                name: "Lily".into(),
                ..Default::default()
            })
            .unwrap();
        let renamed = s.profiles().rename(&kid.id, "  Lili ").unwrap();
        assert_eq!(renamed.name, "Lili");
        assert_eq!(s.profiles().get(&kid.id).unwrap().name, "Lili");
        let err = s.profiles().rename(&kid.id, "mum").unwrap_err();
        assert_eq!(err.code(), "profile.name_taken", "{err}");
        assert!(matches!(
            s.profiles().rename(&kid.id, "   "),
            Err(StoreError::Invalid(_))
        ));
        assert!(matches!(
            s.profiles().rename("no-such-id", "Momo"),
            Err(StoreError::NotFound(_))
        ));
        // Nothing else changed: the parent keeps its name and PIN.
        let still = s.profiles().get(&mum.id).unwrap();
        assert_eq!((still.name.as_str(), still.has_pin), ("Mum", true));
        assert_eq!(s.profiles().get(&kid.id).unwrap().name, "Lili");
    }

    #[test]
    fn duplicate_names_are_refused_case_insensitively() {
        let s = Store::open_in_memory().unwrap();
        s.profiles()
            .add(NewProfile {
                name: "Lily".into(),
                ..Default::default()
            })
            .unwrap();
        let err = s
            .profiles()
            .add(NewProfile {
                name: " lily ".into(),
                ..Default::default()
            })
            .unwrap_err();
        assert!(
            matches!(&err, StoreError::NameTaken { name } if name == "lily"),
            "{err}"
        );
        assert_eq!(err.code(), "profile.name_taken");
        assert_eq!(s.profiles().list().unwrap().len(), 1);
    }

    #[test]
    fn bad_fields_are_refused() {
        let s = Store::open_in_memory().unwrap();
        for bad in [
            NewProfile {
                name: "  ".into(),
                ..Default::default()
            },
            NewProfile {
                name: "A".into(),
                grade: Some(0),
                ..Default::default()
            },
            NewProfile {
                name: "B".into(),
                time_zone: Some("Mars/Base".into()),
                ..Default::default()
            },
            NewProfile {
                name: "C".into(),
                pin: Some("1234".into()),
                ..Default::default()
            },
            NewProfile {
                kind: Some(ProfileKind::Parent),
                name: "D".into(),
                ..Default::default()
            },
            NewProfile {
                kind: Some(ProfileKind::Parent),
                name: "E".into(),
                pin: Some("12a4".into()),
                ..Default::default()
            },
        ] {
            assert!(matches!(
                s.profiles().add(bad).unwrap_err(),
                StoreError::Invalid(_)
            ));
        }
        assert!(s.profiles().list().unwrap().is_empty());
    }

    #[test]
    fn add_all_is_all_or_nothing() {
        let s = Store::open_in_memory().unwrap();
        let err = s
            .profiles()
            .add_all(vec![
                parent("Mum"),
                NewProfile {
                    name: "mum".into(),
                    ..Default::default()
                },
            ])
            .unwrap_err();
        assert!(matches!(err, StoreError::NameTaken { .. }));
        assert!(s.profiles().list().unwrap().is_empty());
    }

    #[test]
    fn pin_is_hashed_not_stored() {
        let s = Store::open_in_memory().unwrap();
        let p = s.profiles().add(parent("Dad")).unwrap();
        let hash: String = s
            .with_conn(|c| {
                Ok(
                    c.query_row("SELECT pin_hash FROM profiles WHERE id=?1", [&p.id], |r| {
                        r.get(0)
                    })?,
                )
            })
            .unwrap();
        assert!(hash.starts_with("$argon2id$"), "{hash}");
        assert!(!hash.contains("2468"));
    }

    #[test]
    fn wrong_pins_lock_after_five_tries_and_unlock_later() {
        let s = Store::open_in_memory().unwrap();
        let p = s.profiles().add(parent("Dad")).unwrap();
        let t0 = Utc::now();
        s.profiles().verify_pin(&p.id, "2468", t0).unwrap();
        for left in (1..PIN_MAX_TRIES).rev() {
            match s.profiles().verify_pin(&p.id, "0000", t0).unwrap_err() {
                StoreError::WrongPin { tries_left } => assert_eq!(tries_left, left),
                e => panic!("unexpected {e}"),
            }
        }
        assert!(matches!(
            s.profiles().verify_pin(&p.id, "0000", t0).unwrap_err(),
            StoreError::PinLocked { .. }
        ));
        // Even the right PIN is refused while locked.
        assert!(matches!(
            s.profiles().verify_pin(&p.id, "2468", t0).unwrap_err(),
            StoreError::PinLocked { .. }
        ));
        s.profiles()
            .verify_pin(&p.id, "2468", t0 + Duration::minutes(6))
            .unwrap();
    }
}
