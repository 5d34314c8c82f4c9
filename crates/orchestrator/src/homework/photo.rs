//! Photos of homework, read and checked before anything else happens: a
//! file that cannot be read, is not a PNG, JPEG, GIF or WebP image (by its
//! first bytes, not its name), is empty or larger than [`MAX_PHOTO_BYTES`]
//! is refused with a coded [`PhotoError`], and nothing is stored.

use std::io::Read;
use std::path::{Path, PathBuf};

use base64::Engine;

/// The largest photo taken (a phone's full-size JPEG is 2–6 MB).
pub const MAX_PHOTO_BYTES: u64 = 10 * 1024 * 1024;
/// The most photos checked at once.
pub const MAX_PHOTOS: usize = 4;

/// A photo read from disk: its bytes and their media type.
#[derive(Clone, PartialEq, Eq)]
pub struct Photo {
    pub path: PathBuf,
    pub media_type: &'static str,
    pub bytes: Vec<u8>,
}

impl std::fmt::Debug for Photo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Photo")
            .field("path", &self.path)
            .field("media_type", &self.media_type)
            .field("bytes", &self.bytes.len())
            .finish()
    }
}

/// Why a photo cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PhotoError {
    #[error("the photo {path} cannot be read ({reason})")]
    Unreadable { path: String, reason: String },
    #[error("{path} is not a photo Deskmate can read (PNG, JPEG, GIF or WebP)")]
    NotAnImage { path: String },
    #[error("the photo {path} is too large ({bytes} bytes; at most {MAX_PHOTO_BYTES})")]
    TooLarge { path: String, bytes: u64 },
    #[error("{count} photos at once is too many (at most {MAX_PHOTOS})")]
    TooMany { count: usize },
}

impl PhotoError {
    pub const CODES: &'static [&'static str] = &[
        "homework.photo_unreadable",
        "homework.not_an_image",
        "homework.photo_too_large",
        "homework.too_many_photos",
    ];

    pub fn code(&self) -> &'static str {
        match self {
            Self::Unreadable { .. } => "homework.photo_unreadable",
            Self::NotAnImage { .. } => "homework.not_an_image",
            Self::TooLarge { .. } => "homework.photo_too_large",
            Self::TooMany { .. } => "homework.too_many_photos",
        }
    }
}

/// The media type of an image by its first bytes.
pub fn sniff(bytes: &[u8]) -> Option<&'static str> {
    match bytes {
        [0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a, ..] => Some("image/png"),
        [0xff, 0xd8, 0xff, ..] => Some("image/jpeg"),
        [b'G', b'I', b'F', b'8', ..] => Some("image/gif"),
        [b'R', b'I', b'F', b'F', _, _, _, _, b'W', b'E', b'B', b'P', ..] => Some("image/webp"),
        _ => None,
    }
}

impl Photo {
    /// Reads and checks the photo at `path`.
    pub fn read(path: &Path) -> Result<Self, PhotoError> {
        let shown = path.display().to_string();
        let unreadable = |e: std::io::Error| PhotoError::Unreadable {
            path: shown.clone(),
            reason: e.to_string(),
        };
        let file = std::fs::File::open(path).map_err(unreadable)?;
        let meta = file.metadata().map_err(unreadable)?;
        if !meta.is_file() {
            return Err(PhotoError::Unreadable {
                path: shown,
                reason: "not a file".into(),
            });
        }
        if meta.len() > MAX_PHOTO_BYTES {
            return Err(PhotoError::TooLarge {
                path: shown,
                bytes: meta.len(),
            });
        }
        let mut bytes = Vec::new();
        // One byte past the limit tells a file that grew while read.
        file.take(MAX_PHOTO_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(unreadable)?;
        let len = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
        if len > MAX_PHOTO_BYTES {
            return Err(PhotoError::TooLarge {
                path: shown,
                bytes: len,
            });
        }
        let media_type = sniff(&bytes).ok_or(PhotoError::NotAnImage { path: shown })?;
        Ok(Self {
            path: path.to_path_buf(),
            media_type,
            bytes,
        })
    }

    /// Reads every photo, or fails on the first that cannot be used.
    pub fn read_all(paths: &[PathBuf]) -> Result<Vec<Self>, PhotoError> {
        if paths.len() > MAX_PHOTOS {
            return Err(PhotoError::TooMany { count: paths.len() });
        }
        paths.iter().map(|p| Self::read(p)).collect()
    }

    /// The bytes in base64, as a data URL carries them.
    pub fn base64(&self) -> String {
        base64::engine::general_purpose::STANDARD.encode(&self.bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn photos_are_known_by_their_bytes_and_bad_files_are_refused_with_codes() {
        let dir = tempfile::tempdir().unwrap();
        let png = dir.path().join("sheet.png");
        std::fs::write(&png, deskmate_testkit::photo::png(4, 3)).unwrap();
        let p = Photo::read(&png).unwrap();
        assert_eq!(p.media_type, "image/png");
        assert!(p.base64().starts_with("iVBORw0KGgo"), "{}", p.base64());
        let jpeg = dir.path().join("sheet.txt");
        std::fs::write(&jpeg, [0xff, 0xd8, 0xff, 0xe0, 0, 0x10]).unwrap();
        assert_eq!(Photo::read(&jpeg).unwrap().media_type, "image/jpeg");

        let text = dir.path().join("notes.png");
        std::fs::write(&text, "1+1=2").unwrap();
        let e = Photo::read(&text).unwrap_err();
        assert_eq!(e.code(), "homework.not_an_image");
        let e = Photo::read(&dir.path().join("missing.png")).unwrap_err();
        assert_eq!(e.code(), "homework.photo_unreadable");
        assert!(e.to_string().contains("missing.png"), "{e}");
        let e = Photo::read(dir.path()).unwrap_err();
        assert_eq!(e.code(), "homework.photo_unreadable");
        let big = dir.path().join("big.png");
        let f = std::fs::File::create(&big).unwrap();
        f.set_len(MAX_PHOTO_BYTES + 1).unwrap();
        assert_eq!(
            Photo::read(&big).unwrap_err().code(),
            "homework.photo_too_large"
        );
        let five = vec![png; 5];
        assert_eq!(
            Photo::read_all(&five).unwrap_err().code(),
            "homework.too_many_photos"
        );
        for e in [
            PhotoError::NotAnImage { path: "x".into() },
            PhotoError::TooMany { count: 9 },
        ] {
            assert!(PhotoError::CODES.contains(&e.code()));
        }
    }
}
