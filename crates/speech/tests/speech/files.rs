//! Audio files in every shape a parent might drop in: 8 kHz stereo, 48 kHz,
//! other formats (FLAC, Ogg Vorbis), silence, empty, not audio, and a
//! ten-minute file — each gives a clear result or a plain-words error.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::path::Path;

use deskmate_speech::asr::Lang;
use deskmate_speech::audio::{file, AudioError};
use deskmate_speech::SpeechPipeline;
use rubato::{FftFixedInOut, Resampler};

const JING_YE_SI: &str = "床前明月光疑是地上霜举头望明月低头思故乡";

fn dev_samples() -> Vec<f32> {
    file::load(&common::dev_clip("静夜思-1.wav"), 60.0)
        .unwrap()
        .samples
}

fn resample(input: &[f32], to: usize) -> Vec<f32> {
    let mut r = FftFixedInOut::<f32>::new(16_000, to, 1024, 1).unwrap();
    let mut out = Vec::new();
    let mut pos = 0;
    while pos < input.len() {
        let need = r.input_frames_next();
        let mut chunk: Vec<f32> = input[pos..(pos + need).min(input.len())].to_vec();
        chunk.resize(need, 0.0);
        out.extend(r.process(&[chunk], None).unwrap().remove(0));
        pos += need;
    }
    out
}

fn write_wav(path: &Path, rate: u32, channels: u16, mono: &[f32]) {
    let spec = hound::WavSpec {
        channels,
        sample_rate: rate,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    };
    let mut w = hound::WavWriter::create(path, spec).unwrap();
    for s in mono {
        for _ in 0..channels {
            w.write_sample((s.clamp(-1.0, 1.0) * 32767.0) as i16)
                .unwrap();
        }
    }
    w.finalize().unwrap();
}

fn pipeline() -> SpeechPipeline {
    SpeechPipeline::from_models_dir(&common::models().dir).unwrap()
}

fn heard_text(p: &SpeechPipeline, path: &Path) -> String {
    p.hear_file(path, Lang::Zh, Some(20))
        .unwrap()
        .transcript
        .expect("speech heard")
        .text
}

#[test]
fn other_rates_and_channel_counts_are_heard_like_the_original() {
    // Whisper runs one test at a time in this binary (both cores each).
    let _turn = deskmate_testkit::process::speech_turn();
    let dir = tempfile::tempdir().unwrap();
    let samples = dev_samples();
    let p = pipeline();
    let narrow = dir.path().join("8k-stereo.wav");
    write_wav(&narrow, 8_000, 2, &resample(&samples, 8_000));
    let wide = dir.path().join("48k.wav");
    write_wav(&wide, 48_000, 1, &resample(&samples, 48_000));
    let loaded = file::load(&narrow, 60.0).unwrap();
    assert_eq!((loaded.source_rate, loaded.source_channels), (8_000, 2));
    assert!(
        (loaded.duration_s() - 6.65).abs() < 0.1,
        "{}",
        loaded.duration_s()
    );
    for path in [&narrow, &wide] {
        let text = heard_text(&p, path);
        let hits = common::chars_in_common(&text, JING_YE_SI);
        // Telephone bandwidth costs whisper a little; most characters must survive.
        assert!(hits >= 13, "{}: heard {text:?} ({hits}/20)", path.display());
    }
}

#[test]
fn compressed_formats_decode_through_symphonia() {
    // Whisper runs one test at a time in this binary (both cores each).
    let _turn = deskmate_testkit::process::speech_turn();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let p = pipeline();
    for name in ["jing-ye-si.flac", "jing-ye-si.ogg"] {
        let path = fixtures.join(name);
        let clip = file::load(&path, 60.0).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            (clip.duration_s() - 6.65).abs() < 0.2,
            "{name}: {} s",
            clip.duration_s()
        );
        let text = heard_text(&p, &path);
        let hits = common::chars_in_common(&text, JING_YE_SI);
        assert!(hits >= 14, "{name}: heard {text:?} ({hits}/20)");
    }
}

#[test]
fn silence_gives_no_speech_rather_than_invented_text() {
    // Whisper runs one test at a time in this binary (both cores each).
    let _turn = deskmate_testkit::process::speech_turn();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("silence.wav");
    write_wav(&path, 16_000, 1, &vec![0.0; 16_000 * 5]);
    let heard = pipeline().hear_file(&path, Lang::Zh, Some(20)).unwrap();
    assert!(heard.transcript.is_none(), "{:?}", heard.transcript);
    assert_eq!(heard.utterances, 0);
    assert_eq!(heard.audio_ms, 5_000);
}

#[test]
fn bad_files_get_plain_errors() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.wav");
    std::fs::write(&empty, b"").unwrap();
    assert!(matches!(
        file::load(&empty, 60.0),
        Err(AudioError::Empty(_))
    ));

    let text = dir.path().join("poem.wav");
    std::fs::write(&text, "床前明月光，疑是地上霜。".repeat(50)).unwrap();
    let e = file::load(&text, 60.0).unwrap_err();
    assert!(matches!(e, AudioError::NotAudio { .. }), "{e}");
    assert!(e.to_string().contains("not an audio file"), "{e}");

    let header_only = dir.path().join("header-only.wav");
    write_wav(&header_only, 16_000, 1, &[]);
    assert!(matches!(
        file::load(&header_only, 60.0),
        Err(AudioError::NoSamples { .. })
    ));

    let missing = dir.path().join("nope.wav");
    assert!(matches!(
        file::load(&missing, 60.0),
        Err(AudioError::NotFound(_))
    ));
    assert!(matches!(
        file::load(dir.path(), 60.0),
        Err(AudioError::NotAudio { .. })
    ));
}

#[test]
fn a_ten_minute_file_is_refused_quickly_with_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ten-minutes.wav");
    write_wav(&path, 16_000, 1, &vec![0.0; 16_000 * 600]);
    let started = std::time::Instant::now();
    let e = file::load(&path, file::DEFAULT_MAX_SECONDS).unwrap_err();
    assert!(matches!(e, AudioError::TooLong { .. }), "{e}");
    assert!(e.to_string().contains("600 s"), "{e}");
    // Refused from the header, not after decoding ten minutes (generous bound for a loaded CI machine).
    assert!(started.elapsed().as_secs() < 5);
}
