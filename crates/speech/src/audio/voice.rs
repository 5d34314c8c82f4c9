//! A high voice brought down into whisper's range before it is heard
//! (issue 13). whisper base was trained on grown-up speech; with a voice
//! lifted a few semitones (the hard dev clips stand in for a child this way)
//! it mishears more (syllable errors, tones ignored: 8.6 % on the dev clips,
//! 15.8 % on them made harder, noise and echo included). So a
//! recording whose median pitch lies above a ceiling is played slower, as a
//! tape would be: every frequency (pitch and the formants with it) falls by
//! the same factor and the speech lasts that much longer. Nothing else
//! changes; [`Warp::to_source_ms`] maps whisper's times back. Off by default:
//! it hears the high voices better but did not make the verdict better
//! (speech README, "A high voice lowered").
//!
//! The pitch is an autocorrelation estimate on the loud frames at 8 kHz,
//! cheap next to whisper (a few ms for a recitation).

use super::resample::Resampler16k;
use super::{AudioError, SAMPLE_RATE};

/// The ceiling measured (Hz): the top of grown-up women's speaking pitch
/// (165–255 Hz). Not the default: [`crate::asr::AsrConfig`] lowers no voice
/// unless given a ceiling (speech README, "A high voice lowered").
pub const MEASURED_VOICE_CEILING_HZ: f32 = 255.0;

/// Never lowered by more than this factor (seven semitones).
const DEEPEST: f32 = 0.667;

/// How a recording was slowed for whisper: `factor` < 1 lowered every
/// frequency by it, and stretched time by 1/`factor`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Warp {
    pub factor: f32,
}

impl Warp {
    pub const NONE: Warp = Warp { factor: 1.0 };

    /// A time in the slowed audio, in the recording's own milliseconds.
    pub fn to_source_ms(&self, ms: u32) -> u32 {
        (ms as f32 * self.factor).round() as u32
    }
}

/// Lowers `samples` (16 kHz mono) when their median pitch is above
/// `ceiling_hz`; returns them unchanged otherwise (and with no ceiling).
pub fn lower(samples: &[f32], ceiling_hz: Option<f32>) -> Result<(Vec<f32>, Warp), AudioError> {
    let Some(ceiling) = ceiling_hz else {
        return Ok((samples.to_vec(), Warp::NONE));
    };
    let factor = match median_pitch(samples) {
        Some(hz) if hz > ceiling => (ceiling / hz).max(DEEPEST),
        _ => 1.0,
    };
    // Declared to have been recorded at 16 kHz × factor, the samples come
    // out at 16 kHz 1/factor times as many: the tape played slower. Rates
    // on a 50 Hz grid keep rubato's FFT chunks small.
    let rate = (((SAMPLE_RATE as f32 * factor / 50.0).round() * 50.0) as u32).min(SAMPLE_RATE);
    let out = if rate == SAMPLE_RATE {
        samples.to_vec()
    } else {
        let mut resampler = Resampler16k::new(rate)?;
        let mut out = resampler.push(samples)?;
        out.extend(resampler.finish()?);
        out
    };
    let warp = Warp {
        factor: rate as f32 / SAMPLE_RATE as f32,
    };
    Ok((out, warp))
}

