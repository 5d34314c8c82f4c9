//! The live path's timing on a dev clip (issue 13, point 4): the clip,
//! then silence, streamed through the voice detector in 20 ms pieces as a
//! microphone delivers them; where the child's pause that held began, where
//! the end silence ended the attempt, and from those and the judgement's
//! time, how long after the last syllable the verdict is ready — judged at
//! the pause (the window's `scene::at_pause`), ended there when the
//! material was heard to its end, else at the end silence.

use std::path::Path;

use crate::pipeline::SpeechError;
use crate::vad::{Segmenter, SileroVad, Utterance, VadError, VadEvent, VadSettings};
use crate::ModelPaths;

/// Samples per piece the microphone delivers (20 ms at 16 kHz).
const PIECE: usize = 320;

/// A clip streamed as a microphone.
#[derive(Debug, Clone)]
pub struct Streamed {
    /// The attempt as it stood at the pause that held to the end.
    pub at_pause: Utterance,
    /// When that pause was found, ms after the last syllable.
    pub pause_after_ms: u64,
    /// When the end silence ended the attempt, ms after the last syllable.
    pub silence_after_ms: u64,
    /// Whether the pause's samples are the attempt's, or the start of them
    /// with only more of the end padding after (they must be: the verdict
    /// made at the pause is taken for the attempt).
    pub same_samples: bool,
}

/// Streams `samples` (which should end in silence) through the voice
/// detector; `None` when no utterance ended or no pause held before it.
pub fn stream_as_microphone(
    vad: SileroVad,
    samples: &[f32],
    pause_ms: u32,
) -> Result<Option<Streamed>, VadError> {
    let settings = VadSettings::default();
    let mut seg = Segmenter::new(vad, settings);
    let mut at_pause: Option<(Utterance, u64)> = None;
    let mut pushed = 0u64;
    for piece in samples.chunks(PIECE) {
        pushed += piece.len() as u64;
        let now_ms = pushed * 1000 / 16_000;
        for e in seg.push(piece)? {
            if let VadEvent::Utterance(ended) = e {
                let Some((pause, paused_at)) = at_pause else {
                    return Ok(None);
                };
                let last_syllable = ended.end_ms.saturating_sub(u64::from(settings.pad_ms));
                return Ok(Some(Streamed {
                    same_samples: ended.samples.starts_with(&pause.samples),
                    at_pause: pause,
                    pause_after_ms: paused_at.saturating_sub(last_syllable),
                    silence_after_ms: now_ms.saturating_sub(last_syllable),
                }));
            }
        }
        match seg.silence_ms() {
            Some(s) if s >= pause_ms => {
                if at_pause.is_none() {
                    at_pause = seg.as_if_ended().map(|u| (u, now_ms));
                }
            }
            _ => at_pause = None,
        }
    }
    Ok(None)
}

/// A clip file streamed as a microphone ([`stream_as_microphone`]), with
/// 1.5 s of silence after it so the end silence can end the attempt.
pub fn stream_clip(
    paths: &ModelPaths,
    clip: &Path,
    pause_ms: u32,
) -> Result<Option<Streamed>, SpeechError> {
    let mut samples = crate::audio::file::load(clip, 120.0)?.samples;
    samples.extend(std::iter::repeat_n(0.0, 24_000));
    let vad = SileroVad::load(&paths.onnxruntime, &paths.silero_vad)?;
    Ok(stream_as_microphone(vad, &samples, pause_ms)?)
}

impl Streamed {
    /// From the last syllable to the verdict when judging takes `judge_ms`:
    /// at the pause plus the judgement when the material was heard to its
    /// end, otherwise at the end silence or when the judgement is done,
    /// whichever is later.
    pub fn to_verdict_ms(&self, judge_ms: u64, reaches_the_end: bool) -> u64 {
        let judged = self.pause_after_ms + judge_ms;
        if reaches_the_end {
            judged
        } else {
            judged.max(self.silence_after_ms)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn streamed(pause: u64, silence: u64) -> Streamed {
        Streamed {
            at_pause: Utterance {
                start_ms: 0,
                end_ms: 0,
                samples: vec![],
                ended_by: crate::vad::EndedBy::Silence,
            },
            pause_after_ms: pause,
            silence_after_ms: silence,
            same_samples: true,
        }
    }

    #[test]
    fn a_complete_recitation_is_judged_from_the_pause_and_another_waits_for_the_silence() {
        let s = streamed(230, 1_220);
        assert_eq!(s.to_verdict_ms(650, true), 880);
        assert_eq!(s.to_verdict_ms(650, false), 1_220);
        // A judgement slower than the silence is waited for either way.
        assert_eq!(s.to_verdict_ms(1_400, false), 1_630);
        assert_eq!(s.to_verdict_ms(1_400, true), 1_630);
    }
}
