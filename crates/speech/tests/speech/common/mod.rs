//! Shared test setup: where the models and the dev clips are. Tests that
//! need them fail with the fix in the message instead of passing silently.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![allow(dead_code)] // each test binary uses part of this

use deskmate_speech::ModelPaths;

/// The speech models, from DESKMATE_MODELS_DIR or <repo>/models.
pub fn models() -> ModelPaths {
    let dir = ModelPaths::dev_dir();
    match ModelPaths::present_in(&dir) {
        Ok(p) => p,
        Err(e) => panic!("{e} (looked in {})", dir.display()),
    }
}

// The dev clips' places, shared with the other crates' tests; each test
// binary uses some of them.
#[allow(unused_imports)]
pub use deskmate_testkit::clips::{dev_clip, dev_clips_dir, hard_clips_dir};

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
