//! The voice playback queue (rodio): one voice at a time, in the order
//! queued, never overlapping; everything queued stops at once when the
//! child starts speaking ([`PlaybackQueue::interrupt`]) or the scene changes
//! ([`PlaybackQueue::clear`]). Each clip reports when it starts and how it
//! ends, so the UI and the tests can see the order.

use std::num::NonZero;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};

use rodio::buffer::SamplesBuffer;
use rodio::{DeviceSinkBuilder, MixerDeviceSink, Player, Source};
use serde::Serialize;

use super::AudioError;

/// A voice to play: mono samples at a sample rate.
#[derive(Debug, Clone, PartialEq)]
pub struct VoiceClip {
    pub samples: Vec<f32>,
    pub sample_rate: u32,
}

impl VoiceClip {
    pub fn duration_s(&self) -> f32 {
        self.samples.len() as f32 / self.sample_rate.max(1) as f32
    }

    /// Writes the clip as a mono 16-bit WAV file.
    pub fn write_wav(&self, path: &std::path::Path) -> Result<(), hound::Error> {
        let spec = hound::WavSpec {
            channels: 1,
            sample_rate: self.sample_rate,
            bits_per_sample: 16,
            sample_format: hound::SampleFormat::Int,
        };
        let mut w = hound::WavWriter::create(path, spec)?;
        for s in &self.samples {
            w.write_sample((s.clamp(-1.0, 1.0) * f32::from(i16::MAX)) as i16)?;
        }
        w.finalize()
    }
}

/// What happened to a queued clip.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum PlaybackEvent {
    Started {
        id: u64,
    },
    Finished {
        id: u64,
    },
    /// Stopped while playing (the child spoke, or the scene changed).
    Interrupted {
        id: u64,
    },
    /// Removed before it started.
    Dropped {
        id: u64,
    },
}

struct Tracked {
    inner: SamplesBuffer,
    id: u64,
    started: bool,
    done: bool,
    stop: Arc<AtomicBool>,
    events: mpsc::Sender<PlaybackEvent>,
}

impl Iterator for Tracked {
    type Item = rodio::Sample;
    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        if self.stop.load(Ordering::SeqCst) {
            self.done = true;
            let e = if self.started {
                PlaybackEvent::Interrupted { id: self.id }
            } else {
                PlaybackEvent::Dropped { id: self.id }
            };
            let _ = self.events.send(e);
            return None;
        }
        if !self.started {
            self.started = true;
            let _ = self.events.send(PlaybackEvent::Started { id: self.id });
        }
        let s = self.inner.next();
        if s.is_none() {
            self.done = true;
            let _ = self.events.send(PlaybackEvent::Finished { id: self.id });
        }
        s
    }
}

impl Source for Tracked {
    fn current_span_len(&self) -> Option<usize> {
        self.inner.current_span_len()
    }
    fn channels(&self) -> rodio::ChannelCount {
        self.inner.channels()
    }
    fn sample_rate(&self) -> rodio::SampleRate {
        self.inner.sample_rate()
    }
    fn total_duration(&self) -> Option<std::time::Duration> {
        self.inner.total_duration()
    }
}

/// The queue, bound to the default output device.
pub struct PlaybackQueue {
    player: Player,
    _device: MixerDeviceSink,
    next_id: u64,
    queued: Mutex<Vec<(u64, Arc<AtomicBool>)>>,
    events_tx: mpsc::Sender<PlaybackEvent>,
    events: mpsc::Receiver<PlaybackEvent>,
}

impl PlaybackQueue {
    /// Opens the default speaker.
    pub fn open_default() -> Result<Self, AudioError> {
        let device = DeviceSinkBuilder::open_default_sink()
            .map_err(|e| AudioError::Device(format!("cannot open the speaker: {e}")))?;
        let player = Player::connect_new(device.mixer());
        let (events_tx, events) = mpsc::channel();
        Ok(Self {
            player,
            _device: device,
            next_id: 1,
            queued: Mutex::new(Vec::new()),
            events_tx,
            events,
        })
    }

    /// Queues a voice after everything already queued; returns its id.
    pub fn enqueue(&mut self, clip: VoiceClip) -> Result<u64, AudioError> {
        let rate = NonZero::new(clip.sample_rate)
            .ok_or_else(|| AudioError::Format("a voice clip has sample rate 0".into()))?;
        let id = self.next_id;
        self.next_id += 1;
        let stop = Arc::new(AtomicBool::new(false));
        if let Ok(mut q) = self.queued.lock() {
            q.retain(|(_, s)| !s.load(Ordering::SeqCst));
            q.push((id, stop.clone()));
        }
        let inner = SamplesBuffer::new(NonZero::<u16>::MIN, rate, clip.samples);
        self.player.append(Tracked {
            inner,
            id,
            started: false,
            done: false,
            stop,
            events: self.events_tx.clone(),
        });
        Ok(id)
    }

    fn stop_all(&self) {
        if let Ok(mut q) = self.queued.lock() {
            for (_, stop) in q.drain(..) {
                stop.store(true, Ordering::SeqCst);
            }
        }
    }

    /// The child started speaking: the voice stops now and nothing queued plays.
    pub fn interrupt(&self) {
        self.stop_all();
    }

    /// A scene change: everything queued is dropped.
    pub fn clear(&self) {
        self.stop_all();
    }

    /// Whether nothing is left to play.
    pub fn is_idle(&self) -> bool {
        self.player.empty()
    }

    /// The next event, waiting at most `timeout`.
    pub fn next_event(&self, timeout: std::time::Duration) -> Option<PlaybackEvent> {
        self.events.recv_timeout(timeout).ok()
    }
}
