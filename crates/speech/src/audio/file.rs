//! Reads an audio file into 16 kHz mono: WAV through hound, every other
//! common format (MP3, AAC/M4A, FLAC, Ogg Vorbis, and WAV variants hound
//! does not take) through symphonia. Empty, non-audio and over-long files
//! get plain-words errors; the length limit is checked before decoding when
//! the container declares it, so a huge file is refused quickly.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use symphonia::core::audio::SampleBuffer;
use symphonia::core::codecs::{DecoderOptions, CODEC_TYPE_NULL};
use symphonia::core::errors::Error as SymError;
use symphonia::core::formats::FormatOptions;
use symphonia::core::io::MediaSourceStream;
use symphonia::core::meta::MetadataOptions;
use symphonia::core::probe::Hint;

use super::resample::{downmix, Resampler16k};
use super::{AudioError, Clip};

/// The longest file accepted by default: five minutes is far more than any
/// primary-school recitation.
pub const DEFAULT_MAX_SECONDS: f32 = 300.0;

/// Decodes `path` to 16 kHz mono, refusing files longer than `max_seconds`.
pub fn load(path: &Path, max_seconds: f32) -> Result<Clip, AudioError> {
    let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => AudioError::NotFound(path.to_path_buf()),
        _ => AudioError::Io(e),
    })?;
    if meta.is_dir() {
        return Err(AudioError::NotAudio {
            path: path.to_path_buf(),
            detail: "it is a folder".into(),
        });
    }
    if meta.len() == 0 {
        return Err(AudioError::Empty(path.to_path_buf()));
    }
    let mut magic = [0u8; 12];
    let n = File::open(path)?.read(&mut magic)?;
    let is_wav = n == 12 && &magic[..4] == b"RIFF" && &magic[8..12] == b"WAVE";
    let clip = if is_wav {
        match load_wav(path, max_seconds) {
            Ok(c) => c,
            // WAV codecs hound does not know (ADPCM, A-law…) go to symphonia.
            Err(AudioError::Format(_)) => load_other(path, max_seconds)?,
            Err(e) => return Err(e),
        }
    } else {
        load_other(path, max_seconds)?
    };
    if clip.samples.is_empty() {
        return Err(AudioError::NoSamples {
            path: path.to_path_buf(),
        });
    }
    Ok(clip)
}

fn too_long(path: &Path, frames: u64, rate: u32, limit: f32) -> Result<(), AudioError> {
    let seconds = frames as f32 / rate.max(1) as f32;
    if seconds > limit {
        return Err(AudioError::TooLong {
            path: path.to_path_buf(),
            seconds,
            limit,
        });
    }
    Ok(())
}

fn load_wav(path: &Path, max_seconds: f32) -> Result<Clip, AudioError> {
    let reader = hound::WavReader::open(path).map_err(|e| match e {
        hound::Error::IoError(io) => AudioError::Io(io),
        other => AudioError::Format(other.to_string()),
    })?;
    let spec = reader.spec();
    if spec.channels == 0 {
        return Err(AudioError::Format("WAV header says 0 channels".into()));
    }
    too_long(
        path,
        u64::from(reader.duration()),
        spec.sample_rate,
        max_seconds,
    )?;
    let interleaved: Vec<f32> = match spec.sample_format {
        hound::SampleFormat::Float => reader.into_samples::<f32>().collect::<Result<_, _>>(),
        hound::SampleFormat::Int => {
            let scale = 1.0 / (1u64 << (spec.bits_per_sample.clamp(1, 32) - 1)) as f32;
            reader
                .into_samples::<i32>()
                .map(|s| s.map(|v| v as f32 * scale))
                .collect::<Result<_, _>>()
        }
    }
    .map_err(|e| AudioError::NotAudio {
        path: path.to_path_buf(),
        detail: format!("damaged WAV data: {e}"),
    })?;
    let mono = downmix(&interleaved, usize::from(spec.channels));
    let mut r = Resampler16k::new(spec.sample_rate)?;
    let mut samples = r.push(&mono)?;
    samples.extend(r.finish()?);
    Ok(Clip {
        samples,
        source_rate: spec.sample_rate,
        source_channels: spec.channels,
    })
}

fn load_other(path: &Path, max_seconds: f32) -> Result<Clip, AudioError> {
    let not_audio = |detail: String| AudioError::NotAudio {
        path: path.to_path_buf(),
        detail,
    };
    let mss = MediaSourceStream::new(Box::new(File::open(path)?), Default::default());
    let mut hint = Hint::new();
    if let Some(ext) = path.extension().and_then(|e| e.to_str()) {
        hint.with_extension(ext);
    }
    let probed = symphonia::default::get_probe()
        .format(
            &hint,
            mss,
            &FormatOptions::default(),
            &MetadataOptions::default(),
        )
        .map_err(|e| not_audio(format!("format not recognised: {e}")))?;
    let mut format = probed.format;
    let track = format
        .tracks()
        .iter()
        .find(|t| t.codec_params.codec != CODEC_TYPE_NULL)
        .ok_or_else(|| not_audio("it has no audio track".into()))?;
    let track_id = track.id;
    let params = track.codec_params.clone();
    let rate = params
        .sample_rate
        .ok_or_else(|| not_audio("the audio track has no sample rate".into()))?;
    if let Some(frames) = params.n_frames {
        too_long(path, frames, rate, max_seconds)?;
    }
    let mut decoder = symphonia::default::get_codecs()
        .make(&params, &DecoderOptions::default())
        .map_err(|e| not_audio(format!("unsupported codec: {e}")))?;
    let mut resampler = Resampler16k::new(rate)?;
    let mut samples = Vec::new();
    let mut channels = params.channels.map(|c| c.count() as u16).unwrap_or(1);
    let mut frames_seen: u64 = 0;
    loop {
        let packet = match format.next_packet() {
            Ok(p) => p,
            Err(SymError::IoError(e)) if e.kind() == std::io::ErrorKind::UnexpectedEof => break,
            Err(SymError::ResetRequired) => break,
            Err(e) => return Err(not_audio(format!("damaged data: {e}"))),
        };
        if packet.track_id() != track_id {
            continue;
        }
        let decoded = match decoder.decode(&packet) {
            Ok(d) => d,
            // A damaged packet is skipped, as players do.
            Err(SymError::DecodeError(_)) => continue,
            Err(e) => return Err(not_audio(format!("cannot decode: {e}"))),
        };
        let spec = *decoded.spec();
        channels = spec.channels.count() as u16;
        let mut buf = SampleBuffer::<f32>::new(decoded.capacity() as u64, spec);
        buf.copy_interleaved_ref(decoded);
        let mono = downmix(buf.samples(), usize::from(channels.max(1)));
        frames_seen += mono.len() as u64;
        // Containers that do not declare their length are checked as they decode.
        too_long(path, frames_seen, rate, max_seconds)?;
        samples.extend(resampler.push(&mono)?);
    }
    samples.extend(resampler.finish()?);
    Ok(Clip {
        samples,
        source_rate: rate,
        source_channels: channels,
    })
}
