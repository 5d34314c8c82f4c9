//! The family on this device: first-run setup (a parent with a PIN and a
//! first child, created together) and unlocking the parent area.

use deskmate_store::{NewProfile, Profile, ProfileKind, StoreError};

use crate::{AppError, AppResult, Deskmate};

impl Deskmate {
    /// True until a parent exists: the UI then shows first-run setup.
    pub fn is_first_run(&self) -> AppResult<bool> {
        Ok(!self
            .store()
            .profiles()
            .list()?
            .iter()
            .any(|p| p.kind == ProfileKind::Parent))
    }

    /// First-run setup: one parent (with PIN) and one child, all or nothing.
    pub fn setup_family(&self, parent: NewProfile, child: NewProfile) -> AppResult<Vec<Profile>> {
        if !self.is_first_run()? {
            return Err(AppError::Store(StoreError::Conflict(
                "this device is already set up; add more people from the parent area".into(),
            )));
        }
        let parent = NewProfile {
            kind: Some(ProfileKind::Parent),
            ..parent
        };
        let child = NewProfile {
            kind: Some(ProfileKind::Child),
            ..child
        };
        Ok(self.store().profiles().add_all(vec![parent, child])?)
    }

    /// Checks a parent's PIN (rate-limited in the store).
    pub fn unlock_parent(&self, profile_id: &str, pin: &str) -> AppResult<()> {
        let p = self.store().profiles().get(profile_id)?;
        if p.kind != ProfileKind::Parent {
            return Err(AppError::Store(StoreError::Invalid(
                "only a parent profile can open the parent area".into(),
            )));
        }
        Ok(self
            .store()
            .profiles()
            .verify_pin(profile_id, pin, chrono::Utc::now())?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Config;

    #[test]
    fn setup_once_then_unlock() {
        let dir = tempfile::tempdir().unwrap();
        let app = Deskmate::open(Config::in_dir(dir.path())).unwrap();
        assert!(app.is_first_run().unwrap());
        let parent = NewProfile {
            name: "妈妈".into(),
            pin: Some("1357".into()),
            ..Default::default()
        };
        let child = NewProfile {
            name: "小明".into(),
            grade: Some(2),
            ..Default::default()
        };
        let made = app.setup_family(parent.clone(), child.clone()).unwrap();
        assert_eq!(made.len(), 2);
        assert!(!app.is_first_run().unwrap());
        assert!(app.setup_family(parent, child).is_err());
        app.unlock_parent(&made[0].id, "1357").unwrap();
        assert!(app
            .unlock_parent(&made[0].id, "0000")
            .unwrap_err()
            .to_string()
            .contains("wrong PIN"));
        assert!(app.unlock_parent(&made[1].id, "1357").is_err());
    }
}
