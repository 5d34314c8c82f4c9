//! Listening for one recitation attempt from a live capture: either the VAD
//! decides when the child has finished (an utterance ends after the
//! configured silence or at the length cap), or push-to-talk (the attempt is
//! everything between start and release, trimmed to the speech). If the
//! microphone disappears mid-recitation the attempt ends with what was heard
//! and the reason, so nothing the child said is lost.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::audio::capture::{Capture, CaptureEvent, Level};
use crate::audio::SAMPLE_RATE;
use crate::vad::{EndedBy, Segmenter, SileroVad, Utterance, VadError, VadEvent, VadSettings};

/// How the end of an attempt is found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ListenMode {
    /// The VAD ends the attempt after the child falls silent.
    Vad,
    /// The child (or parent) holds a button; release ends the attempt.
    PushToTalk,
}

/// A microphone that delivers nothing for this long is treated as gone
/// (a driver that stalls, a Bluetooth headset that went to sleep): the
/// attempt ends with what was heard instead of waiting forever.
pub const STALLED_AFTER: Duration = Duration::from_secs(5);

/// How an attempt ended.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum AttemptEnd {
    /// Silence after speech (VAD mode).
    Silence,
    /// The maximum utterance length was reached.
    LengthCap,
    /// Push-to-talk released, or the capture was stopped.
    Released,
    /// No speech before the deadline.
    NoSpeech,
    /// The microphone went away; `utterance` keeps what was heard.
    DeviceLost { detail: String },
}

/// The audio of one attempt.
#[derive(Debug, Clone)]
pub struct HeardAttempt {
    /// The speech, if any was heard.
    pub utterance: Option<Utterance>,
    pub ended: AttemptEnd,
    /// When the end was decided (for end-of-speech → verdict latency).
    pub ended_at: Instant,
}

/// Stops a push-to-talk attempt from another thread (the button's release).
#[derive(Debug, Clone, Default)]
pub struct Release(Arc<AtomicBool>);

impl Release {
    pub fn release(&self) {
        self.0.store(true, Ordering::SeqCst);
    }
    fn released(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

/// Listens to `capture` until the attempt ends. `on_level` gets the level
/// meter (~20/s) for the UI; `no_speech_after` gives up if nobody speaks.
pub fn listen(
    capture: &Capture,
    vad: SileroVad,
    settings: VadSettings,
    mode: ListenMode,
    release: &Release,
    no_speech_after: Duration,
    on_level: &mut dyn FnMut(Level),
) -> Result<HeardAttempt, VadError> {
    let mut segmenter = Segmenter::new(vad, settings);
    let mut all: Vec<f32> = Vec::new();
    let started = Instant::now();
    let mut heard_samples: u64 = 0;
    let mut last_audio = Instant::now();
    loop {
        if release.released() {
            // The button was pressed again: the attempt is what was heard so far
            // (in VAD mode the segmenter closes the speech it is in).
            let utterance = match mode {
                ListenMode::Vad => segmenter.finish()?,
                ListenMode::PushToTalk => trimmed(&mut segmenter, std::mem::take(&mut all))?,
            };
            return Ok(HeardAttempt {
                utterance,
                ended: AttemptEnd::Released,
                ended_at: Instant::now(),
            });
        }
        let Some(event) = capture.next_event(Duration::from_millis(20)) else {
            if last_audio.elapsed() > STALLED_AFTER {
                let detail = format!(
                    "the microphone sent no sound for {} s",
                    STALLED_AFTER.as_secs()
                );
                return device_lost(mode, &mut segmenter, all, detail);
            }
            if mode == ListenMode::Vad
                && !segmenter.in_speech()
                && started.elapsed() > no_speech_after
                && heard_samples == 0
            {
                return Ok(HeardAttempt {
                    utterance: None,
                    ended: AttemptEnd::NoSpeech,
                    ended_at: Instant::now(),
                });
            }
            continue;
        };
        match event {
            CaptureEvent::Level(level) => on_level(level),
            CaptureEvent::Audio(samples) => {
                last_audio = Instant::now();
                if mode == ListenMode::PushToTalk {
                    all.extend_from_slice(&samples);
                    continue;
                }
                for e in segmenter.push(&samples)? {
                    match e {
                        VadEvent::SpeechStart { .. } => heard_samples += 1,
                        VadEvent::Utterance(u) => {
                            let ended = if u.ended_by == EndedBy::LengthCap {
                                AttemptEnd::LengthCap
                            } else {
                                AttemptEnd::Silence
                            };
                            return Ok(HeardAttempt {
                                utterance: Some(u),
                                ended,
                                ended_at: Instant::now(),
                            });
                        }
                    }
                }
                if !segmenter.in_speech()
                    && heard_samples == 0
                    && started.elapsed() > no_speech_after
                {
                    return Ok(HeardAttempt {
                        utterance: None,
                        ended: AttemptEnd::NoSpeech,
                        ended_at: Instant::now(),
                    });
                }
            }
            CaptureEvent::DeviceLost(detail) => {
                return device_lost(mode, &mut segmenter, all, detail);
            }
            CaptureEvent::Stopped => {
                let utterance = match mode {
                    ListenMode::Vad => segmenter.finish()?,
                    ListenMode::PushToTalk => trimmed(&mut segmenter, std::mem::take(&mut all))?,
                };
                return Ok(HeardAttempt {
                    utterance,
                    ended: AttemptEnd::Released,
                    ended_at: Instant::now(),
                });
            }
        }
    }
}

/// The microphone went away or stalled: the attempt keeps what was heard.
fn device_lost(
    mode: ListenMode,
    segmenter: &mut Segmenter,
    all: Vec<f32>,
    detail: String,
) -> Result<HeardAttempt, VadError> {
    let utterance = match mode {
        ListenMode::Vad => segmenter.heard_so_far(),
        ListenMode::PushToTalk => trimmed(segmenter, all)?,
    };
    Ok(HeardAttempt {
        utterance,
        ended: AttemptEnd::DeviceLost { detail },
        ended_at: Instant::now(),
    })
}

/// Push-to-talk: the whole recording, trimmed to the span with speech (or
/// kept whole when the VAD finds none, so a quiet child is still heard).
fn trimmed(segmenter: &mut Segmenter, all: Vec<f32>) -> Result<Option<Utterance>, VadError> {
    if all.is_empty() {
        return Ok(None);
    }
    let mut spans = Vec::new();
    for e in segmenter.push(&all)? {
        if let VadEvent::Utterance(u) = e {
            spans.push((u.start_ms, u.end_ms));
        }
    }
    if let Some(u) = segmenter.finish()? {
        spans.push((u.start_ms, u.end_ms));
    }
    let total_ms = all.len() as u64 * 1000 / u64::from(SAMPLE_RATE);
    let (start_ms, end_ms) = match (spans.first(), spans.last()) {
        (Some(a), Some(b)) => (a.0, b.1),
        _ => (0, total_ms),
    };
    let from = (start_ms * u64::from(SAMPLE_RATE) / 1000) as usize;
    let to = ((end_ms * u64::from(SAMPLE_RATE) / 1000) as usize).min(all.len());
    Ok(Some(Utterance {
        start_ms,
        end_ms,
        samples: all[from.min(to)..to].to_vec(),
        ended_by: EndedBy::EndOfAudio,
    }))
}
