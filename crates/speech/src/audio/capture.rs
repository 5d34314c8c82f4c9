//! Microphone capture with cpal: the default input device or one chosen by
//! name, converted to 16 kHz mono f32 on a capture thread (never in the
//! audio callback), with a level meter for the UI about 20 times a second.
//! When the device goes away mid-recitation the capture ends with
//! [`CaptureEvent::DeviceLost`]; audio already delivered stays with the caller.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;
use std::time::Duration;

use cpal::traits::{DeviceTrait, HostTrait, StreamTrait};
use serde::Serialize;

use super::resample::{downmix, Resampler16k};
use super::{AudioError, SAMPLE_RATE};

/// How long [`Capture::start`] waits for the device to open.
pub const OPEN_TIMEOUT: Duration = Duration::from_secs(10);

/// How long dropping a [`Capture`] waits for the device to close.
pub const CLOSE_TIMEOUT: Duration = Duration::from_secs(2);

/// Level-meter updates per second.
pub const LEVELS_PER_SECOND: u32 = 20;

/// One level-meter reading, for the UI.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Level {
    /// ms since the capture started.
    pub at_ms: u64,
    /// Root-mean-square level, 0–1.
    pub rms: f32,
    /// Largest absolute sample, 0–1.
    pub peak: f32,
}

/// What the capture delivers, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum CaptureEvent {
    /// New 16 kHz mono samples.
    Audio(Vec<f32>),
    Level(Level),
    /// The device disappeared or failed; nothing more will come.
    DeviceLost(String),
    /// [`Capture::stop`] was called; nothing more will come.
    Stopped,
}

/// A running capture. Dropping it stops the device.
pub struct Capture {
    events: mpsc::Receiver<CaptureEvent>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
    pub device_name: String,
    pub device_rate: u32,
    pub device_channels: u16,
}

/// Input device names the default host lists.
pub fn input_devices() -> Result<Vec<String>, AudioError> {
    let host = cpal::default_host();
    let devices = host
        .input_devices()
        .map_err(|e| AudioError::Device(format!("cannot list input devices: {e}")))?;
    Ok(devices
        .filter_map(|d| d.description().ok().map(|x| x.name().to_string()))
        .collect())
}

enum Raw {
    Samples(Vec<f32>),
    Failed(String),
}

fn to_f32_stream(
    device: &cpal::Device,
    config: &cpal::SupportedStreamConfig,
    tx: mpsc::SyncSender<Raw>,
) -> Result<cpal::Stream, AudioError> {
    let err_tx = tx.clone();
    let on_error = move |e: cpal::Error| {
        let _ = err_tx.try_send(Raw::Failed(e.to_string()));
    };
    let stream_config = config.config();
    let built = match config.sample_format() {
        cpal::SampleFormat::F32 => device.build_input_stream::<f32, _, _>(
            stream_config,
            move |data: &[f32], _: &cpal::InputCallbackInfo| {
                let _ = tx.send(Raw::Samples(data.to_vec()));
            },
            on_error,
            None,
        ),
        cpal::SampleFormat::I16 => device.build_input_stream::<i16, _, _>(
            stream_config,
            move |data: &[i16], _: &cpal::InputCallbackInfo| {
                let _ = tx.send(Raw::Samples(
                    data.iter().map(|s| f32::from(*s) / 32768.0).collect(),
                ));
            },
            on_error,
            None,
        ),
        cpal::SampleFormat::I32 => device.build_input_stream::<i32, _, _>(
            stream_config,
            move |data: &[i32], _: &cpal::InputCallbackInfo| {
                let _ = tx.send(Raw::Samples(
                    data.iter().map(|s| *s as f32 / 2_147_483_648.0).collect(),
                ));
            },
            on_error,
            None,
        ),
        cpal::SampleFormat::U16 => device.build_input_stream::<u16, _, _>(
            stream_config,
            move |data: &[u16], _: &cpal::InputCallbackInfo| {
                let _ = tx.send(Raw::Samples(
                    data.iter()
                        .map(|s| (f32::from(*s) - 32768.0) / 32768.0)
                        .collect(),
                ));
            },
            on_error,
            None,
        ),
        other => {
            return Err(AudioError::Device(format!(
                "the microphone's sample format {other} is not supported"
            )))
        }
    };
    built.map_err(|e| AudioError::Device(format!("cannot open the microphone: {e}")))
}

