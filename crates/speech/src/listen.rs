//! Listening for one recitation attempt from a live capture: either the VAD
//! decides when the child has finished (an utterance ends after the
//! configured silence or at the length cap), or push-to-talk (the attempt is
//! everything between start and release, trimmed to the speech). If the
//! microphone disappears mid-recitation the attempt ends with what was heard
//! and the reason, so nothing the child said is lost. While the child is
//! still reciting, [`listen_live`] also offers the speech heard so far every
//! couple of seconds ([`SpeechSoFar`]), for a live partial transcript, and
//! can tell of each pause ([`Pauses`]): the attempt as it would end there,
//! so it can be judged while the end silence runs, and ended at the pause
//! ([`EndAtPause`]) once the judgement shows the child has finished.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
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
    /// The child paused after the whole material was heard: the listener
    /// ended the attempt at the pause instead of waiting out the end
    /// silence ([`Pauses`]).
    HeardToTheEnd,
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
    /// Whether the button was released.
    pub fn is_released(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

/// What [`Pauses`] tells its listener.
#[derive(Debug, Clone, PartialEq)]
pub enum Pause {
    /// The child has been silent for a moment: the attempt as it stands if
    /// no more speech came (what the end silence would cut, less any end
    /// padding not heard yet).
    Began(Utterance),
    /// The child spoke again: the utterance of the last `Began` will not be
    /// the attempt.
    Resumed,
}

/// Ends the attempt at a pause from another thread: the pause's listener,
/// once it knows the attempt is complete (e.g. the material was heard to its
/// end), says so with the `end_ms` of the pause's utterance; the attempt then
/// ends at once, unless the child has spoken again meanwhile.
#[derive(Debug, Clone, Default)]
pub struct EndAtPause(Arc<AtomicU64>);

impl EndAtPause {
    /// Ends the attempt at the pause whose utterance ends at `end_ms`.
    pub fn end(&self, end_ms: u64) {
        self.0.store(end_ms.saturating_add(1), Ordering::SeqCst);
    }

    /// The `end_ms` of the pause to end at, once asked.
    pub fn wanted(&self) -> Option<u64> {
        match self.0.load(Ordering::SeqCst) {
            0 => None,
            n => Some(n - 1),
        }
    }
}

/// Tells a listener each time the child pauses within an attempt and when
/// the child speaks again, so the attempt can be judged during the end
/// silence instead of after it (and ended early through [`EndAtPause`]).
/// The callback runs on the listening thread: it must return quickly.
pub struct Pauses<'a> {
    after_ms: u32,
    on_pause: &'a mut dyn FnMut(Pause),
    end: EndAtPause,
    /// `end_ms` of the pause offered and still holding.
    current: Option<u64>,
}

impl<'a> Pauses<'a> {
    /// A pause is `after` of silence. The offered utterance has the end
    /// padding heard so far: when `after` is shorter than the VAD's padding,
    /// the attempt the end silence cuts later is the offered one with more
    /// padding (silence) after it.
    pub fn new(after: Duration, on_pause: &'a mut dyn FnMut(Pause), end: EndAtPause) -> Self {
        Self {
            after_ms: after.as_millis().min(u128::from(u32::MAX)) as u32,
            on_pause,
            end,
            current: None,
        }
    }

    /// Offers a pause that began, or says the one offered ended.
    fn follow(&mut self, segmenter: &Segmenter) {
        let paused = segmenter.silence_ms().is_some_and(|s| s >= self.after_ms);
        match (paused, self.current) {
            (true, None) => {
                if let Some(u) = segmenter.as_if_ended() {
                    self.current = Some(u.end_ms);
                    (self.on_pause)(Pause::Began(u));
                }
            }
            (false, Some(_)) => {
                self.current = None;
                (self.on_pause)(Pause::Resumed);
            }
            _ => {}
        }
    }

    /// Whether the listener asked to end the attempt at the pause that holds.
    fn end_wanted(&self) -> bool {
        self.current.is_some() && self.end.wanted() == self.current
    }
}

