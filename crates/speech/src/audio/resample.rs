//! Streaming conversion of any sample rate to the 16 kHz mono the models
//! want, with rubato's FFT resampler. Used by file decoding and by the
//! microphone capture alike; its output delay is trimmed so timestamps line up.

use rubato::{FftFixedInOut, Resampler};

use super::{AudioError, SAMPLE_RATE};

/// Mixes interleaved frames down to mono by averaging the channels.
pub fn downmix(interleaved: &[f32], channels: usize) -> Vec<f32> {
    if channels <= 1 {
        return interleaved.to_vec();
    }
    interleaved
        .chunks(channels)
        .map(|frame| frame.iter().sum::<f32>() / frame.len() as f32)
        .collect()
}

/// Mono resampler to 16 kHz that accepts input in pieces of any size.
pub struct Resampler16k {
    inner: Option<FftFixedInOut<f32>>,
    pending: Vec<f32>,
    /// Output samples still to drop (the resampler's delay).
    to_skip: usize,
    /// Input samples seen, to size the final output exactly.
    input_total: u64,
    output_total: u64,
    input_rate: u32,
}

impl Resampler16k {
    pub fn new(input_rate: u32) -> Result<Self, AudioError> {
        if input_rate == 0 {
            return Err(AudioError::Format(
                "the audio says its sample rate is 0".into(),
            ));
        }
        let inner = if input_rate == SAMPLE_RATE {
            None
        } else {
            let r = FftFixedInOut::<f32>::new(input_rate as usize, SAMPLE_RATE as usize, 1024, 1)
                .map_err(|e| {
                AudioError::Format(format!("cannot resample from {input_rate} Hz: {e}"))
            })?;
            Some(r)
        };
        let to_skip = inner.as_ref().map(|r| r.output_delay()).unwrap_or(0);
        Ok(Self {
            inner,
            pending: Vec::new(),
            to_skip,
            input_total: 0,
            output_total: 0,
            input_rate,
        })
    }

    fn emit(&mut self, mut out: Vec<f32>) -> Vec<f32> {
        if self.to_skip > 0 {
            let n = self.to_skip.min(out.len());
            out.drain(..n);
            self.to_skip -= n;
        }
        self.output_total += out.len() as u64;
        out
    }

    /// Feeds mono samples at the input rate; returns whatever 16 kHz output is ready.
    pub fn push(&mut self, samples: &[f32]) -> Result<Vec<f32>, AudioError> {
        self.input_total += samples.len() as u64;
        let Some(r) = self.inner.as_mut() else {
            self.output_total += samples.len() as u64;
            return Ok(samples.to_vec());
        };
        self.pending.extend_from_slice(samples);
        let mut out = Vec::new();
        loop {
            let need = r.input_frames_next();
            if self.pending.len() < need {
                break;
            }
            let chunk: Vec<f32> = self.pending.drain(..need).collect();
            let res = r
                .process(&[chunk], None)
                .map_err(|e| AudioError::Format(format!("resampling failed: {e}")))?;
            if let Some(ch) = res.into_iter().next() {
                out.extend(ch);
            }
        }
        Ok(self.emit(out))
    }

    /// Flushes the rest: pads with silence so the output length matches the input duration.
    pub fn finish(&mut self) -> Result<Vec<f32>, AudioError> {
        let expected =
            (self.input_total * u64::from(SAMPLE_RATE)).div_ceil(u64::from(self.input_rate));
        let mut out = Vec::new();
        if let Some(r) = self.inner.as_mut() {
            let mut guard = 0;
            while self.output_total + (out.len() as u64).saturating_sub(self.to_skip as u64)
                < expected
                && guard < 64
            {
                let need = r.input_frames_next();
                let mut chunk: Vec<f32> = std::mem::take(&mut self.pending);
                chunk.resize(need, 0.0);
                let res = r
                    .process(&[chunk], None)
                    .map_err(|e| AudioError::Format(format!("resampling failed: {e}")))?;
                if let Some(ch) = res.into_iter().next() {
                    out.extend(ch);
                }
                guard += 1;
            }
        }
        let mut out = self.emit(out);
        let keep = expected.saturating_sub(self.output_total - out.len() as u64) as usize;
        out.truncate(keep);
        self.output_total = expected;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tone(rate: u32, hz: f32, seconds: f32) -> Vec<f32> {
        (0..(rate as f32 * seconds) as usize)
            .map(|i| (i as f32 * hz * std::f32::consts::TAU / rate as f32).sin() * 0.5)
            .collect()
    }

    /// Zero crossings per second estimate the frequency.
    fn frequency(samples: &[f32], rate: u32) -> f32 {
        let crossings = samples
            .windows(2)
            .filter(|w| w[0] < 0.0 && w[1] >= 0.0)
            .count();
        crossings as f32 * rate as f32 / samples.len() as f32
    }

    #[test]
    fn resampling_keeps_duration_and_pitch() {
        for rate in [8_000u32, 44_100, 48_000] {
            let input = tone(rate, 440.0, 1.5);
            let mut r = Resampler16k::new(rate).unwrap();
            let mut out = Vec::new();
            for piece in input.chunks(777) {
                out.extend(r.push(piece).unwrap());
            }
            out.extend(r.finish().unwrap());
            assert_eq!(out.len(), 24_000, "rate {rate}");
            let f = frequency(&out[2000..22000], SAMPLE_RATE);
            assert!((f - 440.0).abs() < 5.0, "rate {rate}: {f} Hz");
        }
    }

    #[test]
    fn downmix_averages_channels() {
        assert_eq!(downmix(&[1.0, 0.0, 0.5, 0.5], 2), vec![0.5, 0.5]);
        assert_eq!(downmix(&[0.25], 1), vec![0.25]);
    }

    #[test]
    fn zero_rate_is_an_error() {
        assert!(Resampler16k::new(0).is_err());
    }
}
