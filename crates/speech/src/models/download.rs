//! Resumable HTTPS download of a single model file with progress and digest
//! checks: the route end users' machines take for the official ggml files.
//! A partial download is kept as `<file>.partial` and continued with an HTTP
//! `Range` request; the finished file is checked before it is renamed into
//! place, and a file that fails the check is deleted.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;
use sha1::Sha1;
use sha2::{Digest, Sha256};

use super::{DownloadEntry, ModelError};

/// Download progress, for the UI.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct DownloadProgress {
    pub done_bytes: u64,
    /// Unknown when the server sends no length.
    pub total_bytes: Option<u64>,
    /// Bytes that were already there from an interrupted download.
    pub resumed_from: u64,
}

fn digests(path: &Path) -> std::io::Result<(String, String)> {
    let mut file = File::open(path)?;
    let (mut s1, mut s256) = (Sha1::new(), Sha256::new());
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        s1.update(&buf[..n]);
        s256.update(&buf[..n]);
    }
    Ok((hex::encode(s1.finalize()), hex::encode(s256.finalize())))
}

/// Whether `path` matches the entry's published digests.
fn check(entry: &DownloadEntry, path: &Path) -> Result<(), ModelError> {
    let (sha1, sha256) = digests(path)?;
    if entry.sha1.is_none() && entry.sha256.is_none() {
        return Err(ModelError::Manifest(format!(
            "download {} has no sha1 or sha256 to check",
            entry.name
        )));
    }
    if let Some(want) = &entry.sha256 {
        if !want.eq_ignore_ascii_case(&sha256) {
            return Err(ModelError::Checksum {
                path: path.to_path_buf(),
                actual: sha256,
                expected: want.clone(),
            });
        }
    }
    if let Some(want) = &entry.sha1 {
        if !want.eq_ignore_ascii_case(&sha1) {
            return Err(ModelError::Checksum {
                path: path.to_path_buf(),
                actual: format!("sha1 {sha1}"),
                expected: format!("sha1 {want}"),
            });
        }
    }
    Ok(())
}

/// Downloads `entry` into `models_dir`, resuming a partial file, and returns
/// the final path. A file already in place with the right digest is kept.
pub fn download(
    entry: &DownloadEntry,
    models_dir: &Path,
    progress: &mut dyn FnMut(DownloadProgress),
) -> Result<PathBuf, ModelError> {
    let dest = models_dir.join(&entry.path);
    if dest.is_file() && check(entry, &dest).is_ok() {
        return Ok(dest);
    }
    if let Some(parent) = dest.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let partial = PathBuf::from(format!("{}.partial", dest.display()));
    let have = std::fs::metadata(&partial).map(|m| m.len()).unwrap_or(0);
    let client = reqwest::blocking::Client::builder()
        .timeout(None)
        .connect_timeout(std::time::Duration::from_secs(20))
        .build()
        .map_err(|e| ModelError::Download(e.to_string()))?;
    let mut request = client.get(&entry.url);
    if have > 0 {
        request = request.header(reqwest::header::RANGE, format!("bytes={have}-"));
    }
    let mut response = request
        .send()
        .map_err(|e| ModelError::Download(format!("{}: {e}", entry.url)))?;
    let status = response.status();
    let (mut file, start) = if status == reqwest::StatusCode::PARTIAL_CONTENT && have > 0 {
        (OpenOptions::new().append(true).open(&partial)?, have)
    } else if status == reqwest::StatusCode::RANGE_NOT_SATISFIABLE && have > 0 {
        // The partial file is already complete.
        return finish(entry, &partial, &dest);
    } else if status.is_success() {
        (File::create(&partial)?, 0)
    } else {
        return Err(ModelError::Download(format!(
            "{} answered {status}",
            entry.url
        )));
    };
    let total = response.content_length().map(|n| n + start);
    let mut done = start;
    progress(DownloadProgress {
        done_bytes: done,
        total_bytes: total,
        resumed_from: start,
    });
    let mut buf = vec![0u8; 256 * 1024];
    let mut last_report = done;
    loop {
        let n = response.read(&mut buf).map_err(|e| {
            ModelError::Download(format!(
                "{} broke off after {done} bytes ({e}); run again to resume",
                entry.url
            ))
        })?;
        if n == 0 {
            break;
        }
        file.write_all(&buf[..n])?;
        done += n as u64;
        if done - last_report >= 1 << 20 {
            progress(DownloadProgress {
                done_bytes: done,
                total_bytes: total,
                resumed_from: start,
            });
            last_report = done;
        }
    }
    file.flush()?;
    drop(file);
    progress(DownloadProgress {
        done_bytes: done,
        total_bytes: total,
        resumed_from: start,
    });
    if let Some(t) = total {
        if done < t {
            return Err(ModelError::Download(format!(
                "{} ended after {done} of {t} bytes; run again to resume",
                entry.url
            )));
        }
    }
    finish(entry, &partial, &dest)
}

fn finish(entry: &DownloadEntry, partial: &Path, dest: &Path) -> Result<PathBuf, ModelError> {
    if let Err(e) = check(entry, partial) {
        // A wrong file must not be resumed from next time.
        let _ = std::fs::remove_file(partial);
        return Err(e);
    }
    std::fs::rename(partial, dest)?;
    Ok(dest.to_path_buf())
}