impl Capture {
    /// Starts capturing from the named input device, or the default one.
    pub fn start(device_name: Option<&str>) -> Result<Self, AudioError> {
        let (ready_tx, ready_rx) = mpsc::channel::<Result<(String, u32, u16), AudioError>>();
        let (events_tx, events_rx) = mpsc::sync_channel(1024);
        let stop = Arc::new(AtomicBool::new(false));
        let stop_flag = stop.clone();
        let wanted = device_name.map(str::to_string);
        // cpal streams are not Send on every platform: the stream lives and dies on this thread.
        let thread = std::thread::Builder::new()
            .name("deskmate-capture".into())
            .spawn(move || capture_thread(wanted, ready_tx, events_tx, stop_flag))
            .map_err(|e| AudioError::Device(format!("cannot start the capture thread: {e}")))?;
        match ready_rx.recv_timeout(OPEN_TIMEOUT) {
            Ok(Ok((name, rate, channels))) => Ok(Self {
                events: events_rx,
                stop,
                thread: Some(thread),
                device_name: name,
                device_rate: rate,
                device_channels: channels,
            }),
            Ok(Err(e)) => {
                let _ = thread.join();
                Err(e)
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                stop.store(true, Ordering::SeqCst);
                Err(AudioError::Device(format!(
                    "the microphone did not open within {} s",
                    OPEN_TIMEOUT.as_secs()
                )))
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => Err(AudioError::Device(
                "the capture thread stopped unexpectedly".into(),
            )),
        }
    }

    /// The next event, waiting at most `timeout`.
    pub fn next_event(&self, timeout: Duration) -> Option<CaptureEvent> {
        self.events.recv_timeout(timeout).ok()
    }

    /// Asks the capture to stop; a [`CaptureEvent::Stopped`] follows.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

impl Drop for Capture {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            // The capture thread may be blocked handing over events nobody
            // reads any more (a device that is not paced fills the channel):
            // keep draining until it has seen the stop and ended.
            let deadline = std::time::Instant::now() + CLOSE_TIMEOUT;
            while !t.is_finished() && std::time::Instant::now() < deadline {
                let _ = self.events.recv_timeout(Duration::from_millis(10));
            }
            if t.is_finished() {
                let _ = t.join();
            } else {
                // A driver wedged inside a read never returns: leave its
                // thread behind rather than freeze the app with it.
                tracing::warn!(device = %self.device_name, "the microphone did not close in time; leaving it");
            }
        }
    }
}

fn open_device(wanted: Option<&str>) -> Result<cpal::Device, AudioError> {
    let host = cpal::default_host();
    match wanted {
        None => host.default_input_device().ok_or_else(|| {
            AudioError::Device("no microphone found (no default input device)".into())
        }),
        Some(name) => {
            let devices = host
                .input_devices()
                .map_err(|e| AudioError::Device(format!("cannot list input devices: {e}")))?;
            let mut names = Vec::new();
            for d in devices {
                let n = d
                    .description()
                    .map(|x| x.name().to_string())
                    .unwrap_or_default();
                if n == name {
                    return Ok(d);
                }
                names.push(n);
            }
            Err(AudioError::Device(format!(
                "no input device named {name:?}; available: {}",
                names.join(", ")
            )))
        }
    }
}

/// 16 kHz mono when the device offers it (no resampling, and what the
/// models want), else the device's default format.
fn preferred_config(device: &cpal::Device) -> Result<cpal::SupportedStreamConfig, cpal::Error> {
    if let Ok(configs) = device.supported_input_configs() {
        let usable = [cpal::SampleFormat::F32, cpal::SampleFormat::I16];
        for range in configs {
            if range.channels() == 1
                && usable.contains(&range.sample_format())
                && (range.min_sample_rate()..=range.max_sample_rate()).contains(&SAMPLE_RATE)
            {
                return Ok(range.with_sample_rate(SAMPLE_RATE));
            }
        }
    }
    device.default_input_config()
}

