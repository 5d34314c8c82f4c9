//! Where the test inputs live: the speech models (`DESKMATE_MODELS_DIR`, or
//! `<repo>/models` where the setup scripts fetch them) and the dev clips
//! (`DESKMATE_DEV_CLIPS`, or `../shared/recite-audio-dev` beside the
//! repository), read in place and never copied into the repository.

use std::path::PathBuf;

/// The repository's root (this crate lives in `crates/testkit`).
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The models directory the tests use.
pub fn models_dir() -> PathBuf {
    std::env::var_os("DESKMATE_MODELS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("models"))
}

/// The dev clips' folder; panics with the fix when it is missing.
pub fn dev_clips_dir() -> PathBuf {
    let dir = std::env::var_os("DESKMATE_DEV_CLIPS")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("../shared/recite-audio-dev"));
    assert!(
        dir.join("manifest.jsonl").is_file(),
        "dev clips missing: {} has no manifest.jsonl (set DESKMATE_DEV_CLIPS)",
        dir.display()
    );
    dir
}

/// The same clips made harder (child-like pitch, tempo, noise, echo):
/// `DESKMATE_DEV_CLIPS_HARD`, or `../shared/recite-audio-dev-hard`; panics
/// with the fix when it is missing.
pub fn hard_clips_dir() -> PathBuf {
    let dir = std::env::var_os("DESKMATE_DEV_CLIPS_HARD")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("../shared/recite-audio-dev-hard"));
    assert!(
        dir.join("manifest.jsonl").is_file(),
        "hard dev clips missing: {} has no manifest.jsonl (set DESKMATE_DEV_CLIPS_HARD)",
        dir.display()
    );
    dir
}

/// One dev clip by file name (e.g. `静夜思-1.wav`); panics when it is missing.
pub fn dev_clip(name: &str) -> PathBuf {
    let clip = dev_clips_dir().join(name);
    assert!(
        clip.is_file(),
        "dev clip missing: {} (set DESKMATE_DEV_CLIPS)",
        clip.display()
    );
    clip
}

/// A dev clip's samples (16-bit PCM WAV, as the dev clips are) as `f32` in
/// [-1, 1], with its sample rate; panics on anything else.
pub fn dev_clip_samples(name: &str) -> (Vec<f32>, u32) {
    let mut reader = hound::WavReader::open(dev_clip(name)).unwrap();
    let spec = reader.spec();
    assert_eq!(
        (spec.channels, spec.bits_per_sample),
        (1, 16),
        "{name}: the dev clips are mono 16-bit"
    );
    let samples = reader
        .samples::<i16>()
        .map(|s| f32::from(s.unwrap()) / 32768.0)
        .collect();
    (samples, spec.sample_rate)
}