/// Offers the speech heard so far each time `every` more of it has been
/// heard, while the attempt goes on. The callback runs on the listening
/// thread: it must return quickly (hand the audio to a worker, or skip it).
/// With [`SpeechSoFar::with_pauses`], it also tells of the child's pauses.
pub struct SpeechSoFar<'a> {
    every_ms: u64,
    offered_ms: u64,
    on_speech: &'a mut dyn FnMut(Utterance),
    pauses: Option<Pauses<'a>>,
}

impl<'a> SpeechSoFar<'a> {
    pub fn new(every: Duration, on_speech: &'a mut dyn FnMut(Utterance)) -> Self {
        Self {
            every_ms: (every.as_millis() as u64).max(1),
            offered_ms: 0,
            on_speech,
            pauses: None,
        }
    }

    /// Also tells `pauses` of the child's pauses (VAD mode only).
    pub fn with_pauses(mut self, pauses: Pauses<'a>) -> Self {
        self.pauses = Some(pauses);
        self
    }

    /// True (and remembered) when `speech_ms` of speech is at least `every`
    /// more than at the last offer.
    fn due(&mut self, speech_ms: u64) -> bool {
        if speech_ms >= self.offered_ms + self.every_ms {
            self.offered_ms = speech_ms;
            true
        } else {
            false
        }
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
    listen_live(
        capture,
        vad,
        settings,
        mode,
        release,
        no_speech_after,
        on_level,
        None,
    )
}

/// [`listen`], also offering the speech so far to `so_far` while the child
/// is still speaking.
#[allow(clippy::too_many_arguments)]
pub fn listen_live(
    capture: &Capture,
    vad: SileroVad,
    settings: VadSettings,
    mode: ListenMode,
    release: &Release,
    no_speech_after: Duration,
    on_level: &mut dyn FnMut(Level),
    mut so_far: Option<&mut SpeechSoFar<'_>>,
) -> Result<HeardAttempt, VadError> {
    let mut segmenter = Segmenter::new(vad, settings);
    let mut all: Vec<f32> = Vec::new();
    let started = Instant::now();
    let mut heard_samples: u64 = 0;
    let mut last_audio = Instant::now();
    // Samples pushed to the segmenter, and where the current speech began (ms).
    let mut pushed: u64 = 0;
    let mut speech_from_ms: Option<u64> = None;
    loop {
        let end_wanted = so_far
            .as_deref()
            .and_then(|live| live.pauses.as_ref())
            .is_some_and(Pauses::end_wanted);
        if end_wanted && mode == ListenMode::Vad {
            return Ok(HeardAttempt {
                utterance: segmenter.end_now(),
                ended: AttemptEnd::HeardToTheEnd,
                ended_at: Instant::now(),
            });
        }
        if release.is_released() {
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
                    if let Some(live) = so_far.as_deref_mut() {
                        let heard_ms = all.len() as u64 * 1000 / u64::from(SAMPLE_RATE);
                        if live.due(heard_ms) {
                            (live.on_speech)(Utterance {
                                start_ms: 0,
                                end_ms: heard_ms,
                                samples: all.clone(),
                                ended_by: EndedBy::EndOfAudio,
                            });
                        }
                    }
                    continue;
                }
                pushed += samples.len() as u64;
                for e in segmenter.push(&samples)? {
                    match e {
                        VadEvent::SpeechStart { at_ms } => {
                            heard_samples += 1;
                            speech_from_ms = Some(at_ms);
                        }
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
                if let (Some(live), Some(from)) = (so_far.as_deref_mut(), speech_from_ms) {
                    let now_ms = pushed * 1000 / u64::from(SAMPLE_RATE);
                    if segmenter.in_speech() && live.due(now_ms.saturating_sub(from)) {
                        if let Some(u) = segmenter.heard_so_far() {
                            (live.on_speech)(u);
                        }
                    }
                    if let Some(pauses) = live.pauses.as_mut() {
                        pauses.follow(&segmenter);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speech_so_far_is_offered_every_interval_of_new_speech() {
        let mut on_speech = |_u: Utterance| {};
        let mut live = SpeechSoFar::new(Duration::from_secs(2), &mut on_speech);
        let due: Vec<bool> = [0, 1_000, 1_999, 2_000, 2_500, 3_999, 4_100, 5_000, 6_100]
            .into_iter()
            .map(|ms| live.due(ms))
            .collect();
        assert_eq!(
            due,
            [false, false, false, true, false, false, true, false, true]
        );
    }
}
