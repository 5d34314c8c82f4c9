//! Photos of homework handed over as bytes (the window's camera button, the
//! HTTP API): decoded from base64, written to `inbox/` in the data directory,
//! passed to [`Deskmate::process_photos`] — which checks each file by its
//! bytes and size and refuses with a coded error — and removed again
//! whatever the outcome: the entry keeps what it needs, never the photo
//! files. Every front end calls the same function, so a photo is read and
//! refused alike wherever it came from.

use std::path::{Path, PathBuf};

use base64::Engine;
use deskmate_orchestrator::homework::photo::PhotoError;
use deskmate_orchestrator::SceneError;
use serde::{Deserialize, Serialize};

use crate::{AppError, AppResult, Deskmate};

/// One photo as a front end sends it: the file's name (for the child's
/// sake only; the kind is told by the bytes) and its bytes in base64.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PhotoUpload {
    pub name: String,
    pub data: String,
}

impl Deskmate {
    /// Photos sent as base64 (with any words typed along) through the one
    /// entry; a photo whose base64 cannot be decoded is
    /// `homework.photo_unreadable`, nothing written.
    pub fn process_photo_uploads(
        &self,
        profile_id: &str,
        photos: &[PhotoUpload],
        text: &str,
    ) -> AppResult<deskmate_orchestrator::entry::Response> {
        let mut bytes = Vec::with_capacity(photos.len());
        for p in photos {
            let b = base64::engine::general_purpose::STANDARD
                .decode(p.data.as_bytes())
                .map_err(|e| {
                    AppError::Scene(SceneError::Photo(PhotoError::Unreadable {
                        path: p.name.clone(),
                        reason: e.to_string(),
                    }))
                })?;
            bytes.push(b);
        }
        self.process_photo_bytes(profile_id, &bytes, text)
    }

    /// Photos as bytes through the one entry: written to `inbox/`, checked
    /// and sent on by [`Deskmate::process_photos`], removed afterwards.
    pub fn process_photo_bytes(
        &self,
        profile_id: &str,
        photos: &[Vec<u8>],
        text: &str,
    ) -> AppResult<deskmate_orchestrator::entry::Response> {
        let inbox = self.config().data_dir.join("inbox");
        let paths = write_photos(&inbox, photos).map_err(|e| AppError::DataDir {
            path: inbox.clone(),
            reason: e.to_string(),
        })?;
        let result = self.process_photos(profile_id, &paths, text);
        for p in &paths {
            if let Err(e) = std::fs::remove_file(p) {
                tracing::warn!("cannot remove the photo {}: {e}", p.display());
            }
        }
        result
    }
}

/// Writes each photo to a file of its own under `inbox`, named by the
/// moment, the process and its place, so two front ends' photos never meet.
fn write_photos(inbox: &Path, photos: &[Vec<u8>]) -> std::io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(inbox)?;
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    let pid = std::process::id();
    let mut paths = Vec::with_capacity(photos.len());
    for (i, bytes) in photos.iter().enumerate() {
        let path = inbox.join(format!("photo-{stamp}-{pid}-{}", i + 1));
        if let Err(e) = std::fs::write(&path, bytes) {
            for p in &paths {
                let _ = std::fs::remove_file(p);
            }
            return Err(e);
        }
        paths.push(path);
    }
    Ok(paths)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn photos_are_written_apart_and_a_failed_write_leaves_none() {
        let dir = tempfile::tempdir().unwrap();
        let inbox = dir.path().join("inbox");
        let paths = write_photos(&inbox, &[vec![1, 2], vec![3]]).unwrap();
        assert_eq!(paths.len(), 2);
        assert_ne!(paths[0], paths[1]);
        assert_eq!(std::fs::read(&paths[1]).unwrap(), vec![3]);
        // An inbox that is a file cannot take photos: an error, nothing left.
        let blocked = dir.path().join("blocked");
        std::fs::write(&blocked, b"x").unwrap();
        assert!(write_photos(&blocked, &[vec![1]]).is_err());
    }
}