/// The median pitch of the voiced, loud frames (Hz), or None when fewer
/// than ten frames are clearly voiced (silence, noise, a whisper).
pub fn median_pitch(samples: &[f32]) -> Option<f32> {
    // 8 kHz is plenty for pitches of 70–500 Hz and halves the work.
    let x: Vec<f32> = samples
        .chunks_exact(2)
        .map(|p| (p[0] + p[1]) * 0.5)
        .collect();
    const RATE: f32 = 8_000.0;
    const FRAME: usize = 320; // 40 ms
    const HOP: usize = 160;
    let min_lag = (RATE / 500.0) as usize;
    let max_lag = (RATE / 70.0) as usize;
    if x.len() < FRAME + max_lag {
        return None;
    }
    let starts: Vec<usize> = (0..x.len() - FRAME - max_lag).step_by(HOP).collect();
    let energy: Vec<f32> = starts
        .iter()
        .map(|&s| x[s..s + FRAME].iter().map(|v| v * v).sum())
        .collect();
    let mut sorted = energy.clone();
    sorted.sort_by(f32::total_cmp);
    let loud = sorted[(sorted.len() * 9 / 10).min(sorted.len() - 1)] * 0.1;
    let mut pitches = Vec::new();
    for (&s, &e) in starts.iter().zip(&energy) {
        if e < loud || e <= 0.0 {
            continue;
        }
        let a = &x[s..s + FRAME];
        let mut scores = Vec::with_capacity(max_lag - min_lag);
        for lag in min_lag..max_lag {
            let b = &x[s + lag..s + lag + FRAME];
            let (mut ab, mut bb) = (0.0f32, 0.0f32);
            for (p, q) in a.iter().zip(b) {
                ab += p * q;
                bb += q * q;
            }
            scores.push(ab / (e * bb).sqrt().max(1e-12));
        }
        let best = scores.iter().copied().fold(f32::MIN, f32::max);
        if best < 0.6 {
            continue;
        }
        // The peak at the shortest lag nearly as good as the best: a
        // period's multiples score as well as the period itself.
        let Some(mut i) = scores.iter().position(|&r| r >= 0.9 * best) else {
            continue;
        };
        while i + 1 < scores.len() && scores[i + 1] > scores[i] {
            i += 1;
        }
        // Between whole lags: the parabola through the peak and its neighbours.
        let mut lag = (min_lag + i) as f32;
        if i > 0 && i + 1 < scores.len() {
            let (l, c, r) = (scores[i - 1], scores[i], scores[i + 1]);
            let bend = l - 2.0 * c + r;
            if bend < 0.0 {
                lag += (0.5 * (l - r) / bend).clamp(-0.5, 0.5);
            }
        }
        pitches.push(RATE / lag);
    }
    if pitches.len() < 10 {
        return None;
    }
    pitches.sort_by(f32::total_cmp);
    Some(pitches[pitches.len() / 2])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A buzz at `hz` with harmonics, like a voiced vowel.
    fn vowel(hz: f32, seconds: f32) -> Vec<f32> {
        (0..(SAMPLE_RATE as f32 * seconds) as usize)
            .map(|i| {
                let t = i as f32 / SAMPLE_RATE as f32;
                (1..6)
                    .map(|k| (t * hz * k as f32 * std::f32::consts::TAU).sin() * 0.3 / k as f32)
                    .sum()
            })
            .collect()
    }

    #[test]
    fn the_pitch_of_a_vowel_is_found() {
        for hz in [110.0, 220.0, 360.0] {
            let p = median_pitch(&vowel(hz, 1.0)).expect("voiced");
            assert!((p / hz - 1.0).abs() < 0.03, "{hz} Hz measured {p}");
        }
    }

    #[test]
    fn silence_and_noise_have_no_pitch() {
        assert_eq!(median_pitch(&vec![0.0; 16_000]), None);
        let mut seed = 7u32;
        let noise: Vec<f32> = (0..16_000)
            .map(|_| {
                seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                (seed >> 8) as f32 / (1u32 << 24) as f32 - 0.5
            })
            .collect();
        assert_eq!(median_pitch(&noise), None);
    }

    #[test]
    fn a_high_voice_is_lowered_to_the_ceiling_and_a_low_one_left() {
        let high = vowel(360.0, 1.0);
        let (out, warp) = lower(&high, Some(300.0)).expect("lowered");
        assert!((warp.factor - 300.0 / 360.0).abs() < 0.01, "{warp:?}");
        // Longer by 1/factor, and the pitch now at the ceiling.
        let stretched = high.len() as f32 / warp.factor;
        assert!((out.len() as f32 - stretched).abs() < 2.0, "{}", out.len());
        let p = median_pitch(&out).expect("voiced");
        assert!((p - 300.0).abs() < 10.0, "lowered to {p}");
        assert_eq!(
            warp.to_source_ms(1200),
            (1200.0 * warp.factor).round() as u32
        );

        let low = vowel(220.0, 1.0);
        let (same, warp) = lower(&low, Some(300.0)).expect("left");
        assert_eq!(warp.factor, 1.0);
        assert_eq!(same, low);
        let (same, warp) = lower(&high, None).expect("no ceiling");
        assert_eq!((same.len(), warp), (high.len(), Warp::NONE));
    }
}