fn capture_thread(
    wanted: Option<String>,
    ready: mpsc::Sender<Result<(String, u32, u16), AudioError>>,
    events: mpsc::SyncSender<CaptureEvent>,
    stop: Arc<AtomicBool>,
) {
    let setup = (|| {
        let device = open_device(wanted.as_deref())?;
        let name = device
            .description()
            .map(|x| x.name().to_string())
            .unwrap_or_else(|_| "microphone".into());
        let config = preferred_config(&device).map_err(|e| {
            AudioError::Device(format!("the microphone {name} gives no usable format: {e}"))
        })?;
        // Bounded with blocking sends: back-pressure instead of dropped audio.
        // A live microphone never fills it (the converter is far faster than
        // real time); a device that is not paced (CI's ALSA file device) is
        // slowed down to what the listener consumes.
        let (raw_tx, raw_rx) = mpsc::sync_channel::<Raw>(256);
        let stream = to_f32_stream(&device, &config, raw_tx)?;
        stream
            .play()
            .map_err(|e| AudioError::Device(format!("cannot start the microphone: {e}")))?;
        Ok((
            stream,
            raw_rx,
            name,
            config.sample_rate(),
            config.channels(),
        ))
    })();
    let (stream, raw_rx, name, rate, channels) = match setup {
        Ok(s) => s,
        Err(e) => {
            let _ = ready.send(Err(e));
            return;
        }
    };
    let mut resampler = match Resampler16k::new(rate) {
        Ok(r) => r,
        Err(e) => {
            let _ = ready.send(Err(e));
            return;
        }
    };
    if ready.send(Ok((name, rate, channels))).is_err() {
        return;
    }
    let meter_block = (SAMPLE_RATE / LEVELS_PER_SECOND) as usize;
    let mut meter: Vec<f32> = Vec::with_capacity(meter_block);
    let mut total: u64 = 0;
    // Every way out closes the device the same way: the audio callback may
    // be blocked on a full `raw` channel, so the receiver goes first (its
    // send then fails at once) and only then the stream, whose drop waits
    // for the callback's thread.
    let close = |stream: cpal::Stream, raw_rx: mpsc::Receiver<Raw>| {
        drop(raw_rx);
        drop(stream);
    };
    loop {
        if stop.load(Ordering::SeqCst) {
            close(stream, raw_rx);
            let _ = events.send(CaptureEvent::Stopped);
            return;
        }
        match raw_rx.recv_timeout(Duration::from_millis(50)) {
            Ok(Raw::Samples(interleaved)) => {
                let mono = downmix(&interleaved, usize::from(channels.max(1)));
                let out = match resampler.push(&mono) {
                    Ok(o) => o,
                    Err(e) => {
                        close(stream, raw_rx);
                        let _ = events.send(CaptureEvent::DeviceLost(e.to_string()));
                        return;
                    }
                };
                for s in &out {
                    meter.push(*s);
                    if meter.len() == meter_block {
                        total += meter_block as u64;
                        let level = Level {
                            at_ms: total * 1000 / u64::from(SAMPLE_RATE),
                            rms: super::rms(&meter),
                            peak: meter.iter().fold(0.0f32, |m, v| m.max(v.abs())),
                        };
                        let _ = events.send(CaptureEvent::Level(level));
                        meter.clear();
                    }
                }
                if !out.is_empty() && events.send(CaptureEvent::Audio(out)).is_err() {
                    close(stream, raw_rx);
                    return;
                }
            }
            Ok(Raw::Failed(reason)) => {
                close(stream, raw_rx);
                let _ = events.send(CaptureEvent::DeviceLost(format!(
                    "the microphone stopped working: {reason}"
                )));
                return;
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                close(stream, raw_rx);
                let _ = events.send(CaptureEvent::DeviceLost(
                    "the microphone stream closed".into(),
                ));
                return;
            }
        }
    }
}
