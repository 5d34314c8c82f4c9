//! Where Deskmate keeps its files and how that is chosen:
//! `--data-dir` beats `DESKMATE_DATA_DIR`, which beats the platform's
//! standard data directory (e.g. `~/.local/share/deskmate` on Linux).

use std::path::{Path, PathBuf};

use crate::AppError;

/// Environment variable that overrides the data directory.
pub const DATA_DIR_ENV: &str = "DESKMATE_DATA_DIR";
/// Environment variable that overrides where model files are looked for.
pub const MODELS_DIR_ENV: &str = "DESKMATE_MODELS_DIR";

#[derive(Debug, Clone)]
pub struct Config {
    /// Holds the database and the user's files.
    pub data_dir: PathBuf,
    /// Holds model weights and runtime libraries (whisper, VAD, ONNX Runtime).
    pub models_dir: PathBuf,
}

impl Config {
    /// Resolves the configuration from an explicit flag and the environment.
    pub fn resolve(data_dir_flag: Option<PathBuf>) -> Result<Self, AppError> {
        let data_dir = match data_dir_flag.or_else(|| std::env::var_os(DATA_DIR_ENV).map(PathBuf::from)) {
            Some(d) => d,
            None => dirs::data_dir()
                .map(|d| d.join("deskmate"))
                .ok_or_else(|| AppError::Config(format!("no standard data directory on this system; set {DATA_DIR_ENV} or pass --data-dir")))?,
        };
        let models_dir = std::env::var_os(MODELS_DIR_ENV)
            .map(PathBuf::from)
            .unwrap_or_else(|| data_dir.join("models"));
        Ok(Self {
            data_dir,
            models_dir,
        })
    }

    /// A configuration rooted in one directory (tests, portable installs).
    pub fn in_dir(dir: &Path) -> Self {
        Self {
            data_dir: dir.to_path_buf(),
            models_dir: dir.join("models"),
        }
    }

    pub fn database_path(&self) -> PathBuf {
        self.data_dir.join("deskmate.sqlite3")
    }
}

/// Creates the data directory if needed and proves it is writable, so a
/// read-only location is reported in plain words before SQLite is touched.
pub(crate) fn ensure_writable(dir: &Path) -> Result<(), AppError> {
    std::fs::create_dir_all(dir).map_err(|e| AppError::DataDir {
        path: dir.to_path_buf(),
        reason: e.to_string(),
    })?;
    let probe = dir.join(".deskmate-write-check");
    std::fs::write(&probe, b"ok").map_err(|e| AppError::DataDir {
        path: dir.to_path_buf(),
        reason: format!(
            "it is not writable ({e}); fix its permissions or pick another with --data-dir"
        ),
    })?;
    // Leaving the probe behind is harmless; failing to remove it is not an error.
    let _ = std::fs::remove_file(&probe);
    Ok(())
}
