//! What the speech benches share: the models, the dev sets as the knobs
//! pick them (`BENCH_SETS=dev|hard`, `BENCH_LANG=zh|en`, `BENCH_STEP=N`,
//! `BENCH_LIMIT=N`; the folders from `DESKMATE_DEV_CLIPS` and
//! `DESKMATE_DEV_CLIPS_HARD` or `../shared`), and percentiles.

#![allow(dead_code)] // each bench uses part of this

use std::path::PathBuf;

use deskmate_speech::evaluation::{read_manifest, DevClip};
use deskmate_speech::ModelPaths;

/// The speech models, or the process ends saying what is missing.
pub fn models() -> ModelPaths {
    ModelPaths::present_in(&ModelPaths::dev_dir()).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1)
    })
}

/// A number from the environment.
pub fn env_num(name: &str) -> Option<usize> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

/// The dev sets the knobs pick: (label, folder, clips).
pub fn sets() -> Vec<(String, PathBuf, Vec<DevClip>)> {
    let only = std::env::var("BENCH_SETS").unwrap_or_default();
    let mut sets = Vec::new();
    for label in ["dev", "hard"] {
        if !only.is_empty() && !only.split(',').any(|s| s == label) {
            continue;
        }
        let dir = if label == "dev" {
            deskmate_testkit::clips::dev_clips_dir()
        } else {
            deskmate_testkit::clips::hard_clips_dir()
        };
        let mut clips = read_manifest(&dir).unwrap_or_else(|e| {
            eprintln!("{label} clips: {e}");
            std::process::exit(1)
        });
        if let Ok(lang) = std::env::var("BENCH_LANG") {
            clips.retain(|c| c.lang == lang);
        }
        if let Some(step) = env_num("BENCH_STEP") {
            clips = clips.into_iter().step_by(step.max(1)).collect();
        }
        if let Some(n) = env_num("BENCH_LIMIT") {
            clips.truncate(n);
        }
        sets.push((label.to_string(), dir, clips));
    }
    sets
}

/// The `p` percentile (0–1) of `v`, 0 when empty.
pub fn percentile(mut v: Vec<u64>, p: f64) -> u64 {
    if v.is_empty() {
        return 0;
    }
    v.sort_unstable();
    v[((v.len() - 1) as f64 * p).round() as usize]
}
