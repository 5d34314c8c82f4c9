//! Shared test setup: where the models and the dev clips are. Tests that
//! need them fail with the fix in the message instead of passing silently.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![allow(dead_code)] // each test binary uses part of this

use std::path::PathBuf;

use deskmate_speech::ModelPaths;

/// The speech models, from DESKMATE_MODELS_DIR or <repo>/models.
pub fn models() -> ModelPaths {
    let dir = ModelPaths::dev_dir();
    match ModelPaths::present_in(&dir) {
        Ok(p) => p,
        Err(e) => panic!("{e} (looked in {})", dir.display()),
    }
}

/// The synthetic dev clips: DESKMATE_DEV_CLIPS or <repo>/../shared/recite-audio-dev.
pub fn dev_clips_dir() -> PathBuf {
    let dir = std::env::var_os("DESKMATE_DEV_CLIPS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/recite-audio-dev")
        });
    assert!(
        dir.join("manifest.jsonl").is_file(),
        "dev clips missing: {} has no manifest.jsonl (set DESKMATE_DEV_CLIPS)",
        dir.display()
    );
    dir
}

/// The same clips made harder (child-like pitch, tempo, noise, echo):
/// DESKMATE_DEV_CLIPS_HARD or <repo>/../shared/recite-audio-dev-hard.
pub fn hard_clips_dir() -> PathBuf {
    let dir = std::env::var_os("DESKMATE_DEV_CLIPS_HARD")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/recite-audio-dev-hard")
        });
    assert!(
        dir.join("manifest.jsonl").is_file(),
        "hard dev clips missing: {} has no manifest.jsonl (set DESKMATE_DEV_CLIPS_HARD)",
        dir.display()
    );
    dir
}

pub fn dev_clip(name: &str) -> PathBuf {
    dev_clips_dir().join(name)
}

/// How many characters of `expected` appear, in order, in `heard` (LCS length).
pub fn chars_in_common(heard: &str, expected: &str) -> usize {
    let a: Vec<char> = heard.chars().collect();
    let b: Vec<char> = expected.chars().collect();
    let mut row = vec![0usize; b.len() + 1];
    for x in &a {
        let mut prev = 0;
        for (j, y) in b.iter().enumerate() {
            let tmp = row[j + 1];
            row[j + 1] = if x == y {
                prev + 1
            } else {
                row[j + 1].max(row[j])
            };
            prev = tmp;
        }
    }
    row[b.len()]
}
